"""Replay recorded scores in order and stop as soon as the rules allow: :func:`sequential_test` and its result."""
from __future__ import annotations

import sys
from dataclasses import dataclass

import numpy as np
import pandas as pd
import xarray as xr

from .._args import as_rope, check_choice, check_count, check_probability_level
from ..data.scores import differences, mean_differences, pick_algorithms
from ..execution import task_seed
from ..hierarchical.fit import hierarchical_test
from ..pairwise.poisson_test import poisson_test
from ..pairwise.rank_tests import bayesian_signed_rank
from .rules import decide, floor_regions, floor_success, posterior_regions, predictive_success


def _label(region, names):
    a, b = names
    return {"left": f"P({a} better)", "rope": "P(rope)", "right": f"P({b} better)"}[region]


def _verdict(decision, names):
    a, b = names
    return {"left": f"{a} better", "rope": "practically equivalent", "right": f"{b} better",
            "none": "no decision", "not run": "not run"}[decision]


@dataclass(frozen=True, repr=False)
class SequentialResult:
    """A replayed sequential comparison of B - A.

    ``outcomes`` has one row per data set (``over="runs"``) or one row for the benchmark (``over="datasets"``):
    ``used`` (runs, or data sets, at the stop), ``budget``, ``decision`` ("left" = A better, "rope", "right" =
    B better, "none"), ``reason`` in words and ``full_decision``, the decision of the whole recorded design ("not
    run" where the runs were made on demand, :func:`pp_corr.sequential.cv.sequential_cv`).
    ``history`` (:meth:`to_frame`) holds the posterior after every step: the three region probabilities, the
    best region's probability at the floor (over runs) and the predictive probability that the budget decides.
    """

    over: str
    names: tuple[str, str]
    rope: tuple[float, float] | None
    level: float
    futility: float
    test: str
    outcomes: pd.DataFrame
    history: pd.DataFrame

    @property
    def runs_used(self) -> pd.Series:
        """Runs used on each data set (over runs)."""
        self._need("runs")
        return self.outcomes["used"].copy()

    @property
    def stopped_at(self) -> int:
        """Number of data sets seen at the stop (over data sets)."""
        self._need("datasets")
        return int(self.outcomes["used"].iloc[0])

    @property
    def decision(self):
        """The decision per data set (a Series, over runs) or for the benchmark (a str, over data sets)."""
        return self._column("decision")

    @property
    def full_decision(self):
        """The decision of the full recorded design, in the same form as :attr:`decision`."""
        return self._column("full_decision")

    def _column(self, name):
        column = self.outcomes[name]
        return column.copy() if self.over == "runs" else str(column.iloc[0])

    def _need(self, over):
        if self.over != over:
            wanted, held = ("runs_used", "stopped_at") if over == "runs" else ("stopped_at", "runs_used")
            raise ValueError(f"{wanted} is for over={over!r}; this result is over {self.over}: {held} holds "
                             "its steps")

    def to_frame(self) -> pd.DataFrame:
        """The history: one row per step (and data set, over runs)."""
        return self.history.copy()

    def to_dict(self) -> dict:
        """Plain Python values: the settings and one record per data set (or for the benchmark)."""
        return {"a": self.names[0], "b": self.names[1], "over": self.over, "test": self.test, "rope": self.rope,
                "level": self.level, "futility": self.futility,
                "outcomes": self.outcomes.reset_index().to_dict(orient="records")}

    def summary(self) -> str:
        """In words: how early each decision could have been taken, and how often it is the full design's."""
        a, b = self.names
        unit = "runs" if self.over == "runs" else "data sets"
        out = self.outcomes
        head = (f"Sequential {self.test}, {b} - {a} (positive: {b} better) over {unit}, rope {self.rope}, "
                f"level {self.level}, futility {self.futility}")
        if self.over == "datasets":
            row = out.iloc[0]
            return (f"{head}\n  you could have stopped after {row.used} of {row.budget} data sets: "
                    f"{_verdict(row.decision, self.names)} ({row.reason}); all {row.budget} data sets: "
                    f"{_verdict(row.full_decision, self.names)}")
        decided = ~out.full_decision.isin(["none", "not run"])
        agree = (out.decision == out.full_decision)[decided]
        lines = [head, f"  you could have stopped after {out.used.mean():.2f} runs on average "
                       f"({out.used.sum() / out.budget.sum():.0%} of the runs)"]
        if (out.full_decision != "not run").all():
            lines[-1] += (f"; the full design decides on {decided.sum()} of {len(out)} data sets and the sequential "
                          f"decision agrees on {agree.sum()} of them")
        for dataset, row in out.iterrows():
            lines.append(f"  {dataset}: {_verdict(row.decision, self.names)} after {row.used} of {row.budget} "
                         f"runs - {row.reason} (full design: {_verdict(row.full_decision, self.names)})")
        return "\n".join(lines)

    __repr__ = summary

    def plot(self, dataset=None, ax=None):
        """The posterior path with its stopping boundary: the three region probabilities after each step, the
        level (stop for a decision) and, over runs, the predictive probability of success with the futility
        threshold. ``dataset`` chooses the data set over runs (default: the first). Returns the Figure.

        >>> import pp_corr
        >>> res = pp_corr.sequential_test([[0.01, 0.03, 0.02], [0.02, 0.04, 0.01], [0.03, 0.02, 0.02]],
        ...                               rope=0.005, random_seed=0)
        >>> res.plot().axes[0].get_ylabel()
        'posterior probability'
        """
        import matplotlib.pyplot as plt
        from matplotlib.ticker import MaxNLocator

        from ..palette import INK, REGION_COLORS, REGION_MARKERS, region_labels, series_color

        frame = self.history
        if self.over == "runs":
            dataset = frame.index.get_level_values("dataset")[0] if dataset is None else dataset
            if dataset not in self.outcomes.index:
                raise ValueError(f"dataset must be one of the data sets, got {dataset!r}")
            frame = frame.xs(dataset, level="dataset")
            stop = self.outcomes.loc[dataset]
        else:
            stop = self.outcomes.iloc[0]
        fig = ax.figure if ax is not None else plt.figure(figsize=(7, 4.5))
        ax = ax if ax is not None else fig.add_subplot()
        steps = frame.index.to_numpy()
        for region, color, marker, label in zip(("p_left", "p_rope", "p_right"), REGION_COLORS, REGION_MARKERS,
                                                region_labels(*self.names)):
            ax.plot(steps, frame[region], color=color, marker=marker, label=label)
        ax.axhline(self.level, color=INK, linestyle="--", linewidth=1, label=f"level {self.level}")
        if self.over == "runs":
            for column, color, label in (("p_floor", series_color(3), "P(infinitely many runs decide)"),
                                         ("p_success", series_color(2), "P(budget decides)")):
                if frame[column].notna().any():
                    ax.plot(steps, frame[column], color=color, linestyle=":", marker=".", label=label)
            ax.axhline(self.futility, color=INK, linestyle="-.", linewidth=1, label=f"futility {self.futility}")
        ax.axvline(stop.used, color=INK, linestyle=":", linewidth=1.5,
                   label=f"stop: {_verdict(stop.decision, self.names)}")
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_xlim(min(steps[0], stop.used) - 0.5, max(steps[-1], stop.used) + 0.5)  # whole steps, even for one
        unit = "runs" if self.over == "runs" else "data sets"
        ax.set(xlabel=f"{unit} seen", ylabel="posterior probability", ylim=(-0.02, 1.02),
               title=f"{self.names[1]} - {self.names[0]}" + (f" on {dataset}" if self.over == "runs" else ""))
        ax.legend(fontsize="small", loc="center left", bbox_to_anchor=(1.01, 0.5))
        fig.tight_layout()
        return fig


