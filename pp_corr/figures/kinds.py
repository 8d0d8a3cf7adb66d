"""What a kind of figure is (:class:`FigureKind`, an entry of :data:`pp_corr.figures.FIGURES`) and the results it
applies to: its subject, one of the small classes here, which the command line and the report build from their
results and hand to :func:`pp_corr.figures.figures_of`.

A subject names its figure's file (:meth:`Pair.stem`) and gives its caption's fields (:meth:`Pair.fields`, named
by its ``FIELDS``); a kind's caption may use those fields only, checked when the kind is made, so every figure has
a caption and every caption can be filled in.
"""
from __future__ import annotations

import re
import string
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

OUTPUTS = ("plots", "report")  # where figures go: ``pp-corr compare --plots DIR`` and the report


def figure_stem(kind, a, b, *more) -> str:
    """The file name (without suffix) of a figure of the pair (a, b): ``kind_a_vs_b[_more]``, where in each name
    runs of characters other than letters, digits, '.' and '-' become one '_'.

    >>> figure_stem("posterior", "naive bayes", "k/nn", "iris")
    'posterior_naive_bayes_vs_k_nn_iris'
    """
    parts = [re.sub(r"[^\w.-]+", "_", str(name)).strip("_") or "_" for name in (a, b, *more)]
    return "_".join([kind, parts[0], "vs", *parts[1:]])


@dataclass(frozen=True, eq=False)  # a subject holds results: compared by identity
class Pair:
    """Subject: a pair's Poisson test across data sets (``result``, a :class:`pp_corr.PoissonTestResult`) with the
    scores it came from, the ``rope`` and ``random_seed`` of the tests a figure may run, and the pair's Bayesian
    signed-rank result if already computed (``signed_rank``). Caption fields: ``a``, ``b``.

    >>> import pp_corr
    >>> pt = pp_corr.poisson_test(pp_corr.load_scores(pp_corr.example_path()), algorithms=("tree", "knn"))
    >>> subject = Pair(pt, None, rope=0.01, random_seed=0)
    >>> subject.stem("forest"), subject.fields()
    ('forest_tree_vs_knn', {'a': 'tree', 'b': 'knn'})
    """

    FIELDS: ClassVar[tuple[str, ...]] = ("a", "b")
    result: Any
    scores: Any
    rope: Any = None
    random_seed: Any = None
    signed_rank: Any = None

    def stem(self, name) -> str:
        """The file stem of the figure ``name`` of this subject."""
        return figure_stem(name, *self.result.names)

    def fields(self) -> dict:
        """The caption's fields."""
        return dict(zip(self.FIELDS, self.result.names))


@dataclass(frozen=True, eq=False)
class PairOnDataset:
    """Subject: a pair on one data set, the correlated t-test of a Poisson test (``result``) on ``dataset``.
    Caption fields: ``a``, ``b``, ``dataset``.

    >>> import pp_corr
    >>> pt = pp_corr.poisson_test(pp_corr.load_scores(pp_corr.example_path()), algorithms=("tree", "knn"))
    >>> PairOnDataset(pt, "iris").stem("posterior")
    'posterior_tree_vs_knn_iris'
    """

    FIELDS: ClassVar[tuple[str, ...]] = ("a", "b", "dataset")
    result: Any
    dataset: str

    def stem(self, name) -> str:
        """The file stem of the figure ``name`` of this subject."""
        return figure_stem(name, *self.result.names, self.dataset)

    def fields(self) -> dict:
        """The caption's fields."""
        return dict(zip(self.FIELDS, (*self.result.names, self.dataset)))


@dataclass(frozen=True, eq=False)
class AllPairs:
    """Subject: one test (a name of :data:`pp_corr.pairwise.pairs.TESTS`) of an all-pairs table, the algorithms in
    ``order``; ``title`` words the test for a caption (default: "the <name> test"). Caption fields: ``test``,
    ``title``.

    >>> AllPairs(None, "sign", ["a", "b"]).stem("pairs"), AllPairs(None, "sign", ["a", "b"]).fields()["title"]
    ('pairs_sign', 'the sign test')
    """

    FIELDS: ClassVar[tuple[str, ...]] = ("test", "title")
    table: Any
    test: str
    order: Any = None
    title: str | None = None

    def stem(self, name) -> str:
        """The file stem of the figure ``name`` of this subject."""
        return f"{name}_{self.test}"

    def fields(self) -> dict:
        """The caption's fields."""
        return {"test": self.test, "title": self.title or f"the {self.test} test"}


