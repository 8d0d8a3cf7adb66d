"""Plots (matplotlib, ArviZ): computing stays in the other modules, each function here draws one figure."""
from __future__ import annotations

import arviz as az
import matplotlib.pyplot as plt
import numpy as np

from .poisson_test import PoissonTestResult
from .ttest import CorrelatedTTestResult


def _axes(ax, figsize=(6, 4)):
    return ax if ax is not None else plt.subplots(figsize=figsize, layout="constrained")[1]


def _row(result: CorrelatedTTestResult, dataset):
    if result.datasets is None:
        return (), "", result.posterior_params
    i = result.datasets.index(dataset) if dataset is not None else 0
    post = result.posterior_params
    take = lambda v: np.asarray(v)[i]  # noqa: E731
    return i, result.datasets[i], type(post)(take(post.mu0), take(post.k0), take(post.a), take(post.b))


def plot_posterior(result: CorrelatedTTestResult, dataset=None, *, ax=None):
    """Posterior density of the mean difference on one data set, with the rope and the three probabilities.

    >>> import numpy as np, pp_corr
    >>> res = pp_corr.correlated_ttest(np.random.default_rng(0).normal(0.01, 0.02, 10), folds=10, rope=0.01)
    >>> plot_posterior(res).get_xlabel()
    'mean difference B - A'
    """
    ax = _axes(ax)
    i, name, post = _row(result, dataset)
    law = post.mu_marginal()
    grid = np.linspace(*law.ppf([0.0005, 0.9995]), 400)
    ax.plot(grid, law.pdf(grid), color="C0", label="posterior (analytic)")
    a, b = result.names
    lo, hi = result.rope or (0.0, 0.0)
    if lo < hi:
        ax.axvspan(lo, hi, color="0.85", label="rope")
    else:
        ax.axvline(0, color="0.5", lw=1)
    probs = (np.asarray(result.p_left)[i], np.asarray(result.p_rope)[i], np.asarray(result.p_right)[i])
    ax.set_title(f"{name + ': ' if name else ''}P({a} better) = {probs[0]:.3f}, P(rope) = {probs[1]:.3f}, "
                 f"P({b} better) = {probs[2]:.3f}", fontsize=9)
    ax.set_xlabel(f"mean difference {b} - {a}")
    ax.set_ylabel("density")
    ax.legend(fontsize=8)
    return ax


def plot_analytic_overlay(idata, result: CorrelatedTTestResult, dataset=None, var_name="mu"):
    """ArviZ's plot of the MCMC posterior of ``mu`` with the exact Student-t density drawn over it."""
    coords = {"dataset": [dataset]} if dataset is not None else None
    pc = az.plot_dist(idata, var_names=[var_name], coords=coords, backend="matplotlib")
    ax = pc.get_viz("plot", var_name, **({"dataset": dataset} if dataset is not None else {}))
    _, name, post = _row(result, dataset)
    law = post.mu_marginal()
    grid = np.linspace(*law.ppf([0.001, 0.999]), 300)
    ax.plot(grid, law.pdf(grid), "k--", lw=1.5, label="analytic")
    ax.legend(fontsize=8)
    ax.set_xlabel(f"{var_name}: mean difference {result.names[1]} - {result.names[0]}")
    return ax


def plot_forest(result: CorrelatedTTestResult, *, confidence_level=0.95, ax=None):
    """Per-data-set posterior means and credible intervals, coloured by the most probable region."""
    n = len(result.datasets)
    ax = _axes(ax, figsize=(6, max(2.5, 0.22 * n + 1)))
    lo, hi = result.interval(confidence_level)
    y = np.arange(n)[::-1]
    probs = np.column_stack([result.p_left, result.p_rope, result.p_right])
    colors = np.array(["C3", "0.5", "C2"])[probs.argmax(axis=1)]
    ax.hlines(y, lo, hi, colors=colors)
    ax.scatter(result.mean, y, c=colors, s=12, zorder=3)
    if result.rope and result.rope[0] < result.rope[1]:
        ax.axvspan(*result.rope, color="0.9", zorder=0)
    ax.axvline(0, color="0.5", lw=0.8)
    ax.set_yticks(y, result.datasets, fontsize=7)
    a, b = result.names
    ax.set_xlabel(f"mean difference {b} - {a} ({round(100 * confidence_level):g}% interval)")
    ax.set_title(f"red: {a} more probably better, green: {b}, grey: rope", fontsize=9)
    return ax


def plot_poisson_binomial(result: PoissonTestResult, *, ax=None):
    """pmf of the number of data sets where B is better, with the majority threshold q/2."""
    ax = _axes(ax)
    pmf = result.distribution.pmf()
    q = len(pmf) - 1
    counts = np.arange(q + 1)
    a, b = result.names
    ax.bar(counts, pmf, color=np.where(counts > q / 2, "C2", np.where(counts < q / 2, "C3", "0.6")))
    ax.axvline(q / 2, color="k", ls="--", lw=1, label=f"q/2 = {q / 2:g}")
    ax.set_xlabel(f"number of data sets (of {q}) where {b} is better than {a}")
    ax.set_ylabel("probability")
    ax.set_title(f"P({b} better on a majority) = {result.p_b_majority:.3f}", fontsize=9)
    ax.legend(fontsize=8)
    return ax


def plot_pairs(table, *, ax=None):
    """The all-pairs matrix of P(column better than row on a majority), annotated."""
    values = table.p_b_majority.values
    names = list(table.a.values)
    ax = _axes(ax, figsize=(1.1 * len(names) + 2, 1.0 * len(names) + 1.5))
    image = ax.imshow(values, vmin=0, vmax=1, cmap="RdYlGn")
    for (i, j), v in np.ndenumerate(values):
        if not np.isnan(v):
            ax.text(j, i, f"{v:.2f}", ha="center", va="center", fontsize=8)
    ax.set_xticks(range(len(names)), names, rotation=45, ha="right")
    ax.set_yticks(range(len(names)), names)
    ax.set_xlabel("column algorithm (B)")
    ax.set_ylabel("row algorithm (A)")
    plt.colorbar(image, ax=ax, label="P(column better on a majority)")
    return ax
