"""The hierarchical test of many pairs of algorithms in one call, the pairs spread over the Dask layer
(:mod:`pp_corr.execution`: a local cluster by default, any cluster by its scheduler address).

Each pair runs :func:`pp_corr.hierarchical.fit.hierarchical_test` with the same options and seed, so a pair's result
is the one ``hierarchical_test`` gives alone, draw for draw, whatever the number of workers. With MCMC the model is
compiled once per shape in each process and refitted to each pair's data (:func:`pp_corr.hierarchical.fit._refittable`).
"""
from __future__ import annotations

import itertools
import sys
import time

import xarray as xr

from ..execution import check_execution, map_tasks
from . import fit
from .fit import HierarchicalResult

PER_PAIR = ("y", "algorithms", "names")  # hierarchical_test's arguments that each pair sets itself


def hierarchical_tests(scores, pairs=None, *, scheduler=None, workers=None, progressbar=True,
                       **options) -> dict[tuple[str, str], HierarchicalResult]:
    """:func:`~pp_corr.hierarchical.fit.hierarchical_test` of each pair ``(a, b)`` (B - A) of ``scores``, a scores
    Dataset: ``pairs`` lists them (default: every pair of its algorithms, in their order), ``options`` are
    ``hierarchical_test``'s (``rope``, ``random_seed``, ``method``, ...; the same for every pair). Returns
    ``{(a, b): result}`` in the order of ``pairs``.

    By default the pairs run one after another in this process, each pair's compiled kernels on every core (an
    exact posterior's draws are made when its ``idata`` is first used). ``workers=N`` (N > 1) spreads them as tasks
    over a local Dask cluster of N processes (:func:`pp_corr.execution.dask_client`), which compete for the cores of
    one machine, and ``scheduler`` over the cluster at that address, where more machines help; a task makes its
    pair's draws too. Results are the same for any number of workers (times:
    ``benchmarks/bench_hierarchical_default.py``).
    ``progressbar``: True writes a line per pair as it finishes (its number, its time and how it was answered) to
    stderr and draws each MCMC fit's progress bar, a callable takes each line instead (and no bar), False is quiet.

    Every argument, every pair included, is checked before any fit.

    >>> from pp_corr import example_path, load_scores
    >>> scores = load_scores(example_path())
    >>> fits = hierarchical_tests(scores, [("logistic", "knn")], draws=100, chains=2, random_seed=1,
    ...                           progressbar=False)
    >>> list(fits), fits["logistic", "knn"].names, fits["logistic", "knn"].method
    ([('logistic', 'knn')], ('logistic', 'knn'), 'exact')
    """
    pairs = check_pairs(scores, pairs)
    set_per_pair = sorted(set(PER_PAIR) & set(options))
    if set_per_pair:
        raise TypeError(f"hierarchical_tests sets {', '.join(set_per_pair)} for each pair: leave it out (pairs "
                        "names the algorithms)")
    if not isinstance(progressbar, bool) and not callable(progressbar):
        raise TypeError(f"progressbar must be True, False or a callable taking each line, got {progressbar!r}")
    scheduler, workers = check_execution(scheduler, workers)
    say = progressbar if callable(progressbar) else (lambda line: print(line, file=sys.stderr, flush=True)) \
        if progressbar else (lambda line: None)
    options = {**options, "progressbar": progressbar is True}  # each fit's bar
    if scheduler is None and (len(pairs) == 1 or workers in (None, 1)):
        finished = ((index, _one_pair(scores, a, b, options)) for index, (a, b) in enumerate(pairs))
    else:
        tasks = [(index, (scores, a, b, options)) for index, (a, b) in enumerate(pairs)]
        finished = map_tasks(_pair_task, tasks, random_seed=0, scheduler=scheduler, workers=workers,
                             progressbar=False)
    results = {}
    for number, (index, (result, seconds)) in enumerate(finished, 1):
        a, b = pairs[index]
        results[a, b] = result
        how = ("not converged" if not result.converged else "exact posterior" if result.method == "exact"
               else f"MCMC, {len(result.attempts)} fit(s)")
        say(f"hierarchical model {number}/{len(pairs)}: {b} - {a}, {seconds:.1f} s ({how})")
    return {pair: results[pair] for pair in pairs}


def _one_pair(scores, a, b, options) -> tuple[HierarchicalResult, float]:
    """The pair's result and its time in seconds."""
    start = time.perf_counter()
    # looked up at each call, so that a stand-in patched into pp_corr.hierarchical.fit is the one called
    result = fit.hierarchical_test(scores, algorithms=(a, b), **options)
    return result, time.perf_counter() - start


def _pair_task(scores, a, b, options, seed):
    """:func:`_one_pair` as a task of :func:`pp_corr.execution.map_tasks` (the pair's own ``random_seed`` option
    seeds it, not the task's ``seed``, so that its result is ``hierarchical_test``'s), its draws made in the worker
    (an exact posterior makes them when first used: here, in parallel, rather than one pair after another later)."""
    result, seconds = _one_pair(scores, a, b, options)
    result.idata  # noqa: B018 - made here
    return result, seconds


def check_pairs(scores, pairs=None) -> list[tuple[str, str]]:
    """``pairs`` of the algorithms of ``scores`` (a scores Dataset) as a list of ``(a, b)`` name pairs, checked:
    each two different algorithms of ``scores``, no pair twice (in either order), at least one; None gives every
    pair of its algorithms in their order.

    >>> from pp_corr import example_path, load_scores
    >>> check_pairs(load_scores(example_path()))[:2]
    [('naive_bayes', 'logistic'), ('naive_bayes', 'tree')]
    """
    if not isinstance(scores, xr.Dataset) or "algorithm" not in scores.dims:
        raise TypeError(f"scores must be a scores Dataset (pp_corr.load_scores), got {type(scores).__name__}")
    known = [str(name) for name in scores.algorithm.values]
    if pairs is None:
        pairs = list(itertools.combinations(known, 2))
    if isinstance(pairs, (str, bytes)) or not hasattr(pairs, "__iter__"):
        raise TypeError(f"pairs must be a list of (a, b) pairs of algorithms, got {pairs!r}")
    checked, seen = [], set()
    for pair in pairs:
        if isinstance(pair, (str, bytes)) or not hasattr(pair, "__len__") or len(pair) != 2:
            raise ValueError(f"pairs: each pair must be two algorithms (a, b), got {pair!r}")
        a, b = (str(name) for name in pair)
        unknown = [name for name in (a, b) if name not in known]
        if unknown:
            raise ValueError(f"pairs: {', '.join(map(repr, unknown))} not among the algorithms {known}")
        if a == b:
            raise ValueError(f"pairs: a pair needs two different algorithms, got ({a!r}, {b!r})")
        if frozenset((a, b)) in seen:
            raise ValueError(f"pairs: ({a!r}, {b!r}) is given twice (in either order)")
        seen.add(frozenset((a, b)))
        checked.append((a, b))
    if not checked:
        raise ValueError("pairs is empty: give at least one (a, b) pair, or None for every pair")
    return checked
