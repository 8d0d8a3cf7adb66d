"""Plots (matplotlib, ArviZ): computing stays in the other modules, each function here draws one figure.

Every figure takes its colours from :mod:`pp_corr.palette`: A better blue, practically equivalent grey, B better
orange, with hatches and markers where a region carries a verdict, and legends that name the algorithms.
Figures whose rows grow with the problem (data sets, algorithms) take their size and fonts from the number of rows.
The all-pairs matrix and the rank diagram, which grow with the number of algorithms, live in :mod:`pp_corr.figures`
and are imported here. Which of these figures ``pp-corr compare --plots`` and the report draw, of which results and
with which captions, is the table :data:`pp_corr.figures.FIGURES`.
"""
from __future__ import annotations

import arviz as az
import matplotlib.pyplot as plt
import numpy as np
from matplotlib.patches import Rectangle
from scipy import stats

from ._args import as_generator, check_count, counted
from .figures.layout import axes as _axes
from .figures.layout import legend_on_top as _legend_on_top
from .figures.pairs_matrix import PAIR_OUTCOMES, plot_pairs  # noqa: F401 (public here)
from .figures.rank_diagram import plot_rank_diagram  # noqa: F401 (public here)
from .pairwise.poisson_test import PoissonTestResult
from .pairwise.ttest import CorrelatedTTestResult
from .palette import (INK, OKABE_ITO, REGION_COLORS, REGION_HATCHES, REGION_MARKERS, ROPE, region_labels,
                      series_color, tint)


def _row_font(n_rows) -> float:
    """Font size of row labels: 8 points up to 60 rows, smaller beyond (down to 6 from 120 rows)."""
    return 8.0 if n_rows <= 60 else 7.0 if n_rows <= 120 else 6.0


def _rows_figsize(labels, font, extra_height, plot_width=4.5):
    """A figure size that gives each row label 1.5 times its font height and the longest label its width."""
    label_width = max((len(str(v)) for v in labels), default=0) * 0.6 * font / 72
    return plot_width + label_width + 0.4, len(labels) * 1.5 * font / 72 + extra_height


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
    """Posterior density of the mean difference on one data set; the area of each region (A better, rope,
    B better) is shaded in its colour and hatch, and the legend gives its probability.

    >>> import numpy as np, pp_corr
    >>> res = pp_corr.correlated_ttest(np.random.default_rng(0).normal(0.01, 0.02, 10), folds=10, rope=0.01)
    >>> plot_posterior(res).get_xlabel()
    'mean difference B - A (positive: B better)'
    """
    ax = _axes(ax)
    i, name, law = _row(result, dataset)
    a, b = result.names
    lo, hi = result.rope or (0.0, 0.0)
    probs = (np.asarray(result.p_left)[i], np.asarray(result.p_rope)[i], np.asarray(result.p_right)[i])
    styles = [dict(facecolor=tint(REGION_COLORS[k], 0.45), hatch=REGION_HATCHES[k], edgecolor=REGION_COLORS[k],
                   linewidth=0, label=f"P({label}) = {probs[k]:.3f}") for k, label in enumerate(region_labels(a, b))]
    if lo == hi:
        del styles[1]
    point_mass = not law.kwds["scale"] > 0  # all differences equal (NaN or 0)
    if point_mass:  # drawn as a spike
        location = float(np.asarray(result.mean)[i])
        ax.vlines(location, 0, 1, color=INK, lw=2, label=f"posterior: a point mass at {location:.4g}")
        for style in styles:
            ax.add_patch(Rectangle((location, 0), 0, 0, **style))  # its probability, in the legend
        margin = max(hi - lo, abs(location), 1e-3)
        ax.set_xlim(min(lo, location) - margin, max(hi, location) + margin)
    else:
        grid = np.linspace(*law.ppf([0.0005, 0.9995]), 400)
        ax.plot(grid, law.pdf(grid), color=INK, lw=1.2, label="posterior (analytic)")
        grid = np.union1d(grid, [v for v in (lo, hi) if grid[0] < v < grid[-1]])  # the shaded regions meet
        density = law.pdf(grid)
        inside = (grid <= lo, (grid >= lo) & (grid <= hi), grid >= hi)
        for where, style in zip(inside if lo < hi else inside[::2], styles):
            ax.fill_between(grid, density, where=where, **style)
    if lo < hi:
        for bound in (lo, hi):
            ax.axvline(bound, color=ROPE, lw=0.8, ls="--")
    else:
        ax.axvline(0, color=ROPE, lw=1)
    ax.set_xlabel(f"mean difference {b} - {a} (positive: {b} better)")
    ax.set_ylabel("probability" if point_mass else "density")
    ax.set_ylim(bottom=0)
    rope = f"rope [{lo:g}, {hi:g}]" if lo < hi else "no rope"
    _legend_on_top(ax, ax.get_legend_handles_labels()[0],
                   f"{name + ': ' if name else ''}posterior of the mean difference, {rope}", ncols=2)
    return ax


