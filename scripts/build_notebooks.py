"""Write the notebooks in notebooks/ from the cells below and execute them, so they are committed with their
outputs (the tests execute them again, on reduced sizes, without saving).

    python scripts/build_notebooks.py            # or: make notebooks
    python scripts/build_notebooks.py --no-execute 02_poisson_test_uci54.ipynb
"""
import argparse
import os
import sys
from pathlib import Path

import nbformat
from nbclient import NotebookClient
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

HERE = Path(__file__).resolve().parents[1] / "notebooks"
md, code = new_markdown_cell, new_code_cell
SETUP = """import os
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
import numpy as np
import matplotlib.pyplot as plt
import pp_corr
from pp_corr import plots
from pp_corr.pairwise.models import correlated_t_model
from pp_corr.sampling import sample
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
    "02_poisson_test_uci54.ipynb": [
        md("# Five classifiers on 54 UCI data sets: the Poisson test and the signed-rank tests\n\n"
        "10 runs of 10-fold cross-validation of naive Bayes (nbc), AODE, HNB, J48 and J48-grafted on 54 data sets. "
        "Per data set the Bayesian correlated t-test (rho = 1/10) gives P(B better); the Poisson test counts the "
        "data sets where B is better (a Poisson-binomial); the signed-rank and sign tests work on the mean "
        "differences. All with a rope of 0.01 (one point of accuracy)."),
        code(SETUP + """import pandas as pd
scores = pp_corr.load_scores(UCI54, columns={"score": "accuracy"})
print(scores.sizes)
pair = ("nbc", "hnb")"""),
        md("## Per data set: the Bayesian correlated t-test\nEach data set's posterior of the mean difference hnb - nbc, "
        "coloured by its most probable region."),
        code("""per_dataset = pp_corr.correlated_ttest(scores, algorithms=pair, rope=0.01)
plots.plot_forest(per_dataset);"""),
        code("""plots.plot_posterior(per_dataset, "audiology");
per_dataset.to_frame().round(3).head()"""),
        md("## The Poisson test\nX = number of data sets where hnb is better than nbc by more than the rope; "
        "P(X > q/2) is the probability that hnb is better on a majority."),
        code("""poisson = pp_corr.poisson_test(scores, algorithms=pair, rope=0.01)
print(poisson)
plots.plot_poisson_binomial(poisson);"""),
        md("## Signed-rank and sign tests on the per-data-set means\nThe Bayesian signed-rank test (Dirichlet process, "
        "prior strength 0.5 at 0) gives the posterior of (P(nbc better), P(rope), P(hnb better)); the simplex "
        "shows its draws. The frequentist Wilcoxon test gives a p-value only."),
        code("""signed_rank = pp_corr.bayesian_signed_rank(scores, algorithms=pair, rope=0.01, random_seed=0)
sign = pp_corr.bayesian_sign_test(scores, algorithms=pair, rope=0.01, random_seed=0)
wilcoxon = pp_corr.wilcoxon_test(scores, algorithms=pair, alternative="greater")
pd.DataFrame({"P(nbc better)": [signed_rank.p_left, sign.p_left], "P(rope)": [signed_rank.p_rope, sign.p_rope],
              "P(hnb better)": [signed_rank.p_right, sign.p_right], "decision": [signed_rank.decision(), sign.decision()]},
             index=["Bayesian signed-rank", "Bayesian sign"]).round(3)"""),
        code("""print(f"Wilcoxon signed-rank (hnb better), one-sided p = {wilcoxon.pvalue:.2g}")
plots.plot_simplex(signed_rank);"""),
        md("## All pairs\nP(column better than row on a majority of data sets), and what each test decides at alpha = 0.05."),
        code("""table = pp_corr.compare_all_pairs(scores, rope=0.01, random_seed=0)
plots.plot_pairs(table);"""),
        code("""print(pp_corr.format_pairs(table))"""),
    ],
    "03_hierarchical.ipynb": [
        md("# The hierarchical model on uci54\n\nCorani, Benavoli, Demsar, Mangili & Zaffalon (2017): the per-data-set "
        "mean differences delta_i are drawn from a Student-t population with mean delta0. The model answers "
        "\"is B better in general?\" (delta0, and a new data set) and shrinks each data set's estimate towards "
        "the population. Here: nbc vs hnb on the 54 UCI data sets, rope 0.01."),
        code(SETUP + """import arviz as az
from pp_corr import hierarchical_test
scores = pp_corr.load_scores(UCI54, columns={"score": "accuracy"})
pair = ("nbc", "hnb")
res = hierarchical_test(scores, algorithms=pair, rope=0.01, random_seed=1)
res"""),
        md("## Diagnostics\nBy default the posterior is computed exactly, by deterministic quadrature (sigma_i in closed "
        "form, delta_i in one dimension, a grid over delta0, sigma0 and nu; the summary gives its estimated error), "
        "and the draws are independent: R-hat is 1 and the effective sample size is the number of draws. "
        "`method=\"mcmc\"` samples with NUTS instead, and then R-hat, bulk ESS and divergences decide convergence "
        "(a `ConvergenceWarning` names what failed)."),
        code("""az.summary(res.idata, var_names=["delta0", "sigma0", "nu"])"""),
        md("## Shrinkage\nNoisy data sets (wide intervals) move most towards delta0; precise ones keep their own mean."),
        code("""plots.plot_shrinkage(res);
