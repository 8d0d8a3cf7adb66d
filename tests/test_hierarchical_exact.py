"""The exact (quadrature) posterior of the hierarchical model against oracles that share nothing with it:
scipy's quad for the sigma_i integral, sampling for nu's prior, a dense trapezoid rule for the population kernel
against each data set's likelihood, importance sampling of the full joint (alpha, beta, nu, delta0, sigma0,
delta_i, sigma_i) from the fold data, and the normal-normal algebra of a normal population with known sigma_i."""
import math

import numpy as np
import pytest
from scipy import integrate, special, stats

from pp_corr import hierarchical_exact as he
from pp_corr.hierarchical_exact import ExactGrid, exact_posterior, log_sigma_integral, nu_prior_cdf, nu_prior_density

FAST = ExactGrid(error_estimate=False)


# --- the sigma_i integral

def quad_log_sigma_integral(b, n, lo, hi):
    """log int_lo^hi s^-n exp(-b / s^2) ds by quad in u = log s - log m, m where the integrand is largest, over
    the region within 80 nats of that (it is log-concave in u, so bisection finds where it falls that far)."""
    ta, tb = math.log(lo), math.log(hi)
    tm = min(max(0.5 * math.log(2 * b / (n - 1)), ta), tb) if b > 0 else ta
    top = -(n - 1) * tm - b * math.exp(-2 * tm)
    scale = b * math.exp(-2 * tm)

    def drop(u):  # log integrand at tm + u minus its top, without the rounding of the two large terms
        return -(n - 1) * u - scale * math.expm1(-2 * u)

    def reach(edge):
        if drop(edge) > -80:
            return edge
        inner, outer = 0.0, edge
        for _ in range(200):
            middle = 0.5 * (inner + outer)
            inner, outer = (middle, outer) if drop(middle) > -80 else (inner, middle)
        return outer

    points = [reach(ta - tm), 0.0, reach(tb - tm)]
    total = sum(integrate.quad(lambda u: math.exp(drop(u)), u0, u1, epsabs=0, epsrel=1e-13, limit=500)[0]
                for u0, u1 in zip(points[:-1], points[1:]) if u1 > u0)
    return top + math.log(total)


@pytest.mark.parametrize("lo, hi", [(0.01, 1000.0), (0.5, 0.50001), (1.0, 2.0), (1e-3, 10.0)])
@pytest.mark.parametrize("n", [2, 3, 10, 101])
def test_sigma_integral_equals_quad(n, lo, hi):
    b = np.array([0.0, 1e-300, 1e-12, 1e-3, 0.5, 3.0, 50.0, 1e4, 1e8])
    expected = [quad_log_sigma_integral(v, n, lo, hi) for v in b]
    np.testing.assert_allclose(log_sigma_integral(b, n, lo, hi), expected, rtol=1e-14, atol=1e-9)  # log: relative


# --- nu's prior

@pytest.mark.parametrize("alpha, beta", [((0.5, 5.0), (0.05, 0.15)), ((1.0, 2.0), (0.01, 0.1))])
def test_nu_prior_matches_sampling(alpha, beta):
    rng = np.random.default_rng(11)
    size = 400_000
    nu = 1 + rng.gamma(rng.uniform(*alpha, size), 1 / rng.uniform(*beta, size))
    for value in (1.01, 1.5, 2.0, 5.0, 30.0, 100.0):
        share = np.mean(nu <= value)
        se = math.sqrt(share * (1 - share) / size)
        assert abs(nu_prior_cdf(value, alpha, beta) - share) < 4.5 * se + 1e-6, value
    # the density (beta in closed form) is the derivative of the CDF (a double Gauss-Legendre sum)
    t = np.linspace(-6, 7, 27)
    h = 1e-5
    slope = (nu_prior_cdf(1 + np.exp(t + h), alpha, beta) - nu_prior_cdf(1 + np.exp(t - h), alpha, beta)) / (2 * h)
    np.testing.assert_allclose(nu_prior_density(1 + np.exp(t), alpha, beta) * np.exp(t), slope, rtol=1e-6,
                               atol=1e-9)  # the differences' rounding: 1e-16 / h