@dataclass(frozen=True, eq=False)
class Ranking:
    """Subject: a ranking of all algorithms, a :class:`pp_corr.PlackettLuceResult`, with the pairs a test finds
    ``equivalent`` and ``separated`` at ``alpha`` and the ``rule`` that separates them in words (as
    :func:`pp_corr.plots.plot_rank_diagram` takes them). No caption fields.

    >>> Ranking(None).stem("rank_diagram"), Ranking(None).fields()
    ('rank_diagram', {})
    """

    FIELDS: ClassVar[tuple[str, ...]] = ()
    result: Any
    alpha: float = 0.05
    equivalent: Any = None
    separated: Any = None
    rule: str | None = None

    def stem(self, name) -> str:
        """The file stem of the figure ``name`` of this subject: the name."""
        return name

    def fields(self) -> dict:
        """The caption's fields: none."""
        return {}


@dataclass(frozen=True, eq=False)
class JointRanking(Ranking):
    """Subject: the ranking of the joint hierarchical model, a :class:`pp_corr.JointResult`; as :class:`Ranking`
    (a kind applies to one class, so figures of a Plackett-Luce ranking are not drawn of a joint model).

    >>> JointRanking(None).stem("rank_diagram_joint")
    'rank_diagram_joint'
    """


@dataclass(frozen=True, eq=False)
class HierarchicalFit:
    """Subject: a pair's hierarchical model over the data sets (``result``, a :class:`pp_corr.HierarchicalResult`)
    and the ``random_seed`` of what a figure draws from it. Caption fields: ``a``, ``b``.

    >>> from types import SimpleNamespace
    >>> HierarchicalFit(SimpleNamespace(names=("tree", "knn"))).stem("shrinkage")
    'shrinkage_tree_vs_knn'
    """

    FIELDS: ClassVar[tuple[str, ...]] = ("a", "b")
    result: Any
    random_seed: Any = None

    def stem(self, name) -> str:
        """The file stem of the figure ``name`` of this subject."""
        return figure_stem(name, *self.result.names)

    def fields(self) -> dict:
        """The caption's fields."""
        return dict(zip(self.FIELDS, self.result.names))


SUBJECTS = (Pair, PairOnDataset, AllPairs, Ranking, JointRanking, HierarchicalFit)


def always(subject) -> bool:
    """The default condition of a :class:`FigureKind`: every subject it applies to.

    >>> always(None)
    True
    """
    return True


@dataclass(frozen=True)
class FigureKind:
    """One kind of figure, an entry of :data:`pp_corr.figures.FIGURES` (its key is the kind's name, the start of
    its files' names).

    ``applies_to`` is the subject class it draws (one of :data:`SUBJECTS`); ``caption`` its caption in the report,
    a :meth:`str.format` template over that class's ``FIELDS`` (e.g. ``"{b} - {a} on each data set"``);
    ``draw(subject)`` draws it and returns an Axes or a Figure; ``when(subject)`` says whether the subject has this
    figure (default: always); ``outputs`` where it is drawn, of ``"plots"`` (``pp-corr compare --plots``) and
    ``"report"``. The caption is checked here: a kind without one, or naming a field its subject lacks, cannot be
    made.

    >>> FigureKind(Pair, "{b} against {a}", lambda subject: None).outputs
    ('plots', 'report')
    >>> FigureKind(Pair, "{b} on {dataset}", lambda subject: None)
    Traceback (most recent call last):
    ...
    ValueError: caption '{b} on {dataset}' names dataset: a figure of a Pair has the fields ['a', 'b']
    """

    applies_to: type
    caption: str
    draw: Callable
    when: Callable = always
    outputs: tuple[str, ...] = OUTPUTS

    def __post_init__(self):
        if self.applies_to not in SUBJECTS:
            raise TypeError(f"applies_to must be one of {[s.__name__ for s in SUBJECTS]}, got {self.applies_to!r}")
        if not isinstance(self.caption, str) or not self.caption.strip():
            raise ValueError(f"caption must be a non-empty text, got {self.caption!r}")
        fields = self.applies_to.FIELDS
        for _, field, _, _ in string.Formatter().parse(self.caption):
            if field is not None and field not in fields:
                raise ValueError(f"caption {self.caption!r} names {field or 'a positional field'}: a figure of a "
                                 f"{self.applies_to.__name__} has the fields {list(fields)}")
        if not callable(self.draw) or not callable(self.when):
            raise TypeError("draw and when must be functions of the subject")
        if isinstance(self.outputs, str) or not self.outputs or not set(self.outputs) <= set(OUTPUTS):
            raise ValueError(f"outputs must be a non-empty selection of {list(OUTPUTS)}, got {self.outputs!r}")


@dataclass(frozen=True)
class Drawing:
    """A figure to draw: its file ``stem``, its ``caption`` and ``draw()``, which draws it (an Axes or a Figure).

    >>> Drawing("forest_a_vs_b", "b - a on each data set", lambda: None).stem
    'forest_a_vs_b'
    """

    stem: str
    caption: str
    draw: Callable[[], Any]