res.datasets().round(3).sort_values("indep. mean").head(8)"""),
        md("## A new data set\nPer posterior draw, delta_new ~ t_nu(delta0, sigma0) gives (P(nbc better), P(rope), "
        "P(hnb better)); the simplex shows the draws, and the title the share of draws in which each region is "
        "largest (ties shared equally)."),
        code("""new = res.new_dataset()
print(f"posterior means: P(nbc better) {new.p_left:.3f}, P(rope) {new.p_rope:.3f}, P(hnb better) {new.p_right:.3f}")
plots.plot_simplex(new);"""),
        md("## Against the Poisson test\nThe independent analysis (one correlated t-test per data set) makes the "
        "number W of data sets where hnb is better exactly Poisson-binomial; the hierarchical model shrinks "
        "the noisy data sets towards delta0 > 0 and so moves W up. Both say hnb is better on a majority."),
        code("""poisson = pp_corr.poisson_test(scores, algorithms=pair)  # W counts delta_i > 0: no rope here
w = res.w_distribution()
q = len(w) - 1
print(f"P(W > q/2): Poisson test {poisson.p_b_majority:.4f}, hierarchical {w['hierarchical'][w.index > q / 2].sum():.4f}")
fig, ax = plt.subplots(figsize=(7, 3.5), layout="constrained")
ax.bar(w.index - 0.2, w["independent (Poisson-binomial)"], width=0.4, label="independent (Poisson-binomial)")
ax.bar(w.index + 0.2, w["hierarchical"], width=0.4, label="hierarchical model")
ax.axvline(q / 2, color="k", ls="--", lw=1, label="q/2")
ax.set_xlim(min(q / 2, w.index[(w.sum(axis=1) > 1e-4)].min()) - 1, q + 1)
ax.set_xlabel("W: number of data sets where hnb - nbc > 0"); ax.set_ylabel("probability"); ax.legend();"""),
        md("## The three pairs of the acceptance test\nnbc, aode and j48 against hnb: population mean, a new data set, "
        "and the Poisson test side by side (the Poisson test here counts data sets where hnb is better by more "
        "than the rope). In aode vs hnb the very noisy *contact-lenses* (24 instances) can have a bimodal posterior, "
        "between its own mean and the population's: the exact posterior has both modes, where MCMC can miss one."),
        code("""rows = []
for a in ("nbc", "aode", "j48"):
    fit = res if a == "nbc" else hierarchical_test(scores, algorithms=(a, "hnb"), rope=0.01, random_seed=2)
    new, pois = fit.new_dataset(), pp_corr.poisson_test(scores, algorithms=(a, "hnb"), rope=0.01)
    rows.append({"A": a, "P(delta0 > 0)": fit.p_delta0_positive, "new: P(hnb better)": new.p_right,
                 "new: P(rope)": new.p_rope, "Poisson: P(hnb better on a majority)": pois.p_b_majority,
                 "R-hat delta0": float(az.rhat(fit.idata, var_names=["delta0"])["delta0"])})
import pandas as pd
pd.DataFrame(rows).set_index("A").round(3)"""),
        md("## Posterior predictive checks\nPer data set, the model's predictive mean and standard deviation of the "
        "fold differences against the observed ones (pooled over the 54 data sets)."),
        code("""pc = az.plot_ppc_dist(res.posterior_predictive(random_seed=3), var_names=["mean", "sd"], kind="ecdf")
for var in ("mean", "sd"):
    pc.get_viz("plot", var).set_xlabel(f"per-data-set {var} of hnb - nbc\\n(black: observed, blue: 50 predictive draws)")"""),
    ],
    "04_simulation_study.ipynb": [
        md("# The simulation studies: calibration and power of the Poisson test\n\n"
        "Corani & Benavoli (2015), section 4. BN-hat (the learned Bayesian network C -> F) against zeroR on q "
        "simulated data sets whose accuracy gap is delta. The Poisson test (rho = 1/10) declares BN-hat better "
        "when P(better on a majority) > 0.95, the one-sided Wilcoxon signed-rank test when p < 0.05. The "
        "simulator works on counts (a fold is a multivariate hypergeometric draw of the four instance types), "
        "so the full experiment 1 takes 10 to 30 s on two cores.\n\n"
        "`REPETITIONS` below is 5000 as in the paper unless the environment sets `PP_CORR_REPETITIONS` (the tests "
        "run 200). The command line runs and saves the full studies: `pp-corr simulate experiment1 -o results/`."),
        code(SETUP + """from pp_corr.studies import simulation
REPETITIONS = int(os.environ.get("PP_CORR_REPETITIONS", 5000))
print("repetitions per setting:", REPETITIONS)"""),
        md("## Experiment 1: the same gap on all 50 data sets\nAt delta = 0 the rejection rate is the Type I error; "
        "above it, the power. m = 1 or 10 runs of 10-fold cross-validation."),
        code("""exp1 = simulation.experiment_1(repetitions=REPETITIONS, random_seed=1, progressbar=False)
