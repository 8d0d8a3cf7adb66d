"""The all-pairs matrix (:func:`plot_pairs`): each cell says what a test decides for the pair (row A, column B)."""
from __future__ import annotations

import numpy as np
from matplotlib.patches import Patch, Rectangle

from ..pairwise.pairs import TESTS, pairs_order
from ..palette import A_BETTER, B_BETTER, INK, REGION_COLORS, REGION_HATCHES, ROPE, UNDECIDED, tint
from .layout import axes as _axes
from .kinds import AllPairs, FigureKind
from .layout import legend_on_top as _legend_on_top


PAIR_OUTCOMES = ("row better", "equivalent", "column better", "no decision")


def _pair_cells(table, test, order):
    """Per cell (row i, column j): the outcome index into PAIR_OUTCOMES and (P(row better), P(neither),
    P(column better)), or for a test of p-values (Wilcoxon) the smaller one-sided p-value."""
    sub = table.sel(a=order, b=order)
    decisions = sub[f"decision_{test}"].values
    k = len(order)
    outcome = np.full((k, k), 3)
    for (i, j), verdict in np.ndenumerate(decisions):
        outcome[i, j] = 0 if verdict == order[i] else 2 if verdict == order[j] else 1 if verdict == "rope" else 3
    if TESTS[test].shown is None:
        p = sub[TESTS[test].plotted].values
        return outcome, np.fmin(p, p.T)
    right = sub[TESTS[test].plotted].values
    left = right.T
    return outcome, np.stack([left, np.clip(1 - left - right, 0, 1), right], axis=-1)


FULL_CELLS = 8  # up to this many algorithms a cell shows words, a bar and three numbers; beyond, a compact cell
ARROWS = ("←", "=", "↓", "")  # compact cells: towards the better one's label (row on the left, column below)


def plot_pairs(table, *, test="poisson", order=None, ax=None):
    """The all-pairs matrix: each cell (row A, column B) says what ``test`` (one of
    :data:`pp_corr.pairwise.pairs.TESTS`: ``"poisson"``, ``"wilcoxon"``, ``"signed_rank"``, ``"sign"``) decides at
    the table's alpha - row better (blue), column better (orange), practically equivalent (grey) or no decision (white).
    Up to 8 algorithms a cell says it in words and, for the Bayesian tests, shows P(row better), P(neither),
    P(column better) as a three-part bar with the numbers under it; beyond, so that the matrix stays readable at
    page width, a cell holds an arrow to the better one's label (← row, ↓ column, = equivalent) and, up to 30
    algorithms, the probability of the region decided (for the Bayesian tests), and the columns are numbered as the
    rows.
    ``order`` lists the algorithms (by default the table's order; :func:`pp_corr.ranking.order_by_ranking` gives the
    order of their average ranks, as ``pp-corr compare --all-pairs`` uses); the figure grows with their number.

    >>> import pp_corr
    >>> table = pp_corr.compare_all_pairs(pp_corr.load_scores(pp_corr.example_path()), draws=2000, random_seed=0)
    >>> [t.get_text() for t in plot_pairs(table).get_xticklabels()]
    ['naive_bayes', 'logistic', 'tree', 'knn']
    """
    if test not in TESTS or f"decision_{test}" not in table:
        raise ValueError(f"test must be one of {list(TESTS)}; got {test!r}")
    order = pairs_order(table, order)
    outcome, numbers = _pair_cells(table, test, order)
    k = len(order)
    full = k <= FULL_CELLS
    label_font = 9.0 if k <= 12 else 8.0
    labels = order if full else [f"{name}  {i + 1}" for i, name in enumerate(order)]
    label_width = max(len(v) for v in labels) * 0.6 * label_font / 72
    if full:
        cell = 0.95 if k <= 6 else 0.78
        figsize = (max(k * cell + label_width + 0.9, 7.0), k * cell + 0.75 * label_width + 2.1)
    else:
        cell = 0.42 if k <= 30 else 0.26
        figsize = (max(k * cell + label_width + 0.9, 7.0), k * cell + 2.6)
    ax = _axes(ax, figsize=figsize)
    fills = (tint(A_BETTER, 0.4), tint(ROPE, 0.45), tint(B_BETTER, 0.45), UNDECIDED)
    for i, j in zip(*np.nonzero(~np.eye(k, dtype=bool))):
        ax.add_patch(Rectangle((j - 0.5, i - 0.5), 1, 1, facecolor=fills[outcome[i, j]], edgecolor="none"))
        (_full_cell if full else _compact_cell)(ax, i, j, outcome[i, j], numbers[i, j], test, k)
    for i in range(k):
        ax.add_patch(Rectangle((i - 0.5, i - 0.5), 1, 1, facecolor=tint(INK, 0.08), edgecolor="none"))
    for v in np.arange(k + 1) - 0.5:
        ax.axhline(v, color=INK, lw=0.4)
        ax.axvline(v, color=INK, lw=0.4)
    ax.set_xlim(-0.5, k - 0.5)
    ax.set_ylim(k - 0.5, -0.5)
    ax.set_aspect("equal")
    if full:
        ax.set_xticks(range(k), order, rotation=45, ha="right", rotation_mode="anchor", fontsize=label_font)
        ax.set_xlabel("column algorithm (B)")
    else:
        ax.set_xticks(range(k), [str(i + 1) for i in range(k)], fontsize=label_font - 1)
        ax.set_xlabel("column algorithm (B), numbered as the rows")
    ax.set_yticks(range(k), labels, fontsize=label_font)
    ax.tick_params(length=0)
    ax.set_ylabel("row algorithm (A)")
    decides_rope = TESTS[test].equivalence
    words = ("row algorithm better", "practically equivalent", "column algorithm better", "no decision")
    handles = [Patch(facecolor=f, edgecolor=INK, lw=0.4, label=w if full else f"{ARROWS[n]} {w}".strip())
               for n, (f, w) in enumerate(zip(fills, words)) if n != 1 or decides_rope]
    if TESTS[test].shown is None:
        shown = "p: the smaller one-sided p-value" if full else "p-values in the table"
    elif full:
        shown = f"bar and numbers:\nP(row better), P(neither), P(column better) {TESTS[test].shown}"
        handles += [Patch(facecolor=c, hatch=h, edgecolor=INK, lw=0.4, label=f"P({s})")
                    for c, h, s in zip(REGION_COLORS, REGION_HATCHES, ("row better", "neither", "column better"))]
    else:
        shown = (f"number: P(the region decided) {TESTS[test].shown}" if k <= 30 else
                 "probabilities in the table")
    rope = "no rope" if TESTS[test].shown is None else f"rope {table.attrs.get('rope', 0)}"
    title = (f"{test.replace('_', '-')} test at alpha = {table.attrs.get('alpha')} on "
             f"{table.attrs.get('n_datasets', '?')} data sets, {rope}\n"
             f"cell: the test's decision; {shown}")
    _legend_on_top(ax, handles, title, ncols=2)
    return ax


