"""baycomp's interface on pp_corr's tests, so that code written for baycomp switches by changing an import.

>>> from pp_corr import baycomp as bc
>>> [round(p, 3) for p in bc.two_on_single([80.0, 82.0, 85.0, 81.0], [83.0, 84.0, 86.0, 85.0], rope=1)]
[0.019, 0.094, 0.887]

The names, argument names, orientation and return values are baycomp's (version 1.0.3); the numbers come from
pp_corr's own functions (:func:`pp_corr.correlated_ttest`, :func:`pp_corr.bayesian_sign_test`,
:func:`pp_corr.bayesian_signed_rank`, :func:`pp_corr.hierarchical_test`), and each posterior object keeps the
pp_corr result in ``.result``.

Orientation: ``x`` holds the scores of the first algorithm, ``y`` those of the second; the difference is y - x,
so ``p_left`` is the probability that x's algorithm is better (by more than the rope), ``p_right`` that y's is.
pp_corr's A is x and its B is y. ``rope`` is a half-width in the scores' units; with ``rope=0`` the functions
return ``(p_left, p_right)``, with ``rope > 0`` ``(p_left, p_rope, p_right)``.

What the probabilities are. For one data set (:func:`two_on_single`, :class:`CorrelatedTTest`) they are posterior
probabilities of the mean difference, integrated exactly from its Student-t posterior (pp_corr's ``p_left``,
``p_rope``, ``p_right`` under the matching prior). For several data sets (:func:`two_on_multiple`,
:class:`SignTest`, :class:`SignedRankTest`, :class:`HierarchicalTest`) each posterior draw is a triple
(P(left), P(rope), P(right)), and the probabilities are the shares of draws in which each region is the most
probable: pp_corr's ``win_left``, ``win_rope``, ``win_right``, not the posterior means ``p_*``.

Where this layer departs from baycomp, on purpose:

- Ties between regions count half to each (pp_corr's ``win_*``); baycomp gives a tie to the first region, so
  when every difference is 0 its signed-rank test's answer is set by rounding error, here it is (0.5, 0.5).
- ``rope=0`` for several data sets: the two values are the shares of draws in which P(left) > P(right) and the
  reverse (ties halved). baycomp renormalises the three-region shares, which is the same whenever the rope
  region never wins (always for the signed-rank and hierarchical tests) but is 0/0 = NaN in its sign test
  when tied data sets and the prior make the rope win every draw; here that case gives (0.5, 0.5).
- ``runs`` not given means one run, as in baycomp, but with more than 10 scores an :class:`pp_corr.AssumptionWarning`
  says so: one run of 100 folds where there were 10 runs of 10 makes rho 1/100 instead of 1/10, and the
  probabilities far too sure.
- ``runs`` equal to the number of scores (one score per run) is an error naming ``runs``: the correlation of
  k-fold cross-validation, 1/k, needs k >= 2 folds per run (baycomp's t-test divides by zero, its hierarchical
  model gets a singular correlation matrix). For repeated hold-out use :func:`pp_corr.correlated_ttest` with
  ``rho=`` (or ``n_test=``, ``n_train=``).
- The hierarchical test is seeded by ``random_state`` (baycomp seeds only its handling of zero-variance data
  sets, not the sampler), writes no cache file, takes zero-variance data sets as they are (baycomp replaces
  their scores by noise around 0, which discards a constant non-zero difference), checks convergence (an exact
  computation replaces an MCMC fit that fails twice), and draws 1000 per chain by default, as
  :func:`pp_corr.hierarchical_test` does (baycomp: 50000 per chain, or 10000 through ``sample``; ``nsamples``
  sets the draws per chain). Its priors are baycomp's by default (pp_corr's ``priors="older"``); the other set
  accepted is pp_corr's ``"current"`` one.
- :class:`CorrelatedTTest`'s ``sample`` is seeded by ``random_state`` (baycomp's is not).
- The sign test's ``prior`` pair is (strength, region), the order in which baycomp's code reads it.
- Arguments are checked before any work and errors name them; lists and pandas Series are accepted.
"""
from __future__ import annotations

import dataclasses
import inspect
import numbers
from functools import cached_property

import numpy as np

from ._args import check_count, check_flag, check_real, warn_percent_scale
from .data.scores import warn_one_run
from .pairwise.intraclass import folds_from_runs
from .pairwise.rank_tests import bayesian_sign_test, bayesian_signed_rank, heaviside
from .pairwise.ttest import correlated_ttest

