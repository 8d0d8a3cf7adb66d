"""hierarchical/model.py's hierarchical_model and the model building it calls (preparation.py, priors.py, and
intraclass.rho_for's check that a design was given); fits are tested in tests/test_hierarchical.py.

Oracles: the model's data containers against the formulas of hierarchical_model's docstring computed here with
numpy (the unit s, the statistics in units of s, the prior limits), and its log density against the model written
out with scipy (uniform, Student-t, normal, gamma and exponential densities, the chi-square term of the sums of
squares, each transform's Jacobian). No sampling: at most a log density is compiled."""
import sys
import warnings

import arviz as az
import numpy as np
import pymc as pm
import pytest
from pymc.model.transform.conditioning import remove_value_transforms
from scipy import integrate, special, stats

from pp_corr.hierarchical.model import hierarchical_model
from pp_corr.hierarchical.preparation import OutlierWarning
from tests.conftest import FOLDS, HIER_MODEL_BAD, HIER_X, RHO, RHO_KEYS, check_error, written_out_logp


RNG = np.random.default_rng(20261125)


X = RNG.normal(0.01, 0.02, (5, 10))  # 5 data sets x 10 folds (folds=10: rho = 0.1)


CONTAINERS = ("xbar_obs", "ss_obs", "n_folds", "rho", "unit", "delta0_max", "sigma0_max", "sigma_min", "sigma_max")


def promised(x, rho, s=None, bounds=None):
    """The data containers hierarchical_model's docstring promises for rows ``x``, in units of s (the median sd
    unless ``s`` is given): delta0 ~ U(-M, M), M = max |x| (at least 1e-6), sigma0 ~ U(0, 1000 sd(xbar)) (sd at
    least 1e-3), sigma_i ~ U(0.01, 1000 max(1, sd_i / s)); ``bounds`` overrides the limits."""
    x = np.asarray(x, dtype=float)
    sd = x.std(axis=1, ddof=1)
    s = np.median(sd) if s is None else s
    xbar = x.mean(axis=1) / s
    q, n = x.shape
    values = {"xbar_obs": xbar, "ss_obs": ((x - x.mean(axis=1, keepdims=True)) ** 2).sum(axis=1) / s**2,
              "n_folds": np.full(q, float(n)), "rho": np.full(q, float(rho)), "unit": s,
              "delta0_max": max(np.abs(x).max() / s, 1e-6), "sigma0_max": 1000 * max(xbar.std(ddof=1), 1e-3),
              "sigma_min": np.full(q, 0.01), "sigma_max": 1000 * np.maximum(1.0, sd / s)}
    for key, value in (bounds or {}).items():
        if key == "sigma":
            values["sigma_min"], values["sigma_max"] = np.full(q, value[0]), np.full(q, value[1])
        else:
            values[key + "_max"] = value
    return values


def assert_containers(model, expected):
    for name in CONTAINERS:
        np.testing.assert_allclose(model[name].get_value(), expected[name], rtol=1e-12, atol=0, err_msg=name)


