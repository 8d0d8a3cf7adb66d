"""Plots (matplotlib, ArviZ): computing stays in the other modules, each function here draws one figure.

Every figure takes its colours from :mod:`pp_corr.palette`: A better blue, practically equivalent grey, B better
orange, with hatches and markers where a region carries a verdict, and legends that name the algorithms.
Figures whose rows grow with the problem (data sets, algorithms) take their size and fonts from the number of rows.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import arviz as az
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.lines import Line2D
from matplotlib.patches import Patch, Rectangle
from scipy import stats

from ._args import as_generator, check_count, check_probability_level
from .pairwise.pairs import pairs_order
from .pairwise.poisson_test import PoissonTestResult
from .pairwise.ttest import CorrelatedTTestResult
from .palette import (A_BETTER, B_BETTER, INK, OKABE_ITO, REGION_COLORS, REGION_HATCHES, REGION_MARKERS, ROPE,
                      UNDECIDED, region_labels, series_color, tint)


def _axes(ax, figsize=(6, 4)):
    return ax if ax is not None else plt.subplots(figsize=figsize, layout="constrained")[1]


def _row_font(n_rows) -> float:
    """Font size of row labels: 8 points up to 60 rows, smaller beyond (down to 6 from 120 rows)."""
    return 8.0 if n_rows <= 60 else 7.0 if n_rows <= 120 else 6.0


def _rows_figsize(labels, font, extra_height, plot_width=4.5):
    """A figure size that gives each row label 1.5 times its font height and the longest label its width."""
    label_width = max((len(str(v)) for v in labels), default=0) * 0.6 * font / 72
    return plot_width + label_width + 0.4, len(labels) * 1.5 * font / 72 + extra_height


def _legend_on_top(ax, handles, title, ncols=1):
    """A legend above the axes, whose title is the figure's title (so the two never overlap)."""
    return ax.legend(handles=handles, title=title, loc="lower center", bbox_to_anchor=(0.5, 1.0), ncols=ncols,
                     fontsize=8, title_fontsize=9, frameon=False, alignment="center")


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
    n = len(result.datasets)
    lo, hi = result.interval(confidence_level)  # checks confidence_level before a figure is opened
    font = _row_font(n)
    ax = _axes(ax, figsize=_rows_figsize(result.datasets, font, extra_height=1.9))
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
                                  s=22, zorder=3, label=f"most probable: {label} ({chosen.sum()} data sets)"))
    ax.set_yticks(y, result.datasets, fontsize=font)
    ax.set_ylim(-0.7, n - 0.3)
    level = f"{round(100 * confidence_level):g}%"
    ax.set_xlabel(f"mean difference {b} - {a}: posterior mean and {level} interval")
    _legend_on_top(ax, handles, f"{b} vs {a} on {n} data sets{', rope shaded' if rope else ''}")
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
    title = f"Poisson test, {b} vs {a}: {_verdict(result.decision, result.alpha)}"
    _legend_on_top(ax, ax.get_legend_handles_labels()[0], title, ncols=2)
    return ax


def _verdict(decision, alpha) -> str:
    """A test's decision in words."""
    if decision == "none":
        return f"no decision at alpha = {alpha:g}"
    return f"{'practically equivalent' if decision == 'rope' else decision + ' better'} at alpha = {alpha:g}"


PAIR_TESTS = {  # test: (the table's variable of P(column better), what the bar shows), None for p-values
    "poisson": ("p_b_majority", "on a majority of data sets"),
    "signed_rank": ("signed_rank_right", "(posterior means)"),
    "sign": ("sign_right", "(posterior means)"),
    "wilcoxon": None,
}
PAIR_OUTCOMES = ("row better", "equivalent", "column better", "no decision")


