"""Plots (matplotlib, ArviZ): computing stays in the other modules, each function here draws one figure."""
from __future__ import annotations

import arviz as az
import matplotlib.pyplot as plt
import numpy as np
from scipy import stats

from ._args import as_generator, check_count
from .poisson_test import PoissonTestResult
from .ttest import CorrelatedTTestResult


REGION_COLORS = ("C3", "0.5", "C2")  # A better, rope (or a tie), B better: the same in every figure


def _axes(ax, figsize=(6, 4)):
    return ax if ax is not None else plt.subplots(figsize=figsize, layout="constrained")[1]


def _row(result: CorrelatedTTestResult, dataset):
    """The index, name and marginal posterior of mu (a frozen Student-t) of one data set; ``dataset`` must name
    one unless there is only one."""
    names = result.datasets
    if names is None:
        if dataset is not None:
            raise ValueError(f"dataset={dataset!r}, but this result is one unnamed data set: leave dataset out")
        return (), "", result.posterior
    if dataset is None and len(names) > 1:
        raise ValueError(f"the result holds {len(names)} data sets: choose one with dataset= (one of {list(names)})")
    if dataset is not None and dataset not in names:
        raise ValueError(f"dataset={dataset!r} is not in the result (it has {list(names)})")
    i = names.index(dataset) if dataset is not None else 0
    law = result.posterior
    return i, names[i], stats.t(**{k: np.asarray(v)[i] for k, v in law.kwds.items()})


def plot_posterior(result: CorrelatedTTestResult, dataset=None, *, ax=None):
    """Posterior density of the mean difference on one data set, with the rope and the three probabilities.

    >>> import numpy as np, pp_corr
    >>> res = pp_corr.correlated_ttest(np.random.default_rng(0).normal(0.01, 0.02, 10), folds=10, rope=0.01)
    >>> plot_posterior(res).get_xlabel()
    'mean difference B - A'
    """
    ax = _axes(ax)
    i, name, law = _row(result, dataset)
    grid = np.linspace(*law.ppf([0.0005, 0.9995]), 400)
    ax.plot(grid, law.pdf(grid), color="C0", label="posterior (analytic)")
    a, b = result.names
    lo, hi = result.rope or (0.0, 0.0)
    if lo < hi:
        ax.axvspan(lo, hi, color="0.85", label="rope")
    else:
        ax.axvline(0, color="0.5", lw=1)
    probs = (np.asarray(result.p_left)[i], np.asarray(result.p_rope)[i], np.asarray(result.p_right)[i])
    ax.set_title(f"{name + ': ' if name else ''}P({a} better) = {probs[0]:.3f}, P(rope) = {probs[1]:.3f}, "
                 f"P({b} better) = {probs[2]:.3f}", fontsize=9)
    ax.set_xlabel(f"mean difference {b} - {a}")
    ax.set_ylabel("density")
    ax.legend(fontsize=8)
    return ax


def plot_analytic_overlay(idata, result: CorrelatedTTestResult, dataset=None, var_name="mu"):
    """ArviZ's plot of the MCMC posterior of ``mu`` with the exact Student-t density drawn over it.

    >>> import numpy as np, pp_corr
    >>> from pp_corr.models import correlated_t_model, sample
    >>> x = np.random.default_rng(0).normal(0.01, 0.02, 10)
    >>> idata = sample(correlated_t_model(x, folds=10), draws=300, chains=2, random_seed=1)
    >>> plot_analytic_overlay(idata, pp_corr.correlated_ttest(x, folds=10)).get_xlabel()
    'mu: mean difference B - A'
    """
    coords = {"dataset": [dataset]} if dataset is not None else None
    pc = az.plot_dist(idata, var_names=[var_name], coords=coords, backend="matplotlib")
    ax = pc.get_viz("plot", var_name, **({"dataset": dataset} if dataset is not None else {}))
    _, name, law = _row(result, dataset)
    grid = np.linspace(*law.ppf([0.001, 0.999]), 300)
    ax.plot(grid, law.pdf(grid), "k--", lw=1.5, label="analytic")
    ax.legend(fontsize=8)
    ax.set_xlabel(f"{var_name}: mean difference {result.names[1]} - {result.names[0]}")
    return ax


