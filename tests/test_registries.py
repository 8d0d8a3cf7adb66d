"""The extension points (issue #39): a pairwise test, an input format, a prior of nu and a figure are each added by
one entry in one table - :data:`pp_corr.pairwise.pairs.TESTS`, :data:`pp_corr.data.formats.FORMATS`,
:data:`pp_corr.hierarchical.priors.NU_PRIORS`, :data:`pp_corr.figures.FIGURES` - and nothing else. Each test adds
a toy entry (monkeypatched, so the tables are as before afterwards) and follows it through every consumer of its
table."""
import json
from types import SimpleNamespace

import numpy as np
import pymc as pm
import pytest

import pp_corr
from pp_corr import plots
from pp_corr.cli import build_parser, main
from pp_corr.data.formats import FORMATS, arrays
from pp_corr.data.sources import InputFormat
from pp_corr.figures import FIGURES
from pp_corr.figures.kinds import FigureKind, Pair
from pp_corr.hierarchical.model import hierarchical_model
from pp_corr.hierarchical.priors import NU_PRIORS, NuPrior, hyperprior_names
from pp_corr.pairwise.pairs import TESTS, PairTest, compare_all_pairs, format_pairs, pairs_table
from pp_corr.reporting.report import write_report


# --- a pairwise test: one PairTest in TESTS --------------------------------------------------------------------

def share_better(scores, pair, *, rope, alpha, prior, draws, rng):
    """The toy test: the shares of data sets on which B's mean score is above A's, and below."""
    means = scores.score.mean(["run", "fold"])
    b_minus_a = (means.sel(algorithm=pair[1]) - means.sel(algorithm=pair[0])).values
    return SimpleNamespace(names=pair, b=float(np.mean(b_minus_a > 0)), a=float(np.mean(b_minus_a < 0)))


def majority(result, alpha):
    return result.names[1] if result.b > 1 - alpha else result.names[0] if result.a > 1 - alpha else "none"


SHARE = PairTest(share_better, lambda result: {"share_right": (result.b, result.a)}, majority, "share_right",
                 "(share of data sets)", False)


@pytest.fixture
def with_share_test(monkeypatch):
    monkeypatch.setitem(TESTS, "share", SHARE)


def test_a_pairwise_test_added_to_the_table_reaches_the_all_pairs_code_the_text_and_the_figure(with_share_test):
    scores = pp_corr.load_scores(pp_corr.example_path())
    table = compare_all_pairs(scores, draws=500, random_seed=0)
    means = scores.score.mean(["run", "fold"])
    for a in table.a.values:
        for b in table.b.values:
            if a != b:
                expected = float(((means.sel(algorithm=b) - means.sel(algorithm=a)) > 0).mean())
                assert float(table.share_right.sel(a=a, b=b)) == expected, (a, b)
    assert set(np.unique(table.decision_share.values)) <= {"", "none", *map(str, table.a.values)}
    assert "\nBetter of the pair at alpha = 0.05 (share test):\n" in format_pairs(table)
    ax = plots.plot_pairs(table, test="share")
    assert ax.get_legend().get_title().get_text().startswith("share test at alpha = 0.05 on 4 data sets, rope 0.01")
    alone = pairs_table({"share": {("tree", "knn"): share_better(scores, ("tree", "knn"), rope=None, alpha=0.05,
                                                                 prior=None, draws=None, rng=None)}},
                        ["tree", "knn"], 0.05, {"alpha": 0.05})  # the report's way to its matrix
    assert float(alone.share_right.sel(a="tree", b="knn")) == float(table.share_right.sel(a="tree", b="knn"))


def test_the_added_test_leaves_the_others_numbers_alone(with_share_test, monkeypatch):
    scores = pp_corr.load_scores(pp_corr.example_path())
    with_it = compare_all_pairs(scores, draws=500, random_seed=0)
    monkeypatch.delitem(TESTS, "share")
    without = compare_all_pairs(scores, draws=500, random_seed=0)
    assert with_it.drop_vars(["share_right", "decision_share"]).identical(without)


def test_the_command_line_draws_and_writes_the_added_test(with_share_test, tmp_path, capsys):
    out = tmp_path / "pairs.json"
    main(["compare", str(pp_corr.example_path()), "--all-pairs", "--seed", "0", "-o", str(out),
          "--plots", str(tmp_path / "figures")])
    assert "(share test):" in capsys.readouterr().out
    assert (tmp_path / "figures" / "pairs_share.png").is_file()
    assert all("share_right" in row and "decision_share" in row for row in json.loads(out.read_text())["pairs"])


# --- an input format: one InputFormat in FORMATS ---------------------------------------------------------------

def unwrap(source, request):
    """The toy format: ``{"toy_scores": {algorithm: (q, n) array}}``, read as the arrays inside."""
    return arrays.read(source["toy_scores"], request)


TOY_FORMAT = InputFormat(("mapping",), unwrap, lambda source, columns: "toy_scores" in source)
ARRAYS = {"A": [[0.80, 0.90, 0.70], [0.60, 0.70, 0.65]], "B": [[0.70, 0.85, 0.72], [0.61, 0.75, 0.70]]}


@pytest.fixture
def with_toy_format(monkeypatch):
    monkeypatch.setitem(FORMATS, "toy", TOY_FORMAT)


