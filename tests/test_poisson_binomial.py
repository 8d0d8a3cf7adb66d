from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from pp_corr import PoissonBinomial, poisson_binomial_monte_carlo


def exact_pmf(p, complement=None):
    """Rational arithmetic on the float inputs taken as exact numbers."""
    comp = [1 - Fraction(v) for v in p] if complement is None else [Fraction(v) for v in complement]
    pmf = [Fraction(1)]
    for pj, qj in zip((Fraction(v) for v in p), comp):
        pmf = [(pmf[c] if c < len(pmf) else 0) * qj + (pmf[c - 1] * pj if c > 0 else 0) for c in range(len(pmf) + 1)]
    return pmf


@pytest.mark.parametrize("q", [1, 2, 7, 20])
def test_equals_rational_arithmetic(q):
    p = np.random.default_rng(q).uniform(size=q)
    exact = exact_pmf(p)
    X = PoissonBinomial(p)
    np.testing.assert_allclose(X.pmf(), [float(v) for v in exact], rtol=1e-14)
    for k in range(-1, q + 2):
        lower = float(sum(exact[: max(k + 1, 0)]))
        upper = float(sum(exact[max(k + 1, 0):]))
        assert X.cdf(k) == pytest.approx(lower, rel=1e-14, abs=0 if lower else 1e-300)
        assert X.sf(k) == pytest.approx(upper, rel=1e-14, abs=0 if upper else 1e-300)


