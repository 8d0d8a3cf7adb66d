"""pairwise/intraclass.py. Oracles: scipy's multivariate normal on the dense compound-symmetry covariance, the
Schur-complement conditional written out here, dense GLS with numpy's inverse, and exact powers of two."""
import math
import warnings

import numpy as np
import pytest
from hypothesis import given, strategies as st
from hypothesis.extra import numpy as hnp
from scipy import stats

from pp_corr import SufficientStats, correlated_ttest, intraclass_logp, poisson_test, resolve_rho
from pp_corr.pairwise.intraclass import folds_from_runs, intraclass_fold_logp, real_array, rho_for
from tests.conftest import BASE_MATRIX, INF, NAN, assert_close, bad_corr, campaign, check_error, dense_stats, grid


def intraclass_matrix(n, rho):
    return (1 - rho) * np.eye(n) + rho * np.ones((n, n))


@pytest.mark.parametrize("rho", [0.0, 0.1, 0.5, 0.95])
@pytest.mark.parametrize("n", [2, 10, 100])
def test_logp_equals_dense_mvn(rho, n):
    rng = np.random.default_rng(n)
    x = rng.normal(0.3, 2.0, size=n)
    expected = stats.multivariate_normal(np.full(n, -0.2), 1.7**2 * intraclass_matrix(n, rho)).logpdf(x)
    np.testing.assert_allclose(intraclass_logp(x, -0.2, 1.7, rho), expected, rtol=1e-9)


@pytest.mark.parametrize("rho", [0.0, 0.1, 0.5])
def test_stats_match_dense_gls(rho):
    x = np.random.default_rng(1).normal(size=(3, 12))
    m_inv = np.linalg.inv(intraclass_matrix(12, rho))
    s = SufficientStats.from_samples(x, rho)
    ones = np.ones(12)
    A = ones @ m_inv @ ones
    mu_hat = (x @ m_inv @ ones) / A
    resid = x - mu_hat[:, None]
    np.testing.assert_allclose(s.effective_n, A, rtol=1e-12)
    np.testing.assert_allclose(s.mean, mu_hat, rtol=1e-12)
    np.testing.assert_allclose(s.weighted_ss, np.einsum("ij,jk,ik->i", resid, m_inv, resid), rtol=1e-10)
    general = SufficientStats.from_samples(x, corr=intraclass_matrix(12, rho))
    np.testing.assert_allclose(general.weighted_ss, s.weighted_ss, rtol=1e-10)
    np.testing.assert_allclose(general.effective_n, s.effective_n, rtol=1e-12)


def test_padded_rows_equal_unpadded():
    x = np.random.default_rng(2).normal(size=(2, 10))
    padded = x.copy()
    padded[1, 6:] = np.nan
    s = SufficientStats.from_samples(padded, 0.1, padded=True)
    short = SufficientStats.from_samples(x[1, :6], 0.1)
    assert s.n.tolist() == [10, 6]
    np.testing.assert_allclose([s.mean[1], s.weighted_ss[1], s.effective_n[1]],
                               [short.mean, short.weighted_ss, short.effective_n], rtol=1e-12)


def test_zero_variance_flagged_despite_rounding():
    s = SufficientStats.from_samples(np.full((2, 10), [[0.1], [0.0]]), 0.1)
    assert s.zero_variance.all() and (s.weighted_ss == 0).all()
    assert not SufficientStats.from_samples([0.1, 0.1 + 1e-9], 0.1).zero_variance


def test_resolve_rho():
    assert resolve_rho(folds=10) == 0.1
    assert resolve_rho(n_test=10, n_train=90) == 0.1
    np.testing.assert_allclose(resolve_rho(folds=[5, 10]), [0.2, 0.1])
    for kwargs in ({}, {"rho": 0.1, "folds": 10}, {"rho": 1.0}, {"rho": -0.1}, {"folds": 1}, {"n_test": 3}):
        with pytest.raises(ValueError):
            resolve_rho(**kwargs)


@pytest.mark.parametrize("c", [2.0**-900, 1e-200, 1e-160, 1e160, 1e200, 2.0**900])
def test_logp_does_not_overflow_needlessly(c):
    """x, mu, sigma in other units: the log density shifts by -n log c (the Jacobian) and stays finite."""
    rng = np.random.default_rng(3)
    n, rho = 12, 0.2
    x = rng.normal(0.3, 2.0, size=n)
    expected = stats.multivariate_normal(np.full(n, -0.2), 1.7**2 * intraclass_matrix(n, rho)).logpdf(x)
    got = intraclass_logp(x * c, -0.2 * c, 1.7 * c, rho)
    assert np.isfinite(got)
    np.testing.assert_allclose(got, expected - n * np.log(c), rtol=1e-10)


