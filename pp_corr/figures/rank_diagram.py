"""The posterior rank diagram (:func:`plot_rank_diagram`), in the spirit of the critical-difference diagram."""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.lines import Line2D

from .._args import check_probability_level
from ..palette import INK, ROPE
from .kinds import FigureKind, JointRanking, Ranking


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
    from ..hierarchical.joint import JointResult
    from ..ranking import PlackettLuceResult

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
                            f"joint hierarchical model on {len(result.data.datasets)} data sets, population",
                            rope_equivalent=p_rope)
    raise TypeError("result must be a PlackettLuceResult (pp_corr.plackett_luce) or a JointResult "
                    f"(pp_corr.joint_test), got {type(result).__name__}")


def _not_separated_groups(before, alpha) -> list[tuple[int, int]]:
    """The maximal runs ``(first, last)`` of consecutive algorithms (in the order of ``before``'s rows, best
    first) in which no pair is separated: P(a before b) stays strictly between ``alpha`` and ``1 - alpha``.
    Runs of one algorithm are left out, as a critical-difference diagram draws no bar for them.

    >>> before = np.array([[np.nan, .9, .99], [.1, np.nan, .8], [.01, .2, np.nan]])
    >>> _not_separated_groups(before, 0.05)
    [(0, 1), (1, 2)]
    """
    before = np.asarray(before, dtype=float)
    return _runs_not_apart((before >= 1 - alpha) | (before <= alpha))


def _runs_not_apart(apart) -> list[tuple[int, int]]:
    """The maximal runs ``(first, last)`` of two or more consecutive algorithms with no pair marked in the boolean
    (k, k) matrix ``apart`` (read as symmetric).

    >>> _runs_not_apart(np.array([[0, 0, 1], [0, 0, 0], [1, 0, 0]], dtype=bool))
    [(0, 1), (1, 2)]
    """
    apart = np.asarray(apart, dtype=bool)
    apart = apart | apart.T
    k = len(apart)
    groups, reach = [], 0  # reach: the last algorithm of the runs found so far (a run's end never moves left)
    for first in range(k):
        last = max(reach, first)
        while last + 1 < k and not apart[first:last + 1, last + 1].any():  # the next one joins the run
            last += 1
        if last > max(reach, first):  # not inside the previous run, and more than one algorithm
            groups.append((first, last))
        reach = max(reach, last)
    return groups


def _pair_matrix(pairs, names, argument) -> np.ndarray:
    """``pairs`` (pairs of names, or a boolean DataFrame indexed and columned by the names) as a symmetric boolean
    (k, k) matrix in the order of ``names``; errors name the ``argument`` they came in."""
    where = {name: i for i, name in enumerate(names)}
    k = len(names)
    matrix = np.zeros((k, k), dtype=bool)
    if isinstance(pairs, pd.DataFrame):
        labels = [str(v) for v in (*pairs.index, *pairs.columns)]
        unknown = sorted(set(labels) - set(names))
        if unknown or len(pairs.index) != k or len(pairs.columns) != k:
            raise ValueError(f"{argument} must be a k x k DataFrame indexed and columned by the algorithms {names}; "
                             f"unknown {unknown}, shape {pairs.shape}")
        if not all(pd.api.types.is_bool_dtype(dtype) for dtype in pairs.dtypes):
            raise TypeError(f"{argument} must hold True/False (a boolean DataFrame)")
        frame = pairs.set_axis([str(v) for v in pairs.index]).set_axis(
            [str(v) for v in pairs.columns], axis=1)
        matrix = frame.loc[names, names].to_numpy(bool)
    elif isinstance(pairs, (str, bytes, Mapping)) or not isinstance(pairs, Iterable):
        raise TypeError(f"{argument} must be pairs (a, b) of algorithm names or a k x k boolean DataFrame, "
                        f"got {type(pairs).__name__}")
    else:
        for pair in pairs:
            if isinstance(pair, (str, bytes)) or not isinstance(pair, Iterable) or len(pair := tuple(pair)) != 2:
                raise TypeError(f"{argument} must hold pairs (a, b) of algorithm names, got {pair!r}")
            unknown = [str(a) for a in pair if str(a) not in where]
            if unknown:
                raise ValueError(f"{argument} names {unknown[0]!r}, which is not an algorithm of the result {names}")
            a, b = (where[str(v)] for v in pair)
            if a == b:
                raise ValueError(f"{argument} pairs an algorithm with itself: {pair!r}")
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


def _equivalent_choice(equivalent, summary, alpha):
    """The practically equivalent pairs to draw (a boolean matrix, or None) and their legend's words."""
    if equivalent is not None:
        return _pair_matrix(equivalent, summary.names, "equivalent"), "practically equivalent (the pairs given)"
    if summary.rope_equivalent is not None:
        return (summary.rope_equivalent >= 1 - alpha,
                f"practically equivalent: P(rope) ≥ {1 - alpha:g} on a new data set")
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


