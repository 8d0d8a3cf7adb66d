"""Draw every plot of pp_corr.plots on the uci54 results and write docs/gallery.md with the figures in
docs/gallery/ (PNG), each under the code that drew it. Needs ../shared/data/uci54 beside the repository;
the hierarchical fit takes about a minute.

    python scripts/build_gallery.py
"""
import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("MPLBACKEND", "Agg")

import textwrap  # noqa: E402
from pathlib import Path  # noqa: E402

import matplotlib.pyplot as plt  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
UCI54 = ROOT.parent / "shared" / "data" / "uci54" / "uci54_tidy.csv"
DOCS = ROOT / "docs"
SETUP = """\
import pp_corr
from pp_corr import plots
scores = pp_corr.load_scores("../shared/data/uci54/uci54_tidy.csv", columns={"score": "accuracy"})
ttest = pp_corr.correlated_ttest(scores, algorithms=("nbc", "hnb"), rope=0.01)
poisson = pp_corr.poisson_test(scores, algorithms=("nbc", "hnb"), rope=0.01)
table = pp_corr.compare_all_pairs(scores, rope=0.01, random_seed=0)
order = pp_corr.order_by_ranking(scores)
ranking = pp_corr.plackett_luce(scores, random_seed=0)"""

# name, what the figure shows, the code that draws it (SETUP and HIERARCHICAL run before)
FIGURES = [
    ("posterior", "The posterior of the mean difference on one data set; each region's area is shaded in its "
     "colour and hatch, and the legend gives its probability.", 'plots.plot_posterior(ttest, "audiology")'),
    ("forest", "Every data set's posterior mean and 95% interval; colour and marker (< o >) say which region is the "
     "most probable.", "plots.plot_forest(ttest)"),
    ("poisson_binomial", "How many data sets each algorithm is better on (exact Poisson-binomial); bars beyond "
     "q/2, a majority, are hatched.", "plots.plot_poisson_binomial(poisson)"),
    ("simplex", "Draws of the Bayesian signed-rank test's (P(nbc better), P(rope), P(hnb better)).",
     'plots.plot_simplex(pp_corr.bayesian_signed_rank(scores, algorithms=("nbc", "hnb"), rope=0.01, '
     'random_seed=0))'),
    *[(f"pairs_{test}", f"All pairs, {test.replace('_', '-')} test: each cell says what the test decides for "
       "(row, column); the bar and numbers give P(row better), P(neither), P(column better)." if test != "wilcoxon"
       else "All pairs, Wilcoxon signed-rank test: each cell's decision and the smaller one-sided p-value.",
       f'plots.plot_pairs(table, test="{test}", order=order)') for test in ("poisson", "signed_rank", "sign",
                                                                         "wilcoxon")],
    ("rank_diagram", "The posterior rank diagram of the Plackett-Luce ranking: each classifier at its expected rank "
     "(1 = best, on the left); the bar joins the classifiers no pair of which is separated at alpha 0.05 (P(a ranked "
     "before b) >= 0.95 or <= 0.05): on 54 data sets, none is.", "plots.plot_rank_diagram(ranking)"),
    ("rank_diagram_alpha_0.3", "The same at alpha 0.3, where aode and nbc are separated, with j48 and j48gr given "
     "as practically equivalent (a joint hierarchical result marks such pairs itself: new-data-set P(rope) >= "
     "1 - alpha).", 'plots.plot_rank_diagram(ranking, alpha=0.3, equivalent=[("j48", "j48gr")])'),
    ("shrinkage", "The hierarchical model's per-data-set means (filled, with 95% intervals) against the "
     "independent estimates (open).", "plots.plot_shrinkage(hier)"),
    ("posterior_predictive", "Posterior predictive check of the hierarchical model: the per-data-set means and "
     "standard deviations, observed against replicated.", "plots.plot_posterior_predictive(hier)"),
    ("simplex_new_dataset", "The hierarchical model's probabilities on a new data set.",
     "plots.plot_simplex(hier.new_dataset())"),
]
HIERARCHICAL = 'hier = pp_corr.hierarchical_test(scores, algorithms=("nbc", "hnb"), rope=0.01, random_seed=1)'
# checking and extending the models (#15): name, caption, code whose last line is the figure (SETUP and HIERARCHICAL
# run before; each block sees the names the earlier ones made)
CHECKS = [
    ("predictive_intervals", "Posterior predictive check of each data set: its observed fold mean and sd on the 90% "
     "intervals of a new run of its cross-validation (in-sample, so at least 90% inside; tests/test_model_variants.py "
     "checks that new folds fall inside 90% of the time).", """\
from pp_corr import checks, check_plots
coverage = checks.predictive_intervals(hier, 0.9, random_seed=0)
check_plots.plot_predictive_intervals(coverage, confidence_level=0.9)"""),
    ("loo_pit", "LOO-PIT of each data set's fold mean and sd: uniform when the model is calibrated.",
     "check_plots.plot_loo_pit(coverage)"),
    ("variant_comparison", "Hierarchical variants compared by leave-one-data-set-out PSIS-LOO, each data set's "
     "likelihood with its own delta_i and sigma_i integrated out: elpd difference from the best and its standard "
     "error. The nu priors are indistinguishable; the normal population predicts new data sets worse.", """\
import arviz as az, matplotlib.pyplot as plt, numpy as np
variants = {"student_t, current": hier}
for label, options in (("student_t, kruschke", {"priors": "kruschke"}),
                       ("student_t, juarez_steel", {"priors": "juarez_steel"}), ("normal", {"population": "normal"})):
    variants[label] = pp_corr.hierarchical_test(scores, algorithms=("nbc", "hnb"), rope=0.01, random_seed=1, **options)
table = checks.compare_variants(variants)
figure, ax = plt.subplots(figsize=(7, 2.6))
ax.errorbar(table["elpd_diff"], np.arange(len(table)), xerr=2 * table["dse"], fmt="o", color="#0072B2", capsize=3)
ax.axvline(0, color="#000000", linewidth=0.8)
ax.set_yticks(np.arange(len(table)), table.index)
ax.invert_yaxis()
ax.set_xlabel("elpd difference from the best, leave one data set out (+-2 SE)")
figure.tight_layout()
figure"""),
    ("covariate", "Extending the model: a Student-t prior on each data set's mean difference mu_i with a data-set "
     "covariate (log test-fold size), mu_i ~ t_4(b0 + b1 z_i, tau), through correlated_t_model's mu_prior; the "
     "correlated likelihood is unchanged. Each mu_i with its 90% interval, and the fitted line b0 + b1 z.", """\
import pandas as pd, pymc as pm
from pp_corr.pairwise.models import correlated_t_model, dataset_rows
from pp_corr.sampling import sample
audit = pd.read_csv("../shared/data/uci54/dataset_label_audit.csv").set_index("DatasetID")
ids = pd.read_csv("../shared/data/uci54/uci54_tidy.csv").groupby("dataset")["dataset_id"].first()
names = dataset_rows(scores, ("nbc", "hnb")).names
size = np.log(audit.loc[ids[names].values, "median_min_denominator(~test_fold_size)"].to_numpy(dtype=float))
z = (size - size.mean()) / size.std()  # the covariate, standardised

def mu_prior(name, dims):  # a Student-t population of the mu_i around a line in the covariate
    b0, b1, tau = pm.Normal("b0", 0, 0.1), pm.Normal("b1", 0, 0.1), pm.HalfNormal("tau", 0.05)
    return pm.StudentT(name, nu=4, mu=b0 + b1 * z, sigma=tau, dims=dims)

fit = sample(correlated_t_model(scores, algorithms=("nbc", "hnb"), mu_prior=mu_prior), chains=4, random_seed=3)
post = fit.posterior
mu = post["mu"].stack(sample=("chain", "draw")).transpose("dataset", "sample").values
lower, upper = np.quantile(mu, [0.05, 0.95], axis=1)
figure, ax = plt.subplots(figsize=(6, 4))
ax.errorbar(z, mu.mean(axis=1), yerr=[mu.mean(axis=1) - lower, upper - mu.mean(axis=1)], fmt="o", markersize=4,
            color="#0072B2", elinewidth=0.8, label="mu_i: posterior mean, 90% interval")
grid = np.linspace(z.min(), z.max(), 50)
line = post["b0"].values.reshape(-1, 1) + post["b1"].values.reshape(-1, 1) * grid
ax.fill_between(grid, *np.quantile(line, [0.05, 0.95], axis=0), color="#E69F00", alpha=0.35, label="b0 + b1 z, 90%")
ax.plot(grid, line.mean(axis=0), color="#D55E00")
b1 = post["b1"].values.ravel()
ax.set(xlabel="log test-fold size (standardised)", ylabel="accuracy, hnb - nbc",
       title=f"slope b1 {b1.mean():+.4f}, 90% [{np.quantile(b1, 0.05):+.4f}, {np.quantile(b1, 0.95):+.4f}]")
ax.legend(fontsize=8)
figure.tight_layout()
figure"""),
]