def sequential_test(scores, algorithms=None, *, over="runs", rope=0.01, level=0.95, futility=0.05,
                    max_runs=None, min_runs=2, min_datasets=5, order=None, test="signed_rank", rho=None,
                    n_sim=400, n_samples=5000, random_seed=None, progress=False) -> SequentialResult:
    """Replay recorded scores step by step and stop when the rules allow (docs/theory.md, section 10).

    ``scores`` is a scores Dataset (``algorithms=(a, b)``) or differences B - A shaped ``(runs, folds)`` (one
    data set) or ``(q, runs, folds)``, with ``rho`` (default 1/folds, or the Dataset's).

    ``over="runs"``: on each data set, runs in their order, the correlated t-test after each run from
    ``min_runs`` on; it stops for a decision when a region's probability reaches ``level``, for futility when
    even the floor of infinitely many runs leaves every region below ``level`` or when the predictive
    probability that ``max_runs`` runs (default: all recorded) decide is below ``futility`` (``n_sim``
    completions, seeded), else when the budget is exhausted.

    ``over="datasets"``: data sets in ``order`` (names or positions) or a random order seeded by
    ``random_seed``, at least ``min_datasets`` before any stop; after each data set the ``test`` across data
    sets ("signed_rank": :func:`pp_corr.bayesian_signed_rank` with the rope, its probability that a region is the
    largest, ``n_samples`` draws; "poisson": :func:`pp_corr.poisson_test`, majorities only, no rope region;
    "hierarchical": :func:`pp_corr.hierarchical_test`'s probability that each region is the largest for a new
    data set, its exact posterior, a few seconds a step, a line on stderr per step with ``progress=True``)
    stops when a region reaches ``level``.

    >>> res = sequential_test([[0.02, 0.03, 0.01], [0.03, 0.02, 0.02], [0.02, 0.03, 0.03]], rope=0.005)
    >>> res.runs_used.tolist(), res.decision.tolist()
    ([2], ['right'])
    """
    over = check_choice("over", over, ("runs", "datasets"))
    test = check_choice("test", test, ("signed_rank", "poisson", "hierarchical"))
    level = check_probability_level("level", level)
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
        rows = [replay_runs(diff[i], rho[i], rope, level, futility, min_runs, max_runs, n_sim,
                           task_seed(random_seed, i), names) for i in range(len(diff))]
        outcomes = pd.DataFrame([r[0] for r in rows], index=pd.Index(datasets, name="dataset"))
        history = pd.concat([r[1] for r in rows], keys=datasets, names=["dataset"])
        return SequentialResult("runs", names, rope, level, futility, "correlated t-test", outcomes, history)
    order = _order(order, datasets, random_seed)
    if min_datasets > len(order):
        raise ValueError(f"min_datasets={min_datasets} but the scores hold {len(order)} data sets")
    outcome, history = _over_datasets(diff[order], rho[order], [datasets[i] for i in order], rope, level, test,
                                      min_datasets, n_samples, random_seed, names, progress)
    label = {"signed_rank": "Bayesian signed-rank test", "poisson": "Poisson test",
             "hierarchical": "hierarchical model (exact posterior)"}[test]
    return SequentialResult("datasets", names, rope, level, futility, label, pd.DataFrame([outcome]), history)


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


