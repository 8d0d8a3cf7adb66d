"""Covariance matrices sampled as regressions (pp_corr.hierarchical.covariance): the prior the sampler sees is the
model's (uniform sds, LKJ correlation) by the change of variables, checked with a Jacobian computed here by finite
differences; the matrix equals a recursion written here; the pivoted order puts near-copies last."""
import numpy as np
import pymc as pm
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from pp_corr.hierarchical.covariance import covariance_values, pivot_order, regression_covariance, regression_values
from tests.conftest import regression_recursion

ORDER = np.array([2, 0, 3, 1])


def sds_and_correlations(u, m, order, scaling=0.0):
    """(sigma_a, r_ab for a < b) of the covariance the free values u = (log sd, slopes) give (the test's recursion)."""
    cov = regression_recursion(u[:m], u[m:], order, scaling)
    sd = np.sqrt(np.diag(cov))
    return np.r_[sd, (cov / np.outer(sd, sd))[np.triu_indices(m, 1)]], cov / np.outer(sd, sd)


def log_abs_jacobian(u, m, order, scaling=0.0, h=1e-6):
    jac = np.empty((len(u), len(u)))
    for k in range(len(u)):
        step = np.zeros(len(u))
        step[k] = h
        jac[:, k] = (sds_and_correlations(u + step, m, order, scaling)[0]
                     - sds_and_correlations(u - step, m, order, scaling)[0]) / (2 * h)
    return np.linalg.slogdet(jac)[1]