def plot_analytic_overlay(idata, result: CorrelatedTTestResult, dataset=None, var_name="mu"):
    """ArviZ's plot of the MCMC posterior of ``mu`` with the exact Student-t density drawn over it.

    >>> import numpy as np, pp_corr
    >>> from pp_corr.pairwise.models import correlated_t_model
    >>> from pp_corr.sampling import sample
    >>> x = np.random.default_rng(0).normal(0.01, 0.02, 10)
    >>> idata = sample(correlated_t_model(x, folds=10), draws=300, chains=2, random_seed=1)
    >>> plot_analytic_overlay(idata, pp_corr.correlated_ttest(x, folds=10)).get_xlabel()
    'mu: mean difference B - A'
    """
    coords = {"dataset": [dataset]} if dataset is not None else None
    pc = az.plot_dist(idata, var_names=[var_name], coords=coords, backend="matplotlib",
                      visuals={"dist": {"color": OKABE_ITO["sky_blue"], "label": "MCMC"}})
    ax = pc.get_viz("plot", var_name, **({"dataset": dataset} if dataset is not None else {}))
    _, name, law = _row(result, dataset)
    grid = np.linspace(*law.ppf([0.001, 0.999]), 300)
    ax.plot(grid, law.pdf(grid), color=INK, ls="--", lw=1.5, label="analytic")
    ax.legend(fontsize=8)
    ax.set_xlabel(f"{var_name}: mean difference {result.names[1]} - {result.names[0]}")
    return ax


def plot_forest(result: CorrelatedTTestResult, *, confidence_level=0.95, ax=None):
    """Per-data-set posterior means and credible intervals; colour and marker say which region is the most
    probable (A better, rope, B better). The figure grows with the number of data sets.

    >>> import pp_corr
    >>> res = pp_corr.correlated_ttest(pp_corr.load_scores(pp_corr.example_path()), algorithms=("tree", "knn"))
    >>> [t.get_text() for t in plot_forest(res).get_yticklabels()]
    ['iris', 'wine', 'breast_cancer', 'digits']
    """
    lo, hi = result.interval(confidence_level)  # checks confidence_level before a figure is opened
    return _forest(result, result.datasets, lo, hi, confidence_level, "data set", ax)


def plot_items(result, *, confidence_level=0.95, ax=None):
    """An item-level comparison (:func:`pp_corr.compare_items`) per benchmark: posterior mean and credible interval,
    coloured by the most probable region, the rope shaded.

    >>> import pp_corr
    >>> res = pp_corr.compare_items({"A": [1, 0, 1, 1, 0, 1], "B": [1, 1, 1, 1, 0, 1]}, rope=0.05, random_seed=0)
    >>> plot_items(res).get_xlabel()
    'mean difference B - A over items: posterior mean and 95% interval'
    """
    lo, hi = result.interval(confidence_level)
    return _forest(result, result.benchmarks, lo, hi, confidence_level, "benchmark", ax, over=" over items")


def _forest(result, labels, lo, hi, confidence_level, noun, ax, over=""):
    """The forest of :func:`plot_forest` and :func:`plot_items`: one row per label."""
    n = len(labels)
    font = _row_font(n)
    ax = _axes(ax, figsize=_rows_figsize(labels, font, extra_height=1.9))
    y = np.arange(n)[::-1]
    mean = np.asarray(result.mean)
    largest = np.column_stack([result.p_left, result.p_rope, result.p_right]).argmax(axis=1)
    rope = result.rope if result.rope and result.rope[0] < result.rope[1] else None
    if rope:
        ax.axvspan(*rope, color=tint(ROPE, 0.3), lw=0, zorder=0)
    ax.axvline(0, color=ROPE, lw=0.8)
    a, b = result.names
    handles = []
    for k, label in enumerate(region_labels(a, b)):
        chosen = largest == k
        if k == 1 and not rope:
            continue
        ax.hlines(y[chosen], lo[chosen], hi[chosen], colors=REGION_COLORS[k], lw=1.2)
        handles.append(ax.scatter(mean[chosen], y[chosen], color=REGION_COLORS[k], marker=REGION_MARKERS[k],
                                  s=22, zorder=3, label=f"most probable: {label} ({counted(chosen.sum(), noun)})"))
    ax.set_yticks(y, labels, fontsize=font)
    ax.set_ylim(-0.7, n - 0.3)
    ax.set_xlabel(f"mean difference {b} - {a}{over}: posterior mean and {round(100 * confidence_level):g}% interval")
    _legend_on_top(ax, handles, f"{b} vs {a} on {counted(n, noun)}{', rope shaded' if rope else ''}")
    return ax