rates1 = simulation.rejection_rates(exp1)
plots.plot_rejection_rates(rates1);"""),
        code("""rates1.rate.sel(n_datasets=50).to_dataframe().rate.unstack(["test", "runs"]).round(3)"""),
        md("On small data sets the learned network often picks the wrong association, so the simulated gap is "
        "below the requested delta:"),
        code("""rates1.mean_difference.sel(n_datasets=50).to_dataframe().mean_difference.unstack("runs").round(4)"""),
        md("## Experiment 2: gaps drawn from Cauchy(d, d)\nEach data set's gap is Cauchy(d, d) clipped to [-0.5, 0.5]: "
        "most gaps are near d but some are large and of either sign; the Wilcoxon test, which uses the sizes of "
        "the mean differences, is pulled by them, the Poisson test only counts."),
        code("""exp2 = simulation.experiment_2(repetitions=REPETITIONS, random_seed=2, progressbar=False)
rates2 = simulation.rejection_rates(exp2)
fig, axes = plt.subplots(1, 2, figsize=(12, 4), layout="constrained", sharey=True)
for ax, q in zip(axes, rates2.n_datasets.values):
    plots.plot_rejection_rates(rates2.sel(n_datasets=[q]), ax=ax)"""),
        md("## The toy example\nB is better on D1..D5 and worse on D6..D10 (mu = +-0.1). In case 2 the five data sets "
        "where B is worse are noisier. The Wilcoxon statistic T+ spreads more in case 2 (the noisy data sets "
        "sometimes change rank with the others), so its distribution is not the same in the two cases, yet Wilcoxon "
        "practically never declares B better in either; the Poisson test becomes less sure that B is not better on "
        "a majority, as it should, and it too practically never declares B better."),
        code("""toy = simulation.toy_example(repetitions=REPETITIONS, random_seed=3, progressbar=False)
plots.plot_toy_example(toy)
simulation.rejection_rates(toy).rate.to_dataframe().rate.unstack("test")"""),
    ],
    "05_signed_rank_study.ipynb": [
        md("# The Bayesian signed-rank paper's studies: losses, indeterminacy, replicability\n\n"
        "Benavoli et al. (2014) compare the one-sided Wilcoxon signed-rank test with the Bayesian signed-rank test on "
        "a Dirichlet process with s -> 0 (DP) and on the imprecise DP (IDP), which answers *indeterminate* when the "
        "decision depends on the prior. q = 30 data sets, per data set (X, Y) ~ N((0, Delta), 0.12^2 [[1, r], [r, 1]]), "
        "z = Y - X; H1 (Y better) holds when Delta > 0. Deciding H1 under H0 costs l1, H0 under H1 costs l0; the "
        "Bayesian tests decide at t = l1 / (l0 + l1), Wilcoxon at p < 0.05 whatever the losses.\n\n"
        "`RUNS` is 1000 runs per Delta with 5000 Dirichlet draws per test unless the environment sets "
        "`PP_CORR_REPETITIONS` (the tests run 200 runs of 1000 draws). The command line runs and saves the study: "
        "`pp-corr simulate signed-rank -o results/`, and the replicability: `pp-corr replicability FILE`."),
        code(SETUP + """import pandas as pd
from pp_corr.studies.signed_rank_study import (decisions, indeterminate_decisions, loss_areas, loss_curves,
                                               signed_rank_study)
from pp_corr.studies.signed_rank_figure import plot_signed_rank_losses
from pp_corr.studies.replicability import replicability_decisions, replicability_table
from pp_corr.palette import series_color
RUNS = int(os.environ.get("PP_CORR_REPETITIONS", 1000))
DRAWS = 5000 if RUNS >= 1000 else 1000
print(f"{RUNS} runs per Delta and correlation, {DRAWS} Dirichlet draws per test")


def estimates(values, errors, columns):
    \"\"\"'value (se)' cells, ``columns`` across.\"\"\"
    frame = pd.DataFrame({"v": values.to_series(), "se": errors.to_series()})
    cells = frame.v.map(lambda v: "-" if np.isnan(v) else f"{v:.4f}") + frame.se.map(
        lambda v: "" if np.isnan(v) else f" ({v:.4f})")
    return cells.unstack(columns)"""),
        md("## Loss against Delta\nBands: 95% Monte Carlo intervals over the runs. The IDP's line is its mean loss "
        "over the runs where it decides; the grey bars (right axis) the share of runs where it is indeterminate. "
        "Each run's noise and Dirichlet draws serve the whole Delta grid, so the curves are smooth in Delta. One "
        "worker here (half a minute on an idle core); the command line uses every core."),
        code("""results = signed_rank_study(runs=RUNS, draws=DRAWS, workers=1, random_seed=1, progressbar=False)
curves = loss_curves(results)
plot_signed_rank_losses(curves);"""),
        md("## Table 1: area under the loss curves\nThe trapezoid rule over the grid -0.07..0.07 (divide by 0.14 "
        "for the mean loss over it); value (Monte Carlo standard error)."),
        code("""areas = loss_areas(results)
estimates(areas.area.sel(runs_used="all", test=["wilcoxon", "dp"]),
          areas.area_se.sel(runs_used="all", test=["wilcoxon", "dp"]), ["loss_pair"])"""),
        md("## Table 2: areas over the runs where the IDP decides\nPer Delta the mean loss over the IDP-determinate "
        "runs. Where the IDP decides, the DP decides the same (lower <= DP <= upper on every run: both come from the "
        "same draws), so their rows are equal; Wilcoxon can differ."),
        code("""estimates(areas.area.sel(runs_used="IDP determinate"), areas.area_se.sel(runs_used="IDP determinate"),
          ["loss_pair"])"""),
        code("""dec = decisions(results)
