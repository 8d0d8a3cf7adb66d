"""Write the notebooks in notebooks/ from the cells below (outputs cleared; the tests execute them).

    python scripts/build_notebooks.py
"""
from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

HERE = Path(__file__).resolve().parents[1] / "notebooks"
md, code = new_markdown_cell, new_code_cell
SETUP = """import os
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
import numpy as np
import matplotlib.pyplot as plt
import pp_corr
from pp_corr import plots
from pp_corr.models import correlated_t_model, sample
from pp_corr.checks import compare_to_analytic, compare_w_to_poisson_binomial
UCI54 = "../../shared/data/uci54/uci54_tidy.csv"
"""

NOTEBOOKS = {
    "01_posterior_checks.ipynb": [
        md("# Posterior checks: the PyMC models are the analytic ones\n\nThe Bayesian correlated t-test has an exact "
        "posterior (Corani & Benavoli 2015, Theorem 2). Here MCMC on the PyMC models is put next to it, the "
        "published erratum is shown numerically, and a prior on rho shows why rho is fixed by a heuristic."),
        code(SETUP),
        md("## Analytic vs MCMC, proper Normal-Gamma prior\nTree vs logistic regression on *wine* (10 x 10-fold CV)."),
        code("""scores = pp_corr.load_scores(pp_corr.example_path())
x = pp_corr.differences(scores, "tree", "logistic").sel(dataset="wine").values.ravel()
prior = pp_corr.NormalGamma(mu0=0.0, k0=1.0, a=1.0, b=0.001)
analytic = pp_corr.correlated_ttest(x, folds=10, prior=prior, names=("tree", "logistic"))
idata = sample(correlated_t_model(x, folds=10, prior=prior), random_seed=1)
table = compare_to_analytic(idata, analytic)
table.round(5)"""),
        code("""assert table.query("quantity != 'KS distance'").z.abs().max() <= 4
plots.plot_analytic_overlay(idata, analytic);"""),
        md("## The matching prior equals the frequentist corrected t-test"),
        code("""matching = pp_corr.correlated_ttest(x, folds=10, names=("tree", "logistic"))
idata_m = sample(correlated_t_model(x, folds=10), random_seed=2)
print("1 - p (corrected t-test):", 1 - matching.frequentist("greater").pvalue)
print("P(mu > 0), analytic:     ", matching.p_right)
print("P(mu > 0), MCMC:         ", float((idata_m.posterior.mu > 0).mean()))
plots.plot_posterior(matching);"""),
        md("## The erratum, numerically\nThe paper's Table 2 prints b-tilde with `-mu0^2/k0 - mu_hat^2 A + "
        "mu~^2 (A + 1/k0)`; the correct last term is `(A/k0)(mu_hat - mu0)^2 / (2(A + 1/k0))`. With a prior "
        "that is informative about mu the printed form gives a visibly different posterior, and MCMC sides "
        "with the corrected one."),
        code("""informative = pp_corr.NormalGamma(mu0=0.05, k0=0.01, a=2.0, b=0.002)
res = pp_corr.correlated_ttest(x, folds=10, prior=informative)
s, post = res.stats, res.posterior_params
A, mu_hat, k0, mu0 = s.effective_n, s.mean, informative.k0, informative.mu0
printed_b = informative.b + s.weighted_ss / 2 + (-mu0**2 / k0 - mu_hat**2 * A + post.mu0**2 * (A + 1 / k0)) / 2
printed = pp_corr.NormalGamma(post.mu0, post.k0, post.a, printed_b).mu_marginal()
idata_i = sample(correlated_t_model(x, folds=10, prior=informative), random_seed=3)
draws = idata_i.posterior.mu.values.ravel()
qs = [0.05, 0.5, 0.95]
print("quantiles, corrected form:", res.posterior.ppf(qs).round(5))
print("quantiles, printed form:  ", printed.ppf(qs).round(5))
print("quantiles, MCMC:          ", np.quantile(draws, qs).round(5))
grid = np.linspace(*res.posterior.ppf([0.001, 0.999]), 300)
fig, ax = plt.subplots(figsize=(6, 3.5))
ax.hist(draws, bins=60, density=True, color="0.8", label="MCMC")
ax.plot(grid, res.posterior.pdf(grid), label="corrected b-tilde")
ax.plot(grid, printed.pdf(grid), "--", label="printed b-tilde")
ax.set_xlabel("mu: mean difference logistic - tree"); ax.legend();"""),
        md("## rho is not learnable (Theorem 1)\nA Beta(2, 8) prior on rho, flat mu and p(sigma) ~ 1/sigma: the data "
        "inform only sigma^2 (1 - rho), so the posterior of rho is its prior."),
        code("""import importlib.util, scipy.stats as st
spec = importlib.util.spec_from_file_location("rho_prior", "../models/rho_prior.py")
rho_prior = importlib.util.module_from_spec(spec); spec.loader.exec_module(rho_prior)
idata_r = sample(rho_prior.build(x), random_seed=4)
rho = idata_r.posterior.rho.values.ravel()
grid = np.linspace(0, 0.8, 200)
fig, ax = plt.subplots(figsize=(6, 3.5))
ax.hist(rho, bins=50, density=True, color="0.8", label="posterior of rho (MCMC)")
ax.plot(grid, st.beta(*rho_prior.RHO_PRIOR).pdf(grid), label="prior Beta(2, 8)")
ax.set_xlabel("rho"); ax.legend()
print("KS distance posterior vs prior:", st.kstest(rho, st.beta(*rho_prior.RHO_PRIOR).cdf).statistic)"""),
    ],
}


def main():
    for name, cells in NOTEBOOKS.items():
        nb = new_notebook(cells=cells)
        nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
        nbformat.write(nb, HERE / name)
        print(f"wrote {HERE / name}")


if __name__ == "__main__":
    main()
