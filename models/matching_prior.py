"""The matching (improper) prior p(mu, sigma) ~ 1/sigma: the Bayesian test that equals the frequentist
corrected t-test (P(mu > 0 | x) = 1 - p), in PyMC as Flat/HalfFlat plus a Potential.

    python models/matching_prior.py
"""
import pp_corr
from pp_corr.checks import compare_to_analytic
from pp_corr.pairwise.models import correlated_t_model
from pp_corr.sampling import sample


def main(draws=1000, random_seed=0):
    scores = pp_corr.load_scores(pp_corr.example_path())
    x = pp_corr.differences(scores, "knn", "logistic").sel(dataset="digits").values.ravel()
    idata = sample(correlated_t_model(x, folds=10), draws=draws, random_seed=random_seed)
    analytic = pp_corr.correlated_ttest(x, folds=10)
    p = analytic.frequentist("greater").pvalue
    print(f"1 - p of the corrected t-test: {1 - p:.4f}; MCMC P(mu > 0): {(idata.posterior.mu > 0).mean().item():.4f}")
    table = compare_to_analytic(idata, analytic)
    print(table.round(5).to_string())
    return table


if __name__ == "__main__":
    main()
