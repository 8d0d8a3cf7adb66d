"""Bayesian correlated t-test with a proper Normal-Gamma prior, in PyMC, checked against Theorem 2.

    python models/normal_gamma.py

nu = 1/sigma^2 ~ Gamma(a, b); mu | nu ~ Normal(mu0, k0 / nu); x ~ intraclass MVN(mu 1, sigma^2 M), rho = 1/10.
Change the prior here and the analytic check tells you how far you moved from the closed form.
"""
import pp_corr
from pp_corr.checks import compare_to_analytic
from pp_corr.pairwise.models import correlated_t_model
from pp_corr.sampling import sample

PRIOR = pp_corr.NormalGamma(mu0=0.0, k0=1.0, a=1.0, b=0.001)


def main(draws=1000, random_seed=0):
    scores = pp_corr.load_scores(pp_corr.example_path())
    x = pp_corr.differences(scores, "tree", "logistic").sel(dataset="wine").values.ravel()
    model = correlated_t_model(x, folds=10, prior=PRIOR)           # a pm.Model: extend it inside `with model:`
    idata = sample(model, draws=draws, random_seed=random_seed)
    table = compare_to_analytic(idata, pp_corr.correlated_ttest(x, folds=10, prior=PRIOR))
    print(table.round(5).to_string())
    return table


if __name__ == "__main__":
    main()
