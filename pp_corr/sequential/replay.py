"""Replay recorded scores in order and stop as soon as the rules allow: :func:`sequential_test`."""
from __future__ import annotations

import sys

import numpy as np
import pandas as pd
import xarray as xr

from .._args import as_rope, check_choice, check_count, check_probability_level
from ..data.scores import differences, mean_differences, pick_algorithms
from ..execution import task_seed
from ..hierarchical.exact import exact_posterior
from ..hierarchical.fit import exact_arguments
from ..hierarchical.preparation import prepare_hierarchical
from ..pairwise.poisson_test import poisson_test
from ..pairwise.rank_tests import bayesian_signed_rank
from .result import SequentialResult
from .rules import decide, region_label
from .runs import replay_runs


def sequential_test(scores, algorithms=None, *, over="runs", rope=0.01, alpha=0.05, futility=0.05,
                    max_runs=None, min_runs=2, min_datasets=5, order=None, test="signed_rank", rho=None,
                    simulations=400, draws=5000, random_seed=None, progressbar=False) -> SequentialResult:
    """Replay recorded scores step by step and stop when the rules allow (docs/theory.md, section 10).

    ``scores`` is a scores Dataset (``algorithms=(a, b)``) or differences B - A shaped ``(runs, folds)`` (one
    data set) or ``(q, runs, folds)``, with ``rho`` (default 1/folds, or the Dataset's).

    ``over="runs"``: on each data set, runs in their order, the correlated t-test after each run from
    ``min_runs`` on; it stops for a decision when a region's probability reaches 1 - ``alpha``, for futility
    when even the floor of infinitely many runs leaves every region below 1 - ``alpha`` or when the predictive
    probability that ``max_runs`` runs (default: all recorded) decide is below ``futility`` (``simulations``
    completions, seeded), else when the budget is exhausted.

    ``over="datasets"``: data sets in ``order`` (names or positions) or a random order seeded by
    ``random_seed``, at least ``min_datasets`` before any stop; after each data set the ``test`` across data
    sets ("signed_rank": :func:`pp_corr.bayesian_signed_rank` with the rope, its probability that a region is the
    largest, ``draws`` draws; "poisson": :func:`pp_corr.poisson_test`, majorities only, no rope region;
    "hierarchical": the probability that each region is the largest for a new data set under the model of
    :func:`pp_corr.hierarchical_test`, from its exact posterior's quadrature (deterministic: no draws, no seed),
    a few seconds a step, a line on stderr per step with ``progressbar=True``) stops when a region reaches
    1 - ``alpha``.

    >>> res = sequential_test([[0.02, 0.03, 0.01], [0.03, 0.02, 0.02], [0.02, 0.03, 0.03]], rope=0.005)
    >>> res.runs_used.tolist(), res.decision()
    ([2], ('B',))
    """
    over = check_choice("over", over, ("runs", "datasets"))
    test = check_choice("test", test, ("signed_rank", "poisson", "hierarchical"))
    alpha = check_probability_level("alpha", alpha)
    futility = check_probability_level("futility", futility)
    rope = as_rope(rope)
    min_runs, min_datasets = check_count("min_runs", min_runs, minimum=1), check_count("min_datasets", min_datasets)
    diff, rho, names, datasets = _differences(scores, algorithms, rho)
    if over == "runs":
        max_runs = diff.shape[1] if max_runs is None else check_count("max_runs", max_runs)
        if max_runs > diff.shape[1]:
            raise ValueError(f"max_runs={max_runs} but the scores hold {diff.shape[1]} runs")
        if not 1 <= min_runs <= max_runs or min_runs * diff.shape[2] < 2:
            raise ValueError(f"min_runs must be between 1 and max_runs={max_runs} (2 folds at least), "
                             f"got {min_runs}")
        rows = [replay_runs(diff[i], rho[i], rope, alpha, futility, min_runs, max_runs, simulations,
                           task_seed(random_seed, i), names) for i in range(len(diff))]
        outcomes = pd.DataFrame([r[0] for r in rows], index=pd.Index(datasets, name="dataset"))
        history = pd.concat([r[1] for r in rows], keys=datasets, names=["dataset"])
        return SequentialResult("runs", names, rope, alpha, futility, "correlated t-test", outcomes, history)
    order = _order(order, datasets, random_seed)
    if min_datasets > len(order):
        raise ValueError(f"min_datasets={min_datasets} but the scores hold {len(order)} data sets")
    outcome, history = _over_datasets(diff[order], rho[order], [datasets[i] for i in order], rope, alpha, test,
                                      min_datasets, draws, random_seed, names, progressbar)
    label = {"signed_rank": "Bayesian signed-rank test", "poisson": "Poisson test",
             "hierarchical": "hierarchical model (exact posterior)"}[test]
    return SequentialResult("datasets", names, rope, alpha, futility, label, pd.DataFrame([outcome]), history)


