"""The forest of a pair (:func:`pp_corr.plots.plot_forest`): the correlated t-test's posterior mean difference and
interval on each data set."""
from __future__ import annotations

from .kinds import FigureKind, Pair


def draw_forest(subject: Pair):
    """The forest of the pair's per-data-set correlated t-tests.

    >>> import pp_corr
    >>> pt = pp_corr.poisson_test(pp_corr.load_scores(pp_corr.example_path()), algorithms=("tree", "knn"))
    >>> len(draw_forest(Pair(pt, None)).get_yticks())
    4
    """
    from .. import plots  # drawn through pp_corr.plots, where the plotting functions are public

    return plots.plot_forest(subject.result.per_dataset)


FIGURE = FigureKind(Pair, "{b} - {a} on each data set: posterior mean and 95% interval (correlated t-test)",
                    draw_forest)