determinate = dec.idp_determinate
agree_dp = (dec.h1.sel(test="dp") == dec.h1.sel(test="idp")).where(determinate).mean()
agree_w = (dec.h1.sel(test="wilcoxon") == dec.h1.sel(test="idp")).where(determinate).mean()
print(f"IDP determinate in {float(determinate.mean()):.1%} of the (run, Delta, loss) cases; there the DP agrees "
      f"with it in {float(agree_dp):.2%}, Wilcoxon in {float(agree_w):.1%}")
share = curves.sel(loss_pair="(1, 19)", delta=0.05)
for r in results.correlation.values:
    print(f"r = {r:g}: IDP indeterminate at Delta = 0.05, (l0, l1) = (1, 19): "
          f"{float(share.indeterminate.sel(correlation=r)):.3f} "
          f"(se {float(share.indeterminate_se.sel(correlation=r)):.3f})")"""),
        md("## Table 3: what DP and Wilcoxon decide where the IDP is indeterminate\nShare of H1 decisions (H0 is the "
        "rest) over the indeterminate (run, Delta) cases of the whole grid; standard errors with runs as clusters. "
        "There the DP's answer is close to a coin toss: it is the prior that decides."),
        code("""undecided = indeterminate_decisions(results)
print("indeterminate (run, Delta) cases out of", results.sizes["run"] * results.sizes["delta"], "per correlation:")
print(undecided.n_indeterminate.to_pandas().to_string())
estimates(undecided.h1, undecided.h1_se, ["loss_pair"])"""),
        md("## Replicability on uci54\n15 of the 54 data sets drawn 1000 times (the same subsets for every pair); "
        "on each subset Wilcoxon (p < 0.05), DP and IDP (t = 0.95) and the Poisson test (P(B better on a majority) "
        "> 0.95). Each pair is oriented so that B has the higher mean accuracy. R = 1 - 2 var(decision): 1 when "
        "every subset gives the same answer, 0.5 for a coin toss, over all subsets and over those where the IDP "
        "decides or not."),
        code("""scores = pp_corr.load_scores(UCI54, columns={"score": "accuracy"})
replic = replicability_decisions(scores, n_subsets=min(1000, 5 * RUNS), draws=DRAWS, random_seed=0)
table = replicability_table(replic)
table.drop(columns=["a", "b", "n_subsets"]).round(3)"""),
        md("Where the IDP is indeterminate, Wilcoxon and the DP are close to a coin toss (R near 0.5): the "
        "indeterminacy flags the subsets on which any test's answer would not replicate. The Poisson test, which "
        "also weighs each data set's fold-to-fold variance, keeps its own pattern."),
        code("""fig, ax = plt.subplots(figsize=(7, 3.5), layout="constrained")
x = np.arange(len(table))
for k, (column, label) in enumerate([("R_wilcoxon_determinate", "Wilcoxon, IDP determinate"),
                                     ("R_wilcoxon_indeterminate", "Wilcoxon, IDP indeterminate"),
                                     ("R_dp_indeterminate", "DP, IDP indeterminate"),
                                     ("R_poisson", "Poisson, all subsets")]):
    ax.bar(x + (k - 1.5) * 0.2, table[column], width=0.2, color=series_color(k), label=label,
           hatch=("", "//", "..", "xx")[k], edgecolor="white")
ax.axhline(0.5, color="0.4", lw=0.8, ls=":")
ax.set_xticks(x, table.index, rotation=30, ha="right", fontsize=8)
ax.set_ylabel("replicability R"); ax.set_ylim(0.4, 1.0); fig.legend(fontsize=7, ncols=4, loc="outside upper center");"""),
    ],
    "07_checking_the_hierarchical_model.ipynb": [
        md("# Checking the hierarchical model: LOO by data set, variants, prior sensitivity, predictive coverage\n\n"
        "nbc vs hnb on the 54 UCI data sets. Leave-one-data-set-out asks how well a model predicts the folds of a "
        "new data set; its unit is each data set's likelihood with its own delta_i and sigma_i integrated out, "
        "p(x_i | delta0, sigma0, nu) (`by_dataset`). The conditional p(x_i | delta_i, sigma_i) "
        "(`by_dataset_conditional`) is no such unit: each data set dominates its own parameters.\n\n"
        "The fits are MCMC (`method=\"mcmc\"`: the normal population has no exact posterior, and the variants are "
        "compared on the same footing) with the convergence policy, unless the environment sets "
        "`PP_CORR_REPETITIONS` (the tests: 200 draws on 2 chains, no retry, so a `ConvergenceWarning` may show)."),
        code(SETUP + """import warnings
import arviz as az
import pymc as pm
from pp_corr import hierarchical_test, checks, check_plots
scores = pp_corr.load_scores(UCI54, columns={"score": "accuracy"})
pair = ("nbc", "hnb")
FULL = "PP_CORR_REPETITIONS" not in os.environ
settings = {"method": "mcmc"} if FULL else {"method": "mcmc", "draws": 200, "tune": 300, "chains": 2, "retry": False}
variants = {"student_t, current": {}, "student_t, kruschke": {"priors": "kruschke"},
            "student_t, juarez_steel": {"priors": "juarez_steel"}, "normal": {"population": "normal"}}