def plot_rank_diagram(result, *, alpha=0.05, equivalent=None, separated=None, rule=None, ax=None):
    """The posterior rank diagram, in the spirit of the critical-difference diagram (Demsar 2006): the algorithms
    on an axis by posterior expected rank (1 = best, on the left), their names to the left (the better half) and
    right, with elbow lines to their places on the axis. Returns the figure.

    ``result`` is a :class:`pp_corr.PlackettLuceResult` or a :class:`pp_corr.JointResult` (its population:
    expected ranks of delta0 and P(delta0_a > delta0_b)). A pair is separated at ``alpha`` (in (0, 0.5)) when
    P(a ranked before b) >= 1 - ``alpha`` or <= ``alpha``, unless ``separated`` gives the separated pairs (pairs
    ``(a, b)`` of names or a k x k boolean DataFrame, e.g. those a pairwise test decides), with ``rule`` saying in
    words when a pair is separated (shown in the title). Black bars join the maximal runs of algorithms,
    consecutive in rank order, with no pair separated (as the cliques of a CD diagram). Grey dashed bars with a
    diamond at each member join the maximal sets of algorithms whose every pair is **practically equivalent**,
    as ``equivalent`` says: pairs ``(a, b)`` of names or a k x k boolean DataFrame; by default none for
    Plackett-Luce and, for the joint model, the pairs with new-data-set P(rope) >= 1 - ``alpha``. The figure's height
    grows with the number of algorithms and its width with the longest name; given ``ax``, the diagram is drawn
    into it as laid out for the figure size it would have chosen.

    >>> import pandas as pd, pp_corr
    >>> frame = pd.DataFrame({"A": [0.9, 0.8, 0.7, 0.9], "B": [0.8, 0.7, 0.75, 0.6], "C": [0.7, 0.6, 0.6, 0.6]})
    >>> res = pp_corr.plackett_luce(frame, draws=500, tune=300, chains=2, random_seed=1)
    >>> figure = plot_rank_diagram(res, equivalent=[("B", "C")])
    >>> figure.axes[0].get_legend().get_title().get_text().splitlines()[0]
    'posterior rank diagram: Plackett-Luce model on 4 data sets'
    """
    alpha = check_probability_level("alpha", alpha)
    if alpha >= 0.5:
        raise ValueError(f"alpha must be in (0, 0.5): at {alpha:g} every pair is separated (P(a before b) >= "
                         "1 - alpha or <= alpha always holds)")
    summary = _rank_summary(result)
    marked, equivalent_words = _equivalent_choice(equivalent, summary, alpha)
    names, expected, k = summary.names, summary.expected, len(summary.names)
    if separated is None:
        if rule is not None:
            raise ValueError("rule words the separated pairs given: give separated= with it, or leave rule out")
        groups = _not_separated_groups(summary.before, alpha)
        rule = f"P(a ranked before b) ≥ {1 - alpha:g} or ≤ {alpha:g}"
    else:
        groups = _runs_not_apart(_pair_matrix(separated, names, "separated"))
        rule = rule or "it is one of the pairs given"
    cliques = _equivalent_cliques(marked) if marked is not None else []
    title = f"posterior rank diagram: {summary.source}\na pair is separated when {rule}"
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


def draw_rank_diagram(subject: Ranking):
    """The rank diagram of ``subject.result`` (:func:`plot_rank_diagram`, through :mod:`pp_corr.plots`), with the
    subject's alpha, equivalent and separated pairs and rule.

    >>> import pandas as pd, pp_corr
    >>> frame = pd.DataFrame({"A": [0.9, 0.8, 0.7, 0.9], "B": [0.8, 0.7, 0.75, 0.6], "C": [0.7, 0.6, 0.6, 0.6]})
    >>> res = pp_corr.plackett_luce(frame, draws=500, tune=300, chains=2, random_seed=1)
    >>> len(draw_rank_diagram(Ranking(res, separated=[("A", "C")], rule="a test says so")).axes)
    1
    """
    from .. import plots

    return plots.plot_rank_diagram(subject.result, alpha=subject.alpha, equivalent=subject.equivalent,
                                   separated=subject.separated, rule=subject.rule)


FIGURE = FigureKind(Ranking, "Posterior rank diagram (Plackett-Luce expected ranks); black bars: not separated by "
                             "the Bayesian signed-rank test, grey dashed bars: practically equivalent by it",
                    draw_rank_diagram)
JOINT_FIGURE = FigureKind(JointRanking, "Posterior rank diagram (joint hierarchical model, population): black bars, "
                                        "not separated by the verdicts of the table above; grey dashed, equivalent "
                                        "by them", draw_rank_diagram)
