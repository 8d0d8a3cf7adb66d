"""Independent oracles for item-level comparisons of two models on one benchmark.

Models A and B are scored on the same I items of a benchmark, each in R runs: ``y[m, i, r]``. The item difference is
``d_i = mean_r y[B, i, r] - mean_r y[A, i, r]``. Everything here is written from the definitions with numpy, scipy
and the standard library only (nothing from pp_corr), so that it can serve as a reference for the library.

* ``dirichlet_mean_difference_cdf`` / ``..._quantile``: the law of ``theta = sum_v p_v v``, ``p ~ Dirichlet(counts)``
  over distinct values ``v`` (the Bayesian-bootstrap posterior of the population mean of d, aggregated by distinct
  value), computed deterministically (Beta structure for <= 3 values, Gil-Pelaez inversion in general).
* ``item_clustered_interval``: the item-clustered (clusters = items) Student-t interval for the mean difference.
* ``simulate_benchmark``: continuous or binary benchmarks with a known population mean difference.
* ``coverage``: fraction of intervals covering a truth, with its binomial standard error.
"""
import functools
import math
import warnings

import numpy as np
from scipy import integrate, optimize, special, stats

__all__ = [
    "distinct_value_counts",
    "dirichlet_mean_difference_cdf",
    "dirichlet_mean_difference_quantile",
    "uniform_dirichlet_mean_cdf_exact",
    "item_differences",
    "item_clustered_interval",
    "logistic_normal_mean",
    "binary_alpha_for_difference",
    "simulate_benchmark",
    "coverage",
]


# ----------------------------------------------------------------------------------------------------------------------
# 1. The Dirichlet (Bayesian-bootstrap) mean
# ----------------------------------------------------------------------------------------------------------------------

def distinct_value_counts(d, decimals=12):
    """Distinct values of ``d`` (rounded to ``decimals`` so that equal values computed by different floating-point
    sums coincide) and how often each occurs: the aggregation under which the Bayesian bootstrap of the mean of d,
    weights ``Dirichlet(1, ..., 1)`` over the I observations, becomes ``Dirichlet(counts)`` over the distinct values."""
    d = np.asarray(d, dtype=float).ravel()
    if not np.all(np.isfinite(d)):
        raise ValueError("d must be finite")
    values, counts = np.unique(np.round(d, decimals) + 0.0, return_counts=True)  # + 0.0 turns -0.0 into 0.0
    return values, counts.astype(float)


def _support(values, counts):
    """Sorted distinct values with positive counts (duplicates merged, zero counts dropped) and their counts."""
    values = np.asarray(values, dtype=float).ravel()
    counts = np.asarray(counts, dtype=float).ravel()
    if values.shape != counts.shape:
        raise ValueError("values and counts must have the same length")
    if not (np.all(np.isfinite(values)) and np.all(np.isfinite(counts))):
        raise ValueError("values and counts must be finite")
    if np.any(counts < 0):
        raise ValueError("counts must be >= 0")
    keep = counts > 0
    if not np.any(keep):
        raise ValueError("at least one count must be positive")
    uniq, inverse = np.unique(values[keep], return_inverse=True)
    return uniq, np.bincount(inverse, weights=counts[keep])


def _quad(func, a, b, **kwargs):
    """integrate.quad without its warnings (full_output); returns (value, error estimate). The callers add up the
    error estimates and warn when the total exceeds 1e-9 (never seen in the checks of test_item_oracles.py)."""
    out = integrate.quad(func, a, b, full_output=1, **kwargs)
    return out[0], out[1]


def _check_error(error, what):
    if error > 1e-9:
        warnings.warn(f"{what}: quadrature error estimate {error:.1e} exceeds 1e-9", RuntimeWarning, stacklevel=3)