if not FULL:
    variants.pop("student_t, juarez_steel")
fits = {name: hierarchical_test(scores, algorithms=pair, rope=0.01, random_seed=1, **options, **settings)
        for name, options in variants.items()}
res = fits["student_t, current"].with_log_likelihood()  # for az.loo below (compare_variants adds it itself)
res"""),
        md("## LOO by data set and its Pareto k\nk above 0.7 means the importance sampling behind PSIS-LOO is not "
        "to be trusted for that data set. Conditional likelihood: most data sets; integrated: none."),
        code("""with warnings.catch_warnings():
    warnings.simplefilter("ignore", UserWarning)  # the Pareto k warning: the k are shown below
    loos = {var: az.loo(res.idata, var_name=var, pointwise=True) for var in ("by_dataset_conditional", "by_dataset")}
fig, ax = plt.subplots(figsize=(8, 3), layout="constrained")
for (var, loo), marker, colour in zip(loos.items(), ("x", "o"), ("#D55E00", "#0072B2")):
    k = loo.pareto_k.values
    ax.plot(np.arange(len(k)), k, marker, color=colour, linestyle="none",
            label=f"{var}: k > 0.7 in {(k > 0.7).sum()} of {len(k)}")
ax.axhline(0.7, color="k", lw=0.8, ls="--")
ax.set_xlabel("data set"); ax.set_ylabel("Pareto k"); ax.legend(fontsize=8);
{var: f"elpd {loo.elpd:.1f} (se {loo.se:.1f})" for var, loo in loos.items()}"""),
        md("## Variants compared by LOO\n`checks.compare_variants` is `az.compare` on `by_dataset`: elpd_diff from "
        "the best with its standard error dse. A difference of a few dse or less is no evidence."),
        code("""checks.compare_variants(fits).round(2)"""),
        md("## Prior sensitivity\nPower-scaling (`az.psense` through `checks.prior_sensitivity`): how far the "
        "posterior of delta0, sigma0 and nu moves when the population-level priors or the likelihood are raised "
        "to the power 0.99 or 1.01. delta0 and sigma0 have uniform priors, which power-scaling leaves unchanged; nu is "
        "barely informed by 54 data sets, so its prior dominates, and the diagnostic says so. A prior in conflict "
        "with the data, delta0 ~ N(-0.03, 0.005) where the data put it near +0.015, is flagged."),
        code("""print(checks.prior_sensitivity(res))
wrong = hierarchical_test(scores, algorithms=pair, rope=0.01, random_seed=1, **settings,
                          delta0_prior=lambda name, unit: pm.Normal(name, -0.03 / unit, 0.005 / unit))
checks.prior_sensitivity(wrong)"""),
        md("## Posterior predictive coverage and LOO-PIT\nEach data set's observed fold mean and sd against the 90% "
        "intervals of a new run of its cross-validation. In-sample the observed statistics are inside more often "
        "than 90% (each mean pins its delta_i); the LOO-PIT, which leaves the statistic out, should look uniform."),
        code("""coverage = checks.predictive_intervals(res, 0.9, random_seed=0)
check_plots.plot_predictive_intervals(coverage, confidence_level=0.9);
coverage[["mean_covered", "sd_covered"]].mean()"""),
        code("""check_plots.plot_loo_pit(coverage);
coverage[["mean_loo_pit", "mean_pareto_k", "sd_loo_pit", "sd_pareto_k"]].describe().round(3)"""),
    ],
    "08_sequential_comparison.ipynb": [
        md("# Deciding with fewer runs: sequential comparison\n\n"
        "A comparison need not cost the whole design chosen in advance. The rules (docs/theory.md, section 10) "
        "look at the posterior after every run, or every data set, and stop when a region reaches 1 - alpha, or "
        "for futility when more of the same could not decide. Under the correlated model the posterior variance of "
        "the mean difference on one data set has a floor, rho/(1 - rho) s^2, however many runs are added: then the "
        "message is to add data sets, not runs. Here: replaying uci54 (10 runs x 10 folds on 54 data sets), the "
        "price of stopping early in wrong decisions, and the rules fed by a runner of your own.\n\n"
        "The tests set `PP_CORR_REPETITIONS` and run a smaller error-rate study."),
        code(SETUP + """import pandas as pd
from sklearn.datasets import load_breast_cancer
from sklearn.model_selection import KFold, cross_val_score
from sklearn.naive_bayes import GaussianNB
from sklearn.tree import DecisionTreeClassifier
scores = pp_corr.load_scores(UCI54, columns={"score": "accuracy"})
from pp_corr.palette import series_color
REPETITIONS = int(os.environ.get("PP_CORR_REPETITIONS", 500))"""),
        md("## Over runs: each data set replayed run by run\nnbc against hnb with a rope of one point of "
        "accuracy. Where the full design decides, the replay almost always reaches the same decision, and early."),
        code("""runs = pp_corr.sequential_test(scores, ("nbc", "hnb"), over="runs", rope=0.01, random_seed=1)
