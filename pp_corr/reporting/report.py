"""The report of a comparison of k algorithms: :func:`write_report` (``pp-corr report FILE -o DIR``).

It runs the comparison of every algorithm in a scores Dataset and writes, into one directory: ``report.md``
(its figures in ``figures/``), ``report.html`` (the same page: CSS and figures inline, a figure above 400 kB linked
to its file in ``figures/``; nothing fetched) and ``tables.tex`` (booktabs tables to ``\\input`` into a paper,
long ones as longtables). At the top, one verdict in plain words, built from the numbers the tables show.

Several data sets: the Bayesian Plackett-Luce ranking and its rank diagram, each algorithm's standing against the
others, the Bayesian signed-rank test of every pair (its matrix, with the Poisson test beside it in the table),
each pair's figures (on request, or by default up to 15 pairs), on request the pairwise hierarchical model
(``hierarchical=True``) and the joint model of all algorithms (``joint=True``), the gaps (missing scores) and the
settings. The rank diagram separates two algorithms when the pair table's test decides a winner: the diagram and
the tables read the same verdicts.
One data set: the correlated t-test of every pair on its folds, and no ranking (the report says why).

Decisions. A test decides for a region (A better, practically equivalent, B better) when it is the most
probable of the three in more than ``1 - alpha`` of the posterior draws (Benavoli et al. 2017; the shares are
the tables' "share of draws"); the correlated t-test on one data set decides on its exact posterior
probabilities, the same way. An algorithm is clearly best when its Plackett-Luce weight is the largest with
probability above ``1 - alpha``. A hierarchical or joint fit that did not converge gives no verdict: its rows
say so and show its diagnostics instead of numbers.

Figures: where the report shows a result (the ranking, the all-pairs matrix, each pair, each hierarchical fit, the
joint model), every kind of :data:`pp_corr.figures.FIGURES` that applies to it and is drawn in the report, with
its caption; one data set: each pair's figures on it.
"""
from __future__ import annotations

import functools
import io
import sys
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import xarray as xr
from tqdm import tqdm

from .._args import as_rope, check_count, check_flag, check_probability_level, check_sampler
from ..hierarchical.exact import check_method
from ..pairwise.pairs import pairs_table
from ..pairwise.poisson_test import poisson_test
from ..pairwise.priors import NormalGamma
from ..pairwise.rank_tests import bayesian_signed_rank
from ..pairwise.ttest import DegenerateWarning
from .document import (NOT_CONVERGED, Details, Document, Figure, Section, Table, to_html, to_latex, to_markdown)
from ..figures import figures_of
from ..figures.kinds import AllPairs, HierarchicalFit, JointRanking, Pair, PairOnDataset, Ranking
from .figure_files import save_figure
from .output import check_output_dir, write_files
from ..data.scores import missing_mask
from .overview import gaps_section, standing_table
from .settings import dataset_details, settings_table

FORMATS = ("md", "html", "tex")
FILES = {"md": "report.md", "html": "report.html", "tex": "tables.tex"}
FIGURE_DIR = "figures"
FIGURE_DPI = 110
VERDICT = 0.18  # width of a verdict column in LaTeX, a share of the line: long verdicts wrap
PAIR_FIGURES = 15  # by default, each pair's figures up to this many pairs (6 algorithms); beyond, on request
FOLDED_ROWS = 60  # in HTML, pair tables longer than this are folded (opened on demand) below the standing table
SHOWN = 6  # the verdict names this many pairs of a kind, and counts the rest


def check_report_directory(directory, overwrite=False, *, name="directory", allow="overwrite=True") -> Path:
    """The report's directory, checked before any work: a directory or a path that can become one, and empty
    unless ``overwrite`` (then the report's files in it are replaced, and nothing else is touched). ``name``
    and ``allow`` word the error for the caller (the command line says ``--output`` and ``--overwrite``).

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     (Path(d) / "notes.txt").write_text("mine")
    ...     check_report_directory(d)
    Traceback (most recent call last):
    ...
    ValueError: directory ... is not empty: give a new or empty directory, or overwrite=True to replace ...
    """
    path = check_output_dir(directory)
    if path.is_dir() and any(path.iterdir()) and not overwrite:
        raise ValueError(f"{name} {path} is not empty: give a new or empty directory, or {allow} to replace the "
                         "report's files in it (other files are left alone)")
    return path


