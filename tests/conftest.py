import os

# Before numpy is imported: MvNormal-type graphs run ~50x slower with threaded BLAS on 2 cores.
for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(var, "1")
os.environ.setdefault("MPLBACKEND", "Agg")

import itertools  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
import pytest  # noqa: E402
from hypothesis import settings  # noqa: E402
from scipy import special, stats  # noqa: E402

# Property tests draw the same examples on every run by default, so a suite result can be reproduced;
# HYPOTHESIS_PROFILE=explore draws new ones each run (to look for counterexamples on purpose).
settings.register_profile("reproducible", derandomize=True, database=None)
settings.register_profile("explore")
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
# (test_oracles_poisson.py, test_poisson_test.py, test_cli.py)

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


# GLS statistics of one row by numpy's inverse (test_edges.py, test_intraclass.py)

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