LEFT, ROPE, RIGHT = 0, 1, 2  # the regions, in the order of the probabilities
BAYCOMP_SIGMA_FACTOR = 1000  # baycomp's upper_sigma; pp_corr's bounds are 1000 times the data's spread too


def _scores(x, y, ndim, shape_words):
    """x and y as float arrays of ``ndim`` dimensions and one shape; errors name x and y."""
    arrays = []
    for name, values in (("x", x), ("y", y)):
        try:
            array = np.asarray(values, dtype=float)
        except (TypeError, ValueError) as err:
            raise TypeError(f"{name} must be an array of numbers: {err}") from None
        if array.ndim != ndim:
            raise ValueError(f"{name} must be a {ndim}-dimensional array ({shape_words}), got shape {array.shape}")
        arrays.append(array)
    if arrays[0].shape != arrays[1].shape:
        raise ValueError(f"x and y must have the same shape, got {arrays[0].shape} and {arrays[1].shape}")
    return arrays


def _rope(rope) -> float:
    return check_real("rope", rope, low=0)


def _folds(runs, n_scores) -> int:
    """The folds per run of ``runs`` (baycomp's default, one run, when None: with more than 10 scores an
    :class:`pp_corr.AssumptionWarning` says so, as it makes rho = 1/n and the test far too sure)."""
    if runs is None:
        warn_one_run(n_scores, "give runs=r (baycomp's default is one run)", stacklevel=4)
        runs = 1
    return folds_from_runs(runs, n_scores)


def _nsamples(nsamples) -> int:
    return check_count("nsamples", nsamples)


def _random_state(random_state):
    """An int >= 0, a numpy Generator or None (baycomp's ``random_state``), passed on as pp_corr's seed."""
    if random_state is None or isinstance(random_state, np.random.Generator):
        return random_state
    if isinstance(random_state, (bool, np.bool_)) or not isinstance(random_state, numbers.Integral):
        raise TypeError(f"random_state must be an int, a numpy Generator or None, got {random_state!r}")
    if random_state < 0:
        raise ValueError(f"random_state must be >= 0, got {random_state}")
    return int(random_state)


def _names(names):
    if names is None:
        return None
    if isinstance(names, (str, bytes)) or np.ndim(names) != 1 or len(names) != 2:
        raise ValueError(f"names must be a pair of names (of x's and y's algorithm), got {names!r}")
    return tuple(str(name) for name in names)


def _renamed(result, names):
    """``result`` (a frozen pp_corr result) with other algorithm names, for a plot's labels."""
    return result if names is None else dataclasses.replace(result, names=_names(names))


class CorrelatedPosterior:
    """The Student-t posterior of the mean difference y - x on one data set, as :class:`CorrelatedTTest` returns it.

    ``mean``, ``var`` (the squared scale) and ``df`` are the posterior's parameters (``var`` is 0 when every
    difference is equal: a point mass); ``meanx`` and ``meany`` the mean scores; ``result`` the
    :class:`pp_corr.CorrelatedTTestResult`.

    >>> post = CorrelatedTTest([80.0, 82.0, 85.0, 81.0], [83.0, 84.0, 86.0, 85.0])
    >>> post.df, round(post.mean, 3)
    (3.0, 2.5)
    """

    def __init__(self, result, rope, meanx, meany, nsamples, random_state):
        self.result = result
        self.rope = rope
        self.meanx, self.meany = meanx, meany
        self.names = result.names
        self.nsamples = nsamples
        self.random_state = random_state
        self.mean = float(result.mean)
        self.df = float(2 * result.scaled_posterior.a)
        self.var = 0.0 if result.degenerate else float(result.posterior.kwds["scale"]) ** 2

    def probs(self):
        """(p_left, p_right) without a rope, (p_left, p_rope, p_right) with one: exact posterior probabilities.

        >>> [round(p, 4) for p in CorrelatedTTest([80.0, 82.0, 85.0, 81.0], [83.0, 84.0, 86.0, 85.0]).probs()]
        [0.0425, 0.9575]
        """
        res = self.result
        if self.rope == 0:
            return float(res.p_left), float(res.p_right)
        return float(res.p_left), float(res.p_rope), float(res.p_right)

    @cached_property
    def sample(self):
        """``nsamples`` draws of the mean difference (the same array on every access), seeded by ``random_state``.

        >>> CorrelatedTTest([80.0, 82.0, 85.0, 81.0], [83.0, 84.0, 86.0, 85.0], nsamples=5).sample.shape
        (5,)
        """
        if self.var == 0:
            return np.full(self.nsamples, self.mean)
        return self.result.posterior.rvs(size=self.nsamples, random_state=np.random.default_rng(self.random_state))

    def plot(self, names=None):
        """The posterior density with the regions shaded (:func:`pp_corr.plots.plot_posterior`); a Figure.

        >>> CorrelatedTTest([80.0, 82.0, 85.0, 81.0], [83.0, 84.0, 86.0, 85.0], rope=1).plot().axes[0].get_xlabel()
        'mean difference B - A (positive: B better)'
        """
        from .plots import plot_posterior

        return plot_posterior(_renamed(self.result, names)).figure