def write_report(scores, directory, *, rope=0.01, alpha=0.05, prior=None, hierarchical=False, joint=False,
                 method="auto", sampler="pymc", random_seed=0, formats=FORMATS, overwrite=False, title=None,
                 pair_figures=None, progressbar=True) -> dict[str, Path]:
    """Compare every algorithm of ``scores`` (a scores Dataset, :func:`pp_corr.load_scores`) and write the
    report into ``directory`` (see the module's docstring); returns ``{file name relative to directory: path}``
    of every file written.

    ``rope`` (half-width or (lo, hi), the scores' units), ``alpha`` (decisions at level 1 - alpha), ``prior``
    (the correlated t-test's :class:`pp_corr.NormalGamma`, default matching) and ``random_seed`` (an int:
    every random draw) are those of :func:`pp_corr.compare_all_pairs`; ``method`` is the hierarchical test's;
    ``sampler`` (``"pymc"`` or ``"nutpie"``) samples the hierarchical and joint models.
    ``formats`` chooses among ``"md"``, ``"html"`` and ``"tex"`` (the figures' files come with ``"md"``, and
    with ``"html"`` those it links). ``pair_figures`` (True or False) draws each pair's figures (forest, Poisson
    binomial, simplex: three a pair); by default (None) up to 15 pairs. ``directory`` must be new or empty unless
    ``overwrite``; every argument is checked before any work and the files are written all or none. ``progressbar``
    says what runs on stderr, with progress bars for the long parts.

    >>> import tempfile, pp_corr
    >>> scores = pp_corr.load_scores(pp_corr.example_path()).isel(dataset=[0])  # one data set: t-tests only
    >>> with tempfile.TemporaryDirectory() as d:
    ...     written = write_report(scores, d, formats=("md", "html"), progressbar=False)
    >>> sorted(written)[-2:], sum(name.startswith("figures/") for name in written)  # a posterior per pair
    (['report.html', 'report.md'], 6)
    """
    settings = _check_arguments(scores, rope, alpha, prior, hierarchical, joint, method, random_seed, formats)
    settings["sampler"] = check_sampler(sampler)
    k = scores.sizes["algorithm"]
    if pair_figures is not None:
        check_flag("pair_figures", pair_figures)
    settings["pair_figures"] = k * (k - 1) // 2 <= PAIR_FIGURES if pair_figures is None else bool(pair_figures)
    settings["progressbar"] = progressbar
    directory = check_report_directory(directory, overwrite)
    from ..ranking import order_by_ranking  # PyMC: imported when a report is asked for

    say = functools.partial(_say, progressbar)
    order = order_by_ranking(scores)
    q = scores.sizes["dataset"]
    title = title or f"Comparison of {len(order)} algorithms on {q} data set{'s' * (q != 1)}"
    if q == 1:
        verdict, sections = _one_dataset(scores, order, settings, say)
    else:
        verdict, sections = _many_datasets(scores, order, settings, say)
    document = Document(title, tuple(verdict), tuple(sections))
    return _write(document, directory, settings["formats"], progressbar)


def _check_arguments(scores, rope, alpha, prior, hierarchical, joint, method, random_seed, formats) -> dict:
    if not isinstance(scores, xr.Dataset) or "score" not in scores or \
            set(scores.score.dims) != {"dataset", "algorithm", "run", "fold"}:
        raise TypeError(f"scores must be a scores Dataset (pp_corr.load_scores), got {type(scores).__name__}")
    algorithms = [str(a) for a in scores.algorithm.values]
    if len(algorithms) < 2:
        raise ValueError(f"scores hold {len(algorithms)} algorithm(s) {algorithms}: a report compares at least two")
    rope = as_rope(rope) or (0.0, 0.0)
    alpha = check_probability_level("alpha", alpha)
    prior = NormalGamma.matching() if prior is None else prior
    if not isinstance(prior, NormalGamma):
        raise TypeError(f"prior must be a NormalGamma (or None for the matching prior), got {type(prior).__name__}")
    for name, value in (("hierarchical", hierarchical), ("joint", joint)):
        if check_flag(name, value) and scores.sizes["dataset"] < 2:
            raise ValueError(f"{name}=True models the population of data sets, and the scores hold one "
                             f"({scores.dataset.values[0]}): leave it out")
    check_method(method)
    random_seed = check_count("random_seed", random_seed, minimum=0)
    if isinstance(formats, str) or not set(formats) <= set(FORMATS) or not formats:
        raise ValueError(f"formats must be a non-empty selection of {list(FORMATS)}, got {formats!r}")
    return {"rope": rope, "alpha": alpha, "level": 1 - alpha, "prior": prior, "hierarchical": bool(hierarchical),
            "joint": bool(joint), "method": method, "random_seed": random_seed,
            "formats": tuple(f for f in FORMATS if f in formats)}