@pytest.mark.parametrize("q", [10, 200, 2000])
def test_cdf_equals_scipy(q):
    p = np.random.default_rng(q).uniform(size=q)
    k = np.unique(np.r_[np.arange(0, q + 1, max(1, q // 100)), q - 2:q + 1])  # scipy costs ~15 ms per k at q = 2000
    np.testing.assert_allclose(PoissonBinomial(p).cdf(k), stats.poisson_binom(p).cdf(k), rtol=1e-9, atol=1e-14)


def test_small_upper_tail_keeps_relative_precision():
    p = np.random.default_rng(3).uniform(0.01, 0.1, size=20)
    exact = exact_pmf(p)
    tails = [float(sum(exact[k + 1:])) for k in range(21)]
    k = next(k for k, t in enumerate(tails) if t < 1e-11)
    truth = tails[k]
    assert 1e-14 < truth < 1e-11
    X = PoissonBinomial(p)
    assert X.sf(k) == pytest.approx(truth, rel=1e-10, abs=0)
    assert abs((1 - X.cdf(k)) / truth - 1) > 1e-10  # what the complement of the cdf would have given


def test_complement_makes_p_near_one_exact():
    comp = np.array([1e-15, 3e-16, 0.25])
    p = 1 - comp
    exact = exact_pmf(p, complement=comp)
    X = PoissonBinomial(p, complement=comp)
    np.testing.assert_allclose(X.pmf(), [float(v) for v in exact], rtol=1e-14)
    assert X.cdf(0) == pytest.approx(float(exact[0]), rel=1e-14, abs=0)
    assert abs(PoissonBinomial(p).cdf(0) / float(exact[0]) - 1) > 1e-3  # 1 - p alone loses it
    with pytest.raises(ValueError, match="complement"):
        PoissonBinomial(p, complement=comp * 2)


def test_batch_equals_one_by_one_and_moments():
    p = np.random.default_rng(0).uniform(size=(3, 4, 15))
    X = PoissonBinomial(p)
    for idx in np.ndindex(3, 4):
        np.testing.assert_allclose(X.pmf()[idx], PoissonBinomial(p[idx]).pmf(), rtol=1e-14)
    counts = np.arange(16)
    np.testing.assert_allclose(X.mean, (X.pmf() * counts).sum(-1), rtol=1e-12)
    np.testing.assert_allclose(X.var, (X.pmf() * counts**2).sum(-1) - X.mean**2, rtol=1e-9)
    assert X.sf([4, 5]).shape == (3, 4, 2)


def test_monte_carlo_within_four_standard_errors():
    p = np.random.default_rng(1).uniform(size=50)
    pmf, se = poisson_binomial_monte_carlo(p, draws=100_000, random_seed=2)
    exact = PoissonBinomial(p).pmf()
    ok = se > 0
    assert np.all(np.abs(pmf - exact)[ok] <= 4 * se[ok] + 1e-12)
    np.testing.assert_array_equal(pmf, poisson_binomial_monte_carlo(p, draws=100_000, random_seed=2)[0])


def test_bad_input():
    with pytest.raises(ValueError):
        PoissonBinomial([0.5, 1.5])
    with pytest.raises(ValueError):
        PoissonBinomial(0.5)
    with pytest.raises(ValueError, match="whole"):
        PoissonBinomial([0.5]).cdf(0.5)


probability_vectors = st.lists(st.one_of(st.floats(0, 1), st.floats(0, 1e-12), st.floats(1 - 1e-12, 1),
                                         st.sampled_from([0.0, 1.0, 0.5, 1 - 2**-53, 2**-1074])),
                               min_size=1, max_size=40)


@settings(max_examples=300, deadline=None)
@given(probability_vectors)
def test_probabilities_never_exceed_one(p):
    X = PoissonBinomial(p)
    k = np.arange(-1, len(p) + 2)
    for values in (X.pmf(), X.pmf(k), X.cdf(k), X.sf(k)):
        assert np.all((values >= 0) & (values <= 1))
    np.testing.assert_allclose(X.cdf(k) + X.sf(k), 1.0, atol=1e-12)
    np.testing.assert_allclose(X.pmf().sum(), 1.0, atol=1e-12)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.one_of(st.floats(0, 1), st.floats(1 - 1e-9, 1)), min_size=1, max_size=8))
def test_cdf_and_sf_equal_rational_arithmetic_near_one(p):
    exact = exact_pmf(p)
    X = PoissonBinomial(p)
    for k in range(len(p) + 1):
        lower, upper = float(sum(exact[: k + 1])), float(sum(exact[k + 1:]))
        assert X.cdf(k) == pytest.approx(lower, rel=1e-12, abs=1e-300)
        assert X.sf(k) == pytest.approx(upper, rel=1e-12, abs=1e-300)


def test_nan_p_is_named():
    with pytest.raises(ValueError, match=r"^p contains NaN"):
        PoissonBinomial([0.5, np.nan])
    with pytest.raises(ValueError, match=r"^complement contains NaN"):
        PoissonBinomial([0.5, 0.5], complement=[0.5, np.nan])
    with pytest.raises(ValueError, match=r"^p must lie in \[0, 1\]"):
        PoissonBinomial([0.5, -0.1])
    with pytest.raises(TypeError, match="^p must be probabilities"):
        PoissonBinomial("0.5")


@pytest.mark.parametrize("kwargs,error,message", [
    ({"p": [0.5, 1.5]}, ValueError, r"^p must lie in \[0, 1\]"), ({"p": [-0.1]}, ValueError, r"^p must lie"),
    ({"p": [0.5, np.nan]}, ValueError, "^p contains NaN"), ({"p": [[0.5]]}, ValueError, "^p must be one problem"),
    ({"draws": 0}, ValueError, "^draws must be >= 1"), ({"draws": -5}, ValueError, "^draws must"),
    ({"draws": 10.5}, TypeError, "^draws must be a whole number"), ({"chunk": 0}, ValueError, "^chunk must"),
    ({"draws": np.inf}, TypeError, "^draws must")])
def test_monte_carlo_checks_its_arguments(kwargs, error, message):
    with pytest.raises(error, match=message):
        poisson_binomial_monte_carlo(**{"p": [0.5, 0.9], "draws": 100, "random_seed": 0, **kwargs})


def test_text_is_not_a_probability():
    with pytest.raises(TypeError, match="^p must be probabilities"):
        PoissonBinomial([0.2, "0.5", 0.7])
    with pytest.raises(TypeError, match="^complement must be probabilities"):
        PoissonBinomial([0.2, 0.5], complement=[0.8, "0.5"])
    with pytest.raises(ValueError, match=r"^complement must lie in \[0, 1\]"):
        PoissonBinomial([0.2, 0.5], complement=[0.8, np.inf])
