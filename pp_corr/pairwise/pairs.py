"""All pairs of algorithms on many data sets: the matrices the papers tabulate.

:data:`TESTS` is the one table of the tests they hold: :func:`compare_all_pairs` runs each on every pair,
:func:`format_pairs` prints each one's verdicts, :func:`pp_corr.plots.plot_pairs` draws any of them (``pp-corr
compare --all-pairs --plots`` one figure each) and the report's matrix is :func:`pairs_table` of one of them. A test
added to :data:`TESTS` (a :class:`PairTest`) appears in all of them.
"""
from __future__ import annotations

import itertools
import warnings
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd
import xarray as xr

from .._args import as_generator, as_rope, check_count, check_probability_level
from ..results import Result
from .incomplete import common_datasets
from .poisson_test import poisson_test
from .frequentist_rank_tests import wilcoxon_test
from .rank_tests import bayesian_sign_test, bayesian_signed_rank
from .ttest import DegenerateWarning


@dataclass(frozen=True)
class PairTest:
    """One test of the all-pairs table (an entry of :data:`TESTS`), as its consumers need it.

    ``run(scores, pair, *, rope, alpha, prior, draws, rng)`` tests the pair (a, b) of a scores Dataset, B - A, and
    returns its result; ``numbers(result)`` gives ``{table variable: (value at row a, column b; at row b, column
    a)}``; ``decision(result, alpha)`` the algorithm the test declares better, ``"rope"`` (practically equivalent)
    or ``"none"``. For :func:`pp_corr.plots.plot_pairs`: ``plotted``, the variable it reads, P(column better)
    unless ``shown`` is None (then a p-value, the smaller one-sided one shown in the cell); ``shown``, what the
    probabilities are (words after "P(column better)"); ``equivalence``, whether the test can find a pair
    practically equivalent.

    >>> TESTS["signed_rank"].plotted, TESTS["wilcoxon"].shown is None
    ('signed_rank_right', True)
    """

    run: Callable
    numbers: Callable
    decision: Callable
    plotted: str
    shown: str | None
    equivalence: bool


def _poisson(scores, pair, *, rope, alpha, prior, draws, rng):
    return poisson_test(scores, algorithms=pair, rope=rope, prior=prior, alpha=alpha)


@dataclass(frozen=True)
class OneSided(Result):
    """The two one-sided p-values of a pair (a, b): ``b`` (b better, "greater") and ``a`` (a better, "less"), the
    all-pairs table's Wilcoxon test.

    >>> res = OneSided(("A", "B"), 0.01, 0.99)
    >>> res.decision(), res.to_dict()
    ('B', {'a': 'A', 'b': 'B', 'pvalue_b_better': 0.01, 'pvalue_a_better': 0.99, 'decision': 'B'})
    >>> print(res)
    one-sided p-values: B better 0.01, A better 0.99; decision at alpha = 0.05: B
    """

    names: tuple[str, str]
    b: float
    a: float

    def _decide(self, alpha) -> str:
        """The better algorithm at ``alpha`` (b's p-value first), else ``"none"``."""
        return self.names[1] if self.b < alpha else self.names[0] if self.a < alpha else "none"

    def to_dict(self) -> dict:
        """The pair, the two p-values and the decision at 0.05, as plain values.

        >>> OneSided(("A", "B"), 0.5, 0.5).to_dict()["decision"]
        'none'
        """
        return {"a": self.names[0], "b": self.names[1], "pvalue_b_better": float(self.b),
                "pvalue_a_better": float(self.a), "decision": self.decision()}

    def to_frame(self) -> pd.DataFrame:
        """:meth:`to_dict` as one row.

        >>> OneSided(("A", "B"), 0.5, 0.5).to_frame().shape
        (1, 5)
        """
        return pd.DataFrame([self.to_dict()])

    def summary(self) -> str:
        """The two p-values and the decision at 0.05, in words.

        >>> OneSided(("A", "B"), 0.5, 0.5).summary().endswith("none")
        True
        """
        a, b = self.names
        return (f"one-sided p-values: {b} better {self.b:.4g}, {a} better {self.a:.4g}; decision at alpha = "
                f"{self.alpha:g}: {self.decision()}")


def _wilcoxon(scores, pair, *, rope, alpha, prior, draws, rng):
    return OneSided(pair, wilcoxon_test(scores, algorithms=pair, alternative="greater").pvalue,
                    wilcoxon_test(scores, algorithms=pair, alternative="less").pvalue)


def _signed_rank(scores, pair, *, rope, alpha, prior, draws, rng):
    return bayesian_signed_rank(scores, algorithms=pair, rope=rope, draws=draws, random_seed=rng)


