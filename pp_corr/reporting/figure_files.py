"""Figures as files, shared by ``pp-corr compare --plots`` and the report: their names, their drawing and saving,
and the figures of one pair of algorithms."""
from __future__ import annotations

from ..figures import plot_files
from ..figures.kinds import Pair, PairOnDataset, figure_stem

__all__ = ["figure_stem", "pair_figures", "save_figure"]  # figure_stem: made in pp_corr.figures.kinds


def save_figure(draw, file_format, target, dpi=150):
    """Draw a figure (``draw()`` returns an Axes or a Figure), save it to ``target`` (a path or a binary file)
    in ``file_format`` and close it, whatever happens.

    >>> import io
    >>> from matplotlib import pyplot as plt
    >>> buffer, open_before = io.BytesIO(), plt.get_fignums()
    >>> save_figure(lambda: plt.subplots()[1], "png", buffer)
    >>> buffer.getvalue()[:4], plt.get_fignums() == open_before
    (b'\\x89PNG', True)
    """
    from matplotlib import pyplot as plt

    figure = None
    try:
        figure = draw()
        figure = getattr(figure, "figure", figure)  # plots return an Axes or a Figure
        figure.savefig(target, format=file_format, dpi=dpi)
    finally:
        if figure is not None:
            plt.close(figure)


def pair_figures(result, datasets, scores, *, rope, random_seed, signed_rank=None):
    """The figures of one pair that ``pp-corr compare --plots`` writes, as (file stem, function that draws it):
    those of :data:`pp_corr.figures.FIGURES` of the pair across data sets (the Poisson test's forest, its
    Poisson-binomial and the Bayesian signed-rank test's simplex, the last two with more than one data set), then
    those of the pair on each of ``datasets`` (its posterior). ``result`` is the pair's
    :class:`pp_corr.PoissonTestResult`; ``signed_rank``, the pair's Bayesian signed-rank result if already
    computed (else it is computed with ``rope`` and ``random_seed`` when the simplex is drawn).

    >>> import pp_corr
    >>> scores = pp_corr.load_scores(pp_corr.example_path())
    >>> pt = pp_corr.poisson_test(scores, algorithms=("tree", "knn"), rope=0.01)
    >>> [stem for stem, _ in pair_figures(pt, ["iris"], scores, rope=0.01, random_seed=0)][::3]
    ['forest_tree_vs_knn', 'posterior_tree_vs_knn_iris']
    """
    return plot_files([Pair(result, scores, rope=rope, random_seed=random_seed, signed_rank=signed_rank),
                       *(PairOnDataset(result, dataset) for dataset in datasets)])
