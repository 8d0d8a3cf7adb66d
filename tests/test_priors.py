"""pairwise/priors.py: the Normal-Gamma prior of the correlated t-test refuses what is not a number and gives
finite posteriors whenever it is proper."""
import numpy as np
from hypothesis import given, strategies as st

from pp_corr import NormalGamma, correlated_ttest, poisson_test
from tests.conftest import (BASE_MATRIX, INF, NAN, assert_probability, assert_sums_to_one, campaign, check_error,
                            grid, matrices, quiet)


NG_BAD = [("mu0", NAN), ("mu0", INF), ("mu0", -INF), ("k0", NAN), ("k0", -INF), ("a", NAN), ("a", INF),
          ("b", NAN), ("b", INF), ("b", -INF), ("a", "1"), ("mu0", None)]


class TestNormalGamma:
    @campaign(40)
    @given(case=st.sampled_from(NG_BAD))
    def test_normal_gamma_refuses_nonfinite_hyper_parameters(self, case):
        name, value = case
        check_error(lambda: NormalGamma(**{name: value}), (name,))

    @campaign(50)
    @given(x=matrices(grid(-64, 64), q=(1, 3), n=(2, 8)), mu0=grid(-64, 64), k0=st.floats(1e-3, 1e3),
           a=st.floats(0.1, 10), b=st.floats(1e-6, 10), rho=st.sampled_from([0.0, 0.1, 0.5]))
    def test_proper_prior_posteriors_are_finite(self, x, mu0, k0, a, b, rho):
        prior = NormalGamma(mu0=mu0, k0=k0, a=a, b=b)
        res = quiet(correlated_ttest, x, rho=rho, prior=prior, rope=0.1)
        for name in ("p_left", "p_rope", "p_right"):
            assert_probability(name, getattr(res, name))
        assert_sums_to_one(res.p_left, res.p_rope, res.p_right)
        assert not np.asarray(res.degenerate).any(), "a proper prior never gives a point mass"
        assert np.isfinite(np.asarray(res.mean, dtype=float)).all()

    def test_regression_normal_gamma_nonfinite(self):
        for name in ("mu0", "k0", "a", "b"):
            check_error(lambda: NormalGamma(**{name: NAN}), (name,))
        for name in ("mu0", "a", "b"):
            check_error(lambda: NormalGamma(**{name: INF}), (name,))

    def test_regression_nan_prior_message(self):
        err = check_error(lambda: poisson_test(BASE_MATRIX, rho=0.1, prior=NormalGamma(NAN, 1.0, 1.0, 1.0)),
                          ("prior", "mu0"))
        assert "complement" not in str(err)