class CorrelatedTTest:
    """The Bayesian correlated t-test on one data set; calling the class returns a :class:`CorrelatedPosterior`.

    ``x`` and ``y`` are the scores of the two algorithms from ``runs`` repetitions of k-fold cross-validation
    (k = len(x) / runs; the correlation 1/k corrects the variance), ``rope`` a half-width (0: none),
    ``nsamples`` and ``random_state`` are for ``sample`` only.

    >>> [round(p, 3) for p in CorrelatedTTest.probs([80.0, 82.0, 85.0, 81.0], [83.0, 84.0, 86.0, 85.0], rope=1)]
    [0.019, 0.094, 0.887]
    """

    LEFT, ROPE, RIGHT = LEFT, ROPE, RIGHT

    def __new__(cls, x, y, rope=0, runs=None, *, names=None, nsamples=50000, random_state=None):
        x, y = _scores(x, y, 1, "the scores of one data set")
        rope, folds = _rope(rope), _folds(runs, len(x))
        nsamples, random_state = _nsamples(nsamples), _random_state(random_state)
        result = correlated_ttest(x, y, folds=folds, rope=rope or None, names=_names(names))
        return CorrelatedPosterior(result, rope, float(np.mean(x)), float(np.mean(y)), nsamples, random_state)

    @classmethod
    def compute_statistics(cls, x, y, runs=None):
        """(mean, var, df) of the posterior Student-t of y - x.

        >>> CorrelatedTTest.compute_statistics([1.0, 2.0, 3.0, 4.0], [2.0, 2.0, 5.0, 5.0], runs=2)[2]
        3.0
        """
        post = cls(x, y, runs=runs)
        return post.mean, post.var, post.df

    @classmethod
    def sample(cls, x, y, runs=None, *, nsamples=50000, random_state=None):
        """``nsamples`` draws of the mean difference.

        >>> CorrelatedTTest.sample([1.0, 2.0, 3.0, 4.0], [2.0, 2.0, 5.0, 5.0], nsamples=3, random_state=0).shape
        (3,)
        """
        return cls(x, y, runs=runs, nsamples=nsamples, random_state=random_state).sample

    @classmethod
    def probs(cls, x, y, rope=0, runs=None):
        """(p_left, p_right), or (p_left, p_rope, p_right) when ``rope > 0``.

        >>> [round(p, 3) for p in CorrelatedTTest.probs([1.0, 2.0, 3.0, 4.0], [2.0, 2.0, 5.0, 5.0])]
        [0.104, 0.896]
        """
        return cls(x, y, rope, runs).probs()

    @classmethod
    def plot(cls, x, y, rope=0, runs=None, *, names=None):
        """The posterior density as a Figure.

        >>> CorrelatedTTest.plot([1.0, 2.0, 3.0, 4.0], [2.0, 2.0, 5.0, 5.0], names=("nbc", "j48")).axes[0].get_xlabel()
        'mean difference j48 - nbc (positive: j48 better)'
        """
        return cls(x, y, rope, runs, names=names).plot()


def two_on_single(x, y, rope=0, runs=None, *, names=None, plot=False):
    """Compare two algorithms on one data set by the correlated t-test: the probabilities, and with ``plot=True``
    the pair (probabilities, Figure).

    >>> [round(p, 4) for p in two_on_single([80.0, 82.0, 85.0, 81.0], [83.0, 84.0, 86.0, 85.0])]
    [0.0425, 0.9575]
    """
    plot = check_flag("plot", plot)
    posterior = CorrelatedTTest(x, y, rope, runs, names=names)
    return (posterior.probs(), posterior.plot()) if plot else posterior.probs()