out = runs.outcomes
print(runs.summary().splitlines()[1])
out.decision.value_counts().rename("decisions").to_frame().join(out.groupby("decision").used.mean().rename("mean runs"))"""),
        md("Why each stopped, in words: a decision, the budget, or the floor (more runs of this data set cannot "
        "decide: add data sets)."),
        code("""out["why"] = out.reason.str.extract(r"^(P\\(|budget|even infinitely|the full budget)")[0].map(
    {"P(": "decision", "budget": "budget exhausted", "even infinitely": "the floor: add data sets",
     "the full budget": "the budget would not decide"})
out.why.value_counts()"""),
        md("The path of one data set: the three region probabilities after each run, 1 - alpha, and the "
        "predictive probability that the budget decides with its futility threshold."),
        code("""slowest = out.used.idxmax()
runs.plot(dataset=slowest);"""),
        md("## Over data sets\nThe data sets in random orders, the test across them after each: the signed-rank "
        "test (ten orders), and the hierarchical model (its exact posterior, a few seconds a step) for j48 against "
        "j48gr, which differ on a handful of data sets only (from the second data set on)."),
        code("""orders = [pp_corr.sequential_test(scores, ("nbc", "hnb"), over="datasets", rope=0.01, random_seed=seed)
          for seed in range(10)]
pd.DataFrame({"stopped after": [r.stopped_at for r in orders], "decision": [r.decision() for r in orders],
              "all 54": [r.full_decision for r in orders]}, index=pd.Index(range(10), name="order"))"""),
        code("""hier = pp_corr.sequential_test(scores, ("j48", "j48gr"), over="datasets", test="hierarchical", rope=0.01,
                               min_datasets=2, random_seed=0)
print(hier.summary())
hier.plot();"""),
        md("## The price of stopping early\n`sequential_study` simulates data sets at the 2015 paper's design (10 "
        "runs x 10 folds, rho = 0.1) with the true mean inside the rope, on its boundary and outside, and replays "
        "each at several alphas. At the boundary the wrong-decision rate of the rule at alpha 0.05 is above the "
        "nominal 5%; the calibrated alpha is the largest whose rate is not."),
        code("""study = pp_corr.sequential_study((0.0, 0.01, 0.03), repetitions=REPETITIONS, chunk=250, random_seed=0,
                                 workers=1)
print(study.summary().splitlines()[0])
study.table[["wrong", "wrong_mcse", "wrong_fixed", "saving", "agreement"]].round(3)"""),
        code("""table = study.table.reset_index()
fig, ax = plt.subplots(figsize=(6, 3.2), layout="constrained")
for k, (mu, group) in enumerate(table.groupby("mu")):
    ax.errorbar(group.alpha + (k - 1) * 0.002, group.wrong, yerr=2 * group.wrong_mcse, marker="os^"[k],
                color=series_color(k), capsize=3, label=f"true mean {mu:g}")
ax.axhline(0.05, color="0.3", lw=0.8, ls="--", label="nominal 5%")
ax.set(xlabel="alpha", ylabel="wrong decisions (+- 2 MCSE)", title="Sequential correlated t-test, rope 0.01")
ax.legend(fontsize=8);"""),
        md("## Your own runner\n`SequentialRuns` takes one run's fold scores at a time; `run(callback)` asks "
        "your runner for one more run until the rules stop. Here the runner is scikit-learn's `cross_val_score` "
        "with a new shuffle each run (`sequential_cv` does the same with its own splits)."),
        code("""X, y = load_breast_cancer(return_X_y=True)

def one_run(run):
    folds = KFold(10, shuffle=True, random_state=run)
    return (cross_val_score(DecisionTreeClassifier(max_depth=2, random_state=0), X, y, cv=folds),
            cross_val_score(GaussianNB(), X, y, cv=folds))

seq = pp_corr.SequentialRuns(rope=0.01, max_runs=10, names=("tree", "nb"), random_seed=0).run(one_run)
print(seq)
seq.result.to_frame().round(3)"""),
    ],
    "09_items.ipynb": [
        md("# Models scored item by item on shared benchmarks\n\n"
        "Two models answer the same test items of several benchmarks, three times each. The item is the unit of "
        "pairing; the runs either sample the answers again (a sampling temperature) or are training seeds, whose "
        "shift every item of a run shares (docs/theory.md, section 11). Here: simulated benchmarks whose truth is "
        "known, the comparison per benchmark and over benchmarks, what run shifts do to an interval built from "
        "items alone, and how many items a decision needs.\n\n"
        "The tests set `PP_CORR_REPETITIONS` and run smaller studies."),
        code(SETUP + """import pandas as pd
import warnings
REPETITIONS = int(os.environ.get("PP_CORR_REPETITIONS", 1000))
rng = np.random.default_rng(2026)

def benchmark(name, items, gap, runs=3, shift=0.0):
    \"\"\"Binary answers: P(right) = expit(difficulty + model x item + run shift), model B 'gap' logits better.\"\"\"
    difficulty = rng.normal(0.3, 1.5, items)
    rows = []
    for model, better in (("base", 0.0), ("tuned", gap)):
        logit = difficulty + better + rng.normal(0, 0.5, items)
        for run in range(runs):
            p = 1 / (1 + np.exp(-(logit + rng.normal(0, shift))))
            rows.append(pd.DataFrame({"benchmark": name, "item": np.arange(items), "model": model, "run": run + 1,
                                      "correct": (rng.random(items) < p).astype(int)}))
    return pd.concat(rows)