def _cdf_beta(v, c, t):
    """P(theta <= t) for 2 or 3 support points (v sorted, min(v) < t < max(v)) from the Beta/Dirichlet structure.

    Two points: theta = v1 + p2 (v2 - v1), p2 ~ Beta(c2, c1).
    Three points: with S = p1 + p3 ~ Beta(c1 + c3, c2) independent of q = p3 / S ~ Beta(c3, c1),
    theta - v2 = S (q (v3 - v1) - (v2 - v1)), so given S = s,
    P(theta <= t | s) = I_{c3, c1}(clip((v2 - v1 + (t - v2) / s) / (v3 - v1), 0, 1)).
    That conditional probability is 1 for s <= (t - v2) / (v3 - v2) when t > v2 and 0 for s <= (v2 - t) / (v2 - v1)
    when t < v2; the rest is integrated with quad over u = F_S(s) (s = F_S^{-1}(u)), which removes the
    (possibly singular) Beta density from the integrand."""
    if len(v) == 2:
        return float(special.betainc(c[1], c[0], (t - v[0]) / (v[1] - v[0])))
    (v1, v2, v3), (c1, c2, c3) = v, c
    span, below = v3 - v1, v2 - v1
    if t == v2:
        return float(special.betainc(c3, c1, below / span))
    a, b = c1 + c3, c2
    s_cut = (t - v2) / (v3 - v2) if t > v2 else (v2 - t) / below
    head = float(special.betainc(a, b, s_cut)) if t > v2 else 0.0   # the part where the conditional probability is 1

    def conditional(u):
        s = special.betaincinv(a, b, u)
        if s <= 0.0:
            return 1.0 if t > v2 else 0.0
        x = (below + (t - v2) / s) / span
        return float(special.betainc(c3, c1, min(max(x, 0.0), 1.0)))

    u_cut = float(special.betainc(a, b, s_cut))
    if u_cut >= 1.0:
        return head
    # The conditional probability moves away from 1 (or 0) over s in [s_cut, ~1e6 s_cut]: break there too.
    points = special.betainc(a, b, np.minimum(s_cut * np.logspace(0.5, 6.0, 12), 1.0))
    points = [p for p in np.unique(points) if u_cut + 1e-9 < p < 1.0 - 1e-9]
    tail, error = _quad(conditional, u_cut, 1.0, points=points or None, epsabs=1e-13, epsrel=1e-12, limit=400)
    _check_error(error, "dirichlet_mean_difference_cdf (beta)")
    return min(max(head + tail, 0.0), 1.0)