def test_logp_with_sigma_far_below_the_spread_is_finite():
    """sigma^2 underflows here, the density's log does not: -0.5 (x - mu)^2 / sigma^2 is about -1e288."""
    x = np.array([1.0, 1.0 + 2.0**-52])
    got = intraclass_logp(x, 1.0, 1e-160, 0.0)
    quad = (2.0**-52 / 1e-160) ** 2  # one deviation of 2^-52, the other 0
    assert np.isfinite(got)
    np.testing.assert_allclose(got, -0.5 * quad, rtol=1e-12)


def test_sigma_600_orders_below_values_at_their_mean_gives_the_finite_density_without_warnings():
    """sigma over the values' scale underflows to 0: where the values sit on their mean the quadratic form is 0
    and the log density finite (written out here: about +1380), where they do not it is -inf; both quietly (not
    NaN with 'invalid value' warnings)."""
    n, rho, sigma = 2, 0.1, 1e-300
    closed_form = -0.5 * (n * np.log(2 * np.pi) + 2 * n * np.log(sigma) + np.log1p(-rho) + np.log1p(rho))
    # n = 2: each value given the other has variance sigma^2 (1 - rho^2)
    folds = -0.5 * (np.log(2 * np.pi) + 2 * np.log(sigma) + np.log((1 - rho) * (1 + rho)))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert intraclass_logp([1e300, 1e300], 1e300, sigma, rho) == pytest.approx(closed_form, rel=1e-12, abs=0)
        np.testing.assert_allclose(intraclass_fold_logp([1e300, 1e300], 1e300, sigma, rho), folds, rtol=1e-12)
        assert intraclass_logp([1e300, -1e300], 1e300, sigma, rho) == -np.inf
        assert (intraclass_fold_logp([1e300, -1e300], 1e300, sigma, rho) == -np.inf).all()


@pytest.mark.parametrize("scale", [2.0**-1000, 1e-300, 1e-170, 1e150, 1e300, 2.0**1000])
def test_stats_scale_invariant_over_float_range(scale):
    x = np.random.default_rng(4).uniform(0.01, 3, size=(3, 20))
    base = SufficientStats.from_samples(x, [0.1, 0.2, 0.3])
    s = SufficientStats.from_samples(x * scale, [0.1, 0.2, 0.3])
    assert np.all(np.isfinite(s.scaled_mean)) and np.all(np.isfinite(s.scaled_ss)) and np.all(s.scaled_ss > 0)
    np.testing.assert_allclose(s.scaled_mean * (s.scale / scale), base.mean, rtol=1e-13)
    np.testing.assert_allclose(s.scaled_ss * (s.scale / scale) ** 2, base.weighted_ss, rtol=1e-12)
    assert not s.zero_variance.any()
    np.testing.assert_array_equal(np.log2(s.scale) % 1, 0)  # powers of two: an exact rescaling


@pytest.mark.parametrize("scale", [1e-300, 1e-170, 1.0, 1e170, 1e300])
def test_zero_variance_relative_to_magnitude(scale):
    ties = np.array([[0.1] * 8, [0.9 - 0.8, 0.8 - 0.7] * 4, [0.0] * 8, [0.1] * 7 + [0.1 + 1e-9]]) * scale
    s = SufficientStats.from_samples(ties, 0.1)
    np.testing.assert_array_equal(s.zero_variance, [True, True, True, False])
    assert (s.weighted_ss[:3] == 0).all() and s.scaled_ss[3] > 0
    padded = np.where(np.arange(8) < 6, ties, np.nan)
    np.testing.assert_array_equal(SufficientStats.from_samples(padded, 0.1, padded=True).zero_variance,
                                  [True, True, True, True])  # the 1e-9 was in a padded cell


def test_rho_per_problem_must_match_problems():
    with pytest.raises(ValueError, match="^rho has shape"):
        SufficientStats.from_samples(np.zeros(10) + np.arange(10), [0.1, 0.2])
    with pytest.raises(ValueError, match="^rho must be finite"):
        SufficientStats.from_samples(np.arange(10.0), np.nan)


@pytest.mark.parametrize("kwargs,name", [({"folds": np.inf}, "folds"), ({"folds": np.nan}, "folds"),
                                         ({"folds": "10"}, "folds"), ({"n_test": 3, "n_train": np.inf}, "n_train"),
                                         ({"n_test": np.inf, "n_train": 3}, "n_test"), ({"rho": np.inf}, "rho"),
                                         ({"n_test": [1, 2], "n_train": [1, 2, 3]}, "n_test"),
                                         ({"folds": 2.5}, "folds"), ({"rho": True}, "rho")])
def test_resolve_rho_rejects_non_finite_and_text(kwargs, name):
    with pytest.raises((ValueError, TypeError), match=f"^{name} "):
        resolve_rho(**kwargs)