class SampledPosterior:
    """Draws of (P(left), P(rope), P(right)) for several data sets, as the sign, signed-rank and hierarchical tests
    return them.

    ``sample`` holds the draws (n, 3); ``regions`` the :class:`pp_corr.RegionProbabilities`; ``result`` the
    pp_corr result they come from (the :class:`pp_corr.HierarchicalResult` for the hierarchical test).

    >>> post = SignTest([80.0, 81.0, 79.0, 90.0], [82.0, 84.0, 79.5, 91.0], rope=1, nsamples=1000, random_state=0)
    >>> post.sample.shape, len(post.probs())
    ((1000, 3), 3)
    """

    def __init__(self, regions, rope, result=None):
        self.regions = regions
        self.result = regions if result is None else result
        self.rope = rope
        self.names = regions.names
        self.sample = regions.samples

    def probs(self, with_rope=True):
        """The shares of draws in which each region is the most probable (ties halved): (p_left, p_rope,
        p_right), or with ``with_rope=False`` (p_left, p_right), the shares in which P(left) > P(right) and the
        reverse.

        >>> SignTest([80.0, 81.0, 79.0], [80.0, 81.0, 79.0], random_state=0).probs(with_rope=False)
        (0.5, 0.5)
        """
        if with_rope:
            return tuple(float(share) for share in self.regions.wins)
        left_minus_right = self.sample[:, LEFT] - self.sample[:, RIGHT]
        return float(heaviside(left_minus_right).mean()), float(heaviside(-left_minus_right).mean())

    def plot(self, names=None):
        """:meth:`plot_simplex`, or :meth:`plot_histogram` when P(rope) stays below 0.1 in every draw.

        >>> post = SignedRankTest([80.0, 81.0, 79.0], [82.0, 84.0, 79.5], nsamples=500, random_state=0)
        >>> post.plot().axes[0].get_xlabel()
        'P(B better) in a draw'
        """
        if np.max(self.sample[:, ROPE]) < 0.1:
            return self.plot_histogram(names)
        return self.plot_simplex(names)

    def plot_simplex(self, names=None):
        """The draws in the probability simplex (:func:`pp_corr.plots.plot_simplex`); a Figure.

        >>> post = SignTest([80.0, 81.0, 79.0], [82.0, 84.0, 79.5], rope=1, nsamples=500, random_state=0)
        >>> len(post.plot_simplex(names=("nbc", "j48")).axes)
        1
        """
        from .plots import plot_simplex

        return plot_simplex(_renamed(self.regions, names)).figure

    def plot_histogram(self, names=None):
        """A histogram of the draws of P(right), the legend giving (p_left, p_right) of ``probs(False)``; a Figure.

        >>> post = SignedRankTest([80.0, 81.0, 79.0], [82.0, 84.0, 79.5], nsamples=500, random_state=0)
        >>> post.plot_histogram(names=("nbc", "j48")).axes[0].get_xlabel()
        'P(j48 better) in a draw'
        """
        import matplotlib.pyplot as plt

        from .palette import A_BETTER, B_BETTER, INK

        a, b = _names(names) or self.names
        p_left, p_right = self.probs(with_rope=False)
        fig, ax = plt.subplots(figsize=(6, 4), layout="constrained")
        right = self.sample[:, RIGHT]
        edges = np.linspace(0, 1, 51)
        for keep, color, label in ((right < 0.5, A_BETTER, f"{a} more probable: {p_left:.3f} of the draws"),
                                   (right >= 0.5, B_BETTER, f"{b} more probable: {p_right:.3f} of the draws")):
            ax.hist(right[keep], bins=edges, color=color, label=label)
        ax.axvline(0.5, color=INK, lw=1)
        ax.set_xlim(0, 1)
        ax.set_xlabel(f"P({b} better) in a draw")
        ax.set_ylabel("draws")
        ax.legend(fontsize=8, frameon=False)
        return fig


