"""The signed-rank kernel in O(draws x q): against the dense O(q^2) quadratic forms it replaced, given the same
weights, on z with ties, zeros, duplicates and pair sums exactly on the rope's edges; the tests' results against the
dense computation under the same seed."""
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pp_corr import bayesian_signed_rank, imprecise_signed_rank
from pp_corr.pairwise.rank_tests import IDP_STRENGTH, PairSumRegions, dirichlet

EPS = np.finfo(float).eps


def dense_step(a, b, magnitude):
    """The pre-kernel comparison: 1/2 within 1e-12 x magnitude, else 1 above and 0 below."""
    return np.where(np.abs(a - b) <= 1e-12 * magnitude, 0.5, np.where(a > b, 1.0, 0.0))


def dense_matrices(points, lo, hi):
    """L, 1 - L - R and R over all pairs (q x q), in the power-of-two unit the library scales to (exact)."""
    largest = max(np.max(np.abs(points), initial=0.0), abs(lo), abs(hi))
    unit = np.ldexp(1.0, np.frexp(largest)[1] - 1) if largest > 0 else 1.0
    p, lo, hi = np.asarray(points) / unit, lo / unit, hi / unit
    pair = p[:, None] + p[None, :]
    magnitude = np.abs(p)[:, None] + np.abs(p)[None, :] + 2 * max(abs(lo), abs(hi))
    right, left = dense_step(pair, 2 * hi, magnitude), dense_step(2 * lo, pair, magnitude)
    return left, 1 - left - right, right


def impossible(points, lo, hi):
    """Which regions (left, rope, right) no pair sum falls in: their masses must be exactly 0. A region that can
    occur may still round to 0 when its mass is below the rounding of the total (a weight of 1e-17 beside 1)."""
    return np.array([not m.any() for m in dense_matrices(points, lo, hi)])


def assert_zero_exactly_where_impossible(got, points, lo, hi):
    assert (got[:, impossible(points, lo, hi)] == 0).all()


def dense_masses(w, points, lo, hi):
    return np.column_stack([np.einsum("ni,ij,nj->n", w, m, w) if m.any() else np.zeros(len(w))
                            for m in dense_matrices(points, lo, hi)])


def bound(w):
    """Rounding of a sum of q^2 non-negative products against its exact value: a few q eps (sum w)^2."""
    return 4 * (w.shape[1] + 2) * EPS * w.sum(axis=1) ** 2 + 1e-300


GRID = [0.0, 0.01, -0.01, 0.02, -0.02, 0.03, 0.005, -0.035, 0.1 / 3]   # decimal values: exact ties and sums
values = st.one_of(st.sampled_from(GRID), st.floats(-0.2, 0.2, allow_subnormal=False))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(z=st.lists(values, min_size=1, max_size=30), rope=st.one_of(st.sampled_from([0.0, 0.01, 0.02, 0.015]),
                                                                    st.floats(0, 0.1)),
       shift=st.sampled_from([0.0, 0.0, 0.01, -0.005]), seed=st.integers(0, 2**32 - 1))
def test_masses_equal_the_dense_quadratic_forms(z, rope, shift, seed):
    z = np.array(z)
    lo, hi = -rope + shift, rope + shift
    w = dirichlet(np.random.default_rng(seed), np.r_[np.full(len(z) - 1, 1.0), 0.3], 40)
    w[0] = np.full(len(z), 1 / len(z))    # equal weights: symmetric ties between rows
    got, expected = PairSumRegions(z, lo, hi).masses(w), dense_masses(w, z, lo, hi)
    assert (np.abs(got - expected) <= bound(w)[:, None]).all(), np.abs(got - expected).max()
    assert_zero_exactly_where_impossible(got, z, lo, hi)


@settings(max_examples=100, deadline=None)
@given(z=st.lists(st.sampled_from(GRID), min_size=1, max_size=12), seed=st.integers(0, 2**32 - 1))
def test_pair_sums_exactly_on_the_edges(z, seed):
    """A rope whose edges are pair sums of the data (z_i + z_j = 2 hi exactly), and rope 0 with exact zeros."""
    z = np.array(z)
    w = dirichlet(np.random.default_rng(seed), np.ones(len(z)), 20)
    for lo, hi in [(0.0, 0.0), (-(z[0] + z[-1]) / 2, (z[0] + z[-1]) / 2), ((z[0] + z[0]) / 2, (z[-1] + z[0]) / 2)]:
        lo, hi = min(lo, hi), max(lo, hi)
        got, expected = PairSumRegions(z, lo, hi).masses(w), dense_masses(w, z, lo, hi)
        assert (np.abs(got - expected) <= bound(w)[:, None]).all()
        assert_zero_exactly_where_impossible(got, z, lo, hi)


@pytest.mark.parametrize("z, rope", [(np.zeros(6), 0.0), (np.zeros(6), 0.01), (np.r_[np.zeros(5), 0.02], 0.0),
                                     (np.array([-0.01, 0.01, 0.01, -0.01]), 0.0),
                                     (np.random.default_rng(3).normal(0.005, 0.02, 54), 0.01)])
@pytest.mark.parametrize("prior_strength", [0.0, 0.5])
def test_bayesian_signed_rank_equals_the_dense_computation_under_one_seed(z, rope, prior_strength):
    """The whole test: the weights drawn in chunks are the draws of one call, the regions the dense ones."""
    n = 3000
    res = bayesian_signed_rank(z, rope=rope, prior_strength=prior_strength, draws=n, random_seed=11)
    points = np.r_[0.0, z] if prior_strength > 0 else z
    alpha = np.r_[prior_strength, np.ones(len(z))] if prior_strength > 0 else np.ones(len(z))
    w = dirichlet(np.random.default_rng(11), alpha, n)
    expected = dense_masses(w, points, -rope, rope)
    expected /= expected.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(res.samples, expected, rtol=0, atol=8 * (len(points) + 2) * EPS)
    assert_zero_exactly_where_impossible(res.samples, points, -rope, rope)
    # the shares of draws where each region is largest: ties between regions decided alike
    best = expected == expected.max(axis=1, keepdims=True)
    np.testing.assert_allclose(res.wins, (best / best.sum(axis=1, keepdims=True)).mean(axis=0), atol=1e-12)


@pytest.mark.parametrize("z", [np.random.default_rng(4).normal(0.01, 0.02, 30), np.r_[np.zeros(4), 0.01, -0.01],
                               np.array([0.02, 0.01, 0.03, 0.01, 0.02, 0.04, 0.01, 0.02])])
def test_imprecise_signed_rank_equals_the_dense_computation(z):
    n, q, s = 4000, len(z), IDP_STRENGTH
    res = imprecise_signed_rank(z, draws=n, random_seed=5)
    w = dirichlet(np.random.default_rng(5), np.r_[s, np.ones(q)], n)
    w0, h = w[:, 0], dense_matrices(z, 0.0, 0.0)[2]
    low = np.einsum("ni,ij,nj->n", w[:, 1:], h, w[:, 1:])
    high = w0 * (2 - w0) + low
    near = 1e-13  # draws this close to 1/2 may fall either side by rounding
    assert abs(res.lower - np.mean(low > 0.5)) <= np.mean(np.abs(low - 0.5) <= near)
    assert abs(res.upper - np.mean(high > 0.5)) <= np.mean(np.abs(high - 0.5) <= near)
    assert res.lower_mean == pytest.approx((h.sum() + np.trace(h)) / ((s + q) * (s + q + 1)), rel=1e-14)