def main():
    if not UCI54.exists():
        raise SystemExit(f"the uci54 results are not at {UCI54}")
    os.chdir(ROOT)  # SETUP names the data relative to the repository
    namespace = {}
    exec(SETUP, namespace)
    exec(HIERARCHICAL, namespace)
    (DOCS / "gallery").mkdir(parents=True, exist_ok=True)
    page = ["# Gallery", "", textwrap.fill(
            "Every plot of `pp_corr.plots` on the uci54 results (naive Bayes `nbc` against hidden naive Bayes "
            "`hnb`, and all five classifiers), drawn by `scripts/build_gallery.py`. One palette throughout "
            "(`pp_corr.palette`): A better is blue, practically equivalent grey, B better orange, with hatches "
            "and markers where a region carries a verdict, so the figures read under colour-vision deficiencies "
            "and in greyscale.", 110), "", "```python", SETUP, HIERARCHICAL, "```", ""]
    for name, caption, code in FIGURES:
        drawn = eval(code, namespace)
        figure = getattr(drawn, "figure", drawn)
        figure.savefig(DOCS / "gallery" / f"{name}.png", dpi=90)
        plt.close(figure)
        page += [f"## {name.replace('_', ' ')}", "", textwrap.fill(caption, 110), "", "```python", code, "```", "",
                 f"![{name}](gallery/{name}.png)", ""]
        print(f"wrote docs/gallery/{name}.png")
    page += ["# Checking and extending the models", ""]
    for name, caption, code in CHECKS:
        *lines, last = code.splitlines()
        exec("\n".join(lines), namespace)
        figure = eval(last, namespace)
        figure.savefig(DOCS / "gallery" / f"{name}.png", dpi=90)
        plt.close(figure)
        page += [f"## {name.replace('_', ' ')}", "", textwrap.fill(caption, 110), "", "```python", code, "```", "",
                 f"![{name}](gallery/{name}.png)", ""]
        print(f"wrote docs/gallery/{name}.png")
    (DOCS / "gallery.md").write_text("\n".join(page))
    print("wrote docs/gallery.md")


if __name__ == "__main__":
    main()