def test_nu_grid_carries_the_prior():
    """The nu nodes' weights are the prior: its mass, P(nu < 2) and mean (against the closed form of E[nu])."""
    nus = he._NuGrid.build((0.5, 5.0), (0.05, 0.15), ExactGrid())
    assert abs(nus.weight.sum() - 1) < 1e-5
    assert abs(nus.weight @ nus.below_2 - nu_prior_cdf(2.0)) < 1e-6
    mean = 1 + 2.75 * math.log(0.15 / 0.05) / 0.1  # E[nu] = 1 + E[alpha] E[1 / beta]
    assert abs(nus.weight @ nus.nu - mean) / mean < 1e-3


# --- each data set's likelihood against the population's kernel

def dense_kernel_integrals(lik, i, xbar, ss, n, rho, lo, hi, delta0, sigma0, nu):
    """int t_nu(d; delta0, sigma0) L_i(d) [1, (d - xbar) / scale, 1(d > 0)] dd by the trapezoid rule on the union
    of dense sinh grids around delta0 and xbar (L_i from quad at every point would be too slow; the sigma_i
    integral is checked above)."""
    c = (1 - rho) / n + rho
    u = np.linspace(-25, 25, 20001)
    a, b = lik.edges[i, 0], lik.edges[i, -1]
    d = np.unique(np.clip(np.concatenate([delta0 + sigma0 * np.sinh(u), xbar + lik.scale[i] * np.sinh(u), [0.0]]),
                          a, b))
    level = np.exp(log_sigma_integral(0.5 * ((d - xbar) ** 2 / c + ss / (1 - rho)), n, lo, hi) - lik.log_top[i])
    kernel = stats.t.pdf(d, nu, delta0, sigma0) * level
    right = d >= 0
    return (np.trapezoid(kernel, d), np.trapezoid(kernel * (d - xbar) / lik.scale[i], d),
            np.trapezoid(kernel[right], d[right]))


def test_kernel_integrals_against_dense_trapezoid():
    xbar = np.array([0.0, 0.5, -0.3, 1.0])
    n = np.array([100.0, 100.0, 10.0, 5.0])
    ss = np.array([0.0, 99.0, 9.0, 4.0])  # the first is a tie: all differences equal
    rho, lo, hi = np.full(4, 0.1), np.full(4, 0.01), np.full(4, 1000.0)
    lik = he._build_likelihoods(xbar, ss, n, rho, lo, hi, (-0.2, 0.1, 0.0), ExactGrid())
    delta0 = np.array([0.0, 0.001, 0.45, -2.0])
    nus = np.array([1.05, 3.0, 300.0])
    for sigma0 in (1e-6, 3e-3, 0.3, 100.0):  # the kernel far narrower than any cell, as narrow, as wide, far wider
        got = he._convolve(lik, sigma0, delta0, nus, ExactGrid())
        for k, m, i in np.ndindex(len(delta0), len(nus), len(xbar)):
            total, first, positive = dense_kernel_integrals(lik, i, xbar[i], ss[i], n[i], rho[i], lo[i], hi[i],
                                                            delta0[k], sigma0, nus[m])
            if total == 0:  # delta0 beyond the likelihood's support and the kernel's reach: both underflow
                assert got[k, m, i, 0] < 1e-300
                continue
            # where delta0 is deep in L_i's flank (over 10 nats down, cells of 5 nats) and sigma0 tiny, L_i's
            # quadratic on a sub-cell is good to 1e-3; such points weigh at most e^-10 of the data set's best
            deep = he.log_sigma_integral(0.5 * ((delta0[k] - xbar[i]) ** 2 / ((1 - rho[i]) / n[i] + rho[i])
                                                + ss[i] / (1 - rho[i])), n[i], lo[i], hi[i]) < lik.log_top[i] - 10
            tolerance = 2e-3 if deep else 2e-5
            assert abs(got[k, m, i, 0] / total - 1) < tolerance, (sigma0, k, m, i)
            assert abs(got[k, m, i, 1] - first) < 3 * tolerance * total, (sigma0, k, m, i)
            assert abs(got[k, m, i, 5] - positive) < tolerance * total, (sigma0, k, m, i)


# --- the whole posterior against importance sampling of the full joint

