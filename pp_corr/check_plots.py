"""Figures of the hierarchical model's checks (:mod:`pp_corr.checks`): each data set's observed fold mean and sd
against their posterior predictive intervals, and the LOO-PIT values against the uniform."""
from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from scipy import stats

from .palette import INK, OKABE_ITO

INSIDE, OUTSIDE = OKABE_ITO["blue"], OKABE_ITO["vermillion"]  # distinct under the common colour-vision deficiencies
MARKERS = {True: "o", False: "X"}  # and by shape, for greyscale


def plot_predictive_intervals(table: pd.DataFrame, *, confidence_level=0.9):
    """Two panels, the data sets as rows: the observed fold mean and sd (``table`` from
    :func:`pp_corr.checks.predictive_intervals`) on their ``confidence_level`` posterior predictive intervals; an
    observation outside its interval is a vermillion cross, inside a blue dot. Returns the figure.

    >>> table = pd.DataFrame({"mean": [0.1, 0.5], "mean_lower": [0.0, 0.0], "mean_upper": [0.2, 0.3],
    ...                       "mean_covered": [True, False], "sd": [1.0, 1.0], "sd_lower": [0.5, 0.5],
    ...                       "sd_upper": [1.5, 1.5], "sd_covered": [True, True]}, index=["a", "b"])
    >>> figure = plot_predictive_intervals(table)
    >>> [ax.get_xlabel() for ax in figure.axes]
    ['fold mean (B - A)', 'fold sd']
    >>> plt.close(figure)
    """
    missing = [c for s in ("mean", "sd") for c in (s, f"{s}_lower", f"{s}_upper", f"{s}_covered") if c not in table]
    if missing:
        raise ValueError(f"table: missing columns {missing} (use pp_corr.checks.predictive_intervals)")
    rows = np.arange(len(table))
    figure, axes = plt.subplots(1, 2, sharey=True, figsize=(9, 1.2 + 0.16 * len(table)))
    for ax, name, label in zip(axes, ("mean", "sd"), ("fold mean (B - A)", "fold sd")):
        ax.hlines(rows, table[f"{name}_lower"], table[f"{name}_upper"], color=INK, linewidth=1.2, alpha=0.6)
        for covered in (True, False):
            chosen = table[f"{name}_covered"].to_numpy() == covered
            ax.plot(table[name].to_numpy()[chosen], rows[chosen], MARKERS[covered], linestyle="none",
                    color=INSIDE if covered else OUTSIDE, markersize=5,
                    label=f"observed, {'inside' if covered else 'outside'} ({chosen.sum()})")
        ax.set_xlabel(label)
        ax.set_title(f"{table[f'{name}_covered'].mean():.0%} inside the {confidence_level:.0%} intervals", fontsize=10)
        ax.legend(loc="lower right", fontsize=8, framealpha=0.9)
        ax.grid(axis="x", alpha=0.3)
    axes[0].set_yticks(rows, [str(name) for name in table.index], fontsize=max(5, min(9, 400 / max(len(rows), 1))))
    axes[0].invert_yaxis()
    figure.suptitle(f"Posterior predictive {confidence_level:.0%} intervals of each data set's folds (a new run of its "
                    "cross-validation)", fontsize=10)
    figure.tight_layout()
    return figure


def plot_loo_pit(table: pd.DataFrame):
    """The sorted LOO-PIT values of the data sets' fold means and sds (``table`` from
    :func:`pp_corr.checks.predictive_intervals`) against the uniform quantiles, with the 95% band of each order
    statistic (Beta(i, q + 1 - i)); a calibrated model stays inside it. Returns the figure.

    >>> table = pd.DataFrame({"mean_loo_pit": [0.1, 0.5, 0.8], "sd_loo_pit": [0.2, 0.4, 0.9]})
    >>> figure = plot_loo_pit(table)
    >>> figure.axes[0].get_xlabel()
    'uniform quantile'
    >>> plt.close(figure)
    """
    q = len(table)
    order = np.arange(1, q + 1)
    expected = order / (q + 1)
    lower, upper = stats.beta.ppf([[0.025], [0.975]], order, q + 1 - order)
    figure, ax = plt.subplots(figsize=(4.5, 4.5))
    ax.fill_between(expected, lower, upper, color="#DDDDDD", step="mid", label="95% band (uniform)")
    ax.plot([0, 1], [0, 1], color=INK, linewidth=0.8)
    for name, color, marker in (("mean", OKABE_ITO["blue"], "o"), ("sd", OKABE_ITO["orange"], "s")):
        ax.plot(expected, np.sort(table[f"{name}_loo_pit"].to_numpy()), marker, color=color, markersize=4,
                label=f"fold {name}")
    ax.set_xlabel("uniform quantile")
    ax.set_ylabel("sorted LOO-PIT")
    ax.set_title("LOO-PIT of each data set's fold mean and sd", fontsize=10)
    ax.legend(loc="upper left", fontsize=8)
    figure.tight_layout()
    return figure