def _sign(scores, pair, *, rope, alpha, prior, draws, rng):
    return bayesian_sign_test(scores, algorithms=pair, rope=rope, draws=draws, random_seed=rng)


def _regions(variable):
    """``numbers`` of a test answering with regions (P(column better) = p_right)."""
    return lambda result: {variable: (result.p_right, result.p_left)}


def _at_alpha(result, alpha) -> str:
    return result.decision(alpha)


TESTS = {  # name -> PairTest, in the order of the table's variables, the printed matrices and the figures
    "poisson": PairTest(_poisson, lambda result: {"p_b_majority": (result.p_b_majority, result.p_a_majority)},
                        _at_alpha, "p_b_majority", "on a majority of data sets", False),
    "wilcoxon": PairTest(_wilcoxon, lambda result: {"wilcoxon_pvalue": (result.b, result.a)}, _at_alpha,
                         "wilcoxon_pvalue", None, False),
    "signed_rank": PairTest(_signed_rank, _regions("signed_rank_right"), _at_alpha, "signed_rank_right",
                            "(posterior means)", True),
    "sign": PairTest(_sign, _regions("sign_right"), _at_alpha, "sign_right", "(posterior means)", True),
}


def compare_all_pairs(scores: xr.Dataset, *, rope=0.01, alpha=0.05, prior=None, draws=50_000,
                      random_seed=None) -> xr.Dataset:
    """Every ordered pair (row ``a``, column ``b``) of a scores Dataset, B - A as everywhere, by every test of
    :data:`TESTS`.

    Variables: ``p_b_majority`` = P(column better than row on a majority of data sets) (Poisson test);
    ``wilcoxon_pvalue`` (one-sided, column better); ``signed_rank_right`` and ``sign_right`` = posterior
    P(column better) of the Bayesian signed-rank and sign tests with the rope; and ``decision_<test>``,
    the algorithm each test declares better at ``alpha`` (``"none"`` if undecided, ``"rope"`` if equivalent). The pairs
    are tested in turn, each by the tests in their order, all drawing from one generator. The Bayesian signed-rank
    and sign tests use the data sets' mean differences. Each pair uses the data sets where both have scores (and
    there the folds both have): ``n_datasets`` counts them, ``left_out`` names the others (comma-separated, "" if
    none).

    >>> from pp_corr.data.scores import example_path
    >>> from pp_corr import load_scores
    >>> table = compare_all_pairs(load_scores(example_path()), draws=2000, random_seed=0)
    >>> table.p_b_majority.dims, table.sizes["a"]
    (('a', 'b'), 4)
    """
    algos = [str(a) for a in scores.algorithm.values]
    if len(algos) < 2:
        raise ValueError(f"compare_all_pairs needs at least 2 algorithms, the scores hold {algos}")
    if scores.sizes["dataset"] < 2:
        raise ValueError("compare_all_pairs compares algorithms across data sets, and the scores hold one "
                         f"({scores.dataset.values[0]}): use correlated_ttest on a single data set")
    check_probability_level("alpha", alpha)
    check_count("draws", draws)
    as_rope(rope)
    rng = as_generator(random_seed)
    k = len(algos)
    results = {name: {} for name in TESTS}
    counts, left_out = np.full((k, k), scores.sizes["dataset"]), np.full((k, k), "", dtype=object)
    with warnings.catch_warnings():  # point-mass data sets are part of the answer, not news here
        warnings.simplefilter("ignore", DegenerateWarning)
        for (i, a), (j, b) in itertools.combinations(enumerate(algos), 2):
            for name, test in TESTS.items():
                results[name][a, b] = test.run(scores, (a, b), rope=rope, alpha=alpha, prior=prior, draws=draws,
                                               rng=rng)
            kept, gone = common_datasets(scores, a, b)
            counts[i, j] = counts[j, i] = kept.sizes["dataset"]
            left_out[i, j] = left_out[j, i] = ", ".join(gone)
    table = pairs_table(results, algos, alpha, {"rope": rope, "alpha": alpha, "n_datasets": scores.sizes["dataset"]})
    return table.assign(n_datasets=(("a", "b"), counts), left_out=(("a", "b"), left_out.astype(str)))