class TestDataContainers:
    """The statistics, the unit and the prior limits (prior_limits, prepare_hierarchical)."""

    def test_the_containers_hold_the_statistics_and_limits_in_units_of_the_median_sd(self):
        """The means spread far less than the unit (sd(xbar) about 0.3 s): sigma0's limit is 1000 sd(xbar), not its
        floor; max |x| / s is above 1."""
        assert_containers(hierarchical_model(X, folds=10), promised(X, 0.1))

    def test_a_given_scale_sets_the_unit_and_the_limits_follow_it(self):
        """With s = 10 every |x| / s is below 1: delta0's limit is max |x| / s (about 0.006), sigma0's is its floor
        1000 x 1e-3 (sd(xbar) is below 1e-3), and sigma_i's upper limit is 1000 (the data sets' sds are below s)."""
        model = hierarchical_model(X, folds=10, scale=10.0)
        expected = promised(X, 0.1, s=10.0)
        assert expected["delta0_max"] < 0.01 and expected["sigma0_max"] == 1.0
        assert_containers(model, expected)

    def test_identical_algorithms_get_the_floors_of_the_limits(self):
        """All differences 0 (two identical algorithms): the unit is 1, delta0's limit its floor 1e-6, sigma0's
        1000 x 1e-3 = 1, and sigma_i's 1000."""
        model = hierarchical_model(np.zeros((4, 6)), folds=6)
        expected = promised(np.zeros((4, 6)), 1 / 6, s=1.0)
        assert expected["delta0_max"] == 1e-6 and expected["sigma0_max"] == 1.0
        assert_containers(model, expected)

    def test_rho_from_n_test_and_n_train_reaches_the_model(self):
        """rho = n_test / (n_test + n_train) (Nadeau and Bengio): 1 / 9 here."""
        model = hierarchical_model(X, n_test=1, n_train=8)
        assert_containers(model, promised(X, 1 / 9))

    def test_bounds_override_the_limits_and_nothing_else(self):
        bounds = {"delta0": 2.5, "sigma0": 3.0, "sigma": (0.2, 7.0)}
        model = hierarchical_model(X, folds=10, scale=0.5, bounds=bounds)
        assert_containers(model, promised(X, 0.1, s=0.5, bounds=bounds))

    def test_two_data_sets_are_enough(self):
        x = X[:2]
        assert_containers(hierarchical_model(x, folds=10), promised(x, 0.1))


FORMS = [(form, population) for form in ("centered", "noncentered", "marginal") for population in ("student_t",
                                                                                                   "normal")]


class TestLogDensity:
    """The log density, written out (build_hierarchical_model): every form and population."""

    @pytest.mark.parametrize("form, population", FORMS)
    def test_the_log_density_is_the_model_written_out(self, form, population):
        """Every form with either population (the normal population in the marginal and non-centred forms had no test),
        at random points; the containers are checked against the docstring's formulas first."""
        model = hierarchical_model(X, folds=10, priors="kruschke", form=form, population=population)
        values = {name: model[name].get_value() for name in CONTAINERS}
        assert_containers(model, promised(X, 0.1))
        logp = model.compile_logp(mode="FAST_COMPILE")
        shapes = {name: np.shape(value) for name, value in model.initial_point().items()}
        # one delta_i (or z_i and lambda_i) and one sigma_i per data set; nu only for the Student-t population
        q = (len(X),)
        expected = {"delta0_scaled_chain__": (), "sigma0_scaled_interval__": (), "sigma_scaled_interval__": q,
                    **({"delta_scaled": q} if form == "centered" else {"z": q} if form == "noncentered" else {}),
                    **({"nu_minus_one_log__": ()} if population == "student_t" else {}),
                    **({"lambda_log__": q} if population == "student_t" and form != "centered" else {})}
        assert shapes == expected
        rng = np.random.default_rng(3)
        for _ in range(3):
            point = {name: rng.normal(0, 1.5, shape) for name, shape in shapes.items()}
            assert float(logp(point)) == pytest.approx(written_out_logp(values, point, form, population), rel=1e-12)


def normal_delta0(name, unit):
    """N(0.01, 0.02) in the scores' units, as the docstring's example."""
    return pm.Normal(name, 0.01 / unit, 0.02 / unit)


