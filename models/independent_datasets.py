"""q independent data sets in one PyMC model, with W = #{i : mu_i > 0}, whose posterior is exactly the
Poisson-binomial of the per-data-set P(B better) (the Poisson test).

    python models/independent_datasets.py
"""
import pp_corr
from pp_corr.checks import compare_w_to_poisson_binomial
from pp_corr.pairwise.models import correlated_t_model
from pp_corr.sampling import sample


def main(draws=1000, random_seed=0):
    scores = pp_corr.load_scores(pp_corr.example_path())
    prior = pp_corr.NormalGamma(0.0, 1.0, 1.0, 0.001)
    model = correlated_t_model(scores, algorithms=("logistic", "knn"), prior=prior)   # coords: dataset
    idata = sample(model, draws=draws, random_seed=random_seed)
    table = compare_w_to_poisson_binomial(idata, pp_corr.correlated_ttest(scores, algorithms=("logistic", "knn"),
                                                                          prior=prior))
    print(table.round(4).to_string(index=False))
    print(f"total-variation distance to the exact Poisson-binomial: {table.attrs['total_variation']:.4f}")
    return table


if __name__ == "__main__":
    main()