def _say(progressbar, text):
    if progressbar:
        print(f"report: {text}", file=sys.stderr, flush=True)


def _p(value) -> str:
    """A probability as the tables and the verdict show it."""
    return f"{value:.3f}"


def _diff(value) -> str:
    """A difference of scores as the tables show it."""
    return f"{value:+.4f}"


def _interval(lo, hi) -> str:
    return f"[{lo:+.4f}, {hi:+.4f}]"


def _rope_words(rope) -> str:
    lo, hi = rope
    return "no rope" if lo == hi else f"rope [{lo:g}, {hi:g}]"


@dataclass(frozen=True)
class _Decision:
    """The outcome of one comparison of a and b: the region chosen (0 a better, 1 equivalent, 2 b better, None
    for no decision), the shares or probabilities it was chosen on, and the words."""

    a: str
    b: str
    region: int | None
    values: tuple[float, float, float]

    @classmethod
    def decide(cls, a, b, values, alpha) -> _Decision:
        best = int(np.argmax(values))
        return cls(a, b, best if values[best] > 1 - alpha else None, tuple(float(v) for v in values))

    @property
    def value(self) -> float:
        return self.values[self.region]

    def words(self) -> str:
        if self.region is None:
            return "no decision"
        return (f"{self.a} better", "equivalent", f"{self.b} better")[self.region] + f" ({_p(self.value)})"


# --- several data sets ----------------------------------------------------------------------------------------

def _many_datasets(scores, order, settings, say):
    from ..ranking import plackett_luce

    alpha, rope, seed, level = settings["alpha"], settings["rope"], settings["random_seed"], settings["level"]
    pairs = [(a, b) for i, a in enumerate(order) for b in order[i + 1:]]
    say(f"Poisson and Bayesian signed-rank tests of {len(pairs)} pairs")
    with warnings.catch_warnings():  # point-mass data sets are part of the answer (forest figures mark them)
        warnings.simplefilter("ignore", DegenerateWarning)
        poisson = {pair: poisson_test(scores, algorithms=pair, rope=rope, prior=settings["prior"], alpha=alpha)
                   for pair in _bar(pairs, "Poisson tests", settings)}
    signed = {pair: bayesian_signed_rank(scores, algorithms=pair, rope=rope, random_seed=seed)
              for pair in _bar(pairs, "signed-rank tests", settings)}
    table = signed_rank_table(signed, order, alpha, rope, scores.sizes["dataset"])
    decisions = {pair: _Decision.decide(*pair, signed[pair].wins, alpha) for pair in pairs}
    say("Plackett-Luce ranking")
    ranking = plackett_luce(scores, random_seed=seed)
    equivalent = [pair for pair, d in decisions.items() if d.region == 1]
    separated = [pair for pair, d in decisions.items() if d.region in (0, 2)]
    hier = _hierarchical_fits(scores, pairs, settings, say) if settings["hierarchical"] else None
    joint = _joint_fit(scores, order, settings, say) if settings["joint"] else None
    say("figures")
    pair_tables = _pair_tables(scores, pairs, poisson, signed, decisions)
    if len(pairs) > FOLDED_ROWS:
        pair_tables = (Details(f"The pair tables ({len(pairs)} rows each)", pair_tables),)
    sections = [
        Section("Ranking", (
            "Bayesian Plackett-Luce model on the data sets' mean scores (each data set ranks the algorithms; ties "
            "averaged). P(first) = P(ranked first on a new data set) = E[w]; P(best) = P(its weight is the "
            "largest).",
            _ranking_table(ranking, order, level),
            _SEPARATION.format(level=level),
            *_figures(Ranking(ranking, alpha=alpha, equivalent=equivalent, separated=separated,
                              rule=_rule("the Bayesian signed-rank test", level))))),
        Section("All pairs", (
            f"Each pair (A, B), B - A: the Bayesian signed-rank test on the data sets' mean differences "
            f"({_rope_words(rope)}) and the Poisson test (is B better on a majority of data sets?). A test "
            f"decides for a region when it is the most probable of the three in more than {level:g} of the "
            "posterior draws (the share in brackets); P(A), P(rope) and P(B), the posterior means of P(A better), "
            "P(practically equivalent) and P(B better).",
            standing_table(order, decisions, "Bayesian signed-rank test"),
            *_figures(AllPairs(table, "signed_rank", order, title="the Bayesian signed-rank test")),
            *pair_tables)),
    ]
    if settings["pair_figures"]:
        sections.append(Section("Figures of each pair", tuple(
            Details(f"Figures of {a} vs {b}", tuple(_figures(Pair(poisson[a, b], scores, rope=rope, random_seed=seed,
                                                                  signed_rank=signed[a, b]))))
            for a, b in _bar(pairs, "pair figures", settings))))
    if hier is not None:
        sections.append(_hierarchical_section(hier, settings))
    if joint is not None:
        sections.append(_joint_section(joint, order, settings))
    sections += [s for s in (gaps_section(scores),) if s is not None]
    sections.append(Section("Settings", (settings_table(scores, order, settings, ranking, signed[pairs[0]]),
                                         *dataset_details(scores))))
    verdict = _verdict_many(ranking, decisions, hier, joint, settings) + _gap_words(scores)
    return verdict, sections