def importance_sample(x, rho, lo, hi, delta0_max, sigma0_max, alpha, beta, rope, size, seed, chunk=250_000):
    """Self-normalised importance sampling of (alpha, beta, nu, delta0, sigma0, delta_i, sigma_i) given the fold
    data x (q, n), with the likelihood from the dense intraclass covariance matrix: the estimates and standard
    errors of posterior means of the summaries, and the effective sample size."""
    rng = np.random.default_rng(seed)
    q, n = x.shape
    cov = (1 - rho) * np.eye(n) + rho * np.ones((n, n))
    inverse, (_, log_det) = np.linalg.inv(cov), np.linalg.slogdet(cov)
    one = np.ones(n)
    quad = (one @ inverse @ one, x @ inverse @ one, np.einsum("ij,jk,ik->i", x, inverse, x))
    xbar, sd = x.mean(axis=1), x.std(axis=1, ddof=1)
    spread = math.sqrt(np.var(xbar) + np.mean(sd**2) / n)
    parts = []
    for start in range(0, size, chunk):
        m = min(chunk, size - start)
        nu = 1 + rng.gamma(rng.uniform(*alpha, m), 1 / rng.uniform(*beta, m))  # alpha, beta, nu from the prior
        wide = rng.random(m) < 0.3  # log sigma0: normal around the spread, or uniform down to 1e-6
        log_s0 = np.where(wide, rng.uniform(math.log(1e-6), math.log(sigma0_max), m),
                          rng.normal(math.log(spread), 1.5, m))
        s0 = np.exp(log_s0)
        inside = (log_s0 > math.log(1e-6)) & (log_s0 < math.log(sigma0_max))
        log_q = np.logaddexp(math.log(0.3) - math.log(math.log(sigma0_max / 1e-6)) + np.where(inside, 0, -np.inf),
                             math.log(0.7) + stats.norm.logpdf(log_s0, math.log(spread), 1.5)) - log_s0
        log_w = np.where(s0 < sigma0_max, -math.log(sigma0_max), -np.inf) - log_q
        # delta0: half a broad t3, half a t3 around a data set's mean as wide as sigma0 (the funnel: all tied)
        near = np.maximum(s0, 0.01 * spread)
        centres = xbar[rng.integers(q, size=m)]
        d0 = np.where(rng.random(m) < 0.5, xbar.mean() + (spread + 0.5) * rng.standard_t(3, m),
                      centres + near * rng.standard_t(3, m))
        log_q = np.logaddexp(math.log(0.5) + stats.t.logpdf(d0, 3, xbar.mean(), spread + 0.5),
                             math.log(0.5 / q) + special.logsumexp(stats.t.logpdf(d0[:, None], 3, xbar, near[:, None]),
                                                                   axis=1))
        log_w += np.where(np.abs(d0) < delta0_max, -math.log(2 * delta0_max), -np.inf) - log_q
        deltas = np.empty((m, q))
        for i in range(q):
            centre, spread_i = math.log(max(sd[i], lo)), 1 / math.sqrt(n - 1) + 0.2
            log_si = rng.normal(centre, spread_i, m)  # sigma_i: log-normal around the data's sd
            si = np.exp(log_si)
            log_w += (np.where((si > lo) & (si < hi), -math.log(hi - lo), -np.inf)
                      - stats.norm.logpdf(log_si, centre, spread_i) + log_si)
            # delta_i: half from the population, half from a t4 around xbar_i as wide as sigma_i makes xbar_i
            width = 1.5 * math.sqrt((1 - rho) / n + rho) * si
            di = np.where(rng.random(m) < 0.5, d0 + s0 * rng.standard_t(nu), xbar[i] + width * rng.standard_t(4, m))
            log_prior = stats.t.logpdf(di, nu, d0, s0)
            log_w += log_prior - np.logaddexp(math.log(0.5) + log_prior,
                                              math.log(0.5) + stats.t.logpdf(di, 4, xbar[i], width))
            residual = quad[2][i] - 2 * di * quad[1][i] + di * di * quad[0]
            log_w += -0.5 * n * math.log(2 * math.pi) - n * log_si - 0.5 * log_det - 0.5 * residual / si**2
            deltas[:, i] = di
        parts.append((log_w, d0, s0, nu, deltas))
    log_w, d0, s0, nu, deltas = (np.concatenate(p) for p in zip(*parts))
    w = np.exp(log_w - log_w.max())
    w /= w.sum()
    left, right = special.stdtr(nu, (rope[0] - d0) / s0), special.stdtr(nu, (d0 - rope[1]) / s0)
    regions = np.stack([left, 1 - left - right, right], axis=1)
    largest = regions == regions.max(axis=1, keepdims=True)
    wins = largest / largest.sum(axis=1, keepdims=True)
    summaries = {"delta0_mean": d0, "delta0_p_positive": d0 > 0, "p_left": left, "p_rope": regions[:, 1],
                 "p_right": right, "win_left": wins[:, 0], "win_rope": wins[:, 1], "win_right": wins[:, 2],
                 "nu_p_below_2": nu < 2, "sigma0_p_below_0_01": s0 < 0.01}
    for i in range(q):
        summaries[f"delta_mean {i}"] = deltas[:, i]
        summaries[f"delta_p_positive {i}"] = deltas[:, i] > 0
    out = {}
    for name, values in summaries.items():
        values = values.astype(float)
        estimate = w @ values
        out[name] = (estimate, math.sqrt((w * w) @ (values - estimate) ** 2))
    return out, 1 / (w * w).sum()


