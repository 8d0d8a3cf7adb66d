"""The edge campaign of issue #10: bad and extreme inputs for every public function and the command line.

Written from the public API (``pp_corr.__all__``, the docstrings, ``pp-corr --help``) and the issue, not from the
code. For generated inputs each property asserts either a ValueError/TypeError whose message names the argument
(or the data set), or the documented answer: probabilities in [0, 1] that add up, no NaN where a number is
promised, never another exception type. The ``test_regression_*`` tests are the issue's own examples, one per case.
Oracles are independent of the library: scipy, exact enumeration and fractions, dense matrices, formulas written
out here. Hypothesis runs derandomized (the same examples every run) and without a database.
"""
from __future__ import annotations

import json
import math
import os
import re
import subprocess
import sys
import tempfile
import textwrap
import warnings
from contextlib import ExitStack
from fractions import Fraction
from pathlib import Path
from unittest import mock

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from scipy import stats

import pp_corr
import pp_corr.pairwise.pairs  # noqa: F401 - imported before any stand-in is patched in (see forbid_computation)
import pp_corr.plots  # noqa: F401
import pp_corr.studies.simulation  # noqa: F401
from pp_corr import (NormalGamma, PoissonBinomial, RegionProbabilities, SufficientStats, bayesian_sign_test,
                     bayesian_signed_rank, compare_all_pairs, corrected_ttest, correlated_ttest, differences,
                     example_path, format_pairs, imprecise_signed_rank, intraclass_logp, load_scores, mean_differences,
                     paired_ttest, poisson_binomial_monte_carlo, poisson_test, resolve_rho, sign_test, wilcoxon_test)
from pp_corr.cli import main

ERRORS = (ValueError, TypeError)
NAN, INF = math.nan, math.inf
EXAMPLES = {}  # max_examples of each property, summed in the report


def campaign(n, *extra_checks):
    """Hypothesis settings of this module: ``n`` derandomized examples, no deadline, no database."""
    def register(fn):
        EXAMPLES[fn.__name__] = n
        return settings(max_examples=n, deadline=None, derandomize=True, database=None,
                        suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much,
                                               HealthCheck.data_too_large, *extra_checks])(fn)
    return register


# --- helpers --------------------------------------------------------------------------------------------------------

_ARTICLE = re.compile(r"\b(be|is|got|as|not|of|to|in|with|for|and|on|or|from|by|at|an?|the|takes?|gives?|needs?)"
                      r"\s+a\b", re.IGNORECASE)


def names_any(message, names) -> bool:
    """Whether ``message`` names one of ``names`` as a word (the English article is not the argument ``a``)."""
    for name in names:
        text = _ARTICLE.sub(" ", message) if name == "a" else message
        if re.search(rf"(?<![\w]){re.escape(str(name))}(?![\w])", text, re.IGNORECASE):
            return True
    return False


def check_error(fn, names):
    """``fn()`` raises a ValueError or TypeError naming one of ``names``; any other exception fails the test."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        try:
            result = fn()
        except ERRORS as err:
            assert names_any(str(err), names), f"{type(err).__name__} does not name any of {names}: {err}"
            return err
    pytest.fail(f"no error (expected one naming {names}); returned {str(result)[:300]}")


def error_or_warning(fn, names, words):
    """Where the issue leaves it open: a clear error naming ``names``, or a warning that mentions ``words``."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = fn()
        except ERRORS as err:
            assert names_any(str(err), names), f"{type(err).__name__} does not name any of {names}: {err}"
            return None
    texts = [str(w.message) for w in caught if issubclass(w.category, UserWarning)]
    assert any(any(word.lower() in text.lower() for word in words) for text in texts), \
        f"neither an error naming {names} nor a warning mentioning {words}; warnings: {texts}"
    return result