def _cdf_gil_pelaez(v, c, t):
    """P(theta <= t) for any finite support (v sorted, min(v) < t < max(v)) by Gil-Pelaez inversion.

    With p_v = G_v / sum G, G_v ~ Gamma(c_v, 1) independent, P(theta <= t) = P(X <= 0), X = sum_v G_v w_v,
    w_v = v - t (terms with w_v = 0 drop out; w is rescaled by sd(X) = sqrt(sum c w^2), which leaves P(X <= 0) alone).
    phi_X(s) = prod_v (1 - i s w_v)^(-c_v) = exp(L(s) + i Phi(s)), L = -1/2 sum c log1p(s^2 w^2),
    Phi = sum c atan(s w), and P(X <= 0) = 1/2 - (1/pi) int_0^inf exp(L) sin(Phi) / s ds.
    The phase Phi is bounded (|Phi| <= pi/2 sum c), so the integrand oscillates only finitely often. The integral is
    taken over x = log s (ds / s = dx; smooth on every scale 1/|w_v|) from s0 = 1e-3 / max|w| (on [0, s0] the
    integrand is ~ E X / sd X and is integrated over s) to U (where the modulus is < e^-60 or every atan(s w) is
    within 1e-4 of +-pi/2), cut where Phi has moved by pi/4 (located on a fine log grid) with quad on each piece;
    beyond U the integrand no longer oscillates and quad runs to infinity. Before all that, a Chernoff bound below
    1e-13 on P(X <= 0) or P(X > 0) settles the answer (0 or 1)."""
    w = v - t
    keep = w != 0
    w, c = w[keep], c[keep]
    if np.all(w > 0):
        return 0.0
    if np.all(w < 0):
        return 1.0
    w = w / math.sqrt(float(np.sum(c * w * w)))
    slope = float(np.sum(c * w))                 # the limit of Im phi(s) / s at s = 0 (= E X / sd X)

    log_abs_w = np.log(np.abs(w))
    sign_w = np.sign(w)

    def log_modulus_x(x):                        # log |phi(e^x)|, x = log s (arrays of x along axis 1)
        return -0.5 * np.sum(c[:, None] * np.logaddexp(0.0, 2.0 * (np.atleast_1d(x)[None, :] + log_abs_w[:, None])),
                             axis=0)

    def phase_x(x):                              # Phi(e^x) without overflow: atan(e^z) = pi/2 - atan(e^-z), z > 0
        z = np.atleast_1d(x)[None, :] + log_abs_w[:, None]
        small = np.arctan(np.exp(-np.abs(z)))
        return np.sum((c * sign_w)[:, None] * np.where(z > 0, 0.5 * math.pi - small, small), axis=0)

    terms = list(zip(c.tolist(), log_abs_w.tolist(), (c * sign_w).tolist()))

    def integrand_loop(x):                       # Im phi(e^x): the integrand over x = log s (scalar, pure Python)
        log_mod = phase = 0.0
        for ci, lwi, csi in terms:
            z = x + lwi
            if z > 0:
                log_mod -= ci * (z + 0.5 * math.log1p(math.exp(-2.0 * z)))
                phase += csi * (0.5 * math.pi - math.atan(math.exp(-z)))
            else:
                log_mod -= 0.5 * ci * math.log1p(math.exp(2.0 * z))
                phase += csi * math.atan(math.exp(z))
        return math.exp(log_mod) * math.sin(phase)

    def integrand_numpy(x):                      # the same, vectorised over the support (faster for many points)
        return math.exp(log_modulus_x(x)[0]) * math.sin(phase_x(x)[0])

    integrand_x = integrand_numpy if len(terms) > 24 else integrand_loop

    def integrand_s(s):                          # Im phi(s) / s, for small s
        return slope if s == 0.0 else integrand_x(math.log(s)) / s

    # Chernoff: P(X <= 0) <= E exp(-l X) = prod (1 + l w)^-c and P(X > 0) <= prod (1 - l w)^-c, l in the range
    # where every factor is positive; a bound below 1e-13 settles the answer to within the accuracy aimed at.
    for sign in (1.0, -1.0):
        lam_max = 1.0 / float(np.max(-sign * w[sign * w < 0]))
        res = optimize.minimize_scalar(lambda lam: -float(np.sum(c * np.log1p(sign * lam * w))),
                                       bounds=(0.0, lam_max * (1 - 1e-12)), method="bounded",
                                       options={"xatol": 1e-10 * lam_max})
        if res.fun < math.log(1e-13):
            return 0.0 if sign > 0 else 1.0

    x0 = math.log(1e-3) - float(np.max(log_abs_w))          # s0 = 1e-3 / max|w|
    x_upper = math.log(1e4) - float(np.min(log_abs_w))      # every atan(s w) within 1e-4 of +-pi/2
    if log_modulus_x(x_upper)[0] < -60.0:                   # or, sooner, the modulus is below e^-60
        x_upper = optimize.brentq(lambda x: log_modulus_x(x)[0] + 60.0, x0, x_upper, xtol=1e-6)
    x_upper = max(x_upper, x0 + math.log(10.0))
    total, error = _quad(integrand_s, 0.0, math.exp(x0), epsabs=1e-15, epsrel=1e-12, limit=200)
    grid = np.linspace(x0, x_upper, 8001)
    travel = np.concatenate([[0.0], np.cumsum(np.abs(np.diff(phase_x(grid))))])
    marks = np.searchsorted(travel, np.arange(math.pi / 4, travel[-1], math.pi / 4))
    breaks = np.unique(np.concatenate([[x0], grid[np.clip(marks, 1, len(grid) - 1)], [x_upper]]))
    for left, right in zip(breaks[:-1], breaks[1:]):
        piece, err = _quad(integrand_x, left, right, epsabs=1e-14, epsrel=1e-12, limit=200)
        total, error = total + piece, error + err
    piece, err = _quad(integrand_x, x_upper, np.inf, epsabs=1e-14, epsrel=1e-12, limit=200)
    total, error = total + piece, error + err
    _check_error(error / math.pi, "dirichlet_mean_difference_cdf (gil-pelaez)")
    return min(max(0.5 - total / math.pi, 0.0), 1.0)