class TestDelta0Prior:
    @pytest.mark.parametrize("form", ["centered", "marginal"])
    def test_a_delta0_prior_of_ones_own_replaces_the_uniform_in_the_models_unit(self, form):
        model = hierarchical_model(X, folds=10, priors="kruschke", form=form, population="normal",
                                   delta0_prior=normal_delta0)
        s = np.median(X.std(axis=1, ddof=1))
        assert model["unit"].get_value() == pytest.approx(s, rel=1e-12)
        assert "delta0_scaled" in [rv.name for rv in model.free_RVs]
        values = {name: model[name].get_value() for name in CONTAINERS}
        logp = model.compile_logp(mode="FAST_COMPILE")
        shapes = {name: np.shape(value) for name, value in model.initial_point().items()}
        assert "delta0_scaled" in shapes  # unconstrained: no transform
        rng = np.random.default_rng(4)
        for _ in range(3):
            point = {name: rng.normal(0, 1.5, shape) for name, shape in shapes.items()}
            expected = written_out_logp(values, point, form, "normal",
                                        delta0_density=lambda d: stats.norm.logpdf(d, 0.01 / s, 0.02 / s))
            assert float(logp(point)) == pytest.approx(expected, rel=1e-12)

    def test_a_delta0_prior_that_is_not_callable_is_refused_before_the_scores_are_read(self):
        """The arguments are checked before any work: x with one data set would fail later, with another message."""
        with pytest.raises(TypeError,
                           match=r"delta0_prior must be a callable \(name, unit\) -> PyMC variable, got 0.5"):
            hierarchical_model(np.arange(10.0).reshape(1, 10), folds=10, delta0_prior=0.5)


class TestVariables:
    """The named variables, their labels and the deterministics (build_hierarchical_model)."""

    @pytest.mark.parametrize("form, population", FORMS)
    def test_the_variables_are_those_the_docs_name_labelled_by_data_set(self, form, population):
        """What a fit's DataTree holds and the results read: delta0, sigma0, nu and delta (the convergence check names
        delta[data set]), W, the scaled parameters, xbar, the chi-square potential ss and the data containers; every
        per-data-set one labelled by the data sets' names. The marginal form has no delta_i (nor delta, W)."""
        model = hierarchical_model(X, folds=10, priors="kruschke", form=form, population=population)
        t = population == "student_t"
        per_dataset = {"xbar_obs", "ss_obs", "n_folds", "rho", "sigma_min", "sigma_max", "sigma_scaled", "xbar"}
        per_dataset |= {"delta_scaled", "delta"} if form != "marginal" else set()
        per_dataset |= {"z"} if form == "noncentered" else set()
        per_dataset |= {"lambda"} if t and form != "centered" else set()
        scalars = {"unit", "delta0_max", "sigma0_max", "delta0_scaled", "sigma0_scaled", "delta0", "sigma0", "ss"}
        scalars |= {"nu_minus_one", "nu"} if t else set()
        scalars |= {"W"} if form != "marginal" else set()
        assert set(model.named_vars) == per_dataset | scalars
        assert model.coords["dataset"] == ("D1", "D2", "D3", "D4", "D5")
        for name in per_dataset:
            assert model.named_vars_to_dims.get(name) == ("dataset",), name
        for name in scalars:
            assert not model.named_vars_to_dims.get(name), name
        assert [v.name for v in model.observed_RVs] == ["xbar"] and [v.name for v in model.potentials] == ["ss"]

    @pytest.mark.parametrize("form, population", [("centered", "student_t"), ("noncentered", "student_t"),
                                                  ("noncentered", "normal"), ("marginal", "normal")])
    def test_the_deterministics_are_the_scaled_parameters_times_the_unit(self, form, population):
        """delta0 = s delta0_scaled, sigma0 = s sigma0_scaled, nu = 1 + nu_minus_one, delta = s delta_scaled and W the
        number of delta_i > 0, at random points; non-centred, delta_scaled = delta0 + sigma0 z / sqrt(lambda)."""
        model = hierarchical_model(X, folds=10, priors="kruschke", form=form, population=population)
        s = np.median(X.std(axis=1, ddof=1))
        outputs = model.unobserved_value_vars
        values_of = model.compile_fn(outputs, inputs=model.value_vars, on_unused_input="ignore", mode="FAST_COMPILE")
        shapes = {name: np.shape(value) for name, value in model.initial_point().items()}
        half = promised(X, 0.1)["delta0_max"]
        rng = np.random.default_rng(5)
        for _ in range(3):
            point = {name: rng.normal(0, 1.5, shape) for name, shape in shapes.items()}
            got = dict(zip([v.name for v in outputs], values_of(point)))
            d0 = -half + 2 * half * special.expit(2 * point["delta0_scaled_chain__"] / half)
            assert got["delta0_scaled"] == pytest.approx(d0, rel=1e-12)
            assert got["delta0"] == pytest.approx(s * d0, rel=1e-12)
            assert got["sigma0"] == pytest.approx(s * got["sigma0_scaled"], rel=1e-12)
            if population == "student_t":
                assert got["nu"] == pytest.approx(1 + np.exp(point["nu_minus_one_log__"]), rel=1e-12)
            if form == "marginal":
                assert "delta" not in got and "W" not in got
                continue
            delta = point.get("delta_scaled")
            if form == "noncentered":
                lam = np.exp(point["lambda_log__"]) if population == "student_t" else 1.0
                delta = d0 + got["sigma0_scaled"] * point["z"] / np.sqrt(lam)
                np.testing.assert_allclose(got["delta_scaled"], delta, rtol=1e-12)
            np.testing.assert_allclose(got["delta"], s * delta, rtol=1e-12)
            assert got["W"] == np.sum(delta > 0)