def plot_assurance(plan, *, target=0.8, ax=None):
    """The assurance of each design of a plan (:func:`pp_corr.plan_items`) against its number of items, one line
    per number of runs, with two Monte Carlo errors and the ``target``.

    >>> import pp_corr
    >>> rng = np.random.default_rng(0)
    >>> pilot = {"A": rng.integers(0, 2, (60, 2)), "B": rng.integers(0, 2, (60, 2))}
    >>> plan = pp_corr.plan_items(pilot, items=[50, 100], runs=[1, 2], difference=0.2, simulations=20, random_seed=0)
    >>> len(plot_assurance(plan).get_lines()) >= 2
    True
    """
    table = plan.table
    ax = _axes(ax, figsize=(5.5, 3.4))
    for k, (runs, group) in enumerate(table.groupby("runs")):
        ax.errorbar(group["items"], group["assurance"], yerr=2 * group["mc error"], marker="os^Dv"[k % 5],
                    color=series_color(k), capsize=3, label=f"{runs} run{'s' * (runs != 1)}")
    ax.axhline(target, color=INK, lw=0.8, ls="--", label=f"target {target:g}")
    a, b = plan.names
    ax.set(xlabel="items", ylabel=f"assurance (P >= {1 - plan.alpha:g} for a region)", ylim=(-0.02, 1.02),
           title=f"{b} - {a} = {plan.difference:+g}, rope {plan.rope}")
    ax.legend(fontsize=8)
    return ax


def plot_poisson_binomial(result: PoissonTestResult, *, ax=None):
    """pmf of the number of data sets where B is better (orange) and of those where A is better (blue), with
    the majority threshold q/2; bars beyond it, a majority, are hatched and in full colour.

    >>> import pp_corr
    >>> res = pp_corr.poisson_test(pp_corr.load_scores(pp_corr.example_path()), algorithms=("tree", "knn"))
    >>> plot_poisson_binomial(res).get_xlabel()
    'number of data sets (of 4) where the algorithm is better'
    """
    ax = _axes(ax, figsize=(7, 4))
    a, b = result.names
    q = result.n_datasets
    counts = np.arange(q + 1)
    majority = counts > q / 2
    width = 0.42
    for side, (name, distribution, k, p) in enumerate(((a, result.distribution_a, 0, result.p_a_majority),
                                                       (b, result.distribution, 2, result.p_b_majority))):
        pmf = distribution.pmf()
        colour = REGION_COLORS[k]
        offset = (side - 0.5) * width
        ax.bar(counts[~majority] + offset, pmf[~majority], width, color=tint(colour, 0.4), edgecolor=colour,
               lw=0.5, label=f"{name} better on this many")
        ax.bar(counts[majority] + offset, pmf[majority], width, color=colour, hatch=REGION_HATCHES[k],
               edgecolor=INK, lw=0.5, label=f"{name} better on a majority: P = {p:.3f}")
    ax.axvline(q / 2, color=INK, ls="--", lw=1, label=f"majority threshold q/2 = {q / 2:g}")
    ax.set_xlabel(f"number of data sets (of {q}) where the algorithm is better")
    ax.set_ylabel("probability")
    title = f"Poisson test, {b} vs {a}: {_verdict(result.decision(), result.alpha)}"
    _legend_on_top(ax, ax.get_legend_handles_labels()[0], title, ncols=2)
    return ax


def _verdict(decision, alpha) -> str:
    """A test's decision in words."""
    if decision == "none":
        return f"no decision at alpha = {alpha:g}"
    return f"{'practically equivalent' if decision == 'rope' else decision + ' better'} at alpha = {alpha:g}"


