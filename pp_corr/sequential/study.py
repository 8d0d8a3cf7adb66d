"""Error rates of stopping early, measured by simulation and calibrated: :func:`sequential_study`.

A posterior is calibrated when averaged over its prior, but at a fixed truth - the rope's boundary - the rate of
wrong decisions of a rule that looks after every run grows with the number of looks. The study simulates data sets
at fixed true mean differences, replays each with the stopping rules at several alphas and reports the rates
beside the fixed design's, with Monte Carlo standard errors; the calibrated alpha is the largest alpha whose
wrong-decision rate at the boundary is at most the nominal alpha.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._args import as_rope, check_count, check_probability_level, check_real
from ..execution import map_tasks
from .runs import replay_runs


def simulate_differences(mu, sigma, rho, runs, folds, size, rng):
    """``size`` data sets of ``runs`` x ``folds`` fold differences under the intraclass model of the project:
    x_j = mu + sigma (sqrt(rho) u + sqrt(1 - rho) e_j), u shared by every fold of the data set, so any two folds
    correlate by rho.

    >>> x = simulate_differences(0.0, 1.0, 0.5, 2, 2, 20_000, np.random.default_rng(0)).reshape(20_000, 4)
    >>> round(float(np.corrcoef(x[:, 0], x[:, 3])[0, 1]), 1)
    0.5
    """
    shared = np.sqrt(rho) * rng.standard_normal((size, 1, 1))
    return mu + sigma * (shared + np.sqrt(1 - rho) * rng.standard_normal((size, runs, folds)))


def _truth(mu, rope):
    lo, hi = rope
    return "left" if mu < lo else "right" if mu > hi else "rope"


def _study_chunk(mu, sigma, rho, runs, folds, rope, alphas, futility, min_runs, simulations, size, seed):
    """Per repetition and alpha: the sequential decision, runs used and the full design's decision."""
    rng = np.random.default_rng(seed)
    data = simulate_differences(mu, sigma, rho, runs, folds, size, rng)
    out = []
    for alpha in alphas:
        for x in data:
            row, _ = replay_runs(x, rho, rope, alpha, futility, min_runs, runs, simulations, rng, ("A", "B"))
            out.append((alpha, row["decision"], row["used"], row["full_decision"]))
    return out


@dataclass(frozen=True, repr=False)
class SequentialStudy:
    """The study's table (one row per true mean difference and alpha), the nominal alpha and the calibrated
    alpha (None when no alpha tried keeps the boundary's wrong-decision rate at the nominal)."""

    table: pd.DataFrame
    nominal: float
    calibrated_alpha: float | None
    rope: tuple[float, float]

    def summary(self) -> str:
        """The table in words, the calibrated rule beside the uncalibrated one."""
        with pd.option_context("display.width", 200, "display.max_columns", None, "display.float_format",
                               "{:.4g}".format):
            table = self.table.to_string()
        calibrated = ("no alpha tried keeps it there" if self.calibrated_alpha is None else
                      f"the calibrated alpha is {self.calibrated_alpha}")
        return (f"Sequential correlated t-test under optional stopping, rope {self.rope}, nominal alpha "
                f"{self.nominal}: wrong decisions at the rope boundary should be at most {self.nominal:.3g}; "
                f"{calibrated}\n{table}")

    __repr__ = summary


def sequential_study(mus=(0.0, 0.01, 0.03), *, sigma=0.05, rho=0.1, runs=10, folds=10, rope=0.01,
                     alphas=(0.05, 0.03, 0.02, 0.01), futility=0.05, min_runs=2, repetitions=500, chunk=100,
                     simulations=200, random_seed=None, workers=None, scheduler=None,
                     progressbar=False) -> SequentialStudy:
    """Wrong-decision rates, runs used and agreement with the fixed design of the sequential correlated t-test.

    For each true mean difference in ``mus`` (defaults at the 2015 paper's design, 10 runs x 10 folds, rho = 0.1:
    inside the rope 0.01, on its boundary, outside) ``repetitions`` data sets are simulated
    (:func:`simulate_differences`, ``sigma`` the fold-level spread) and replayed with the stopping rules at every
    alpha in ``alphas``. Tasks of ``chunk`` data sets run on :func:`pp_corr.execution.map_tasks`, each seeded by
    its key. Columns: ``wrong`` (a decision other than "none" and the true region; the rope is closed),
    ``runs_used`` and ``saving`` (1 - runs used / runs), ``agreement`` (the sequential decision equals the full
    design's), ``wrong_fixed`` (the full design at that alpha), each rate with its ``_mcse``. The calibrated alpha
    is the largest of ``alphas`` whose wrong rate at the boundary (mu = the rope's upper end, which must be among
    ``mus``) is at most the nominal, the largest of ``alphas``.

    >>> res = sequential_study((0.01,), repetitions=8, chunk=8, simulations=50, alphas=(0.05, 0.01), random_seed=0,
    ...                        workers=1)
    >>> res.table.shape, res.nominal
    ((2, 10), 0.05)
    """
    rope = as_rope(rope)
    if rope is None:
        raise ValueError("rope must be a half-width or a pair: the rope's boundary is where the study calibrates")
    mus = tuple(check_real("mus", m) for m in np.atleast_1d(mus))
    alphas = tuple(sorted((check_probability_level("alphas", v) for v in np.atleast_1d(alphas)), reverse=True))
    if rope[1] not in mus:
        raise ValueError(f"mus must include the rope's upper boundary {rope[1]}, where the study calibrates")
    check_real("sigma", sigma, low=0, low_open=True)
    check_real("rho", rho, low=0, high=1, high_open=True)
    runs, folds, repetitions, chunk = (check_count(name, value) for name, value in
                                       (("runs", runs), ("folds", folds), ("repetitions", repetitions),
                                        ("chunk", chunk)))
    tasks = [((i, j), (mu, sigma, rho, runs, folds, rope, alphas, futility, min_runs, simulations,
                       min(chunk, repetitions - start)))
             for i, mu in enumerate(mus) for j, start in enumerate(range(0, repetitions, chunk))]
    rows = [(mus[key[0]], *r) for key, result in
            map_tasks(_study_chunk, tasks, random_seed=random_seed, scheduler=scheduler, workers=workers,
                      progressbar=progressbar, desc="sequential study") for r in result]
    frame = pd.DataFrame(rows, columns=["mu", "alpha", "decision", "used", "full"])
    table = frame.groupby(["mu", "alpha"]).apply(lambda g: _rates(g, rope, runs), include_groups=False)
    boundary = table.xs(rope[1], level="mu")
    nominal = alphas[0]
    calibrated = boundary.index[boundary["wrong"] <= nominal + 1e-12]
    return SequentialStudy(table, nominal, float(calibrated[-1]) if len(calibrated) else None, rope)


def _rates(group, rope, runs):
    truth = _truth(group.name[0], rope)

    def rate(hit):
        share = float(np.mean(hit))
        return share, float(np.sqrt(share * (1 - share) / len(hit)))

    wrong = rate(~group.decision.isin(["none", truth]))
    fixed = rate(~group.full.isin(["none", truth]))
    agree = rate(group.decision == group.full)
    used = group.used.to_numpy(float)
    return pd.Series({"truth": truth, "wrong": wrong[0], "wrong_mcse": wrong[1], "runs_used": used.mean(),
                      "runs_used_mcse": used.std(ddof=1) / np.sqrt(len(used)) if len(used) > 1 else np.nan,
                      "saving": 1 - used.mean() / runs, "agreement": agree[0], "agreement_mcse": agree[1],
                      "wrong_fixed": fixed[0], "wrong_fixed_mcse": fixed[1]})