class TestBounds:
    """check_prior_bounds: what is accepted, and every message naming the key and what was given."""

    def test_small_bounds_and_a_sigma_floor_of_zero_are_accepted(self):
        """Limits in (0, 1) are valid (> 0), and sigma_i's lower limit may be 0."""
        bounds = {"delta0": 0.5, "sigma0": 0.25, "sigma": (0.0, 0.5)}
        assert_containers(hierarchical_model(X, folds=10, bounds=bounds), promised(X, 0.1, bounds=bounds))

    @pytest.mark.parametrize("bounds, error, message", [
        ([1.0, 2.0], TypeError, "bounds must be a dict with keys 'delta0', 'sigma0', 'sigma', got list [1.0, 2.0]"),
        ({"mu": 1.0, 3: 1.0, "delta0": 1.0}, ValueError,
         "bounds: unknown keys [3, 'mu']; use ['delta0', 'sigma', 'sigma0']"),
        ({"delta0": 0.0}, ValueError, "bounds['delta0'] must be in (0, inf], got 0.0"),
        ({"sigma0": -2.0}, ValueError, "bounds['sigma0'] must be in (0, inf], got -2.0"),
        ({"sigma": [[0.1, 1.0], [0.2, 2.0]]}, ValueError,
         "bounds['sigma'] must be a pair (min, max), got [[0.1, 1.0], [0.2, 2.0]]"),
        ({"sigma": "ab"}, ValueError, "bounds['sigma'] must be a pair (min, max), got 'ab'"),
        ({"sigma": (0.1, 1.0, 2.0)}, ValueError, "bounds['sigma'] must be a pair (min, max), got (0.1, 1.0, 2.0)"),
        ({"sigma": (-1.0, 1.0)}, ValueError, "bounds['sigma'] min must be in [0, inf], got -1.0"),
        ({"sigma": (0.1, np.nan)}, ValueError, "bounds['sigma'] max must be a finite number, got nan"),
        ({"sigma": (1.0, 1.0)}, ValueError, "bounds['sigma'] must be a pair (min, max) with min < max, got (1.0, 1.0)"),
    ])
    def test_bad_bounds_are_refused_naming_the_key_and_the_value(self, bounds, error, message):
        with pytest.raises(error) as caught:
            hierarchical_model(X, folds=10, bounds=bounds)
        assert str(caught.value) == message


