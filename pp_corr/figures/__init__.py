"""The figures ``pp-corr compare --plots`` and the report draw, one module per kind of figure, and :data:`FIGURES`,
the one table of them: a kind added to it (a :class:`~pp_corr.figures.kinds.FigureKind`) is drawn by both,
wherever they draw figures of its subject, with its caption in the report.

- ``"forest"`` (:mod:`.forest`), ``"poisson_binomial"`` (:mod:`.poisson_binomial`), ``"simplex_signed_rank"``
  (:mod:`.simplex`): each pair across data sets (:class:`~.kinds.Pair`);
- ``"posterior"`` (:mod:`.posterior`): each pair on one data set (:class:`~.kinds.PairOnDataset`);
- ``"pairs"`` (:mod:`.pairs_matrix`): the all-pairs matrix of a test (:class:`~.kinds.AllPairs`);
- ``"rank_diagram"``, ``"rank_diagram_joint"`` (:mod:`.rank_diagram`): the Plackett-Luce ranking
  (:class:`~.kinds.Ranking`) and the joint model's (:class:`~.kinds.JointRanking`);
- ``"shrinkage"`` (:mod:`.shrinkage`), ``"posterior_predictive"`` (:mod:`.posterior_predictive`, command line
  only): each pair's hierarchical model (:class:`~.kinds.HierarchicalFit`).

What the modules share (new axes, a legend on top) is in :mod:`.layout`; what a kind and its subjects are, in
:mod:`.kinds`. The plotting functions stay public in :mod:`pp_corr.plots` (``plots.plot_pairs`` and
``plots.plot_rank_diagram`` are imported there from :mod:`.pairs_matrix` and :mod:`.rank_diagram`), and each
kind draws through them.
"""
from __future__ import annotations

import functools

from . import forest, pairs_matrix, poisson_binomial, posterior, posterior_predictive, rank_diagram, shrinkage, simplex
from .kinds import Drawing

FIGURES = {  # name (its files' names start with it) -> FigureKind, in the order each subject's figures are drawn
    "forest": forest.FIGURE, "poisson_binomial": poisson_binomial.FIGURE, "simplex_signed_rank": simplex.FIGURE,
    "posterior": posterior.FIGURE, "pairs": pairs_matrix.FIGURE, "rank_diagram": rank_diagram.FIGURE,
    "rank_diagram_joint": rank_diagram.JOINT_FIGURE, "shrinkage": shrinkage.FIGURE,
    "posterior_predictive": posterior_predictive.FIGURE,
}


def figures_of(subject, output) -> list[Drawing]:
    """The figures of ``subject`` (an instance of a class of :data:`~.kinds.SUBJECTS`) drawn in ``output``
    (``"plots"`` or ``"report"``): each kind of :data:`FIGURES` that applies to its class, is drawn there and
    whose condition holds, in the table's order, as a :class:`~.kinds.Drawing` (stem, caption, draw); nothing is
    drawn yet.

    >>> import pp_corr
    >>> from pp_corr.figures.kinds import Pair
    >>> pt = pp_corr.poisson_test(pp_corr.load_scores(pp_corr.example_path()), algorithms=("tree", "knn"))
    >>> [(d.stem, d.caption[:18]) for d in figures_of(Pair(pt, None), "report")][1]
    ('poisson_binomial_tree_vs_knn', 'Poisson test: the ')
    """
    return [Drawing(subject.stem(name), kind.caption.format(**subject.fields()), functools.partial(kind.draw, subject))
            for name, kind in FIGURES.items()
            if type(subject) is kind.applies_to and output in kind.outputs and kind.when(subject)]


def plot_files(subjects) -> list[tuple]:
    """The figures ``pp-corr compare --plots`` writes of ``subjects``, in turn: (file stem, function that draws
    it) of each (:func:`figures_of` with output ``"plots"``).

    >>> from pp_corr.figures.kinds import AllPairs
    >>> [stem for stem, _ in plot_files(AllPairs(None, test) for test in ("poisson", "sign"))]
    ['pairs_poisson', 'pairs_sign']
    """
    return [(drawing.stem, drawing.draw) for subject in subjects for drawing in figures_of(subject, "plots")]
