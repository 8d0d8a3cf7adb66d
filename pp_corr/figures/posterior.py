"""The posterior of a pair on one data set (:func:`pp_corr.plots.plot_posterior`): the correlated t-test's density
of the mean difference, its regions shaded."""
from __future__ import annotations

from .kinds import FigureKind, PairOnDataset


def draw_posterior(subject: PairOnDataset):
    """The posterior of the pair's mean difference on ``subject.dataset``.

    >>> import pp_corr
    >>> pt = pp_corr.poisson_test(pp_corr.load_scores(pp_corr.example_path()), algorithms=("tree", "knn"))
    >>> draw_posterior(PairOnDataset(pt, "iris")).get_xlabel()
    'mean difference knn - tree (positive: knn better)'
    """
    from .. import plots

    return plots.plot_posterior(subject.result.per_dataset, subject.dataset)


FIGURE = FigureKind(PairOnDataset, "Posterior of the mean difference {b} - {a} (correlated t-test)", draw_posterior)
