"""One data set, run by run: :class:`SequentialRuns` applies the rules of :func:`pp_corr.sequential_test` over runs
as the scores arrive (from the caller's own runner), and :func:`replay_runs` feeds it a recorded design."""
from __future__ import annotations

import numpy as np
import pandas as pd

from .._args import as_generator, as_rope, check_count, check_probability_level, check_real
from .result import SequentialResult
from .rules import decide, posterior_regions, run_step


class SequentialRuns:
    """Compare A and B on one data set run by run, stopping as soon as the evidence allows.

    Give each run's fold scores with :meth:`add_run` (or let :meth:`run` call your runner) until :attr:`stopped`;
    the rules are those of :func:`pp_corr.sequential_test` over runs (docs/theory.md, section 10): the correlated
    t-test after every run from ``min_runs`` on, a decision when a region's probability reaches 1 - ``alpha``, a stop
    for futility when even infinitely many runs, or the ``max_runs`` budget, would decide with probability below
    ``futility`` (``simulations`` predictive completions). ``rho`` is the fold correlation, n_test / n (default 1/k for
    runs of k folds: k-fold cross-validation). Scores are higher-is-better; NaN marks a failed fold.
    ``random_seed`` seeds the predictive draws.

    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> def one_run(run):  # your runner: one repetition of 10-fold CV of both algorithms
    ...     a = rng.normal(0.80, 0.03, 10)
    ...     return a, a + rng.normal(0.04, 0.01, 10)
    >>> seq = SequentialRuns(rope=0.01, max_runs=10, names=("old", "new"), random_seed=1).run(one_run)
    >>> seq.runs, seq.decision
    (2, 'right')
    """

    def __init__(self, *, rope=0.01, alpha=0.05, futility=0.05, max_runs=10, min_runs=2, rho=None,
                 names=("A", "B"), simulations=400, random_seed=None):
        self.max_runs, self.min_runs = check_count("max_runs", max_runs), check_count("min_runs", min_runs)
        if self.min_runs > self.max_runs:
            raise ValueError(f"min_runs must be at most max_runs={self.max_runs}, got {self.min_runs}")
        self.alpha = check_probability_level("alpha", alpha)
        self.futility = check_probability_level("futility", futility)
        self.rho = None if rho is None else check_real("rho", rho, low=0, high=1, high_open=True)
        self.rope, self.simulations = as_rope(rope), check_count("simulations", simulations)
        self.names = tuple(str(n) for n in names)
        self._rng = as_generator(random_seed)
        self._differences, self._records = [], []
        self.decision, self.reason = "none", None

    @property
    def runs(self) -> int:
        """The runs added so far."""
        return len(self._differences)

    @property
    def stopped(self) -> bool:
        return self.reason is not None

    def add_run(self, scores_a, scores_b) -> bool:
        """Add one run's fold scores of A and of B (same folds, same order); returns :attr:`stopped`."""
        try:
            a, b = (np.asarray(s, dtype=float).ravel() for s in (scores_a, scores_b))
        except (TypeError, ValueError):
            raise TypeError(f"run {self.runs + 1}: scores_a and scores_b must be numbers, one score a fold") from None
        if a.shape != b.shape or a.size == 0:
            raise ValueError(f"run {self.runs + 1}: scores_a and scores_b must hold the same folds, got "
                             f"{a.size} and {b.size} scores")
        return self.add_differences(b - a)

    def add_differences(self, differences) -> bool:
        """Add one run's fold differences B - A (NaN for a failed fold); returns :attr:`stopped`."""
        if self.stopped:
            raise RuntimeError(f"the comparison has stopped ({self.reason}): no more runs are needed")
        differences = np.asarray(differences, dtype=float).ravel()
        if self._differences and differences.size != self._differences[0].size:
            raise ValueError(f"run {self.runs + 1} has {differences.size} folds, the first run had "
                             f"{self._differences[0].size}")
        self._differences.append(differences)
        if self.runs >= self.min_runs:
            x = np.concatenate(self._differences)
            x = x[~np.isnan(x)]
            if x.size >= 2:
                folds = self._differences[0].size
                rho = 1 / folds if self.rho is None else self.rho
                record, self.decision, self.reason = run_step(
                    x, self.runs, folds, rho, self.rope, self.alpha, self.futility, self.max_runs, self.simulations,
                    self._rng, self.names)
                self._records.append(record)
        return self.stopped

    def run(self, one_run) -> SequentialRuns:
        """Call ``one_run(run)`` (run = 0, 1, ...; it returns the run's scores of A and of B) until the comparison
        stops; returns self."""
        while not self.stopped:
            self.add_run(*one_run(self.runs))
        return self

    @property
    def result(self) -> SequentialResult:
        """The comparison so far as a :class:`pp_corr.SequentialResult` (history, summary, plot)."""
        outcome = pd.DataFrame([{"used": self.runs, "budget": self.max_runs, "decision": self.decision,
                                 "reason": self.reason or "not stopped yet", "full_decision": "not run"}],
                               index=pd.Index(["D1"], name="dataset"))
        history = pd.concat([self.history], keys=["D1"], names=["dataset"])
        return SequentialResult("runs", self.names, self.rope, self.alpha, self.futility,
                                "correlated t-test (runs added as they were made)", outcome, history)

    @property
    def history(self) -> pd.DataFrame:
        """The posterior after every look (one row per run from ``min_runs`` on)."""
        return pd.DataFrame(self._records, columns=_COLUMNS).set_index("runs")

    def __repr__(self):
        state = self.reason if self.stopped else "not stopped"
        return f"SequentialRuns({self.names[1]} - {self.names[0]}, {self.runs} run(s): {state})"


_COLUMNS = ["runs", "p_left", "p_rope", "p_right", "floor", "p_floor", "p_success"]


def replay_runs(diff, rho, rope, alpha, futility, min_runs, max_runs, simulations, seed, names):
    """One data set's recorded runs ``diff`` (runs, folds) fed in order to :class:`SequentialRuns` (``seed`` seeds
    its predictive draws): (outcome row with the full design's decision, history frame)."""
    seen = diff.ravel()
    full = decide(posterior_regions(seen[~np.isnan(seen)], rho, rope), alpha)
    sequence = SequentialRuns(rope=rope, alpha=alpha, futility=futility, max_runs=max_runs, min_runs=min_runs,
                              rho=rho, names=names, simulations=simulations, random_seed=seed)
    for run in diff[:max_runs]:
        if sequence.add_differences(run):
            break
    outcome = {"used": sequence.runs, "budget": max_runs, "decision": sequence.decision,
               "reason": sequence.reason, "full_decision": full}
    return outcome, sequence.history