@pytest.mark.parametrize("name,value", [("sigma", 0.0), ("sigma", -1.0), ("sigma", np.nan), ("sigma", np.inf),
                                        ("rho", np.nan), ("rho", 1.0), ("rho", -0.5), ("mu", np.nan),
                                        ("mu", np.inf), ("x", np.nan), ("sigma", "0.5")])
def test_logp_refuses_bad_arguments_by_name(name, value):
    args = {"x": np.array([0.1, -0.2, 0.4]), "mu": 0.0, "sigma": 0.5, "rho": 0.3}
    args[name] = np.array([0.1, value, 0.4]) if name == "x" else value
    with pytest.raises((ValueError, TypeError), match=f"^{name} "):
        intraclass_logp(**args)


def test_logp_negative_rho_down_to_positive_definite_limit():
    x = np.array([0.1, -0.2, 0.4])
    expected = stats.multivariate_normal(np.zeros(3), 0.25 * intraclass_matrix(3, -0.4)).logpdf(x)
    np.testing.assert_allclose(intraclass_logp(x, 0.0, 0.5, -0.4), expected, rtol=1e-12)


def test_stats_refuse_nan_and_inf_by_name():
    with pytest.raises(ValueError, match=r"^x contains NaN or inf \(first at index \(1,\)\)"):
        SufficientStats.from_samples([0.1, np.nan, 0.3], 0.1)
    with pytest.raises(ValueError, match=r"^x contains inf"):
        SufficientStats.from_samples([[0.1, np.inf, np.nan]], 0.1, padded=True)
    with pytest.raises(TypeError, match="^x must be numbers"):
        SufficientStats.from_samples(["0.1", "0.2"], 0.1)


def test_statistics_read_in_blocks_equal_whole_array_passes():
    """from_samples reads x in blocks of rows that stay in the cache: each row's mean and sum of squares must
    be numpy's whole-array values to the last bit, across block edges (65,536 values: 655 rows of 100), for
    3-D batches too; a NaN in a later block is named at its index in x's own shape."""
    x = np.random.default_rng(3).normal(0.01, 0.05, size=(4, 700, 100))
    s = SufficientStats.from_samples(x, 0.2)
    mean = x.mean(axis=-1)
    np.testing.assert_array_equal(s.scaled_mean, mean)
    dev = x - mean[..., None]
    np.testing.assert_array_equal(s.scaled_ss, np.einsum("...i,...i->...", dev, dev) / (1 - 0.2))
    bad = x.copy()
    bad[3, 699, 42] = np.nan  # the last block
    with pytest.raises(ValueError, match=r"x contains NaN or inf \(first at index \(3, 699, 42\)\)"):
        SufficientStats.from_samples(bad, 0.2)
    bad[1, 5, 0] = -np.inf  # an earlier one comes first
    with pytest.raises(ValueError, match=r"first at index \(1, 5, 0\)"):
        SufficientStats.from_samples(bad, 0.2)


def dense_logp(x, mu, sigma, rho):
    n = len(x)
    return stats.multivariate_normal(np.full(n, mu), sigma**2 * intraclass_matrix(n, rho)).logpdf(x)


def dense_fold_logp(x, mu, sigma, rho):
    """log p(x_j | x_-j) for each j from the dense covariance (Schur complement)."""
    n = len(x)
    cov = sigma**2 * intraclass_matrix(n, rho)
    out = np.empty(n)
    for j in range(n):
        rest = np.delete(np.arange(n), j)
        weights = np.linalg.solve(cov[np.ix_(rest, rest)], cov[rest, j])
        out[j] = stats.norm(mu + weights @ (x[rest] - mu), np.sqrt(cov[j, j] - weights @ cov[rest, j])).logpdf(x[j])
    return out


UNITS = np.array([2.0**-1000, 2.0**1022])  # one problem near the smallest normal floats, one near the largest


def _far_apart_rows():
    """Two rows of 12 values in (0.2, 1.8), and per-row mu and sigma, in units of 1: the second row's deviations
    from its mu = 0 add up to far more than 2."""
    rng = np.random.default_rng(19)
    x = np.clip(rng.normal(1.0, 0.3, size=(2, 12)), 0.2, 1.8)
    return x, np.array([0.9, 0.0]), np.array([0.4, 0.6])


class TestFoldsFromRuns:
    def test_runs_errors_name_runs_and_the_alternative(self):
        with pytest.raises(ValueError, match=r"^runs must be >= 1, got 0$"):
            folds_from_runs(0, 10)
        with pytest.raises(TypeError, match=r"^runs must be a whole number"):
            folds_from_runs(2.5, 10)
        with pytest.raises(ValueError, match=r"^runs=10 leaves one score per run: .*n_test"):
            folds_from_runs(10, 10)