_SEPARATION = ("The diagram places the algorithms at their expected ranks. Two algorithms are separated when the "
               "Bayesian signed-rank test of the pair table decides a winner at level {level:g}: black bars join "
               "runs of algorithms of which no pair is separated, grey dashed bars those it finds practically "
               "equivalent, so the diagram and the tables read the same verdicts. The Plackett-Luce P(a ranked "
               "before b) is not used to separate: it is the chance that a comes before b on a new data set, which "
               "can stay below {level:g} for pairs the test finds clearly different (an algorithm that is better on "
               "average rarely wins on nearly every data set).")


def _rule(test, level) -> str:
    """When the rank diagram separates a pair, in words (its title)."""
    return f"{test} decides a winner at {level:g}"


def _bar(items, what, settings):
    """``items`` with a progress bar on stderr (when the report shows its progress)."""
    return tqdm(items, desc=f"report: {what}", unit="pair", disable=not settings["progressbar"], file=sys.stderr,
                leave=False)


def _gap_words(scores) -> list[str]:
    """A sentence for the verdict when scores are missing (the section Gaps lists them)."""
    total = int(missing_mask(scores).sum())
    return [f"{total} score{'s are' if total != 1 else ' is'} missing (section Gaps)."] if total else []


def signed_rank_table(signed, order, alpha, rope, n_datasets) -> xr.Dataset:
    """The all-pairs table (:func:`~pp_corr.pairwise.pairs.pairs_table`) that :func:`pp_corr.plots.plot_pairs`
    draws (``test="signed_rank"``), made of the Bayesian signed-rank results ``signed`` (``{(a, b): result}``, one
    seeded test per pair): the matrix shows the same draws as the report's table, diagram and verdict.

    >>> import pp_corr
    >>> scores = pp_corr.load_scores(pp_corr.example_path())
    >>> pair = ("tree", "knn")
    >>> signed = {pair: pp_corr.bayesian_signed_rank(scores, algorithms=pair, rope=0.01, random_seed=0)}
    >>> table = signed_rank_table(signed, list(pair), 0.05, (-0.01, 0.01), 4)
    >>> float(table.signed_rank_right.sel(a="tree", b="knn")) == signed[pair].p_right, table.attrs["rope"]
    (True, 0.01)
    """
    lo, hi = rope
    return pairs_table({"signed_rank": signed}, order, alpha, {"rope": hi if lo == -hi else f"[{lo:g}, {hi:g}]",
                                                               "alpha": alpha, "n_datasets": n_datasets})


def _figure(stem, caption, draw) -> Figure:
    buffer = io.BytesIO()
    save_figure(draw, "png", buffer, dpi=FIGURE_DPI)
    return Figure(stem, caption, buffer.getvalue())


def _figures(subject) -> list[Figure]:
    """The report's figures of ``subject`` (:func:`pp_corr.figures.figures_of`), drawn, with their captions."""
    return [_figure(drawing.stem, drawing.caption, drawing.draw) for drawing in figures_of(subject, "report")]


