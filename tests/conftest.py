import os

# Before numpy is imported: MvNormal-type graphs run ~50x slower with threaded BLAS on 2 cores.
for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(var, "1")
os.environ.setdefault("MPLBACKEND", "Agg")

import itertools  # noqa: E402
import math  # noqa: E402
import re  # noqa: E402
import subprocess  # noqa: E402
import warnings  # noqa: E402
from fractions import Fraction  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402
from hypothesis import HealthCheck, settings, strategies as st  # noqa: E402
from hypothesis.extra import numpy as hnp  # noqa: E402
from scipy import special, stats  # noqa: E402

# Property tests draw the same examples on every run by default, so a suite result can be reproduced;
# HYPOTHESIS_PROFILE=explore draws new ones each run (to look for counterexamples on purpose). 150 examples and no
# deadline: what the suite ran with while tests/test_properties.py loaded its own profile at import (for every
# module, as collection imports them all before any test runs), now set here for every run alike.
settings.register_profile("reproducible", derandomize=True, database=None, deadline=None, max_examples=150)
settings.register_profile("explore", deadline=None, max_examples=150)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "reproducible"))

ROOT = Path(__file__).resolve().parents[1]
UCI54 = ROOT.parent / "shared" / "data" / "uci54" / "uci54_tidy.csv"


@pytest.fixture(scope="session")
def uci54():
    """The shared uci54 scores (5 classifiers x 54 data sets x 10 runs x 10 folds), read in place."""
    from pp_corr import load_scores

    if not UCI54.exists():
        pytest.skip(f"the shared uci54 data are not at {UCI54} (a clone without ../shared)")
    return load_scores(UCI54, columns={"score": "accuracy"})


@pytest.fixture(scope="session")
def uci54_gappy(uci54):
    """uci54 with 10% of its (data set, algorithm) cells removed at random (seed 38): 27 of 270 cells, every data set
    keeping at least 3 algorithms; and the (data set, algorithm) mask of the cells kept."""
    from pp_corr.testing import remove_cells

    return remove_cells(uci54, 0.1, random_seed=38)


# --- references shared by several test modules, written from the definitions ----------------------------------

# The matching-prior posterior of the Poisson test's data sets and the counts' distribution by enumeration
# (test_poisson_test.py, test_cli.py)

FOLDS = 10
RHO = 1 / FOLDS


def make_differences(q, seed):
    """(q, 10) differences whose P(B better) spread over roughly (0.2, 0.8), so that X = q/2 is likely."""
    rng = np.random.default_rng(seed)
    e = rng.normal(size=FOLDS)
    e = (e - e.mean()) / e.std(ddof=1)          # mean 0, sample sd 1
    sd = rng.uniform(0.01, 0.03, size=(q, 1))
    scale = np.sqrt(1 / FOLDS + RHO / (1 - RHO))
    mean = sd * scale * rng.uniform(-0.9, 0.9, size=(q, 1))   # |t| < 0.9
    return mean + sd * e


def posterior_tails(x, rope=0.0):
    """P(mu > r) and P(mu < -r) under the matching prior: mu | x ~ St(n - 1, xbar, (1/n + rho/(1 - rho)) s^2)."""
    n = x.shape[1]
    xbar, s = x.mean(axis=1), x.std(axis=1, ddof=1)
    scale = s * np.sqrt(1 / n + RHO / (1 - RHO))
    return stats.t.sf(rope, n - 1, xbar, scale), stats.t.cdf(-rope, n - 1, xbar, scale)


def count_distribution(p):
    """P(count = c), c = 0..q, by summing the probability of every one of the 2^q win/loss outcomes."""
    q = len(p)
    pmf = np.zeros(q + 1)
    for outcome in itertools.product((0, 1), repeat=q):
        o = np.array(outcome)
        pmf[o.sum()] += np.prod(np.where(o == 1, p, 1 - p))
    return pmf


# GLS statistics of one row by numpy's inverse (test_intraclass.py)

