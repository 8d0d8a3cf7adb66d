"""pairwise/poisson_binomial.py: against rational arithmetic, scipy's poisson_binom (row by row over a batch), sums
of p written here, and the spread of independent Monte Carlo replications."""
import re
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from pp_corr import PoissonBinomial, poisson_binomial_monte_carlo
from pp_corr.pairwise.poisson_binomial import mixture_pmf
from tests.conftest import (INF, NAN, PROPERTY_SETTINGS, assert_close, assert_probability, campaign, check_error,
                            poisson_binomial_exact)


def exact_pmf(p, complement=None):
    """Rational arithmetic on the float inputs taken as exact numbers."""
    comp = [1 - Fraction(v) for v in p] if complement is None else [Fraction(v) for v in complement]
    pmf = [Fraction(1)]
    for pj, qj in zip((Fraction(v) for v in p), comp):
        pmf = [(pmf[c] if c < len(pmf) else 0) * qj + (pmf[c - 1] * pj if c > 0 else 0) for c in range(len(pmf) + 1)]
    return pmf


@pytest.mark.parametrize("q", [1, 2, 7, 20])
def test_equals_rational_arithmetic(q):
    p = np.random.default_rng(q).uniform(size=q)
    exact = exact_pmf(p)
    X = PoissonBinomial(p)
    np.testing.assert_allclose(X.pmf(), [float(v) for v in exact], rtol=1e-14)
    for k in range(-1, q + 2):
        lower = float(sum(exact[: max(k + 1, 0)]))
        upper = float(sum(exact[max(k + 1, 0):]))
        assert X.cdf(k) == pytest.approx(lower, rel=1e-14, abs=0 if lower else 1e-300)
        assert X.sf(k) == pytest.approx(upper, rel=1e-14, abs=0 if upper else 1e-300)