def _ranking_table(ranking, order, level) -> Table:
    frame = ranking.to_frame(confidence_level=level).loc[order]
    percent = f"{100 * level:g}%"
    rows = tuple((name, f"{r.expected_rank:.2f}", _p(r.p_first), f"[{_p(r.w_lower)}, {_p(r.w_upper)}]",
                  _p(r.p_best), f"{r.observed_mean_rank:.2f}") for name, r in zip(order, frame.itertuples()))
    note = ("" if ranking.converged else
            f"{NOT_CONVERGED}: the Plackett-Luce fit failed its diagnostics ("
            + "; ".join(ranking.convergence_problems[:4]) + "); the numbers are shown for inspection only.")
    return Table("ppcorr-ranking", f"Bayesian Plackett-Luce ranking on {len(ranking.ranks)} data sets",
                 ("Algorithm", "Expected rank", "P(first)", f"{percent} interval of P(first)", "P(best)",
                  "Mean observed rank"), rows, (False, True, True, True, True, True), note)


def _pair_tables(scores, pairs, poisson, signed, decisions) -> tuple[Table, Table]:
    """The signed-rank test of every pair, and the Poisson test of every pair."""
    means = scores.score.mean(["run", "fold"])
    ranks, majorities = [], []
    for a, b in pairs:
        sr, pt = signed[a, b], poisson[a, b]
        diff = float((means.sel(algorithm=b) - means.sel(algorithm=a)).mean())
        ranks.append((a, b, _diff(diff), _p(sr.p_left), _p(sr.p_rope), _p(sr.p_right), decisions[a, b].words()))
        majorities.append((a, b, _p(pt.p_a_majority), _p(pt.p_b_majority),
                           {a: f"{a} better", b: f"{b} better"}.get(pt.decision(), "no decision")))
    signed_rank = Table("ppcorr-signed-rank", "Every pair: Bayesian signed-rank test, B - A",
                        ("A", "B", "Mean B - A", "P(A)", "P(rope)", "P(B)", "Verdict (share)"),
                        tuple(ranks), (False, False, True, True, True, True, False), widths=(None,) * 6 + (VERDICT,),
                        note="Mean B - A: over the data sets. P(A), P(rope), P(B): posterior means of P(A better), "
                        "P(practically equivalent), P(B better). "
                        "The verdict's share: of the posterior draws in which its region is the most probable.")
    majority = Table("ppcorr-poisson", "Every pair: Poisson test (better on a majority of the data sets?)",
                     ("A", "B", "P(A better on a majority)", "P(B better on a majority)", "Verdict"),
                     tuple(majorities), (False, False, True, True, False))
    return signed_rank, majority


def _verdict_many(ranking, decisions, hier, joint, settings) -> list[str]:
    level = settings["level"]
    frame = ranking.to_frame(confidence_level=level)
    top = str(frame["p_best"].idxmax())
    p_best = frame.loc[top, "p_best"]
    if not ranking.converged:
        sentences = ["The Plackett-Luce ranking did not converge, so it gives no verdict on the best algorithm."]
    elif p_best > level:
        sentences = [f"{top} is the best algorithm with probability {_p(p_best)} (Plackett-Luce: its weight is the "
                     "largest; it is ranked first on a new data set with probability "
                     f"{_p(frame.loc[top, 'p_first'])})."]
    else:
        sentences = [f"No algorithm is clearly best: the likeliest best, {top}, has the largest Plackett-Luce weight "
                     f"with probability {_p(p_best)}, not above the level {level:g}."]
    equivalent = [d for d in decisions.values() if d.region == 1]
    if equivalent:
        listed = [f"{d.a} and {d.b} ({_p(d.value)})" for d in equivalent[:SHOWN]]
        listed[0] = listed[0].replace(" (", " (the rope is the most probable region in ", 1)[:-1] + " of the draws)"
        more = f"; and {len(equivalent) - SHOWN} more in the table" if len(equivalent) > SHOWN else ""
        sentences.append("Practically equivalent by the Bayesian signed-rank test: " + "; ".join(listed) + more
                         + ".")
    else:
        sentences.append(f"No pair is practically equivalent at level {level:g} (Bayesian signed-rank test, "
                         f"{_rope_words(settings['rope'])}).")
    sentences += _unbeaten(decisions) + _clear_differences(decisions.values(), "Bayesian signed-rank test")
    if hier is not None:
        failed = [f"{a} vs {b}" for (a, b), result in hier.items() if not result.converged]
        if failed:
            sentences.append(f"The hierarchical model did not converge for {', '.join(failed)}: no verdict for "
                             f"{'it' if len(failed) == 1 else 'them'}.")
    if joint is not None:
        if not joint.converged:
            sentences.append("The joint hierarchical model did not converge: no verdict from it.")
        else:
            best = joint.ranking()["P(best)"]
            name, p_best = str(best.idxmax()), best.max()
            sentences.append(f"Joint hierarchical model: {name} is the best in the population of data sets with "
                             f"probability {_p(p_best)}." if p_best > level else
                             "Joint hierarchical model: no algorithm is clearly best in the population of data sets "
                             f"(the likeliest, {name}, with probability {_p(p_best)}).")
    return sentences


