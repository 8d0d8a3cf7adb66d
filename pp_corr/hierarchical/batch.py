"""The hierarchical test of many pairs of algorithms in one call: the model is compiled once per shape and refitted
to each pair's data (:func:`pp_corr.hierarchical.fit._refittable`), so only the first pair pays for the compilation.

Each pair runs :func:`pp_corr.hierarchical.fit.hierarchical_test` with its convergence policy unchanged (a retry with
the robust settings, then the exact posterior), so a pair's result is the one ``hierarchical_test`` gives for the
same seed, draw for draw. Measured on uci54 with nutpie on 2 cores (benchmarks/bench_hierarchical_batch.py): about
9 s for the first pair, 0.8 s for each later one that converges at once.
"""
from __future__ import annotations

import itertools
import sys
import time

import xarray as xr

from . import fit
from .fit import HierarchicalResult

PER_PAIR = ("y", "algorithms", "names")  # hierarchical_test's arguments that each pair sets itself


def hierarchical_tests(scores, pairs=None, *, progress=True, **options) -> dict[tuple[str, str], HierarchicalResult]:
    """:func:`~pp_corr.hierarchical.fit.hierarchical_test` of each pair ``(a, b)`` (B - A) of ``scores``, a scores
    Dataset: ``pairs`` lists them (default: every pair of its algorithms, in their order), ``options`` are
    ``hierarchical_test``'s (``rope``, ``random_seed``, ``sampler``, ``method``, ...; the same for every pair).
    Returns ``{(a, b): result}`` in the order of ``pairs``. Pairs with the same number of data sets share one
    compiled model (per form), so with ``sampler="nutpie"`` only the first pair waits for a compilation.
    ``progress``: True writes a line per pair (its number, its time and how it was answered) to stderr, a callable
    takes each line instead, False is quiet.

    Every argument, every pair included, is checked before any fit.

    >>> from pp_corr import example_path, load_scores
    >>> scores = load_scores(example_path())
    >>> fits = hierarchical_tests(scores, [("logistic", "knn")], method="exact", draws=100, chains=2, random_seed=1,
    ...                           progress=False)
    >>> list(fits), fits["logistic", "knn"].names
    ([('logistic', 'knn')], ('logistic', 'knn'))
    """
    pairs = check_pairs(scores, pairs)
    set_per_pair = sorted(set(PER_PAIR) & set(options))
    if set_per_pair:
        raise TypeError(f"hierarchical_tests sets {', '.join(set_per_pair)} for each pair: leave it out (pairs "
                        "names the algorithms)")
    if not isinstance(progress, bool) and not callable(progress):
        raise TypeError(f"progress must be True, False or a callable taking each line, got {progress!r}")
    say = progress if callable(progress) else (lambda line: print(line, file=sys.stderr, flush=True)) if progress \
        else (lambda line: None)
    results = {}
    for number, (a, b) in enumerate(pairs, 1):
        start = time.perf_counter()
        # looked up at each call, so that a stand-in patched into pp_corr.hierarchical.fit is the one called
        results[a, b] = result = fit.hierarchical_test(scores, algorithms=(a, b), **options)
        how = ("not converged" if not result.converged else "exact posterior" if result.method == "exact"
               else f"MCMC, {len(result.attempts)} fit(s)")
        say(f"hierarchical model {number}/{len(pairs)}: {b} - {a}, {time.perf_counter() - start:.1f} s ({how})")
    return results


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
