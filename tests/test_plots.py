"""Plot arguments: a data set that is not there, or a choice the plot cannot make, is an error naming it."""
import numpy as np
import pytest

import pp_corr
from pp_corr import plots
from pp_corr.ranking import order_by_ranking


@pytest.fixture(scope="module")
def per_dataset():
    return pp_corr.correlated_ttest(pp_corr.load_scores(pp_corr.example_path()), algorithms=("tree", "knn"), rope=0.01)


def test_regression_plot_unknown_dataset_is_named(per_dataset):
    with pytest.raises(ValueError, match="dataset='iriss' is not in the result"):
        plots.plot_posterior(per_dataset, "iriss")
    with pytest.raises(ValueError, match="choose one with dataset="):
        plots.plot_posterior(per_dataset)
    ax = plots.plot_posterior(per_dataset, "wine")
    assert ax.get_legend().get_title().get_text().startswith("wine:")  # the title heads the legend
    single = pp_corr.correlated_ttest(np.random.default_rng(0).normal(0, 0.02, 10), folds=10)
    with pytest.raises(ValueError, match="one unnamed data set"):
        plots.plot_posterior(single, "wine")


@pytest.mark.parametrize("level", [0.0, 1.0, 1.5, float("nan")])
def test_regression_plot_forest_confidence_level(per_dataset, level):
    with pytest.raises(ValueError, match="confidence_level"):
        plots.plot_forest(per_dataset, confidence_level=level)


def test_plot_simplex_max_points():
    res = pp_corr.bayesian_signed_rank([0.02, 0.01, 0.03, -0.01, 0.02], rope=0.01, draws=500, random_seed=0)
    with pytest.raises(ValueError, match="max_points"):
        plots.plot_simplex(res, max_points=0)


def test_regression_plot_posterior_at_any_magnitude():
    """The plotted density is the result's posterior, whatever the units (its b overflows beyond ~1e154)."""
    x = np.array([[1.0, 2.0, 3.0, 2.5], [1.0, 2.0, 3.0, 2.5]]) * np.array([[1e160], [1.0]])
    res = pp_corr.correlated_ttest(x, folds=4, rope=(-1e159, 1e159))
    ax = plots.plot_posterior(res, "D1")
    grid, density = ax.lines[0].get_data()
    assert np.isfinite(density).all() and grid.min() < 2.125e160 < grid.max()
    np.testing.assert_allclose(density * 1e160, plots.plot_posterior(res.with_rope(1.0), "D2").lines[0].get_data()[1],
                               rtol=1e-9)


# --- figures everyone can read (#18): the palette under colour-vision deficiencies, every plot on uci54 drawn
# with it and labelled in words, and figures that grow with their rows without overlapping labels.

import itertools  # noqa: E402
import warnings  # noqa: E402

import matplotlib.colors as mcolors  # noqa: E402
import xarray as xr  # noqa: E402
from matplotlib.collections import Collection  # noqa: E402
from matplotlib.image import AxesImage  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402
from matplotlib.patches import Patch, Rectangle  # noqa: E402
from matplotlib.text import Text  # noqa: E402

from pp_corr import palette  # noqa: E402
from pp_corr.figures import pairs_matrix  # noqa: E402
from pp_corr.pairwise.pairs import TESTS  # noqa: E402

DEFICIENCIES = ("deuteranomaly", "protanomaly", "tritanomaly")


def _cam02ucs(color, deficiency):
    """CAM02-UCS coordinates of ``color`` as seen with ``deficiency`` at full severity (Machado et al. 2009)."""
    colorspacious = pytest.importorskip("colorspacious")
    space = {"name": "sRGB1+CVD", "cvd_type": deficiency, "severity": 100}
    return colorspacious.cspace_convert(mcolors.to_rgb(color), space, "CAM02-UCS")


def _closest(colors, deficiency):
    return min(np.linalg.norm(_cam02ucs(a, deficiency) - _cam02ucs(b, deficiency))
               for a, b in itertools.combinations(colors, 2))