def _unbeaten(decisions) -> list[str]:
    """A sentence naming the algorithms that no other is found better than, when some are beaten (the top group a
    reader of many algorithms looks for first)."""
    names = list(dict.fromkeys(name for pair in decisions for name in pair))
    beaten = {d.b if d.region == 0 else d.a for d in decisions.values() if d.region in (0, 2)}
    top = [name for name in names if name not in beaten]
    if not beaten or not top:
        return []
    return [f"No other algorithm is better than {', '.join(top)} (Bayesian signed-rank test; each of the others "
            "is beaten by at least one)."]


def _clear_differences(decisions, test, shown=SHOWN) -> list[str]:
    """A sentence naming the pairs with a clear winner (the first ``shown`` of them), or none."""
    won = [d for d in decisions if d.region in (0, 2)]
    if not won:
        return []
    listed = [f"{d.a if d.region == 0 else d.b} better than {d.b if d.region == 0 else d.a} ({_p(d.value)})"
              for d in won[:shown]]
    more = f"; and {len(won) - shown} more in the table" if len(won) > shown else ""
    return [f"Clear differences ({test}): " + "; ".join(listed) + more + "."]


# --- hierarchical models --------------------------------------------------------------------------------------

def _hierarchical_fits(scores, pairs, settings, say) -> dict:
    from ..hierarchical.batch import hierarchical_tests

    return hierarchical_tests(scores, pairs, rope=settings["rope"], random_seed=settings["random_seed"],
                              method=settings["method"], sampler=settings["sampler"], progressbar=say)


def _joint_fit(scores, order, settings, say):
    from ..hierarchical.joint import joint_test

    say(f"joint hierarchical model of {len(order)} algorithms (minutes)")
    return joint_test(scores, rope=settings["rope"], algorithms=order, random_seed=settings["random_seed"],
                      sampler=settings["sampler"])


def _problems(result) -> str:
    shown = "; ".join(result.convergence_problems[:3])
    more = len(result.convergence_problems) - 3
    return shown + (f"; and {more} more" if more > 0 else "")


def _hierarchical_section(fits, settings) -> Section:
    level, alpha = settings["level"], settings["alpha"]
    percent = f"{100 * level:g}%"
    rows, figures = [], []
    for (a, b), result in fits.items():
        if not result.converged:
            rows.append((a, b, result.method, "", "", "", "", "", "", f"{NOT_CONVERGED} ({_problems(result)})"))
            continue
        new = result.new_dataset()
        lo, hi = np.quantile(result.delta0, [(1 - level) / 2, (1 + level) / 2])
        decision = _Decision.decide(a, b, new.wins, alpha)
        rows.append((a, b, result.method, _diff(result.delta0.mean()), _interval(lo, hi),
                     _p(result.p_delta0_positive), _p(new.p_left), _p(new.p_rope), _p(new.p_right),
                     decision.words()))
        figures += _figures(HierarchicalFit(result, settings["random_seed"]))
    table = Table("ppcorr-hierarchical", "Hierarchical model of each pair over the data sets, B - A",
                  ("A", "B", "Method", "delta0 mean", f"{percent} interval", "P(delta0 > 0)", "P(A)",
                   "P(rope)", "P(B)", "Verdict on a new data set (share)"), tuple(rows),
                  (False, False, False, True, True, True, True, True, True, False),
                  widths=(None,) * 9 + (VERDICT,),
                  note="delta0: the mean difference in the population of data sets. P(A), P(rope), P(B): "
                  "P(A better), P(practically equivalent), P(B better) on a new data set, posterior means; the "
                  "verdict uses the share of draws in which its region is the most probable. A fit that did not "
                  "converge gives no numbers.")
    blocks = ["Corani et al. (2017): the per-fold differences of all data sets in one model, each data set's "
              "mean difference drawn from a Student-t population (method 'exact': the posterior by quadrature, "
              "where MCMC did not converge).", table]
    if figures:
        blocks.append(Details("Shrinkage figures", tuple(figures)))
    return Section("Hierarchical model, pair by pair", tuple(blocks))