class TestResolveRho:
    """Every message says what was given."""

    @pytest.mark.parametrize("rho,shown", [(1.5, "1.5"), ([1.5], "[1.5]"), ([0.5, 1.5], "[0.5 1.5]")])
    def test_rho_out_of_range_is_shown_as_given(self, rho, shown):
        """A number is shown as a number, an array (even of one value) as an array."""
        with pytest.raises(ValueError) as error:
            resolve_rho(rho)
        assert str(error.value) == f"rho must be in [0, 1), got {shown}"

    @pytest.mark.parametrize("kwargs,given", [({"rho": 0.1, "folds": 10}, "rho, folds"),
                                              ({"n_test": 1, "n_train": 9, "folds": 10}, "n_test/n_train, folds"),
                                              ({"rho": 0.1, "n_train": 9}, "rho, n_test/n_train"),
                                              ({}, "none")])
    def test_resolve_rho_names_what_was_given(self, kwargs, given):
        with pytest.raises(ValueError) as error:
            resolve_rho(**kwargs)
        assert str(error.value) == f"give exactly one of rho, n_test with n_train, or folds (got {given})"

    @pytest.mark.parametrize("kwargs", [{"n_test": 3}, {"n_train": 3}])
    def test_resolve_rho_wants_n_test_with_n_train(self, kwargs):
        with pytest.raises(ValueError, match="^n_test and n_train must be given together$"):
            resolve_rho(**kwargs)

    @pytest.mark.parametrize("name", ["n_test", "n_train"])
    def test_resolve_rho_names_a_count_that_is_not_positive(self, name):
        kwargs = {"n_test": 3, "n_train": 27, name: 0}
        with pytest.raises(ValueError, match=f"^{name} must be positive, got 0.0$"):
            resolve_rho(**kwargs)


class TestRhoFor:
    def test_rho_for_names_runs_and_folds_given_together(self):
        with pytest.raises(ValueError, match=r"^give runs or folds, not both \(folds = number of scores / runs\)$"):
            rho_for((3, 10), runs=2, folds=5)

    @pytest.mark.parametrize("shape,kwargs,message", [
        ((3, 10), {"rho": np.full((2, 3), 0.1)}, "rho has shape (2, 3) but x holds 3 data sets"),
        ((3, 10), {"folds": [5, 10]}, "folds has 2 values but x holds 3 data sets"),
        ((10,), {"n_test": [1, 2]}, "n_test has 2 values but x holds 1 data set")])
    def test_rho_for_says_what_was_given_and_how_many_data_sets(self, shape, kwargs, message):
        with pytest.raises(ValueError) as error:
            rho_for(shape, **kwargs)
        assert str(error.value) == f"{message}: give one value or one per data set"


class TestIntraclassLogp:
    def test_a_number_for_x_names_x(self):
        for compute in (lambda: intraclass_logp(0.5, 0.0, 1.0, 0.1), lambda: SufficientStats.from_samples(0.5, 0.1)):
            with pytest.raises(ValueError, match=r"^x must have at least one axis \(the folds\)$"):
                compute()

    def test_logp_of_one_value_takes_rho_in_minus_one_to_one(self):
        """For n = 1, M = 1 whatever rho: the density is N(mu, sigma^2), and rho must still be in (-1, 1)."""
        np.testing.assert_allclose(intraclass_logp([0.3], 0.1, 0.5, -0.9), stats.norm(0.1, 0.5).logpdf(0.3), rtol=1e-14)
        for rho in (-1.0, -1.5):
            with pytest.raises(ValueError, match=r"^rho must be in \(-1, 1\) for 1 values"):
                intraclass_logp([0.3], 0.1, 0.5, rho)

    def test_logp_of_problems_of_very_different_magnitude(self):
        x, mu, sigma = _far_apart_rows()
        got = intraclass_logp(x * UNITS[:, None], mu * UNITS, sigma * UNITS, 0.2)
        expected = [dense_logp(x[k], mu[k], sigma[k], 0.2) - 12 * np.log(UNITS[k]) for k in range(2)]
        np.testing.assert_allclose(got, expected, rtol=1e-10)

    def test_logp_below_the_float_range_is_minus_inf_without_a_warning(self):
        """-0.5 (x - mu)^T (sigma^2 M)^-1 (x - mu) is about -1e568 (the squared spread overflows) or sigma / scale
        is 0 (sigma = 1e-300 under values near 1e300): the log density is -inf in float, and nothing warns."""
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            assert intraclass_logp([1.0, 1.0 + 2.0**-52], 1.0, 1e-300, 0.0) == -np.inf
            assert intraclass_logp([1e300, 2e300], 0.0, 1e-300, 0.1) == -np.inf