def dirichlet_mean_difference_cdf(values, counts, t, method="auto"):
    """P(theta <= t), theta = sum_v p_v v, p ~ Dirichlet(counts) over the distinct ``values``.

    This is the Bayesian-bootstrap posterior of the population mean of d aggregated by distinct value (use
    ``distinct_value_counts(d)`` for values and counts). Values with count 0 are dropped and repeated values merged
    (their counts added), so e.g. values (-1, 0, 1) with n0 = 0 are the two-point case theta = 2 p+ - 1,
    p+ ~ Beta(n+, n-). Counts need not be integers. Deterministic, accurate to about 1e-10 (checked against
    each other, against exact formulas and against Monte Carlo in test_item_oracles.py).

    method: "beta" (2 or 3 support points: the Beta/Dirichlet structure, one quad), "gil-pelaez" (any support:
    inversion of the characteristic function of the gamma representation), or "auto" (beta for <= 3 points).
    ``t`` may be a scalar (a float is returned) or an array (an array of the same shape is returned).
    With a single support point theta is that value (a step CDF); otherwise theta is continuous on (min v, max v).
    """
    v, c = _support(values, counts)
    if method not in ("auto", "beta", "gil-pelaez"):
        raise ValueError(f"unknown method {method!r}")
    if method == "beta" and len(v) > 3:
        raise ValueError("method='beta' needs at most 3 distinct values with positive counts")
    use_beta = method == "beta" or (method == "auto" and len(v) <= 3)

    def one(x):
        x = float(x)
        if math.isnan(x):
            return math.nan
        if x >= v[-1]:
            return 1.0
        if x < v[0] or (x == v[0] and len(v) > 1):
            return 0.0
        return _cdf_beta(v, c, x) if use_beta else _cdf_gil_pelaez(v, c, x)

    t_arr = np.asarray(t, dtype=float)
    if t_arr.ndim == 0:
        return one(t_arr)
    return np.array([one(x) for x in t_arr.ravel()]).reshape(t_arr.shape)


def dirichlet_mean_difference_quantile(values, counts, prob, method="auto", xtol=1e-12):
    """The ``prob`` quantile (0 < prob < 1) of theta = sum_v p_v v, p ~ Dirichlet(counts): the t in
    [min v, max v] with P(theta <= t) = prob, by Brent's root finding on ``dirichlet_mean_difference_cdf``.
    ``prob`` may be a scalar or an array."""
    v, c = _support(values, counts)

    def one(p):
        p = float(p)
        if not 0.0 < p < 1.0:
            raise ValueError("prob must be in (0, 1)")
        if len(v) == 1:
            return float(v[0])
        return float(optimize.brentq(lambda x: dirichlet_mean_difference_cdf(v, c, x, method) - p, v[0], v[-1],
                                     xtol=xtol, rtol=4 * np.finfo(float).eps, maxiter=300))

    p_arr = np.asarray(prob, dtype=float)
    if p_arr.ndim == 0:
        return one(p_arr)
    return np.array([one(x) for x in p_arr.ravel()]).reshape(p_arr.shape)


def uniform_dirichlet_mean_cdf_exact(values, t):
    """Exact P(sum_j p_j v_j <= t) for p ~ Dirichlet(1, ..., 1) over n >= 2 DISTINCT values (the uniform-spacings /
    B-spline formula): 1 - sum_j (v_j - t)_+^(n-1) / prod_{k != j} (v_j - v_k). A third, closed-form reference for
    the Gil-Pelaez method on supports of more than 3 points (keep n small: the sum cancels)."""
    v = np.asarray(values, dtype=float).ravel()
    n = len(v)
    if n < 2 or len(np.unique(v)) != n:
        raise ValueError("need >= 2 distinct values")
    total = 0.0
    for j in range(n):
        if v[j] > t:
            total += (v[j] - t) ** (n - 1) / np.prod(np.delete(v[j] - v, j))
    return float(min(max(1.0 - total, 0.0), 1.0))


# ----------------------------------------------------------------------------------------------------------------------
# 2. The item-clustered interval
# ----------------------------------------------------------------------------------------------------------------------

def item_differences(y_a, y_b):
    """d_i = mean_r y_b[i, r] - mean_r y_a[i, r] for arrays (I, R) (a 1-D array is one run per item); R may differ
    between the models."""
    y_a, y_b = (np.asarray(y, dtype=float) for y in (y_a, y_b))
    y_a, y_b = (y.reshape(-1, 1) if y.ndim == 1 else y for y in (y_a, y_b))
    if y_a.ndim != 2 or y_b.ndim != 2 or y_a.shape[0] != y_b.shape[0]:
        raise ValueError("y_a and y_b must be (items, runs) arrays with the same number of items")
    if not (np.all(np.isfinite(y_a)) and np.all(np.isfinite(y_b))):
        raise ValueError("scores must be finite")
    return y_b.mean(axis=1) - y_a.mean(axis=1)