@pytest.mark.parametrize("q", [10, 200, pytest.param(2000, marks=pytest.mark.long)])
def test_cdf_equals_scipy(q):
    p = np.random.default_rng(q).uniform(size=q)
    k = np.unique(np.r_[np.arange(0, q + 1, max(1, q // 100)), q - 2:q + 1])  # scipy costs ~15 ms per k at q = 2000
    np.testing.assert_allclose(PoissonBinomial(p).cdf(k), stats.poisson_binom(p).cdf(k), rtol=1e-9, atol=1e-14)


def test_small_upper_tail_keeps_relative_precision():
    p = np.random.default_rng(3).uniform(0.01, 0.1, size=20)
    exact = exact_pmf(p)
    tails = [float(sum(exact[k + 1:])) for k in range(21)]
    k = next(k for k, t in enumerate(tails) if t < 1e-11)
    truth = tails[k]
    assert 1e-14 < truth < 1e-11
    X = PoissonBinomial(p)
    assert X.sf(k) == pytest.approx(truth, rel=1e-10, abs=0)
    assert abs((1 - X.cdf(k)) / truth - 1) > 1e-10  # what the complement of the cdf would have given


def test_complement_makes_p_near_one_exact():
    comp = np.array([1e-15, 3e-16, 0.25])
    p = 1 - comp
    exact = exact_pmf(p, complement=comp)
    X = PoissonBinomial(p, complement=comp)
    np.testing.assert_allclose(X.pmf(), [float(v) for v in exact], rtol=1e-14)
    assert X.cdf(0) == pytest.approx(float(exact[0]), rel=1e-14, abs=0)
    assert abs(PoissonBinomial(p).cdf(0) / float(exact[0]) - 1) > 1e-3  # 1 - p alone loses it
    with pytest.raises(ValueError, match="complement"):
        PoissonBinomial(p, complement=comp * 2)


def test_batch_equals_one_by_one_and_moments():
    p = np.random.default_rng(0).uniform(size=(3, 4, 15))
    X = PoissonBinomial(p)
    for idx in np.ndindex(3, 4):
        np.testing.assert_allclose(X.pmf()[idx], PoissonBinomial(p[idx]).pmf(), rtol=1e-14)
    counts = np.arange(16)
    np.testing.assert_allclose(X.mean, (X.pmf() * counts).sum(-1), rtol=1e-12)
    np.testing.assert_allclose(X.var, (X.pmf() * counts**2).sum(-1) - X.mean**2, rtol=1e-9)
    assert X.sf([4, 5]).shape == (3, 4, 2)


def test_monte_carlo_within_four_standard_errors():
    p = np.random.default_rng(1).uniform(size=50)
    pmf, se = poisson_binomial_monte_carlo(p, draws=100_000, random_seed=2)
    exact = PoissonBinomial(p).pmf()
    ok = se > 0
    assert np.all(np.abs(pmf - exact)[ok] <= 4 * se[ok] + 1e-12)
    np.testing.assert_array_equal(pmf, poisson_binomial_monte_carlo(p, draws=100_000, random_seed=2)[0])


def test_bad_input():
    with pytest.raises(ValueError):
        PoissonBinomial([0.5, 1.5])
    with pytest.raises(ValueError):
        PoissonBinomial(0.5)
    with pytest.raises(ValueError, match="whole"):
        PoissonBinomial([0.5]).cdf(0.5)


probability_vectors = st.lists(st.one_of(st.floats(0, 1), st.floats(0, 1e-12), st.floats(1 - 1e-12, 1),
                                         st.sampled_from([0.0, 1.0, 0.5, 1 - 2**-53, 2**-1074])),
                               min_size=1, max_size=40)


@pytest.mark.long
@settings(max_examples=300, deadline=None)
@given(probability_vectors)
def test_probabilities_never_exceed_one(p):
    X = PoissonBinomial(p)
    k = np.arange(-1, len(p) + 2)
    for values in (X.pmf(), X.pmf(k), X.cdf(k), X.sf(k)):
        assert np.all((values >= 0) & (values <= 1))
    np.testing.assert_allclose(X.cdf(k) + X.sf(k), 1.0, atol=1e-12)
    np.testing.assert_allclose(X.pmf().sum(), 1.0, atol=1e-12)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.one_of(st.floats(0, 1), st.floats(1 - 1e-9, 1)), min_size=1, max_size=8))
def test_cdf_and_sf_equal_rational_arithmetic_near_one(p):
    exact = exact_pmf(p)
    X = PoissonBinomial(p)
    for k in range(len(p) + 1):
        lower, upper = float(sum(exact[: k + 1])), float(sum(exact[k + 1:]))
        assert X.cdf(k) == pytest.approx(lower, rel=1e-12, abs=1e-300)
        assert X.sf(k) == pytest.approx(upper, rel=1e-12, abs=1e-300)


def test_nan_p_is_named():
    with pytest.raises(ValueError, match=r"^p contains NaN"):
        PoissonBinomial([0.5, np.nan])
    with pytest.raises(ValueError, match=r"^complement contains NaN"):
        PoissonBinomial([0.5, 0.5], complement=[0.5, np.nan])
    with pytest.raises(ValueError, match=r"^p must lie in \[0, 1\]"):
        PoissonBinomial([0.5, -0.1])
    with pytest.raises(TypeError, match="^p must be probabilities"):
        PoissonBinomial("0.5")


@pytest.mark.parametrize("kwargs,error,message", [
    ({"p": [0.5, 1.5]}, ValueError, r"^p must lie in \[0, 1\]"), ({"p": [-0.1]}, ValueError, r"^p must lie"),
    ({"p": [0.5, np.nan]}, ValueError, "^p contains NaN"), ({"p": [[0.5]]}, ValueError, "^p must be one problem"),
    ({"draws": 0}, ValueError, "^draws must be >= 1"), ({"draws": -5}, ValueError, "^draws must"),
    ({"draws": 10.5}, TypeError, "^draws must be a whole number"), ({"chunk": 0}, ValueError, "^chunk must"),
    ({"draws": np.inf}, TypeError, "^draws must")])
def test_monte_carlo_checks_its_arguments(kwargs, error, message):
    with pytest.raises(error, match=message):
        poisson_binomial_monte_carlo(**{"p": [0.5, 0.9], "draws": 100, "random_seed": 0, **kwargs})


def test_text_is_not_a_probability():
    with pytest.raises(TypeError, match="^p must be probabilities"):
        PoissonBinomial([0.2, "0.5", 0.7])
    with pytest.raises(TypeError, match="^complement must be probabilities"):
        PoissonBinomial([0.2, 0.5], complement=[0.8, "0.5"])
    with pytest.raises(ValueError, match=r"^complement must lie in \[0, 1\]"):
        PoissonBinomial([0.2, 0.5], complement=[0.8, np.inf])


P = np.array([0.5, 0.3, 0.9, 0.65])


P_MC = np.array([0.5, 0.4, 0.6, 0.5])   # every count has probability above 0.05


class TestPoissonBinomial:
    """Outside its support, over a batch, and its repr."""

    def test_pmf_is_zero_outside_the_support(self):
        X = PoissonBinomial(P)
        assert X.pmf([-2, -1, len(P) + 1, len(P) + 5]).tolist() == [0.0, 0.0, 0.0, 0.0]
        assert float(X.pmf(len(P))) == pytest.approx(np.prod(P), rel=1e-14)

    def test_batched_cdf_sums_each_problem_on_its_own(self):
        p = np.random.default_rng(0).uniform(size=(3, 6))
        k = np.arange(-1, 8)
        cdf = PoissonBinomial(p).cdf(k)
        assert cdf.shape == (3, len(k))
        for row, probabilities in zip(cdf, p):
            np.testing.assert_allclose(row, stats.poisson_binom(probabilities).cdf(k), rtol=1e-12, atol=1e-15)

    def test_repr_shows_trials_batch_and_mean_to_four_decimals(self):
        p = np.array([0.51234, 0.3, 0.9, 0.65])
        single = repr(PoissonBinomial(p))
        match = re.fullmatch(r"PoissonBinomial\(n_trials=4, batch=\(\), mean=(\S+)\)", single)
        assert match, single
        assert float(match[1]) == pytest.approx(round(p.sum(), 4), abs=1e-12)
        batch = np.stack([p, p[::-1] / 2])
        text = repr(PoissonBinomial(batch))
        match = re.fullmatch(r"PoissonBinomial\(n_trials=4, batch=\(2,\), mean=\[(\S+) +(\S+)\]\)", text)
        assert match, text
        assert [float(v) for v in match.groups()] == pytest.approx([round(v, 4) for v in batch.sum(axis=1)], abs=1e-12)


class TestMonteCarlo:
    """poisson_binomial_monte_carlo: its size and its standard error."""

    def test_monte_carlo_default_size_and_a_last_short_chunk(self):
        """The default is 100,000 rounds (the pmf is counts / 100,000); a last chunk shorter than the others draws only
        the rounds that are left."""
        pmf, _ = poisson_binomial_monte_carlo(P, random_seed=1)
        counts = pmf * 100_000
        np.testing.assert_allclose(counts, np.round(counts), atol=1e-6)
        assert counts.sum() == pytest.approx(100_000, abs=1e-6)
        pmf, _ = poisson_binomial_monte_carlo(P, draws=25_000, chunk=10_000, random_seed=1)
        counts = pmf * 25_000
        np.testing.assert_allclose(counts, np.round(counts), atol=1e-6)
        assert counts.sum() == pytest.approx(25_000, abs=1e-6)

    def test_monte_carlo_standard_error_is_the_spread_of_replications(self):
        """400 independent estimates of the pmf: their standard deviation is what each reports as its standard error
        (the sd of 400 normal-ish values is off by about 1/sqrt(2 * 399) = 3.5% relative; we allow 5 of those)."""
        replications, n_draws = 400, 2_000
        seeds = np.random.SeedSequence(5).spawn(replications)
        estimates, errors = zip(*(poisson_binomial_monte_carlo(P_MC, draws=n_draws,
                                                               random_seed=np.random.default_rng(s))
                                  for s in seeds))
        spread = np.std(estimates, axis=0, ddof=1)
        reported = np.mean(errors, axis=0)
        exact = PoissonBinomial(P_MC).pmf()
        assert (exact > 0.05).all()
        np.testing.assert_allclose(reported, spread, rtol=5 / np.sqrt(2 * (replications - 1)))


# --- bad and extreme inputs, generated ones too: refused by name, or the documented answer (issue #10) --------------

PROBS = st.one_of(st.floats(0, 1), st.sampled_from([0.0, 1.0, 1e-300, 0.5, 1 - 2**-53, 2**-53]))


class TestPoissonBinomialEdges:
    @pytest.mark.long
    @campaign(150)
    @given(p=st.lists(PROBS, min_size=0, max_size=7), near_one=st.lists(st.floats(1e-300, 1e-3), max_size=2))
    def test_poisson_binomial_matches_exact_enumeration(self, p, near_one):
        """pmf, cdf and sf against exact rational enumeration; every value a probability (never above 1)."""
        complement = [1 - v for v in p] + list(near_one)  # exact for the first part, the accurate 1 - p for the rest
        probs = list(p) + [1 - c for c in near_one]
        X = PoissonBinomial(probs, complement=complement) if near_one else PoissonBinomial(probs)
        exact_p = [Fraction(v) for v in p] + [1 - Fraction(c) for c in near_one]
        pmf = poisson_binomial_exact(exact_p)
        n = len(exact_p)
        got = np.asarray(X.pmf(), dtype=float)
        assert_close(got, [float(v) for v in pmf], "pmf", rtol=1e-11, atol=1e-300)
        for k in range(-1, n + 2):
            cdf, sf = float(X.cdf(k)), float(X.sf(k))
            assert_probability(f"cdf({k})", cdf)
            assert_probability(f"sf({k})", sf)
            exact_cdf = float(sum(pmf[: max(0, min(k, n) + 1)], Fraction(0)))
            assert_close(cdf, exact_cdf, f"cdf({k})", rtol=1e-11, atol=1e-300)
            assert_close(sf, float(sum(pmf[max(0, k + 1):], Fraction(0))), f"sf({k})", rtol=1e-11, atol=1e-300)
        assert_close(X.mean, float(sum(exact_p, Fraction(0))), "mean", rtol=1e-12, atol=1e-300)
        assert_close(X.var, float(sum((v * (1 - v) for v in exact_p), Fraction(0))), "var", rtol=1e-10, atol=1e-300)

    @campaign(30)
    @given(bad=st.sampled_from([NAN, 1.5, -0.1, INF, "0.5"]), where=st.sampled_from(["p", "complement"]))
    def test_poisson_binomial_refuses_bad_probabilities(self, bad, where):
        if where == "p":
            check_error(lambda: PoissonBinomial([0.2, bad, 0.7]), ("p",))
        else:
            check_error(lambda: PoissonBinomial([0.2, 0.5], complement=[0.8, bad]), ("complement",))

    @pytest.mark.long
    def test_regression_poisson_binomial_above_one(self):
        """PoissonBinomial returned 1.0000000000000016: no cdf, sf or pmf value above 1 (seeded random p vectors)."""
        rng = np.random.default_rng(0)
        worst = 0.0
        for _ in range(3000):
            n = int(rng.integers(1, 30))
            p = rng.random(n) ** rng.choice([1, 0.1, 10])
            X = PoissonBinomial(p)
            values = np.concatenate([X.pmf(), [X.cdf(k) for k in range(-1, n + 1)],
                                     [X.sf(k) for k in range(-1, n + 1)]])
            worst = max(worst, float(values.max()))
        assert worst <= 1.0, f"a probability of {worst!r}"


class TestPoissonBinomialMonteCarloEdges:
    @campaign(40)
    @given(p=st.lists(PROBS, min_size=1, max_size=5), n_draws=st.integers(500, 3000), seed=st.integers(0, 2**20))
    def test_poisson_binomial_monte_carlo_within_its_standard_error(self, p, n_draws, seed):
        pmf, se = poisson_binomial_monte_carlo(p, draws=n_draws, random_seed=seed)
        exact = np.array([float(v) for v in poisson_binomial_exact(p)])
        assert_probability("pmf", pmf)
        assert np.isfinite(se).all() and (np.asarray(se) >= 0).all()
        assert_close(np.sum(pmf), 1.0, "pmf sums to 1", rtol=0, atol=1e-9)
        tolerance = 5 * np.sqrt(exact * (1 - exact) / n_draws) + 1e-12
        assert np.all(np.abs(pmf - exact) <= tolerance), f"pmf {pmf} vs exact {exact}"

    @campaign(40)
    @given(case=st.sampled_from([("p", [0.5, 1.5]), ("p", [0.5, NAN]), ("p", [-0.2]), ("draws", 0), ("draws", -10),
                                 ("draws", 2.5), ("chunk", 0), ("random_seed", -1)]))
    def test_poisson_binomial_monte_carlo_refuses_bad_arguments(self, case):
        name, value = case
        kwargs = {"p": [0.3, 0.6], "draws": 100, "random_seed": 0, name: value}
        check_error(lambda: poisson_binomial_monte_carlo(**kwargs), (name,))

    def test_regression_poisson_binomial_monte_carlo_bad_p(self):
        check_error(lambda: poisson_binomial_monte_carlo([0.5, 1.2], draws=100, random_seed=0), ("p",))
        check_error(lambda: poisson_binomial_monte_carlo([0.5, NAN], draws=100, random_seed=0), ("p",))
        check_error(lambda: poisson_binomial_monte_carlo([0.5, 0.2], draws=0, random_seed=0), ("draws",))


class TestPoissonBinomialGenerated:
    @pytest.mark.long
    @PROPERTY_SETTINGS
    @given(st.lists(st.one_of(st.floats(0, 1), st.floats(0, 1e-300), st.floats(1 - 1e-12, 1)), min_size=1,
                    max_size=30), st.integers(0, 29), st.sampled_from([np.nan, -1e-300, 1 + 1e-15, np.inf]))
    def test_poisson_binomial_in_unit_interval_or_names_p(self, p, where, bad):
        X = PoissonBinomial(p)
        k = np.arange(-1, len(p) + 2)
        for values in (X.pmf(), X.cdf(k), X.sf(k)):
            assert ((values >= 0) & (values <= 1)).all()
        spoilt = list(p)
        spoilt[where % len(p)] = bad
        with pytest.raises(ValueError, match=r"^p (contains NaN|must lie in \[0, 1\])"):
            PoissonBinomial(spoilt)


class TestMixturePmf:
    """mixture_pmf: against rational arithmetic, component by component, weighted."""

    @given(st.integers(1, 4), st.integers(1, 12), st.integers(0, 2**32 - 1))
    @settings(PROPERTY_SETTINGS)
    def test_equals_the_weighted_rational_pmfs(self, components, trials, seed):
        rng = np.random.default_rng(seed)
        p = rng.uniform(size=(components, trials))
        p[rng.random(p.shape) < 0.2] = 1.0  # certain trials move the counts kept
        p[rng.random(p.shape) < 0.2] = 0.0
        weights = rng.uniform(0.1, 1.0, components)
        exact = [sum(Fraction(w) * pmf[c] for w, pmf in zip(weights, (exact_pmf(row) for row in p)))
                 / sum(Fraction(w) for w in weights) for c in range(trials + 1)]
        np.testing.assert_allclose(mixture_pmf(weights, p), [float(v) for v in exact], rtol=1e-13,
                                   atol=(trials + 1) * 1e-30)

    def test_drops_only_counts_below_1e_30(self):
        p = np.full((3, 400), 0.5)  # the tails of Binomial(400, 1/2) fall far below 1e-30
        exact = stats.binom(400, 0.5).pmf(np.arange(401))
        mixed = mixture_pmf([1.0, 2.0, 3.0], p)
        np.testing.assert_allclose(mixed, exact, rtol=1e-11, atol=401 * 1e-30)  # at most 1e-30 dropped a step
        assert mixed[0] == 0 < mixed[200]  # and dropped it was

    @pytest.mark.parametrize("weights, p, message", [
        ([1.0], [[0.5, 1.5]], "p must lie in [0, 1]"),
        ([1.0, 1.0], [[0.5]], "weights one per component"),
        ([0.0], [[0.5]], "not all 0"),
        ([-1.0, 2.0], [[0.5], [0.5]], "must be >= 0"),
        ([1.0], [0.5], "p must be (components, trials)")])
    def test_refuses_bad_input(self, weights, p, message):
        with pytest.raises(ValueError, match=re.escape(message)):
            mixture_pmf(weights, p)