class TestIntraclassFoldLogp:
    @pytest.mark.parametrize("name", ["x", "mu", "sigma", "rho"])
    def test_fold_logp_names_a_non_finite_argument(self, name):
        args = {"x": np.array([0.1, -0.2, 0.4]), "mu": 0.0, "sigma": 0.5, "rho": 0.3}
        args[name] = np.array([0.1, np.nan, 0.4]) if name == "x" else np.nan
        with pytest.raises(ValueError, match=f"^{name} must be finite, got nan"):
            intraclass_fold_logp(**args)

    def test_fold_logp_of_problems_of_very_different_magnitude(self):
        """Each value's conditional density shifts by -log c in units c; near the largest floats the row's sum
        overflows unless it is taken on the rescaled values."""
        x, mu, sigma = _far_apart_rows()
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            got = intraclass_fold_logp(x * UNITS[:, None], mu * UNITS, sigma * UNITS, 0.2)
        for k in range(2):
            np.testing.assert_allclose(got[k], dense_fold_logp(x[k], mu[k], sigma[k], 0.2) - np.log(UNITS[k]),
                                       rtol=1e-10)

    def test_fold_logp_below_the_float_range_is_minus_inf_without_a_warning(self):
        """With rho = 0 each value's conditional is N(mu, sigma^2): the value at mu has log density
        -log(2 pi) / 2 - log sigma, the other (2^-52 away, 2.2e284 sigmas) -inf in float."""
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            got = intraclass_fold_logp([1.0, 1.0 + 2.0**-52], 1.0, 1e-300, 0.0)
        np.testing.assert_allclose(got[0], -0.5 * np.log(2 * np.pi) - np.log(1e-300), rtol=1e-15)
        assert got[1] == -np.inf


