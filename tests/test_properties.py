"""Property-based tests of the analytic test (hypothesis)."""
import numpy as np
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from pp_corr import NormalGamma, correlated_ttest

samples = hnp.arrays(float, st.integers(2, 40), elements=st.floats(-1, 1, allow_subnormal=False))
rhos = st.sampled_from([0.0, 0.1, 0.2, 0.5])
settings.register_profile("ci", deadline=None, max_examples=150)
settings.load_profile("ci")


def spread_enough(x):
    return np.ptp(x) > 1e-6


@given(samples, rhos, st.floats(-5, 5), st.floats(0.1, 10))
def test_shift_and_scale_equivariance(x, rho, shift, scale):
    assume(spread_enough(x))
    base = correlated_ttest(x, rho=rho, rope=0.05)
    moved = correlated_ttest(scale * x + shift, rho=rho, rope=(scale * -0.05 + shift, scale * 0.05 + shift))
    np.testing.assert_allclose(moved.mean, scale * base.mean + shift, rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(np.array(moved.interval()), scale * np.array(base.interval()) + shift,
                               rtol=1e-7, atol=1e-7)
    np.testing.assert_allclose([moved.p_left, moved.p_rope, moved.p_right],
                               [base.p_left, base.p_rope, base.p_right], atol=1e-7)


@given(samples, samples, rhos, st.floats(0, 0.2))
def test_swapping_a_and_b_swaps_left_and_right(a, b, rho, rope):
    n = min(len(a), len(b))
    a, b = a[:n], b[:n]
    assume(n >= 2 and spread_enough(b - a))
    prior = NormalGamma(0.0, 1.0, 1.0, 0.1)
    ab = correlated_ttest(a, b, rho=rho, rope=rope, prior=prior)
    ba = correlated_ttest(b, a, rho=rho, rope=rope, prior=prior)
    np.testing.assert_allclose([ab.p_left, ab.p_rope, ab.p_right], [ba.p_right, ba.p_rope, ba.p_left], atol=1e-12)


@given(samples, rhos, st.randoms(use_true_random=False))
def test_fold_order_does_not_matter(x, rho, random):
    assume(spread_enough(x))
    perm = list(range(len(x)))
    random.shuffle(perm)
    one, other = correlated_ttest(x, rho=rho, rope=0.01), correlated_ttest(x[perm], rho=rho, rope=0.01)
    np.testing.assert_allclose([one.p_left, one.p_rope, one.p_right],
                               [other.p_left, other.p_rope, other.p_right], atol=1e-12)
