"""rho cannot be learned from the data (Corani & Benavoli 2015, Theorem 1): put a prior on it and the
posterior stays at the prior. That is why the correlated t-test fixes rho by the heuristic.

    python models/rho_prior.py

With mu flat and p(sigma) ~ 1/sigma, the data inform only the within-fold variance sigma^2 (1 - rho);
the mean absorbs the shared component, so the posterior of rho equals its prior exactly.
"""
import numpy as np
import pymc as pm
import pytensor.tensor as pt
from scipy import stats

import pp_corr
from pp_corr.pairwise.distributions import IntraclassNormal
from pp_corr.sampling import sample

RHO_PRIOR = (2.0, 8.0)  # Beta(2, 8): mean 0.2


def build(x):
    with pm.Model(coords={"obs": np.arange(len(x))}) as model:
        mu = pm.Flat("mu", initval=x.mean())
        sigma = pm.HalfFlat("sigma", initval=x.std())
        pm.Potential("matching_prior", -pt.log(sigma))
        rho = pm.Beta("rho", *RHO_PRIOR)
        IntraclassNormal("x", mu, sigma, rho, group=np.zeros(len(x), int), observed=x, dims="obs")
    return model


def main(draws=1000, random_seed=0):
    scores = pp_corr.load_scores(pp_corr.example_path())
    x = pp_corr.differences(scores, "tree", "knn").sel(dataset="breast_cancer").values.ravel()
    idata = sample(build(x), draws=draws, random_seed=random_seed)
    rho = idata.posterior.rho.values.ravel()
    ks = stats.kstest(rho, stats.beta(*RHO_PRIOR).cdf)
    print(f"posterior of rho: mean {rho.mean():.3f} (prior mean {RHO_PRIOR[0] / sum(RHO_PRIOR):.3f}), "
          f"KS distance to the prior {ks.statistic:.3f}")
    return idata


if __name__ == "__main__":
    main()
