"""What a sequential comparison returns: :class:`SequentialResult`, in words, as tables and as a figure."""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import pandas as pd

from ..results import Result, python_values

def _verdict(decision, names):
    a, b = names
    return {"left": f"{a} better", "rope": "practically equivalent", "right": f"{b} better",
            "none": "no decision", "not run": "not run"}[decision]


def _named(decision, names) -> str:
    """An outcome's decision ("left", "rope", "right", "none", "not run") in the words of :meth:`Result.decision`:
    the better algorithm's name, "rope", "none" (and "not run")."""
    return {"left": names[0], "right": names[1]}.get(decision, decision)


@dataclass(frozen=True, repr=False)
class SequentialResult(Result):
    """A replayed sequential comparison of B - A.

    ``outcomes`` has one row per data set (``over="runs"``) or one row for the benchmark (``over="datasets"``):
    ``used`` (runs, or data sets, at the stop), ``budget``, ``decision`` ("left" = A better, "rope", "right" =
    B better, "none"), ``reason`` in words and ``full_decision``, the decision of the whole recorded design ("not
    run" where the runs were made on demand, :func:`pp_corr.sequential.cv.sequential_cv`). :meth:`decision` and
    :attr:`full_decision` say them with the algorithms' names; the decisions were taken as the data came, a
    region's probability reaching 1 - ``alpha``, so :meth:`decision` takes only that ``alpha``.
    ``history`` (:meth:`to_frame`) holds the posterior after every step: the three region probabilities, the
    best region's probability at the floor (over runs) and the predictive probability that the budget decides.
    """

    over: str
    names: tuple[str, str]
    rope: tuple[float, float] | None
    alpha: float = field()  # no default: not Result's class default 0.05
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

    def _decide(self, alpha):
        """The decision per data set (a tuple, over runs) or for the benchmark (a str, over data sets)."""
        if not math.isclose(alpha, self.alpha):
            raise ValueError(f"alpha={alpha:g}: the sequential rules decided as the data came, at alpha = "
                             f"{self.alpha:g}; replay at alpha={alpha:g} for another")
        return self._column("decision")

    @property
    def full_decision(self):
        """The decision of the full recorded design, in the same form as :meth:`decision` ("not run" when the runs
        were made on demand)."""
        return self._column("full_decision")

    def _column(self, name):
        named = [_named(d, self.names) for d in self.outcomes[name]]
        return tuple(named) if self.over == "runs" else named[0]

    def _need(self, over):
        if self.over != over:
            wanted, held = ("runs_used", "stopped_at") if over == "runs" else ("stopped_at", "runs_used")
            raise ValueError(f"{wanted} is for over={over!r}; this result is over {self.over}: {held} holds "
                             "its steps")

    def to_frame(self) -> pd.DataFrame:
        """The history: one row per step (and data set, over runs)."""
        return self.history.copy()

    def to_dict(self) -> dict:
        """Plain Python values: the settings, the decision and one record per data set (or for the benchmark)."""
        return python_values({"a": self.names[0], "b": self.names[1], "over": self.over, "test": self.test,
                              "rope": self.rope, "alpha": self.alpha, "futility": self.futility,
                              "decision": self.decision(),
                              "outcomes": self.outcomes.reset_index().to_dict(orient="records")})

    def summary(self) -> str:
        """In words: how early each decision could have been taken, and how often it is the full design's."""
        a, b = self.names
        unit = "runs" if self.over == "runs" else "data sets"
        out = self.outcomes
        head = (f"Sequential {self.test}, {b} - {a} (positive: {b} better) over {unit}, rope {self.rope}, "
                f"alpha {self.alpha:g}, futility {self.futility}")
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
        decision threshold 1 - alpha and, over runs, the predictive probability of success with the futility
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
        ax.axhline(1 - self.alpha, color=INK, linestyle="--", linewidth=1, label=f"1 - alpha = {1 - self.alpha:g}")
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
