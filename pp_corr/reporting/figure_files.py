"""Figures as files, shared by ``pp-corr compare --plots`` and the report: their names, their drawing and saving,
and the figures of one pair of algorithms."""
from __future__ import annotations

import functools
import re

from ..pairwise.rank_tests import bayesian_signed_rank


def figure_stem(kind, a, b, *more) -> str:
    """The file name (without suffix) of a figure of the pair (a, b): ``kind_a_vs_b[_more]``, where in each name
    runs of characters other than letters, digits, '.' and '-' become one '_'.

    >>> figure_stem("posterior", "naive bayes", "k/nn", "iris")
    'posterior_naive_bayes_vs_k_nn_iris'
    """
    parts = [re.sub(r"[^\w.-]+", "_", str(name)).strip("_") or "_" for name in (a, b, *more)]
    return "_".join([kind, parts[0], "vs", *parts[1:]])


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
    """The figures of one pair as (file stem, function that draws it): the Poisson test's forest, its
    Poisson-binomial and the Bayesian signed-rank test's simplex (with more than one data set), and the
    posterior on each of ``datasets``. ``result`` is the pair's :class:`pp_corr.PoissonTestResult`;
    ``signed_rank``, the pair's Bayesian signed-rank result if already computed (else it is computed with
    ``rope`` and ``random_seed`` when the simplex is drawn).

    >>> import pp_corr
    >>> scores = pp_corr.load_scores(pp_corr.example_path())
    >>> pt = pp_corr.poisson_test(scores, algorithms=("tree", "knn"), rope=0.01)
    >>> [stem for stem, _ in pair_figures(pt, ["iris"], scores, rope=0.01, random_seed=0)][::3]
    ['forest_tree_vs_knn', 'posterior_tree_vs_knn_iris']
    """
    from .. import plots

    a, b = result.names

    def simplex():
        drawn = signed_rank or bayesian_signed_rank(scores, algorithms=(a, b), rope=rope, random_seed=random_seed)
        return plots.plot_simplex(drawn, random_seed=random_seed)

    figures = [(figure_stem("forest", a, b), lambda: plots.plot_forest(result.per_dataset))]
    if result.n_datasets > 1:
        figures.append((figure_stem("poisson_binomial", a, b), lambda: plots.plot_poisson_binomial(result)))
        figures.append((figure_stem("simplex_signed_rank", a, b), simplex))
    figures += [(figure_stem("posterior", a, b, d), functools.partial(plots.plot_posterior, result.per_dataset, d))
                for d in datasets]
    return figures