@pytest.mark.parametrize("eta, scaling", [(1.0, 0.0), (2.5, 0.0), (1.0, 1.0), (2.5, 0.4)])
def test_the_sampled_values_have_the_uniform_sd_and_lkj_prior(eta, scaling):
    """p(u) = p(sigma) p_LKJ(R) |d(sigma, R)/du|: log p(u) - log|J| - (eta - 1) log det R is the same at every
    point (sigma uniform below its bound contributes a constant), with the slopes free or scaled."""
    m = len(ORDER)
    with pm.Model() as model:
        regression_covariance("pop", np.full(m, 50.0), ORDER, eta=eta, scaling=scaling)
    log_prior = model.compile_fn(model.replace_rvs_by_values([model["pop_prior"]])[0], inputs=model.value_vars)
    rng = np.random.default_rng(5)
    residues = []
    for _ in range(6):
        u = rng.normal(0, 0.6, m + m * (m - 1) // 2)
        point = {"pop_log_sd": u[:m], "pop_slopes": u[m:]}
        corr = sds_and_correlations(u, m, ORDER, scaling)[1]
        residues.append(float(log_prior(point)) - log_abs_jacobian(u, m, ORDER, scaling)
                        - (eta - 1) * np.linalg.slogdet(corr)[1])
    assert np.ptp(residues) < 1e-6


def test_one_order_per_matrix_and_the_bound():
    """A stack with its own order per matrix: each matrix as the recursion gives it, the prior the sum of each
    matrix's (the single-matrix prior checked above); an sd above its coordinate's bound has probability 0."""
    rng = np.random.default_rng(6)
    orders = np.array([[0, 1, 2], [2, 1, 0], [1, 2, 0]])
    upper = np.array([[5.0, 5.0, 5.0], [5.0, 5.0, 5.0], [5.0, 5.0, 0.5]])
    with pm.Model() as stacked:
        cov, sd = regression_covariance("ds", upper, orders)
    values = stacked.compile_fn(stacked.replace_rvs_by_values([cov, stacked["ds_prior"]]),
                                inputs=stacked.value_vars)
    singles = []
    for i, order in enumerate(orders):
        with pm.Model() as single:
            regression_covariance("one", np.full(3, 5.0), order)
        singles.append(single.compile_fn(single.replace_rvs_by_values([single["one_prior"]])[0],
                                         inputs=single.value_vars))
    log_sd, slopes = rng.normal(-1.5, 0.3, (3, 3)), rng.normal(0, 0.5, (3, 3))
    got, prior = values({"ds_log_sd": log_sd, "ds_slopes": slopes})
    for i, order in enumerate(orders):
        np.testing.assert_allclose(got[i], regression_recursion(log_sd[i], slopes[i], order), rtol=1e-12)
    assert prior == pytest.approx(sum(float(f({"one_log_sd": log_sd[i], "one_slopes": slopes[i]}))
                                      for i, f in enumerate(singles)), rel=1e-12)
    slopes[2] = 0.0  # matrix 3's coordinates independent, coordinate 2 (bound 0.5) at position 1 of its order
    log_sd[2] = np.log([3.0, 0.4, 3.0])
    assert np.isfinite(values({"ds_log_sd": log_sd, "ds_slopes": slopes})[1])
    log_sd[2] = np.log([0.4, 0.6, 0.4])
    assert values({"ds_log_sd": log_sd, "ds_slopes": slopes})[1] == -np.inf


@pytest.mark.parametrize("eta, scaling", [(1.0, 0.0), (2.5, 0.4)])
def test_a_block_seen_alone_has_the_marginal_prior_and_the_others_are_standard_normal(eta, scaling):
    """With the first 3 of 4 positions present, log p(u) - log|J| - (eta' - 1) log det R of the block (its sds and
    correlations by the 3-coordinate recursion, eta' = eta + 1/2) minus the standard normal log density of the
    4th row's free values is the same at every point; the 4th coordinate's sd may pass its bound."""
    m, present = len(ORDER), np.array([1.0, 1.0, 1.0, 0.0])
    with pm.Model() as model:
        regression_covariance("pop", np.full(m, 50.0), ORDER, eta=eta, scaling=scaling, present=present)
    log_prior = model.compile_fn(model.replace_rvs_by_values([model["pop_prior"]])[0], inputs=model.value_vars)
    block = np.argsort(np.argsort(ORDER[:3]))  # the block's order among its own coordinates
    rng = np.random.default_rng(7)
    residues = []
    for _ in range(6):
        u = rng.normal(0, 0.6, m + m * (m - 1) // 2)
        ours = u[:3].tolist() + u[m:m + 3].tolist()  # log sds and slopes of the first 3 rows
        others = np.r_[u[3], u[m + 3:]]
        corr = sds_and_correlations(np.array(ours), 3, block, scaling)[1]
        residues.append(float(log_prior({"pop_log_sd": u[:m], "pop_slopes": u[m:]}))
                        - log_abs_jacobian(np.array(ours), 3, block, scaling)
                        - (eta + 0.5 - 1) * np.linalg.slogdet(corr)[1] - stats.norm.logpdf(others).sum())
    assert np.ptp(residues) < 1e-6
    u[3] = np.log(60.0)
    assert np.isfinite(log_prior({"pop_log_sd": u[:m], "pop_slopes": u[m:]}))


def test_with_a_basis_the_prior_is_that_of_the_regressions_coordinates():
    """With a basis B (x = B z, the regressions those of z in the order's positions) the prior is set on cov(z):
    log p(u) - log|J| - (eta - 1) log det R of z's sds and correlations is the same at every point, the matrix is
    B cov(z) B^T, and z_j's bound is that of the coordinate at position j of the order - not x's sd."""
    m, eta, scaling, order = 3, 1.5, 0.3, np.array([1, 0, 2])
    basis = np.array([[1.0, 0.0, 0.7], [0.0, 1.0, -0.4], [0.0, 0.0, 1.0]])[:, order]  # x_1 = z_0 - 0.4 z_2
    with pm.Model() as model:
        cov, _ = regression_covariance("pop", np.array([50.0, 2.0, 50.0]), order, eta=eta, scaling=scaling,
                                       basis=basis)
    values = model.compile_fn(model.replace_rvs_by_values([cov, model["pop_prior"]]), inputs=model.value_vars)
    rng = np.random.default_rng(8)
    residues = []
    for _ in range(6):
        u = rng.normal(0, 0.6, m + m * (m - 1) // 2)
        got, log_prior = values({"pop_log_sd": u[:m], "pop_slopes": u[m:]})
        in_z = regression_recursion(u[:m], u[m:], np.arange(m), scaling)
        np.testing.assert_allclose(got, basis @ in_z @ basis.T, rtol=1e-12)
        corr = sds_and_correlations(u, m, np.arange(m), scaling)[1]
        residues.append(float(log_prior) - log_abs_jacobian(u, m, np.arange(m), scaling)
                        - (eta - 1) * np.linalg.slogdet(corr)[1])
    assert np.ptp(residues) < 1e-6
    slopes = np.zeros(3)
    got, log_prior = values({"pop_log_sd": np.log([1.9, 1.0, 4.0]), "pop_slopes": slopes})
    assert np.sqrt(got[1, 1]) > 2 and np.isfinite(log_prior)  # x_1's sd 2.5, z_0's 1.9: below its bound
    assert values({"pop_log_sd": np.log([2.1, 1.0, 1.0]), "pop_slopes": slopes})[1] == -np.inf


@pytest.mark.long
@pytest.mark.parametrize("eta", [1.0, 2.0])
def test_a_block_of_an_lkj_matrix_is_lkj_with_eta_plus_half_the_dimensions_left_out(eta):
    """The mathematics of the marginal above, against PyMC's LKJ draws: the leading 2 x 2 and 3 x 3 blocks of
    4 x 4 LKJ(eta) matrices and LKJ(eta + 1) and LKJ(eta + 1/2) matrices of their size have the same laws of log det
    R and of one correlation (two-sample Kolmogorov-Smirnov, 6,000 draws each)."""
    big = pm.draw(pm.LKJCorr.dist(n=4, eta=eta), draws=6000, random_seed=1)
    for p in (2, 3):
        small = pm.draw(pm.LKJCorr.dist(n=p, eta=eta + (4 - p) / 2), draws=6000, random_seed=2)
        block = big[:, :p, :p]
        assert stats.ks_2samp(np.linalg.slogdet(block)[1], np.linalg.slogdet(small)[1]).pvalue > 1e-3
        assert stats.ks_2samp(block[:, 0, 1], small[:, 0, 1]).pvalue > 1e-3
        wrong = pm.draw(pm.LKJCorr.dist(n=p, eta=eta), draws=6000, random_seed=3)  # the test tells them apart
        assert stats.ks_2samp(np.linalg.slogdet(block)[1], np.linalg.slogdet(wrong)[1]).pvalue < 1e-6


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**31), m=st.integers(1, 6), scaling=st.sampled_from([0.0, 1.0, 0.3]))
def test_values_round_trip_and_match_the_recursion(seed, m, scaling):
    rng = np.random.default_rng(seed)
    factor = rng.normal(size=(m, m + 2))
    cov = factor @ factor.T + 0.1 * np.eye(m)
    order = rng.permutation(m)
    log_sd, slopes = regression_values(cov, order, scaling)
    np.testing.assert_allclose(covariance_values(log_sd, slopes, order, scaling), cov, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(regression_recursion(log_sd, slopes, order, scaling), cov, rtol=1e-9, atol=1e-12)


def test_pivot_order_puts_near_copies_and_constants_last():
    rng = np.random.default_rng(7)
    base = rng.normal(size=(200, 3)) * [1.0, 2.0, 0.5]
    x = np.column_stack([base[:, 0], base[:, 0] + 1e-3 * rng.normal(size=200), base[:, 1], np.zeros(200),
                         base[:, 2]])
    order = pivot_order(np.cov(x, rowvar=False))
    assert sorted(order.tolist()) == list(range(5))
    assert order[-1] == 3 and order[-2] in (0, 1)  # the constant last, then one of the twins
    assert pivot_order(np.stack([np.cov(x, rowvar=False)] * 2)).tolist() == [order.tolist()] * 2