def dense_stats(x, corr):
    """GLS mean, Q = r^T M^-1 r and A = 1^T M^-1 1 of one row, by numpy's inverse."""
    m_inv = np.linalg.inv(corr)
    ones = np.ones(len(x))
    effective = ones @ m_inv @ ones
    mean = ones @ m_inv @ x / effective
    resid = x - mean
    return mean, resid @ m_inv @ resid, effective


# The hierarchical model's log density written out with scipy (test_hierarchical_batch.py,
# test_hierarchical_model.py)

def log_sigmoid_pair(y):
    """log s(y) + log(1 - s(y)), s the logistic function: an interval transform's log Jacobian over its width."""
    return -np.logaddexp(0, -y) - np.logaddexp(0, y)


def written_out_logp(values, point, form, population, delta0_density=None):
    """The model's log density (Jacobians included) at the unconstrained ``point``, nu - 1 ~ Exponential(rate 1/29)
    (priors="kruschke"), from the containers' ``values``; ``delta0_density`` replaces delta0's uniform prior
    (delta0 then unconstrained, its value the point's ``delta0_scaled``)."""
    half, s0_max = values["delta0_max"], values["sigma0_max"]
    lo, hi = values["sigma_min"], values["sigma_max"]
    xbar, ss, n, rho = values["xbar_obs"], values["ss_obs"], values["n_folds"], values["rho"]
    if delta0_density is None:  # U(-half, half) through the log-odds scaled by half / 2
        u = 2 * point["delta0_scaled_chain__"] / half
        d0 = -half + 2 * half * special.expit(u)
        logp = stats.uniform.logpdf(d0, -half, 2 * half) + log_sigmoid_pair(u) + np.log(4.0)
    else:
        d0 = point["delta0_scaled"]
        logp = delta0_density(d0)
    y0, ys = point["sigma0_scaled_interval__"], point["sigma_scaled_interval__"]
    s0, sigma = s0_max * special.expit(y0), lo + (hi - lo) * special.expit(ys)
    logp += stats.uniform.logpdf(s0, 0, s0_max) + np.log(s0_max) + log_sigmoid_pair(y0)
    logp += np.sum(stats.uniform.logpdf(sigma, lo, hi - lo) + np.log(hi - lo) + log_sigmoid_pair(ys))
    q = len(xbar)
    if population == "student_t":
        y_nu = point["nu_minus_one_log__"]
        nu = np.exp(y_nu) + 1
        logp += stats.expon.logpdf(nu - 1, scale=29) + y_nu
    # SS_i / (sigma_i^2 (1 - rho_i)) ~ chi2(n_i - 1): its density in sigma_i, the part that depends on sigma_i
    # (chi2.logpdf(ss / within, n - 1) - log(within) less its terms in ss alone, written so as to keep its digits)
    within = sigma**2 * (1 - rho)
    logp += np.sum(-(n - 1) / 2 * np.log(within) - ss / (2 * within))
    se = np.sqrt(sigma**2 * ((1 - rho) / n + rho))
    if form == "centered":
        delta = point["delta_scaled"]
        logp += np.sum(stats.t.logpdf(delta, nu, d0, s0) if population == "student_t" else
                       stats.norm.logpdf(delta, d0, s0))
        return logp + np.sum(stats.norm.logpdf(xbar, delta, se))
    lam = np.ones(q)
    if population == "student_t":
        lam = np.exp(point["lambda_log__"])
        logp += np.sum(stats.gamma.logpdf(lam, nu / 2, scale=2 / nu) + point["lambda_log__"])
    if form == "noncentered":
        z = point["z"]
        logp += np.sum(stats.norm.logpdf(z))
        return logp + np.sum(stats.norm.logpdf(xbar, d0 + s0 * z / np.sqrt(lam), se))
    return logp + np.sum(stats.norm.logpdf(xbar, d0, np.sqrt(s0**2 / lam + se**2)))


# --- checks shared by the modules the edge campaign (#10) and its property tests moved into: errors that name
# the argument, generated inputs, references written out (from tests/test_edges.py, test_edges_numerics.py,
# test_oracles_rank.py) ---------------------------------------------------------------------------------------

ERRORS = (ValueError, TypeError)


NAN, INF = math.nan, math.inf