def scores_dataset(score, rho, algorithms=("a", "b", "c")):
    """A scores Dataset of (data sets, algorithms, folds) scores, data sets named s1, s2, ..."""
    import xarray as xr
    q = score.shape[0]
    return xr.Dataset({"score": (("dataset", "algorithm", "fold"), score), "rho": ("dataset", np.asarray(rho, float))},
                      coords={"dataset": [f"s{i + 1}" for i in range(q)], "algorithm": list(algorithms)})


class TestScoresDataset:
    """The scores, rho and the data sets' names (prepare_hierarchical)."""

    def test_a_scores_dataset_gives_its_pair_names_and_rho_per_data_set(self):
        """The pair chosen by algorithms (not the first two), the data sets' names and their own rho (one per data set);
        two data sets of 2 scores each are enough (NaN folds dropped)."""
        rng = np.random.default_rng(6)
        score = 0.8 + rng.normal(0, 0.02, (2, 3, 4))
        score[1, :, 2:] = np.nan  # s2 keeps 2 scores
        scores = scores_dataset(score, [0.1, 0.3])
        model = hierarchical_model(scores, algorithms=("c", "a"))
        rows = [score[0, 0] - score[0, 2], score[1, 0, :2] - score[1, 2, :2]]  # a - c, per data set
        sd = np.array([np.std(r, ddof=1) for r in rows])
        s = np.median(sd)
        assert model.coords["dataset"] == ("s1", "s2")
        np.testing.assert_allclose(model["xbar_obs"].get_value(), [r.mean() / s for r in rows], rtol=1e-12)
        np.testing.assert_allclose(model["n_folds"].get_value(), [4, 2])
        np.testing.assert_allclose(model["rho"].get_value(), [0.1, 0.3])
        np.testing.assert_allclose(model["sigma_max"].get_value(), 1000 * np.maximum(1, sd / s), rtol=1e-12)
        assert model["delta0_max"].get_value() == pytest.approx(max(np.abs(r).max() for r in rows) / s, rel=1e-12)

    def test_one_rho_for_a_scores_dataset_applies_to_every_data_set(self):
        score = 0.8 + np.random.default_rng(7).normal(0, 0.02, (3, 3, 5))
        model = hierarchical_model(scores_dataset(score, [0.1, 0.2, 0.3]), algorithms=("a", "b"), rho=0.25)
        np.testing.assert_array_equal(model["rho"].get_value(), [0.25, 0.25, 0.25])

    @pytest.mark.parametrize("rho, given", [(np.full(4, 0.1), "4 values"), (np.full((1, 3), 0.1), "3 values")])
    def test_rho_for_a_scores_dataset_must_be_one_value_or_one_per_data_set(self, rho, given):
        score = 0.8 + np.random.default_rng(7).normal(0, 0.02, (3, 3, 5))
        with pytest.raises(ValueError) as caught:
            hierarchical_model(scores_dataset(score, [0.1, 0.2, 0.3]), algorithms=("a", "b"), rho=rho)
        assert str(caught.value) == f"rho must be one value or one per data set (3), got {given}"

    def test_data_sets_with_too_few_scores_are_all_named_with_their_counts(self):
        """s1 has 1 score and s3 none; s2's 2 scores are enough."""
        score = 0.8 + np.random.default_rng(8).normal(0, 0.02, (3, 3, 4))
        score[0, :, 1:] = np.nan  # s1: 1 score
        score[1, :, 2:] = np.nan  # s2: 2 scores
        score[2, :, :] = np.nan  # s3: none
        with pytest.raises(ValueError) as caught:
            hierarchical_model(scores_dataset(score, [0.1] * 3), algorithms=("a", "b"))
        assert str(caught.value) == ("the hierarchical model needs at least 2 scores in each data set: 's1' (1), "
                                     "'s3' (0)")

    def test_arrays_without_a_design_are_told_what_to_give(self):
        with pytest.raises(ValueError) as caught:
            hierarchical_model(X)
        assert str(caught.value) == ("give how the scores were obtained: runs (r runs of k-fold cross-validation: "
                                     "rho = 1/k), folds (k), rho, or n_test with n_train")