def summaries(post):
    out = {name: getattr(post, name) for name in ("delta0_mean", "delta0_p_positive", "p_left", "p_rope", "p_right",
                                                  "win_left", "win_rope", "win_right", "nu_p_below_2",
                                                  "sigma0_p_below_0_01")}
    for i in range(len(post.delta_mean)):
        out[f"delta_mean {i}"] = post.delta_mean[i]
        out[f"delta_p_positive {i}"] = post.delta_p_positive[i]
    return out


@pytest.mark.parametrize("tie", [False, pytest.param(True, marks=pytest.mark.slow)])
def test_posterior_against_importance_sampling(tie):
    """Three data sets of 10 folds (with ``tie``, one has all differences equal: sigma0's posterior then reaches
    down to 0, a funnel), a rope: every summary within 4.5 standard errors of importance sampling with 10^6
    draws, plus 1e-3 for the sampler's own bias (self-normalised weights; with the tie it is of the order of its
    standard error for P(sigma0 < 0.01), which a brute-force quadrature of sigma0's density at 0.001 and 0.5
    settled in favour of the quadrature, to 2e-5)."""
    rng = np.random.default_rng(5)
    n, rho, lo, hi, rope = 10, 0.1, 0.01, 100.0, (-0.1, 0.1)
    x = rng.normal([0.4, -0.2, 0.9], [0.9, 1.1, 1.3], size=(n, 3)).T
    if tie:
        x[1] = 0.05
    sampled, ess = importance_sample(x, rho, lo, hi, 5.0, 50.0, (0.5, 5.0), (0.05, 0.15), rope, 1_000_000, 1)
    assert ess > 2000
    xbar = x.mean(axis=1)
    post = exact_posterior(xbar, ((x - xbar[:, None]) ** 2).sum(axis=1), n, rho, delta0_max=5.0, sigma0_max=50.0,
                           sigma_bounds=(lo, hi), rope=rope, grid=FAST)
    for name, value in summaries(post).items():
        estimate, se = sampled[name]
        assert abs(value - estimate) < 4.5 * se + 1e-3, (name, value, estimate, se)


# --- a normal population with known sigma_i: normal-normal algebra given sigma0, then quad over sigma0