class _SampledTest:
    """The class methods shared by the tests on several data sets; calling a test class returns its
    :class:`SampledPosterior`."""

    LEFT, ROPE, RIGHT = LEFT, ROPE, RIGHT
    NSAMPLES = 50000

    def __new__(cls, x, y, rope=0, *, nsamples=None, random_state=None, names=None, **kwargs):
        takes = list(inspect.signature(cls._posterior).parameters)
        unknown = [name for name in kwargs if name not in takes]
        if unknown:
            raise TypeError(f"{cls.__name__} got an unexpected keyword argument {unknown[0]!r}: it takes "
                            f"{', '.join(takes)}")
        nsamples = cls.NSAMPLES if nsamples is None else _nsamples(nsamples)
        return cls._posterior(x, y, _rope(rope), nsamples=nsamples, random_state=_random_state(random_state),
                              names=_names(names), **kwargs)

    @classmethod
    def sample(cls, x, y, rope=0, *, nsamples=None, random_state=None, **kwargs):
        """The draws (n, 3) of (P(left), P(rope), P(right))."""
        return cls(x, y, rope, nsamples=nsamples, random_state=random_state, **kwargs).sample

    @classmethod
    def probs(cls, x, y, rope=0, *, nsamples=None, **kwargs):
        """(p_left, p_right), or (p_left, p_rope, p_right) when ``rope > 0``: shares of draws (see the module)."""
        posterior = cls(x, y, rope, nsamples=nsamples, **kwargs)
        return posterior.probs(with_rope=posterior.rope > 0)

    @classmethod
    def plot(cls, x, y, rope=0, *, nsamples=None, names=None, **kwargs):
        """The draws as a Figure (:meth:`SampledPosterior.plot`)."""
        return cls(x, y, rope, nsamples=nsamples, names=names, **kwargs).plot()

    @classmethod
    def plot_simplex(cls, x, y, rope=0, *, nsamples=None, names=None, **kwargs):
        """The draws in the probability simplex, a Figure."""
        return cls(x, y, rope, nsamples=nsamples, names=names, **kwargs).plot_simplex()

    @classmethod
    def plot_histogram(cls, x, y, *, nsamples=None, names=None, **kwargs):
        """A histogram of the draws of P(right) without a rope, a Figure."""
        return cls(x, y, 0, nsamples=nsamples, names=names, **kwargs).plot_histogram()


class SignTest(_SampledTest):
    """The Bayesian sign test on one mean score per data set (:func:`pp_corr.bayesian_sign_test`).

    ``prior`` is the prior's strength, put on the rope, or a pair (strength, region) with the region
    ``SignTest.LEFT``, ``SignTest.ROPE`` or ``SignTest.RIGHT``.

    >>> probs = SignTest.probs([80.0, 81.0, 79.0, 90.0], [82.0, 84.0, 79.5, 91.0], rope=1, random_state=0)
    >>> tuple(round(p, 2) for p in probs)  # Monte Carlo: later digits depend on the draws
    (0.0, 0.69, 0.31)
    """

    @classmethod
    def _posterior(cls, x, y, rope, *, prior=1, nsamples, random_state, names):
        x, y = _scores(x, y, 1, "one mean score per data set")
        strength, region = prior if isinstance(prior, tuple) else (prior, ROPE)
        strength = check_real("prior", strength, low=0)
        if isinstance(region, (bool, np.bool_)) or not isinstance(region, numbers.Integral) or region not in (
                LEFT, ROPE, RIGHT):
            raise ValueError(f"prior must be a strength or a pair (strength, region) with the region SignTest.LEFT, "
                             f"SignTest.ROPE or SignTest.RIGHT, got {prior!r}")
        z0 = {LEFT: -rope - 1.0, ROPE: 0.0, RIGHT: rope + 1.0}[region]  # a point in the region
        regions = bayesian_sign_test(x, y, rope=rope, prior_strength=strength, z0=z0, draws=nsamples,
                                     random_seed=random_state)
        return SampledPosterior(_renamed(regions, names), rope)


class SignedRankTest(_SampledTest):
    """The Bayesian signed-rank test on one mean score per data set (:func:`pp_corr.bayesian_signed_rank`);
    ``prior`` is the strength of the Dirichlet process's pseudo-observation at 0 (0: the limit s -> 0).

    >>> SignedRankTest.probs([80.0, 81.0, 79.0, 90.0], [82.0, 84.0, 79.5, 91.0], random_state=0)
    (0.0, 1.0)
    """

    @classmethod
    def _posterior(cls, x, y, rope, *, prior=0.5, nsamples, random_state, names):
        x, y = _scores(x, y, 1, "one mean score per data set")
        regions = bayesian_signed_rank(x, y, rope=rope, prior_strength=check_real("prior", prior, low=0),
                                       draws=nsamples, random_seed=random_state)
        return SampledPosterior(_renamed(regions, names), rope)


