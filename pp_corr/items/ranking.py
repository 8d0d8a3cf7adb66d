"""k models on one benchmark: their mean scores' joint posterior, the ranking and the groups of models that cannot
be told apart at a level.

The k mean scores over the population of items share one Dirichlet posterior of item weights,
mu_m = sum_i w_i ybar_mi over the items every model has and a prior's pseudo-items, w ~ Dirichlet(1 for each item,
the pseudo-items' weights), so every pair's difference, P(best) and the ranks come from the same draws. The prior
weighs ``prior_strength`` items, as in :func:`pp_corr.compare_items`: for scores in [0, 1], 2k pseudo-items in
which one model scores 1 and the others 0, or one scores 0 and the others 1 (each pair's difference then sees
pseudo-items at -1, 0 and 1, symmetrically), so that a handful of items never makes a model surely best; for
continuous scores one pseudo-item on which every model scores the grand mean. With ``runs="seeds"`` each model's
mean also gets its runs' shift, N(0, s_run / R_m), s_run drawn once per draw from all models' run means
(:func:`pp_corr.items.variance.run_shift_draws`).

Groups: the models in order of posterior mean score; the first opens group 1, and each next model stays in the
current group unless the group's first model is better than it by more than the rope (``hi``) with probability at
least 1 - ``alpha`` - then it opens the next group. "Indistinguishable at this level" thus means "not separated
from the best model of its group".
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import xarray as xr

from .._args import as_generator, as_rope, check_choice, check_count, check_probability_level, check_real
from .comparison import RUN_KINDS
from .loading import load_items, one_benchmark
from .variance import run_shift_draws, two_way

_BLOCK = 4_000_000


def rank_items(items, *, benchmark=None, rope=None, alpha=0.05, runs="samples", prior_strength=1.0,
               draws=20_000, random_seed=None) -> pd.DataFrame:
    """The models of one benchmark (``benchmark``, by default the only one) ranked: posterior mean score and
    1 - ``alpha`` interval, P(best), expected rank and tie group (see the module docstring), best first.

    >>> rng = np.random.default_rng(0)
    >>> p = rng.uniform(0.2, 0.9, 500)
    >>> scores = {m: (rng.random(500) < np.clip(p + gap, 0, 1)).astype(int) for m, gap in
    ...           (("small", -0.1), ("medium", 0.0), ("medium-b", 0.005), ("large", 0.1))}
    >>> rank_items(scores, rope=0.01, random_seed=0)["group"].tolist()  # large and medium-b: not separated
    [1, 1, 2, 3]
    """
    items = items if isinstance(items, xr.Dataset) else load_items(items)
    check_choice("runs", runs, RUN_KINDS)
    alpha = check_probability_level("alpha", alpha)
    draws = check_count("draws", draws, minimum=100)
    lo, hi = as_rope(rope) or (0.0, 0.0)
    benchmark = one_benchmark(items, benchmark)
    models = [str(m) for m in items.model.values]
    if len(models) < 2:
        raise ValueError(f"the items hold {len(models)} model: ranking needs at least two")
    cube = items.score.sel(benchmark=benchmark).values  # (items, models, runs)
    shared = np.isfinite(cube).any(axis=2).all(axis=1)
    if shared.sum() < 2:
        raise ValueError(f"benchmark {benchmark!r}: {int(shared.sum())} item(s) have scores of every model")
    cube = cube[shared]
    rng = as_generator(random_seed)
    means = np.nanmean(cube, axis=2)
    pseudo, weights = _pseudo_items(means, items.attrs.get("score_kind", "continuous"),
                                    check_real("prior_strength", prior_strength, low=0))
    sample = joint_means(np.vstack([means, pseudo]), draws, rng,
                        np.concatenate([np.ones(len(means)), weights]))
    if runs == "seeds":
        summaries = [two_way(cube[:, m]) for m in range(len(models))]
        shift = run_shift_draws(summaries, draws, rng)
        sample += np.sqrt(shift[:, None] / np.array([s.runs for s in summaries])) * rng.standard_normal(sample.shape)
    order = np.argsort(-sample.mean(axis=0), kind="stable")
    ranks = (-sample).argsort(axis=1).argsort(axis=1) + 1
    groups, leader, group = [], order[0], 1
    for m in order:
        if (sample[:, leader] - sample[:, m] > hi).mean() >= 1 - alpha:
            group, leader = group + 1, m
        groups.append(group)
    confidence = 1 - alpha  # the intervals' level
    tail = (1 - confidence) / 2
    lower, upper = np.quantile(sample, [tail, 1 - tail], axis=0)
    best = np.bincount(sample.argmax(axis=1), minlength=len(models)) / draws
    percent = f"{round(100 * confidence, 6):g}%"
    return pd.DataFrame({"mean": sample.mean(axis=0)[order], f"{percent} lo": lower[order],
                         f"{percent} hi": upper[order], "P(best)": best[order],
                         "expected rank": ranks.mean(axis=0)[order], "group": groups},
                        index=pd.Index([models[m] for m in order], name="model"))


def _pseudo_items(means, score_kind, strength):
    """The prior's pseudo-items (rows of model scores) and their weights (see the module docstring)."""
    k = means.shape[1]
    if strength == 0:
        return np.empty((0, k)), np.empty(0)
    if score_kind == "continuous":
        return np.full((1, k), means.mean()), np.array([strength])
    one_high = np.eye(k)
    return np.vstack([one_high, 1 - one_high]), np.full(2 * k, strength / (2 * k))


def joint_means(means, draws, rng, weights=None) -> np.ndarray:
    """(draws, models) draws of sum_i w_i means[i, m], w ~ Dirichlet(``weights``; default 1 for every row),
    in blocks.

    >>> joint_means(np.array([[0.0, 1.0], [1.0, 1.0]]), 3, np.random.default_rng(0))[:, 1].tolist()
    [1.0, 1.0, 1.0]
    """
    weights = np.ones(len(means)) if weights is None else np.asarray(weights, dtype=float)
    out = np.empty((draws, means.shape[1]))
    block = max(1, _BLOCK // len(means))
    for start in range(0, draws, block):
        size = min(block, draws - start)
        gammas = rng.standard_gamma(weights, size=(size, len(means)))
        out[start:start + size] = gammas @ means / gammas.sum(axis=1, keepdims=True)
    return out
