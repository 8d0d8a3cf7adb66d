"""Property-based edges of the t-tests and the Poisson test (hypothesis): random shapes, magnitudes from 1e-300
to 1e300, ties, NaN and inf anywhere, random bad parameter values.

Every call either raises a ValueError / TypeError whose message names the argument at fault, or returns
probabilities in [0, 1] with no NaN where a number is promised, p_left + p_rope + p_right = 1 (1e-12), and,
for data in other units (a power of two, so the rescaling is exact), the same probabilities.
"""
import re
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pp_corr import (DegenerateWarning, NormalGamma, PoissonBinomial, corrected_ttest, correlated_ttest,
                     paired_ttest, poisson_test)

SETTINGS = settings(max_examples=300, deadline=None, derandomize=True)
PROBABILITIES = ("p_left", "p_rope", "p_right", "p_not_left", "p_not_right")


@st.composite
def problems(draw):
    """(x, y, options): differences or two score arrays of random shape and magnitude, possibly with ties."""
    q = draw(st.one_of(st.none(), st.integers(1, 5)))  # None: one data set as a 1-D array
    n = draw(st.integers(2, 12))
    shape = (n,) if q is None else (q, n)
    # |values| in [1e-6, 1] or 0, times a magnitude 10^e: never below the normal range once scaled back
    unit = draw(st.lists(st.one_of(st.just(0.0), st.floats(1e-6, 1), st.floats(-1, -1e-6)),
                         min_size=int(np.prod(shape)), max_size=int(np.prod(shape))))
    x = np.reshape(unit, shape)
    rows = x.reshape(-1, n)
    for i in range(len(rows)):
        kind = draw(st.sampled_from(["free", "free", "tie", "rounding tie"]))
        if kind == "tie":
            rows[i] = rows[i, 0]
        elif kind == "rounding tie":  # equal differences computed from different scores
            scores = draw(st.lists(st.floats(0.3, 0.9), min_size=n, max_size=n))
            rows[i] = (np.array(scores) + 0.1) - np.array(scores)
    magnitude = 10.0 ** draw(st.integers(-300, 300))
    x = x * magnitude
    options = {}
    design = draw(st.sampled_from(["rho", "rho per data set", "folds", "n_test", "corr"]))
    if design == "rho":
        options["rho"] = draw(st.sampled_from([0.0, 0.1, 0.5, 0.9]))
    elif design == "rho per data set":
        options["rho"] = draw(st.lists(st.floats(0, 0.95), min_size=q or 1, max_size=q or 1))
    elif design == "folds":
        options["folds"] = draw(st.integers(2, 20))
    elif design == "n_test":
        options["n_test"], options["n_train"] = draw(st.integers(1, 100)), draw(st.integers(1, 1000))
    else:
        r = draw(st.floats(0, 0.9))
        options["corr"] = (1 - r) * np.eye(n) + r
    rope = draw(st.one_of(st.none(), st.floats(0, 2), st.tuples(st.floats(-2, 0), st.floats(0, 2))))
    options["rope"] = None if rope is None else np.multiply(rope, magnitude).tolist()
    if draw(st.booleans()):
        options["prior"] = NormalGamma(draw(st.floats(-1, 1)) * magnitude, draw(st.sampled_from([0.01, 1.0, np.inf])),
                                       draw(st.sampled_from([-0.5, 0.5, 3.0])),
                                       draw(st.sampled_from([0.0, 1e-3, 1.0])) * min(magnitude, 1e150) ** 2)
    y = None
    if draw(st.booleans()):  # the same differences as scores of A and B
        base = np.full(shape, 0.5 * magnitude)
        x, y = base, base + x
    return x, y, options


BAD = {  # argument: values that must be refused with its name in the message
    "rho": [np.nan, np.inf, -0.1, 1.0, "0.1", [0.1] * 7, [[0.1]]],
    "folds": [np.inf, np.nan, 1, 2.5, "10", [10] * 7],
    "n_test": [np.inf, np.nan, 0, -3.0, "5"],
    "n_train": [np.inf, np.nan, 0, -3.0],
    "rope": [np.nan, np.inf, "0.1", (0.1, -0.1), (0.0, np.nan), [0.1, 0.2, 0.3]],
    "corr": ["nan", "asymmetric", "shape", "not positive definite"],
    "mu0": [np.nan, np.inf], "k0": [np.nan, 0.0, -1.0, -np.inf], "a": [np.nan, np.inf, -1.0],
    "b": [np.nan, np.inf, -1.0],
    "x": ["nan", "inf", "3-D", "no data sets", "one score"], "y": ["nan", "-inf"],
}