def normal_population(xbar, v, delta0_max, sigma0_max, rope):
    """Posterior summaries when delta_i ~ N(delta0, sigma0^2) and xbar_i ~ N(delta_i, v_i) with v_i known:
    given sigma0, delta0 is a normal truncated to [-D, D] and so is everything else; quad over log sigma0."""
    centre, half = 0.5 * (rope[0] + rope[1]), 0.5 * (rope[1] - rope[0])

    def given(s0):
        total = s0 * s0 + v
        precision = np.sum(1 / total)
        mean = np.sum(xbar / total) / precision
        log_ml = (-0.5 * np.sum(np.log(2 * np.pi * total)) - 0.5 * (np.sum(xbar**2 / total) - precision * mean**2)
                  + 0.5 * np.log(2 * np.pi / precision)
                  + np.log(special.ndtr((delta0_max - mean) * math.sqrt(precision))
                           - special.ndtr((-delta0_max - mean) * math.sqrt(precision))))
        return precision, mean, log_ml

    ts = np.linspace(math.log(1e-8), math.log(sigma0_max), 401)
    log_density = np.array([given(math.exp(t))[2] + t for t in ts])
    top, peak = log_density.max(), ts[np.argmax(log_density)]

    def expect(f, upper=math.log(sigma0_max)):
        def g(t):
            s0 = math.exp(t)
            return math.exp(given(s0)[2] + t - top) * f(s0)
        edges = [math.log(1e-12), *(e for e in (peak,) if e < upper), upper]
        return sum(integrate.quad(g, a, b, epsabs=0, epsrel=1e-11, limit=400)[0] for a, b in zip(edges, edges[1:]))

    def below(s0, x):  # P(delta0 < x | sigma0): a normal truncated to [-D, D]
        precision, mean, _ = given(s0)
        root = math.sqrt(precision)
        low, high = special.ndtr((-delta0_max - mean) * root), special.ndtr((delta0_max - mean) * root)
        return (special.ndtr((min(max(x, -delta0_max), delta0_max) - mean) * root) - low) / (high - low)

    def delta0_mean(s0):
        precision, mean, _ = given(s0)
        root = math.sqrt(precision)
        a, b = (-delta0_max - mean) * root, (delta0_max - mean) * root
        return mean + (stats.norm.pdf(a) - stats.norm.pdf(b)) / (special.ndtr(b) - special.ndtr(a)) / root

    def cut(s0):  # the rope beats 'right' for delta0 within centre +- cut
        if half == 0 or special.ndtr(half / s0) <= 2 / 3:
            return 0.0
        from scipy.optimize import brentq
        return brentq(lambda b: 2 * special.ndtr((half - b) / s0) - special.ndtr((-half - b) / s0) - 1, 0, half)

    def new(s0, which):
        precision, mean, _ = given(s0)
        sd = math.sqrt(s0 * s0 + 1 / precision)
        return special.ndtr((rope[0] - mean) / sd) if which == 0 else special.ndtr((mean - rope[1]) / sd)

    def member(s0, i):
        precision, mean, _ = given(s0)
        own = 1 / v[i] + 1 / s0**2
        centre_i = (xbar[i] / v[i] + mean / s0**2) / own
        return centre_i, 1 / own + (1 / s0**2 / own) ** 2 / precision

    norm = expect(lambda s0: 1.0)
    out = {"delta0_mean": expect(delta0_mean) / norm,
           "delta0_p_positive": 1 - expect(lambda s0: below(s0, 0.0)) / norm,
           "p_left": expect(lambda s0: new(s0, 0)) / norm, "p_right": expect(lambda s0: new(s0, 1)) / norm,
           "win_left": expect(lambda s0: below(s0, centre - cut(s0))) / norm,
           "win_rope": expect(lambda s0: below(s0, centre + cut(s0)) - below(s0, centre - cut(s0))) / norm,
           "sigma0_p_below_0_01": expect(lambda s0: 1.0, math.log(0.01)) / norm}
    for i in range(len(xbar)):
        out[f"delta_mean {i}"] = expect(lambda s0: member(s0, i)[0]) / norm
        out[f"delta_p_positive {i}"] = expect(lambda s0: special.ndtr(member(s0, i)[0]
                                                                      / math.sqrt(member(s0, i)[1]))) / norm
    return out