def test_an_input_format_added_to_the_table_is_detected_named_and_offered(with_toy_format, tmp_path):
    reference = pp_corr.load_scores(ARRAYS, folds=3)
    assert pp_corr.load_scores({"toy_scores": ARRAYS}, folds=3).identical(reference)  # detected
    path = tmp_path / "toy_scores.txt"
    path.write_text(json.dumps({"toy_scores": ARRAYS}))
    assert pp_corr.load_scores(path, format="toy", folds=3).score.equals(reference.score)  # named, from a file
    parser = build_parser()
    assert parser.parse_args(["compare", str(path), "--format", "toy"]).format == "toy"
    with pytest.raises(ValueError, match=r"format='toy' is a mapping \(or a JSON file\), not a table"):
        pp_corr.load_scores(reference.score.to_dataframe().reset_index(), format="toy")


# --- a prior of nu: one NuPrior in NU_PRIORS ----------------------------------------------------------------------

TOY_HYPER = {"alpha": (1.0, 3.0), "beta": (0.02, 0.2)}


def test_a_prior_with_hyperpriors_added_to_the_table_reaches_the_model_and_the_quadrature(monkeypatch):
    monkeypatch.setitem(NU_PRIORS, "toy", NuPrior(hyper=TOY_HYPER))
    x = np.random.default_rng(0).normal(0.01, 0.02, (5, 10))
    named = pp_corr.hierarchical_test(x, folds=10, rope=0.01, priors="toy", method="exact", draws=200,
                                      random_seed=0)
    given = pp_corr.hierarchical_test(x, folds=10, rope=0.01, priors=TOY_HYPER, method="exact", draws=200,
                                      random_seed=0)
    assert named.summary() == given.summary() and named.p_delta0_positive == given.p_delta0_positive
    default = pp_corr.hierarchical_test(x, folds=10, rope=0.01, method="exact", draws=200, random_seed=0)
    assert named.p_delta0_positive != default.p_delta0_positive  # the toy prior, not the default, was integrated
    model, by_bounds = hierarchical_model(x, folds=10, priors="toy"), hierarchical_model(x, folds=10, priors=TOY_HYPER)
    point = model.initial_point()
    assert model.compile_logp()(point) == by_bounds.compile_logp()(point)
    assert "toy" in hyperprior_names()
    pp_corr.joint_model(np.random.default_rng(1).normal([0.80, 0.82, 0.85], 0.02, (6, 10, 3)), folds=10,
                        algorithms=["a", "b", "c"], priors="toy")


def test_a_sampled_prior_added_to_the_table_builds_its_model_and_is_kept_from_the_quadrature(monkeypatch):
    monkeypatch.setitem(NU_PRIORS, "toy", NuPrior(variable=lambda: pm.Exponential("nu_minus_one", lam=0.1) + 1))
    x = np.random.default_rng(0).normal(0.01, 0.02, (5, 10))
    model = hierarchical_model(x, folds=10, priors="toy")
    assert {"nu", "nu_minus_one"} <= set(model.named_vars)
    assert np.isclose(model.initial_point()["nu_minus_one_log__"], np.log(10.0))  # the toy's mean, not Kruschke's
    with pytest.raises(ValueError, match=r"method: 'exact' needs .* priors in \['current', 'older', 'kruschke'\]"):
        pp_corr.hierarchical_test(x, folds=10, priors="toy", method="exact")


# --- a figure: one FigureKind in FIGURES ---------------------------------------------------------------------------

def draw_toy(subject):
    """The toy figure of a pair: its per-data-set mean differences as bars."""
    from matplotlib import pyplot as plt

    test = subject.result.per_dataset
    ax = plt.subplots(figsize=(3, 2))[1]
    ax.bar(list(test.datasets), np.asarray(test.mean))
    return ax


TOY_FIGURE = FigureKind(Pair, "Toy figure: {b} against {a}, by data set", draw_toy)


def test_a_figure_added_to_the_table_is_written_by_plots_and_shown_with_its_caption_in_the_report(monkeypatch,
                                                                                                    tmp_path, capsys):
    monkeypatch.setitem(FIGURES, "toy", TOY_FIGURE)
    plots_dir = tmp_path / "figures"
    main(["compare", str(pp_corr.example_path()), "-a", "tree", "-b", "knn", "--plots", str(plots_dir)])
    capsys.readouterr()
    assert sorted(p.name for p in plots_dir.iterdir()) == [
        "forest_tree_vs_knn.png", "poisson_binomial_tree_vs_knn.png", "simplex_signed_rank_tree_vs_knn.png",
        "toy_tree_vs_knn.png"]  # after the kinds before it in the table
    scores = pp_corr.load_scores(pp_corr.example_path()).sel(algorithm=["tree", "knn", "logistic"])
    written = write_report(scores, tmp_path / "report", formats=("md", "html"), pair_figures=True, progressbar=False)
    toys = sorted(name for name in written if name.startswith("figures/toy_"))
    assert len(toys) == 3 and written[toys[0]].read_bytes()[:4] == b"\x89PNG"  # one a pair
    markdown = written["report.md"].read_text(encoding="utf-8")
    html = written["report.html"].read_text(encoding="utf-8")
    for name in toys:
        a, b = name.removeprefix("figures/toy_").removesuffix(".png").split("_vs_")
        caption = f"Toy figure: {b} against {a}, by data set"
        assert f"![{caption}]({name})" in markdown and f"_{caption}_" in markdown
        assert f"<figcaption>{caption}</figcaption>" in html


def test_a_figure_kind_cannot_be_made_without_a_caption_its_subject_fills_in():
    with pytest.raises(ValueError, match="caption must be a non-empty text"):
        FigureKind(Pair, "", draw_toy)
    with pytest.raises(ValueError, match=r"names dataset: a figure of a Pair has the fields \['a', 'b'\]"):
        FigureKind(Pair, "Toy figure of {a} on {dataset}", draw_toy)