@pytest.mark.parametrize("deficiency", DEFICIENCIES)
def test_region_colours_stay_apart_under_colour_blindness(deficiency):
    """A better, rope and B better at least 20 CAM02-UCS units apart (matplotlib's red and green: 5 under
    deuteranopia); the lighter cell backgrounds of the all-pairs matrix, which also carry the decision in
    words, at least 10."""
    assert _closest(palette.REGION_COLORS, deficiency) >= 20
    fills = [palette.tint(palette.A_BETTER, 0.4), palette.tint(palette.ROPE, 0.45),
             palette.tint(palette.B_BETTER, 0.45), palette.UNDECIDED]
    assert _closest(fills, deficiency) >= 10


def test_regions_differ_by_more_than_hue():
    """Greyscale or print: the two sides have opposite hatches and markers, and blue and orange differ in
    lightness (CAM02-UCS J', normal vision) by at least 20."""
    assert len(set(palette.REGION_HATCHES)) == len(set(palette.REGION_MARKERS)) == 3
    lightness = [_cam02ucs(c, "deuteranomaly")[0] for c in (palette.A_BETTER, palette.B_BETTER)]
    colorspacious = pytest.importorskip("colorspacious")
    normal = [colorspacious.cspace_convert(mcolors.to_rgb(c), "sRGB1", "CAM02-UCS")[0]
              for c in (palette.A_BETTER, palette.B_BETTER)]
    assert abs(normal[1] - normal[0]) >= 20 and abs(lightness[1] - lightness[0]) >= 20


PALETTE = {mcolors.to_rgb(c) for c in (*palette.OKABE_ITO.values(), *palette.REGION_COLORS, *palette.SERIES,
                                       palette.INK, palette.UNDECIDED)}


def _in_palette(rgb) -> bool:
    """A grey (neutral), or a palette colour mixed with white (``palette.tint``)."""
    rgb = np.asarray(rgb)
    if np.ptp(rgb) < 1e-3:
        return True
    for colour in map(np.asarray, PALETTE - {(1.0, 1.0, 1.0)}):
        free = colour < 1
        strength = (1 - rgb[free]) / (1 - colour[free])
        if np.ptp(strength) < 2e-3 and np.all(rgb[~free] > 1 - 1e-3) and 0 <= strength[0] <= 1 + 1e-3:
            return True
    return False


def _drawn_colours(figure):
    """Every colour an artist of ``figure`` paints (lines, markers, patches, hatches, collections, text)."""
    found = []
    for artist in figure.findobj():
        if isinstance(artist, AxesImage):
            pytest.fail("an image with a colormap: probabilities are drawn in the palette's colours")
        if isinstance(artist, Line2D):
            found += [artist.get_color(), artist.get_markerfacecolor(), artist.get_markeredgecolor()]
        elif isinstance(artist, (Patch, Collection)):
            faces = artist.get_facecolor() if isinstance(artist, Patch) else artist.get_facecolors()
            edges = artist.get_edgecolor() if isinstance(artist, Patch) else artist.get_edgecolors()
            found += [*np.atleast_2d(faces), *np.atleast_2d(edges)]
            if artist.get_hatch():
                found.append(artist.get_hatchcolor() if hasattr(artist, "get_hatchcolor") else artist._hatch_color)
        elif isinstance(artist, Text) and artist.get_text():
            found.append(artist.get_color())
    rgba = [mcolors.to_rgba(c) for c in found if not (isinstance(c, str) and c in ("none", "auto"))]
    return {tuple(round(v, 4) for v in c[:3]) for c in rgba if c[3] > 0}


def _texts(figure):
    return [t.get_text() for t in figure.findobj(Text) if t.get_visible() and t.get_text()]


@pytest.fixture(scope="module")
def nbc_hnb(uci54):
    return pp_corr.poisson_test(uci54, algorithms=("nbc", "hnb"), rope=0.01)


@pytest.fixture(scope="module")
def uci54_pairs(uci54):
    return pp_corr.compare_all_pairs(uci54, rope=0.01, draws=2000, random_seed=0)