def test_normal_population_limit():
    """nu forced to ~1e5 (alpha ~ 1e4, beta ~ 0.1) and sigma_i pinned (hi = lo (1 + 1e-6)): the population is
    normal and the means' variances v_i = c_i sigma_i^2 known."""
    xbar, n, rho = np.array([0.3, -0.2, 0.5, 0.1]), np.array([10, 10, 20, 10]), 0.1
    sigma = np.array([0.8, 1.0, 1.2, 0.9])
    v = ((1 - rho) / n + rho) * sigma**2
    rope = (-0.1, 0.1)
    expected = normal_population(xbar, v, 5.0, 20.0, rope)
    post = exact_posterior(xbar, sigma**2 * (n - 1), n, rho, delta0_max=5.0, sigma0_max=20.0,
                           sigma_bounds=(sigma, sigma * (1 + 1e-6)), alpha=(1e4, 1e4 + 1), beta=(0.1, 0.1001),
                           rope=rope, grid=FAST)
    got = summaries(post)
    for name, value in expected.items():
        assert abs(got[name] - value) < 1e-4, (name, got[name], value)
    assert abs(post.nu_mean / 1e5 - 1) < 0.01


# --- grid refinement

@pytest.mark.slow
def test_refinement_changes_the_probabilities_by_less_than_1e_3():
    rng = np.random.default_rng(8)
    x = rng.normal(rng.normal(0.3, 0.5, 6)[:, None], 1.0, size=(6, 10))
    x[0] = 0.0  # a tie
    xbar = x.mean(axis=1)
    args = (xbar, ((x - xbar[:, None]) ** 2).sum(axis=1), 10, 0.1)
    kwargs = dict(delta0_max=4.0, sigma0_max=30.0, sigma_bounds=(0.01, 100.0), rope=0.1)
    post = exact_posterior(*args, **kwargs, grid=ExactGrid())
    finer = exact_posterior(*args, **kwargs, grid=ExactGrid().scaled(2))
    for name in he.PROBABILITY_FIELDS:
        assert np.max(np.abs(np.asarray(getattr(post, name)) - getattr(finer, name))) < 1e-3, name
    assert post.max_error < 1e-3  # the built-in estimate (against a grid half as fine) agrees


# --- argument checks

@pytest.mark.parametrize("change, message", [
    (dict(xbar=[[0.1, 0.2]]), "xbar must be one mean per data set"),
    (dict(xbar=[0.1, float("nan")]), "xbar must be finite"),
    (dict(ss=[1.0, -1.0]), "ss must be >= 0"),
    (dict(ss=[1.0, 2.0, 3.0]), "ss, n and rho must be one value or one per data set"),
    (dict(n=1), "n must be whole numbers >= 2"),
    (dict(n=[10, 9.5]), "n must be whole numbers >= 2"),
    (dict(rho=1.0), r"rho must be in \[0, 1\)"),
    (dict(delta0_max=0.0), "delta0_max must be in"),
    (dict(sigma0_max=-1.0), "sigma0_max must be in"),
    (dict(sigma_bounds=0.01), "sigma_bounds must be a pair"),
    (dict(sigma_bounds=(0.0, 1.0)), "sigma_bounds must satisfy 0 < lo < hi"),
    (dict(sigma_bounds=(2.0, 1.0)), "sigma_bounds must satisfy 0 < lo < hi"),
    (dict(sigma_bounds=([0.01, 0.01, 0.01], 1.0)), "sigma_bounds must hold scalars or arrays of 2"),
    (dict(alpha=(5.0, 0.5)), "alpha must be a pair"),
    (dict(beta=(0.0, 0.1)), "beta bound must be in"),
    (dict(rope=(0.1, -0.1)), "rope must be a pair"),
])
def test_arguments_are_checked_by_name(change, message):
    kwargs = dict(xbar=[0.1, 0.2], ss=[1.0, 2.0], n=10, rho=0.1, delta0_max=1.0, sigma0_max=10.0,
                  sigma_bounds=(0.01, 10.0))
    kwargs.update(change)
    with pytest.raises(ValueError, match=message):
        exact_posterior(kwargs.pop("xbar"), kwargs.pop("ss"), kwargs.pop("n"), kwargs.pop("rho"), **kwargs)


def test_grid_is_checked():
    with pytest.raises(TypeError, match="grid must be an ExactGrid"):
        exact_posterior([0.1], [1.0], 10, 0.1, delta0_max=1.0, sigma0_max=1.0, sigma_bounds=(0.01, 1.0), grid={})
    with pytest.raises(ValueError, match="delta0_points must be >= 4"):
        ExactGrid(delta0_points=2)
    with pytest.raises(ValueError, match="cell_nats must be in"):
        ExactGrid(cell_nats=0.0)