def replay_runs(diff, rho, rope, level, futility, min_runs, max_runs, n_sim, seed, names):
    """One data set's replay: (outcome row, history frame)."""
    full = decide(posterior_regions(_seen(diff, diff.shape[0]), rho, rope), level)
    rng = np.random.default_rng(seed)
    records = []
    for runs in range(min_runs, max_runs + 1):
        record, decision, reason = run_step(_seen(diff, runs), runs, diff.shape[1], rho, rope, level, futility,
                                            max_runs, n_sim, rng, names)
        records.append(record)
        if reason is not None:
            break
    outcome = {"used": runs, "budget": max_runs, "decision": decision, "reason": reason, "full_decision": full}
    return outcome, pd.DataFrame(records).set_index("runs")


def run_step(x, runs, folds, rho, rope, level, futility, max_runs, n_sim, rng, names):
    """The rules after ``runs`` runs of ``folds`` folds (the differences ``x``): (history record, decision, reason
    in words, or None to go on). A decision first, then the budget, the floor and the budget's futility."""
    p = posterior_regions(x, rho, rope)
    record = {"runs": runs, "p_left": float(p[0]), "p_rope": float(p[1]), "p_right": float(p[2]),
              "floor": max(floor_regions(x, rho, rope)), "p_floor": np.nan, "p_success": np.nan}
    decision = decide(p, level)
    if decision != "none":
        return record, decision, f"{_label(decision, names)} = {max(p):.3g} >= {level} after {runs} of {max_runs} runs"
    if runs >= max_runs:
        return record, decision, f"budget exhausted: {max_runs} runs and every region below {level}"
    record["p_floor"] = floor_success(x, rho, rope, level, n_sim=n_sim, random_seed=rng)[0]
    if record["p_floor"] < futility:
        return record, decision, (f"even infinitely many runs would decide with probability {record['p_floor']:.3g} "
                                  f"< {futility} (the floor rho/(1-rho) s^2 leaves the best region at "
                                  f"{record['floor']:.3g}): add data sets, not runs")
    record["p_success"] = predictive_success(x, rho, rope, level, max_runs * folds, n_sim=n_sim, random_seed=rng)[0]
    if record["p_success"] < futility:
        return record, decision, (f"the full budget of {max_runs} runs would decide with probability "
                                  f"{record['p_success']:.3g} < {futility}")
    return record, decision, None