def plot_forest(result: CorrelatedTTestResult, *, confidence_level=0.95, ax=None):
    """Per-data-set posterior means and credible intervals, coloured by the most probable region.

    >>> import pp_corr
    >>> res = pp_corr.correlated_ttest(pp_corr.load_scores(pp_corr.example_path()), algorithms=("tree", "knn"))
    >>> [t.get_text() for t in plot_forest(res).get_yticklabels()]
    ['iris', 'wine', 'breast_cancer', 'digits']
    """
    n = len(result.datasets)
    lo, hi = result.interval(confidence_level)  # checks confidence_level before a figure is opened
    ax = _axes(ax, figsize=(6, max(2.5, 0.22 * n + 1)))
    y = np.arange(n)[::-1]
    probs = np.column_stack([result.p_left, result.p_rope, result.p_right])
    colors = np.array(REGION_COLORS)[probs.argmax(axis=1)]
    ax.hlines(y, lo, hi, colors=colors)
    ax.scatter(result.mean, y, c=colors, s=12, zorder=3)
    if result.rope and result.rope[0] < result.rope[1]:
        ax.axvspan(*result.rope, color="0.9", zorder=0)
    ax.axvline(0, color="0.5", lw=0.8)
    ax.set_yticks(y, result.datasets, fontsize=7)
    a, b = result.names
    ax.set_xlabel(f"mean difference {b} - {a} ({round(100 * confidence_level):g}% interval)")
    ax.set_title(f"red: {a} more probably better, green: {b}, grey: rope", fontsize=9)
    return ax


def plot_poisson_binomial(result: PoissonTestResult, *, ax=None):
    """pmf of the number of data sets where B is better, with the majority threshold q/2.

    >>> import pp_corr
    >>> res = pp_corr.poisson_test(pp_corr.load_scores(pp_corr.example_path()), algorithms=("tree", "knn"))
    >>> plot_poisson_binomial(res).get_xlabel()
    'number of data sets (of 4) where knn is better than tree'
    """
    ax = _axes(ax)
    pmf = result.distribution.pmf()
    q = len(pmf) - 1
    counts = np.arange(q + 1)
    a, b = result.names
    a_side, tie, b_side = REGION_COLORS
    ax.bar(counts, pmf, color=np.select([counts < q / 2, counts > q / 2], [a_side, b_side], tie))
    ax.axvline(q / 2, color="k", ls="--", lw=1, label=f"q/2 = {q / 2:g}")
    ax.set_xlabel(f"number of data sets (of {q}) where {b} is better than {a}")
    ax.set_ylabel("probability")
    ax.set_title(f"P({b} better on a majority) = {result.p_b_majority:.3f}", fontsize=9)
    ax.legend(fontsize=8)
    return ax


def plot_pairs(table, *, test="poisson", ax=None):
    """The all-pairs matrix: P(column better than row on a majority) as colour and number, and in each cell the
    decision of ``test`` (``"poisson"``, ``"wilcoxon"``, ``"signed_rank"`` or ``"sign"``) at the table's alpha.

    >>> import pp_corr
    >>> table = pp_corr.compare_all_pairs(pp_corr.load_scores(pp_corr.example_path()), n_samples=2000, random_seed=0)
    >>> [t.get_text() for t in plot_pairs(table).get_xticklabels()]
    ['naive_bayes', 'logistic', 'tree', 'knn']
    """
    if f"decision_{test}" not in table:
        raise ValueError(f"test must be one of 'poisson', 'wilcoxon', 'signed_rank', 'sign'; got {test!r}")
    values, decisions = table.p_b_majority.values, table[f"decision_{test}"].values
    names = list(table.a.values)
    ax = _axes(ax, figsize=(1.3 * len(names) + 2, 1.1 * len(names) + 1.5))
    image = ax.imshow(values, vmin=0, vmax=1, cmap="RdYlGn")
    for (i, j), v in np.ndenumerate(values):
        if not np.isnan(v):
            ax.text(j, i, f"{v:.2f}\n{decisions[i, j]}", ha="center", va="center", fontsize=8,
                    color="white" if v < 0.2 or v > 0.85 else "black")
    ax.set_xticks(range(len(names)), names, rotation=45, ha="right")
    ax.set_yticks(range(len(names)), names)
    ax.set_xlabel("column algorithm (B)")
    ax.set_ylabel("row algorithm (A)")
    plt.colorbar(image, ax=ax, label="P(column better on a majority)")
    ax.set_title(f"{table.attrs.get('n_datasets', '?')} data sets, rope {table.attrs.get('rope', 0)}; in each cell "
                 f"the better of the pair by the {test.replace('_', '-')} test at alpha = {table.attrs.get('alpha')}",
                 fontsize=8)
    return ax