def campaign(n, *extra_checks):
    """Hypothesis settings of the edge campaign's properties: ``n`` derandomized examples, no deadline, no database
    (tests/test_package_structure.py sums the ``n`` of every ``@campaign(n)`` in the suite)."""
    def register(fn):
        return settings(max_examples=n, deadline=None, derandomize=True, database=None,
                        suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much,
                                               HealthCheck.data_too_large, *extra_checks])(fn)
    return register


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


def rope_bounds(rope):
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


BASE_MATRIX = np.array([[0.01, 0.03, -0.02, 0.02, 0.04, 0.00, 0.01, 0.03, 0.02, -0.01],
                        [0.02, 0.00, 0.01, -0.03, 0.01, 0.02, 0.00, 0.01, -0.01, 0.02],
                        [-0.02, -0.01, 0.00, -0.03, 0.01, -0.02, -0.04, 0.00, -0.01, -0.02]])


def assert_close(actual, expected, what, rtol=1e-12, atol=0.0):
    np.testing.assert_allclose(np.asarray(actual, dtype=float), np.asarray(expected, dtype=float), rtol=rtol,
                               atol=atol, err_msg=what)


def bad_corr(kind, n):
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


RHO_KEYS = {"rho", "folds", "n_test", "n_train", "corr"}


def poisson_binomial_exact(p):
    """pmf by enumerating the 2^n outcomes in exact rational arithmetic."""
    p = [Fraction(v) for v in p]
    pmf = [Fraction(0)] * (len(p) + 1)
    for outcome in np.ndindex(*([2] * len(p))):
        prob = Fraction(1)
        for hit, pi in zip(outcome, p):
            prob *= pi if hit else 1 - pi
        pmf[sum(outcome)] += prob
    return pmf


def run_limited(argv, timeout, memory_gb=4, env=None):
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


def cli_error(capsys, argv, names):
    """main(argv) exits non-zero with one line starting 'pp-corr' that names one of ``names``; no traceback."""
    from pp_corr.cli import main

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


JOINT_X = np.random.default_rng(12).normal([0.80, 0.81, 0.83], 0.02, (4, 10, 3))


PROPERTY_SETTINGS = settings(max_examples=300, deadline=None, derandomize=True)


@pytest.fixture(scope="module")
def raw_b_better():
    """Raw scores of "new" (B) and "old" (A) on 10 data sets x 2 runs x 10 folds, B better on 8 of them, and the
    mean differences B - A computed here (the orientation checks of the rank tests and of all pairs)."""
    from pp_corr import load_scores

    rng = np.random.default_rng(20)
    old = rng.uniform(0.7, 0.9, (10, 1)) + rng.normal(0, 0.02, (10, 20))
    gain = np.array([0.03, 0.025, 0.04, 0.03, 0.035, 0.02, 0.03, 0.045, -0.01, -0.015])
    new = old + gain[:, None] + rng.normal(0, 0.01, (10, 20))
    scores = load_scores({"old": old, "new": new}, runs=2)
    z = new.mean(axis=1) - old.mean(axis=1)   # computed here from the raw scores, not by the library
    assert (z > 0).sum() == 8 and (z != 0).all()
    return scores, z


# --- references shared by several test modules (the t-test's posterior written out; the joint model's simulated
# scores, covariance by recursion and a result of given draws)

import arviz as az  # noqa: E402

from pp_corr.hierarchical.joint import JointResult, prepare_joint  # noqa: E402
from pp_corr.ranking import PlackettLuceResult  # noqa: E402


def formula_probs(x, rho, rope, prior=None):
    """The Normal-Gamma posterior (Corani & Benavoli 2015, Theorem 2, b corrected) for one data set, written out
    with plain scalars: P(left), P(rope), P(right)."""
    n = len(x)
    xbar = float(np.mean(x))
    ss = float(np.sum((x - xbar) ** 2))
    A = n / (1 + (n - 1) * rho)
    Q = ss / (1 - rho)
    if prior is None:
        df, loc, scale2 = n - 1, xbar, Q / (A * (n - 1))
    else:
        k = 1 / (A + 1 / prior.k0)
        loc = k * (A * xbar + prior.mu0 / prior.k0)
        a = prior.a + n / 2
        b = prior.b + Q / 2 + (A / prior.k0) * (xbar - prior.mu0) ** 2 / (2 * (A + 1 / prior.k0))
        df, scale2 = 2 * a, b * k / a
    if np.ptp(x) == 0 and prior is None:
        return (float(xbar < -rope), float(-rope <= xbar <= rope), float(xbar > rope))
    t = stats.t(df, loc, np.sqrt(scale2))
    left, right = t.cdf(-rope), t.sf(rope)
    return left, 1 - left - right, right