table = pd.concat([benchmark(f"bench{k}", items, gap) for k, (items, gap) in
                   enumerate([(800, 0.25), (400, 0.15), (1200, 0.0), (300, 0.3), (600, 0.1), (500, 0.2)])])
table.head()"""),
        md("## One benchmark at a time\n`load_items` finds the columns by their names (here `correct` is the "
        "score); `compare_items` gives each benchmark's posterior of the mean difference tuned - base over items, "
        "with a rope of one point of accuracy."),
        code("""items = pp_corr.load_items(table)
res = pp_corr.compare_items(items, ("base", "tuned"), rope=0.01, random_seed=0)
res"""),
        code("res.plot();"),
        md("## Over benchmarks\nEach benchmark is a data set and each item a fold of the hierarchical model, "
        "whose exact posterior gives the probabilities for a new benchmark."),
        code("""hier = pp_corr.hierarchical_test(pp_corr.benchmark_scores(items), algorithms=("base", "tuned"), rope=0.01,
                                 random_seed=0)
print(hier)"""),
        md("## Training seeds\nWhen the runs are training seeds, each run shifts all its items. An interval built "
        "from items alone does not see that shift: over many simulated benchmarks with a known difference it "
        "covers far less than 95%, while `runs=\"seeds\"` draws the shifts' variance from the models' run means. "
        "Continuous scores, 300 items x 3 runs, shift sd 0.3."),
        code("""def continuous(shift, items=300, runs=3, difference=0.1):
    a = rng.normal(0, 1, items)
    return {m: mu + a[:, None] + rng.normal(0, 0.5, items)[:, None] + rng.normal(0, shift, runs)[None]
            + rng.normal(0, 1, (items, runs)) for m, mu in (("A", 0.0), ("B", difference))}

