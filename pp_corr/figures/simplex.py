"""The Bayesian signed-rank test's simplex of a pair (:func:`pp_corr.plots.plot_simplex`): its posterior draws of
(P(A better), P(rope), P(B better)); drawn with more than one data set."""
from __future__ import annotations

from .kinds import FigureKind, Pair
from .poisson_binomial import across_datasets


def draw_simplex(subject: Pair):
    """The simplex of the pair's Bayesian signed-rank test: ``subject.signed_rank`` if given, else the test run on
    ``subject.scores`` with its ``rope`` and ``random_seed`` (which also thins the points drawn).

    >>> import pp_corr
    >>> scores = pp_corr.load_scores(pp_corr.example_path())
    >>> pt = pp_corr.poisson_test(scores, algorithms=("tree", "knn"))
    >>> draw_simplex(Pair(pt, scores, rope=0.01, random_seed=0)).get_aspect()
    1.0
    """
    from .. import plots
    from ..pairwise.rank_tests import bayesian_signed_rank

    drawn = subject.signed_rank or bayesian_signed_rank(subject.scores, algorithms=subject.result.names,
                                                        rope=subject.rope, random_seed=subject.random_seed)
    return plots.plot_simplex(drawn, random_seed=subject.random_seed)


FIGURE = FigureKind(Pair, "Bayesian signed-rank test, {b} vs {a}: posterior draws of (P({a} better), P(rope), "
                          "P({b} better))", draw_simplex, when=across_datasets)
