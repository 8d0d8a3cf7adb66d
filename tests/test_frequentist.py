"""pairwise/frequentist.py: the frequentist t-tests' defaults and their far edge, against scipy."""
import warnings

import numpy as np
import pytest
from hypothesis import assume, given, strategies as st
from scipy import stats

import pp_corr.studies.simulation
from pp_corr import corrected_ttest, paired_ttest
from pp_corr.pairwise.frequentist import t_from_stats
from pp_corr.pairwise.intraclass import SufficientStats
from pp_corr.testing import check_result
from tests.conftest import TINY, WIDE, assert_close, assert_probability, campaign, matrices, unit_scale


X = np.array([0.021, 0.013, 0.034, -0.004, 0.027, 0.018])


class TestConfidenceInterval:
    def test_confidence_interval_defaults_to_95_percent(self):
        expected = stats.ttest_1samp(X, 0.0).confidence_interval(0.95)
        lo, hi = paired_ttest(X).confidence_interval()
        assert (float(lo), float(hi)) == pytest.approx((expected.low, expected.high), rel=1e-12)


class TestTFromStats:
    def test_t_from_stats_defaults_to_two_sided(self):
        expected = stats.ttest_1samp(X, 0.0)
        res = t_from_stats(SufficientStats.from_samples(X, 0.0))
        assert res.alternative == "two-sided"
        assert (float(res.statistic), float(res.pvalue)) == pytest.approx((expected.statistic, expected.pvalue),
                                                                          rel=1e-12)


class TestCorrectedTtest:
    def test_a_standard_error_beyond_float_range_is_inf_quietly(self):
        """Differences near the largest float with rho = 0.9: t and p come from the scaled statistics (the Nadeau-Bengio
        formula on x / 2^1023, written here), and the standard error in the data's units, above the largest float, is
        inf without a RuntimeWarning."""
        unit, rho = 2.0**1023, 0.9
        x_scaled = np.array([1.2, -1.1, 1.3, -1.4, 1.25, -1.0])
        n = len(x_scaled)
        se_scaled = x_scaled.std(ddof=1) * np.sqrt(1 / n + rho / (1 - rho))
        t = x_scaled.mean() / se_scaled
        assert se_scaled > np.finfo(float).max / unit
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            res = corrected_ttest(x_scaled * unit, rho=rho)
        assert np.isinf(res.standard_error)
        assert (float(res.statistic), float(res.pvalue)) == pytest.approx((t, 2 * stats.t.sf(abs(t), n - 1)), rel=1e-10)


# --- bad and extreme inputs: refused by name, or the documented answer (issue #10) ----------------------------------


class TestFrequentistTtestsAtEveryScale:
    @campaign(60)
    @given(x=matrices(WIDE, q=(1, 3), n=(2, 10)), rho=st.sampled_from([0.0, 0.2]),
           alternative=st.sampled_from(["two-sided", "less", "greater"]))
    def test_frequentist_t_tests_match_scipy_at_every_scale(self, x, rho, alternative):
        rows = x
        assume(np.all(np.ptp(rows, axis=-1) > 1e-6 * np.max(np.abs(rows), axis=-1)))
        assume(not np.any((x != 0) & (np.abs(x) < TINY)))
        scaled = np.array([row / unit_scale(row) for row in rows])
        res = paired_ttest(x, alternative=alternative)
        assert isinstance(res, pp_corr.TTestResult)
        ref = stats.ttest_1samp(scaled, 0, axis=-1, alternative=alternative)
        assert_close(res.pvalue, ref.pvalue, "paired_ttest pvalue vs scipy", rtol=1e-6, atol=1e-12)
        assert_close(res.statistic, ref.statistic, "paired_ttest statistic vs scipy", rtol=1e-6)
        cor = corrected_ttest(x, rho=rho, alternative=alternative)
        n = x.shape[-1]
        t = scaled.mean(axis=-1) / (scaled.std(axis=-1, ddof=1) * np.sqrt(1 / n + rho / (1 - rho)))
        p = {"two-sided": 2 * stats.t.sf(np.abs(t), n - 1), "greater": stats.t.sf(t, n - 1),
             "less": stats.t.cdf(t, n - 1)}[alternative]
        assert_close(cor.statistic, t, "corrected_ttest statistic", rtol=1e-6)
        assert_close(cor.pvalue, p, "corrected_ttest pvalue", rtol=1e-6, atol=1e-12)
        assert_probability("pvalue", cor.pvalue)


class TestTTestResultProtocol:
    X = np.array([[0.02, 0.01, 0.03, 0.00, 0.02], [-0.01, 0.0, 0.01, -0.02, 0.0]])

    def test_contract(self):
        check_result(corrected_ttest(self.X, rho=0.1))

    def test_frame_numbers_are_the_fields(self):
        res = corrected_ttest(self.X, rho=0.1)
        frame = res.to_frame(confidence_level=0.9)
        lo, hi = res.confidence_interval(0.9)
        for column, field in (("estimate", res.estimate), ("standard_error", res.standard_error), ("lower", lo),
                              ("upper", hi), ("statistic", res.statistic), ("df", res.df), ("pvalue", res.pvalue)):
            np.testing.assert_array_equal(frame[column], field)
        assert res.to_dict()["results"][0]["pvalue"] == res.pvalue[0]

    @pytest.mark.parametrize("alpha", [0.05, 0.5])
    def test_decision_is_the_favoured_side_when_rejected(self, alpha):
        res = paired_ttest(self.X)
        want = tuple(("B" if t > 0 else "A") if p < alpha else "none" for t, p in zip(res.statistic, res.pvalue))
        assert res.decision(alpha) == want
        assert paired_ttest(self.X[0]).decision(alpha) == want[0]
        assert f"decision at alpha = 0.05: {paired_ttest(self.X[0]).decision()}" in paired_ttest(self.X[0]).summary()

    def test_a_bad_alpha_is_refused_by_name(self):
        with pytest.raises(ValueError, match="^alpha must"):
            paired_ttest(self.X[0]).decision(0.0)