def _pair_cells(table, test, order):
    """Per cell (row i, column j): the outcome index into PAIR_OUTCOMES and (P(row better), P(neither),
    P(column better)), or for Wilcoxon the smaller one-sided p-value."""
    sub = table.sel(a=order, b=order)
    decisions = sub[f"decision_{test}"].values
    k = len(order)
    outcome = np.full((k, k), 3)
    for (i, j), verdict in np.ndenumerate(decisions):
        outcome[i, j] = 0 if verdict == order[i] else 2 if verdict == order[j] else 1 if verdict == "rope" else 3
    if PAIR_TESTS[test] is None:
        p = sub.wilcoxon_pvalue.values
        return outcome, np.fmin(p, p.T)
    right = sub[PAIR_TESTS[test][0]].values
    left = right.T
    return outcome, np.stack([left, np.clip(1 - left - right, 0, 1), right], axis=-1)


def plot_pairs(table, *, test="poisson", order=None, ax=None):
    """The all-pairs matrix: each cell (row A, column B) says in words what ``test`` (``"poisson"``,
    ``"signed_rank"``, ``"sign"`` or ``"wilcoxon"``) decides at the table's alpha - row better (blue),
    column better (orange), practically equivalent (grey) or no decision (white) - and, for the Bayesian tests,
    shows P(row better), P(neither), P(column better) as a three-part bar with the numbers under it.
    ``order`` lists the algorithms (by default the table's order; :func:`pp_corr.ranking.order_by_ranking` gives the
    order of their average ranks, as ``pp-corr compare --all-pairs`` uses); the figure grows with their number.

    >>> import pp_corr
    >>> table = pp_corr.compare_all_pairs(pp_corr.load_scores(pp_corr.example_path()), n_samples=2000, random_seed=0)
    >>> [t.get_text() for t in plot_pairs(table).get_xticklabels()]
    ['naive_bayes', 'logistic', 'tree', 'knn']
    """
    if test not in PAIR_TESTS or f"decision_{test}" not in table:
        raise ValueError(f"test must be one of {list(PAIR_TESTS)}; got {test!r}")
    order = pairs_order(table, order)
    outcome, numbers = _pair_cells(table, test, order)
    k = len(order)
    cell = 0.95 if k <= 6 else 0.78 if k <= 12 else 0.72
    font = 7.0 if k <= 12 else 6.0
    label_font = 9.0 if k <= 12 else 8.0
    label_width = max(len(v) for v in order) * 0.6 * label_font / 72
    ax = _axes(ax, figsize=(max(k * cell + label_width + 0.9, 7.0), k * cell + 0.75 * label_width + 2.1))
    fills = (tint(A_BETTER, 0.4), tint(ROPE, 0.45), tint(B_BETTER, 0.45), UNDECIDED)
    for i, j in zip(*np.nonzero(~np.eye(k, dtype=bool))):
        ax.add_patch(Rectangle((j - 0.5, i - 0.5), 1, 1, facecolor=fills[outcome[i, j]], edgecolor="none"))
        ax.text(j, i - 0.22, PAIR_OUTCOMES[outcome[i, j]], ha="center", va="center", fontsize=font, color=INK)
        if PAIR_TESTS[test] is None:
            ax.text(j, i + 0.15, f"p = {numbers[i, j]:.2g}", ha="center", va="center", fontsize=font, color=INK)
            continue
        left = j - 0.42
        for part, (share, colour, hatch) in enumerate(zip(numbers[i, j], REGION_COLORS, REGION_HATCHES)):
            ax.add_patch(Rectangle((left, i - 0.06), 0.84 * share, 0.22, facecolor=colour, hatch=hatch,
                                   edgecolor=INK if part != 1 else colour, lw=0.3))
            left += 0.84 * share
        ax.text(j, i + 0.33, " ".join(f"{v:.2f}".removeprefix("0") for v in numbers[i, j]), ha="center",
                va="center", fontsize=font - 0.5, color=INK)
    for i in range(k):
        ax.add_patch(Rectangle((i - 0.5, i - 0.5), 1, 1, facecolor=tint(INK, 0.08), edgecolor="none"))
    for v in np.arange(k + 1) - 0.5:
        ax.axhline(v, color=INK, lw=0.4)
        ax.axvline(v, color=INK, lw=0.4)
    ax.set_xlim(-0.5, k - 0.5)
    ax.set_ylim(k - 0.5, -0.5)
    ax.set_aspect("equal")
    ax.set_xticks(range(k), order, rotation=45, ha="right", rotation_mode="anchor", fontsize=label_font)
    ax.set_yticks(range(k), order, fontsize=label_font)
    ax.tick_params(length=0)
    ax.set_xlabel("column algorithm (B)")
    ax.set_ylabel("row algorithm (A)")
    decides_rope = test in ("signed_rank", "sign")
    words = ("row algorithm better", "practically equivalent", "column algorithm better", "no decision")
    handles = [Patch(facecolor=f, edgecolor=INK, lw=0.4, label=w) for n, (f, w) in enumerate(zip(fills, words))
               if n != 1 or decides_rope]
    if PAIR_TESTS[test] is None:
        shown = "p: the smaller one-sided p-value"
    else:
        shown = f"bar and numbers:\nP(row better), P(neither), P(column better) {PAIR_TESTS[test][1]}"
        handles += [Patch(facecolor=c, hatch=h, edgecolor=INK, lw=0.4, label=f"P({s})")
                    for c, h, s in zip(REGION_COLORS, REGION_HATCHES, ("row better", "neither", "column better"))]
    rope = "no rope" if PAIR_TESTS[test] is None else f"rope {table.attrs.get('rope', 0)}"
    title = (f"{test.replace('_', '-')} test at alpha = {table.attrs.get('alpha')} on "
             f"{table.attrs.get('n_datasets', '?')} data sets, {rope}\n"
             f"cell: the test's decision; {shown}")
    _legend_on_top(ax, handles, title, ncols=2)
    return ax