def item_clustered_interval(y_a, y_b, level=0.95):
    """The item-clustered (cluster-robust with clusters = items) interval for the mean difference B - A.

    d_i = mean_r y_b[i, r] - mean_r y_a[i, r]; estimate = mean_i d_i; se = sd(d, ddof=1) / sqrt(I);
    interval = estimate -/+ t_{I-1, (1 + level)/2} se (equal-tailed Student t with I - 1 df). Returns the tuple
    (estimate, lo, hi, se) of floats. This is ttest_1samp(d) and treats runs as exchangeable within items: it
    accounts for item sampling, not for run-level shifts shared by all items of a run."""
    if not 0.0 < level < 1.0:
        raise ValueError("level must be in (0, 1)")
    d = item_differences(y_a, y_b)
    items = len(d)
    if items < 2:
        raise ValueError("need at least 2 items")
    estimate = float(d.mean())
    se = float(d.std(ddof=1) / math.sqrt(items))
    q = float(stats.t.ppf(0.5 + level / 2.0, items - 1))
    return estimate, estimate - q * se, estimate + q * se, se


# ----------------------------------------------------------------------------------------------------------------------
# 3. Simulated benchmarks with a known truth
# ----------------------------------------------------------------------------------------------------------------------

_GH_NODES, _GH_WEIGHTS = np.polynomial.hermite_e.hermegauss(301)      # weight exp(-x^2 / 2)
_GH_WEIGHTS = _GH_WEIGHTS / math.sqrt(2.0 * math.pi)                  # -> expectations under N(0, 1)


def logistic_normal_mean(alpha, sigma, method="auto"):
    """E[expit(alpha + sigma Z)], Z ~ N(0, 1), by 301-point Gauss-Hermite quadrature ("gauss-hermite") or adaptive
    quad over z in [-40, 40] ("quad"); "auto" takes Gauss-Hermite for sigma <= 3, where the two agree to ~1e-15
    (tested), and quad above (at sigma = 5 Gauss-Hermite is off by ~3e-10)."""
    alpha, sigma = float(alpha), float(sigma)
    if sigma < 0:
        raise ValueError("sigma must be >= 0")
    if method == "auto":
        method = "gauss-hermite" if sigma <= 3.0 else "quad"
    if sigma == 0.0:
        return float(special.expit(alpha))
    if method == "gauss-hermite":
        return float(np.dot(_GH_WEIGHTS, special.expit(alpha + sigma * _GH_NODES)))
    if method == "quad":
        centre = -alpha / sigma                                  # where the logistic factor changes
        points = sorted({min(max(x, -39.0), 39.0) for x in (centre - 1.0, centre, centre + 1.0, -1.0, 0.0, 1.0)})
        value, _ = integrate.quad(lambda z: special.expit(alpha + sigma * z) * math.exp(-0.5 * z * z), -40.0, 40.0,
                                  points=points, epsabs=1e-16, epsrel=1e-13, limit=400)
        return value / math.sqrt(2.0 * math.pi)
    raise ValueError(f"unknown method {method!r}")


@functools.lru_cache(maxsize=256)
def binary_alpha_for_difference(difference, sigma, alpha_a=0.0):
    """The alpha_B with E expit(alpha_B + sigma Z) - E expit(alpha_A + sigma Z) = difference (Brent root finding,
    xtol 1e-14, on ``logistic_normal_mean``; cached, as simulations call it with the same arguments)."""
    base = logistic_normal_mean(alpha_a, sigma)
    if not -base < difference < 1.0 - base:
        raise ValueError(f"difference must be in ({-base}, {1.0 - base}) for alpha_A = {alpha_a}")

    def f(alpha):
        return logistic_normal_mean(alpha, sigma) - base - difference

    width = 10.0
    while f(alpha_a - width) > 0 or f(alpha_a + width) < 0:
        width *= 2.0
        if width > 1e4:
            raise ValueError("could not bracket alpha_B")
    return float(optimize.brentq(f, alpha_a - width, alpha_a + width, xtol=1e-14, rtol=4 * np.finfo(float).eps))


