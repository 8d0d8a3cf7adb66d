"""All pairs of algorithms on many data sets: the matrices the papers tabulate."""
from __future__ import annotations

import itertools
import warnings

import numpy as np
import pandas as pd
import xarray as xr

from .._args import as_generator, as_rope, check_count, check_probability_level
from .poisson_test import poisson_test
from .rank_tests import bayesian_sign_test, bayesian_signed_rank, wilcoxon_test
from .ttest import DegenerateWarning

TESTS = ("poisson", "wilcoxon", "signed_rank", "sign")


def compare_all_pairs(scores: xr.Dataset, *, rope=0.01, alpha=0.05, prior=None, draws=50_000,
                      random_seed=None) -> xr.Dataset:
    """Every ordered pair (row ``a``, column ``b``) of a scores Dataset, B - A as everywhere.

    Variables: ``p_b_majority`` = P(column better than row on a majority of data sets) (Poisson test);
    ``wilcoxon_pvalue`` (one-sided, column better); ``signed_rank_right`` and ``sign_right`` = posterior
    P(column better) of the Bayesian signed-rank and sign tests with the rope; and ``decision_<test>``,
    the algorithm each test declares better at ``alpha`` (``"none"`` if undecided, ``"rope"`` if equivalent).
    The Bayesian signed-rank and sign tests use the data sets' mean differences. Each pair uses the data sets
    where both have scores (and there the folds both have): ``n_datasets`` counts them, ``left_out`` names the
    others (comma-separated, "" if none).

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
    numbers = {v: np.full((k, k), np.nan) for v in ("p_b_majority", "wilcoxon_pvalue", "signed_rank_right",
                                                     "sign_right")}
    decisions = {t: np.full((k, k), "", dtype=object) for t in TESTS}
    counts, left_out = np.full((k, k), scores.sizes["dataset"]), np.full((k, k), "", dtype=object)
    with warnings.catch_warnings():  # point-mass data sets are part of the answer, not news here
        warnings.simplefilter("ignore", DegenerateWarning)
        for (i, a), (j, b) in itertools.combinations(enumerate(algos), 2):
            pair = (a, b)
            pt = poisson_test(scores, algorithms=pair, rope=rope, prior=prior, alpha=alpha)
            wil_b = wilcoxon_test(scores, algorithms=pair, alternative="greater").pvalue
            wil_a = wilcoxon_test(scores, algorithms=pair, alternative="less").pvalue
            sr = bayesian_signed_rank(scores, algorithms=pair, rope=rope, draws=draws, random_seed=rng)
            st = bayesian_sign_test(scores, algorithms=pair, rope=rope, draws=draws, random_seed=rng)
            numbers["p_b_majority"][i, j], numbers["p_b_majority"][j, i] = pt.p_b_majority, pt.p_a_majority
            numbers["wilcoxon_pvalue"][i, j], numbers["wilcoxon_pvalue"][j, i] = wil_b, wil_a
            numbers["signed_rank_right"][i, j], numbers["signed_rank_right"][j, i] = sr.p_right, sr.p_left
            numbers["sign_right"][i, j], numbers["sign_right"][j, i] = st.p_right, st.p_left
            counts[i, j] = counts[j, i] = pt.n_datasets
            left_out[i, j] = left_out[j, i] = ", ".join(pt.left_out)
            wilcoxon = b if wil_b < alpha else a if wil_a < alpha else "none"
            for test, verdict in zip(TESTS, (pt.decision, wilcoxon, sr.decision(alpha), st.decision(alpha))):
                decisions[test][i, j] = decisions[test][j, i] = verdict
    coords = {"a": algos, "b": algos}
    data = {name: (("a", "b"), values) for name, values in numbers.items()}
    data.update({f"decision_{t}": (("a", "b"), d.astype(str)) for t, d in decisions.items()})
    data.update(n_datasets=(("a", "b"), counts), left_out=(("a", "b"), left_out.astype(str)))
    return xr.Dataset(data, coords=coords, attrs={"rope": rope, "alpha": alpha, "n_datasets": scores.sizes["dataset"],
                                                  "orientation": "b - a: column minus row"})


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