@dataclass(frozen=True)
class _RankSummary:
    """What a rank diagram draws of a result: the algorithms best expected rank first, their expected ranks,
    P(row ranked before column) in that order, words for the title, and the pairs the result itself calls
    practically equivalent at a level (None: it has no rope)."""

    names: list
    expected: np.ndarray
    before: np.ndarray
    source: str
    rope_equivalent: object = None


def _rank_summary(result) -> _RankSummary:
    """The one adapter between the ranking results and :func:`plot_rank_diagram`: a Plackett-Luce result's
    expected ranks and P(a before b) = E[w_a / (w_a + w_b)]; the joint model's population ranks (of delta0) and
    P(delta0_a > delta0_b), with its new-data-set P(rope) for the practically equivalent pairs."""
    from .hierarchical.joint import JointResult
    from .ranking import PlackettLuceResult

    if isinstance(result, PlackettLuceResult):
        frame, before = result.to_frame(), result.before()
        names = [str(a) for a in frame.index]
        return _RankSummary(names, frame["expected_rank"].to_numpy(float),
                            before.loc[names, names].to_numpy(float),
                            f"Plackett-Luce model on {len(result.ranks)} data sets")
    if isinstance(result, JointResult):
        ranking, pairs = result.ranking(), result.pairs()
        names = [str(a) for a in ranking.index]
        where = {name: i for i, name in enumerate(names)}
        k = len(names)
        before, p_rope = np.full((k, k), np.nan), np.zeros((k, k))
        for row in pairs.itertuples():
            a, b = where[row.a], where[row.b]
            before[b, a], before[a, b] = row.p_delta0_positive, 1 - row.p_delta0_positive  # delta0_b - delta0_a > 0
            p_rope[a, b] = p_rope[b, a] = row.p_rope
        return _RankSummary(names, ranking["expected rank"].to_numpy(float), before,
                            f"joint hierarchical model on {len(result.data.names)} data sets, population",
                            rope_equivalent=p_rope)
    raise TypeError("result must be a PlackettLuceResult (pp_corr.plackett_luce) or a JointResult "
                    f"(pp_corr.joint_test), got {type(result).__name__}")