def plot_shrinkage(result, *, ax=None):
    """Each data set's independent posterior mean (open) and hierarchical mean with 95% interval (filled).

    ``result`` is a :class:`pp_corr.hierarchical.HierarchicalResult`; data sets are sorted by their
    independent mean, and the posterior mean of delta0 is the dashed line the estimates shrink towards.

    >>> import numpy as np
    >>> from pp_corr import hierarchical_test
    >>> x = np.random.default_rng(0).normal(0.02, 0.02, (6, 10))
    >>> res = hierarchical_test(x, folds=10, random_seed=1, names=("a", "b"))
    >>> plot_shrinkage(res).get_xlabel()
    'mean difference b - a'
    """
    table = result.datasets().sort_values("indep. mean")
    y = np.arange(len(table))
    ax = _axes(ax, figsize=(6.5, max(3, 0.16 * len(table) + 1.2)))
    if result.rope[0] < result.rope[1]:
        ax.axvspan(*result.rope, color="0.9", zorder=0, label="rope")
    ax.hlines(y, table["hier. lo"], table["hier. hi"], color="C0", lw=1, alpha=0.6)
    ax.scatter(table["indep. mean"], y, facecolors="none", edgecolors="C1", s=16, label="independent (t-test)")
    ax.scatter(table["hier. mean"], y, color="C0", s=12, zorder=3, label="hierarchical (95% interval)")
    ax.axvline(result.delta0.mean(), color="k", ls="--", lw=1, label="delta0 (posterior mean)")
    ax.set_yticks(y, table.index, fontsize=6)
    a, b = result.names
    ax.set_xlabel(f"mean difference {b} - {a}")
    ax.set_title("shrinkage of the per-data-set means towards delta0", fontsize=9)
    ax.legend(fontsize=7, loc="lower right")
    return ax


SIMPLEX_CORNERS = np.array([[0.0, 0.0], [0.5, np.sqrt(3) / 2], [1.0, 0.0]])  # left, rope, right


def plot_simplex(result, *, max_points=3000, random_seed=0, ax=None):
    """Draws of (P(A better), P(rope), P(B better)) in the probability simplex, coloured by the largest.

    ``result`` is a :class:`pp_corr.rank_tests.RegionProbabilities` (Bayesian signed-rank or sign test, or
    a hierarchical model's new data set); at most ``max_points`` draws, chosen with ``random_seed``, are shown.

    >>> import pp_corr
    >>> res = pp_corr.bayesian_signed_rank([0.02, 0.01, 0.03, -0.01, 0.02], rope=0.01, random_seed=0)
    >>> plot_simplex(res).get_title().startswith("P(region largest)")
    True
    """
    samples = result.samples
    if len(samples) > check_count("max_points", max_points):
        samples = samples[as_generator(random_seed).choice(len(samples), max_points, replace=False)]
    ax = _axes(ax, figsize=(5, 4.6))
    xy = samples @ SIMPLEX_CORNERS
    a, b = result.names
    labels = (f"{a} better", "rope", f"{b} better")
    largest = samples.argmax(axis=1)
    for k, color in enumerate(REGION_COLORS):
        ax.scatter(*xy[largest == k].T, s=3, alpha=0.3, color=color, label=f"{labels[k]} largest")
    ax.add_patch(plt.Polygon(SIMPLEX_CORNERS, fill=False, color="k", lw=1))
    centre = SIMPLEX_CORNERS.mean(axis=0)
    for k in range(3):  # where two regions are equally probable: the centre to the middle of an edge
        edge_middle = (SIMPLEX_CORNERS[k] + SIMPLEX_CORNERS[(k + 1) % 3]) / 2
        ax.plot(*np.column_stack([centre, edge_middle]), color="k", lw=0.6, ls=":")
    for k, (x, y) in enumerate(SIMPLEX_CORNERS):
        ax.annotate(labels[k], (x, y), xytext=(0, 8 if k == 1 else -14), textcoords="offset points", ha="center",
                    fontsize=9)
    ax.set_title(f"P(region largest): {a} {result.win_left:.3f}, rope {result.win_rope:.3f}, "
                 f"{b} {result.win_right:.3f}\n({result.method})", fontsize=9)
    ax.set_aspect("equal")
    ax.set_xlim(-0.12, 1.12)
    ax.set_ylim(-0.15, 1.0)
    ax.axis("off")
    ax.legend(fontsize=7, loc="upper right", markerscale=3)
    return ax


