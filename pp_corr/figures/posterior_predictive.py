"""The posterior predictive check of a pair's hierarchical model (:func:`pp_corr.plots.plot_posterior_predictive`).
A diagnostic of the fit: ``pp-corr compare --hierarchical --plots`` writes it; the report, which shows each fit's
numbers, does not."""
from __future__ import annotations

from .kinds import FigureKind, HierarchicalFit


def draw_posterior_predictive(subject: HierarchicalFit):
    """The posterior predictive check of the fit, its draws seeded with ``subject.random_seed``.

    >>> import numpy as np, pp_corr
    >>> x = np.random.default_rng(0).normal(0.01, 0.02, (4, 10))
    >>> fit = pp_corr.hierarchical_test(x, folds=10, rope=0.01, method="exact", draws=200, random_seed=0)
    >>> len(draw_posterior_predictive(HierarchicalFit(fit, random_seed=0)).axes) > 0
    True
    """
    from .. import plots

    return plots.plot_posterior_predictive(subject.result, random_seed=subject.random_seed)


FIGURE = FigureKind(HierarchicalFit, "Hierarchical model, {b} - {a}: posterior predictive check of the per-fold "
                                     "differences", draw_posterior_predictive, outputs=("plots",))
