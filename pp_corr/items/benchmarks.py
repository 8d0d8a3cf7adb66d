"""Many benchmarks: item-level scores as the per-fold scores of data sets, so that every test over data sets (the
hierarchical model with its new-benchmark probabilities, the signed-rank and Poisson tests, Plackett-Luce) reads
them. A benchmark is a data set, a model an algorithm, an item a fold (its score averaged over the model's runs);
the items of a benchmark share nothing but the benchmark, so rho = 0 - unless the runs are training seeds, whose
shift every item of a run shares: then rho is the shifts' share of the variance of one item's difference, which
makes the intraclass model's variance of the mean (1 - rho) s^2 / I + rho s^2 equal to the item part plus the run
shifts' part.
"""
from __future__ import annotations

import warnings

import numpy as np
import xarray as xr

from .._args import check_choice
from .comparison import RUN_KINDS
from .loading import benchmark_names
from .variance import two_way


def benchmark_scores(items: xr.Dataset, runs="samples") -> xr.Dataset:
    """The items as a scores Dataset of :func:`pp_corr.load_scores`: ``dataset`` = benchmark, ``algorithm`` =
    model, ``fold`` = item (numbered within its benchmark; NaN pads the shorter ones), one run holding each
    model's mean over its runs, and ``rho`` 0 (``runs="samples"``) or the run shifts' share estimated from the
    replication (``runs="seeds"``, at least two runs of each model; the variance of the shifts from all models'
    run means, by moments).

    >>> import pandas as pd
    >>> from pp_corr.items import load_items
    >>> table = pd.DataFrame({"benchmark": ["x"] * 4 + ["y"] * 6, "item": [1, 2, 1, 2, 1, 2, 3, 1, 2, 3],
    ...                       "model": list("AABB") + list("AAABBB"), "score": [1, 0, 1, 1, 0, 1, 1, 1, 1, 0]})
    >>> items = load_items(table)
    >>> scores = benchmark_scores(items)
    >>> scores.score.dims, scores.sizes["fold"], scores.rho.values.tolist()
    (('dataset', 'algorithm', 'run', 'fold'), 3, [0.0, 0.0])
    """
    check_choice("runs", runs, RUN_KINDS)
    names = benchmark_names(items)
    blocks, rhos = [], []
    for name in names:
        cube = items.score.sel(benchmark=name).values  # (items, models, runs)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # an item a model has no run of: NaN
            means = np.nanmean(cube, axis=2)
        blocks.append(means)
        rhos.append(_run_share(cube, name) if runs == "seeds" else 0.0)
    longest = max(len(b) for b in blocks)
    score = np.full((len(names), items.sizes["model"], 1, longest), np.nan)
    for k, block in enumerate(blocks):
        score[k, :, 0, :len(block)] = block.T
    return xr.Dataset(
        {"score": (("dataset", "algorithm", "run", "fold"), score), "rho": ("dataset", np.array(rhos))},
        coords={"dataset": names, "algorithm": [str(m) for m in items.model.values], "run": [1],
                "fold": np.arange(1, longest + 1)},
        attrs={"description": f"item-level scores: items as folds, each model's runs averaged (runs: {runs})",
               "higher_is_better": True, "score_sense": "the scores as given (higher is better)"})


def _run_share(cube, name) -> float:
    """The run shifts' share of one item difference's variance on one benchmark, by moments: the shifts'
    variance s_run (pooled over the models) times 2 / R against the item differences' variance."""
    summaries = [two_way(cube[:, m]) for m in range(cube.shape[1])]
    short = [m for m, s in enumerate(summaries) if s.runs < 2]
    if short:
        raise ValueError(f"benchmark {name!r}: runs='seeds' needs at least two runs of each model; model number "
                         f"{short[0] + 1} has {summaries[short[0]].runs}")
    shift = np.mean([s.components["run"] for s in summaries]) * 2 / np.mean([s.runs for s in summaries])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        means = np.nanmean(cube, axis=2)
    spread = np.nanmean([np.nanvar(means[:, m] - means[:, 0], ddof=1) for m in range(1, cube.shape[1])])
    return float(shift / (shift + spread)) if shift + spread > 0 else 0.0