def _not_separated_groups(before, level) -> list[tuple[int, int]]:
    """The maximal runs ``(first, last)`` of consecutive algorithms (in the order of ``before``'s rows, best
    first) in which no pair is separated: P(a before b) stays strictly between ``1 - level`` and ``level``.
    Runs of one algorithm are left out, as a critical-difference diagram draws no bar for them.

    >>> before = np.array([[np.nan, .9, .99], [.1, np.nan, .8], [.01, .2, np.nan]])
    >>> _not_separated_groups(before, 0.95)
    [(0, 1), (1, 2)]
    """
    before = np.asarray(before, dtype=float)
    k = len(before)
    apart = (before >= level) | (before <= 1 - level)
    apart = apart | apart.T
    groups, reach = [], 0  # reach: the last algorithm of the runs found so far (a run's end never moves left)
    for first in range(k):
        last = max(reach, first)
        while last + 1 < k and not apart[first:last + 1, last + 1].any():  # the next one joins the run
            last += 1
        if last > max(reach, first):  # not inside the previous run, and more than one algorithm
            groups.append((first, last))
        reach = max(reach, last)
    return groups


def _equivalent_matrix(equivalent, names) -> np.ndarray:
    """``equivalent`` (pairs of names, or a boolean DataFrame indexed and columned by the names) as a symmetric
    boolean (k, k) matrix in the order of ``names``."""
    where = {name: i for i, name in enumerate(names)}
    k = len(names)
    matrix = np.zeros((k, k), dtype=bool)
    if isinstance(equivalent, pd.DataFrame):
        labels = [str(v) for v in (*equivalent.index, *equivalent.columns)]
        unknown = sorted(set(labels) - set(names))
        if unknown or len(equivalent.index) != k or len(equivalent.columns) != k:
            raise ValueError(f"equivalent must be a k x k DataFrame indexed and columned by the algorithms {names}; "
                             f"unknown {unknown}, shape {equivalent.shape}")
        if not all(pd.api.types.is_bool_dtype(dtype) for dtype in equivalent.dtypes):
            raise TypeError("equivalent must hold True/False (a boolean DataFrame)")
        frame = equivalent.set_axis([str(v) for v in equivalent.index]).set_axis(
            [str(v) for v in equivalent.columns], axis=1)
        matrix = frame.loc[names, names].to_numpy(bool)
    elif isinstance(equivalent, (str, bytes, Mapping)) or not isinstance(equivalent, Iterable):
        raise TypeError("equivalent must be pairs (a, b) of algorithm names or a k x k boolean DataFrame, "
                        f"got {type(equivalent).__name__}")
    else:
        for pair in equivalent:
            if isinstance(pair, (str, bytes)) or not isinstance(pair, Iterable) or len(pair := tuple(pair)) != 2:
                raise TypeError(f"equivalent must hold pairs (a, b) of algorithm names, got {pair!r}")
            unknown = [str(a) for a in pair if str(a) not in where]
            if unknown:
                raise ValueError(f"equivalent names {unknown[0]!r}, which is not an algorithm of the result {names}")
            a, b = (where[str(v)] for v in pair)
            if a == b:
                raise ValueError(f"equivalent pairs an algorithm with itself: {pair!r}")
            matrix[a, b] = True
    matrix = matrix | matrix.T
    np.fill_diagonal(matrix, False)
    return matrix


