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
     "(1 = best, on the left); the bar joins the classifiers no pair of which is separated at level 0.95 (P(a ranked "
     "before b) >= 0.95 or <= 0.05): on 54 data sets, none is.", "plots.plot_rank_diagram(ranking)"),
    ("rank_diagram_level_0.7", "The same at level 0.7, where aode and nbc are separated, with j48 and j48gr given "
     "as practically equivalent (a joint hierarchical result marks such pairs itself: new-data-set P(rope) >= level).",
     'plots.plot_rank_diagram(ranking, level=0.7, equivalent=[("j48", "j48gr")])'),
    ("shrinkage", "The hierarchical model's per-data-set means (filled, with 95% intervals) against the "
     "independent estimates (open).", "plots.plot_shrinkage(hier)"),
    ("posterior_predictive", "Posterior predictive check of the hierarchical model: the per-data-set means and "
     "standard deviations, observed against replicated.", "plots.plot_posterior_predictive(hier)"),
    ("simplex_new_dataset", "The hierarchical model's probabilities on a new data set.",
     "plots.plot_simplex(hier.new_dataset())"),
]
HIERARCHICAL = 'hier = pp_corr.hierarchical_test(scores, algorithms=("nbc", "hnb"), rope=0.01, random_seed=1)'


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
    (DOCS / "gallery.md").write_text("\n".join(page))
    print("wrote docs/gallery.md")


if __name__ == "__main__":
    main()