class TestSufficientStatsFromSamples:
    """A power of two per problem, one correlation matrix per problem and its symmetry tolerance,
    ties, padded problems, a sum that overflows both ways, rho per problem."""

    def test_general_corr_stats_of_problems_of_very_different_magnitude(self):
        """One power of two per problem, from that problem's own largest |x|: a row near 1e-301 next to one of
        negative values near -1e308 keeps its digits, and a constant row is flagged beside varying ones."""
        x, _, _ = _far_apart_rows()
        x = np.vstack([x * np.array([[2.0**-1000], [-(2.0**1022)]]), np.full(12, 0.375)])
        corr = intraclass_matrix(12, 0.3)
        corr[0, 11] = corr[11, 0] = 0.1
        s = SufficientStats.from_samples(x, corr=corr)
        np.testing.assert_array_equal(s.scale, [2.0**-1000, 2.0**1022, 0.25])
        np.testing.assert_array_equal(s.zero_variance, [False, False, True])
        for k, unit in enumerate([2.0**-1000, -(2.0**1022)]):
            mean, q, a = dense_stats(x[k] / unit, corr)
            np.testing.assert_allclose(s.scaled_mean[k] * s.scale[k] / unit, mean, rtol=1e-12)
            np.testing.assert_allclose(s.scaled_ss[k] * (s.scale[k] / unit) ** 2, q, rtol=1e-10)
            np.testing.assert_allclose(s.effective_n[k], a, rtol=1e-12)
        np.testing.assert_allclose(s.scaled_mean[2] * s.scale[2], 0.375, rtol=1e-14)
        assert s.scaled_ss[2] == 0

    def test_general_corr_one_matrix_per_problem(self):
        rng = np.random.default_rng(7)
        x = rng.normal(0.02, 0.05, size=(3, 5))
        corr = np.stack([intraclass_matrix(5, rho) for rho in (0.0, 0.2, 0.5)])
        corr[2, 0, 4] = corr[2, 4, 0] = 0.1
        s = SufficientStats.from_samples(x, corr=corr)
        assert s.n.shape == (3,) and (s.n == 5).all()
        for k in range(3):
            mean, q, a = dense_stats(x[k], corr[k])
            np.testing.assert_allclose([s.mean[k], s.weighted_ss[k], s.effective_n[k]], [mean, q, a], rtol=1e-10)

    def test_general_corr_asymmetric_by_exactly_the_tolerance_is_accepted(self):
        """corr is refused when an entry differs from its transpose by more than 1e-12 times max |corr|: an
        asymmetry of exactly 1e-12 (0 against 1e-12, max |corr| = 1) is accepted, 2e-12 is not."""
        x = np.array([0.1, 0.3, 0.2, 0.25])
        corr = np.eye(4)
        corr[0, 1] = 1e-12
        s = SufficientStats.from_samples(x, corr=corr)
        mean, q, a = dense_stats(x, np.eye(4))
        np.testing.assert_allclose([s.mean, s.weighted_ss, s.effective_n], [mean, q, a], rtol=1e-9)
        corr[0, 1] = 2e-12
        with pytest.raises(ValueError, match="^corr must be symmetric$"):
            SufficientStats.from_samples(x, corr=corr)

    def test_general_corr_per_problem_of_a_3d_batch_is_checked_and_used(self):
        x = np.random.default_rng(8).normal(0.02, 0.05, size=(2, 3, 5))
        corr = np.stack([intraclass_matrix(5, rho) for rho in (0.0, 0.2, 0.5)])
        s = SufficientStats.from_samples(x, corr=corr)
        for i in range(2):
            for j in range(3):
                mean, q, a = dense_stats(x[i, j], corr[j])
                np.testing.assert_allclose([s.mean[i, j], s.weighted_ss[i, j], s.effective_n[i, j]], [mean, q, a],
                                           rtol=1e-10)
        with pytest.raises(ValueError, match=r"^corr has shape \(5,\) but x holds 1 problem\(s\) of shape \(\)"):
            SufficientStats.from_samples(x[0, 0], corr=np.stack([intraclass_matrix(5, 0.1)] * 5))
        asymmetric = corr.copy()
        asymmetric[1, 0, 3] += 0.05
        with pytest.raises(ValueError, match="^corr must be symmetric$"):
            SufficientStats.from_samples(x, corr=asymmetric)

    @pytest.mark.parametrize("step,tie", [(8, True), (16, True), (24, False)])
    def test_a_tie_is_an_rms_spread_within_twice_the_tolerance_of_the_scale(self, step, tie):
        """Values 1 +- step * eps (scale 1, the power of two <= max |x|): their rms spread step * eps is a tie up to
        2 * TIE_TOLERANCE = 16 eps, whatever the number of values (8 here) and of problems (1 here)."""
        eps = np.finfo(float).eps
        x = 1.0 + step * eps * np.array([1.0, -1.0] * 4)
        s = SufficientStats.from_samples(x, 0.1)
        assert bool(s.zero_variance) is tie
        assert bool(s.scaled_ss == 0) is tie and s.scale == 1.0

    def test_a_tie_among_many_values_is_found_in_one_problem(self):
        """8,192 values 1 +- 12 eps: an rms spread of 12 eps is a tie (within 16 eps), also when the problem is alone
        (the first pass must pass such a row on by the number of its values, not of problems)."""
        eps = np.finfo(float).eps
        x = 1.0 + 12 * eps * np.tile([1.0, -1.0], 4096)
        s = SufficientStats.from_samples(x, 0.1)
        assert bool(s.zero_variance) and s.scaled_ss == 0 and s.scaled_mean == 1.0

    def test_padded_problems_of_very_different_magnitude(self):
        """Ragged problems near 1e-301, -1e308 and 1e301: each gets its own power of two, and its statistics are the
        dense GLS ones of its present values."""
        x, _, _ = _far_apart_rows()
        units = [2.0**-1000, -(2.0**1022), 2.0**1000]
        x = np.vstack([x, x[0]]) * np.array(units)[:, None]
        x[0, 9:] = np.nan
        x[1, :4] = np.nan
        x[2, 5] = np.nan
        s = SufficientStats.from_samples(x, 0.3, padded=True)
        np.testing.assert_array_equal(s.n, [9, 8, 11])
        np.testing.assert_array_equal(s.scale, np.abs(units))
        for k, unit in enumerate(units):
            present = x[k][~np.isnan(x[k])] / unit
            mean, q, a = dense_stats(present, intraclass_matrix(len(present), 0.3))
            np.testing.assert_allclose(s.scaled_mean[k] * s.scale[k] / unit, mean, rtol=1e-12)
            np.testing.assert_allclose(s.scaled_ss[k] * (s.scale[k] / unit) ** 2, q, rtol=1e-10)
            np.testing.assert_allclose(s.effective_n[k], a, rtol=1e-12)

    def test_a_padded_problem_with_no_values_is_a_tie_without_a_warning(self):
        x = np.array([[0.1, 0.3, 0.2, 0.25], [np.nan] * 4])
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            s = SufficientStats.from_samples(x, 0.2, padded=True)
        np.testing.assert_array_equal(s.n, [4, 0])
        np.testing.assert_array_equal(s.zero_variance, [False, True])
        assert s.scaled_ss[1] == 0 and s.effective_n[1] == 0
        mean, q, a = dense_stats(x[0], intraclass_matrix(4, 0.2))
        np.testing.assert_allclose([s.mean[0], s.weighted_ss[0], s.effective_n[0]], [mean, q, a], rtol=1e-12)

    def test_a_row_whose_sum_overflows_both_ways_is_recomputed_without_a_warning(self):
        """numpy sums 8 values pairwise: (a + a) + (-a - a) is inf - inf = NaN for a = 1.7e308. The row is then
        recomputed in units of 2^1023: mean 0 and Q / (1 - rho) = 4 (a / 2^1023)^2 / (1 - rho)."""
        a = 1.7e308
        x = np.array([a, a, -a, -a, 0.0, 0.0, 0.0, 0.0])
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            s = SufficientStats.from_samples(x, 0.2)
        assert s.scale == 2.0**1023 and s.scaled_mean == 0 and not s.zero_variance
        np.testing.assert_allclose(s.scaled_ss, 4 * (a / 2.0**1023) ** 2 / 0.8, rtol=1e-15)

    def test_stats_take_rho_per_problem_of_a_3d_batch_and_refuse_one_per_value(self):
        x = np.random.default_rng(5).normal(0.02, 0.05, size=(2, 3, 6))
        rho = np.array([0.0, 0.2, 0.5])
        s = SufficientStats.from_samples(x, rho)
        for i in range(2):
            for j in range(3):
                mean, q, a = dense_stats(x[i, j], intraclass_matrix(6, rho[j]))
                np.testing.assert_allclose([s.mean[i, j], s.weighted_ss[i, j], s.effective_n[i, j]], [mean, q, a],
                                           rtol=1e-10)
        with pytest.raises(ValueError, match=r"^rho has shape \(6,\) but x holds 1 problem\(s\) of shape \(\)"):
            SufficientStats.from_samples(x[0, 0], np.full(6, 0.1))

    @pytest.mark.parametrize("rho", [-0.1, 1.0, [0.1, -0.2]])
    def test_stats_refuse_rho_outside_0_1(self, rho):
        with pytest.raises(ValueError, match=r"^rho must be in \[0, 1\), got "):
            SufficientStats.from_samples(np.arange(20.0).reshape(2, 10), rho)