def plot_rejection_rates(rates, *, ax=None):
    """Rejection rate (B declared better) against the accuracy gap, per test and number of runs, with 95% error
    bars (1.96 SE) and the level alpha: Type I error at delta = 0, power above.

    ``rates`` comes from :func:`pp_corr.simulation.rejection_rates`, with one value of ``n_datasets`` selected.

    >>> from pp_corr.simulation import experiment_1, rejection_rates
    >>> res = experiment_1(repetitions=20, runs=1, workers=1, progress=False, random_seed=0)
    >>> plot_rejection_rates(rejection_rates(res)).get_ylabel()
    'rejection rate (BN-hat declared better)'
    """
    rates = rates.squeeze("n_datasets", drop=False) if rates.sizes.get("n_datasets", 0) == 1 else rates
    extra = set(rates.rate.dims) - {"test", "delta", "runs"}
    if extra:
        raise ValueError(f"select one value of {sorted(extra)} first, e.g. rates.sel(n_datasets=50)")
    ax = _axes(ax, figsize=(6.5, 4))
    from .simulation import TEST_NAMES
    for i, test in enumerate(rates.test.values):
        for j, runs in enumerate(rates.runs.values):
            sel = rates.sel(test=test, runs=runs)
            ax.errorbar(sel.delta + (j - 0.5) * 0.0008, sel.rate, yerr=1.96 * sel.se, color=f"C{i}",
                        ls=("-", "--", ":")[j % 3], marker="o", ms=3, capsize=2,
                        label=f"{TEST_NAMES[str(test)]}, {int(runs)} run{'s' if runs > 1 else ''} "
                              f"of {rates.folds} folds")
    ax.axhline(rates.alpha, color="0.4", lw=0.8, ls=":", label=f"alpha = {rates.alpha:g}")
    cauchy = rates.attrs.get("distribution") == "cauchy"
    ax.set_xlabel("d: each data set's gap ~ Cauchy(d, d)" if cauchy
                  else "accuracy gap delta, the same on all data sets")
    ax.set_ylabel(f"rejection rate ({rates.b} declared better)")
    q = f", q = {int(rates.n_datasets)} data sets" if "n_datasets" in rates.coords else ""
    ax.set_title(f"Type I error ({'d' if cauchy else 'delta'} = 0) and power{q}, {rates.repetitions} repetitions",
                 fontsize=9)
    ax.set_ylim(-0.02, 1.02)
    ax.legend(fontsize=7)
    return ax


def plot_toy_example(results):
    """The toy example: distributions of the Poisson test's P(X > q/2) and of the Wilcoxon p-value, per case.

    >>> from pp_corr.simulation import toy_example
    >>> fig = plot_toy_example(toy_example(repetitions=50, random_seed=0))
    >>> [ax.get_xlabel() for ax in fig.axes]
    ['Poisson test: P(B better on a majority)', 'Wilcoxon signed-rank: one-sided p-value']
    """
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.5), layout="constrained")
    bins = np.linspace(0, 1, 41)
    for k, case in enumerate(results.case.values):
        style = dict(bins=bins, histtype="step", lw=1.5, color=f"C{k}", label=f"case {case}")
        axes[0].hist(results.p_b_majority.sel(case=case), **style)
        axes[1].hist(results.wilcoxon_pvalue.sel(case=case), **style)
    axes[0].set_xlabel("Poisson test: P(B better on a majority)")
    axes[1].set_xlabel("Wilcoxon signed-rank: one-sided p-value")
    for ax in axes:
        ax.set_ylabel("repetitions")
        ax.legend(fontsize=7, loc="upper left")
    fig.suptitle(f"toy example, {results.sizes['repetition']} repetitions: B better on 5 of 10 data sets", fontsize=10)
    return fig