def _equivalent_cliques(matrix) -> list[tuple[int, ...]]:
    """The maximal sets of two or more algorithms in which every pair is marked in the symmetric boolean
    ``matrix`` (Bron-Kerbosch with pivoting), each sorted, in the order of their first member.

    >>> _equivalent_cliques(np.array([[0, 1, 1], [1, 0, 0], [1, 0, 0]], dtype=bool))
    [(0, 1), (0, 2)]
    """
    neighbours = [set(np.flatnonzero(row).tolist()) for row in np.asarray(matrix, dtype=bool)]
    found = []

    def grow(clique, candidates, excluded):
        if not candidates and not excluded:
            if len(clique) > 1:
                found.append(tuple(sorted(clique)))
            return
        pivot = max(candidates | excluded, key=lambda v: len(neighbours[v] & candidates))
        for v in sorted(candidates - neighbours[pivot]):
            grow(clique | {v}, candidates & neighbours[v], excluded & neighbours[v])
            candidates = candidates - {v}
            excluded = excluded | {v}

    grow(set(), set(range(len(neighbours))), set())
    return sorted(found)


def _lanes(spans, gap) -> list[int]:
    """A lane (row) for each span (x0, x1), first fit in the given order: spans in one lane are ``gap`` apart."""
    ends, lanes = [], []
    for x0, x1 in spans:
        lane = next((n for n, end in enumerate(ends) if end + gap < x0), len(ends))
        if lane == len(ends):
            ends.append(x1)
        ends[lane] = x1
        lanes.append(lane)
    return lanes


def _text_width(text, font) -> float:
    """The width of ``text`` in inches at ``font`` points (the default font, no math), 6% more than its outline:
    rendered with hinting, text is up to 4% wider at some resolutions (72 and 100 dpi)."""
    from matplotlib.font_manager import FontProperties
    from matplotlib.textpath import text_to_path

    return 1.06 * text_to_path.get_text_width_height_descent(text, FontProperties(size=font), ismath=False)[0] / 72


RANK_BAR = dict(color=INK, lw=3.5, solid_capstyle="butt")
EQUIVALENT_BAR = dict(color=ROPE, lw=3.0, ls=(0, (2.5, 1.2)), marker="D", ms=5, mfc=ROPE, mec=INK, mew=0.6)


def _equivalent_choice(equivalent, summary, level):
    """The practically equivalent pairs to draw (a boolean matrix, or None) and their legend's words."""
    if equivalent is not None:
        return _equivalent_matrix(equivalent, summary.names), "practically equivalent (the pairs given)"
    if summary.rope_equivalent is not None:
        return summary.rope_equivalent >= level, f"practically equivalent: P(rope) ≥ {level:g} on a new data set"
    return None, None


def _draw_rank_axis(ax, k, y, font):
    """The rank axis from 1 to k at height ``y`` (inches from the top): ticks at whole and half ranks, numbers
    and the caption above it."""
    ax.plot([1, k], [y, y], color=INK, lw=1)
    for tick in np.arange(1, k + 0.5, 0.5):
        whole = float(tick).is_integer()
        ax.plot([tick, tick], [y, y - (0.07 if whole else 0.04)], color=INK, lw=0.8)
        if whole:
            ax.text(tick, y - 0.1, f"{tick:g}", ha="center", va="bottom", fontsize=font - 1, color=INK)
    ax.text((1 + k) / 2, y - 0.32, "posterior expected rank (1 = best)", ha="center", va="bottom", fontsize=font,
            color=INK)