def _fit_words(result, sampler) -> str:
    """How the joint model was sampled (the last attempt's settings) and what its population parameters'
    diagnostics are, in one sentence."""
    import arviz as az

    from ..hierarchical.fit import describe_settings

    names = ["delta0", "sigma0", "nu"]
    rhat, ess = (fn(result.idata, var_names=names) for fn in (az.rhat, az.ess))
    retried = " (after a retry)" if len(result.attempts) > 1 else ""
    return (f"Sampled with {sampler}, {result.idata.posterior.sizes['chain']} chains, "
            f"{describe_settings(result.attempts[-1])}{retried}: largest R-hat "
            f"{max(float(rhat[v].max()) for v in names):.3f} and smallest bulk ESS "
            f"{min(float(ess[v].min()) for v in names):.0f} of the population parameters (delta0, sigma0, nu), "
            f"{int(result.idata.sample_stats['diverging'].sum())} divergent transitions.")


def _joint_section(result, order, settings) -> Section:
    level, alpha = settings["level"], settings["alpha"]
    intro = ("One hierarchical model of all algorithms together (every pair and the ranking from one posterior), "
             f"with {result.algorithms[0]} as the reference. Its population of data sets is one multivariate "
             "Student-t: a data set far out in one difference weighs less in all of them, so its differences can "
             "be smaller than the pairwise model's.")
    if not result.converged:
        return Section("Joint hierarchical model", (
            intro, f"{NOT_CONVERGED}: the fit failed its diagnostics after {len(result.attempts)} attempt(s) "
                   f"({_problems(result)}). No ranking or pair is reported from it."))
    intro += " " + _fit_words(result, settings["sampler"])
    ranking = result.ranking().loc[order]
    percent = f"{100 * level:g}%"
    rank_rows = tuple((name, _p(r["P(best)"]), f"{r['expected rank']:.2f}", _p(r["P(best) new data set"]),
                       f"{r['expected rank new data set']:.2f}") for name, r in ranking.iterrows())
    rank_table = Table("ppcorr-joint-ranking", "Joint hierarchical model: ranking",
                       ("Algorithm", "P(best)", "Expected rank", "P(best), new data set",
                        "Expected rank, new data set"), rank_rows, (False, True, True, True, True),
                       "P(best) and expected rank of the population means (delta0), and of a new data set.")
    rows, equivalent, separated = [], [], []
    for r in result.pairs(level).itertuples():
        decision = _Decision.decide(r.a, r.b, (r.win_left, r.win_rope, r.win_right), alpha)
        if decision.region is not None:
            (equivalent if decision.region == 1 else separated).append((r.a, r.b))
        rows.append((r.a, r.b, _diff(r.delta0_mean), _interval(r.delta0_lower, r.delta0_upper),
                     _p(r.p_delta0_positive), _p(r.p_left), _p(r.p_rope), _p(r.p_right), decision.words()))
    pair_table = Table("ppcorr-joint-pairs", "Joint hierarchical model: every pair, B - A",
                       ("A", "B", "delta0 mean", f"{percent} interval", "P(delta0 > 0)", "P(A)", "P(rope)", "P(B)",
                        "Verdict on a new data set (share)"), tuple(rows),
                       (False, False, True, True, True, True, True, True, False), widths=(None,) * 8 + (VERDICT,),
                       note="As in the pairwise hierarchical table; every pair here comes from one posterior.")
    diagrams = _figures(JointRanking(result, alpha=alpha, equivalent=equivalent, separated=separated,
                                     rule=_rule("its new-data-set verdict", level)))
    return Section("Joint hierarchical model", (intro, rank_table, pair_table, *diagrams))


# --- one data set ---------------------------------------------------------------------------------------------

