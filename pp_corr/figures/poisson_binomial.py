"""The Poisson test's figure of a pair (:func:`pp_corr.plots.plot_poisson_binomial`): the distribution of the
number of data sets on which each algorithm is better; drawn with more than one data set."""
from __future__ import annotations

from .kinds import FigureKind, Pair


def draw_poisson_binomial(subject: Pair):
    """The Poisson-binomial distribution of the pair's Poisson test.

    >>> import pp_corr
    >>> pt = pp_corr.poisson_test(pp_corr.load_scores(pp_corr.example_path()), algorithms=("tree", "knn"))
    >>> draw_poisson_binomial(Pair(pt, None)).get_xlabel()[:9]
    'number of'
    """
    from .. import plots

    return plots.plot_poisson_binomial(subject.result)


def across_datasets(subject: Pair) -> bool:
    """Whether the pair was compared on more than one data set.

    >>> from types import SimpleNamespace
    >>> across_datasets(Pair(SimpleNamespace(n_datasets=1), None))
    False
    """
    return subject.result.n_datasets > 1


FIGURE = FigureKind(Pair, "Poisson test: the number of data sets on which {a} or {b} is better",
                    draw_poisson_binomial, when=across_datasets)