def plot_rank_diagram(result, *, level=0.95, equivalent=None, ax=None):
    """The posterior rank diagram, in the spirit of the critical-difference diagram (Demsar 2006): the algorithms
    on an axis by posterior expected rank (1 = best, on the left), their names to the left (the better half) and
    right, with elbow lines to their places on the axis. Returns the figure.

    ``result`` is a :class:`pp_corr.PlackettLuceResult` or a :class:`pp_corr.JointResult` (its population:
    expected ranks of delta0 and P(delta0_a > delta0_b)). A pair is separated at ``level`` (in (0.5, 1)) when
    P(a ranked before b) >= ``level`` or <= 1 - ``level``. Black bars join the maximal runs of algorithms,
    consecutive in rank order, with no pair separated (as the cliques of a CD diagram). Grey dashed bars with a
    diamond at each member join the maximal sets of algorithms whose every pair is **practically equivalent**,
    as ``equivalent`` says: pairs ``(a, b)`` of names or a k x k boolean DataFrame; by default none for
    Plackett-Luce and, for the joint model, the pairs with new-data-set P(rope) >= ``level``. The figure's height
    grows with the number of algorithms and its width with the longest name; given ``ax``, the diagram is drawn
    into it as laid out for the figure size it would have chosen.

    >>> import pandas as pd, pp_corr
    >>> frame = pd.DataFrame({"A": [0.9, 0.8, 0.7, 0.9], "B": [0.8, 0.7, 0.75, 0.6], "C": [0.7, 0.6, 0.6, 0.6]})
    >>> res = pp_corr.plackett_luce(frame, draws=500, tune=300, chains=2, random_seed=1)
    >>> figure = plot_rank_diagram(res, equivalent=[("B", "C")])
    >>> figure.axes[0].get_legend().get_title().get_text().splitlines()[0]
    'posterior rank diagram: Plackett-Luce model on 4 data sets'
    """
    level = check_probability_level("level", level)
    if level <= 0.5:
        raise ValueError(f"level must be in (0.5, 1): at {level:g} every pair is separated (P(a before b) >= level "
                         "or <= 1 - level always holds)")
    summary = _rank_summary(result)
    marked, equivalent_words = _equivalent_choice(equivalent, summary, level)
    names, expected, k = summary.names, summary.expected, len(summary.names)
    groups = _not_separated_groups(summary.before, level)
    cliques = _equivalent_cliques(marked) if marked is not None else []
    title = (f"posterior rank diagram: {summary.source}\n"
             f"a pair is separated when P(a ranked before b) ≥ {level:g} or ≤ {1 - level:.3g}")
    entries = [("not separated: no pair within the bar is separated" if groups
                else "not separated: none (every pair is separated)", RANK_BAR)]
    if equivalent_words is not None:
        entries.append((equivalent_words + ("" if cliques else ": none"), EQUIVALENT_BAR))

    # the layout in inches: the legend, the axis, one lane per row of bars, one row per pair of names
    font = 9.0 if k <= 10 else 8.0
    labels = [f"{name} ({rank:.2f})" for name, rank in zip(names, expected)]
    legend_width = max(*(_text_width(line, 9) for line in title.splitlines()),
                       *(_text_width(words, 8) + 0.6 for words, _ in entries))
    axis_width = float(np.clip(0.3 * k + 2.5, 4.0, 7.5))  # from rank 1 to rank k
    n_left = (k + 1) // 2  # the better half's names on the left
    sides = [max(_text_width(label, font) for label in part) + 0.35 for part in (labels[:n_left], labels[n_left:])]
    sides = np.maximum(sides, (legend_width + 0.2 - axis_width) / 2)  # the legend, centred on the axis, fits
    per_rank = axis_width / (k - 1)  # inches per unit of rank
    pad, gap = 0.07 / per_rank, 0.1 / per_rank  # bars reach pad beyond their outermost members, lanes keep gap
    spans = [(expected[first] - pad, expected[last] + pad) for first, last in groups]
    clique_spans = [(expected[list(c)].min() - pad, expected[list(c)].max() + pad) for c in cliques]
    group_lanes = _lanes(spans, gap)
    clique_lanes = [n + max(group_lanes, default=-1) + 1 for n in _lanes(clique_spans, gap)]
    legend_height = (2 * 9 * 1.25 + len(entries) * 8 * 1.75 + 8) / 72 + 0.1
    axis_y, lane, row = 0.45, 0.14, 1.7 * font / 72
    first_row = axis_y + 0.35 + (max(group_lanes + clique_lanes, default=-1) + 1) * lane
    height = first_row + (n_left - 1) * row + 0.2
    if ax is None:
        ax = plt.figure(figsize=(sum(sides) + axis_width, height + legend_height)).add_axes((0, 0, 1, 1))
    ax.set_xlim(1 - sides[0] / per_rank, k + sides[1] / per_rank)  # x: rank; y: inches down from the axis's caption
    ax.set_ylim(height, -legend_height)
    ax.axis("off")

    _draw_rank_axis(ax, k, axis_y, font)
    for (first, last), (x0, x1), n in zip(groups, spans, group_lanes):
        ax.plot([x0, x1], [axis_y + 0.2 + n * lane] * 2, gid=f"not separated: {names[first]} .. {names[last]}",
                **RANK_BAR)
    for clique, n in zip(cliques, clique_lanes):
        ax.plot(np.sort(expected[list(clique)]), np.full(len(clique), axis_y + 0.2 + n * lane),
                gid="equivalent: " + ", ".join(names[i] for i in clique), **EQUIVALENT_BAR)
    stub = 0.2 / per_rank  # the elbows reach this far beyond the axis's ends
    for i, (name, rank, label) in enumerate(zip(names, expected, labels)):
        left = i < n_left
        y = first_row + (i if left else k - 1 - i) * row  # the outermost algorithms on the highest rows
        end = 1 - stub if left else k + stub
        ax.plot([rank, rank, end], [axis_y, y, y], color=INK, lw=0.8, gid=f"elbow: {name}")
        ax.text(end + (-0.05 if left else 0.05) / per_rank, y, label, ha="right" if left else "left", va="center",
                fontsize=font, color=INK, parse_math=False)
    ax.scatter(expected, np.full(k, axis_y), s=14, color=INK, zorder=3, gid="expected ranks")
    ax.legend(handles=[Line2D([], [], label=words, **style) for words, style in entries], title=title,
              loc="upper center", bbox_to_anchor=((1 + k) / 2, -legend_height), bbox_transform=ax.transData,
              fontsize=8, title_fontsize=9, frameon=False, handlelength=3.5, alignment="center")
    return ax.figure


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