def _uci54_figures(uci54, nbc_hnb, uci54_pairs):
    """Every plot function that needs no MCMC, drawn on uci54 (nbc vs hnb), by name."""
    import arviz as az
    from pp_corr.studies.simulation import experiment_1, rejection_rates, toy_example

    per_dataset = nbc_hnb.per_dataset
    one = pp_corr.correlated_ttest(uci54.sel(dataset=["audiology"]), algorithms=("nbc", "hnb"), rope=0.01)
    draws = one.posterior.rvs(size=(2, 500), random_state=np.random.default_rng(1))  # exact draws stand in for MCMC
    order = order_by_ranking(uci54)
    rates = rejection_rates(experiment_1(repetitions=10, runs=1, workers=1, progressbar=False, random_seed=0))
    signed_rank = pp_corr.bayesian_signed_rank(uci54, algorithms=("nbc", "hnb"), rope=0.01, draws=3000,
                                               random_seed=0)
    return {
        "posterior": plots.plot_posterior(per_dataset, "audiology").figure,
        "analytic_overlay": plots.plot_analytic_overlay(az.from_dict({"posterior": {"mu": draws}}), one).figure,
        "forest": plots.plot_forest(per_dataset).figure,
        "poisson_binomial": plots.plot_poisson_binomial(nbc_hnb).figure,
        "simplex": plots.plot_simplex(signed_rank).figure,
        **{f"pairs_{t}": plots.plot_pairs(uci54_pairs, test=t, order=order).figure for t in TESTS},
        "rejection_rates": plots.plot_rejection_rates(rates).figure,
        "toy_example": plots.plot_toy_example(toy_example(repetitions=50, random_seed=0)),
    }


def test_every_plot_uses_the_palette_and_names_algorithms(uci54, nbc_hnb, uci54_pairs, tmp_path):
    """Rendered on uci54 (PNG): every colour drawn is the palette's (or a tint of it, or a grey), no colormap,
    no colour named in a label, and the regions' legends name the algorithms."""
    figures = _uci54_figures(uci54, nbc_hnb, uci54_pairs)
    for name, figure in figures.items():
        figure.savefig(tmp_path / f"{name}.png", dpi=60)
        outside = [c for c in _drawn_colours(figure) if not _in_palette(c)]
        assert not outside, (name, outside)
        words = " ".join(_texts(figure)).lower()
        assert not {"red", "green", "blue", "orange"} & set(words.replace(":", " ").split()), (name, words)
    for name in ("posterior", "forest", "simplex"):
        assert {"nbc better", "hnb better"} <= {w for t in _texts(figures[name]) for w in ("nbc better", "hnb better")
                                                if w in t}, name
    legend = figures["poisson_binomial"].axes[0].get_legend()
    assert legend.get_title().get_text().startswith("Poisson test, hnb vs nbc: ")
    assert f"hnb better on a majority: P = {nbc_hnb.p_b_majority:.3f}" in _texts(figures["poisson_binomial"])
    assert "P(nbc better) = " in " ".join(_texts(figures["posterior"]))
    assert figures["pairs_wilcoxon"].axes[0].get_legend().get_title().get_text().startswith("wilcoxon test at alpha")


def test_regression_plot_source_has_no_default_or_named_colours():
    """Every colour in plots.py and pp_corr.figures comes from pp_corr.palette: no matplotlib cycle colour ('C3'),
    no named hue."""
    import inspect
    import re

    from pp_corr.figures import pairs_matrix, rank_diagram

    source = "".join(inspect.getsource(module) for module in (plots, pairs_matrix, rank_diagram))
    assert not re.findall(r"""["']C\d["']|["'](?:red|green|RdYlGn|tab:\w+)["']|cmap=""", source)


def _pair_cell_parts(ax):
    """Per cell (row, column): the decision text and the widths of the three bar segments (P(row better),
    P(neither), P(column better))."""
    words, bars = {}, {}
    for text in ax.texts:
        x, y = text.get_position()
        if text.get_text() in plots.PAIR_OUTCOMES:
            words[round(y), round(x)] = text.get_text()
    for patch in ax.patches:
        if isinstance(patch, Rectangle) and np.isclose(patch.get_height(), 0.22):
            x, y = patch.get_xy()
            bars.setdefault((round(y), round(x)), []).append((x, patch.get_width() / 0.84))
    return words, {cell: [w for _, w in sorted(parts)] for cell, parts in bars.items()}