def plot_shrinkage(result, *, ax=None):
    """Each data set's independent posterior mean (open) and hierarchical mean with 95% interval (filled).

    ``result`` is a :class:`pp_corr.hierarchical.fit.HierarchicalResult`; data sets are sorted by their
    independent mean, and the posterior mean of delta0 is the dashed line the estimates shrink towards.

    >>> import numpy as np
    >>> from pp_corr import hierarchical_test
    >>> rng = np.random.default_rng(1)  # 8 data sets, each with its own level, 10 folds
    >>> x = rng.normal(0.02, 0.02, (8, 10)) + rng.normal(0, 0.02, (8, 1))
    >>> res = hierarchical_test(x, folds=10, random_seed=1, names=("a", "b"))
    >>> plot_shrinkage(res).get_xlabel()
    'mean difference b - a (positive: b better)'
    """
    table = result.datasets().sort_values("indep. mean")
    y = np.arange(len(table))
    font = _row_font(len(table))
    ax = _axes(ax, figsize=_rows_figsize(table.index, font, extra_height=2.1))
    if result.rope[0] < result.rope[1]:
        ax.axvspan(*result.rope, color=tint(ROPE, 0.3), lw=0, zorder=0, label="rope")
    ax.hlines(y, table["hier. lo"], table["hier. hi"], color=INK, lw=1, alpha=0.5)
    ax.scatter(table["indep. mean"], y, facecolors="none", edgecolors=OKABE_ITO["vermillion"], s=18,
               label="independent (t-test)")
    ax.scatter(table["hier. mean"], y, color=INK, s=12, zorder=3, label="hierarchical (95% interval)")
    ax.axvline(result.delta0.mean(), color=INK, ls="--", lw=1, label="delta0 (posterior mean)")
    ax.set_yticks(y, table.index, fontsize=font)
    ax.set_ylim(-0.7, len(table) - 0.3)
    a, b = result.names
    ax.set_xlabel(f"mean difference {b} - {a} (positive: {b} better)")
    _legend_on_top(ax, ax.get_legend_handles_labels()[0], "shrinkage of the per-data-set means towards delta0",
                   ncols=2)
    return ax


def plot_posterior_predictive(result, *, draws=50, random_seed=0):
    """Posterior predictive check of the hierarchical model: the empirical distribution (ECDF) over data sets
    of the per-data-set means and standard deviations, observed (black) against ``draws`` replicates (grey).

    >>> import numpy as np
    >>> from pp_corr import hierarchical_test
    >>> x = np.random.default_rng(0).normal(0.02, 0.02, (6, 10))
    >>> res = hierarchical_test(x, folds=10, draws=100, chains=1, random_seed=1, names=("a", "b"))
    >>> [ax.get_xlabel() for ax in plot_posterior_predictive(res).axes]
    ['per-data-set mean of b - a', 'per-data-set sd of b - a']
    """
    check_count("draws", draws)
    tree = result.posterior_predictive(random_seed=random_seed)
    rng = as_generator(random_seed)
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.8), layout="constrained")
    a, b = result.names
    for ax, var in zip(axes, ("mean", "sd")):
        replicates = tree["posterior_predictive"][var].stack(sample=("chain", "draw")).transpose("sample", "dataset")
        chosen = rng.choice(replicates.sizes["sample"], min(draws, replicates.sizes["sample"]), replace=False)
        q = replicates.sizes["dataset"]
        heights = np.arange(1, q + 1) / q
        for n, values in enumerate(replicates.values[chosen]):
            ax.step(np.sort(values), heights, where="post", color=ROPE, lw=0.6, alpha=0.5,
                    label=f"replicated ({len(chosen)} posterior draws)" if n == 0 else None)
        observed = np.sort(tree["observed_data"][var].values)
        ax.step(observed, heights, where="post", color=INK, lw=1.6, label="observed")
        ax.set_xlabel(f"per-data-set {var} of {b} - {a}")
        ax.set_ylabel("share of data sets")
        ax.legend(fontsize=7, loc="lower right")
    fig.suptitle(f"posterior predictive check, {b} vs {a} on {q} data sets", fontsize=10)
    return fig


SIMPLEX_CORNERS = np.array([[0.0, 0.0], [0.5, np.sqrt(3) / 2], [1.0, 0.0]])  # left, rope, right


