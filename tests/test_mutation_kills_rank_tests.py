"""What a user reads off the rank tests' results: every key of ``to_dict`` and the imprecise test's repr (issue #19,
mutation survivors). Expected values: Dirichlet means and draws made here (tests/test_oracles_rank.py), and the
documented decision rule."""
import re

import numpy as np
import pytest

from pp_corr import bayesian_sign_test, imprecise_signed_rank
from pp_corr.rank_tests import heaviside
from tests.test_oracles_rank import close_in_mc, idp_draws

Z = [0.02, 0.01, 0.03, -0.005]     # imprecise: lower ~ .81, upper ~ .99, indeterminate at 0.95


def test_heaviside_is_one_for_any_positive_value():
    assert heaviside(np.array([-1e-300, 0.0, 1e-300, 0.5, 1.0])).tolist() == [0.0, 0.5, 1.0, 1.0, 1.0]


def test_sign_test_to_dict_keys_and_values():
    z = [0.02, 0.01, 0.03, -0.02, 0.002, 0.04]
    n = 40_000
    d = bayesian_sign_test(z, rope=0.005, n_samples=n, random_seed=0).to_dict()
    assert list(d) == ["method", "a", "b", "rope", "p_left", "p_rope", "p_right", "win_left", "win_rope",
                       "win_right"]
    assert (d["method"], d["a"], d["b"], d["rope"]) == ("Bayesian sign test (prior 1.0 at z0 = 0.0)", "A", "B", 0.005)
    counts = np.array([1, 1 + 1, 4])   # z < -0.005, in the rope (plus the prior at z0 = 0), z > 0.005
    for key, mean in zip(("p_left", "p_rope", "p_right"), counts / counts.sum()):
        se = np.sqrt(mean * (1 - mean) / (counts.sum() + 1) / n)
        assert abs(d[key] - mean) <= 4 * se, key
    draws = np.random.default_rng(1).dirichlet(counts, size=n)
    shares = np.bincount(draws.argmax(axis=1), minlength=3) / n
    for key, share in zip(("win_left", "win_rope", "win_right"), shares):
        assert close_in_mc(d[key], n, share, n), key


def test_imprecise_to_dict_keys_and_values():
    n = 50_000
    d = imprecise_signed_rank(Z, n_samples=n, random_seed=0).to_dict()
    assert list(d) == ["a", "b", "lower", "upper", "lower_mean", "upper_mean", "threshold", "decision"]
    _, lower, upper = idp_draws(Z, n, seed=1)
    rule = "B" if np.mean(lower > 0.5) > 0.95 else "A" if np.mean(upper > 0.5) < 0.95 else "indeterminate"
    assert (d["a"], d["b"], d["threshold"], d["decision"]) == ("A", "B", 0.95, rule)
    assert close_in_mc(d["lower"], n, float(np.mean(lower > 0.5)), n)
    assert close_in_mc(d["upper"], n, float(np.mean(upper > 0.5)), n)
    for key, draws in (("lower_mean", lower), ("upper_mean", upper)):
        assert abs(d[key] - draws.mean()) <= 4 * draws.std() / np.sqrt(n), key


def test_imprecise_repr_names_the_pair_and_the_numbers():
    res = imprecise_signed_rank(Z, n_samples=20_000, random_seed=0)
    text = repr(res)
    match = re.fullmatch(r"Imprecise DP signed-rank test, B vs A: P\(theta > 1/2\) in \[(\S+), (\S+)\] "
                         r"\(posterior mean of theta in \[(\S+), (\S+)\]\); threshold 0\.95: (\S+)", text)
    assert match, text
    numbers = [float(v) for v in match.groups()[:4]]
    assert numbers == pytest.approx([res.lower, res.upper, res.lower_mean, res.upper_mean], abs=5e-5)
    assert match[5] == res.decision