def _full_cell(ax, i, j, outcome, numbers, test, k):
    """A cell in words, with the three probabilities as a bar and as numbers (or the p-value)."""
    font = 7.0
    ax.text(j, i - 0.22, PAIR_OUTCOMES[outcome], ha="center", va="center", fontsize=font, color=INK)
    if TESTS[test].shown is None:
        ax.text(j, i + 0.15, f"p = {numbers:.2g}", ha="center", va="center", fontsize=font, color=INK)
        return
    left = j - 0.42
    for part, (share, colour, hatch) in enumerate(zip(numbers, REGION_COLORS, REGION_HATCHES)):
        ax.add_patch(Rectangle((left, i - 0.06), 0.84 * share, 0.22, facecolor=colour, hatch=hatch,
                               edgecolor=INK if part != 1 else colour, lw=0.3))
        left += 0.84 * share
    ax.text(j, i + 0.33, " ".join(f"{v:.2f}".removeprefix("0") for v in numbers), ha="center", va="center",
            fontsize=font - 0.5, color=INK)


def _compact_cell(ax, i, j, outcome, numbers, test, k):
    """A cell as an arrow to the better one (= equivalent, nothing undecided) and, up to 30 algorithms and for the
    Bayesian tests, the probability of the region decided."""
    text = ARROWS[outcome]
    if text and k <= 30 and TESTS[test].shown is not None:
        text += f"{numbers[outcome]:.2f}".removeprefix("0")
    if text:
        ax.text(j, i, text, ha="center", va="center", fontsize=7.0 if k <= 30 else 6.0, color=INK, gid="cell")


def draw_pairs(subject: AllPairs):
    """The all-pairs matrix of ``subject.test`` (:func:`plot_pairs`, through :mod:`pp_corr.plots`).

    >>> from pp_corr import compare_all_pairs, example_path, load_scores
    >>> table = compare_all_pairs(load_scores(example_path()), draws=200, random_seed=0)
    >>> draw_pairs(AllPairs(table, "sign")).get_legend().get_title().get_text()[:9]
    'sign test'
    """
    from .. import plots

    return plots.plot_pairs(subject.table, test=subject.test, order=subject.order)


FIGURE = FigureKind(AllPairs, "All pairs: {title} (row A, column B)", draw_pairs)