def pairs_table(results, order, alpha, attrs) -> xr.Dataset:
    """The all-pairs table of ``results`` (``{test name in TESTS: {(a, b): its result}}``, a pair once): per test
    its numbers (:attr:`PairTest.numbers`, row a and column b, and mirrored) and ``decision_<test>`` at ``alpha``
    ("" on the diagonal and for pairs without a result), rows and columns in ``order``; ``attrs`` are the table's,
    with the orientation added.

    >>> import pp_corr
    >>> scores = pp_corr.load_scores(pp_corr.example_path())
    >>> result = pp_corr.bayesian_sign_test(scores, algorithms=("tree", "knn"), rope=0.01, random_seed=0)
    >>> table = pairs_table({"sign": {("tree", "knn"): result}}, ["tree", "knn"], 0.05, {"alpha": 0.05})
    >>> float(table.sign_right.sel(a="tree", b="knn")) == result.p_right, str(table.decision_sign.values[0, 1])
    (True, 'none')
    """
    k = len(order)
    where = {name: i for i, name in enumerate(order)}
    numbers, decisions = {}, {}
    for name, by_pair in results.items():
        decisions[name] = np.full((k, k), "", dtype=object)
        for (a, b), result in by_pair.items():
            i, j = where[a], where[b]
            for variable, (ab, ba) in TESTS[name].numbers(result).items():
                values = numbers.setdefault(variable, np.full((k, k), np.nan))
                values[i, j], values[j, i] = ab, ba
            decisions[name][i, j] = decisions[name][j, i] = TESTS[name].decision(result, alpha)
    data = {variable: (("a", "b"), values) for variable, values in numbers.items()}
    data.update({f"decision_{name}": (("a", "b"), d.astype(str)) for name, d in decisions.items()})
    return xr.Dataset(data, coords={"a": list(order), "b": list(order)},
                      attrs={**attrs, "orientation": "b - a: column minus row"})


def pairs_order(table: xr.Dataset, order=None) -> list[str]:
    """``order`` checked against an all-pairs table (each of its algorithms once), or the table's own order.

    >>> from pp_corr import load_scores, example_path
    >>> pairs_order(compare_all_pairs(load_scores(example_path()), draws=200, random_seed=0))
    ['naive_bayes', 'logistic', 'tree', 'knn']
    """
    names = [str(v) for v in table.a.values]
    order = names if order is None else [str(v) for v in order]
    if sorted(order) != sorted(names):
        raise ValueError(f"order must list each algorithm of the table once ({names}), got {order}")
    return order


def format_pairs(table: xr.Dataset, order=None) -> str:
    """The all-pairs matrices as text: P(column better on a majority) and each test's verdicts, rows and columns
    in ``order`` (by default the table's; :func:`pp_corr.ranking.order_by_ranking` gives the order of the
    algorithms' average ranks, as ``pp-corr compare --all-pairs`` prints them).

    >>> from pp_corr import load_scores, example_path
    >>> text = format_pairs(compare_all_pairs(load_scores(example_path()), draws=2000, random_seed=0))
    >>> text.splitlines()[0]
    'P(column better than row on a majority of 4 data sets), Poisson test, rope 0.01:'

    A pair that leaves out data sets (where the two do not both have scores) is listed at the end.
    """
    needed = {"p_b_majority", "n_datasets", "left_out", *(f"decision_{t}" for t in TESTS)}
    if not isinstance(table, xr.Dataset) or not needed <= set(table.data_vars):
        raise TypeError(f"table must be the xarray Dataset compare_all_pairs returns, got {type(table).__name__}")
    table = table.sel(a=pairs_order(table, order), b=pairs_order(table, order))
    frame = table.p_b_majority.to_pandas()
    gaps = _gap_lines(table)
    fewer = " (fewer for the pairs listed at the end)" if gaps else ""
    parts = [f"P(column better than row on a majority of {table.attrs['n_datasets']} data sets{fewer}), "
             f"Poisson test, rope {table.attrs['rope']}:",
             frame.map(lambda v: "" if np.isnan(v) else f"{v:.3f}").to_string()]
    for test in TESTS:
        verdicts = pd.DataFrame(table[f"decision_{test}"].values, index=frame.index, columns=frame.columns)
        parts += [f"\nBetter of the pair at alpha = {table.attrs['alpha']} ({test} test):", verdicts.to_string()]
    return "\n".join(parts + gaps)


def _gap_lines(table: xr.Dataset) -> list[str]:
    """The lines naming, per pair, the data sets it leaves out (none: an empty list)."""
    names = [str(v) for v in table.a.values]
    lines = [f"  {a} and {b}: {_count(table.n_datasets.values[i, j])} used, left out: "
             f"{table.left_out.values[i, j]}"
             for (i, a), (j, b) in itertools.combinations(enumerate(names), 2) if table.left_out.values[i, j]]
    return ["\nData sets left out (a pair uses the data sets where both have scores):", *lines] if lines else []


def _count(n) -> str:
    return f"{int(n)} data set{'s' * (int(n) != 1)}"