@pytest.mark.parametrize("test, right", [("poisson", "p_b_majority"), ("signed_rank", "signed_rank_right"),
                                         ("sign", "sign_right")])
def test_pairs_cells_show_the_table(uci54_pairs, uci54, test, right):
    """Each cell's words are the test's decision for (row, column), and its bar the table's P(row better),
    P(neither), P(column better), looked up by name in the order of the average ranks."""
    order = order_by_ranking(uci54)
    words, bars = _pair_cell_parts(plots.plot_pairs(uci54_pairs, test=test, order=order))
    assert len(words) == len(bars) == 20
    for (i, j), word in words.items():
        row, column = order[i], order[j]
        verdict = str(uci54_pairs[f"decision_{test}"].sel(a=row, b=column).values)
        expected = {row: "row better", column: "column better", "rope": "equivalent"}.get(verdict, "no decision")
        assert word == expected
        p_column = float(uci54_pairs[right].sel(a=row, b=column))
        p_row = float(uci54_pairs[right].sel(a=column, b=row))
        np.testing.assert_allclose(bars[i, j], [p_row, 1 - p_row - p_column, p_column], atol=1e-12)


@pytest.mark.parametrize("k", [12, 40])
def test_compact_cells_point_to_the_better_and_fit_the_page(k):
    """Beyond 8 algorithms each cell holds an arrow to the better one's label (left: the row, down: the column), =
    for equivalent, nothing undecided, and up to 30 algorithms the probability of the region decided; rows are
    named and numbered, columns numbered; 16 algorithms fit a page of 1,120 px at the report's 110 dpi."""
    table = _fake_pairs(k, np.random.default_rng(k))
    ax = plots.plot_pairs(table, test="signed_rank")
    names = [str(v) for v in table.a.values]
    assert [t.get_text() for t in ax.get_yticklabels()] == [f"{name}  {i + 1}" for i, name in enumerate(names)]
    shown = {(round(t.get_position()[1]), round(t.get_position()[0])): t.get_text() for t in ax.texts}
    right = table.signed_rank_right.values
    for i, j in itertools.permutations(range(k), 2):
        verdict = str(table.decision_signed_rank.values[i, j])
        arrow = {names[i]: "←", names[j]: "↓", "rope": "="}.get(verdict, "")
        probability = {"←": right[j, i], "↓": right[i, j], "=": 1 - right[i, j] - right[j, i]}.get(arrow)
        expected = arrow + (f"{probability:.2f}".removeprefix("0") if arrow and k <= 30 else "")
        assert shown.get((i, j), "") == expected, (i, j, verdict)
    if k <= 16:
        assert ax.figure.get_size_inches()[0] * 110 <= 1120


def test_regression_pairs_order_and_test_are_checked(uci54_pairs):
    with pytest.raises(ValueError, match="order must list each algorithm"):
        plots.plot_pairs(uci54_pairs, order=["nbc", "hnb"])
    with pytest.raises(ValueError, match="test must be one of"):
        plots.plot_pairs(uci54_pairs, test="friedman")


def _fake_pairs(k, rng):
    """An all-pairs table of k algorithms with long names, probabilities and decisions drawn at random:
    a layout test needs its shape and words, not a real analysis (20 algorithms take half a minute)."""
    names = [f"{'ExtremelyRandomizedTrees' if i % 3 == 0 else 'svm'}_{i}_{'x' * (i % 7)}" for i in range(k)]
    values = {v: np.full((k, k), np.nan) for v in ("p_b_majority", "wilcoxon_pvalue", "signed_rank_right",
                                                   "sign_right")}
    decisions = {t: np.full((k, k), "", dtype=object) for t in TESTS}
    for i, j in itertools.combinations(range(k), 2):
        for v in values:
            left, _, values[v][i, j] = rng.dirichlet([1, 1, 1])
            values[v][j, i] = left
        for t in decisions:
            decisions[t][i, j] = decisions[t][j, i] = rng.choice([names[i], names[j], "rope", "none"])
    data = {v: (("a", "b"), x) for v, x in values.items()}
    data.update({f"decision_{t}": (("a", "b"), d.astype(str)) for t, d in decisions.items()})
    return xr.Dataset(data, coords={"a": names, "b": names}, attrs={"rope": 0.01, "alpha": 0.05, "n_datasets": 30})


