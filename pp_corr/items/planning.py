"""How many items (and runs) a comparison needs: the assurance of a design - the probability that
:func:`pp_corr.items.compare_items` reaches a decision (a region with posterior probability >= 1 - ``alpha``) - by
simulating that design from a pilot benchmark.

The pilot's item differences d_i (on the items both models scored in every one of its R_p runs) are
delta_i + noise, var(d) = tau^2 + w / R_p, where w = w_A + w_B is the variance of one answer about its item's mean
(pooled within items over the runs) and tau^2 the spread of the items' true differences. A simulated benchmark of
I items and R runs draws I pilot items with replacement and gives each the difference
``difference`` + (d_i - mean d) sqrt(tau^2 / var(d)) + N(0, w / R): the items keep the shape of their spread, and
the answers' noise is that of R runs. With R = R_p it is the pilot's d_i themselves, moved to ``difference``
(the bootstrap, nothing estimated). Each simulated benchmark is compared as the real one would be, and the
assurance is the share that decide (with its Monte Carlo error). Runs are taken to resample answers
(``runs="samples"``); the pilot needs two runs or more to plan another number of runs.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import xarray as xr

from .._args import as_generator, as_rope, check_count, check_probability_level, check_real
from .comparison import bootstrap_means, pick_models, pseudo_items
from .loading import load_items, one_benchmark


@dataclass(frozen=True, repr=False)
class ItemPlan:
    """The assurance of each design (``table``: items, runs, P(decide B better), P(decide rope),
    P(decide A better), P(no decision), assurance and its Monte Carlo standard error)."""

    table: pd.DataFrame
    names: tuple[str, str]
    difference: float
    rope: tuple[float, float] | None
    alpha: float

    def smallest(self, assurance=0.8) -> pd.Series | None:
        """The first design (fewest items, then runs) whose assurance reaches ``assurance``; None if none does.

        >>> table = pd.DataFrame({"items": [100, 200], "runs": [1, 1], "assurance": [0.5, 0.9]})
        >>> int(ItemPlan(table, ("A", "B"), 0.1, None, 0.05).smallest(0.8)["items"])
        200
        """
        check_probability_level("assurance", assurance)
        reached = self.table[self.table["assurance"] >= assurance]
        return None if reached.empty else reached.sort_values(["items", "runs"]).iloc[0]

    def plot(self, target=0.8, ax=None):
        """Assurance against items, a line per number of runs (:func:`pp_corr.plots.plot_assurance`).

        >>> table = pd.DataFrame({"items": [100, 200], "runs": [1, 1], "assurance": [0.5, 0.9], "mc error": 0.05})
        >>> ItemPlan(table, ("A", "B"), 0.1, None, 0.05).plot().get_xlabel()
        'items'
        """
        from ..plots import plot_assurance

        return plot_assurance(self, target=target, ax=ax)

    def __repr__(self):
        a, b = self.names
        with pd.option_context("display.width", 160, "display.float_format", "{:.3f}".format):
            return (f"Assurance of {b} - {a} = {self.difference:+g} reaching P >= {1 - self.alpha:g} for a region "
                    f"(rope {self.rope}), by simulation from the pilot\n{self.table.to_string(index=False)}")


def plan_items(pilot, models=None, *, items, runs=None, difference, rope=None, alpha=0.05, simulations=400,
               prior_strength=1.0, draws=2000, benchmark=None, random_seed=None) -> ItemPlan:
    """The assurance of designs of ``items`` items (a number or a list) and ``runs`` runs (default: the pilot's),
    for a true mean difference B - A of ``difference``, from a ``pilot`` (a Dataset of
    :func:`pp_corr.load_items` or anything it reads; ``benchmark`` chooses one of its benchmarks, by default its
    only one). ``simulations`` benchmarks per design, each compared with ``draws`` posterior draws.

    >>> rng = np.random.default_rng(0)
    >>> pilot = {"A": rng.integers(0, 2, (60, 2)), "B": rng.integers(0, 2, (60, 2))}
    >>> plan = plan_items(pilot, items=[100, 400], difference=0.1, simulations=50, random_seed=1)
    >>> plan.table[["items", "runs"]].values.tolist()
    [[100, 2], [400, 2]]
    >>> bool(plan.table.assurance.iloc[1] > plan.table.assurance.iloc[0])
    True
    """
    pilot = pilot if isinstance(pilot, xr.Dataset) else load_items(pilot)
    a, b = pick_models(pilot, models)
    cube = _pilot_cube(pilot, (a, b), benchmark)
    pilot_runs = cube.shape[2]
    designs = [(check_count("items", i, minimum=2), check_count("runs", r))
               for i in np.atleast_1d(items) for r in np.atleast_1d(pilot_runs if runs is None else runs)]
    if pilot_runs == 1 and any(r != 1 for _, r in designs):
        raise ValueError("runs=: the pilot has one run, which cannot tell the noise within items from their spread; "
                         "plan items only, or give a pilot of two runs or more")
    difference = check_real("difference", difference)
    rope = as_rope(rope)
    alpha = check_probability_level("alpha", alpha)
    simulations = check_count("simulations", simulations)
    prior = pseudo_items(pilot.attrs.get("score_kind", "continuous"), check_real("prior_strength", prior_strength,
                                                                                  low=0))
    rng = as_generator(random_seed)
    d = cube[:, 1].mean(axis=1) - cube[:, 0].mean(axis=1)
    within = within_item_variance(cube) if pilot_runs > 1 else 0.0
    rows = [[n_items, n_runs, *_assurance(_simulator(d, within, pilot_runs, n_runs, difference, n_items), rope,
                                          alpha, simulations, prior, draws, rng)] for n_items, n_runs in designs]
    table = pd.DataFrame(rows, columns=["items", "runs", f"P(decide {b} better)", "P(decide rope)",
                                        f"P(decide {a} better)", "P(no decision)", "assurance", "mc error"])
    return ItemPlan(table, (a, b), difference, rope, alpha)


def _pilot_cube(pilot, pair, benchmark) -> np.ndarray:
    """The pilot's scores of the pair (items, 2, runs) on the items both models have in every run."""
    benchmark = one_benchmark(pilot, benchmark)
    cube = pilot.score.sel(benchmark=benchmark, model=list(pair)).values
    cube = cube[:, :, np.isfinite(cube).any(axis=(0, 1))]
    complete = np.isfinite(cube).all(axis=(1, 2))
    if complete.sum() < 2:
        raise ValueError(f"benchmark {benchmark!r}: {int(complete.sum())} item(s) of the pilot have scores of both "
                         "models in every run; at least 2 are needed")
    return cube[complete]


def within_item_variance(cube) -> float:
    """w = w_A + w_B: each model's variance of one answer about its item's mean, pooled over the items of
    ``cube`` (items, models, runs), with items x (runs - 1) degrees of freedom.

    >>> within_item_variance(np.array([[[0.0, 1.0], [1.0, 1.0]], [[1.0, 1.0], [0.0, 1.0]]]))  # 0.25 each
    0.5
    """
    deviations = cube - cube.mean(axis=2, keepdims=True)
    return float((deviations ** 2).sum(axis=(0, 2)).sum() / (cube.shape[0] * (cube.shape[2] - 1)))


def _simulator(d, within, pilot_runs, runs, difference, n_items):
    """A function of a Generator giving one simulated benchmark's item differences (see the module docstring)."""
    moved = d - d.mean()
    if runs == pilot_runs:
        return lambda rng: difference + moved[rng.integers(0, len(d), n_items)]
    total = moved.var()
    spread = max(total - within / pilot_runs, 0.0)
    shrunk = moved * np.sqrt(spread / total) if total > 0 else moved
    noise = np.sqrt(within / runs)
    return lambda rng: difference + shrunk[rng.integers(0, len(d), n_items)] + noise * rng.standard_normal(n_items)


def _assurance(simulate, rope, alpha, simulations, prior, draws, rng) -> list:
    """The shares of simulated benchmarks deciding B better, rope, A better, nothing; the assurance and its
    Monte Carlo error."""
    lo, hi = (0.0, 0.0) if rope is None else rope
    decided = np.zeros(4)
    for _ in range(simulations):
        sample = bootstrap_means(simulate(rng), draws, rng, prior)
        p = np.array([(sample > hi).mean(), ((sample >= lo) & (sample <= hi)).mean(), (sample < lo).mean()])
        decided[np.argmax(p) if p.max() >= 1 - alpha else 3] += 1
    shares = decided / simulations
    assurance = 1 - shares[3]
    return [*shares, assurance, np.sqrt(assurance * (1 - assurance) / simulations)]