def _one_dataset(scores, order, settings, say):
    alpha, level = settings["alpha"], settings["level"]
    dataset = str(scores.dataset.values[0])
    pairs = [(a, b) for i, a in enumerate(order) for b in order[i + 1:]]
    say(f"correlated t-tests of {len(pairs)} pairs on {dataset}")
    with warnings.catch_warnings():  # a point-mass posterior is shown as such
        warnings.simplefilter("ignore", DegenerateWarning)
        tests = {pair: poisson_test(scores, algorithms=pair, rope=settings["rope"], prior=settings["prior"],
                                    alpha=alpha) for pair in pairs}
    rows, decisions = [], {}
    for (a, b), result in tests.items():
        test = result.per_dataset
        probs = tuple(float(np.asarray(v)[0]) for v in (test.p_left, test.p_rope, test.p_right))
        decisions[a, b] = _Decision.decide(a, b, probs, alpha)
        lo, hi = (float(np.asarray(v)[0]) for v in test.interval(level))
        rows.append((a, b, _diff(float(np.asarray(test.mean)[0])), _interval(lo, hi), *map(_p, probs),
                     decisions[a, b].words()))
    percent = f"{100 * level:g}%"
    table = Table("ppcorr-ttests", f"Every pair on {dataset}: Bayesian correlated t-test, B - A",
                  ("A", "B", "Mean B - A", f"{percent} interval", "P(A)", "P(rope)", "P(B)",
                   "Verdict (probability)"), tuple(rows),
                  (False, False, True, True, True, True, True, False), widths=(None,) * 7 + (VERDICT,),
                  note="P(A), P(rope), P(B): the posterior probabilities that A is better, that the two are "
                  "practically equivalent, that B is better, from the mean difference over runs and folds (Corani & "
                  "Benavoli 2015).")
    say("figures")
    sections = [
        Section("Settings", (settings_table(scores, order, settings),)),
        Section("Why there is no ranking", (
            "The scores hold one data set. A ranking across data sets (Plackett-Luce), the signed-rank and Poisson "
            "tests and the hierarchical models learn how the algorithms compare over a population of data sets, "
            "and one data set says nothing about that population. So each pair is compared on this data set alone, "
            "on its runs and folds, by the Bayesian correlated t-test; its conclusions hold for this data set.",)),
        Section(f"Every pair on {dataset}", (
            f"A pair is decided when one region (A better, rope, B better) has posterior probability above "
            f"{level:g}.", table,
            *[block for pair in (_bar(pairs, "posterior figures", settings) if settings["pair_figures"] else ())
              for block in _figure_or_details(_figures(PairOnDataset(tests[pair], dataset)))])),
    ]
    return _verdict_one(dataset, order, decisions, settings), sections


def _figure_or_details(blocks) -> list:
    """One data set: a pair's one figure as it is, several folded together (none: nothing)."""
    return blocks if len(blocks) <= 1 else [Details("Figures", tuple(blocks))]


def _verdict_one(dataset, order, decisions, settings) -> list[str]:
    level = settings["level"]
    sentences = []
    for name in order:
        wins = [d.value for d in decisions.values() if (d.a, d.region) == (name, 0) or (d.b, d.region) == (name, 2)]
        if len(wins) == len(order) - 1:
            sentences.append(f"{name} is the best on {dataset}: better than each other algorithm with probability "
                             f"at least {_p(min(wins))} (Bayesian correlated t-test).")
            break
    else:
        sentences.append(f"No algorithm is clearly best on {dataset} (none is better than every other with "
                         f"probability above {level:g}).")
    equivalent = [d for d in decisions.values() if d.region == 1]
    if equivalent:
        sentences.append("Practically equivalent on it: " + "; ".join(f"{d.a} and {d.b} (P(rope) {_p(d.value)})"
                                                                      for d in equivalent) + ".")
    sentences += _clear_differences(decisions.values(), "correlated t-test")
    sentences.append("One data set: no ranking across data sets.")
    return sentences


# --- writing --------------------------------------------------------------------------------------------------

def _write(document: Document, directory: Path, formats, progressbar) -> dict[str, Path]:
    writers = {}
    if "md" in formats:
        writers[FILES["md"]] = lambda path: path.write_text(to_markdown(document, FIGURE_DIR), encoding="utf-8")
    figures = document.figures() if "md" in formats else document.linked_figures() if "html" in formats else []
    for figure in figures:
        name = f"{FIGURE_DIR}/{figure.stem}.png"
        if name in writers:
            raise ValueError(f"two figures would both be written to {directory / name}: rename an algorithm")
        writers[name] = functools.partial(lambda path, data: path.write_bytes(data), data=figure.png)
    if "html" in formats:
        writers[FILES["html"]] = lambda path: path.write_text(to_html(document, FIGURE_DIR), encoding="utf-8")
    if "tex" in formats:
        writers[FILES["tex"]] = lambda path: path.write_text(to_latex(document), encoding="utf-8")
    _say(progressbar, f"writing {len(writers)} files into {directory}")
    write_files({directory / name: writer for name, writer in writers.items()}, verbose=progressbar)
    return {name: directory / name for name in writers}