def quiet(fn, *args, **kwargs):
    """Call without UserWarnings (DegenerateWarning, assumptions); RuntimeWarnings in pp_corr stay errors."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return fn(*args, **kwargs)


def assert_probability(name, p):
    p = np.asarray(p, dtype=float)
    assert not np.isnan(p).any(), f"{name} is NaN: {p}"
    assert ((p >= 0) & (p <= 1)).all(), f"{name} outside [0, 1]: {p!r}"


def assert_sums_to_one(*ps, atol=1e-9):
    total = sum(np.asarray(p, dtype=float) for p in ps)
    np.testing.assert_allclose(total, 1.0, atol=atol, err_msg="probabilities do not add up to 1")


def exact_sum(values) -> Fraction:
    return sum((Fraction(float(v)) for v in np.ravel(values)), Fraction(0))


def decimal_sum(values) -> Fraction:
    """The exact sum of the values as written in decimal (the data's own resolution: 0.85 is 85/100)."""
    return sum((Fraction(repr(float(v))) for v in np.ravel(values)), Fraction(0))


def unit_scale(x):
    """A power of two near max |x|: dividing by it is exact (the oracles work on data of order 1)."""
    top = float(np.max(np.abs(x)))
    return 1.0 if top == 0 else math.ldexp(1.0, math.frexp(top)[1])


def t_oracle(x, rho, rope):
    """P(left), P(rope), P(right) of the correlated t-test under the matching prior, written out here: the posterior
    of mu is Student-t(n - 1, mean, sd sqrt(1/n + rho/(1 - rho))) (rows with spread only)."""
    x = np.atleast_2d(np.asarray(x, dtype=float))
    out = []
    for row in x:
        s = unit_scale(row)
        u = row / s
        n = len(u)
        loc = math.fsum(u) / n
        scale = np.std(u, ddof=1) * math.sqrt(1 / n + rho / (1 - rho))
        lo, hi = (0.0, 0.0) if rope is None else (rope[0] / s, rope[1] / s)
        left = stats.t.cdf((lo - loc) / scale, n - 1)
        right = stats.t.sf((hi - loc) / scale, n - 1)
        out.append((left, 1 - left - right if rope is not None else 0.0, right))
    return np.array(out)


def _bounds(rope):
    """(lo, hi) of a rope given as a half-width or a pair, written here (None without a rope)."""
    if rope is None:
        return None
    return (-float(rope), float(rope)) if np.ndim(rope) == 0 else (float(rope[0]), float(rope[1]))


def grid(low=-400, high=400, denominator=64):
    """Exact binary fractions: multiplying them by a power of two is exact (no underflow in the range used)."""
    return st.integers(low, high).map(lambda i: i / denominator)


def matrices(elements, q=(1, 5), n=(2, 12)):
    return st.tuples(st.integers(*q), st.integers(*n)).flatmap(
        lambda shape: hnp.arrays(np.float64, shape, elements=elements))


WIDE = st.one_of(st.floats(-1e300, 1e300, allow_nan=False, allow_infinity=False), grid(),
                 st.sampled_from([0.0, 1e-300, -1e-300, 5e-324, 1e300, -1e300, 1.0]))
TINY = np.finfo(float).tiny


def scores_frame(rng, datasets, algorithms, runs, folds, *, shift=None, decimals=3):
    rows = []
    for d in datasets:
        for i, a in enumerate(algorithms):
            for r in range(1, runs + 1):
                for f in range(1, folds + 1):
                    base = 0.75 + (shift or {}).get(a, 0.02 * i)
                    rows.append((d, a, r, f, round(float(np.clip(base + rng.normal(0, 0.05), 0, 1)), decimals)))
    return pd.DataFrame(rows, columns=["dataset", "algorithm", "run", "fold", "score"])


# --- 1. magnitudes (acceptance: the sweep 1e-300..1e300) -------------------------------------------------------------

SWEEP = range(-300, 301)
BASE_ROW = np.array([1.0, 2.0, 3.0])
BASE_MATRIX = np.array([[0.01, 0.03, -0.02, 0.02, 0.04, 0.00, 0.01, 0.03, 0.02, -0.01],
                        [0.02, 0.00, 0.01, -0.03, 0.01, 0.02, 0.00, 0.01, -0.01, 0.02],
                        [-0.02, -0.01, 0.00, -0.03, 0.01, -0.02, -0.04, 0.00, -0.01, -0.02]])


def _close(actual, expected, what, rtol=1e-12, atol=0.0):
    np.testing.assert_allclose(np.asarray(actual, dtype=float), np.asarray(expected, dtype=float), rtol=rtol,
                               atol=atol, err_msg=what)


def test_magnitude_sweep_1e_minus_300_to_1e300():
    """Every power of ten from 1e-300 to 1e300: the same answers as the data scaled to 1 (1e-12 relative)."""
    base = quiet(correlated_ttest, BASE_MATRIX, rho=0.1, rope=0.01)
    base_row = quiet(correlated_ttest, BASE_ROW, rho=0)
    base_corrected = corrected_ttest(BASE_MATRIX, rho=0.1)
    base_paired = paired_ttest(BASE_ROW)
    base_poisson = quiet(poisson_test, BASE_MATRIX, rho=0.1, rope=0.01)
    base_logp = intraclass_logp(BASE_MATRIX, 0.01, 0.02, 0.1)
    failures = []
    for k in SWEEP:
        s = 10.0 ** k
        try:
            res = quiet(correlated_ttest, BASE_MATRIX * s, rho=0.1, rope=0.01 * s)
            for name in ("p_left", "p_rope", "p_right"):
                _close(getattr(res, name), getattr(base, name), f"correlated_ttest {name}", atol=1e-15)
            _close(res.mean / s, base.mean, "correlated_ttest mean")
            _close(np.array(res.interval()) / s, np.array(base.interval()), "correlated_ttest interval")
            row = quiet(correlated_ttest, BASE_ROW * s, rho=0)
            _close(row.p_right, base_row.p_right, "correlated_ttest([1, 2, 3] * s) P(B better)")
            cor = corrected_ttest(BASE_MATRIX * s, rho=0.1)
            _close(cor.statistic, base_corrected.statistic, "corrected_ttest statistic")
            _close(cor.pvalue, base_corrected.pvalue, "corrected_ttest pvalue")
            par = paired_ttest(BASE_ROW * s)
            _close(par.pvalue, base_paired.pvalue, "paired_ttest pvalue")
            poi = quiet(poisson_test, BASE_MATRIX * s, rho=0.1, rope=0.01 * s)
            _close([poi.p_b_majority, poi.p_a_majority], [base_poisson.p_b_majority, base_poisson.p_a_majority],
                   "poisson_test P(majority)", atol=1e-15)
            n = BASE_MATRIX.shape[1]
            _close(intraclass_logp(BASE_MATRIX * s, 0.01 * s, 0.02 * s, 0.1) + n * math.log(s), base_logp,
                   "intraclass_logp", rtol=1e-9, atol=1e-9)
        except (AssertionError, ArithmeticError, ValueError, TypeError, RuntimeWarning) as err:
            failures.append(f"1e{k}: {type(err).__name__}: {str(err).strip().splitlines()[0][:150]}")
    assert not failures, f"{len(failures)} of {len(SWEEP)} scales differ from scale 1, e.g.:\n" + "\n".join(
        failures[:: max(1, len(failures) // 12)])


@campaign(60)
@given(x=matrices(grid(), q=(1, 4), n=(2, 10)), k=st.integers(-1000, 1000),
       rho=st.sampled_from([0.0, 0.1, 0.5]), rope=st.sampled_from([None, 0.05, 0.5, (-0.25, 0.125)]))
def test_t_tests_do_not_depend_on_the_unit(x, k, rho, rope):
    """Scaling the data (and the rope) by an exact power of two 2^k, |k| <= 1000, changes no probability."""
    s = math.ldexp(1.0, k)
    scaled_rope = None if rope is None else (rope * s if np.ndim(rope) == 0 else (rope[0] * s, rope[1] * s))
    base = quiet(correlated_ttest, x, rho=rho, rope=rope)
    res = quiet(correlated_ttest, x * s, rho=rho, rope=scaled_rope)
    for name in ("p_left", "p_rope", "p_right"):
        _close(getattr(res, name), getattr(base, name), name, atol=1e-15)
    _close(np.asarray(res.mean) / s, base.mean, "mean", atol=1e-300)
    assume(np.all(np.ptp(x, axis=-1) > 0))
    _close(corrected_ttest(x * s, rho=rho).pvalue, corrected_ttest(x, rho=rho).pvalue, "corrected_ttest pvalue",
           atol=1e-15)
    _close(paired_ttest(x * s).pvalue, paired_ttest(x).pvalue, "paired_ttest pvalue", atol=1e-15)
    poi, poi_base = (quiet(poisson_test, d, rho=rho, rope=r) for d, r in ((x * s, scaled_rope), (x, rope)))
    _close(poi.p_b_majority, poi_base.p_b_majority, "poisson_test p_b_majority", atol=1e-15)


def test_regression_magnitude_1e_minus_170():
    """correlated_ttest([1e-170, 2e-170, 3e-170], rho=0) is the answer of [1, 2, 3], without a degenerate warning."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        tiny = correlated_ttest([1e-170, 2e-170, 3e-170], rho=0)
    assert not [w for w in caught if issubclass(w.category, pp_corr.DegenerateWarning)], "false degenerate warning"
    one = correlated_ttest([1.0, 2.0, 3.0], rho=0)
    expected = stats.t.sf(-2 / (1 / math.sqrt(3)), 2)  # t = mean / (sd / sqrt(n)) = 2 / (1 / sqrt 3), df 2
    _close(one.p_right, expected, "P(B better) of [1, 2, 3]", rtol=1e-10)
    _close(tiny.p_right, one.p_right, "P(B better) of [1, 2, 3] * 1e-170")
    assert not bool(np.asarray(tiny.degenerate).any())


@pytest.mark.parametrize("scale", [1e160, 1e-160, 1e300])
def test_regression_magnitude_1e160(scale):
    """x * 1e160 gave NaN or p = 0.5: every t-test, the Poisson test and all pairs give the unscaled answer."""
    expected = t_oracle(BASE_MATRIX, 0.1, None)
    res = quiet(correlated_ttest, BASE_MATRIX * scale, rho=0.1)
    _close(np.column_stack([res.p_left, res.p_right]), expected[:, [0, 2]], "correlated_ttest", rtol=1e-9)
    pvalue = 2 * np.minimum(expected[:, 0], expected[:, 2])  # two-sided p of the corrected t-test
    _close(corrected_ttest(BASE_MATRIX * scale, rho=0.1).pvalue, pvalue, "corrected_ttest", rtol=1e-9)
    _close(paired_ttest(BASE_MATRIX * scale).pvalue, stats.ttest_1samp(BASE_MATRIX, 0, axis=-1).pvalue,
           "paired_ttest", rtol=1e-9)
    _close(quiet(poisson_test, BASE_MATRIX * scale, rho=0.1).p_b_majority,
           quiet(poisson_test, BASE_MATRIX, rho=0.1).p_b_majority, "poisson_test", rtol=1e-12)
    frame = scores_frame(np.random.default_rng(5), ["d1", "d2", "d3"], ["P", "Q", "R"], 1, 10)
    scaled = frame.assign(score=frame.score * scale)
    table, table_scaled = (quiet(compare_all_pairs, quiet(load_scores, f), rope=r, draws=500, random_seed=0)
                           for f, r in ((frame, 0.01), (scaled, 0.01 * scale)))
    for var in ("p_b_majority", "wilcoxon_pvalue", "signed_rank_right", "sign_right"):
        _close(table_scaled[var].values, table[var].values, f"compare_all_pairs {var}", rtol=1e-9, atol=1e-12)


# --- correlated_ttest, corrected_ttest, paired_ttest, poisson_test ---------------------------------------------------

def _corr_bad(kind, n):
    eye = np.eye(n)
    if kind == "nan":
        return np.where(eye == 1, 1.0, NAN)
    if kind == "asymmetric":
        return eye + np.triu(np.full((n, n), 0.3), 1)
    if kind == "not positive definite":
        return np.where(eye == 1, 1.0, -0.9 if n > 2 else -1.5)
    if kind == "singular":
        return np.ones((n, n))
    return np.eye(n + 1)  # wrong shape


def _ttest_cases():
    """label -> function (x) -> (args, kwargs, names): one bad argument each."""
    def kw(**kwargs):
        names = tuple(k for k in kwargs)
        return lambda x: ((x,), kwargs, names)

    cases = {f"rope={v!r}": kw(rope=v) for v in
             [NAN, INF, -INF, -0.01, "0.01", [0.01], [0.01, 0.02, 0.03], (0.02, -0.02), (NAN, 0.01), (-INF, 0.01)]}
    cases.update({f"rho={v!r}": kw(rho=v) for v in [NAN, INF, -INF, 1.0, 1.5, "0.1"]})
    cases["rho of q + 1 values"] = lambda x: ((x,), {"rho": np.full(np.atleast_2d(x).shape[0] + 1, 0.1)}, ("rho",))
    cases["three rhos, one data set"] = lambda x: ((np.atleast_2d(x)[0],), {"rho": [0.1, 0.1, 0.1]}, ("rho",))
    cases.update({f"folds={v!r}": kw(folds=v) for v in [INF, NAN, 0, 1, -5, 2.5, "10"]})
    cases.update({f"n_train={v!r}": (lambda v: lambda x: ((x,), {"n_test": 10, "n_train": v}, ("n_train",)))(v)
                  for v in [INF, NAN, -90, 0]})
    cases.update({f"n_test={v!r}": (lambda v: lambda x: ((x,), {"n_test": v, "n_train": 90}, ("n_test",)))(v)
                  for v in [INF, NAN, -1]})
    cases.update({f"corr {k}": (lambda k: lambda x: ((x,), {"corr": _corr_bad(k, np.shape(x)[-1])}, ("corr",)))(k)
                  for k in ["nan", "asymmetric", "not positive definite", "singular", "wrong shape"]})
    cases["rho and folds"] = lambda x: ((x,), {"rho": 0.1, "folds": 10}, ("rho", "folds"))
    cases["prior=42"] = kw(prior=42)
    cases["x 3-D"] = lambda x: ((np.stack([np.atleast_2d(x)] * 2, axis=1),), {}, ("x",))
    cases["x with NaN"] = lambda x: ((np.where(np.arange(x.size).reshape(x.shape) == 0, NAN, x),), {}, ("x",))
    cases["x with inf"] = lambda x: ((np.where(np.arange(x.size).reshape(x.shape) == 0, INF, x),), {}, ("x",))
    cases["x empty"] = lambda x: ((np.empty((0, np.shape(x)[-1])),), {}, ("x", "data set", "data sets", "empty"))
    cases["x text"] = lambda x: ((np.full(np.shape(x), "a"),), {}, ("x",))
    cases["y with NaN"] = lambda x: ((x, np.where(np.arange(x.size).reshape(x.shape) == 0, NAN, x)), {}, ("y",))
    cases["y another shape"] = lambda x: ((x, np.atleast_2d(x)[..., :-1]), {}, ("x", "y"))
    return cases


TTEST_CASES = _ttest_cases()
RHO_KEYS = {"rho", "folds", "n_test", "n_train", "corr"}


@campaign(300)
@given(x=matrices(grid(), q=(1, 4), n=(3, 8)), label=st.sampled_from(sorted(TTEST_CASES)),
       test=st.sampled_from(["correlated_ttest", "poisson_test", "corrected_ttest"]))
def test_t_tests_refuse_bad_arguments(x, label, test):
    args, kwargs, names = TTEST_CASES[label](x)
    fn = {"correlated_ttest": correlated_ttest, "poisson_test": poisson_test, "corrected_ttest": corrected_ttest}[test]
    if test == "corrected_ttest" and (label.startswith("rope") or label.startswith("corr") or label == "prior=42"):
        return  # no such argument
    if not RHO_KEYS & set(kwargs):
        kwargs = {**kwargs, "rho": 0.1}
    check_error(lambda: fn(*args, **kwargs), names)


@campaign(30)
@given(alpha=st.sampled_from([NAN, INF, 0.0, 1.0, 2.0, -0.1, "0.05"]), x=matrices(grid(), q=(1, 4), n=(3, 8)))
def test_poisson_test_refuses_bad_alpha(alpha, x):
    check_error(lambda: poisson_test(x, rho=0.1, alpha=alpha), ("alpha",))


@campaign(200)
@given(x=matrices(WIDE, q=(1, 4), n=(2, 10)), rho=st.sampled_from([0.0, 0.1, 1 / 3, 0.9]),
       rope=st.one_of(st.none(), st.floats(0, 1e300), st.sampled_from([(-1.0, 0.5), (-1e-300, 0.0), (0.0, 0.0)])))
def test_correlated_ttest_answers_are_probabilities(x, rho, rope):
    """Any finite data: probabilities in [0, 1] adding up to 1, a finite mean and interval, point masses flagged."""
    has_subnormal = bool(np.any((x != 0) & (np.abs(x) < TINY)))
    try:
        res = quiet(correlated_ttest, x, rho=rho, rope=rope)
    except ERRORS as err:  # only acceptable where no finite answer exists (subnormal inputs at most)
        assert has_subnormal and names_any(str(err), ("x",)), f"refused finite data: {err}"
        return
    p_left, p_rope, p_right = (np.asarray(getattr(res, n), dtype=float) for n in ("p_left", "p_rope", "p_right"))
    for name, p in (("p_left", p_left), ("p_rope", p_rope), ("p_right", p_right), ("p_not_left", res.p_not_left),
                    ("p_not_right", res.p_not_right)):
        assert_probability(name, p)
    assert_sums_to_one(p_left, p_rope, p_right)
    _close(res.p_not_left, 1 - p_left, "p_not_left", rtol=0, atol=1e-12)
    _close(res.p_not_right, 1 - p_right, "p_not_right", rtol=0, atol=1e-12)
    if rope is None:
        assert np.all(p_rope == 0), "without a rope P(rope) is 0"
    mean = np.asarray(res.mean, dtype=float)
    lo, hi = (np.asarray(v, dtype=float) for v in res.interval())
    assert np.isfinite(mean).all() and np.isfinite(lo).all() and np.isfinite(hi).all(), "NaN or inf mean/interval"
    assert np.all(lo <= mean) and np.all(mean <= hi)
    exact_means = np.array([float(exact_sum(row) / len(row)) for row in np.atleast_2d(x)])
    top = np.max(np.abs(np.atleast_2d(x)), axis=-1)  # the mean is ill-conditioned: error relative to max |x|
    assert np.all(np.abs(np.atleast_1d(mean) - exact_means) <= 1e-12 * top + 1e-300), \
        f"posterior mean {mean} vs the mean of the differences {exact_means}"
    constant = np.ptp(np.atleast_2d(x), axis=-1) == 0
    np.testing.assert_array_equal(np.atleast_1d(res.degenerate), constant, err_msg="degenerate flags")
    bounds = _bounds(rope) or (0.0, 0.0)
    for i in np.flatnonzero(constant):
        c = exact_means[i]
        if c > bounds[1]:
            assert np.atleast_1d(p_right)[i] == 1
        elif c < bounds[0]:
            assert np.atleast_1d(p_left)[i] == 1
        elif rope is not None and bounds[0] < c < bounds[1]:
            assert np.atleast_1d(p_rope)[i] == 1
    rows = np.atleast_2d(x)
    spread = np.ptp(rows, axis=-1) > 1e-6 * np.max(np.abs(rows), axis=-1)
    if not has_subnormal and spread.any():
        expected = t_oracle(rows[spread], rho, None if rope is None else bounds)
        got = np.column_stack([np.atleast_1d(p_left)[spread], np.atleast_1d(p_right)[spread]])
        _close(got, expected[:, [0, 2]], "P(A better), P(B better) vs the Student-t written out", rtol=1e-6,
               atol=1e-7)


@campaign(60)
@given(x=matrices(WIDE, q=(1, 3), n=(2, 10)), rho=st.sampled_from([0.0, 0.2]),
       alternative=st.sampled_from(["two-sided", "less", "greater"]))
def test_frequentist_t_tests_match_scipy_at_every_scale(x, rho, alternative):
    rows = x
    assume(np.all(np.ptp(rows, axis=-1) > 1e-6 * np.max(np.abs(rows), axis=-1)))
    assume(not np.any((x != 0) & (np.abs(x) < TINY)))
    scaled = np.array([row / unit_scale(row) for row in rows])
    res = paired_ttest(x, alternative=alternative)
    assert isinstance(res, pp_corr.TTestResult)
    ref = stats.ttest_1samp(scaled, 0, axis=-1, alternative=alternative)
    _close(res.pvalue, ref.pvalue, "paired_ttest pvalue vs scipy", rtol=1e-6, atol=1e-12)
    _close(res.statistic, ref.statistic, "paired_ttest statistic vs scipy", rtol=1e-6)
    cor = corrected_ttest(x, rho=rho, alternative=alternative)
    n = x.shape[-1]
    t = scaled.mean(axis=-1) / (scaled.std(axis=-1, ddof=1) * np.sqrt(1 / n + rho / (1 - rho)))
    p = {"two-sided": 2 * stats.t.sf(np.abs(t), n - 1), "greater": stats.t.sf(t, n - 1),
         "less": stats.t.cdf(t, n - 1)}[alternative]
    _close(cor.statistic, t, "corrected_ttest statistic", rtol=1e-6)
    _close(cor.pvalue, p, "corrected_ttest pvalue", rtol=1e-6, atol=1e-12)
    assert_probability("pvalue", cor.pvalue)


@campaign(40)
@given(level=st.sampled_from([NAN, 0.0, 1.0, 1.5, -0.5, "0.95"]))
def test_result_methods_refuse_bad_levels(level):
    res = correlated_ttest(BASE_MATRIX, rho=0.1, rope=0.01)
    check_error(lambda: res.interval(level), ("confidence_level",))
    check_error(lambda: res.to_frame(confidence_level=level), ("confidence_level",))
    check_error(lambda: corrected_ttest(BASE_MATRIX, rho=0.1).confidence_interval(level), ("confidence_level",))


@campaign(20)
@given(rope=st.sampled_from([NAN, INF, -0.01, "0.01", [0.01], (0.02, -0.02)]))
def test_with_rope_refuses_bad_ropes(rope):
    res = correlated_ttest(BASE_MATRIX, rho=0.1, rope=0.01)
    assert isinstance(res, pp_corr.CorrelatedTTestResult)
    check_error(lambda: res.with_rope(rope), ("rope",))


def _poisson_binomial_exact(p):
    """pmf by enumerating the 2^n outcomes in exact rational arithmetic."""
    p = [Fraction(v) for v in p]
    pmf = [Fraction(0)] * (len(p) + 1)
    for outcome in np.ndindex(*([2] * len(p))):
        prob = Fraction(1)
        for hit, pi in zip(outcome, p):
            prob *= pi if hit else 1 - pi
        pmf[sum(outcome)] += prob
    return pmf


@campaign(50)
@given(x=matrices(grid(-20, 20), q=(1, 6), n=(3, 6)), rho=st.sampled_from([0.0, 0.1]),
       rope=st.sampled_from([None, 0.05, (-0.1, 0.02)]), alpha=st.sampled_from([0.05, 0.2]))
def test_poisson_test_matches_exact_enumeration(x, rho, rope, alpha):
    assume(np.all(np.ptp(x, axis=-1) > 0))
    res = quiet(poisson_test, x, rho=rho, rope=rope, alpha=alpha)
    assert isinstance(res, pp_corr.PoissonTestResult)
    bounds = _bounds(rope)
    probs = t_oracle(x, rho, bounds)
    q = x.shape[0]
    pmf_b = _poisson_binomial_exact(probs[:, 2])
    pmf_a = _poisson_binomial_exact(probs[:, 0])
    p_b = float(sum(pmf_b[k] for k in range(q + 1) if 2 * k > q))
    p_a = float(sum(pmf_a[k] for k in range(q + 1) if 2 * k > q))
    assert_probability("p_b_majority", res.p_b_majority)
    assert_probability("p_a_majority", res.p_a_majority)
    _close([res.p_b_majority, res.p_a_majority], [p_b, p_a], "P(majority) vs enumeration", rtol=1e-6, atol=1e-8)
    expected = "B" if res.p_b_majority > 1 - alpha else "A" if res.p_a_majority > 1 - alpha else "none"
    names = getattr(res, "names", ("A", "B"))
    assert res.decision in (expected, {"A": names[0], "B": names[1]}.get(expected, expected))


# --- NormalGamma, SufficientStats, intraclass_logp, resolve_rho -----------------------------------------------------

NG_BAD = [("mu0", NAN), ("mu0", INF), ("mu0", -INF), ("k0", NAN), ("k0", -INF), ("a", NAN), ("a", INF),
          ("b", NAN), ("b", INF), ("b", -INF), ("a", "1"), ("mu0", None)]


@campaign(40)
@given(case=st.sampled_from(NG_BAD))
def test_normal_gamma_refuses_nonfinite_hyper_parameters(case):
    name, value = case
    check_error(lambda: NormalGamma(**{name: value}), (name,))


@campaign(50)
@given(x=matrices(grid(-64, 64), q=(1, 3), n=(2, 8)), mu0=grid(-64, 64), k0=st.floats(1e-3, 1e3),
       a=st.floats(0.1, 10), b=st.floats(1e-6, 10), rho=st.sampled_from([0.0, 0.1, 0.5]))
def test_proper_prior_posteriors_are_finite(x, mu0, k0, a, b, rho):
    prior = NormalGamma(mu0=mu0, k0=k0, a=a, b=b)
    res = quiet(correlated_ttest, x, rho=rho, prior=prior, rope=0.1)
    for name in ("p_left", "p_rope", "p_right"):
        assert_probability(name, getattr(res, name))
    assert_sums_to_one(res.p_left, res.p_rope, res.p_right)
    assert not np.asarray(res.degenerate).any(), "a proper prior never gives a point mass"
    assert np.isfinite(np.asarray(res.mean, dtype=float)).all()


def _dense_stats(x, corr):
    """GLS mean, Q = r^T M^-1 r and A = 1^T M^-1 1 of one row, by numpy's inverse."""
    m_inv = np.linalg.inv(corr)
    ones = np.ones(len(x))
    effective = ones @ m_inv @ ones
    mean = ones @ m_inv @ x / effective
    resid = x - mean
    return mean, resid @ m_inv @ resid, effective


@campaign(60)
@given(x=hnp.arrays(np.float64, st.integers(2, 7), elements=grid()), rho=st.sampled_from([0.0, 0.1, 0.5, 0.9]),
       seed=st.integers(0, 2**16), general=st.booleans())
def test_sufficient_stats_match_dense_matrices(x, rho, seed, general):
    n = len(x)
    if general:
        g = np.random.default_rng(seed).normal(size=(n, n))
        cov = g @ g.T + n * np.eye(n)
        corr = cov / np.sqrt(np.outer(np.diag(cov), np.diag(cov)))
        corr = (corr + corr.T) / 2
        s = SufficientStats.from_samples(x, corr=corr)
    else:
        corr = (1 - rho) * np.eye(n) + rho
        s = SufficientStats.from_samples(x, rho=rho)
    mean, q, effective = _dense_stats(x, corr)
    _close(s.mean, mean, "GLS mean", rtol=1e-9, atol=1e-12)
    _close(s.weighted_ss, q, "weighted sum of squares", rtol=1e-8, atol=1e-10)
    _close(s.effective_n, effective, "effective n", rtol=1e-9)
    assert bool(np.asarray(s.zero_variance)) == bool(np.ptp(x) == 0)


@campaign(40)
@given(x=hnp.arrays(np.float64, st.integers(3, 6), elements=grid()),
       case=st.sampled_from(["rho nan", "rho 1", "rho inf", "corr nan", "corr asymmetric", "corr not positive definite",
                             "corr singular", "corr wrong shape", "x nan"]))
def test_sufficient_stats_refuse_bad_arguments(x, case):
    n = len(x)
    if case.startswith("rho"):
        value = {"rho nan": NAN, "rho 1": 1.0, "rho inf": INF}[case]
        check_error(lambda: SufficientStats.from_samples(x, rho=value), ("rho",))
    elif case.startswith("corr"):
        check_error(lambda: SufficientStats.from_samples(x, corr=_corr_bad(case[5:], n)), ("corr",))
    else:
        check_error(lambda: SufficientStats.from_samples(np.where(np.arange(n) == 1, NAN, x), rho=0.1), ("x",))


@campaign(60)
@given(x=hnp.arrays(np.float64, st.integers(1, 6), elements=grid()), mu=grid(), sigma=st.floats(0.01, 10),
       rho_frac=st.floats(0.01, 0.99), k=st.integers(-1000, 1000))
def test_intraclass_logp_matches_scipy_and_the_unit(x, mu, sigma, rho_frac, k):
    n = len(x)
    low = -1 / (n - 1) if n > 1 else -0.99
    rho = low + rho_frac * (1 - low)
    cov = sigma**2 * ((1 - rho) * np.eye(n) + rho)
    expected = stats.multivariate_normal(np.full(n, mu), cov).logpdf(x)
    _close(intraclass_logp(x, mu, sigma, rho), expected, "logp vs scipy", rtol=1e-8, atol=1e-8)
    s = math.ldexp(1.0, k)
    _close(intraclass_logp(x * s, mu * s, sigma * s, rho) + n * math.log(s), expected,
           f"logp at scale 2^{k}", rtol=1e-8, atol=1e-8)


@campaign(40)
@given(case=st.sampled_from([("sigma", 0.0), ("sigma", -1.0), ("sigma", NAN), ("sigma", INF), ("rho", NAN),
                             ("rho", 1.0), ("rho", -0.6), ("rho", 1.5), ("mu", NAN), ("mu", INF), ("x", NAN)]))
def test_intraclass_logp_refuses_bad_arguments(case):
    name, value = case
    args = {"x": np.array([0.1, -0.2, 0.4]), "mu": 0.0, "sigma": 0.5, "rho": 0.3}
    args[name] = np.array([0.1, value, 0.4]) if name == "x" else value
    check_error(lambda: intraclass_logp(**args), (name,))


RHO_BAD = [({"folds": INF}, ("folds",)), ({"folds": NAN}, ("folds",)), ({"folds": 1}, ("folds",)),
           ({"folds": 0}, ("folds",)), ({"folds": -3}, ("folds",)), ({"folds": 2.5}, ("folds",)),
           ({"n_test": 10, "n_train": INF}, ("n_train",)), ({"n_test": INF, "n_train": 90}, ("n_test",)),
           ({"n_test": NAN, "n_train": 90}, ("n_test",)), ({"n_test": 10, "n_train": -5}, ("n_train",)),
           ({"n_test": 10, "n_train": 0}, ("n_train",)), ({"n_test": 10}, ("n_train",)),
           ({"rho": NAN}, ("rho",)), ({"rho": 1.0}, ("rho",)), ({"rho": INF}, ("rho",)),
           ({"rho": 0.1, "folds": 10}, ("rho", "folds"))]


@campaign(40)
@given(case=st.sampled_from(RHO_BAD))
def test_resolve_rho_refuses_bad_arguments(case):
    kwargs, names = case
    check_error(lambda: resolve_rho(**kwargs), names)


@campaign(40)
@given(folds=st.integers(2, 10**6), n_test=st.integers(1, 10**9), n_train=st.integers(1, 10**9),
       rho=st.floats(0, 0.999))
def test_resolve_rho_valid(folds, n_test, n_train, rho):
    _close(resolve_rho(folds=folds), 1 / folds, "1 / folds")
    _close(resolve_rho(n_test=n_test, n_train=n_train), n_test / (n_test + n_train), "n_test / (n_test + n_train)")
    _close(resolve_rho(rho), rho, "rho")


# --- PoissonBinomial and its Monte Carlo estimate -------------------------------------------------------------------

PROBS = st.one_of(st.floats(0, 1), st.sampled_from([0.0, 1.0, 1e-300, 0.5, 1 - 2**-53, 2**-53]))


@campaign(150)
@given(p=st.lists(PROBS, min_size=0, max_size=7), near_one=st.lists(st.floats(1e-300, 1e-3), max_size=2))
def test_poisson_binomial_matches_exact_enumeration(p, near_one):
    """pmf, cdf and sf against exact rational enumeration; every value a probability (never above 1)."""
    complement = [1 - v for v in p] + list(near_one)  # exact for the first part, the accurate 1 - p for the rest
    probs = list(p) + [1 - c for c in near_one]
    X = PoissonBinomial(probs, complement=complement) if near_one else PoissonBinomial(probs)
    exact_p = [Fraction(v) for v in p] + [1 - Fraction(c) for c in near_one]
    pmf = _poisson_binomial_exact(exact_p)
    n = len(exact_p)
    got = np.asarray(X.pmf(), dtype=float)
    _close(got, [float(v) for v in pmf], "pmf", rtol=1e-11, atol=1e-300)
    for k in range(-1, n + 2):
        cdf, sf = float(X.cdf(k)), float(X.sf(k))
        assert_probability(f"cdf({k})", cdf)
        assert_probability(f"sf({k})", sf)
        exact_cdf = float(sum(pmf[: max(0, min(k, n) + 1)], Fraction(0)))
        _close(cdf, exact_cdf, f"cdf({k})", rtol=1e-11, atol=1e-300)
        _close(sf, float(sum(pmf[max(0, k + 1):], Fraction(0))), f"sf({k})", rtol=1e-11, atol=1e-300)
    _close(X.mean, float(sum(exact_p, Fraction(0))), "mean", rtol=1e-12, atol=1e-300)
    _close(X.var, float(sum((v * (1 - v) for v in exact_p), Fraction(0))), "var", rtol=1e-10, atol=1e-300)


@campaign(30)
@given(bad=st.sampled_from([NAN, 1.5, -0.1, INF, "0.5"]), where=st.sampled_from(["p", "complement"]))
def test_poisson_binomial_refuses_bad_probabilities(bad, where):
    if where == "p":
        check_error(lambda: PoissonBinomial([0.2, bad, 0.7]), ("p",))
    else:
        check_error(lambda: PoissonBinomial([0.2, 0.5], complement=[0.8, bad]), ("complement",))


@campaign(40)
@given(p=st.lists(PROBS, min_size=1, max_size=5), n_draws=st.integers(500, 3000), seed=st.integers(0, 2**20))
def test_poisson_binomial_monte_carlo_within_its_standard_error(p, n_draws, seed):
    pmf, se = poisson_binomial_monte_carlo(p, draws=n_draws, random_seed=seed)
    exact = np.array([float(v) for v in _poisson_binomial_exact(p)])
    assert_probability("pmf", pmf)
    assert np.isfinite(se).all() and (np.asarray(se) >= 0).all()
    _close(np.sum(pmf), 1.0, "pmf sums to 1", rtol=0, atol=1e-9)
    tolerance = 5 * np.sqrt(exact * (1 - exact) / n_draws) + 1e-12
    assert np.all(np.abs(pmf - exact) <= tolerance), f"pmf {pmf} vs exact {exact}"


@campaign(40)
@given(case=st.sampled_from([("p", [0.5, 1.5]), ("p", [0.5, NAN]), ("p", [-0.2]), ("draws", 0), ("draws", -10),
                             ("draws", 2.5), ("chunk", 0), ("random_seed", -1)]))
def test_poisson_binomial_monte_carlo_refuses_bad_arguments(case):
    name, value = case
    kwargs = {"p": [0.3, 0.6], "draws": 100, "random_seed": 0, name: value}
    check_error(lambda: poisson_binomial_monte_carlo(**kwargs), (name,))


def test_regression_poisson_binomial_above_one():
    """PoissonBinomial returned 1.0000000000000016: no cdf, sf or pmf value above 1 (seeded random p vectors)."""
    rng = np.random.default_rng(0)
    worst = 0.0
    for _ in range(3000):
        n = int(rng.integers(1, 30))
        p = rng.random(n) ** rng.choice([1, 0.1, 10])
        X = PoissonBinomial(p)
        values = np.concatenate([X.pmf(), [X.cdf(k) for k in range(-1, n + 1)], [X.sf(k) for k in range(-1, n + 1)]])
        worst = max(worst, float(values.max()))
    assert worst <= 1.0, f"a probability of {worst!r}"


def test_regression_poisson_binomial_monte_carlo_bad_p():
    check_error(lambda: poisson_binomial_monte_carlo([0.5, 1.2], draws=100, random_seed=0), ("p",))
    check_error(lambda: poisson_binomial_monte_carlo([0.5, NAN], draws=100, random_seed=0), ("p",))
    check_error(lambda: poisson_binomial_monte_carlo([0.5, 0.2], draws=0, random_seed=0), ("draws",))


# --- rank tests ----------------------------------------------------------------------------------------------------

SMALL_Z = st.integers(-8, 8).map(lambda i: i / 64)
RANK_BAD = ([("rope", v) for v in [NAN, INF, -INF, -0.01, "0.01", [0.01], (0.02, -0.02), (NAN, 0.0)]]
            + [("prior_strength", v) for v in [NAN, INF, -1.0, "1"]]
            + [("z0", v) for v in [NAN, INF, -INF]]
            + [("draws", v) for v in [0, -5, 2.5, INF, NAN]]
            + [("random_seed", v) for v in [-1, "a"]])
IMPRECISE_BAD = ([("loss_ratio", v) for v in [NAN, INF, 0.0, -1.0, "19"]] + [("draws", v) for v in [0, -5, 2.5]]
                 + [("random_seed", -1)])


@campaign(250)
@given(z=hnp.arrays(np.float64, st.integers(2, 10), elements=SMALL_Z),
       case=st.sampled_from([("bayesian_sign_test", c) for c in RANK_BAD]
                            + [("bayesian_signed_rank", c) for c in RANK_BAD]
                            + [("imprecise_signed_rank", c) for c in IMPRECISE_BAD]
                            + [(t, ("alternative", v)) for t in ("sign_test", "wilcoxon_test")
                               for v in ["bigger", "", None]]
                            + [(t, ("x", "nan")) for t in ("bayesian_sign_test", "bayesian_signed_rank",
                                                           "imprecise_signed_rank", "sign_test", "wilcoxon_test")]
                            + [(t, ("y", "nan")) for t in ("bayesian_sign_test", "sign_test", "wilcoxon_test")]))
def test_rank_tests_refuse_bad_arguments(z, case):
    test, (name, value) = case
    fn = getattr(pp_corr, test)
    kwargs = {"draws": 200, "random_seed": 0} if test.startswith(("bayesian", "imprecise")) else {}
    if name == "x":
        check_error(lambda: fn(np.where(np.arange(len(z)) == 0, NAN, z), **kwargs), ("x",))
    elif name == "y":
        check_error(lambda: fn(z, np.where(np.arange(len(z)) == 0, NAN, z), **kwargs), ("y",))
    else:
        check_error(lambda: fn(z, **{**kwargs, name: value}), (name,))


def _regions(z, lo, hi):
    return np.where(z < lo, 0, np.where(z > hi, 2, 1))


@campaign(80)
@given(z=hnp.arrays(np.float64, st.integers(1, 12), elements=SMALL_Z),
       rope=st.sampled_from([0.0, 0.01, 0.05, (-0.02, 0.01), (0.0, 0.03)]),
       s=st.sampled_from([0.0, 0.5, 1.0, 2.0]), z0=st.sampled_from([0.0, 0.2, -0.2]), seed=st.integers(0, 2**20))
def test_bayesian_sign_test_matches_the_dirichlet_mean(z, rope, s, z0, seed):
    """Posterior means (n_region + s [z0 in region]) / (q + s); zeros fall in the rope (closed) when rope = 0."""
    lo, hi = _bounds(rope)
    assume(s > 0 or len(z) > 0)
    n_samples = 4000
    res = bayesian_sign_test(z, rope=rope, prior_strength=s, z0=z0, draws=n_samples, random_seed=seed)
    counts = np.bincount(_regions(z, lo, hi), minlength=3).astype(float)
    counts[_regions(np.array([z0]), lo, hi)[0]] += s
    expected = counts / counts.sum()
    got = np.array([res.p_left, res.p_rope, res.p_right])
    assert_probability("region probabilities", got)
    assert_sums_to_one(*got)
    samples = np.asarray(res.samples)
    assert samples.shape == (n_samples, 3) and np.allclose(samples.sum(axis=1), 1)
    sd = np.sqrt(expected * (1 - expected) / (counts.sum() + 1))
    assert np.all(np.abs(got - expected) <= 5 * sd / math.sqrt(n_samples) + 1e-9), f"{got} vs {expected}"
    wins = np.array([res.win_left, res.win_rope, res.win_right])
    assert_probability("wins", wins)
    assert_sums_to_one(*wins)


@campaign(60)
@given(z=hnp.arrays(np.float64, st.integers(1, 10), elements=SMALL_Z), r=st.sampled_from([0.01, 0.05]),
       s=st.sampled_from([0.0, 0.5, 1.0]), seed=st.integers(0, 2**20))
def test_bayesian_signed_rank_matches_the_dirichlet_moments(z, r, s, seed):
    """E[sum w_i w_j H(z_i + z_j - 2r)] with (w0, w) ~ Dir(s, 1, .., 1): E w_i w_j = a_i a_j / (S (S + 1)) off the
    diagonal, a_i (a_i + 1) / (S (S + 1)) on it."""
    n_samples = 4000
    res = bayesian_signed_rank(z, rope=r, prior_strength=s, draws=n_samples, random_seed=seed)
    values = np.concatenate([[0.0], z])
    alpha = np.concatenate([[s], np.ones(len(z))])
    big = alpha.sum()
    pair = values[:, None] + values[None, :]
    second = (np.outer(alpha, alpha) + np.diag(alpha)) / (big * (big + 1))
    expected = np.array([(second * (pair < -2 * r)).sum(), 0.0, (second * (pair > 2 * r)).sum()])
    expected[1] = 1 - expected[0] - expected[2]
    got = np.array([res.p_left, res.p_rope, res.p_right])
    assert_probability("region probabilities", got)
    assert_sums_to_one(*got)
    sd = np.asarray(res.samples).std(axis=0)
    assert np.all(np.abs(got - expected) <= 5 * sd / math.sqrt(n_samples) + 1e-9), f"{got} vs {expected}"


@campaign(60)
@given(z=hnp.arrays(np.float64, st.integers(1, 12), elements=SMALL_Z), loss=st.sampled_from([1.0, 4.0, 19.0, 99.0]),
       seed=st.integers(0, 2**20))
def test_imprecise_signed_rank_bounds_match_the_formula(z, loss, seed):
    assume(np.all(z != 0) and np.all(z[:, None] + z[None, :] != 0))
    res = imprecise_signed_rank(z, loss_ratio=loss, draws=2000, random_seed=seed)
    assert isinstance(res, pp_corr.ImpreciseSignedRankResult)
    s, q = (math.sqrt(17) - 3) / 2, len(z)
    lower_mean = ((z[:, None] + z[None, :] > 0).sum() + (2 * z > 0).sum()) / ((s + q) * (s + q + 1))
    upper_mean = lower_mean + (s * s + 2 * q * s + s) / ((s + q) * (s + q + 1))
    _close([res.lower_mean, res.upper_mean], [lower_mean, upper_mean], "posterior means", rtol=1e-9)
    for name in ("lower", "upper", "lower_mean", "upper_mean"):
        assert_probability(name, getattr(res, name))
    assert res.lower <= res.upper
    threshold = loss / (1 + loss)
    _close(res.threshold, threshold, "threshold l1 / (l0 + l1)")
    expected = "B" if res.lower > threshold else "A" if res.upper < threshold else "indeterminate"
    assert res.decision in (expected, {"A": res.names[0], "B": res.names[1]}.get(expected, expected))


@campaign(80)
@given(z=hnp.arrays(np.float64, st.integers(1, 14), elements=SMALL_Z),
       alternative=st.sampled_from(["two-sided", "less", "greater"]))
def test_sign_and_wilcoxon_tests_match_scipy(z, alternative):
    nonzero = z[z != 0]
    sign = sign_test(z, alternative=alternative)
    assert_probability("sign test pvalue", sign.pvalue)
    if len(nonzero):
        ref = stats.binomtest(int((nonzero > 0).sum()), len(nonzero), 0.5, alternative=alternative).pvalue
        _close(sign.pvalue, ref, "sign test vs scipy.stats.binomtest", rtol=1e-12)
    elif alternative == "two-sided":
        assert float(sign.pvalue) == 1.0, "no non-zero difference: no evidence either way"
    wil = wilcoxon_test(z, alternative=alternative)
    assert_probability("wilcoxon pvalue", wil.pvalue)
    if len(nonzero) == len(z) and len(np.unique(np.abs(z))) == len(z):
        _close(wil.pvalue, stats.wilcoxon(z, alternative=alternative).pvalue, "wilcoxon vs scipy", rtol=1e-12)


@campaign(30)
@given(z=hnp.arrays(np.float64, st.integers(2, 10), elements=SMALL_Z), r=st.sampled_from([0.0, 0.01, 0.05]),
       seed=st.integers(0, 2**20))
def test_rope_pair_equals_half_width(z, r, seed):
    for fn in (bayesian_sign_test, bayesian_signed_rank):
        one = fn(z, rope=r, draws=500, random_seed=seed)
        two = fn(z, rope=(-r, r), draws=500, random_seed=seed)
        _close([two.p_left, two.p_rope, two.p_right], [one.p_left, one.p_rope, one.p_right], fn.__name__,
               rtol=0, atol=1e-12)


@campaign(20)
@given(left=st.sampled_from([[NAN], [-0.1], [1.2], [0.7]]), right=st.sampled_from([[0.2], [0.6]]))
def test_region_probabilities_from_tails(left, right):
    if 0 <= left[0] <= 1 and left[0] + right[0] <= 1:
        res = RegionProbabilities.from_tails(left, right, "example", 0.01, ("A", "B"))
        assert_sums_to_one(res.p_left, res.p_rope, res.p_right)
        return
    check_error(lambda: RegionProbabilities.from_tails(left, right, "example", 0.01, ("A", "B")), ("left", "right"))


@campaign(20)
@given(alpha=st.sampled_from([NAN, 0.0, 1.0, 2.0, "0.05"]))
def test_region_probabilities_decision_refuses_bad_alpha(alpha):
    res = bayesian_sign_test([0.02, 0.01, -0.01, 0.03], rope=0.005, draws=200, random_seed=0)
    check_error(lambda: res.decision(alpha), ("alpha",))


def test_regression_rank_tests_reject_nonfinite_parameters():
    z = [0.02, 0.01, 0.03, -0.01, 0.02]
    for fn in (bayesian_sign_test, bayesian_signed_rank):
        for name, value in [("rope", NAN), ("rope", INF), ("prior_strength", NAN), ("prior_strength", INF),
                            ("z0", NAN), ("z0", INF), ("draws", 0), ("draws", -1)]:
            check_error(lambda: fn(z, **{name: value}, random_seed=0), (name,))
    for name, value in [("loss_ratio", NAN), ("loss_ratio", INF), ("draws", 0), ("draws", -1)]:
        check_error(lambda: imprecise_signed_rank(z, **{name: value}, random_seed=0), (name,))


def test_regression_rank_tests_accept_rope_pair():
    """The rank tests rejected the rope pair that correlated_ttest accepts ('<' not supported)."""
    z = [0.02, 0.01, 0.03, -0.01, 0.02, 0.0]
    for fn in (bayesian_sign_test, bayesian_signed_rank):
        pair = fn(z, rope=(-0.015, 0.015), draws=1000, random_seed=3)
        half = fn(z, rope=0.015, draws=1000, random_seed=3)
        _close([pair.p_left, pair.p_rope, pair.p_right], [half.p_left, half.p_rope, half.p_right], fn.__name__)
    res = bayesian_sign_test(z, rope=(-0.005, 0.025), draws=20000, random_seed=0)
    # left: -0.01; rope: 0.02, 0.01, -0.005 < 0, 0.02 and the prior at 0; right: 0.03 -> (1, 5 + 1, 1) / 7
    _close([res.p_left, res.p_rope, res.p_right], [1 / 7, 5 / 7, 1 / 7], "asymmetric rope", rtol=0, atol=0.01)


def test_regression_sign_test_all_zero():
    """sign_test on all-zero differences returned NaN: no evidence either way is p = 1."""
    res = sign_test(np.zeros(6))
    assert float(res.pvalue) == 1.0
    for alternative in ("less", "greater"):
        assert_probability("pvalue", sign_test(np.zeros(6), alternative=alternative).pvalue)
    assert_probability("wilcoxon pvalue", wilcoxon_test(np.zeros(6)).pvalue)
    bayes = bayesian_sign_test(np.zeros(6), rope=0, draws=2000, random_seed=0)
    _close([bayes.p_left, bayes.p_rope, bayes.p_right], [0, 1, 0], "all ties and the prior in the rope", atol=1e-12)


def test_regression_wilcoxon_tie_on_one_dataset():
    """Wilcoxon (and so compare_all_pairs) crashed when two algorithms tie on one data set."""
    z = np.array([0.02, 0.0, 0.01, -0.005, 0.03, 0.015])
    res = wilcoxon_test(z, alternative="greater")
    assert_probability("pvalue", res.pvalue)
    # zero dropped (Wilcoxon's own treatment): ranks of 0.005, 0.01, 0.015, 0.02, 0.03 -> W+ = 14 of 15, exact
    _close(res.pvalue, stats.wilcoxon(z[z != 0], alternative="greater").pvalue, "wilcoxon without the tie",
           rtol=0, atol=0.06)
    frame = scores_frame(np.random.default_rng(1), ["d1", "d2", "d3", "d4"], ["P", "Q", "R"], 1, 5)
    tie = frame.query("dataset == 'd2' and algorithm == 'P'").score.values
    frame.loc[(frame.dataset == "d2") & (frame.algorithm == "Q"), "score"] = tie
    table = quiet(compare_all_pairs, quiet(load_scores, frame), draws=500, random_seed=0)
    off = ~np.eye(3, dtype=bool)
    for var in ("p_b_majority", "wilcoxon_pvalue", "signed_rank_right", "sign_right"):
        assert_probability(var, table[var].values[off])


# --- mean_differences, differences and ties (issue case 2) ----------------------------------------------------------

@campaign(120)
@given(data=st.data(), q=st.integers(1, 6), n=st.integers(2, 12), resolution=st.sampled_from([30, 100, 1000]))
def test_a_tie_stays_zero(data, q, n, resolution):
    """Fold scores on a resolution grid; B repeats A's scores in another order on some data sets (an exact tie):
    the mean difference is exactly 0 there and has the sign of the exact difference elsewhere."""
    a = np.array(data.draw(st.lists(st.lists(st.integers(0, resolution), min_size=n, max_size=n),
                                    min_size=q, max_size=q))) / resolution
    b = a.copy()
    for i in range(q):
        if data.draw(st.booleans(), label=f"tie on data set {i}"):
            b[i] = data.draw(st.permutations(list(a[i])))
        else:
            b[i] = np.array(data.draw(st.lists(st.integers(0, resolution), min_size=n, max_size=n))) / resolution
    exact = np.array([decimal_sum(b[i]) - decimal_sum(a[i]) for i in range(q)])
    # the sign of the difference of the grid values (integers / resolution): the floats' own sums may differ by a
    # rounding residue when the grid sums are equal (1/30 + 9/30 against 10/30), and that is a tie too
    grid = np.rint(b * resolution).astype(int).sum(axis=1) - np.rint(a * resolution).astype(int).sum(axis=1)
    sign = np.sign(grid)
    z, names, datasets = mean_differences(a, b)
    np.testing.assert_array_equal(np.sign(z), sign, err_msg=f"mean differences {z!r}, exact signs {sign}")
    ds = quiet(load_scores, {"A": a, "B": b}, runs=1)
    z_ds = mean_differences(ds, algorithms=("A", "B"))[0]
    np.testing.assert_array_equal(np.sign(z_ds), sign, err_msg=f"Dataset path: {z_ds!r}")
    _close(z, [float(d) / n for d in exact], "mean differences", rtol=1e-12, atol=1e-15)


def test_regression_rank_ties_uci54_j48_j48gr(uci54):
    """uci54 j48 vs j48gr, rope 0: exact ties stay 0, so the sign test's P(j48gr better) is 28 / 55 = 0.509."""
    a = uci54.score.sel(algorithm="j48").values
    b = uci54.score.sel(algorithm="j48gr").values
    exact = [decimal_sum(b[i][np.isfinite(b[i])]) - decimal_sum(a[i][np.isfinite(a[i])]) for i in range(a.shape[0])]
    ties, wins = sum(d == 0 for d in exact), sum(d > 0 for d in exact)
    z = mean_differences(uci54, algorithms=("j48", "j48gr"))[0]
    assert int((z == 0).sum()) == ties and int((z > 0).sum()) == wins
    q = len(z)
    res = bayesian_sign_test(uci54, algorithms=("j48", "j48gr"), rope=0, random_seed=0)
    expected = wins / (q + 1)  # prior 1 at z0 = 0, in the rope
    se = math.sqrt(expected * (1 - expected) / (q + 2) / 50000)
    assert abs(res.p_right - expected) < 4 * se, (res.p_right, expected)
    assert round(expected, 3) == 0.509
    freq = sign_test(uci54, algorithms=("j48", "j48gr"), alternative="greater")
    _close(freq.pvalue, stats.binomtest(wins, q - ties, alternative="greater").pvalue, "sign test", rtol=1e-12)
    # the 15 exact ties reach Wilcoxon as zeros (and so compare_all_pairs): an answer, that of scipy on exact z
    counts = np.isfinite(a).reshape(q, -1).sum(axis=1)
    z_exact = np.array([float(d / int(n)) for d, n in zip(exact, counts)])
    wil = wilcoxon_test(uci54, algorithms=("j48", "j48gr"), alternative="greater")
    _close(wil.pvalue, stats.wilcoxon(z_exact, alternative="greater").pvalue, "wilcoxon with ties", rtol=0,
           atol=0.01)
    table = quiet(compare_all_pairs, uci54.sel(algorithm=["j48", "j48gr"]), rope=0.0, draws=1000, random_seed=0)
    off = ~np.eye(2, dtype=bool)
    for var in ("p_b_majority", "wilcoxon_pvalue", "signed_rank_right", "sign_right"):
        assert_probability(var, table[var].values[off])


@campaign(40)
@given(case=st.sampled_from(["unknown a", "unknown b", "a == b", "text names"]))
def test_differences_refuses_bad_names(case):
    ds = quiet(load_scores, example_path())
    a, b = {"unknown a": ("nope", "knn"), "unknown b": ("knn", "nope"), "a == b": ("knn", "knn"),
            "text names": (3, "knn")}[case]
    names = {"a == b": ("knn", "a", "b"), "text names": ("a", "3")}.get(case, ("nope",))
    check_error(lambda: differences(ds, a, b), names)
    if case != "text names":
        check_error(lambda: mean_differences(ds, algorithms=(a, b)), names + ("algorithms",))


@campaign(30)
@given(case=st.sampled_from(["y nan", "x nan", "shape", "3-D", "empty"]))
def test_mean_differences_refuses_bad_input(case):
    x = np.array([[0.8, 0.9], [0.7, 0.6]])
    args, names = {"y nan": ((x, np.array([[0.8, NAN], [0.7, 0.6]])), ("y",)),
                   "x nan": ((np.array([[0.8, NAN], [0.7, 0.6]]), x), ("x",)),
                   "shape": ((x, x[:, :1]), ("x", "y")),
                   "3-D": ((np.zeros((2, 2, 2, 2)),), ("x",)),
                   "empty": ((np.empty((0, 3)),), ("x", "data set", "data sets", "empty"))}[case]
    check_error(lambda: mean_differences(*args), names)


# --- compare_all_pairs and format_pairs -----------------------------------------------------------------------------

@campaign(25)
@given(seed=st.integers(0, 2**20), q=st.integers(2, 5), k=st.integers(2, 4), ties=st.booleans(),
       rope=st.sampled_from([0.0, 0.01, 0.05]), alpha=st.sampled_from([0.05, 0.2]))
def test_compare_all_pairs_answers(seed, q, k, ties, rope, alpha):
    rng = np.random.default_rng(seed)
    algorithms = ["P", "Q", "R", "S"][:k]
    frame = scores_frame(rng, [f"d{i}" for i in range(q)], algorithms, 1, 4)
    if ties:  # Q repeats P on the first data set (and everywhere when rope = 0)
        mask = frame.dataset.eq("d0") | (rope == 0)
        frame.loc[mask & frame.algorithm.eq("Q"), "score"] = frame.loc[mask & frame.algorithm.eq("P"), "score"].values
    ds = quiet(load_scores, frame)
    table = quiet(compare_all_pairs, ds, rope=rope, alpha=alpha, draws=300, random_seed=seed)
    off = ~np.eye(k, dtype=bool)
    for var in ("p_b_majority", "wilcoxon_pvalue", "signed_rank_right", "sign_right"):
        assert_probability(var, table[var].values[off])
    for var in [v for v in table.data_vars if v.startswith("decision_")]:
        assert set(table[var].values[off].ravel()) <= set(algorithms) | {"none", "rope"}, var
    a, b = str(table.a.values[0]), str(table.b.values[1])
    _close(float(table.p_b_majority.sel(a=a, b=b)),
           quiet(poisson_test, ds, algorithms=(a, b), rope=rope).p_b_majority, "p_b_majority = poisson_test's")
    text = format_pairs(table)
    assert all(name in text for name in algorithms)


@campaign(30)
@given(case=st.sampled_from([("alpha", v) for v in [NAN, 0.0, 1.0, 1.5, -0.1]]
                            + [("rope", v) for v in [NAN, INF, -0.01, "0.01"]]
                            + [("draws", v) for v in [0, -1, 2.5]] + [("prior", 42), ("random_seed", -1)]))
def test_compare_all_pairs_refuses_bad_arguments(case):
    name, value = case
    ds = quiet(load_scores, example_path())
    kwargs = {"draws": 200, "random_seed": 0, name: value}
    check_error(lambda: compare_all_pairs(ds, **kwargs), (name,))


@campaign(10)
@given(table=st.sampled_from([42, "table", None, pd.DataFrame({"a": [1]})]))
def test_format_pairs_refuses_what_is_not_a_table(table):
    check_error(lambda: format_pairs(table), ("table",))


def test_regression_compare_all_pairs_alpha():
    ds = quiet(load_scores, example_path())
    for alpha in (0.0, 1.0, 1.5, -0.2, NAN):
        check_error(lambda: compare_all_pairs(ds, alpha=alpha, draws=200, random_seed=0), ("alpha",))


# --- load_scores ----------------------------------------------------------------------------------------------------

TRICKY_NAMES = ["NA", "None", "null", "nan", "NaN", "N/A", "001", "1", "1.0", "01", "true", "0", "-", "a b", "é",
                "x,y", "#1", "n/a"]


@campaign(60)
@given(data=st.data(), runs=st.integers(1, 2), folds=st.integers(2, 4), as_csv=st.booleans())
def test_load_scores_reads_names_as_text(data, runs, folds, as_csv):
    datasets = data.draw(st.lists(st.sampled_from(TRICKY_NAMES), min_size=1, max_size=3, unique=True))
    algorithms = data.draw(st.lists(st.sampled_from(TRICKY_NAMES), min_size=2, max_size=3, unique=True))
    frame = scores_frame(np.random.default_rng(len(datasets) * 7 + folds), datasets, algorithms, runs, folds)
    frame["dataset"] = frame["dataset"].astype(object)
    frame["algorithm"] = frame["algorithm"].astype(object)
    with tempfile.TemporaryDirectory() as tmp:
        source = frame
        if as_csv:
            source = Path(tmp) / "scores.csv"
            frame.to_csv(source, index=False)
        ds = quiet(load_scores, source)
    assert sorted(map(str, ds.dataset.values)) == sorted(datasets)
    assert sorted(map(str, ds.algorithm.values)) == sorted(algorithms)
    for (d, a), group in frame.groupby(["dataset", "algorithm"]):
        values = ds.score.sel(dataset=d, algorithm=a).values.ravel()
        assert sorted(values[np.isfinite(values)]) == sorted(group.score), f"scores of {d!r}, {a!r}"
    _close(ds.rho.values, np.full(len(datasets), 1 / folds), "rho = 1 / folds")


LOAD_BAD = ([({"runs": v}, ("runs",)) for v in [0, -1, 2.5, INF, NAN, "2", 3]]
            + [({"folds": v}, ("folds",)) for v in [INF, NAN, 0, 1, -2, 2.5, 7]]
            + [({"n_test": 10, "n_train": v}, ("n_train",)) for v in [INF, NAN, -5]]
            + [({"n_test": v, "n_train": 90}, ("n_test",)) for v in [INF, NAN, -1]]
            + [({"rho": v}, ("rho",)) for v in [NAN, INF, 1.0]]
            + [({"rho": {"nowhere": 0.1}}, ("nowhere", "rho")), ({"datasets": ["d1"]}, ("datasets",)),
               ({"datasets": ["d1", "d1"]}, ("datasets", "d1"))])


@campaign(60)
@given(case=st.sampled_from(LOAD_BAD))
def test_load_scores_refuses_bad_arguments(case):
    kwargs, names = case
    rng = np.random.default_rng(0)
    source = {"A": rng.uniform(0.7, 0.9, (2, 4)), "B": rng.uniform(0.7, 0.9, (2, 4))}
    kwargs = {"runs": 2, **kwargs} if "runs" not in kwargs else kwargs
    check_error(lambda: load_scores(source, **kwargs), names)


@campaign(20)
@given(case=st.sampled_from(["shapes differ", "text values", "one algorithm", "empty"]))
def test_load_scores_refuses_bad_arrays(case):
    rng = np.random.default_rng(0)
    source, names = {"shapes differ": ({"A": rng.random((2, 4)), "B": rng.random((3, 4))}, ("A", "B")),
                     "text values": ({"A": [["x", "y"]], "B": [[0.5, 0.6]]}, ("A",)),
                     "one algorithm": ({"A": rng.random((2, 4))}, ("algorithm", "algorithms", "A")),
                     "empty": ({}, ("source", "algorithm", "algorithms", "empty"))}[case]
    if case == "one algorithm":  # loading one may be fine; comparing it must not be
        try:
            ds = quiet(load_scores, source, runs=1)
        except ERRORS as err:
            assert names_any(str(err), names), str(err)
            return
        check_error(lambda: correlated_ttest(ds), ("algorithm", "algorithms", "A"))
        return
    check_error(lambda: load_scores(source, runs=1), names)


def test_regression_runs_zero():
    source = {"A": [[0.8, 0.9, 0.85, 0.7]], "B": [[0.82, 0.93, 0.9, 0.75]]}
    check_error(lambda: load_scores(source, runs=0), ("runs",))


def test_regression_null_like_names(tmp_path):
    """NA, None and null are names (read as text); an empty name is refused clearly or kept as it is."""
    frame = scores_frame(np.random.default_rng(2), ["NA", "None", "null"], ["NA", "B"], 1, 3)
    path = tmp_path / "names.csv"
    frame.to_csv(path, index=False)
    ds = quiet(load_scores, path)
    assert sorted(map(str, ds.dataset.values)) == ["NA", "None", "null"]
    assert sorted(map(str, ds.algorithm.values)) == ["B", "NA"]
    empty = frame.copy()
    empty.loc[empty.dataset == "null", "dataset"] = ""
    empty.to_csv(path, index=False)
    try:
        ds = quiet(load_scores, path)
    except ERRORS as err:
        assert names_any(str(err), ("dataset", "data set", "empty", "name", "line")) and "Categorical" not in str(err)
    else:
        assert "" in set(map(str, ds.dataset.values))


def test_regression_names_read_as_text(tmp_path):
    """'001' stayed '1'; '1' and '1.0' merged and then failed as a duplicate."""
    frame = scores_frame(np.random.default_rng(3), ["001", "1", "1.0"], ["01", "1"], 1, 3)
    path = tmp_path / "numbers.csv"
    frame.to_csv(path, index=False)
    ds = quiet(load_scores, path)
    assert sorted(map(str, ds.dataset.values)) == ["001", "1", "1.0"]
    assert sorted(map(str, ds.algorithm.values)) == ["01", "1"]


def test_regression_text_n_test_column(tmp_path):
    frame = scores_frame(np.random.default_rng(4), ["d1", "d2"], ["A", "B"], 1, 3)
    frame["n_test"] = "abc"
    frame["n_train"] = 90
    path = tmp_path / "text.csv"
    frame.to_csv(path, index=False)
    check_error(lambda: load_scores(path), ("n_test",))


def test_regression_non_utf8_file(tmp_path):
    path = tmp_path / "latin1.csv"
    text = "dataset,algorithm,run,fold,score\n" + "".join(
        f"caf\xe9,{a},1,{f},{0.7 + 0.01 * f + (0.02 if a == 'B' else 0):.2f}\n" for a in "AB" for f in range(1, 4))
    path.write_bytes(text.encode("latin-1"))
    try:
        ds = quiet(load_scores, path)
    except ERRORS as err:
        assert names_any(str(err), (str(path), path.name)), f"the file is not named: {err}"
    else:
        assert list(map(str, ds.dataset.values)) == ["café"]


def test_regression_header_only_csv(tmp_path, capsys):
    path = tmp_path / "header.csv"
    path.write_text("dataset,algorithm,run,fold,score\n")
    check_error(lambda: load_scores(path), (str(path), path.name, "empty", "no rows", "no scores", "no data"))
    cli_error(capsys, ["compare", path], (str(path), path.name, "empty", "no rows", "no scores", "no data"))


def test_regression_zero_datasets(capsys):
    x = np.empty((0, 10))
    names = ("x", "data set", "data sets", "empty")
    check_error(lambda: correlated_ttest(x, folds=10), names)
    check_error(lambda: poisson_test(x, folds=10), names)
    for fn in (bayesian_sign_test, bayesian_signed_rank, imprecise_signed_rank, sign_test, wilcoxon_test):
        check_error(lambda: fn(np.empty(0)), names)


def test_regression_one_algorithm(tmp_path, capsys):
    frame = scores_frame(np.random.default_rng(5), ["d1", "d2", "d3"], ["A"], 1, 4)
    path = tmp_path / "one.csv"
    frame.to_csv(path, index=False)
    names = ("algorithm", "algorithms", "A")
    try:
        ds = quiet(load_scores, path)
    except ERRORS as err:
        assert names_any(str(err), names)
    else:
        check_error(lambda: compare_all_pairs(ds, draws=200, random_seed=0), names)
        check_error(lambda: poisson_test(ds), names)
    cli_error(capsys, ["compare", path], names + (str(path),))
    cli_error(capsys, ["compare", path, "--all-pairs"], names + (str(path),))


def test_regression_a_equals_b(tmp_path, capsys):
    ds = quiet(load_scores, example_path())
    check_error(lambda: differences(ds, "knn", "knn"), ("knn", "a", "b"))
    check_error(lambda: correlated_ttest(ds, algorithms=("knn", "knn")), ("knn", "algorithms"))
    check_error(lambda: poisson_test(ds, algorithms=("knn", "knn")), ("knn", "algorithms"))
    cli_error(capsys, ["compare", example_path(), "-a", "knn", "-b", "knn"], ("knn", "-a", "-b"))


def test_regression_percent_scores(tmp_path, capsys):
    """Scores in percent with the default rope 0.01: a warning saying what was assumed (or an error)."""
    frame = scores_frame(np.random.default_rng(6), [f"d{i}" for i in range(5)], ["A", "B"], 1, 10)
    frame["score"] = (frame.score * 100).round(1)
    error_or_warning(lambda: poisson_test(load_scores(frame), rope=0.01), ("score", "scores", "rope"),
                     ("percent", "%"))
    path = tmp_path / "percent.csv"
    frame.to_csv(path, index=False)
    try:
        main(["compare", str(path), "-a", "A", "-b", "B"])
    except SystemExit as exc:
        message = exc.code if isinstance(exc.code, str) else capsys.readouterr().err
        assert exc.code not in (0, None) and ("percent" in message.lower() or "%" in message)
    else:
        err = capsys.readouterr().err
        assert "percent" in err.lower() or "%" in err, f"no word about percentages on stderr: {err!r}"


def test_regression_dict_without_runs():
    """load_scores({...}) without runs= on repeated CV: a warning (AssumptionWarning, a UserWarning) that one run
    was assumed."""
    assert issubclass(pp_corr.AssumptionWarning, UserWarning)
    rng = np.random.default_rng(7)
    source = {"A": rng.uniform(0.7, 0.9, (2, 100)), "B": rng.uniform(0.7, 0.9, (2, 100))}
    with pytest.warns(pp_corr.AssumptionWarning, match="runs"):
        load_scores(source)
    ds = quiet(load_scores, source, runs=10)
    _close(ds.rho.values, [0.1, 0.1], "10 runs of 10 folds: rho = 1/10")


def test_regression_folds_equal_number_of_scores():
    """folds equal to the number of scores of a repeated CV (10 x 10): an error or a warning naming folds."""
    rng = np.random.default_rng(8)
    source = {"A": rng.uniform(0.7, 0.9, (2, 100)), "B": rng.uniform(0.7, 0.9, (2, 100))}
    error_or_warning(lambda: load_scores(source, runs=10, folds=100), ("folds",), ("folds",))
    ds = quiet(load_scores, source, runs=10)
    error_or_warning(lambda: correlated_ttest(ds, folds=100), ("folds",), ("folds",))


def test_regression_rank_test_on_one_dataset():
    """A rank test given the folds of one data set: an error or a warning that there is one data set."""
    rng = np.random.default_rng(9)
    one = rng.normal(0.01, 0.02, (1, 50))
    ds = quiet(load_scores, {"A": rng.uniform(0.7, 0.9, (1, 50)), "B": rng.uniform(0.7, 0.9, (1, 50))}, runs=5)
    for fn in (wilcoxon_test, sign_test, bayesian_signed_rank, bayesian_sign_test, imprecise_signed_rank):
        kwargs = {"random_seed": 0, "draws": 200} if fn not in (wilcoxon_test, sign_test) else {}
        error_or_warning(lambda: fn(one, **kwargs), ("x", "data set", "data sets"), ("data set",))
        error_or_warning(lambda: fn(ds, **kwargs), ("x", "data set", "data sets"), ("data set",))


def test_regression_lower_is_better():
    frame = scores_frame(np.random.default_rng(10), ["d1", "d2", "d3"], ["A", "B"], 1, 10)
    frame["score"] = 1 - frame.score  # errors
    lower = quiet(load_scores, frame, higher_is_better=False)
    negated = quiet(load_scores, frame.assign(score=-frame.score))
    one = correlated_ttest(lower, algorithms=("A", "B"), rope=0.01)
    two = correlated_ttest(negated, algorithms=("A", "B"), rope=0.01)
    _close([one.p_left, one.p_rope, one.p_right], [two.p_left, two.p_rope, two.p_right], "lower is better")


def test_regression_memory_folds_numbered_across_datasets(tmp_path):
    """A 100,000-row CSV whose folds are numbered across data sets loads in seconds and under 500 MB."""
    script = textwrap.dedent("""
        import json, sys, time
        import numpy as np, pandas as pd
        q, n = 1000, 50
        d = np.repeat(np.arange(q), 2 * n)
        a = np.tile(np.repeat(["A", "B"], n), q)
        fold = d * n + np.tile(np.arange(1, n + 1), 2 * q)
        score = np.round(np.random.default_rng(0).uniform(0.6, 0.9, len(d)), 3)
        pd.DataFrame({"dataset": "d" + pd.Series(d).astype(str), "algorithm": a, "run": 1, "fold": fold,
                      "score": score}).to_csv(sys.argv[1], index=False)
        from pp_corr import load_scores
        start = time.perf_counter()
        try:
            ds = load_scores(sys.argv[1])
            out = {"cells": int(np.isfinite(ds.score.values).sum())}
        except ValueError as err:
            out = {"error": str(err)}
        out["seconds"] = time.perf_counter() - start
        # VmHWM, the peak of this program's own address space: ru_maxrss would also count the pytest worker's
        # pages that the child held between fork and exec (600 MB late in a full run)
        status = dict(line.split(":", 1) for line in open("/proc/self/status"))
        out["max_rss_mb"] = int(status["VmHWM"].split()[0]) / 1024
        print(json.dumps(out))
    """)
    proc = _run_limited([sys.executable, "-c", script, str(tmp_path / "big.csv")], timeout=180)
    assert proc.returncode == 0, proc.stderr[-2000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    if "error" in out:
        assert "fold" in out["error"].lower(), out
    else:
        assert out["cells"] == 100_000, out
    assert out["seconds"] < 30 and out["max_rss_mb"] < 500, out


def _run_limited(argv, timeout, memory_gb=4, env=None):
    """A child process with an address-space limit, so a blow-up fails fast instead of filling the machine."""
    import resource

    def limit():
        resource.setrlimit(resource.RLIMIT_AS, (memory_gb << 30, memory_gb << 30))
        os.setsid()

    environment = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MPLBACKEND": "Agg",
                   **(env or {})}
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=limit,
                            env=environment, cwd=Path(__file__).resolve().parents[1])
    try:
        stdout, stderr = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, 9)
        proc.communicate()
        pytest.fail(f"{argv[-3:]} still running after {timeout} s")
    return subprocess.CompletedProcess(argv, proc.returncode, stdout, stderr)


# --- regressions: parameters of the t-tests (issue case 3) ----------------------------------------------------------

def test_regression_normal_gamma_nonfinite():
    for name in ("mu0", "k0", "a", "b"):
        check_error(lambda: NormalGamma(**{name: NAN}), (name,))
    for name in ("mu0", "a", "b"):
        check_error(lambda: NormalGamma(**{name: INF}), (name,))


def test_regression_folds_inf_n_train_inf():
    x = BASE_MATRIX
    check_error(lambda: correlated_ttest(x, folds=INF), ("folds",))
    check_error(lambda: correlated_ttest(x, n_test=10, n_train=INF), ("n_train",))
    check_error(lambda: poisson_test(x, folds=INF), ("folds",))
    check_error(lambda: resolve_rho(n_test=10, n_train=INF), ("n_train",))


def test_regression_rho_vector_length():
    """One data set with three rhos gave three results, and poisson_test counted three data sets."""
    x = BASE_MATRIX[0]
    check_error(lambda: correlated_ttest(x, rho=[0.1, 0.1, 0.1]), ("rho",))
    check_error(lambda: poisson_test(x[None, :], rho=[0.1, 0.1, 0.1]), ("rho",))
    check_error(lambda: correlated_ttest(BASE_MATRIX, rho=[0.1, 0.1]), ("rho",))


def test_regression_corr_not_valid():
    for kind in ("nan", "asymmetric", "not positive definite", "singular", "wrong shape"):
        check_error(lambda: correlated_ttest(BASE_MATRIX[0], corr=_corr_bad(kind, 10)), ("corr",))


def test_regression_x_3d():
    x = np.zeros((2, 3, 10)) + BASE_MATRIX[:2, None, :]
    check_error(lambda: correlated_ttest(x, folds=10), ("x",))
    check_error(lambda: poisson_test(x, folds=10), ("x",))
    check_error(lambda: corrected_ttest(x, folds=10), ("x",))


def test_regression_rope_spellings():
    """rope=np.array(0.01) equals 0.01; rope='0.01' and rope=[0.01] are refused naming rope (not unpacking errors)."""
    x = BASE_MATRIX
    ref = correlated_ttest(x, rho=0.1, rope=0.01)
    for spelling in (np.array(0.01), np.float64(0.01), np.array([-0.01, 0.01])):
        res = correlated_ttest(x, rho=0.1, rope=spelling)
        _close(res.p_rope, ref.p_rope, f"rope={spelling!r}")
    for bad in ("0.01", [0.01], (0.01,)):
        check_error(lambda: correlated_ttest(x, rho=0.1, rope=bad), ("rope",))
        check_error(lambda: poisson_test(x, rho=0.1, rope=bad), ("rope",))
        check_error(lambda: bayesian_sign_test(x, rope=bad, draws=100, random_seed=0), ("rope",))
        check_error(lambda: bayesian_signed_rank(x, rope=bad, draws=100, random_seed=0), ("rope",))


def test_regression_nan_in_y_reported_as_y():
    x = BASE_MATRIX
    y = x.copy()
    y[1, 3] = NAN
    for fn in (correlated_ttest, corrected_ttest, poisson_test):
        err = check_error(lambda: fn(x, y, rho=0.1), ("y",))
        assert not re.search(r"(?<!\w)x contains", str(err)), f"the NaN of y reported as x: {err}"
    check_error(lambda: mean_differences(x, y), ("y",))


def test_regression_nan_prior_message():
    err = check_error(lambda: poisson_test(BASE_MATRIX, rho=0.1, prior=NormalGamma(NAN, 1.0, 1.0, 1.0)),
                      ("prior", "mu0"))
    assert "complement" not in str(err)


def test_regression_plot_confidence_level():
    from pp_corr import plots

    res = correlated_ttest(quiet(load_scores, example_path()), algorithms=("tree", "knn"))
    for level in (0.0, 1.0, 1.5, NAN):
        check_error(lambda: plots.plot_forest(res, confidence_level=level), ("confidence_level",))


def test_regression_plot_unknown_dataset():
    from pp_corr import plots

    res = correlated_ttest(quiet(load_scores, example_path()), algorithms=("tree", "knn"))
    check_error(lambda: plots.plot_posterior(res, dataset="no such data set"), ("no such data set", "dataset"))
    check_error(lambda: plots.plot_posterior(res, dataset=17), ("17", "dataset"))


# --- the command line -----------------------------------------------------------------------------------------------

def cli_error(capsys, argv, names):
    """main(argv) exits non-zero with one line starting 'pp-corr' that names one of ``names``; no traceback."""
    capsys.readouterr()
    with pytest.raises(SystemExit) as info:
        main([str(a) for a in argv])
    captured = capsys.readouterr()
    code = info.value.code
    assert code not in (0, None), f"exit status 0 for {argv}"
    assert "Traceback" not in captured.err
    if isinstance(code, str):
        message = code.strip()
        assert "\n" not in message, f"not one line: {message!r}"
    else:
        lines = captured.err.strip().splitlines()
        message = lines[-1] if lines else ""
    assert message.startswith("pp-corr"), f"message does not start with pp-corr: {message!r}"
    assert names_any(message, names), f"{message!r} names none of {names}"
    return message


def cli_ok(capsys, argv):
    capsys.readouterr()
    try:
        code = main([str(a) for a in argv])
    except SystemExit as exc:
        pytest.fail(f"{argv} exited: {exc.code!r} {capsys.readouterr().err[-500:]}")
    assert code in (0, None)
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err
    return captured


class ComputationStarted(Exception):
    """Raised by stand-ins for the computations the command line must not reach before checking its arguments."""


def forbid_computation():
    stack = ExitStack()

    def stop(*args, **kwargs):
        raise ComputationStarted("the computation started before the arguments and output path were checked")

    names = ("pp_corr.pairwise.ttest", "pp_corr.pairwise.poisson_test", "pp_corr.pairwise.pairs",
             "pp_corr.pairwise.rank_tests", "pp_corr.hierarchical.model", "pp_corr.studies.simulation")
    modules = [pp_corr, sys.modules["pp_corr.cli"]] + [sys.modules[m] for m in names if m in sys.modules]
    for module in modules:
        for name in ("correlated_ttest", "poisson_test", "compare_all_pairs", "hierarchical_test",
                     "bayesian_signed_rank", "bayesian_sign_test", "imprecise_signed_rank", "wilcoxon_test",
                     "sign_test", "toy_example", "experiment_1", "experiment_2", "bayesian_network_study",
                     "study_statistics"):
            if name in vars(module):
                stack.enter_context(mock.patch.object(module, name, stop))
    return stack


@pytest.fixture(scope="module")
def small_csv(tmp_path_factory):
    folder = tmp_path_factory.mktemp("edges_cli")
    frame = scores_frame(np.random.default_rng(11), ["d1", "d2", "d3", "d4"], ["P", "Q", "R"], 2, 5)
    path = folder / "scores.csv"
    frame.to_csv(path, index=False)
    return path


ROPES = {"0": True, "0.01": True, "0.5": True, "nan": False, "inf": False, "-0.1": False, "abc": False, "": False}
SEEDS = {"0": True, "7": True, "-1": False, "1.5": False, "x": False}
PRIORS = {"matching": True, "0,1,2,0.01": True, "nan,1,1,1": False, "1,2": False, "a,b,c,d": False,
          "0,1,inf,1": False, "0,-1,2,1": False}
PAIRS = {None: True, ("P", "Q"): True, ("P", "zzz"): False, ("Q", "Q"): False}
OUTPUTS = {None: True, "out.json": True, "out.csv": True, "missing/out.json": False, "out.txt": False,
           "existing_dir": False}
COLUMNS = {None: True, "score=score": True, "score=nonexistent": False, "bogus=score": False}


@campaign(60, HealthCheck.function_scoped_fixture)
@given(rope=st.sampled_from(sorted(ROPES)), seed=st.sampled_from(sorted(SEEDS)), prior=st.sampled_from(sorted(PRIORS)),
       pair=st.sampled_from(list(PAIRS)), output=st.sampled_from(list(OUTPUTS)),
       column=st.sampled_from(list(COLUMNS)), all_pairs=st.booleans(), lower=st.booleans())
def test_cli_compare_options(capsys, small_csv, rope, seed, prior, pair, output, column, all_pairs, lower):
    """Any mix of good and bad options: an answer (and a parseable file) when all are good, else a one-line
    pp-corr error naming one of the bad ones - before any computation."""
    folder = Path(tempfile.mkdtemp(dir=small_csv.parent))
    (folder / "existing_dir").mkdir()
    argv = ["compare", small_csv, f"--rope={rope}", f"--seed={seed}", f"--prior={prior}"]
    bad = []
    for valid, names in ((ROPES[rope], ("--rope", "rope")), (SEEDS[seed], ("--seed", "seed")),
                         (PRIORS[prior], ("--prior", "prior"))):
        if not valid:
            bad += names
    if all_pairs:
        argv.append("--all-pairs")
    elif pair:
        argv += ["-a", pair[0], "-b", pair[1]]
        if not PAIRS[pair]:
            bad += ["zzz", "-b"] if pair[1] == "zzz" else ["Q", "-a", "-b"]
    if output:
        path = folder / output
        argv += ["-o", path]
        if not OUTPUTS[output]:
            bad += [str(path), path.name, "--output", "-o"]
    if column:
        argv += ["--column", column]
        if not COLUMNS[column]:
            bad += ["--column", "column", column.split("=")[0] if column.startswith("bogus") else "nonexistent"]
    if lower:
        argv.append("--lower-is-better")
    if bad:
        with forbid_computation():
            cli_error(capsys, argv, bad)
        if output:
            assert not (folder / output).is_file()
        return
    captured = cli_ok(capsys, argv)
    assert captured.out.strip(), "nothing printed"
    if output in ("out.json", "out.csv"):
        path = folder / output
        assert path.is_file(), "no output file"
        if output == "out.json":
            strict_json(path.read_text())
        else:
            frame = pd.read_csv(path)
            assert len(frame) > 0 and {"a", "b"} <= set(frame.columns)


def strict_json(text):
    def refuse(token):
        raise AssertionError(f"bare {token} in the JSON output (strict parsers reject it)")

    return json.loads(text, parse_constant=refuse)


SIM_BAD = {"--repetitions": ["0", "-3", "2.5", "x"], "--workers": ["0", "-1", "x"], "--alpha": ["2", "0", "1", "nan",
                                                                                                "-0.5"],
           "--seed": ["-1", "x"]}


@campaign(40, HealthCheck.function_scoped_fixture)
@given(study=st.sampled_from(["experiment1", "experiment2", "toy"]),
       bad=st.dictionaries(st.sampled_from(sorted(SIM_BAD)), st.just(None), min_size=0, max_size=3),
       data=st.data(), output_is_file=st.booleans())
def test_cli_simulate_refuses_bad_options_before_simulating(capsys, tmp_path_factory, study, bad, data,
                                                            output_is_file):
    assume(bad or output_is_file)
    folder = tmp_path_factory.mktemp("sim")
    argv = ["simulate", study, "--no-progress"]
    names = []
    for option in bad:
        value = data.draw(st.sampled_from(SIM_BAD[option]), label=option)
        argv.append(f"{option}={value}")
        names.append(option)
    if "--repetitions" not in bad:
        argv.append("--repetitions=5")
    if output_is_file:
        target = folder / "a_file"
        target.write_text("not a directory")
        argv += ["-o", target]
        names += [str(target), "--output", "-o"]
    else:
        argv += ["-o", folder / "out"]
    with forbid_computation():
        cli_error(capsys, argv, names)
    assert not (folder / "out").exists() or not any((folder / "out").iterdir())


def test_regression_cli_missing_file(capsys, tmp_path):
    path = tmp_path / "nope.csv"
    cli_error(capsys, ["compare", path], (str(path),))


def test_regression_cli_directory(capsys, tmp_path):
    cli_error(capsys, ["compare", tmp_path], (str(tmp_path),))


def test_regression_cli_missing_output_directory(capsys, small_csv, tmp_path):
    """-o in a missing directory was reported (with a traceback) after the whole analysis."""
    out = tmp_path / "missing" / "out.json"
    with forbid_computation():
        cli_error(capsys, ["compare", small_csv, "-o", out], (str(out), str(out.parent), "--output", "-o"))
    blocker = tmp_path / "a_file"
    blocker.write_text("x")
    with forbid_computation():  # simulate may create a missing directory, but not inside a file
        cli_error(capsys, ["simulate", "toy", "--repetitions", "5", "-o", blocker / "sub"],
                  (str(blocker / "sub"), str(blocker), "--output", "-o"))


def test_regression_cli_workers_negative(capsys):
    with forbid_computation():
        cli_error(capsys, ["simulate", "toy", "--workers", "-1"], ("--workers",))


def test_regression_cli_seed_negative(capsys, small_csv):
    with forbid_computation():
        cli_error(capsys, ["simulate", "toy", "--seed", "-1"], ("--seed",))
        cli_error(capsys, ["compare", small_csv, "--seed", "-1"], ("--seed",))


def test_regression_cli_simulate_alpha_2(capsys, tmp_path):
    """simulate --alpha 2 failed after the whole simulation."""
    with forbid_computation():
        cli_error(capsys, ["simulate", "toy", "--alpha", "2", "--repetitions", "5", "-o", tmp_path / "o"],
                  ("--alpha",))


def test_regression_cli_existing_file_for_directory(capsys, tmp_path):
    target = tmp_path / "file"
    target.write_text("x")
    with forbid_computation():
        cli_error(capsys, ["simulate", "toy", "--repetitions", "5", "-o", target], (str(target),))


def test_regression_cli_one_dataset_all_pairs(tmp_path, capsys):
    """--all-pairs on one data set: an error, or a warning on stderr that says so."""
    frame = scores_frame(np.random.default_rng(12), ["only"], ["P", "Q", "R"], 1, 10)
    path = tmp_path / "one.csv"
    frame.to_csv(path, index=False)
    try:
        main(["compare", str(path), "--all-pairs"])
    except SystemExit as exc:
        message = exc.code if isinstance(exc.code, str) else capsys.readouterr().err
        assert exc.code not in (0, None) and "data set" in message
    else:
        assert "data set" in capsys.readouterr().err, "no word that there is only one data set"
    ds = quiet(load_scores, frame)
    error_or_warning(lambda: compare_all_pairs(ds, draws=200, random_seed=0), ("data set", "data sets"),
                     ("data set",))


def test_regression_cli_pairwise_output_has_poisson_test(tmp_path, capsys, small_csv):
    """Pairwise -o: stable columns and, per pair, the Poisson test (the headline of the printed output)."""
    out = tmp_path / "pairs.csv"
    cli_ok(capsys, ["compare", small_csv, "--rope", "0.02", "-o", out])
    frame = pd.read_csv(out, keep_default_na=False, na_values=[""])
    required = ["a", "b", "dataset", "mean", "lower", "upper", "p_left", "p_rope", "p_right", "pvalue", "degenerate",
                "p_b_majority", "p_a_majority", "decision"]
    assert set(required) <= set(frame.columns), f"missing {set(required) - set(frame.columns)}"
    ds = quiet(load_scores, small_csv)
    for (a, b), rows in frame.groupby(["a", "b"]):
        res = quiet(correlated_ttest, ds, algorithms=(str(a), str(b)), rope=0.02)
        expected = pd.DataFrame({"dataset": [str(d) for d in ds.dataset.values], "p_left": res.p_left,
                                 "p_right": res.p_right}).set_index("dataset")
        got = rows.assign(dataset=rows.dataset.astype(str)).set_index("dataset").loc[expected.index]
        _close(got.p_left, expected.p_left, f"{a}, {b}: p_left is P({a} better)", rtol=1e-9)
        _close(got.p_right, expected.p_right, f"{a}, {b}: p_right is P({b} better)", rtol=1e-9)
        poi = quiet(poisson_test, ds, algorithms=(str(a), str(b)), rope=0.02)
        _close(rows.p_b_majority, poi.p_b_majority, "p_b_majority", rtol=1e-9)
        _close(rows.p_a_majority, poi.p_a_majority, "p_a_majority", rtol=1e-9)
        assert set(rows.decision.astype(str)) == {str(poi.decision)}
    out_json = tmp_path / "pairs.json"
    cli_ok(capsys, ["compare", small_csv, "-o", out_json])
    text = out_json.read_text()
    strict_json(text)
    assert "p_b_majority" in text and "p_a_majority" in text


def test_regression_cli_csv_stable_columns(tmp_path, capsys, small_csv):
    """Columns do not depend on the algorithms' names; p_left is always P(a better)."""
    out = tmp_path / "two.csv"
    cli_ok(capsys, ["compare", small_csv, "-a", "Q", "-b", "P", "-o", out])
    frame = pd.read_csv(out)
    assert not any("P(" in c for c in frame.columns), f"columns named after algorithms: {list(frame.columns)}"
    assert {"p_left", "p_rope", "p_right"} <= set(frame.columns)
    assert set(frame.a) == {"Q"} and set(frame.b) == {"P"}
    assert_sums_to_one(frame.p_left, frame.p_rope, frame.p_right)


def test_regression_cli_json_no_bare_nan(tmp_path, capsys):
    """Degenerate data sets (A = B on every fold) produce NaN statistics: JSON has null, never bare NaN."""
    frame = scores_frame(np.random.default_rng(13), ["d1", "d2", "d3"], ["A", "B", "C"], 1, 5)
    same = frame.algorithm.eq("B") & frame.dataset.eq("d1")
    frame.loc[same, "score"] = frame.loc[frame.algorithm.eq("A") & frame.dataset.eq("d1"), "score"].values
    path = tmp_path / "degenerate.csv"
    frame.to_csv(path, index=False)
    for argv in (["-a", "A", "-b", "B"], [], ["--all-pairs"]):
        out = tmp_path / f"out{len(argv)}.json"
        cli_ok(capsys, ["compare", path, *argv, "-o", out])
        strict_json(out.read_text())


def test_regression_cli_lower_is_better(tmp_path, capsys):
    frame = scores_frame(np.random.default_rng(14), ["d1", "d2", "d3"], ["A", "B"], 1, 10)
    frame["score"] = (1 - frame.score).round(3)
    errors, negated = tmp_path / "errors.csv", tmp_path / "negated.csv"
    frame.to_csv(errors, index=False)
    frame.assign(score=-frame.score).to_csv(negated, index=False)
    one, two = tmp_path / "one.csv", tmp_path / "two.csv"
    cli_ok(capsys, ["compare", errors, "-a", "A", "-b", "B", "--lower-is-better", "-o", one])
    cli_ok(capsys, ["compare", negated, "-a", "A", "-b", "B", "-o", two])
    a, b = pd.read_csv(one), pd.read_csv(two)
    _close(a.p_right, b.p_right, "--lower-is-better = the negated scores")


def test_regression_simulate_output_atomic_and_replacement_said(tmp_path, capsys):
    """simulate -o: a later write that fails leaves nothing behind; replacing existing files is said."""
    out = tmp_path / "sim"
    cli_ok(capsys, ["simulate", "toy", "--repetitions", "20", "--no-progress", "-o", out])
    written = sorted(p.name for p in out.iterdir())
    assert written, "nothing written"
    captured = cli_ok(capsys, ["simulate", "toy", "--repetitions", "20", "--no-progress", "-o", out])
    said = (captured.out + captured.err).lower()
    assert "replac" in said or "overwr" in said, f"existing files replaced without a word: {said[-300:]!r}"
    for blocked in written:
        fresh = tmp_path / f"fresh_{blocked}"
        fresh.mkdir()
        (fresh / blocked).mkdir()  # a directory where one of the files goes: that write fails
        cli_error(capsys, ["simulate", "toy", "--repetitions", "20", "--no-progress", "-o", fresh],
                  (str(fresh / blocked), blocked, str(fresh)))
        assert sorted(p.name for p in fresh.iterdir()) == [blocked], \
            f"partial result left behind: {sorted(p.name for p in fresh.iterdir())}"


def test_regression_simulate_workers_capped(monkeypatch):
    """--workers 100 started a process per task: at most as many processes as cores."""
    import multiprocessing.process

    from pp_corr.studies.simulation import bayesian_network_study

    started = []
    original = multiprocessing.process.BaseProcess.start

    def counting_start(self):
        started.append(self)
        return original(self)

    monkeypatch.setattr(multiprocessing.process.BaseProcess, "start", counting_start)
    res = bayesian_network_study([0.0, 0.01, 0.02], runs=(1,), n_datasets=5, repetitions=2, workers=100,
                                 progressbar=False, random_seed=0)
    assert res.sizes["delta"] == 3
    assert len(started) <= (os.cpu_count() or 1), f"{len(started)} processes on {os.cpu_count()} cores"


def test_regression_simulate_repetitions_too_many():
    """--repetitions 100000000 grew to gigabytes before any result: refused at once with a clear message."""
    proc = _run_limited([sys.executable, "-c", "import sys; from pp_corr.cli import main; "
                         "sys.exit(main(['simulate', 'experiment1', '--repetitions', '100000000', '--no-progress',"
                         " '--workers', '1']))"], timeout=90, memory_gb=3)
    assert proc.returncode != 0, "accepted"
    lines = proc.stderr.strip().splitlines()
    assert lines and lines[-1].startswith("pp-corr") and "repetitions" in lines[-1], proc.stderr[-1500:]
    assert "Traceback" not in proc.stderr


def test_cli_demo_refuses_bad_rope(capsys):
    with forbid_computation():
        for rope in ("nan", "-1", "inf"):
            cli_error(capsys, ["demo", f"--rope={rope}"], ("--rope", "rope"))


def test_example_path_loads():
    path = example_path()
    assert path.is_file()
    ds = quiet(load_scores, path)
    assert ds.sizes["algorithm"] == 4 and ds.sizes["dataset"] == 4


# --- hierarchical model (PyMC): bad parameters, no fit needed ---------------------------------------------------------

HIER_X = np.random.default_rng(15).normal(0.01, 0.02, (4, 10))
HIER_MODEL_BAD = {
    "scale=inf": ({"scale": INF}, ("scale",)), "scale=nan": ({"scale": NAN}, ("scale",)),
    "scale=0": ({"scale": 0.0}, ("scale",)), "scale=-1": ({"scale": -1.0}, ("scale",)),
    "bounds list": ({"bounds": [1.0, 2.0]}, ("bounds",)),
    "bounds unknown key": ({"bounds": {"bogus": 1.0}}, ("bounds", "bogus")),
    "bounds delta0 negative": ({"bounds": {"delta0": -1.0}}, ("bounds", "delta0")),
    "bounds sigma not a pair": ({"bounds": {"sigma": 5.0}}, ("bounds", "sigma")),
    "bounds sigma reversed": ({"bounds": {"sigma": (5.0, 1.0)}}, ("bounds", "sigma")),
    "bounds sigma0 nan": ({"bounds": {"sigma0": NAN}}, ("bounds", "sigma0")),
    "priors unknown": ({"priors": "bogus"}, ("priors",)),
    "folds=inf": ({"folds": INF}, ("folds",)),
    "rho of 5 values for 4 data sets": ({"rho": np.full(5, 0.1)}, ("rho",)),
    "x 3-D": ({"x": np.zeros((2, 2, 10)) + HIER_X[:2, None, :]}, ("x",)),
    "x with NaN": ({"x": np.where(np.arange(40).reshape(4, 10) == 3, NAN, HIER_X)}, ("x",)),
}
HIER_TEST_BAD = {
    "draws=0": ({"draws": 0}, ("draws",)), "draws=-1": ({"draws": -1}, ("draws",)),
    "tune=-1": ({"tune": -1}, ("tune",)), "chains=0": ({"chains": 0}, ("chains",)),
    "rope=nan": ({"rope": NAN}, ("rope",)), "rope=-0.01": ({"rope": -0.01}, ("rope",)),
    "rope text": ({"rope": "0.01"}, ("rope",)),
    "target_accept=1.5": ({"target_accept": 1.5}, ("target_accept",)),
    "target_accept=nan": ({"target_accept": NAN}, ("target_accept",)),
    "sampler unknown": ({"sampler": "bogus"}, ("sampler",)),
    "random_seed=-1": ({"random_seed": -1}, ("random_seed",)),
}


@pytest.mark.parametrize("label", sorted(HIER_MODEL_BAD))
def test_hierarchical_model_refuses_bad_parameters(label):
    from pp_corr import hierarchical_model

    kwargs, names = HIER_MODEL_BAD[label]
    kwargs = dict(kwargs)
    x = kwargs.pop("x", HIER_X)
    if not RHO_KEYS & set(kwargs):
        kwargs["folds"] = 10
    check_error(lambda: hierarchical_model(x, **kwargs), names)


@pytest.mark.parametrize("label", sorted(HIER_TEST_BAD) + ["scale=inf", "bounds sigma not a pair"])
def test_hierarchical_test_refuses_bad_parameters(label):
    from pp_corr import hierarchical_test

    kwargs, names = {**HIER_TEST_BAD, **HIER_MODEL_BAD}[label]
    small = {"draws": 20, "tune": 20, "chains": 1, "random_seed": 0, "folds": 10}
    check_error(lambda: hierarchical_test(HIER_X, **{**small, **kwargs}), names)


JOINT_X = np.random.default_rng(12).normal([0.80, 0.81, 0.83], 0.02, (4, 10, 3))
JOINT_BAD = {**HIER_TEST_BAD, **{label: HIER_MODEL_BAD[label] for label in (
    "scale=0", "scale=-1", "bounds list", "bounds unknown key", "bounds sigma reversed", "priors unknown",
    "folds=inf")},
    "eta=0": ({"eta": 0.0}, ("eta",)), "missing unknown": ({"missing": "skip"}, ("missing",)),
    "one algorithm": ({"x": JOINT_X[..., :1]}, ("at least 2 algorithms",)),
    "x 2-D": ({"x": JOINT_X[..., 0]}, ("x",)),
    "x with inf": ({"x": np.where(np.arange(3) == 1, INF, JOINT_X)}, ("x", "infinite")),
    "reference unknown": ({"reference": "bogus"}, ("reference",)),
}


@pytest.mark.parametrize("label", sorted(JOINT_BAD))
def test_joint_test_refuses_bad_parameters(label):
    """The joint model of k algorithms checks every argument before any work, naming it."""
    from pp_corr import joint_test

    kwargs, names = JOINT_BAD[label]
    kwargs = dict(kwargs)
    x = kwargs.pop("x", JOINT_X)
    small = {"draws": 20, "tune": 20, "chains": 1, "random_seed": 0, "folds": 10}
    check_error(lambda: joint_test(x, **{**small, **kwargs}), names)


def test_joint_model_names_the_data_set_an_algorithm_is_missing_on():
    from pp_corr import JointResult, joint_model

    x = JOINT_X.copy()
    x[2, :, 1] = NAN
    check_error(lambda: joint_model(x, folds=10, missing="raise"), ("D3", "A2", "missing='drop'"))
    assert JointResult.__doc__


RANK_SCORES = JOINT_X.mean(axis=1)  # (4 data sets, 3 algorithms) of per-data-set mean scores
RANKING_BAD = {
    "one algorithm": (lambda f: f(pd.DataFrame(RANK_SCORES[:, :1])), ("at least two",)),
    "no data set": (lambda f: f(pd.DataFrame(np.empty((0, 3)))), ("no data set",)),
    "inf score": (lambda f: f(pd.DataFrame(np.where(np.eye(4, 3) == 1, INF, RANK_SCORES))), ("inf",)),
    "text scores": (lambda f: f(pd.DataFrame([["a", "b"], ["c", "d"]])), ("scores",)),
    "missing unknown": (lambda f: f(pd.DataFrame(RANK_SCORES), missing="skip"), ("missing",)),
    "higher_is_better text": (lambda f: f(pd.DataFrame(RANK_SCORES), higher_is_better="yes"), ("higher_is_better",)),
}


@pytest.mark.parametrize("label", sorted(RANKING_BAD))
def test_plackett_luce_and_dataset_ranks_refuse_bad_scores(label):
    """dataset_ranks and plackett_luce check their scores first, naming the problem."""
    from pp_corr import dataset_ranks, plackett_luce

    call, names = RANKING_BAD[label]
    for fn in (dataset_ranks, lambda *a, **k: plackett_luce(*a, draws=10, tune=10, chains=1, **k)):
        if fn is dataset_ranks and label == "higher_is_better text":
            continue
        check_error(lambda: call(fn), names)


@pytest.mark.parametrize("rankings, names", [
    (np.ones((0, 3)), ("rankings",)), (np.ones((3, 1)), ("rankings",)), ([["a", "b"]], ("rankings",)),
    (np.array([[1.0, 2.0]]) * [[1, INF]], ("inf", "rankings")),
])
def test_plackett_luce_model_refuses_bad_rankings(rankings, names):
    from pp_corr import PlackettLuceResult, plackett_luce_model

    check_error(lambda: plackett_luce_model(rankings), names)
    check_error(lambda: plackett_luce_model(np.array([[1, 2], [2, 1]]), prior=-1.0), ("prior",))
    assert PlackettLuceResult.__doc__


def test_regression_hierarchical_scale_draws_bounds():
    """scale=inf, draws=0 and bounds of the wrong form: each a ValueError naming it (no fit)."""
    from pp_corr import hierarchical_model, hierarchical_test

    check_error(lambda: hierarchical_model(HIER_X, folds=10, scale=INF), ("scale",))
    check_error(lambda: hierarchical_model(HIER_X, folds=10, bounds={"sigma": 5.0}), ("bounds", "sigma"))
    check_error(lambda: hierarchical_model(HIER_X, folds=10, bounds=(1, 2)), ("bounds",))
    check_error(lambda: hierarchical_test(HIER_X, folds=10, draws=0, tune=20, chains=1, random_seed=0), ("draws",))


# --- hierarchical model: fits (slow) --------------------------------------------------------------------------------

@pytest.mark.slow
def test_regression_magnitude_hierarchical():
    """The hierarchical test on x * 1e-170 (rope scaled too) gives the answer of x."""
    from pp_corr import hierarchical_test

    x = np.random.default_rng(16).normal(0.01, 0.02, (6, 10))
    kwargs = {"folds": 10, "draws": 500, "chains": 2, "random_seed": 3}  # the default: the exact posterior
    base = quiet(hierarchical_test, x, rope=0.01, **kwargs)
    assert isinstance(base, pp_corr.HierarchicalResult)
    for scale in (1e-170, 1e160):
        res = quiet(hierarchical_test, x * scale, rope=0.01 * scale, **kwargs)
        assert abs(res.p_delta0_positive - base.p_delta0_positive) < 0.03, (scale, res.p_delta0_positive,
                                                                            base.p_delta0_positive)
        assert abs(res.new_dataset().p_right - base.new_dataset().p_right) < 0.03


@pytest.mark.slow
def test_regression_hierarchical_outlier():
    """One absurd outlier (1e6 among 200 differences) flipped P(delta0 > 0) from 1.000 to 0.48 with only a generic
    warning: the answer stays, or a warning names the data set that dominates."""
    from pp_corr import ConvergenceWarning, OutlierWarning, hierarchical_test

    x = np.random.default_rng(17).normal(0.02, 0.01, (20, 10))
    x[6, 4] = 1e6
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = hierarchical_test(x, folds=10, draws=500, tune=500, chains=2, random_seed=1, retry=False, method="mcmc")
    # a generic convergence warning may list delta[D7] among others: an OutlierWarning must name D7
    named = [str(w.message) for w in caught if issubclass(w.category, OutlierWarning)
             and names_any(str(w.message), ("D7",))]
    assert res.p_delta0_positive > 0.95 and named, (res.p_delta0_positive, [str(w.message) for w in caught])
    # the result says whether it converged exactly when a ConvergenceWarning was (or was not) given
    warned = any(issubclass(w.category, ConvergenceWarning) for w in caught)
    assert res.converged is not warned


# The seeded fit's reproducibility with a truly cold cache (base_compiledir emptied, so the Numba cache is too) and the
# generated files left in TMPDIR are regression-tested in tests/test_hierarchical.py (fresh_fits), for both samplers.


@pytest.mark.slow
def test_regression_cli_hierarchical_writes_output_and_progress_to_stderr(small_csv, tmp_path):
    """compare --hierarchical -o out.json wrote nothing: it writes the fit; progress never goes to stdout."""
    out = tmp_path / "hier.json"
    proc = _run_limited([sys.executable, "-c", "import sys; from pp_corr.cli import main; sys.exit(main(sys.argv[1:]))",
                         "compare", str(small_csv), "-a", "P", "-b", "Q", "--hierarchical", "-o", str(out)],
                        timeout=900, memory_gb=6)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert out.is_file(), "no output written"
    text = out.read_text()
    strict_json(text)
    assert "delta0" in text or "hierarchical" in text.lower(), text[:500]
    for mark in ("Sampling", "draws/s", "%|", "━", "it/s"):
        assert mark not in proc.stdout, f"progress ({mark!r}) in stdout"


# ---- the leave-one-fold-out density (#15): bad arguments named, and the answer of a dense computation


@pytest.mark.parametrize("x, sigma, rho, named", [([0.1], 1.0, 0.1, "x"), ([0.1, 0.2], 0.0, 0.1, "sigma"),
                                                  ([0.1, 0.2], 1.0, 1.0, "rho"), ([0.1, 0.2, 0.3], 1.0, -0.5, "rho"),
                                                  ([0.1, float("nan")], 1.0, 0.1, "x")])
def test_intraclass_fold_logp_names_a_bad_argument(x, sigma, rho, named):
    from pp_corr import intraclass_fold_logp

    with pytest.raises(ValueError, match=named):
        intraclass_fold_logp(x, 0.0, sigma, rho)


def test_intraclass_fold_logp_at_the_smallest_design_equals_the_bivariate_normal_conditional():
    """n = 2: x_1 | x_2 ~ N(mu + rho (x_2 - mu), sigma^2 (1 - rho^2)), written out here."""
    from pp_corr import intraclass_fold_logp

    x, mu, sigma, rho = np.array([0.3, -0.1]), 0.05, 0.2, -0.6
    got = intraclass_fold_logp(x, mu, sigma, rho)
    want = [stats.norm(mu + rho * (x[1 - j] - mu), sigma * math.sqrt(1 - rho**2)).logpdf(x[j]) for j in (0, 1)]
    assert np.allclose(got, want, rtol=1e-12, atol=0)


# ---- the report and the ranking order (#16): bad arguments named, nothing written


@pytest.mark.parametrize("kwargs, named", [({"rope": -1}, "rope"), ({"alpha": 2}, "alpha"),
                                           ({"formats": ("pdf",)}, "formats"), ({"method": "x"}, "method"),
                                           ({"random_seed": "a"}, "random_seed")])
def test_write_report_names_a_bad_argument_and_writes_nothing(tmp_path, kwargs, named):
    from pp_corr import example_path, load_scores, write_report

    with pytest.raises((ValueError, TypeError), match=named):
        write_report(load_scores(example_path()), tmp_path / "report", progressbar=False, **kwargs)
    assert list(tmp_path.iterdir()) == []


def test_write_report_refuses_a_file_in_place_of_its_directory_and_scores_of_another_type(tmp_path):
    from pp_corr import example_path, load_scores, write_report

    (tmp_path / "taken").write_text("x")
    with pytest.raises(ValueError, match="not a directory"):
        write_report(load_scores(example_path()), tmp_path / "taken", progressbar=False)
    with pytest.raises(TypeError, match="scores"):
        write_report([[0.8, 0.9]], tmp_path / "report", progressbar=False)
    assert [p.name for p in tmp_path.iterdir()] == ["taken"]


def test_order_by_ranking_needs_two_algorithms_a_scores_table_and_a_boolean_direction():
    from pp_corr import example_path, load_scores, order_by_ranking

    scores = load_scores(example_path())
    with pytest.raises(ValueError, match="at least two"):
        order_by_ranking(scores.sel(algorithm=["knn"]))
    with pytest.raises(TypeError, match="scores"):
        order_by_ranking([1, 2])
    with pytest.raises(TypeError, match="higher_is_better"):
        order_by_ranking(scores, higher_is_better="no")


@pytest.mark.parametrize("args, kwargs, error, named", [
    (([[0.8, 0.9]],), {}, TypeError, "scores must be a scores Dataset"),
    ((), {"pairs": [("knn", "knn")]}, ValueError, "pairs: a pair needs two different algorithms"),
    ((), {"pairs": [("knn", "svm")]}, ValueError, "pairs: 'svm' not among"),
    ((), {"algorithms": ("knn", "tree")}, TypeError, "sets algorithms for each pair"),
    ((), {"progressbar": "yes"}, TypeError, "progressbar must be"),
    ((), {"rope": -1.0}, ValueError, "rope"),
    ((), {"sampler": "stan"}, ValueError, "sampler"),
    ((), {"method": "grid"}, ValueError, "method"),
])
def test_hierarchical_tests_names_a_bad_argument_before_any_fit(monkeypatch, args, kwargs, error, named):
    import pp_corr.hierarchical.fit as hierarchical
    from pp_corr import example_path, hierarchical_tests, load_scores

    monkeypatch.setattr(hierarchical, "_fit", lambda *a, **k: pytest.fail("fitted before checking"))
    monkeypatch.setattr(hierarchical, "_exact_fit", lambda *a, **k: pytest.fail("computed before checking"))
    with pytest.raises(error, match=named):
        hierarchical_tests(*(args or (load_scores(example_path()),)), **{"progressbar": False, **kwargs})


@pytest.mark.parametrize("call, names", [
    (lambda: pp_corr.sequential_test(np.zeros((3, 10)), rope=-0.01), ("rope",)),
    (lambda: pp_corr.sequential_test(np.full((3, 10), np.nan)), ("NaN", "finite", "scores")),
    (lambda: pp_corr.sequential_test(np.zeros((1, 10))), ("runs", "min_runs")),
    (lambda: pp_corr.sequential_study(mus=(0.0, 0.01), repetitions=0), ("repetitions",)),
    (lambda: pp_corr.sequential_study(levels=(0.95, 1.2)), ("levels", "level")),
    (lambda: pp_corr.sequential_cv(None, None, np.zeros((20, 2)), np.zeros(20), max_runs=0), ("max_runs",)),
    (lambda: pp_corr.SequentialRuns(rope=-0.01), ("rope",)),
    (lambda: pp_corr.SequentialRuns(level=1.5), ("level",)),
    (lambda: pp_corr.SequentialRuns(rho=1.0), ("rho",)),
    (lambda: pp_corr.SequentialRuns().add_run(["a", "b"], [0.8, 0.9]), ("scores_a", "scores_b")),
], ids=["negative rope", "all NaN", "one run", "no repetitions", "level above 1", "no runs", "runs: negative rope",
        "runs: level above 1", "runs: rho 1", "runs: text scores"])
def test_sequential_edges_are_refused_by_name(call, names):
    """The sequential comparison's entry points refuse degenerate input by name (its SequentialResult is what
    sequential_test returns: tests/test_sequential.py checks it)."""
    check_error(call, names)


def test_missing_scores_are_named_once_and_listed():
    """A wide table with a failed fold: one MissingScoresWarning naming it, and missing_cells lists the same cell;
    missing_cells refuses what is not a scores Dataset."""
    frame = pd.DataFrame({"dataset": ["d1"] * 3, "fold": [1, 2, 3], "A": [0.8, 0.9, 0.85], "B": [0.8, np.nan, 0.9]})
    with pytest.warns(pp_corr.MissingScoresWarning, match="B on d1, run 1: fold 2") as record:
        scores = pp_corr.load_scores(frame)
    assert len(record) == 1
    assert pp_corr.missing_cells(scores).to_dict(orient="records") == [
        {"dataset": "d1", "algorithm": "B", "run": 1, "folds": [2]}]
    check_error(lambda: pp_corr.missing_cells(frame), ("scores",))


# --- item-level comparison (load_items, compare_items, ItemComparison, benchmark_scores) ------------------------------

@campaign(60)
@given(a=hnp.arrays(float, st.tuples(st.integers(1, 12), st.integers(1, 3)),
                    elements=st.sampled_from([0.0, 1.0, 0.5, NAN])),
       shift=st.sampled_from([0.0, 1.0, -1.0]), rope=st.sampled_from([None, 0.05, (-0.2, 0.1)]),
       strength=st.sampled_from([0.0, 1.0]))
def test_compare_items_answers_or_names_the_benchmark(a, shift, rope, strength):
    """Small item tables with missing scores: an error naming the benchmark (too few items both models have) or
    three probabilities in [0, 1] that add up, an interval holding its own median, and items counted right."""
    b = np.clip(a + shift * (np.arange(a.size).reshape(a.shape) % 2), 0, 1)
    call = lambda: pp_corr.compare_items({"A": a, "B": b}, rope=rope, prior_strength=strength, draws=200,
                                         random_seed=0)
    try:
        res = quiet(call)
    except ValueError as err:
        assert names_any(str(err), ["benchmark"]) and "fewer than 2" in str(err), err
        return
    total = res.p_left + res.p_rope + res.p_right
    _close(total, 1.0, "sum of the probabilities", atol=1e-12)
    assert ((res.p_left >= 0) & (res.p_right >= 0) & (res.p_rope >= -1e-12)).all()
    both = (np.isfinite(a).any(axis=1) & np.isfinite(b).any(axis=1)).sum()
    assert res.items[0] == both
    lo, hi = res.interval()
    assert lo[0] <= np.median(res.samples) <= hi[0]


@pytest.mark.parametrize("call, names", [
    (lambda: pp_corr.compare_items({"A": [1, 0], "B": [0, 1]}, rope=-1), ["rope"]),
    (lambda: pp_corr.compare_items({"A": [1, 0], "B": [0, 1]}, runs="epochs"), ["runs"]),
    (lambda: pp_corr.compare_items({"A": [1, 0], "B": [0, 1]}, draws=0), ["draws"]),
    (lambda: pp_corr.compare_items({"A": [1, 0], "B": [0, 1]}, prior_strength=-1), ["prior_strength"]),
    (lambda: pp_corr.compare_items({"A": [1, 0], "B": [0, 1]}, models=("A", "A")), ["models"]),
    (lambda: pp_corr.compare_items({"A": [1, 0], "B": [0, 1]}, models=("A", "Z")), ["Z"]),
    (lambda: pp_corr.compare_items({"A": [1, 0], "B": [0, 1]}, models="AB"), ["models"]),
    (lambda: pp_corr.compare_items({"A": [1, 0], "B": [0, 1], "C": [1, 1]}), ["models"]),
    (lambda: pp_corr.compare_items({"A": [1, 0], "B": [0, 1]}).interval(2), ["confidence_level"]),
    (lambda: pp_corr.load_items(42), ["source"]),
    (lambda: pp_corr.load_items({"A": [1, 0]}, na_values=5), ["na_values"]),
    (lambda: pp_corr.load_items({"A": [1, 0]}, metric="acc"), ["metric"]),
    (lambda: pp_corr.load_items({"A": [[1, 0]], "B": [[1, 1]]}, columns={"item": "q"}), ["columns"]),
    (lambda: pp_corr.benchmark_scores(pp_corr.load_items({"A": [1, 0], "B": [0, 1]}), runs="x"), ["runs"]),
    (lambda: pp_corr.benchmark_scores(pp_corr.load_items({"A": [1, 0], "B": [0, 1]}), runs="seeds"), ["runs"]),
    (lambda: pp_corr.plan_items({"A": [1, 0, 1], "B": [0, 1, 1]}, items=1, difference=0.1), ["items"]),
    (lambda: pp_corr.plan_items({"A": [1, 0, 1], "B": [0, 1, 1]}, items=9, difference="big"), ["difference"]),
    (lambda: pp_corr.plan_items({"A": [1, 0, 1], "B": [0, 1, 1]}, items=9, difference=0.1, simulations=0),
     ["simulations"]),
    (lambda: pp_corr.plan_items({"A": [1, 0, 1], "B": [0, 1, 1]}, items=9, difference=0.1, level=1.5), ["level"]),
    (lambda: pp_corr.rank_items({"A": [1, 0, 1], "B": [0, 1, 1]}, level=0), ["level"]),
    (lambda: pp_corr.rank_items({"A": [1, 0, 1], "B": [0, 1, 1]}, runs="seeds"), ["runs"]),
    (lambda: pp_corr.rank_items({"A": [1, 0, 1]}), ["model"]),
], ids=["rope", "runs", "draws", "prior_strength", "same-model", "unknown-model", "models-text",
        "three-models", "level", "source", "na_values", "metric", "columns", "scores-runs", "scores-one-run",
        "plan-items", "plan-difference", "plan-simulations", "plan-level", "rank-level", "rank-seeds",
        "rank-one-model"])
def test_item_arguments_are_checked_by_name(call, names):
    err = check_error(call, names)
    assert err is not None, "no error"


def test_item_comparison_to_dict_is_json():
    res = pp_corr.compare_items({"A": [1, 0, 1], "B": [1, 1, 1]}, rope=0.1, random_seed=0)
    assert isinstance(res, pp_corr.ItemComparison)
    assert isinstance(pp_corr.plan_items({"A": [1, 0, 1], "B": [1, 1, 1]}, items=5, difference=0.1, simulations=5),
                      pp_corr.ItemPlan)
    record = json.loads(json.dumps(res.to_dict()))
    assert record["results"][0]["items"] == 3 and record["rope"] == [-0.1, 0.1]


def test_every_public_function_is_exercised():
    """Each name of pp_corr.__all__ appears in this module's tests (a new public function needs its edges here)."""
    source = Path(__file__).read_text()
    missing = [name for name in pp_corr.__all__ if not re.search(rf"\b{name}\b", source.split("def test_every")[0])]
    assert not missing, missing


def test_report_examples():
    """The number of generated examples this module asks for (printed with -s)."""
    total = sum(EXAMPLES.values())
    print(f"\nhypothesis: {len(EXAMPLES)} properties, max {total} examples")
    assert total > 1000


@pytest.mark.parametrize("call", [
    lambda s: pp_corr.correlated_ttest(s, algorithms=("tree", "knn")),
    lambda s: pp_corr.bayesian_sign_test(s, algorithms=("tree", "knn")),
    lambda s: pp_corr.bayesian_signed_rank(s, algorithms=("tree", "knn")),
    lambda s: pp_corr.poisson_test(s, algorithms=("tree", "knn")),
    lambda s: pp_corr.hierarchical_model(s, algorithms=("tree", "knn")),
    lambda s: pp_corr.joint_model(s),
], ids=["ttest", "sign", "signed_rank", "poisson", "hierarchical", "joint"])
def test_scores_without_their_dataset_dimension_are_refused_by_name(call):
    """scores.isel(dataset=0, drop=True) drops the dimension every test reads: an error that says so and how to
    keep it, not an AttributeError from inside."""
    scores = pp_corr.load_scores(pp_corr.data.scores.example_path()).isel(dataset=0, drop=True)
    with pytest.raises(ValueError, match=r"lacks the dimension\(s\) \['dataset'\].*isel\(dataset=\[0\]\)"):
        call(scores)


@pytest.mark.parametrize("test", ["correlated_ttest", "poisson_test", "bayesian_signed_rank", "bayesian_sign_test",
                                  "imprecise_signed_rank", "wilcoxon_test", "sign_test", "hierarchical_test"])
def test_a_dataset_with_y_is_refused_and_the_pair_is_named(test):
    """x a scores Dataset and y given: y was ignored (a pair passed positionally, or B's scores, gave the answer for
    the Dataset's default pair or the "choose two" error); now the message says how the pair is chosen."""
    scores = pp_corr.load_scores(pp_corr.example_path())
    function = getattr(pp_corr, test)
    with pytest.raises(ValueError, match=r"y is for arrays .* chosen by name: algorithms=\('tree', 'knn'\)$"):
        function(scores, ("tree", "knn"))
    two = scores.sel(algorithm=["tree", "knn"])
    with pytest.raises(ValueError, match=r"y is for arrays .* chosen by name: algorithms=\(a, b\)$"):
        function(two, two.score.sel(algorithm="knn").values)