def pm_one(n, half_width, centre=0.0):
    """n values centre -+ half_width alternating (n even): mean centre, sd half_width sqrt(n / (n - 1))."""
    return centre + half_width * np.tile([-1.0, 1.0], n // 2)


class TestModelUnit:
    """The unit s (model_unit): each case of its docstring."""

    def test_the_unit_of_an_even_number_of_data_sets_is_the_mean_of_the_two_middle_sds(self):
        x = np.array([pm_one(4, h) for h in (1.0, 2.0, 4.0, 8.0)])
        model = hierarchical_model(x, folds=4)
        assert model["unit"].get_value() == pytest.approx(3.0 * np.sqrt(4 / 3), rel=1e-12)

    def test_the_unit_of_constant_data_sets_is_the_median_nonzero_mean_and_of_zeros_1(self):
        """Every data set constant: the median of the non-zero |means| (a data set at 0 left out); all zero: 1."""
        x = np.array([[0.0] * 4, [-2.0] * 4, [4.0] * 4, [-0.5] * 4, [1.0] * 4])
        assert hierarchical_model(x, folds=4)["unit"].get_value() == 1.5  # median of 2, 4, 0.5, 1
        assert hierarchical_model(np.zeros((3, 4)), folds=4)["unit"].get_value() == 1.0

    def test_most_data_sets_constant_take_the_median_of_the_other_sds_even_below_one(self):
        x = np.array([[0.0] * 4, [0.02] * 4, [-0.01] * 4, pm_one(4, 0.001), pm_one(4, 0.003)])
        assert hierarchical_model(x, folds=4)["unit"].get_value() == pytest.approx(0.002 * np.sqrt(4 / 3), rel=1e-12)


class TestOutlierWarning:
    """warn_far_out: its words, its thresholds and where it points."""

    def test_far_out_data_sets_are_each_named_with_every_reason(self):
        """Five data sets of sd sqrt(4/3) (the median sd) at means 0-4; D6 (mean 501, sd 1000 sqrt(4/3)) is far out by
        both rules, D7 (constant 1001) by its mean. The median mean is 3 and the typical distance from it 2."""
        x = np.array([pm_one(4, 1.0, c) for c in range(5)] + [pm_one(4, 1000.0, 501.0), np.full(4, 1001.0)])
        with pytest.warns(OutlierWarning) as record:
            hierarchical_model(x, folds=4)
        assert len(record) == 1
        assert str(record[0].message) == (
            "far outside the other data sets, check for an error in the scores: data set 'D6': its sd 1.15e+03 is "
            "1e+03 times the median sd 1.15 and its mean 501 is 249 times further from the median mean 3 than typical "
            "(2); data set 'D7': its mean 1e+03 is 499 times further from the median mean 3 than typical (2). The "
            "model's unit (the median sd) ignores it, its prior limits cover it.")

    @pytest.mark.parametrize("far, warned", [(100.0, False), (101.0, True)])
    def test_an_sd_exactly_100_times_the_median_is_not_far_out(self, far, warned):
        """sd 100 sqrt(4/3) against the median sd sqrt(4/3): exactly 100 times (the rule is "over 100 times")."""
        x = np.array([pm_one(4, 0.5), pm_one(4, 1.0), pm_one(4, far)])
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            hierarchical_model(x, folds=4)
        assert [issubclass(w.category, OutlierWarning) for w in caught] == ([True] if warned else [])

    @pytest.mark.parametrize("far, warned", [(151.0, False), (151.5, True)])
    def test_a_mean_exactly_100_typical_distances_out_is_not_far_out(self, far, warned):
        """Constant data sets at -1, 0, 1, 2 and 151: the median mean is 1, the median distance from it 1 and the unit
        (the median non-zero |mean|) 1.5, so the typical distance is 1.5 and 151 lies exactly 100 of them out."""
        x = np.array([np.full(4, m) for m in (-1.0, 0.0, 1.0, 2.0, far)])
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            model = hierarchical_model(x, folds=4)
        assert model["unit"].get_value() == 1.5
        assert [issubclass(w.category, OutlierWarning) for w in caught] == ([True] if warned else [])

    @pytest.mark.skipif("mutmut" in sys.modules, reason="mutmut's trampolines add frames to every call of pp_corr's "
                                                        "mutated functions")
    def test_the_outlier_warning_points_at_the_line_that_called_hierarchical_model(self):
        x = np.array([pm_one(4, 1.0, c) for c in range(5)] + [np.full(4, 1001.0)])
        with pytest.warns(OutlierWarning) as record:
            hierarchical_model(x, folds=4)
        assert record[0].filename == __file__


# --- bad and extreme inputs: refused by name, or the documented answer (issue #10); independent oracles (issue #19) ---

BOUNDS = {"delta0": 1.0, "sigma0": 1.0, "sigma": (0.005, 0.2)}


X_SIGMA = np.random.default_rng(2).normal(0.01, 0.03, (4, FOLDS))


FIXED = {"delta0_scaled": 0.01, "sigma0_scaled": 0.02, "nu_minus_one": 4.0,
         "delta_scaled": np.array([0.0, 0.02, 0.01, -0.01])}


def analytic_log_conditional(sigma, i):
    """log p(sigma_i | xbar_i, SS_i, delta_i) up to a constant: the flat prior on the bounds times
    N(xbar_i | delta_i, sigma^2 ((1 - rho)/n + rho)) times the density of SS_i, where
    SS_i / (sigma^2 (1 - rho)) ~ chi-square(n - 1)."""
    n = X_SIGMA.shape[1]
    xbar, ss = X_SIGMA[i].mean(), ((X_SIGMA[i] - X_SIGMA[i].mean()) ** 2).sum()
    sigma = np.asarray(sigma, dtype=float)
    mean_part = stats.norm.logpdf(xbar, FIXED["delta_scaled"][i], sigma * np.sqrt((1 - RHO) / n + RHO))
    unit = sigma**2 * (1 - RHO)
    scatter_part = stats.chi2.logpdf(ss / unit, n - 1) - np.log(unit)
    inside = (sigma >= BOUNDS["sigma"][0]) & (sigma <= BOUNDS["sigma"][1])
    return np.where(inside, mean_part + scatter_part, -np.inf)


@pytest.fixture(scope="module")
def model_log_conditional():
    """sigma -> the model's joint log density (on the constrained scale, no Jacobian) with everything fixed but
    sigma_i: as a function of sigma_i that is its log conditional up to a constant."""
    model = hierarchical_model(X_SIGMA, folds=FOLDS, scale=1.0, bounds=BOUNDS)
    assert {"sigma_scaled", "delta_scaled", "xbar_obs", "ss_obs"} <= set(model.named_vars)
    np.testing.assert_allclose(model["xbar_obs"].get_value(), X_SIGMA.mean(axis=1), rtol=1e-12)   # scale=1: our units
    plain = remove_value_transforms(model)
    logp = plain.compile_logp(jacobian=False)
    sigmas = np.array([0.03, 0.025, 0.035, 0.04])

    def log_conditional(sigma, i):
        s = sigmas.copy()
        s[i] = sigma
        return float(logp({**FIXED, "sigma_scaled": s}))

    return log_conditional


class TestHierarchicalModelArguments:
    @pytest.mark.parametrize("label", sorted(HIER_MODEL_BAD))
    def test_hierarchical_model_refuses_bad_parameters(self, label):
        from pp_corr import hierarchical_model

        kwargs, names = HIER_MODEL_BAD[label]
        kwargs = dict(kwargs)
        x = kwargs.pop("x", HIER_X)
        if not RHO_KEYS & set(kwargs):
            kwargs["folds"] = 10
        check_error(lambda: hierarchical_model(x, **kwargs), names)


class TestConditionalPosteriorOfSigma:
    @pytest.mark.parametrize("i", range(4))
    def test_conditional_posterior_of_sigma_matches_its_analytic_form(self, model_log_conditional, i):
        lo, hi = BOUNDS["sigma"]
        grid = np.geomspace(lo * 1.01, hi * 0.99, 40)
        model = np.array([model_log_conditional(s, i) for s in grid])
        exact = analytic_log_conditional(grid, i)
        # equal up to one additive constant
        np.testing.assert_allclose(model - model[20], exact - exact[20], rtol=0, atol=1e-8)
        # normalised on the prior's support by quadrature: the same conditional density and distribution
        ref = exact[20]
        z_model = integrate.quad(lambda s: np.exp(model_log_conditional(s, i) - model[20]), lo, hi, points=grid[::8],
                                 epsabs=0, epsrel=1e-10, limit=200)[0]
        z_exact = integrate.quad(lambda s: np.exp(analytic_log_conditional(s, i) - ref), lo, hi, points=grid[::8],
                                 epsabs=0, epsrel=1e-10, limit=200)[0]
        assert z_model == pytest.approx(z_exact, rel=1e-7)
        for s in grid[::5]:
            cdf_model = integrate.quad(lambda t: np.exp(model_log_conditional(t, i) - model[20]), lo, s,
                                       epsabs=0, epsrel=1e-10, limit=200)[0] / z_model
            cdf_exact = integrate.quad(lambda t: np.exp(analytic_log_conditional(t, i) - ref), lo, s,
                                       epsabs=0, epsrel=1e-10, limit=200)[0] / z_exact
            assert cdf_model == pytest.approx(cdf_exact, abs=1e-7)
        # the flat prior stops at its bounds
        assert model_log_conditional(lo * 0.99, i) == -np.inf and model_log_conditional(hi * 1.01, i) == -np.inf

    def test_a_wrong_chi_square_degrees_of_freedom_would_show(self):
        """The oracle above separates sigma^-(n-1) from sigma^-n: over the grid the two log densities differ by
        log(sigma) + const, far beyond the 1e-8 tolerance."""
        lo, hi = BOUNDS["sigma"]
        grid = np.geomspace(lo * 1.01, hi * 0.99, 40)
        exact = analytic_log_conditional(grid, 0)
        wrong = exact - np.log(grid)      # one more power of 1/sigma: n/2 in place of (n - 1)/2
        assert np.ptp((wrong - wrong[20]) - (exact - exact[20])) > 1.0

    @pytest.mark.slow
    def test_sampled_sigma_follows_its_conditional(self):
        """The same conditional by NUTS: everything but sigma fixed with pm.do (the sigma_i are then independent),
        the draws' quantiles against the analytic distribution function."""
        model = hierarchical_model(X_SIGMA, folds=FOLDS, scale=1.0, bounds=BOUNDS)
        with pm.do(model, FIXED):
            idata = pm.sample(draws=1000, tune=500, chains=2, random_seed=3, quiet=True, progressbar=False,
                              compute_convergence_checks=False)
        lo, hi = BOUNDS["sigma"]
        for i in range(4):
            draws = idata.posterior["sigma_scaled"].values[..., i]
            ref = analytic_log_conditional(np.median(draws), i)
            dens = lambda s: np.exp(analytic_log_conditional(s, i) - ref)  # noqa: E731
            total = integrate.quad(dens, lo, hi, epsabs=0, epsrel=1e-10, limit=200)[0]
            ess = float(az.ess(draws))
            for p in (0.1, 0.5, 0.9):
                q = np.quantile(draws, p)
                cdf = integrate.quad(dens, lo, q, epsabs=0, epsrel=1e-10, limit=200)[0] / total
                assert abs(cdf - p) <= 4 * np.sqrt(p * (1 - p) / ess), (i, p, cdf)