class TestRealArray:
    """A copy by default; object arrays of numbers."""

    def test_real_array_returns_a_copy_unless_told_not_to(self):
        given = np.array([0.1, 0.2])
        out = real_array("v", given)
        out[0] = 5.0
        assert given.tolist() == [0.1, 0.2]
        assert real_array("v", given, copy=False) is given

    def test_real_array_takes_an_object_array_of_numbers_and_says_what_text_it_got(self):
        np.testing.assert_array_equal(real_array("v", np.array([1, 0.5, np.float32(2.0)], dtype=object)),
                                      [1.0, 0.5, 2.0])
        with pytest.raises(TypeError) as error:
            real_array("folds", "10")
        assert str(error.value) == "folds must be a number or an array of numbers, got str '10'"
        with pytest.raises(TypeError, match=r"^v must be numbers, got array\(\[1, None\], dtype=object\)$"):
            real_array("v", np.array([1, None], dtype=object))


# --- bad and extreme inputs: refused by name, or the documented answer (issue #10) ----------------------------------

RHO_BAD = [({"folds": INF}, ("folds",)), ({"folds": NAN}, ("folds",)), ({"folds": 1}, ("folds",)),
           ({"folds": 0}, ("folds",)), ({"folds": -3}, ("folds",)), ({"folds": 2.5}, ("folds",)),
           ({"n_test": 10, "n_train": INF}, ("n_train",)), ({"n_test": INF, "n_train": 90}, ("n_test",)),
           ({"n_test": NAN, "n_train": 90}, ("n_test",)), ({"n_test": 10, "n_train": -5}, ("n_train",)),
           ({"n_test": 10, "n_train": 0}, ("n_train",)), ({"n_test": 10}, ("n_train",)),
           ({"rho": NAN}, ("rho",)), ({"rho": 1.0}, ("rho",)), ({"rho": INF}, ("rho",)),
           ({"rho": 0.1, "folds": 10}, ("rho", "folds"))]


class TestSufficientStatsArguments:
    @campaign(60)
    @given(x=hnp.arrays(np.float64, st.integers(2, 7), elements=grid()), rho=st.sampled_from([0.0, 0.1, 0.5, 0.9]),
           seed=st.integers(0, 2**16), general=st.booleans())
    def test_sufficient_stats_match_dense_matrices(self, x, rho, seed, general):
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
        mean, q, effective = dense_stats(x, corr)
        assert_close(s.mean, mean, "GLS mean", rtol=1e-9, atol=1e-12)
        assert_close(s.weighted_ss, q, "weighted sum of squares", rtol=1e-8, atol=1e-10)
        assert_close(s.effective_n, effective, "effective n", rtol=1e-9)
        assert bool(np.asarray(s.zero_variance)) == bool(np.ptp(x) == 0)

    @campaign(40)
    @given(x=hnp.arrays(np.float64, st.integers(3, 6), elements=grid()),
           case=st.sampled_from(["rho nan", "rho 1", "rho inf", "corr nan", "corr asymmetric",
                                 "corr not positive definite", "corr singular", "corr wrong shape", "x nan"]))
    def test_sufficient_stats_refuse_bad_arguments(self, x, case):
        n = len(x)
        if case.startswith("rho"):
            value = {"rho nan": NAN, "rho 1": 1.0, "rho inf": INF}[case]
            check_error(lambda: SufficientStats.from_samples(x, rho=value), ("rho",))
        elif case.startswith("corr"):
            check_error(lambda: SufficientStats.from_samples(x, corr=bad_corr(case[5:], n)), ("corr",))
        else:
            check_error(lambda: SufficientStats.from_samples(np.where(np.arange(n) == 1, NAN, x), rho=0.1), ("x",))