def spoil(x, y, options, name, value, where):
    """(x, y, options) with ``name`` set to the bad ``value``."""
    options = {k: v for k, v in options.items() if k not in ("rho", "folds", "n_test", "n_train", "corr")}
    options["rho"] = 0.1
    n = x.shape[-1]
    if name in ("rho", "folds"):
        options.pop("rho")
        options[name] = value
    elif name in ("n_test", "n_train"):
        options.pop("rho")
        options.update(n_test=10, n_train=90)
        options[name] = value
    elif name == "rope":
        options["rope"] = value
    elif name == "corr":
        options.pop("rho")
        options["corr"] = {"nan": np.full((n, n), np.nan), "asymmetric": np.triu(np.full((n, n), 0.3)) + np.eye(n),
                           "shape": np.eye(n + 1), "not positive definite": np.ones((n, n))}[value]
    elif name in ("mu0", "k0", "a", "b"):
        options["prior"] = (name, value)  # built inside the call, where the error must come from
    elif name == "x":
        if value in ("nan", "inf"):
            x = x.astype(float).copy()
            x.flat[where % x.size] = np.nan if value == "nan" else np.inf
        else:
            x = {"3-D": np.zeros((2, 2, n)), "no data sets": np.zeros((0, n)), "one score": np.ones((3, 1))}[value]
            y = None
    elif name == "y":
        y = (np.zeros_like(x) if y is None else y).astype(float).copy()
        y.flat[where % y.size] = np.nan if value == "nan" else -np.inf
    return x, y, options


def call(fn, x, y, options):
    options = dict(options)
    if isinstance(options.get("prior"), tuple):
        name, value = options["prior"]
        options["prior"] = NormalGamma(**{"mu0": 0.0, "k0": 1.0, "a": 1.0, "b": 1.0, name: value})
    return fn(x, y, **options)


def check_result(res):
    values = {f: np.asarray(getattr(res, f), dtype=float) for f in PROBABILITIES}
    for field, v in values.items():
        assert not np.isnan(v).any() and ((v >= 0) & (v <= 1)).all(), (field, v)
    np.testing.assert_allclose(values["p_left"] + values["p_rope"] + values["p_right"], 1, atol=1e-12, rtol=0)
    np.testing.assert_allclose(values["p_left"] + values["p_not_left"], 1, atol=1e-12, rtol=0)
    np.testing.assert_allclose(values["p_right"] + values["p_not_right"], 1, atol=1e-12, rtol=0)
    assert not np.isnan(res.mean).any()
    assert not np.isnan(np.asarray(res.interval(0.9))).any()
    freq = res.frequentist()
    assert not np.isnan(freq.statistic).any()
    assert not np.isnan(freq.pvalue).any() and ((freq.pvalue >= 0) & (freq.pvalue <= 1)).all()


def ttest_functions():
    with_rope = lambda x, y, **o: correlated_ttest(x, y, **o)  # noqa: E731
    frequentist = lambda x, y, **o: corrected_ttest(x, y, **{k: v for k, v in o.items()  # noqa: E731
                                                             if k not in ("rope", "prior", "corr")})
    poisson = lambda x, y, **o: poisson_test(x, y, **o)  # noqa: E731
    return {"correlated_ttest": with_rope, "corrected_ttest": frequentist, "poisson_test": poisson}


@SETTINGS
@given(problems())
def test_valid_input_gives_probabilities(problem):
    x, y, options = problem
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateWarning)
        warnings.simplefilter("error", RuntimeWarning)  # no overflow or 0/0 along the way
        res = correlated_ttest(x, y, **options)
        check_result(res)
        pois = poisson_test(x, y, **options)
    for p in (pois.p_b_majority, pois.p_a_majority):
        assert 0 <= p <= 1
    assert pois.n_datasets == (1 if x.ndim == 1 else x.shape[0])
    assert pois.distribution.pmf().sum() == pytest.approx(1, abs=1e-12)
    np.testing.assert_allclose(pois.per_dataset.p_right, np.atleast_1d(res.p_right), rtol=0, atol=0)