def _differences(scores, algorithms, rho):
    """(differences (q, runs, folds), rho per data set, names, data set names) from a Dataset or an array."""
    if isinstance(scores, xr.Dataset):
        a, b = pick_algorithms(scores, algorithms)
        diff = differences(scores, a, b).transpose("dataset", "run", "fold")
        rho = scores.rho.values if rho is None else np.broadcast_to(rho, diff.shape[:1])
        return diff.values, np.asarray(rho, dtype=float), (a, b), [str(d) for d in diff.dataset.values]
    diff = np.asarray(scores, dtype=float)
    if diff.ndim == 2:
        diff = diff[None]
    if diff.ndim != 3 or diff.shape[1] < 1 or diff.shape[2] < 1:
        raise ValueError(f"scores must be a scores Dataset or differences shaped (runs, folds) or "
                         f"(q, runs, folds), got shape {np.shape(scores)}")
    rho = np.broadcast_to(1 / diff.shape[2] if rho is None else rho, diff.shape[:1]).astype(float)
    names = tuple(algorithms) if algorithms is not None else ("A", "B")
    return diff, rho, names, [f"D{i + 1}" for i in range(len(diff))]


def _order(order, datasets, random_seed):
    """Positions of the data sets in the order they are added."""
    if order is None:
        return np.random.default_rng(random_seed).permutation(len(datasets))
    lookup = {name: i for i, name in enumerate(datasets)}
    positions = [lookup.get(o, o) if isinstance(o, str) else o for o in order]
    if sorted(positions) != list(range(len(datasets))):
        raise ValueError(f"order must name (or number) every data set once, got {list(order)[:5]}...")
    return np.asarray(positions)


def _over_datasets(diff, rho, datasets, rope, alpha, test, min_datasets, draws, random_seed, names, progressbar):
    """The benchmark's replay over data sets in the given order: (outcome row, history frame)."""
    def regions(k):
        if test == "signed_rank":
            z = mean_differences(diff[:k].reshape(k, -1))[0]
            res = bayesian_signed_rank(z, rope=rope, draws=draws, random_seed=task_seed(random_seed, k))
            return tuple(float(w) for w in res.wins)
        if test == "hierarchical":
            if progressbar:
                print(f"\rsequential hierarchical test: {k} of {len(diff)} data sets", end="", file=sys.stderr,
                      flush=True)
            data = prepare_hierarchical(diff[:k].reshape(k, -1), rho[:k], None, None, None, None)
            args, kwargs = exact_arguments(data, "current", {}, rope or (0.0, 0.0))
            post = exact_posterior(*args, **kwargs)
            return post.win_left, post.win_rope, post.win_right
        res = poisson_test(diff[:k].reshape(k, -1), rho=rho[:k], rope=rope)
        return res.p_a_majority, np.nan, res.p_b_majority

    q = len(diff)
    full = decide(regions(q), alpha)
    records = []
    for k in range(min_datasets, q + 1):
        p = regions(k)
        records.append({"datasets": k, "added": datasets[k - 1], "p_left": p[0], "p_rope": p[1], "p_right": p[2]})
        decision = decide(p, alpha)
        if decision != "none":
            reason = f"{region_label(decision, names)} = {np.nanmax(p):.3g} >= {1 - alpha:g} after {k} of {q} data sets"
            break
    else:
        reason = f"all {q} data sets seen and every region below {1 - alpha:g}"
    if progressbar and test == "hierarchical":
        print(file=sys.stderr)
    outcome = {"used": k, "budget": q, "decision": decision, "reason": reason, "full_decision": full}
    return outcome, pd.DataFrame(records).set_index("datasets")
