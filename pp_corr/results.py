"""The one protocol of pp_corr's result types: :class:`Result`, with the same four methods on every result.

Modelled on scipy.stats' result classes (one object per test, attributes named alike, methods for what follows
from them), with the four methods the command line and the report format results through:

- ``summary() -> str``: the verdict in words, decision included: what ``print(result)`` shows and what
  ``pp-corr`` prints.
- ``to_frame() -> pandas.DataFrame``: tidy, one row per quantity (a data set, a pair, an algorithm, a benchmark),
  with columns other tools read.
- ``to_dict() -> dict``: plain Python values (str, int, float, bool, None, lists and dicts of them) that
  ``json.dumps`` writes.
- ``decision(alpha=None) -> str``: the algorithm declared better (its name), ``"rope"`` (practically equivalent)
  or ``"none"`` (undecided) at level ``alpha``; a tuple of them, one per row of :meth:`~Result.to_frame`, for a
  result over several data sets or benchmarks compared one by one. ``alpha=None`` is the result's own
  :attr:`~Result.alpha`: the level it was computed at when it was given one (the Poisson test's ``alpha``), else
  0.05. An ``alpha`` outside (0, 1) is refused with an error naming ``alpha``.

Each type keeps its own options of these methods (``confidence_level``, ``rope``, ``allow_unconverged``), keyword-only
and with defaults, so that ``result.summary()`` and the others work alike on every result.
"""
from __future__ import annotations

import abc
import math

import numpy as np
import pandas as pd

from ._args import check_probability_level


class Result(abc.ABC):
    """The base of every public result type: :meth:`summary`, :meth:`to_frame`, :meth:`to_dict` and
    :meth:`decision`, with the contract of the module's docstring. A subclass gives the first three and
    ``_decide(alpha)``, the decision at a checked level; ``print(result)`` shows its summary.

    >>> import pp_corr
    >>> res = pp_corr.paired_ttest([0.02, 0.01, 0.03, 0.00])
    >>> isinstance(res, Result), res.decision(0.2), res.decision(0.01)
    (True, 'B', 'none')
    """

    alpha = 0.05  # the level of decision() when it is given none

    @abc.abstractmethod
    def summary(self) -> str:
        """The verdict in words."""

    @abc.abstractmethod
    def to_frame(self) -> pd.DataFrame:
        """One row per quantity, tidy."""

    @abc.abstractmethod
    def to_dict(self) -> dict:
        """Plain Python values, JSON-ready."""

    def decision(self, alpha=None):
        """The algorithm declared better at level ``alpha`` (its name), ``"rope"`` or ``"none"`` (a tuple, one per
        row, for a result over several data sets); None: the result's own :attr:`alpha`.

        >>> import pp_corr
        >>> pp_corr.paired_ttest([0.02, 0.01, 0.03, 0.00]).decision(alpha=1.5)
        Traceback (most recent call last):
        ...
        ValueError: alpha must be in (0, 1), got 1.5
        """
        return self._decide(self._alpha(alpha))

    def _alpha(self, alpha) -> float:
        """``alpha`` checked, or the result's own :attr:`alpha` for None (also the level a summary shows)."""
        return self.alpha if alpha is None else check_probability_level("alpha", alpha)

    @abc.abstractmethod
    def _decide(self, alpha: float):
        """:meth:`decision` at a checked level."""

    def __str__(self):
        return self.summary()


def per_row(decisions):
    """One decision as a str, several (an array over data sets) as a tuple of str.

    >>> per_row(np.array("B")), per_row(np.array(["A", "none"]))
    ('B', ('A', 'none'))
    """
    decisions = np.asarray(decisions)
    return str(decisions) if decisions.ndim == 0 else tuple(str(d) for d in decisions)


def region_decision(names, p_left, p_rope, p_right, alpha):
    """The decision of posterior probabilities of the three regions (arrays over data sets, or numbers): the
    region whose probability exceeds 1 - ``alpha`` (A's, the rope's, B's), else ``"none"``.

    >>> region_decision(("A", "B"), np.array([0.97, 0.1]), np.array([0.0, 0.1]), np.array([0.03, 0.8]), 0.05)
    ('A', 'none')
    """
    a, b = names
    p_left, p_rope, p_right = np.broadcast_arrays(*(np.asarray(p, dtype=float) for p in (p_left, p_rope, p_right)))
    level = 1 - alpha
    return per_row(np.where(p_right > level, b, np.where(p_left > level, a, np.where(p_rope > level, "rope",
                                                                                           "none"))))


def region_decision_line(decision, alpha, draws="the draws") -> str:
    """The summary's line of a decision between regions at ``alpha``, in words: which region is the largest in
    more than 1 - alpha of ``draws``, practical equivalence ("rope") told from no decision ("none").

    >>> region_decision_line("none", 0.05)
    '  decision at alpha = 0.05: none (undecided: no region is the largest in more than 95% of the draws)'
    """
    share = f"in more than {100 * (1 - alpha):g}% of {draws}"
    meaning = {"rope": f"practically equivalent: the rope is the largest region {share}",
               "none": f"undecided: no region is the largest {share}"}.get(
        decision, f"{decision} better: its region is the largest {share}")
    return f"  decision at alpha = {alpha:g}: {decision} ({meaning})"


def pvalue_decision(names, pvalue, direction, alpha):
    """The decision of a frequentist test: the algorithm the data favour (``direction`` > 0: B, < 0: A) when the
    p-value is below ``alpha``, else ``"none"`` (a frequentist test never finds practical equivalence).

    >>> pvalue_decision(("A", "B"), np.array([0.01, 0.01, 0.3]), np.array([2.0, -1.0, 3.0]), 0.05)
    ('B', 'A', 'none')
    """
    a, b = names
    pvalue, direction = np.broadcast_arrays(np.asarray(pvalue, dtype=float), np.asarray(direction, dtype=float))
    return per_row(np.where((pvalue < alpha) & (direction != 0), np.where(direction > 0, b, a), "none"))


def python_values(value):
    """``value`` with numpy scalars and arrays as Python values, tuples as lists and NaN as None, recursively
    (JSON-ready). Unlike :func:`pp_corr.reporting.output.plain`, infinities stay as they are.

    >>> python_values({"p": np.float64("nan"), "n": np.int64(3), "pair": (0.1, np.inf)})
    {'p': None, 'n': 3, 'pair': [0.1, inf]}
    """
    if isinstance(value, dict):
        return {str(k): python_values(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, np.ndarray)):
        return [python_values(v) for v in value]
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and math.isnan(value):
        return None
    return value