class TestIntraclassLogpArguments:
    @campaign(60)
    @given(x=hnp.arrays(np.float64, st.integers(1, 6), elements=grid()), mu=grid(), sigma=st.floats(0.01, 10),
           rho_frac=st.floats(0.01, 0.99), k=st.integers(-1000, 1000))
    def test_intraclass_logp_matches_scipy_and_the_unit(self, x, mu, sigma, rho_frac, k):
        n = len(x)
        low = -1 / (n - 1) if n > 1 else -0.99
        rho = low + rho_frac * (1 - low)
        cov = sigma**2 * ((1 - rho) * np.eye(n) + rho)
        expected = stats.multivariate_normal(np.full(n, mu), cov).logpdf(x)
        assert_close(intraclass_logp(x, mu, sigma, rho), expected, "logp vs scipy", rtol=1e-8, atol=1e-8)
        s = math.ldexp(1.0, k)
        assert_close(intraclass_logp(x * s, mu * s, sigma * s, rho) + n * math.log(s), expected,
                     f"logp at scale 2^{k}", rtol=1e-8, atol=1e-8)

    @campaign(40)
    @given(case=st.sampled_from([("sigma", 0.0), ("sigma", -1.0), ("sigma", NAN), ("sigma", INF), ("rho", NAN),
                                 ("rho", 1.0), ("rho", -0.6), ("rho", 1.5), ("mu", NAN), ("mu", INF), ("x", NAN)]))
    def test_intraclass_logp_refuses_bad_arguments(self, case):
        name, value = case
        args = {"x": np.array([0.1, -0.2, 0.4]), "mu": 0.0, "sigma": 0.5, "rho": 0.3}
        args[name] = np.array([0.1, value, 0.4]) if name == "x" else value
        check_error(lambda: intraclass_logp(**args), (name,))


class TestResolveRhoArguments:
    @campaign(40)
    @given(case=st.sampled_from(RHO_BAD))
    def test_resolve_rho_refuses_bad_arguments(self, case):
        kwargs, names = case
        check_error(lambda: resolve_rho(**kwargs), names)

    @campaign(40)
    @given(folds=st.integers(2, 10**6), n_test=st.integers(1, 10**9), n_train=st.integers(1, 10**9),
           rho=st.floats(0, 0.999))
    def test_resolve_rho_valid(self, folds, n_test, n_train, rho):
        assert_close(resolve_rho(folds=folds), 1 / folds, "1 / folds")
        assert_close(resolve_rho(n_test=n_test, n_train=n_train), n_test / (n_test + n_train),
                     "n_test / (n_test + n_train)")
        assert_close(resolve_rho(rho), rho, "rho")

    def test_regression_folds_inf_n_train_inf(self):
        x = BASE_MATRIX
        check_error(lambda: correlated_ttest(x, folds=INF), ("folds",))
        check_error(lambda: correlated_ttest(x, n_test=10, n_train=INF), ("n_train",))
        check_error(lambda: poisson_test(x, folds=INF), ("folds",))
        check_error(lambda: resolve_rho(n_test=10, n_train=INF), ("n_train",))


class TestIntraclassFoldLogpArguments:
    @pytest.mark.parametrize("x, sigma, rho, named", [
        ([0.1], 1.0, 0.1, "x"), ([0.1, 0.2], 0.0, 0.1, "sigma"), ([0.1, 0.2], 1.0, 1.0, "rho"),
        ([0.1, 0.2, 0.3], 1.0, -0.5, "rho"), ([0.1, float("nan")], 1.0, 0.1, "x")])
    def test_intraclass_fold_logp_names_a_bad_argument(self, x, sigma, rho, named):
        from pp_corr import intraclass_fold_logp

        with pytest.raises(ValueError, match=named):
            intraclass_fold_logp(x, 0.0, sigma, rho)

    def test_intraclass_fold_logp_at_the_smallest_design_equals_the_bivariate_normal_conditional(self):
        """n = 2: x_1 | x_2 ~ N(mu + rho (x_2 - mu), sigma^2 (1 - rho^2)), written out here."""
        from pp_corr import intraclass_fold_logp

        x, mu, sigma, rho = np.array([0.3, -0.1]), 0.05, 0.2, -0.6
        got = intraclass_fold_logp(x, mu, sigma, rho)
        want = [stats.norm(mu + rho * (x[1 - j] - mu), sigma * math.sqrt(1 - rho**2)).logpdf(x[j]) for j in (0, 1)]
        assert np.allclose(got, want, rtol=1e-12, atol=0)