def plot_simplex(result, *, max_points=3000, random_seed=0, ax=None):
    """Draws of (P(A better), P(rope), P(B better)) in the probability simplex, coloured by the largest.

    ``result`` is a :class:`pp_corr.pairwise.rank_tests.RegionProbabilities` (Bayesian signed-rank or sign test, or
    a hierarchical model's new data set); at most ``max_points`` draws, chosen with ``random_seed``, are shown.

    >>> import pp_corr
    >>> res = pp_corr.bayesian_signed_rank([0.02, 0.01, 0.03, -0.01, 0.02], rope=0.01, random_seed=0)
    >>> plot_simplex(res).get_legend().get_title().get_text().startswith("share of draws where")
    True
    """
    samples = result.samples
    if len(samples) > check_count("max_points", max_points):
        samples = samples[as_generator(random_seed).choice(len(samples), max_points, replace=False)]
    ax = _axes(ax, figsize=(5.5, 5.4))
    xy = samples @ SIMPLEX_CORNERS
    a, b = result.names
    labels = region_labels(a, b)
    largest = samples.argmax(axis=1)
    wins = (result.win_left, result.win_rope, result.win_right)
    for k, color in enumerate(REGION_COLORS):
        ax.scatter(*xy[largest == k].T, s=4, alpha=0.35, color=color, marker=REGION_MARKERS[k], linewidths=0,
                   label=f"{labels[k]}: {wins[k]:.3f}")
    ax.add_patch(plt.Polygon(SIMPLEX_CORNERS, fill=False, color=INK, lw=1))
    centre = SIMPLEX_CORNERS.mean(axis=0)
    for k in range(3):  # where two regions are equally probable: the centre to the middle of an edge
        edge_middle = (SIMPLEX_CORNERS[k] + SIMPLEX_CORNERS[(k + 1) % 3]) / 2
        ax.plot(*np.column_stack([centre, edge_middle]), color=INK, lw=0.6, ls=":")
    for k, (x, y) in enumerate(SIMPLEX_CORNERS):
        ax.annotate(labels[k], (x, y), xytext=(0, 8 if k == 1 else -14), textcoords="offset points", ha="center",
                    fontsize=9)
    ax.set_aspect("equal")
    ax.set_xlim(-0.12, 1.12)
    ax.set_ylim(-0.15, 1.0)
    ax.axis("off")
    legend = _legend_on_top(ax, None, f"share of draws where the region is the most probable\n({result.method})")
    for handle in legend.legend_handles:
        handle.set_alpha(1)
        handle.set_sizes([30])
    return ax


def plot_rejection_rates(rates, *, ax=None):
    """Rejection rate (B declared better) against the accuracy gap, per test and number of runs, with 95% error
    bars (1.96 SE) and the level alpha: Type I error at delta = 0, power above.

    ``rates`` comes from :func:`pp_corr.studies.simulation.rejection_rates`, with one value of ``n_datasets`` selected.

    >>> from pp_corr.studies.simulation import experiment_1, rejection_rates
    >>> res = experiment_1(repetitions=20, runs=1, workers=1, progressbar=False, random_seed=0)
    >>> plot_rejection_rates(rejection_rates(res)).get_ylabel()
    'rejection rate (BN-hat declared better)'
    """
    rates = rates.squeeze("n_datasets", drop=False) if rates.sizes.get("n_datasets", 0) == 1 else rates
    extra = set(rates.rate.dims) - {"test", "delta", "runs"}
    if extra:
        raise ValueError(f"select one value of {sorted(extra)} first, e.g. rates.sel(n_datasets=50)")
    ax = _axes(ax, figsize=(6.5, 4))
    from .studies.simulation import TEST_NAMES
    for i, test in enumerate(rates.test.values):
        for j, runs in enumerate(rates.runs.values):
            sel = rates.sel(test=test, runs=runs)
            ax.errorbar(sel.delta + (j - 0.5) * 0.0008, sel.rate, yerr=1.96 * sel.se, color=series_color(i),
                        ls=("-", "--", ":")[j % 3], marker="o", ms=3, capsize=2,
                        label=f"{TEST_NAMES[str(test)]}, {int(runs)} run{'s' if runs > 1 else ''} "
                              f"of {rates.folds} folds")
    ax.axhline(rates.alpha, color=ROPE, lw=0.8, ls=":", label=f"alpha = {rates.alpha:g}")
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

    >>> from pp_corr.studies.simulation import toy_example
    >>> fig = plot_toy_example(toy_example(repetitions=50, random_seed=0))
    >>> [ax.get_xlabel() for ax in fig.axes]
    ['Poisson test: P(B better on a majority)', 'Wilcoxon signed-rank: one-sided p-value']
    """
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.5), layout="constrained")
    bins = np.linspace(0, 1, 41)
    for k, case in enumerate(results.case.values):
        style = dict(bins=bins, histtype="step", lw=1.5, color=series_color(k), label=f"case {case}")
        axes[0].hist(results.p_b_majority.sel(case=case), **style)
        axes[1].hist(results.wilcoxon_pvalue.sel(case=case), **style)
    axes[0].set_xlabel("Poisson test: P(B better on a majority)")
    axes[1].set_xlabel("Wilcoxon signed-rank: one-sided p-value")
    for ax in axes:
        ax.set_ylabel("repetitions")
        ax.legend(fontsize=7, loc="upper left")
    fig.suptitle(f"toy example, {results.sizes['repetition']} repetitions: B better on 5 of 10 data sets", fontsize=10)
    return fig
