"""The shrinkage of a pair's hierarchical model (:func:`pp_corr.plots.plot_shrinkage`): each data set's mean
difference, observed and as the model estimates it."""
from __future__ import annotations

from .kinds import FigureKind, HierarchicalFit


def draw_shrinkage(subject: HierarchicalFit):
    """The shrinkage figure of the fit.

    >>> import numpy as np, pp_corr
    >>> x = np.random.default_rng(0).normal(0.01, 0.02, (4, 10))
    >>> fit = pp_corr.hierarchical_test(x, folds=10, rope=0.01, method="exact", draws=200, random_seed=0)
    >>> draw_shrinkage(HierarchicalFit(fit)).get_xlabel()[:15]
    'mean difference'
    """
    from .. import plots

    return plots.plot_shrinkage(subject.result)


FIGURE = FigureKind(HierarchicalFit, "Hierarchical model, {b} - {a}: shrinkage of the per-data-set means",
                    draw_shrinkage)