@SETTINGS
@given(problems(), st.integers(-990, 990))
def test_other_units_give_the_same_answer(problem, k):
    """Differences, rope and prior in units 2^k (exact): the same probabilities, p-values and statistics."""
    x, y, options = problem
    c = 2.0**k
    diff = x if y is None else y - x
    moved = dict(options)
    with np.errstate(over="ignore", under="ignore"):
        if np.abs(diff * c).max() > 1e300 or np.abs(diff[diff != 0] * c).min(initial=1) < 1e-300:
            return  # out of the normal float range in the other units
        if options["rope"] is not None:
            moved["rope"] = np.multiply(options["rope"], c).tolist()
            given, rope = np.abs(options["rope"]), np.abs(moved["rope"])
            if not np.all(np.isfinite(rope)) or (np.minimum(given, rope)[given != 0] < 1e-300).any():
                return
    if "prior" in options:
        prior = options["prior"]
        with np.errstate(over="ignore", under="ignore"):
            b, mu0 = prior.b * c * c, prior.mu0 * c
        if not ((1e-300 < b < 1e300 or prior.b == 0) and (1e-300 < abs(mu0) < 1e300 or prior.mu0 == 0)):
            return  # not representable in the other units
        moved["prior"] = NormalGamma(prior.mu0 * c, prior.k0, prior.a, prior.b * c * c)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateWarning)
        one, other = correlated_ttest(diff, **options), correlated_ttest(diff * c, **moved)
    for field in PROBABILITIES:
        np.testing.assert_allclose(getattr(other, field), getattr(one, field), rtol=1e-12, atol=0, err_msg=field)
    np.testing.assert_array_equal(other.degenerate, one.degenerate)
    np.testing.assert_allclose(other.mean / c, one.mean, rtol=1e-12, atol=0)
    f_one, f_other = one.frequentist(), other.frequentist()
    np.testing.assert_allclose(f_other.statistic, f_one.statistic, rtol=1e-12, atol=0)
    np.testing.assert_allclose(f_other.pvalue, f_one.pvalue, rtol=1e-12, atol=0)


@SETTINGS
@given(problems(), st.sampled_from(sorted(BAD)), st.data())
def test_bad_input_is_refused_by_name(problem, name, data):
    x, y, options = problem
    value = data.draw(st.sampled_from(BAD[name]), label="value")
    where = data.draw(st.integers(0, 10**6), label="where")
    fn_name = data.draw(st.sampled_from(sorted(ttest_functions())), label="function")
    if fn_name == "corrected_ttest" and name in ("rope", "corr", "mu0", "k0", "a", "b"):
        fn_name = "correlated_ttest"  # the frequentist test takes none of these
    bad_x, bad_y, bad_options = spoil(x, y, options, name, value, where)
    if name in ("rho", "folds") and isinstance(value, list) and np.ndim(value) == 1:
        q = 1 if bad_x.ndim == 1 else bad_x.shape[0]
        bad_options[name] = value[: q + 1 if q < 7 else q - 1]  # a length that is not the number of data sets
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateWarning)
        with pytest.raises((ValueError, TypeError)) as caught:
            call(ttest_functions()[fn_name], bad_x, bad_y, bad_options)
    assert re.search(rf"\b{name}\b", str(caught.value)), (name, value, str(caught.value))


@SETTINGS
@given(problems(), st.sampled_from([0.0, 1.0, -0.2, 1.5, np.nan, np.inf, "0.9", None]))
def test_bad_levels_are_refused_by_name(problem, level):
    x, y, options = problem
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateWarning)
        res = correlated_ttest(x, y, **options)
        for fn in (res.interval, res.to_frame, paired_ttest(x, y).confidence_interval):
            with pytest.raises((ValueError, TypeError), match="^confidence_level must"):
                fn(level)
        with pytest.raises((ValueError, TypeError), match="^alpha must"):
            poisson_test(x, y, alpha=level, **options)
    with pytest.raises(ValueError, match="^alternative must"):
        corrected_ttest(x, y, rho=0.1, alternative=str(level))


@SETTINGS
@given(st.lists(st.one_of(st.floats(0, 1), st.floats(0, 1e-300), st.floats(1 - 1e-12, 1)), min_size=1,
                max_size=30), st.integers(0, 29), st.sampled_from([np.nan, -1e-300, 1 + 1e-15, np.inf]))
def test_poisson_binomial_in_unit_interval_or_names_p(p, where, bad):
    X = PoissonBinomial(p)
    k = np.arange(-1, len(p) + 2)
    for values in (X.pmf(), X.cdf(k), X.sf(k)):
        assert ((values >= 0) & (values <= 1)).all()
    spoilt = list(p)
    spoilt[where % len(p)] = bad
    with pytest.raises(ValueError, match=r"^p (contains NaN|must lie in \[0, 1\])"):
        PoissonBinomial(spoilt)