def simulate_benchmark(rng, items=300, runs=3, kind="binary", difference=0.0, item_sd=1.0, model_item_sd=0.5,
                       run_shift_sd=0.0, noise_sd=1.0):
    """Simulate scores of models A and B on ``items`` items in ``runs`` runs; returns (y_a, y_b, true_difference)
    with y_a, y_b float arrays of shape (items, runs).

    Data-generating process (m in {A, B}, i items, r runs; all effects independent):
      a_i     ~ N(0, item_sd^2)         item difficulty, shared by both models
      b_{m,i} ~ N(0, model_item_sd^2)   model-by-item interaction
      u_{m,r} ~ N(0, run_shift_sd^2)    one shift per (model, run), shared by all items of that run
                                        (runs of A and B are independent: run r of A is not paired with run r of B)
    kind="continuous":
      y[m,i,r] = mu_m + a_i + b_{m,i} + u_{m,r} + e_{m,i,r},  e ~ N(0, noise_sd^2),  mu_A = 0, mu_B = difference.
      true_difference = difference: the population mean of B - A over items AND over run shifts.
    kind="binary" (noise_sd is not used; the noise is the Bernoulli draw):
      y[m,i,r] ~ Bernoulli(expit(alpha_m + a_i + b_{m,i} + u_{m,r})),  alpha_A = 0.
      true_difference = E[expit(alpha_B + a + b_B + u_B)] - E[expit(alpha_A + a + b_A + u_A)] over the normal
      effects (a new item and a new run), i.e. Lambda(alpha_B, s) - Lambda(0, s) with s^2 = item_sd^2 +
      model_item_sd^2 + run_shift_sd^2 and Lambda(alpha, s) = E expit(alpha + s Z) (by linearity only the marginal
      law of each model's linear predictor matters). alpha_B is root-found so that this equals ``difference``
      (which must be in (-0.5, 0.5)); the returned truth is Lambda(alpha_B, s) - Lambda(0, s) (Lambda(0, s) = 1/2)
      by quadrature (``logistic_normal_mean``), equal to ``difference`` to ~1e-13.
    Draw order from ``rng`` (a numpy Generator, or a seed for default_rng): a (items,), b (2, items), u (2, runs),
    then e (2, items, runs) normals or (2, items, runs) uniforms (y = U < p) for binary.
    """
    rng = np.random.default_rng(rng)
    if kind not in ("binary", "continuous"):
        raise ValueError("kind must be 'binary' or 'continuous'")
    if items < 1 or runs < 1:
        raise ValueError("need items >= 1 and runs >= 1")
    if min(item_sd, model_item_sd, run_shift_sd, noise_sd) < 0:
        raise ValueError("standard deviations must be >= 0")
    a = rng.normal(0.0, item_sd, items)
    b = rng.normal(0.0, model_item_sd, (2, items))
    u = rng.normal(0.0, run_shift_sd, (2, runs))
    eta = a[None, :, None] + b[:, :, None] + u[:, None, :]                       # (2, items, runs)
    if kind == "continuous":
        mu = np.array([0.0, float(difference)])
        y = mu[:, None, None] + eta + rng.normal(0.0, noise_sd, (2, items, runs))
        truth = float(difference)
    else:
        sigma = math.sqrt(item_sd ** 2 + model_item_sd ** 2 + run_shift_sd ** 2)
        alpha_b = binary_alpha_for_difference(float(difference), sigma, 0.0)
        p = special.expit(np.array([0.0, alpha_b])[:, None, None] + eta)
        y = (rng.random((2, items, runs)) < p).astype(float)
        truth = logistic_normal_mean(alpha_b, sigma) - logistic_normal_mean(0.0, sigma)
    return y[0], y[1], truth


# ----------------------------------------------------------------------------------------------------------------------
# 4. Coverage
# ----------------------------------------------------------------------------------------------------------------------

def coverage(intervals, truth):
    """Fraction of intervals with lo <= truth <= hi and its binomial standard error sqrt(f (1 - f) / n).

    ``intervals``: a sequence of (lo, hi) pairs, or of (estimate, lo, hi, se) tuples as returned by
    ``item_clustered_interval`` (told apart by their length, 2 or 4). ``truth``: a scalar or one value per interval.
    Returns (fraction, se)."""
    arr = np.asarray(intervals, dtype=float)
    if arr.ndim != 2 or arr.shape[1] not in (2, 4) or arr.shape[0] == 0:
        raise ValueError("intervals must be a non-empty sequence of (lo, hi) or (estimate, lo, hi, se)")
    lo, hi = (arr[:, 0], arr[:, 1]) if arr.shape[1] == 2 else (arr[:, 1], arr[:, 2])
    covered = (lo <= truth) & (truth <= hi)
    fraction = float(covered.mean())
    return fraction, math.sqrt(fraction * (1.0 - fraction) / len(covered))
