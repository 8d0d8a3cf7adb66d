"""The figure of the signed-rank loss study (:mod:`pp_corr.studies.signed_rank_study`): expected loss against Delta for
each test, one panel per loss pair and correlation, with the share of runs where the imprecise DP is indeterminate.

Colours from :mod:`pp_corr.palette` (the series colours, which stay apart under colour-vision deficiencies), with a
line style and a marker per test so that the lines read in greyscale too."""
from __future__ import annotations

import matplotlib.pyplot as plt

from ..palette import INK, ROPE, series_color
from .signed_rank_study import TEST_NAMES

STYLES = {"wilcoxon": ("-", "o"), "dp": ("--", "s"), "idp": (":", "^")}


def plot_signed_rank_losses(curves, *, loss_pairs=None):
    """Mean loss per Delta (bands: 95% Monte Carlo intervals, 1.96 SE) of the Wilcoxon test and the DP over all
    runs, of the IDP over the runs where it decides, and as grey bars (right axis) the IDP's indeterminate share;
    rows: the loss pairs (``loss_pairs`` labels, default all), columns: the correlations. ``curves`` comes from
    :func:`pp_corr.studies.signed_rank_study.loss_curves`. Returns the Figure.

    >>> from pp_corr.studies.signed_rank_study import loss_curves, signed_rank_study
    >>> res = signed_rank_study([0.0, 0.05], [0.0], runs=10, draws=100, workers=1, random_seed=0, progressbar=False)
    >>> fig = plot_signed_rank_losses(loss_curves(res), loss_pairs=["(1, 19)"])
    >>> fig.axes[0].get_title()
    'r = 0, (l0, l1) = (1, 19)'
    """
    labels = list(curves.loss_pair.values) if loss_pairs is None else list(loss_pairs)
    unknown = sorted(set(labels) - set(curves.loss_pair.values))
    if unknown:
        raise ValueError(f"loss_pairs {unknown} are not in the curves (they have {list(curves.loss_pair.values)})")
    correlations = curves.correlation.values
    fig, axes = plt.subplots(len(labels), len(correlations), figsize=(4.6 * len(correlations), 2.5 * len(labels)),
                             layout="constrained", squeeze=False, sharex=True)
    delta = curves.delta.values
    width = 0.6 * (delta[1] - delta[0]) if len(delta) > 1 else 0.01
    legend_axes = None
    for row, label in enumerate(labels):
        for col, r in enumerate(correlations):
            ax = axes[row, col]
            share = ax.twinx()
            undecided = curves.indeterminate.sel(loss_pair=label, correlation=r)
            share.bar(delta, undecided, width=width, color=ROPE, alpha=0.45, label="IDP indeterminate (right axis)")
            share.set_ylim(0, 1)
            share.set_ylabel("indeterminate share", fontsize=7, color=INK)
            share.tick_params(labelsize=7)
            for k, test in enumerate(("wilcoxon", "dp", "idp")):
                name = "determinate_loss" if test == "idp" else "loss"
                mean = curves[name].sel(test=test, loss_pair=label, correlation=r)
                se = curves[f"{name}_se"].sel(test=test, loss_pair=label, correlation=r)
                line, marker = STYLES[test]
                ax.plot(delta, mean, ls=line, marker=marker, ms=3.5, color=series_color(k), lw=1.4,
                        label=TEST_NAMES[test] + (" (determinate runs)" if test == "idp" else ""))
                ax.fill_between(delta, mean - 1.96 * se, mean + 1.96 * se, color=series_color(k), alpha=0.15, lw=0)
            ax.set_zorder(share.get_zorder() + 1)  # lines over the bars
            ax.patch.set_visible(False)
            ax.axvline(0, color=INK, lw=0.6, ls=":")
            ax.set_title(f"r = {r:g}, (l0, l1) = {label}", fontsize=8)
            ax.set_ylabel("mean loss", fontsize=8)
            ax.tick_params(labelsize=7)
            if row == len(labels) - 1:
                ax.set_xlabel("Delta (H1, Y better, when Delta > 0)", fontsize=8)
            legend_axes = legend_axes or (ax, share)
    lines, names = legend_axes[0].get_legend_handles_labels()
    bars, bar_names = legend_axes[1].get_legend_handles_labels()
    title = (f"{curves.attrs.get('n_datasets', '?')} data sets, sigma = {curves.attrs.get('sigma', '?')}, "
             f"{curves.attrs.get('runs', '?')} runs of {curves.attrs.get('draws', '?')} Dirichlet draws; "
             f"Wilcoxon at alpha = {curves.attrs.get('alpha', 0.05):g}; bands: 95% Monte Carlo intervals")
    fig.legend(lines + bars, names + bar_names, loc="outside upper center", ncols=4, fontsize=8, frameon=False,
               title=title, title_fontsize=9)
    return fig