def simulated_scores(q=5, n=6, k=3, seed=0, ragged=False):
    """Scores (q, n, k) with correlated algorithms and data sets of different difficulty."""
    rng = np.random.default_rng(seed)
    base = rng.uniform(0.6, 0.9, (q, 1, 1))
    effect = rng.normal(0, 0.02, (q, 1, k))
    shared = rng.normal(0, 0.03, (q, n, 1))
    scores = base + effect + shared + rng.normal(0, 0.01, (q, n, k))
    if ragged:
        scores[0, -2:, :] = np.nan  # data set 1 has two folds fewer
    return scores


def regression_recursion(log_sd, slopes, order, scaling=0.0):
    """Cov(x) for x_j = sum_{k<j} slope_jk x_k + sd_j e_j in ``order``, by the recursion Cov(x_j, x_l) =
    sum_k slope_jk Cov(x_k, x_l) (l < j), Var(x_j) = sum_k slope_jk Cov(x_k, x_j) + sd_j^2 (written here, not the
    library's triangular inverse), rows and columns put back in the model's order. The free values are the slopes
    times (sd_k / sd_j)^scaling."""
    m = len(log_sd)
    scaling = np.broadcast_to(scaling, (m * (m - 1) // 2,))
    slope, at = np.zeros((m, m)), 0
    for j in range(m):
        slope[j, :j] = slopes[at:at + j] * np.exp(scaling[at:at + j] * (log_sd[j] - log_sd[:j]))
        at += j
    cov = np.zeros((m, m))
    for j in range(m):
        for col in range(j):
            cov[j, col] = cov[col, j] = sum(slope[j, k] * cov[k, col] for k in range(j))
        cov[j, j] = sum(slope[j, k] * cov[k, j] for k in range(j)) + np.exp(2 * log_sd[j])
    back = np.argsort(order)
    return cov[np.ix_(back, back)]


def result_from_levels(levels, cov0, nu, names, rope=(-0.01, 0.01)):
    """A JointResult whose posterior holds the given delta0 draws (draws, m) with one fixed Sigma0 and nu."""
    m = levels.shape[1]
    data = prepare_joint(simulated_scores(q=3, n=6, k=m + 1, seed=9), rho=0.1, scale=1.0, algorithms=names)
    sd = np.sqrt(np.diag(cov0))
    draws = len(levels)
    posterior = {"delta0": levels[None], "delta0_scaled": levels[None],
                 "sigma0_scaled": np.broadcast_to(sd, (1, draws, m)).copy(),
                 "corr0": np.broadcast_to(cov0 / np.outer(sd, sd), (1, draws, m, m)).copy(),
                 "nu": np.full((1, draws), nu)}
    return JointResult(az.from_dict({"posterior": posterior}), data, rope, random_seed=2)


def result_from_weights(concentration=(8.0, 2.0, 1.0), converged=True, draws=400):
    """A PlackettLuceResult of A, B, C whose posterior holds Dirichlet(``concentration``) draws of the weights (no
    fit), on three data sets' ranks."""
    w = np.random.default_rng(1).dirichlet(concentration, size=draws)
    idata = az.from_dict({"posterior": {"w": w[None]}}, coords={"algorithm": ["A", "B", "C"]},
                         dims={"w": ["algorithm"]})
    ranks = pd.DataFrame({"A": [1.0, 1.0, 2.0], "B": [2.0, 3.0, 1.0], "C": [3.0, 2.0, 3.0]})
    return PlackettLuceResult(idata, ranks, () if converged else ("R-hat of w is 1.3 > 1.01",),
                              {"prior": (1.0, 1.0, 1.0), "ties": "average"})
