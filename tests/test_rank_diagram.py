"""The posterior rank diagram (plots.plot_rank_diagram) and the order of the average ranks (order_by_ranking).

Oracles written here, independently of the library: the groups and equivalent sets by brute force over every run
and every subset; expected ranks and P(a before b) from the posterior draws by formulas written out (Plackett-Luce)
or by ranking the draws with scipy (joint model); average ranks with scipy's ``rankdata``. Results are built from
posterior draws put together here (no MCMC), so every test is fast; the figures are read back from their Axes.
"""
from __future__ import annotations

import itertools
import re
import warnings

import arviz as az
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from matplotlib.text import Text
from scipy import stats

import pp_corr
from pp_corr import palette, plots
from pp_corr.figures import rank_diagram
from pp_corr.cli import main
from pp_corr.ranking import PlackettLuceResult, order_by_ranking
from tests.conftest import result_from_levels

SEED = 20261124


def fake_plackett_luce(names, rng, draws=2000, concentration=30.0) -> PlackettLuceResult:
    """A Plackett-Luce result whose posterior holds Dirichlet draws of w around random weights (2 chains)."""
    k = len(names)
    centre = rng.dirichlet(np.linspace(1, 4, k))
    w = rng.dirichlet(concentration * k * centre, size=(2, draws // 2))
    idata = az.from_dict({"posterior": {"w": w}}, coords={"algorithm": list(names)}, dims={"w": ["algorithm"]})
    ranks = pd.DataFrame(rng.permuted(np.tile(np.arange(1.0, k + 1), (30, 1)), axis=1), columns=list(names))
    return PlackettLuceResult(idata, ranks, (), {"prior": (1.0,) * k, "ties": "average"})


def plackett_luce_oracle(result):
    """Expected ranks and P(a before b) from the draws of w: rank = 1 + sum_b w_b / (w_a + w_b), per draw."""
    w = result.idata.posterior["w"].values.reshape(-1, result.k)
    before = (w[:, :, None] / (w[:, :, None] + w[:, None, :])).mean(axis=0)
    expected = 1 + np.array([sum((w[:, b] / (w[:, a] + w[:, b])).mean() for b in range(result.k) if b != a)
                             for a in range(result.k)])
    return dict(zip(result.algorithms, expected)), pd.DataFrame(before, index=result.algorithms,
                                                                columns=result.algorithms)


def joint_oracle(result, levels):
    """Expected population ranks and P(delta0_a > delta0_b) from the delta0 draws (the reference at 0)."""
    full = np.column_stack([np.zeros(len(levels)), levels])
    ranks = stats.rankdata(-full, axis=1)
    before = (full[:, :, None] > full[:, None, :]).mean(axis=0)
    names = list(result.algorithms)
    return dict(zip(names, ranks.mean(axis=0))), pd.DataFrame(before, index=names, columns=names)


def oracle_groups(before, alpha):
    """Every maximal run of consecutive algorithms (rows' order) with no pair separated, by brute force."""
    k = len(before)
    together = [(i, j) for i in range(k) for j in range(i + 1, k)
                if all(alpha < before[a, b] < 1 - alpha for a in range(i, j + 1) for b in range(i, j + 1) if a != b)]
    return sorted((i, j) for i, j in together if not any(a <= i and j <= b and (a, b) != (i, j) for a, b in together))


def oracle_cliques(marked):
    """Every maximal set of two or more algorithms whose every pair is marked, by brute force over subsets."""
    k = len(marked)
    cliques = [set(c) for size in range(2, k + 1) for c in itertools.combinations(range(k), size)
               if all(marked[a, b] for a, b in itertools.combinations(c, 2))]
    return sorted(tuple(sorted(c)) for c in cliques if not any(c < other for other in cliques))


def drawn(figure):
    """What the diagram shows, read back from its Axes: per name its elbow's x (on the axis) and the row of its
    label, the not-separated bars and the equivalent sets (names and x data), and the tick numbers' x."""
    ax = figure.axes[0]
    elbows, bars, sets = {}, [], []
    for line in ax.lines:
        gid = line.get_gid() or ""
        x, y = (np.asarray(v, dtype=float) for v in line.get_data())
        if gid.startswith("elbow: "):
            elbows[gid.removeprefix("elbow: ")] = (x[0], y[-1], x[-1])
        elif gid.startswith("not separated: "):
            bars.append((tuple(gid.removeprefix("not separated: ").split(" .. ")), x, line))
        elif gid.startswith("equivalent: "):
            sets.append((tuple(gid.removeprefix("equivalent: ").split(", ")), x, line))
    labels = {}
    for text in ax.texts:
        match = re.fullmatch(r"(.+) \((\d+\.\d\d)\)", text.get_text())
        if match:
            labels[match[1]] = (float(match[2]), *text.get_position())
    ticks = {float(t.get_text()): t.get_position()[0] for t in ax.texts if re.fullmatch(r"\d+", t.get_text())}
    return elbows, labels, bars, sets, ticks


def check_diagram(figure, expected, before, alpha, marked=None):
    """The figure places every name at its expected rank, and its bars are the oracle's groups and sets."""
    elbows, labels, bars, sets, ticks = drawn(figure)
    names = sorted(expected, key=lambda name: expected[name])
    assert set(elbows) == set(labels) == set(names)
    assert all(x == pytest.approx(tick) for tick, x in ticks.items()) and len(ticks) == len(names)
    for name in names:
        x, row, end = elbows[name]
        assert x == pytest.approx(expected[name], abs=1e-9)
        number, label_x, label_y = labels[name]
        assert number == pytest.approx(expected[name], abs=0.005 + 1e-12) and label_y == pytest.approx(row)
        assert (label_x < 1 and end < 1) or (label_x > len(names) and end > len(names))  # beside the axis
    ordered = before.loc[names, names].to_numpy()
    assert sorted((names.index(a), names.index(b)) for (a, b), _, _ in bars) == oracle_groups(ordered, alpha)
    for (first, last), x, _ in bars:
        assert x.min() < expected[first] and expected[last] < x.max()
    lanes = {}
    for _, x, line in bars + sets:
        lanes.setdefault(float(line.get_ydata()[0]), []).append((x.min(), x.max()))
    for spans in lanes.values():  # bars sharing a row keep apart
        spans.sort()
        assert all(end < start for (_, end), (start, _) in zip(spans, spans[1:])), spans
    if marked is not None:
        wanted = oracle_cliques(marked.loc[names, names].to_numpy())
        assert sorted(tuple(sorted(names.index(n) for n in members)) for members, _, _ in sets) == wanted
        for members, x, _ in sets:
            np.testing.assert_allclose(x, sorted(expected[n] for n in members))
    else:
        assert not sets


# --- the groups and the equivalent sets against brute force ------------------------------------------------------

@settings(max_examples=300, deadline=None, derandomize=True, database=None)
@given(k=st.integers(2, 8), seed=st.integers(0, 2**32 - 1), alpha=st.sampled_from([0.4, 0.2, 0.1, 0.05, 0.01]),
       spread=st.sampled_from([0.05, 0.3, 1.0]))
def test_groups_and_cliques_against_brute_force(k, seed, alpha, spread):
    """Random P(a before b) matrices (complementary pairs, near 1/2 or anywhere) and random equivalence graphs."""
    rng = np.random.default_rng(seed)
    upper = np.clip(0.5 + spread * rng.uniform(-0.5, 0.5, (k, k)), 0, 1)
    before = np.triu(upper, 1) + np.tril(1 - upper.T, -1)
    np.fill_diagonal(before, np.nan)
    assert rank_diagram._not_separated_groups(before, alpha) == oracle_groups(before, alpha)
    marked = np.triu(rng.random((k, k)) < rng.uniform(0.2, 0.9), 1)
    marked = marked | marked.T
    assert rank_diagram._equivalent_cliques(marked) == oracle_cliques(marked)


def test_alpha_boundaries_separate():
    """P(a before b) exactly at 1 - alpha separates the pair (>= 1 - alpha), as exactly alpha does (<=); the
    numbers are exact in binary, so 1 - alpha is too."""
    before = np.array([[np.nan, 0.75, 0.625], [0.25, np.nan, 0.625], [0.375, 0.375, np.nan]])
    assert rank_diagram._not_separated_groups(before, 0.25) == [(1, 2)]
    assert rank_diagram._not_separated_groups(before.T, 0.25) == [(1, 2)]
    assert rank_diagram._not_separated_groups(before, 0.2499999) == [(0, 2)]


# --- both result types, read back from the figure -------------------------------------------------------------------

@pytest.mark.parametrize("k, alpha", [(2, 0.05), (3, 0.1), (5, 0.05), (8, 0.3)])
def test_plackett_luce_diagram_places_ranks_and_bars(k, alpha):
    rng = np.random.default_rng(SEED + k)
    names = [f"alg{i}" for i in range(k)]
    result = fake_plackett_luce(names, rng, concentration=rng.choice([3.0, 30.0, 300.0]))
    expected, before = plackett_luce_oracle(result)
    pairs = [tuple(rng.choice(names, 2, replace=False)) for _ in range(k)]
    marked = pd.DataFrame(False, index=names, columns=names)
    for a, b in pairs:
        marked.loc[a, b] = marked.loc[b, a] = True
    check_diagram(plots.plot_rank_diagram(result, alpha=alpha), expected, before, alpha)
    figure = plots.plot_rank_diagram(result, alpha=alpha, equivalent=pairs)
    check_diagram(figure, expected, before, alpha, marked)
    as_frame = plots.plot_rank_diagram(result, alpha=alpha, equivalent=marked)
    assert drawn(as_frame)[3].__len__() == len(drawn(figure)[3])


def joint_levels(rng, draws=4000):
    """delta0 draws of four algorithms against the reference: two nearly tied near the top, one far below."""
    mu = np.array([0.004, -0.02, 0.03, 0.0305])
    return mu + 0.006 * rng.standard_normal((draws, 4))


def test_joint_diagram_uses_the_population_and_new_dataset_rope():
    """Joint model: expected ranks and P(before) of delta0; by default the pairs with new-data-set P(rope) >= 1 -
    alpha are the equivalent ones (both regimes: an alpha that marks some pairs and one that marks none)."""
    rng = np.random.default_rng(SEED)
    levels = joint_levels(rng)
    cov0 = np.diag([1e-5, 4e-4, 1e-4, 1e-5]) + 2e-6
    result = result_from_levels(levels, cov0, nu=6.0, names=["ref", "x", "y", "z", "w"], rope=(-0.02, 0.02))
    expected, before = joint_oracle(result, levels)
    pairs = result.pairs()
    regimes = set()
    for alpha in (0.2, 0.01):
        marked = pd.DataFrame(False, index=list(result.algorithms), columns=list(result.algorithms))
        for row in pairs.itertuples():
            marked.loc[row.a, row.b] = marked.loc[row.b, row.a] = row.p_rope >= 1 - alpha
        figure = plots.plot_rank_diagram(result, alpha=alpha)
        check_diagram(figure, expected, before, alpha, marked)
        legend = [t.get_text() for t in figure.axes[0].get_legend().get_texts()]
        assert any(f"P(rope) ≥ {1 - alpha:g} on a new data set" in t for t in legend)
        assert any(t.endswith(": none") for t in legend) == (not marked.to_numpy().any())
        regimes.add(int(marked.to_numpy().sum() // 2))
    assert regimes == {0, 2}  # the two alphas: two equivalent pairs, then none
    given = plots.plot_rank_diagram(result, equivalent=[("x", "ref")])
    assert [members for members, _, _ in drawn(given)[3]] == [("x", "ref")]


def test_the_two_bar_styles_differ_and_the_legend_names_them():
    rng = np.random.default_rng(SEED)
    result = fake_plackett_luce(["a", "b", "c", "d"], rng, concentration=3.0)
    figure = plots.plot_rank_diagram(result, alpha=0.1, equivalent=[("a", "b"), ("c", "d")])
    _, _, bars, sets, _ = drawn(figure)
    assert bars and sets
    for _, _, line in bars:
        assert line.get_linestyle() == "-" and line.get_color() == palette.INK and line.get_marker() in ("None", None)
    for members, x, line in sets:
        assert line.get_linestyle() == "--" and line.get_color() == palette.ROPE and line.get_marker() == "D"
        assert len(x) == len(members)  # a diamond on each member
    legend = figure.axes[0].get_legend()
    title = legend.get_title().get_text()
    assert "Plackett-Luce model on 30 data sets" in title and "P(a ranked before b) ≥ 0.9 or ≤ 0.1" in title
    words = [t.get_text() for t in legend.get_texts()]
    assert words == ["not separated: no pair within the bar is separated", "practically equivalent (the pairs given)"]
    assert [h.get_linestyle() for h in legend.legend_handles] == ["-", "--"]


# --- layout: 20 algorithms with 40-character names --------------------------------------------------------------

def _boxes(figure, texts):
    renderer = figure.canvas.get_renderer()
    return np.array([t.get_window_extent(renderer).extents for t in texts if t.get_visible() and t.get_text()])


def assert_laid_out(figure, k, names):
    """No two texts overlap (by more than half a pixel), names lie beside the axis, everything inside the figure."""
    texts = [t for t in figure.findobj(Text) if t.get_visible() and t.get_text()]
    boxes = _boxes(figure, texts)
    x0, y0, x1, y1 = boxes.T
    overlap = ((np.minimum.outer(x1, x1) - np.maximum.outer(x0, x0) > 0.5)
               & (np.minimum.outer(y1, y1) - np.maximum.outer(y0, y0) > 0.5))
    np.fill_diagonal(overlap, False)
    pairs_overlapping = [(texts[i].get_text(), texts[j].get_text()) for i, j in np.argwhere(overlap)]
    assert not pairs_overlapping, pairs_overlapping[:3]
    ax = figure.axes[0]
    (axis_left, _), (axis_right, _) = ax.transData.transform([(1, 0), (k, 0)])
    for text, (bx0, _, bx1, _) in zip(texts, boxes):
        if text.get_text().split(" (")[0] in names:
            assert bx1 < axis_left or bx0 > axis_right, text.get_text()
    drawn_box = figure.get_tightbbox(figure.canvas.get_renderer())
    page = figure.bbox_inches
    assert drawn_box.x0 >= page.x0 - 0.01 and drawn_box.y0 >= page.y0 - 0.01
    assert drawn_box.x1 <= page.x1 + 0.01 and drawn_box.y1 <= page.y1 + 0.01


@pytest.mark.parametrize("k", [3, 5, 12, 20])
def test_no_text_overlaps_and_everything_fits(k):
    """Names of 40 characters (wide letters) and short ones: no two texts of the figure (names, tick numbers,
    caption, legend) overlap, names lie beside the axis, everything lies inside the figure, whose height grows
    with k."""
    rng = np.random.default_rng(SEED + k)
    names = [(f"algorithm_{i}_" + "WWMM" * 10)[:40] if i % 2 else f"a{i}" for i in range(k)]
    result = fake_plackett_luce(names, rng, concentration=rng.choice([3.0, 300.0]))
    pairs = [tuple(rng.choice(names, 2, replace=False)) for _ in range(k)]
    figure = plots.plot_rank_diagram(result, equivalent=pairs)
    for dpi in (72, 100, 150):  # hinting widens text by different amounts at different resolutions
        figure.set_dpi(dpi)
        figure.canvas.draw()
        assert_laid_out(figure, k, names)
    assert figure.get_size_inches()[1] >= (k + 1) // 2 * 1.5 * 8 / 72


def test_draws_into_a_given_axes():
    import matplotlib.pyplot as plt

    result = fake_plackett_luce(["a", "b", "c"], np.random.default_rng(SEED))
    figure, ax = plt.subplots(figsize=(8, 3))
    assert plots.plot_rank_diagram(result, ax=ax) is figure and set(drawn(figure)[0]) == {"a", "b", "c"}


# --- bad input -------------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def small_result():
    return fake_plackett_luce(["a", "b", "c"], np.random.default_rng(SEED))


@pytest.mark.parametrize("alpha, error", [(0.0, ValueError), (1.0, ValueError), (0.5, ValueError),
                                          (0.7, ValueError), (float("nan"), ValueError), ("0.1", TypeError),
                                          (None, TypeError)])
def test_bad_alpha_is_named(small_result, alpha, error):
    with pytest.raises(error, match="alpha"):
        plots.plot_rank_diagram(small_result, alpha=alpha)


@pytest.mark.parametrize("equivalent, error, words", [
    ([("a", "zzz")], ValueError, "equivalent names 'zzz'"),
    ([("a", "a")], ValueError, "equivalent pairs an algorithm with itself"),
    ([("a", "b", "c")], TypeError, "equivalent must hold pairs"),
    (["ab"], TypeError, "equivalent must hold pairs"),
    ("ab", TypeError, "equivalent must be pairs"),
    (3, TypeError, "equivalent must be pairs"),
    ({"a": "b"}, TypeError, "equivalent must be pairs"),
    (pd.DataFrame(1, index=["a", "b", "c"], columns=["a", "b", "c"]), TypeError, "equivalent must hold True/False"),
    (pd.DataFrame(False, index=["a", "b", "x"], columns=["a", "b", "c"]), ValueError, "unknown \\['x'\\]"),
    (pd.DataFrame(False, index=["a", "b"], columns=["a", "b"]), ValueError, "equivalent must be a k x k"),
])
def test_bad_equivalent_is_named(small_result, equivalent, error, words):
    with pytest.raises(error, match=words):
        plots.plot_rank_diagram(small_result, equivalent=equivalent)


@pytest.mark.parametrize("seed", range(6))
def test_separated_pairs_given_decide_the_bars(seed):
    """separated= (a pairwise test's verdicts): the bars are the maximal runs, in expected-rank order, with no pair
    given (the brute-force oracle on that matrix), and the title says the rule; P(a before b) plays no part."""
    rng = np.random.default_rng(seed)
    names = [f"alg{i}" for i in range(7)]
    result = fake_plackett_luce(names, rng)
    order = list(result.to_frame().index)
    pairs = [(a, b) for a, b in itertools.combinations(order, 2) if rng.random() < 0.4]
    figure = plots.plot_rank_diagram(result, separated=pairs, rule="a test says so")
    marked = np.zeros((7, 7))  # as "before": 1 where separated, 0.5 where not
    marked[:] = 0.5
    for a, b in pairs:
        marked[order.index(a), order.index(b)] = marked[order.index(b), order.index(a)] = 1.0
    _, _, bars, _, _ = drawn(figure)
    assert sorted((order.index(a), order.index(b)) for (a, b), _, _ in bars) == oracle_groups(marked, 0.05)
    assert figure.axes[0].get_legend().get_title().get_text().endswith("a pair is separated when a test says so")


def test_bad_separated_and_rule_are_named(small_result):
    with pytest.raises(ValueError, match="separated names 'zzz'"):
        plots.plot_rank_diagram(small_result, separated=[("a", "zzz")])
    with pytest.raises(ValueError, match="rule words the separated pairs given"):
        plots.plot_rank_diagram(small_result, rule="a test says so")


@pytest.mark.parametrize("result", [None, "a result", pd.DataFrame({"a": [1.0]})])
def test_bad_result_is_named(result):
    with pytest.raises(TypeError, match="result must be a PlackettLuceResult .* got"):
        plots.plot_rank_diagram(result)


def test_a_ttest_result_is_refused_by_name():
    res = pp_corr.correlated_ttest(np.random.default_rng(0).normal(0.01, 0.02, 10), folds=10)
    with pytest.raises(TypeError, match="got CorrelatedTTestResult"):
        plots.plot_rank_diagram(res)


# --- order_by_ranking -------------------------------------------------------------------------------------------

def average_rank_order(scores):
    """Algorithms by their average rank over data sets (scipy's rankdata, ties averaged), from per-data-set means
    rounded to 12 decimals so that equal accuracies tie whatever the summation order."""
    means = scores.score.mean(dim=["run", "fold"]).transpose("dataset", "algorithm").values
    ranks = stats.rankdata(-np.round(means, 12), axis=1).mean(axis=0)
    names = [str(a) for a in scores.algorithm.values]
    return [names[i] for i in np.argsort(ranks, kind="stable")], ranks


def test_order_by_ranking_against_rankdata(uci54):
    order, ranks = average_rank_order(uci54)
    assert order_by_ranking(uci54) == order
    assert np.unique(np.round(ranks, 9)).size == ranks.size  # no tie here: the order is the ranks' alone
    assert order_by_ranking(pp_corr.load_scores(pp_corr.example_path())) == average_rank_order(
        pp_corr.load_scores(pp_corr.example_path()))[0]


def test_order_by_ranking_of_losses_and_of_missing_scores():
    """A DataFrame of losses: the order of the negated losses; a data set without some algorithm is left out
    without a warning; equal average ranks keep the given order."""
    rng = np.random.default_rng(SEED)
    frame = pd.DataFrame(rng.random((12, 5)), columns=list("pqrst"))
    assert order_by_ranking(frame, higher_is_better=False) == order_by_ranking(-frame)
    assert order_by_ranking(frame) == [frame.columns[i] for i in
                                       np.argsort(stats.rankdata(-frame, axis=1).mean(axis=0), kind="stable")]
    holes = frame.copy()
    holes.iloc[0, 1] = np.nan
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert order_by_ranking(holes) == order_by_ranking(frame.iloc[1:])
    tied = pd.DataFrame({"z": [1.0, 0.0], "y": [0.0, 1.0], "x": [0.5, 0.5]})
    assert order_by_ranking(tied) == ["z", "y", "x"]


def test_all_pairs_tables_follow_the_ranking(capsys, tmp_path):
    """pp-corr compare --all-pairs prints every table with rows and columns in the order of the average ranks
    (the table's own order differs, so the test can tell)."""
    scores = pp_corr.load_scores(pp_corr.example_path())
    order = average_rank_order(scores)[0]
    main(["compare", str(pp_corr.example_path()), "--all-pairs", "--seed", "1"])
    tables = capsys.readouterr().out.split("\n\n")
    assert len(tables) == 5
    for table in tables:
        lines = table.strip().splitlines()[1:]
        assert lines[0].split() == ["b", *order] and lines[1].split() == ["a"]
        assert [line.split()[0] for line in lines[2:]] == order
    table = pp_corr.compare_all_pairs(scores, draws=200, random_seed=0)
    assert [str(a) for a in table.a.values] != order  # the table's own order differs, so the test can tell
    with pytest.raises(ValueError, match="order must list each algorithm"):
        pp_corr.format_pairs(table, order=order[:2])
