"""Figures of the Nadeau & Bengio simulation study: sizes, pseudo-power curves, rho against rho0.

Procedures are told apart by colour (:func:`pp_corr.palette.series_color`, Okabe-Ito), by marker and by line
style, so the figures also read in greyscale.
"""
from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import xarray as xr

from ..palette import INK, ROPE, series_color
from .nadeau_bengio import PROCEDURE_NAMES, PROCEDURES

MARKERS = ("o", "s", "^", "v", "D", "P", "X", "<", ">")
LINES = ("-", "--", ":", "-.")


def procedure_style(index) -> dict:
    """Colour, marker and line style of the ``index``-th procedure (no two procedures share all three).

    >>> procedure_style(0)["marker"], procedure_style(5)["marker"]
    ('o', 'P')
    """
    return {"color": series_color(index), "marker": MARKERS[index % len(MARKERS)],
            "linestyle": LINES[index % len(LINES)]}


def plot_sizes(summary: xr.Dataset, *, ax=None):
    """Size (rejection rate of the true mu at level alpha) of every procedure in every configuration, with 95%
    error bars (1.96 standard errors) and the nominal level; ``summary`` from
    :func:`pp_corr.studies.nadeau_bengio_study.study_summary`.

    >>> from pp_corr.studies.nadeau_bengio_study import CONFIGURATIONS, nadeau_bengio_study, study_summary
    >>> res = nadeau_bengio_study(repetitions=5, configurations=CONFIGURATIONS[:1], splits=3, halvings=2,
    ...                           bootstrap_repetitions=2, random_seed=0, workers=1, progressbar=False)
    >>> plot_sizes(study_summary(res)).get_ylabel()
    'size (rejection rate of the true mu)'
    """
    configs = [str(c) for c in summary.config.values]
    ax = ax if ax is not None else plt.subplots(figsize=(11, 4.5), layout="constrained")[1]
    offsets = np.linspace(-0.3, 0.3, len(PROCEDURES))
    for k, procedure in enumerate(PROCEDURES):
        sel = summary.sel(procedure=procedure)
        style = procedure_style(k)
        ax.errorbar(np.arange(len(configs)) + offsets[k], sel["size"], yerr=1.96 * sel.size_se, ls="none",
                    color=style["color"], marker=style["marker"], ms=5, capsize=2, label=PROCEDURE_NAMES[procedure])
    ax.axhline(summary.alpha, color=INK, lw=0.8, ls=":", label=f"nominal level {summary.alpha:g}")
    for x in np.arange(len(configs) - 1) + 0.5:
        ax.axvline(x, color=ROPE, lw=0.5)
    ax.set_xticks(np.arange(len(configs)), [_two_lines(c) for c in configs], fontsize=7)
    ax.set_ylabel("size (rejection rate of the true mu)")
    ax.set_ylim(0, None)
    ax.set_title(f"Sizes at nominal {summary.alpha:g}, two-sided, with 95% error bars", fontsize=10)
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    return ax


def _two_lines(config):
    """A configuration's label on three short lines: the problem, the sizes, the slope."""
    return config.replace(", n = ", "\nn = ", 1).replace(", b = ", "\nb = ")


def plot_power(power: xr.Dataset, *, axes=None):
    """Pseudo-power curves (rejection rate of H0: mu = mu0 against the distance of mu0 from the true mu, in
    standard deviations of the J-split mean), one panel per configuration, every procedure, with 95% bands;
    ``power`` from :func:`pp_corr.studies.nadeau_bengio_study.pseudo_power`. Returns the axes.

    >>> from pp_corr.studies.nadeau_bengio_study import CONFIGURATIONS, nadeau_bengio_study, pseudo_power
    >>> res = nadeau_bengio_study(repetitions=5, configurations=CONFIGURATIONS[:2], splits=3, halvings=2,
    ...                           bootstrap_repetitions=2, random_seed=0, workers=1, progressbar=False)
    >>> len(plot_power(pseudo_power(res, steps=[-1, 0, 1])))
    2
    """
    configs = [str(c) for c in power.config.values]
    if axes is None:
        cols = min(3, len(configs))
        rows = -(-len(configs) // cols)
        fig, axes = plt.subplots(rows, cols, figsize=(4.2 * cols, 3.2 * rows + 0.8), layout="constrained",
                                 sharey=True, squeeze=False)
        for ax in axes.ravel()[len(configs):]:
            ax.set_visible(False)
        axes = axes.ravel()[: len(configs)]
    for ax, config in zip(axes, configs):
        for k, procedure in enumerate(PROCEDURES):
            sel = power.sel(config=config, procedure=procedure)
            style = procedure_style(k)
            ax.plot(sel.step, sel.rate, color=style["color"], ls=style["linestyle"], marker=style["marker"],
                    ms=3, markevery=4, lw=1, label=PROCEDURE_NAMES[procedure])
            ax.fill_between(sel.step, sel.rate - 1.96 * sel.se, sel.rate + 1.96 * sel.se, color=style["color"],
                            alpha=0.12, lw=0)
        ax.axhline(power.alpha, color=INK, lw=0.8, ls=":")
        ax.set_title(config, fontsize=8)
        ax.set_xlabel("(mu0 - mu) / sd of the J-split mean", fontsize=8)
        ax.set_ylim(0, 1)
    axes[0].set_ylabel("rejection rate of H0: mu = mu0")
    handles, labels = axes[0].get_legend_handles_labels()
    axes[0].figure.legend(handles, labels, loc="outside lower center", ncols=3, fontsize=7, frameon=False)
    return list(axes)


def plot_rho(summary: xr.Dataset, *, ax=None):
    """The measured correlation rho of two split estimates (95% error bars) against rho0 = n2 / n, one point per
    configuration, with the line rho = rho0 (below it the correction overestimates the variance).

    >>> from pp_corr.studies.nadeau_bengio_study import CONFIGURATIONS, nadeau_bengio_study, study_summary
    >>> res = nadeau_bengio_study(repetitions=5, configurations=CONFIGURATIONS[:1], splits=3, halvings=2,
    ...                           bootstrap_repetitions=2, random_seed=0, workers=1, progressbar=False)
    >>> plot_rho(study_summary(res)).get_xlabel()
    'rho0 = n2 / n'
    """
    ax = ax if ax is not None else plt.subplots(figsize=(6, 4.5), layout="constrained")[1]
    top = float(max(summary.rho0.max(), (summary.rho + 2 * summary.rho_se).max())) * 1.1
    ax.plot([0, top], [0, top], color=ROPE, lw=1, label="rho = rho0")
    for k, config in enumerate(summary.config.values):
        sel = summary.sel(config=config)
        ax.errorbar(sel.rho0, sel.rho, yerr=1.96 * sel.rho_se, ls="none", capsize=3, color=series_color(k),
                    marker=MARKERS[k % len(MARKERS)], label=str(config))
    ax.set_xlabel("rho0 = n2 / n")
    ax.set_ylabel("measured rho = corr(mu_hat_j, mu_hat_j')")
    ax.set_xlim(0, top)
    ax.set_ylim(0, top)
    ax.set_title("Correlation of two split estimates against the heuristic n2 / n", fontsize=10)
    ax.legend(fontsize=7)
    return ax