def _seen(diff, runs):
    """The fold differences of the first ``runs`` runs, missing folds left out."""
    x = diff[:runs].ravel()
    return x[~np.isnan(x)]


def _over_datasets(diff, rho, datasets, rope, level, test, min_datasets, n_samples, random_seed, names, progress):
    """The benchmark's replay over data sets in the given order: (outcome row, history frame)."""
    def regions(k):
        if test == "signed_rank":
            z = mean_differences(diff[:k].reshape(k, -1))[0]
            res = bayesian_signed_rank(z, rope=rope or 0.0, n_samples=n_samples, random_seed=task_seed(random_seed, k))
            return tuple(float(w) for w in res.wins)
        if test == "hierarchical":
            if progress:
                print(f"\rsequential hierarchical test: {k} of {len(diff)} data sets", end="", file=sys.stderr,
                      flush=True)
            res = hierarchical_test(diff[:k].reshape(k, -1), rope=rope or 0.0, rho=rho[:k],
                                    random_seed=task_seed(random_seed, k)).new_dataset()
            return res.win_left, res.win_rope, res.win_right
        res = poisson_test(diff[:k].reshape(k, -1), rho=rho[:k], rope=rope)
        return res.p_a_majority, np.nan, res.p_b_majority

    q = len(diff)
    full = decide(regions(q), level)
    records = []
    for k in range(min_datasets, q + 1):
        p = regions(k)
        records.append({"datasets": k, "added": datasets[k - 1], "p_left": p[0], "p_rope": p[1], "p_right": p[2]})
        decision = decide(p, level)
        if decision != "none":
            reason = f"{_label(decision, names)} = {np.nanmax(p):.3g} >= {level} after {k} of {q} data sets"
            break
    else:
        reason = f"all {q} data sets seen and every region below {level}"
    if progress and test == "hierarchical":
        print(file=sys.stderr)
    outcome = {"used": k, "budget": q, "decision": decision, "reason": reason, "full_decision": full}
    return outcome, pd.DataFrame(records).set_index("datasets")