def _boxes(figure, texts):
    renderer = figure.canvas.get_renderer()
    return np.array([t.get_window_extent(renderer).extents for t in texts if t.get_visible() and t.get_text()])


def _assert_apart(boxes, what, slack=0.5):
    """No two boxes (x0, y0, x1, y1, in pixels) overlap by more than ``slack``."""
    x0, y0, x1, y1 = boxes.T
    overlap = ((np.minimum.outer(x1, x1) - np.maximum.outer(x0, x0) > slack)
               & (np.minimum.outer(y1, y1) - np.maximum.outer(y0, y0) > slack))
    np.fill_diagonal(overlap, False)
    assert not overlap.any(), f"{what}: {np.argwhere(overlap)[:3].tolist()} overlap"


def _assert_inside(figure, what):
    """Everything drawn lies inside the figure (to a hundredth of an inch)."""
    drawn = figure.get_tightbbox(figure.canvas.get_renderer())
    page = figure.bbox_inches
    assert drawn.x0 >= page.x0 - 0.01 and drawn.y0 >= page.y0 - 0.01 and drawn.x1 <= page.x1 + 0.01 \
        and drawn.y1 <= page.y1 + 0.01, (what, drawn, page)


def _assert_rotated_labels_apart(ax, figure):
    """Tick labels at 45 degrees: the distance between neighbouring ticks, across the text, exceeds its height."""
    labels = [t for t in ax.get_xticklabels() if t.get_text()]
    ticks = ax.transData.transform(np.column_stack([ax.get_xticks(), np.zeros(len(ax.get_xticks()))]))[:, 0]
    height = max(t.get_fontsize() for t in labels) * figure.dpi / 72
    assert all(abs(t.get_rotation() - 45) < 1e-9 for t in labels)
    assert np.diff(ticks).min() * np.sin(np.pi / 4) > 1.2 * height


@pytest.mark.parametrize("k", [5, 20, 40])
def test_pairs_grow_with_algorithms_without_overlap(k):
    """20 algorithms with long names: tick labels, cell words and numbers apart, each inside its cell, and all
    text inside the figure."""
    table = _fake_pairs(k, np.random.default_rng(k))
    for test in ("poisson", "wilcoxon"):
        ax = plots.plot_pairs(table, test=test)
        figure = ax.figure
        figure.canvas.draw()
        if k <= pairs_matrix.FULL_CELLS:
            _assert_rotated_labels_apart(ax, figure)
        else:  # numbered columns
            assert [t.get_text() for t in ax.get_xticklabels()] == [str(i + 1) for i in range(k)]
            _assert_apart(_boxes(figure, ax.get_xticklabels()), "column numbers")
        _assert_apart(_boxes(figure, ax.get_yticklabels()), "row labels")
        cells = _boxes(figure, ax.texts)
        _assert_apart(cells, "cell text")
        for text, box in zip(ax.texts, cells):
            x, y = text.get_position()
            (cx0, cy0), (cx1, cy1) = ax.transData.transform([(round(x) - 0.5, round(y) + 0.5),
                                                             (round(x) + 0.5, round(y) - 0.5)])
            assert cx0 - 0.5 <= box[0] and box[2] <= cx1 + 0.5 and cy0 - 0.5 <= box[1] and box[3] <= cy1 + 0.5, \
                (text.get_text(), x, y)
        _assert_inside(figure, f"pairs k={k} {test}")