def plot_posterior_predictive(result, *, n_draws=50, random_seed=0):
    """Posterior predictive check of the hierarchical model: the empirical distribution (ECDF) over data sets
    of the per-data-set means and standard deviations, observed (black) against ``n_draws`` replicates (grey).

    >>> import numpy as np
    >>> from pp_corr import hierarchical_test
    >>> x = np.random.default_rng(0).normal(0.02, 0.02, (6, 10))
    >>> import warnings
    >>> with warnings.catch_warnings():  # a short fit: the example ignores convergence
    ...     warnings.simplefilter("ignore")
    ...     res = hierarchical_test(x, folds=10, draws=100, tune=100, chains=1, random_seed=1, names=("a", "b"),
    ...                             retry=False)
    >>> [ax.get_xlabel() for ax in plot_posterior_predictive(res).axes]
    ['per-data-set mean of b - a', 'per-data-set sd of b - a']
    """
    check_count("n_draws", n_draws)
    tree = result.posterior_predictive(random_seed=random_seed)
    rng = as_generator(random_seed)
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.8), layout="constrained")
    a, b = result.names
    for ax, var in zip(axes, ("mean", "sd")):
        draws = tree["posterior_predictive"][var].stack(sample=("chain", "draw")).transpose("sample", "dataset")
        chosen = rng.choice(draws.sizes["sample"], min(n_draws, draws.sizes["sample"]), replace=False)
        q = draws.sizes["dataset"]
        heights = np.arange(1, q + 1) / q
        for n, values in enumerate(draws.values[chosen]):
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
    >>> res = experiment_1(repetitions=20, runs=1, workers=1, progress=False, random_seed=0)
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