rows = []
for shift in (0.0, 0.3):
    for k in range(REPETITIONS // 5):
        y = continuous(shift)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", pp_corr.AssumptionWarning)
            seeds = pp_corr.compare_items(y, runs="seeds", draws=2000, random_seed=k)
            samples = pp_corr.compare_items(y, draws=2000, random_seed=k)
        clustered = seeds.clustered_interval()
        rows.append({"shift sd": shift, "runs='samples'": samples.interval()[0][0] <= 0.1 <= samples.interval()[1][0],
                     "runs='seeds'": seeds.interval()[0][0] <= 0.1 <= seeds.interval()[1][0],
                     "item-clustered": clustered[0][0] <= 0.1 <= clustered[1][0]})
coverage = pd.DataFrame(rows).groupby("shift sd").mean()
print(f"coverage of 95% intervals over {REPETITIONS // 5} benchmarks each "
      f"(binomial standard error {np.sqrt(0.95 * 0.05 / (REPETITIONS // 5)):.3f})")
coverage.round(3)"""),
        md("## How many items?\n`plan_items` simulates designs from a pilot (here the 300-item benchmark) for a "
        "planned difference of three points: the share of simulated benchmarks that decide is the design's "
        "assurance. Three runs average away answer noise that one run leaves in every item."),
        code("""plan = pp_corr.plan_items(items, ("base", "tuned"), benchmark="bench3", items=[300, 1000, 2000, 4000],
                          runs=[1, 3], difference=0.03, rope=0.01, simulations=REPETITIONS // 5, random_seed=0)
print(plan)
best = plan.smallest(0.8)
design = "none" if best is None else f"{int(best['items'])} items x {int(best['runs'])} runs"
print("the smallest design reaching 0.8:", design)
plan.plot();"""),
    ],
    "06_nadeau_bengio.ipynb": [
        md("# The learners in the loop: the procedures of Nadeau & Bengio (2003)\n\n"
        "The corrected t-test of the rest of pp_corr is one of seven procedures Nadeau & Bengio compared for "
        "inference about the difference in generalization error of two learners. Several need to run the learners "
        "again on new splits, so here they run on scikit-learn estimators (`pp_corr.studies.resampling`), side by side "
        "(`pp_corr.studies.nadeau_bengio`), and in the paper's simulation study "
        "(`pp_corr.studies.nadeau_bengio_study`): sizes, "
        "pseudo-power, political ratios and the correlation rho of two split estimates against the heuristic "
        "rho0 = n2/n. docs/theory.md, section 8, has the formulas.\n\n"
        "Sizes here: 2000 data sets per regression configuration and 200 per classification one (the command line "
        "and `benchmarks/bench_nadeau_bengio.py` run the full study, 4000 and 500). The tests set "
        "`PP_CORR_REPETITIONS` and run a reduced design."),
        code("""import os
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
import numpy as np
import pandas as pd
import matplotlib.pyplot as plt
from sklearn.datasets import load_breast_cancer
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.tree import DecisionTreeClassifier
import pp_corr
from pp_corr.studies import nadeau_bengio_study as study
from pp_corr.studies.nadeau_bengio import nadeau_bengio
from pp_corr.studies.nadeau_bengio_plots import plot_power, plot_rho, plot_sizes
from pp_corr.studies.resampling import resample, to_scores
REDUCED = "PP_CORR_REPETITIONS" in os.environ
if REDUCED:  # the tests: a reduced design
    DESIGN = {k: study.REDUCED[k] for k in ("splits", "halvings", "bootstrap_repetitions")}
    RUN = {**DESIGN, "repetitions": {"regression": 200, "classification": 20}, "truth_training_sets": 100}
else:
    DESIGN = {"splits": 15, "halvings": 10, "bootstrap_repetitions": 15}
    RUN = {**DESIGN, "repetitions": {"regression": 2000, "classification": 200}, "truth_training_sets": 1000}
print(RUN)"""),
        md("## On your own learners\nA tree against logistic regression on scikit-learn's breast cancer data (569 "
        "instances), 0-1 loss, n2 = 57 test instances (a tenth). Every procedure in one table; positive estimates "
        "mean the logistic regression (B) errs less."),
        code("""X, y = load_breast_cancer(return_X_y=True)
tree, logistic = DecisionTreeClassifier(random_state=0), make_pipeline(StandardScaler(), LogisticRegression())
res = nadeau_bengio(tree, logistic, X, y, n_test=57, loss="zero_one", names=("tree", "logistic"), random_seed=1,
                    splits=DESIGN["splits"], halvings=DESIGN["halvings"], repetitions=DESIGN["bootstrap_repetitions"])
res.to_frame().round(4)"""),
        md("The same splits feed the rest of the library: the per-split losses become a scores Dataset with their "
        "n_test and n_train, and the Bayesian correlated t-test is procedure 6 in Bayesian form."),
        code("""cv = resample(tree, logistic, X, y, design="kfold", folds=10, runs=10, loss="zero_one",
              names=("tree", "logistic"), random_seed=2)
pp_corr.correlated_ttest(to_scores(cv, dataset="breast cancer"), rope=0.01)"""),
        md("## The simulation study\nProblem 1 (regression: the training mean against least squares, squared loss) "
        "has exact generalization errors, so exact sizes; problem 2 (classification: a regression tree against "
        "least squares thresholded at 1/2, 0-1 loss) has its errors estimated from fresh training and test sets. "
        "`CONFIGURATIONS` documents the settings (the paper's own are lost)."),
        code("""pd.DataFrame(study.CONFIGURATIONS)"""),
        code("""results = study.nadeau_bengio_study(**RUN, random_seed=2003, progressbar=False)
summary = study.study_summary(results)
sizes = (summary["size"].to_pandas().T.map("{:.3f}".format) + " +- "
         + summary["size_se"].to_pandas().T.map("{:.3f}".format))
sizes"""),
        code("""plot_sizes(summary);"""),
        md("Procedures 2 (resampled t) and 5 (pseudo-bootstrap) ignore the correlation between split estimates and "
        "reject the true mu far more often than 5%; Dietterich's 5x2cv t and its exact variants are liberal in the "
        "regression problem and near the level in classification; the conservative Z is conservative by "
        "construction; the corrected procedures 6 and 7 are below the level where rho < rho0 and above it on the "
        "small data set with a strong signal (n = 24), where rho > rho0 and the losses are skewed. The political "
        "ratio Var(mu_hat) / E[sigma_hat^2] says it in one number (above 1: the variance estimate is too small, "
        "liberal):"),
        code("""ratios = (summary.political_ratio.to_pandas().T.map("{:.2f}".format) + " +- "
          + summary.political_ratio_se.to_pandas().T.map("{:.2f}".format))
ratios"""),
        md("## rho against rho0 = n2/n\nThe corrections put rho0 = n2/n in place of the unknown correlation of two "
        "split estimates. Measured here from the J split estimates of each simulated data set:"),
        code("""print(summary[["rho", "rho_se", "rho0"]].to_dataframe().round(4))
plot_rho(summary);"""),
        md("## Pseudo-power\nThe rejection rate as the hypothesised mu0 moves away from the true mu (in standard "
        "deviations of the J-split mean): at 0 the size, then power. A liberal procedure's curve starts high; a "
        "conservative one is flat-bottomed and rises late."),
        code("""power = study.pseudo_power(results, steps=np.linspace(-4, 4, 33))
plot_power(power);"""),
    ],
}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", help="notebooks to build (default: all)")
    parser.add_argument("--no-execute", action="store_true", help="write the cells without running them")
    args = parser.parse_args(argv)
    unknown = set(args.names) - set(NOTEBOOKS)
    if unknown:
        parser.error(f"unknown notebook(s) {sorted(unknown)}; have {sorted(NOTEBOOKS)}")
    os.environ["MPLBACKEND"] = "module://matplotlib_inline.backend_inline"  # figures as outputs
    for name in args.names or NOTEBOOKS:
        nb = new_notebook(cells=NOTEBOOKS[name])
        for i, cell in enumerate(nb.cells):  # stable ids: rebuilding leaves unchanged notebooks unchanged
            cell.id = f"cell-{i}"
        nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
        if not args.no_execute:
            print(f"executing {name} ...", file=sys.stderr)
            NotebookClient(nb, timeout=1800, kernel_name="python3",
                           resources={"metadata": {"path": str(HERE)}}).execute()
        nbformat.write(nb, HERE / name)
        print(f"wrote {HERE / name}", file=sys.stderr)


if __name__ == "__main__":
    main()