class HierarchicalTest(_SampledTest):
    """The hierarchical model over data sets (:func:`pp_corr.hierarchical_test`); the draws are a new data set's
    (P(left), P(rope), P(right)).

    ``x`` and ``y`` are (data sets, scores) from ``runs`` repetitions of cross-validation. ``lower_alpha``,
    ``upper_alpha``, ``lower_beta``, ``upper_beta`` bound the prior of nu's Gamma (baycomp's 1, 2, 0.01, 0.1, or
    pp_corr's current 0.5, 5, 0.05, 0.15); ``chains`` and ``nsamples`` (draws per chain; default 1000) set the
    sampling, ``random_state`` seeds it. A fit takes a minute on 54 data sets, for example (10 runs of 10 folds)::

        post = HierarchicalTest(nbc, j48, rope=1, runs=10, random_state=1)
        post.probs(), post.result.summary()

    Arguments are checked before any work:

    >>> HierarchicalTest(np.zeros((3, 10)), np.ones((3, 10)), upper_sigma=100)
    Traceback (most recent call last):
    ...
    ValueError: upper_sigma must be 1000, got 100: for other limits use pp_corr.hierarchical_test(bounds=...)
    """

    NSAMPLES = None

    @classmethod
    def _posterior(cls, x, y, rope, *, runs=None, lower_alpha=1, upper_alpha=2, lower_beta=0.01, upper_beta=0.1,
                   upper_sigma=BAYCOMP_SIGMA_FACTOR, chains=4, nsamples, random_state, names):
        from .hierarchical.fit import hierarchical_test
        from .hierarchical.priors import PRIORS

        x, y = _scores(x, y, 2, "data sets x scores")
        warn_percent_scale(x, y, rope, stacklevel=3)  # the caller of HierarchicalTest(...)
        folds = _folds(runs, x.shape[1])
        bounds = {"lower_alpha": lower_alpha, "upper_alpha": upper_alpha, "lower_beta": lower_beta,
                  "upper_beta": upper_beta}
        given = tuple(check_real(name, value, low=0) for name, value in bounds.items())
        priors = [key for key, prior in PRIORS.items() if given == (*prior["alpha"], *prior["beta"])]
        if not priors:
            choices = "; ".join(f"{tuple(PRIORS[k]['alpha'] + PRIORS[k]['beta'])} ({k})" for k in PRIORS)
            raise ValueError(f"lower_alpha, upper_alpha, lower_beta, upper_beta must be one of {choices}, "
                             f"got {given}")
        if check_real("upper_sigma", upper_sigma, low=0, low_open=True) != BAYCOMP_SIGMA_FACTOR:
            raise ValueError(f"upper_sigma must be {BAYCOMP_SIGMA_FACTOR}, got {upper_sigma!r}: for other limits "
                             "use pp_corr.hierarchical_test(bounds=...)")
        fit = hierarchical_test(x, y, rope=rope, folds=folds, priors=priors[0], names=names, draws=nsamples,
                                chains=chains, random_seed=random_state)
        return SampledPosterior(fit.new_dataset(), rope, result=fit)


def two_on_multiple(x, y, rope=0, *, runs=None, names=None, plot=False, **kwargs):
    """Compare two algorithms on several data sets: the signed-rank test for one mean score per data set
    (1-D ``x`` and ``y``), the hierarchical test for (data sets, scores) arrays. Returns the probabilities, and
    with ``plot=True`` the pair (probabilities, Figure); ``kwargs`` go to the test (``prior``, ``nsamples``,
    ``random_state``, ...).

    >>> probs = two_on_multiple([80.0, 81.0, 79.0, 90.0], [82.0, 84.0, 79.5, 91.0], rope=1, random_state=0)
    >>> tuple(round(p, 2) for p in probs)  # Monte Carlo: later digits depend on the draws
    (0.0, 0.23, 0.77)
    """
    plot = check_flag("plot", plot)
    if np.ndim(x) == 2:
        posterior = HierarchicalTest(x, y, rope, runs=runs, names=names, **kwargs)
    else:
        posterior = SignedRankTest(x, y, rope, names=names, **kwargs)
    probs = posterior.probs(with_rope=posterior.rope > 0)
    return (probs, posterior.plot()) if plot else probs