@pytest.mark.parametrize("n", [54, 200])
def test_forest_grows_with_datasets_without_overlap(n):
    """54 or 200 data sets, some with long names: one label per row, none overlapping, all in the figure."""
    import pandas as pd

    rng = np.random.default_rng(n)
    names = [f"dataset_with_a_rather_long_name_{i}" if i % 5 == 0 else f"d{i}" for i in range(n)]
    rows = [(d, algorithm, 1, fold, 0.8 + shift + rng.normal(0, 0.03)) for d in names
            for algorithm, shift in (("nbc", 0.0), ("hnb", 0.01)) for fold in range(1, 11)]
    scores = pp_corr.load_scores(pd.DataFrame(rows, columns=["dataset", "algorithm", "run", "fold", "score"]))
    res = pp_corr.correlated_ttest(scores, algorithms=("nbc", "hnb"), rope=0.01)
    ax = plots.plot_forest(res)
    figure = ax.figure
    figure.canvas.draw()
    labels = _boxes(figure, ax.get_yticklabels())
    assert len(labels) == n
    _assert_apart(labels, f"forest of {n}")
    _assert_inside(figure, f"forest of {n}")


@pytest.mark.slow
def test_hierarchical_figures_on_uci54_use_the_palette(uci54, tmp_path):
    """Shrinkage and posterior predictive check of a (short) hierarchical fit of nbc vs hnb on uci54: palette
    colours, every data set labelled once without overlap, and the observed ECDF drawn from the data."""
    from pp_corr.sampling import ConvergenceWarning
    from pp_corr.hierarchical.fit import hierarchical_test

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)  # a short fit: the figures, not the verdict
        res = hierarchical_test(uci54, algorithms=("nbc", "hnb"), rope=0.01, draws=150, tune=150, chains=2,
                                random_seed=1, retry=False, method="mcmc")
    shrinkage = plots.plot_shrinkage(res).figure
    check = plots.plot_posterior_predictive(res, draws=20, random_seed=2)
    for name, figure in (("shrinkage", shrinkage), ("posterior_predictive", check)):
        figure.savefig(tmp_path / f"{name}.png", dpi=60)
        outside = [c for c in _drawn_colours(figure) if not _in_palette(c)]
        assert not outside, (name, outside)
        _assert_inside(figure, name)
    ax = shrinkage.axes[0]
    labels = _boxes(shrinkage, ax.get_yticklabels())
    assert len(labels) == 54 and ax.get_xlabel() == "mean difference hnb - nbc (positive: hnb better)"
    _assert_apart(labels, "shrinkage")
    per_dataset = uci54.score.mean(["run", "fold"])
    means = per_dataset.sel(algorithm="hnb") - per_dataset.sel(algorithm="nbc")
    observed = check.axes[0].lines[-1].get_xdata()
    np.testing.assert_allclose(observed, np.sort(means.values), atol=1e-12)
    assert [len(a.lines) for a in check.axes] == [21, 21]


def test_regression_plot_posterior_of_a_point_mass():
    """All differences equal: the posterior is a point mass, drawn as a spike at the mean (no NaN density),
    with the region that holds it at probability 1 in the legend."""
    with pytest.warns(pp_corr.DegenerateWarning):
        res = pp_corr.correlated_ttest(np.full(10, 0.02), folds=10, rope=0.01, names=("nbc", "hnb"))
    ax = plots.plot_posterior(res)
    (spike,) = ax.collections[:1]
    np.testing.assert_allclose(spike.get_segments()[0][:, 0], 0.02)
    assert ax.get_xlim()[0] < -0.01 and ax.get_xlim()[1] > 0.02
    assert "P(hnb better) = 1.000" in [t.get_text() for t in ax.get_legend().get_texts()]


# --- bad and extreme inputs: refused by name, or the documented answer (issue #10) ----------------------------------
from pp_corr import correlated_ttest, example_path, load_scores
from tests.conftest import NAN, check_error, quiet


class TestPlotArgumentsRegressions:
    def test_regression_plot_confidence_level(self):
        from pp_corr import plots

        res = correlated_ttest(quiet(load_scores, example_path()), algorithms=("tree", "knn"))
        for level in (0.0, 1.0, 1.5, NAN):
            check_error(lambda: plots.plot_forest(res, confidence_level=level), ("confidence_level",))

    def test_regression_plot_unknown_dataset(self):
        from pp_corr import plots

        res = correlated_ttest(quiet(load_scores, example_path()), algorithms=("tree", "knn"))
        check_error(lambda: plots.plot_posterior(res, dataset="no such data set"), ("no such data set", "dataset"))
        check_error(lambda: plots.plot_posterior(res, dataset=17), ("17", "dataset"))
