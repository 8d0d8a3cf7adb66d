import json
import os
import subprocess
import sys
import textwrap
import warnings
from dataclasses import replace
from pathlib import Path

import arviz as az
import numpy as np
import pymc as pm
import pytest
from scipy import integrate, stats

import pp_corr
from pp_corr import correlated_ttest, poisson_test
from pp_corr.hierarchical.fit import ROBUST, check_convergence, hierarchical_test
from pp_corr.hierarchical.model import hierarchical_model
from pp_corr.hierarchical.preparation import OutlierWarning
from pp_corr.sampling import ConvergenceWarning
from pp_corr.testing import check_result
from tests.conftest import FOLDS, HIER_MODEL_BAD, HIER_TEST_BAD, HIER_X, INF, check_error, names_any, quiet


@pytest.mark.long
def test_conditional_posterior_of_delta_matches_its_analytic_form():
    x = np.random.default_rng(0).normal(0.01, 0.03, size=(4, 10))
    model = hierarchical_model(x, folds=10)
    fixed = {"delta0_scaled": 0.2, "sigma0_scaled": 0.5, "nu_minus_one": 3.0,
             "sigma_scaled": np.array([0.8, 1.0, 1.2, 0.9])}
    with pm.do(model, fixed):
        idata = pm.sample(draws=2000, chains=4, random_seed=1, quiet=True, progressbar=False)
    s = np.median(x.std(axis=1, ddof=1))  # the model's unit
    xbar = x.mean(axis=1) / s
    for i in range(4):
        c = fixed["sigma_scaled"][i] ** 2 * (0.9 / 10 + 0.1)
        dens = lambda d: stats.t.pdf(d, 4.0, 0.2, 0.5) * stats.norm.pdf(xbar[i], d, np.sqrt(c))  # noqa: E731
        total = integrate.quad(dens, -np.inf, np.inf, epsabs=0, epsrel=1e-10)[0]
        draws = idata.posterior["delta_scaled"].values[..., i]
        for p in (0.1, 0.5, 0.9):
            q = np.quantile(draws, p)
            exact_cdf = integrate.quad(dens, -np.inf, q, epsabs=0, epsrel=1e-10)[0] / total
            # the draws' quantile q must sit at probability p of the exact conditional, within MC error
            assert abs(exact_cdf - p) <= 4 * np.sqrt(p * (1 - p) / float(az.ess(draws))), (i, p, exact_cdf)


@pytest.mark.long
@pytest.mark.parametrize("a", ["nbc", "aode", "j48"])
def test_uci54_converges(uci54, a):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)  # a noisy data set's delta_i may be flagged
        res = hierarchical_test(uci54, algorithms=(a, "hnb"), rope=0.01, random_seed=2)
    assert float(az.rhat(res.idata, var_names=["delta0"])["delta0"]) <= 1.01
    assert float(az.ess(res.idata, var_names=["delta0"])["delta0"]) >= 1000
    assert int(res.idata.sample_stats.diverging.sum()) == 0
    assert f"{a} better" in repr(res) and "P(delta0 > 0)" in repr(res)
    table = res.datasets()
    assert list(table.index) == list(uci54.dataset.values)
    assert table.filter(like="hier. P").sum(axis=1).round(9).eq(1).all()
    w = res.w_distribution()
    assert w.sum().round(9).eq(1).all()
    # W counts delta_i > 0: its independent counterpart is the Poisson test without a rope
    exact = poisson_test(uci54, algorithms=(a, "hnb")).distribution.pmf()
    np.testing.assert_allclose(w["independent (Poisson-binomial)"], exact, rtol=1e-9, atol=1e-15)
    new = res.new_dataset()
    assert new.p_left + new.p_rope + new.p_right == pytest.approx(1)


ZERO_VAR = np.random.default_rng(3).normal(0.01, 0.03, size=(6, 10))
ZERO_VAR[2] = 0.05          # zero variance, non-zero mean
ZERO_VAR[4] = 0.0           # zero variance, zero mean


@pytest.fixture(scope="module")
def zero_variance_fit():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return hierarchical_test(ZERO_VAR, folds=10, rope=0.01, draws=1000, random_seed=4, names=("j48", "nbc"),
                                 retry=False, method="mcmc")


@pytest.mark.long
def test_zero_variance_keeps_its_mean(zero_variance_fit):
    res = zero_variance_fit
    delta = res.idata.posterior["delta"]
    assert float(delta.isel(dataset=2).mean()) == pytest.approx(0.05, abs=0.002)
    assert float(delta.isel(dataset=4).mean()) == pytest.approx(0.0, abs=0.002)
    ppc = res.posterior_predictive(random_seed=5)
    assert set(ppc["posterior_predictive"].data_vars) == {"mean", "sd"}
    assert float(ppc["observed_data"]["sd"].isel(dataset=2)) == 0


COLUMNS = ["a", "b", "dataset", "hier_mean", "hier_lower", "hier_upper", "hier_p_left", "hier_p_rope", "hier_p_right",
           "indep_mean", "indep_p_left", "indep_p_rope", "indep_p_right", "converged"]


@pytest.mark.long
def test_to_frame_recomputed_from_the_draws(zero_variance_fit):
    res = zero_variance_fit
    delta = res.idata.posterior["delta"].transpose("chain", "draw", "dataset").values.reshape(-1, 6)
    frame = res.to_frame()
    assert list(frame.columns) == COLUMNS
    assert frame["a"].eq("j48").all() and frame["b"].eq("nbc").all()
    assert frame["dataset"].tolist() == [f"D{i}" for i in range(1, 7)]
    np.testing.assert_allclose(frame["hier_mean"], delta.mean(axis=0), rtol=1e-12)
    np.testing.assert_allclose(frame["hier_lower"], np.quantile(delta, 0.025, axis=0), rtol=1e-12)
    np.testing.assert_allclose(frame["hier_upper"], np.quantile(delta, 0.975, axis=0), rtol=1e-12)
    np.testing.assert_allclose(frame["hier_p_left"], (delta < -0.01).mean(axis=0), rtol=0, atol=1e-15)  # j48 better
    np.testing.assert_allclose(frame["hier_p_rope"], (np.abs(delta) <= 0.01).mean(axis=0), rtol=0, atol=1e-15)
    np.testing.assert_allclose(frame["hier_p_right"], (delta > 0.01).mean(axis=0), rtol=0, atol=1e-15)
    assert frame["hier_p_right"].iloc[2] > 0.99  # D3, constant at 0.05: nbc better, the column is not swapped
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the constant data sets' point masses
        indep = correlated_ttest(ZERO_VAR, folds=10, rope=0.01)
    for column, values in (("indep_mean", indep.mean), ("indep_p_left", indep.p_left),
                           ("indep_p_rope", indep.p_rope), ("indep_p_right", indep.p_right)):
        np.testing.assert_allclose(frame[column], values, rtol=1e-12, atol=1e-15)
    assert list(res.to_frame(confidence_level=0.5).columns) == COLUMNS
    np.testing.assert_allclose(res.to_frame(confidence_level=0.5)["hier_upper"], np.quantile(delta, 0.75, axis=0), rtol=1e-12)


@pytest.mark.long
def test_to_dict_is_plain_and_recomputed_from_the_draws(zero_variance_fit):
    res = zero_variance_fit
    summary = res.to_dict()
    assert json.loads(json.dumps(summary, allow_nan=False)) == summary  # plain, strict-JSON values only
    post = res.idata.posterior
    d0, s0, nu = (post[v].values.ravel() for v in ("delta0", "sigma0", "nu"))
    assert (summary["a"], summary["b"], summary["rope"], summary["n_datasets"]) == ("j48", "nbc", [-0.01, 0.01], 6)
    assert summary["delta0_mean"] == pytest.approx(d0.mean(), rel=1e-12)
    assert [summary["delta0_lower"], summary["delta0_upper"]] == pytest.approx(np.quantile(d0, [0.025, 0.975]))
    assert summary["p_delta0_positive"] == np.mean(d0 > 0)
    # a new data set: delta_new ~ t_nu(delta0, sigma0) per draw, by scipy
    left, right = stats.t.cdf(-0.01, nu, d0, s0), stats.t.sf(0.01, nu, d0, s0)
    regions = np.column_stack([left, 1 - left - right, right])
    top = regions == regions.max(axis=1, keepdims=True)
    wins = (top / top.sum(axis=1, keepdims=True)).mean(axis=0)
    names = ("left", "rope", "right")
    assert [summary[f"p_{r}"] for r in names] == pytest.approx(regions.mean(axis=0), rel=1e-7, abs=1e-12)
    assert [summary[f"win_{r}"] for r in names] == pytest.approx(wins, rel=0, abs=1e-12)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        problems = check_convergence(res.idata)
    assert summary["convergence_problems"] == problems and summary["converged"] == (not problems)
    records = res.to_frame().drop(columns=["a", "b", "converged"]).to_dict(orient="records")
    assert summary["datasets"] == records and list(records[0]) == COLUMNS[2:-1]
    assert res.to_frame()["converged"].eq(res.converged).all()


@pytest.mark.long
def test_convergence_problems_are_kept_and_nan_is_written_as_none(zero_variance_fit):
    from dataclasses import replace

    from pp_corr.results import python_values

    failed = replace(zero_variance_fit, convergence_problems=("R-hat of delta0 is 1.2 > 1.01",),
                     attempts=({"form": "centered"}, {"form": "noncentered"}))
    # an unconverged fit is never summarised as a verdict: the diagnostics and the settings tried instead
    assert not failed.converged and "NOT CONVERGED, no verdict (2 attempt(s): form='centered'; " \
        "form='noncentered')" in repr(failed) and "R-hat of delta0 is 1.2 > 1.01" in repr(failed)
    assert "P(delta0 > 0)" not in repr(failed) and "better" not in repr(failed)
    allowed = failed.summary(allow_unconverged=True)
    assert "NOT CONVERGED (2 attempt" in allowed and allowed.endswith(zero_variance_fit.summary().split("\n", 1)[1])
    assert failed.to_dict()["converged"] is False
    assert failed.to_dict()["convergence_problems"] == ["R-hat of delta0 is 1.2 > 1.01"]
    assert python_values({"p": np.float64("nan"), "q": [float("nan"), np.int64(3)], "r": np.array([np.nan, 0.5])}) == \
        {"p": None, "q": [None, 3], "r": [None, 0.5]}


def test_bad_input():
    with pytest.raises(ValueError, match="x holds 1 data set: the hierarchical model needs at least 2"):
        hierarchical_model(np.zeros((1, 10)) + np.arange(10), folds=10)
    with pytest.raises(ValueError, match="x holds 1 data set"):
        hierarchical_model(np.arange(10.0), folds=10)
    with pytest.raises(ValueError, match="at least 2 scores"):
        hierarchical_model(np.zeros((2, 1)), folds=10)
    with pytest.raises(ValueError, match="priors"):
        hierarchical_model(np.random.default_rng(0).normal(size=(3, 5)), folds=5, priors="newest")
    with pytest.raises(ValueError,
                       match=r"rho has 4 values but x holds 3 data sets: give one value or one per data set"):
        hierarchical_model(np.random.default_rng(0).normal(size=(3, 5)), rho=np.full(4, 0.1))


@pytest.mark.parametrize("factor", [1e-170, 1e160])
def test_the_model_data_do_not_depend_on_the_magnitude(factor):
    """The sums of squares were computed in the original units: (1e-172)^2 underflowed to 0, so every data set of
    x * 1e-170 looked constant (and (1e158)^2 overflowed)."""
    x = np.random.default_rng(16).normal(0.01, 0.02, (6, 10))
    base, scaled = (hierarchical_model(v, folds=10) for v in (x, x * factor))
    for name in ("xbar_obs", "ss_obs"):
        np.testing.assert_allclose(scaled[name].get_value(), base[name].get_value(), rtol=1e-12)
    ss = ((x - x.mean(axis=1, keepdims=True)) ** 2).sum(axis=1) / np.median(x.std(axis=1, ddof=1)) ** 2
    np.testing.assert_allclose(base["ss_obs"].get_value(), ss, rtol=1e-12)


X3 = np.random.default_rng(0).normal(0.01, 0.02, size=(3, 10))
BAD_ARGUMENTS = [
    ({"scale": np.inf}, ValueError, "scale must be a finite number"),
    ({"scale": np.nan}, ValueError, "scale must be a finite number"),
    ({"scale": 0.0}, ValueError, r"scale must be in \(0, inf\]"),
    ({"scale": -1}, ValueError, r"scale must be in \(0, inf\]"),
    ({"scale": "1"}, TypeError, "scale must be a number"),
    ({"draws": 0}, ValueError, "draws must be >= 1"),
    ({"draws": 10.5}, TypeError, "draws must be a whole number"),
    ({"tune": 0}, ValueError, "tune must be >= 1"),
    ({"chains": 0}, ValueError, "chains must be >= 1"),
    ({"chains": "4"}, TypeError, "chains must be a whole number"),
    ({"target_accept": 1.0}, ValueError, r"target_accept must be in \(0, 1\)"),
    ({"target_accept": 0}, ValueError, r"target_accept must be in \(0, 1\)"),
    ({"target_accept": np.nan}, ValueError, "target_accept must be a finite number"),
    ({"bounds": [1.0, 2.0]}, TypeError, "bounds must be a dict"),
    ({"bounds": {"mu": 1.0}}, ValueError, "bounds: unknown keys"),
    ({"bounds": {"sigma": 1.0}}, ValueError, r"bounds\['sigma'\] must be a pair \(min, max\)"),
    ({"bounds": {"sigma": (0.1, 1.0, 2.0)}}, ValueError, r"bounds\['sigma'\] must be a pair"),
    ({"bounds": {"sigma": "ab"}}, ValueError, r"bounds\['sigma'\] must be a pair"),
    ({"bounds": {"sigma": (2.0, 1.0)}}, ValueError, "with min < max"),
    ({"bounds": {"sigma": (np.nan, 1.0)}}, ValueError, r"bounds\['sigma'\] min must be a finite number"),
    ({"bounds": {"sigma": (-1.0, 1.0)}}, ValueError, r"bounds\['sigma'\] min must be in \[0, inf\]"),
    ({"bounds": {"delta0": np.nan}}, ValueError, r"bounds\['delta0'\] must be a finite number"),
    ({"bounds": {"sigma0": 0.0}}, ValueError, r"bounds\['sigma0'\] must be in \(0, inf\]"),
    ({"sampler": "stan"}, ValueError, r"sampler must be one of \['pymc', 'nutpie'\], got 'stan'"),
    ({"priors": "newest"}, ValueError, r"priors must be one of \['current', 'older', 'kruschke', 'juarez_steel'\]"),
    ({"priors": {"alpha": (1, 2)}}, ValueError, "priors: a dict needs exactly the keys 'alpha' and 'beta'"),
    ({"rope": "0.01"}, TypeError, "rope"),
    ({"random_seed": -1}, ValueError, "random_seed"),
]


@pytest.mark.parametrize("kwargs, error, message", BAD_ARGUMENTS, ids=[str(a[0]) for a in BAD_ARGUMENTS])
def test_every_bad_argument_is_named_before_any_work(monkeypatch, kwargs, error, message):
    import pp_corr.hierarchical.fit as fit

    def no_work(*args, **kwargs):
        raise AssertionError("the arguments must be checked before the model is built or sampled")

    monkeypatch.setattr(fit, "_refittable", no_work)
    monkeypatch.setattr(fit, "build_hierarchical_model", no_work)
    with pytest.raises(error, match=message):
        hierarchical_test(X3, folds=10, **kwargs)
    model_kwargs = {k: v for k, v in kwargs.items() if k in ("scale", "bounds", "priors")}
    if model_kwargs:  # hierarchical_model checks its own arguments the same way
        with pytest.raises(error, match=message):
            hierarchical_model(X3, folds=10, **model_kwargs)


def test_good_bounds_and_numpy_arguments_are_accepted():
    model = hierarchical_model(X3, folds=10, scale=np.float64(0.02),
                               bounds={"delta0": np.float32(1.0), "sigma": np.array([0.1, 5.0])})
    assert np.isfinite(model.compile_logp()(model.initial_point()))


@pytest.mark.long
def test_fixed_bounds_and_scale_make_the_prior_independent_of_the_data():
    bounds = {"delta0": 2.0, "sigma0": 3.0, "sigma": (0.1, 5.0)}
    rng = np.random.default_rng(0)
    models = [hierarchical_model(rng.normal(loc, sd, (4, 10)), folds=10, scale=1.0, bounds=bounds)
              for loc, sd in ((0, 1), (5, 0.01))]
    point = {"delta0_scaled_chain__": 0.3, "sigma0_scaled_interval__": -0.2, "nu_minus_one_log__": 1.0,
             "delta_scaled": np.zeros(4),
             "sigma_scaled_interval__": np.zeros(4)}
    # without the likelihood the two models' densities are equal: same prior whatever the data
    priors = [m.compile_logp(vars=m.free_RVs)(point) for m in models]
    assert priors[0] == pytest.approx(priors[1], rel=1e-12)
    with pytest.raises(ValueError, match="unknown keys"):
        hierarchical_model(rng.normal(size=(3, 5)), folds=5, bounds={"mu": 1})


def test_convergence_warning_names_the_failing_data_set():
    from pp_corr.hierarchical.fit import check_convergence

    rng = np.random.default_rng(0)
    delta = rng.normal(size=(4, 500, 3))
    delta[:2, :, 1] += 3.0  # chains disagree on the second data set only
    idata = az.from_dict({"posterior": {"delta0": rng.normal(size=(4, 500)), "sigma0": rng.normal(size=(4, 500)),
                                        "nu": rng.normal(size=(4, 500)), "delta": delta},
                          "sample_stats": {"diverging": np.zeros((4, 500), dtype=bool)}},
                         dims={"delta": ["dataset"]}, coords={"dataset": ["iris", "wine", "zoo"]})
    with pytest.warns(ConvergenceWarning) as record:
        problems = check_convergence(idata)
    assert [p.split(" is ")[0] for p in problems] == ["R-hat of delta[wine]", "bulk ESS of delta[wine]"]
    assert "delta[wine]" in str(record[0].message)
    idata["sample_stats"]["diverging"][0, :3] = True
    with pytest.warns(ConvergenceWarning, match="3 divergent transitions"):
        check_convergence(idata)


# ---- an absurd outlier --------------------------------------------------------------------------------------------

def with_outlier():
    """20 data sets x 10 folds around 0.003 (so P(delta0 > 0) is far from 0 and 1), one fold of D4 set to 1e6."""
    x = np.random.default_rng(0).normal(0.003, 0.02, (20, 10))
    x[3, 4] = 1e6
    return x


@pytest.mark.long
@pytest.mark.parametrize("sampler", ["pymc", "nutpie"])
def test_an_absurd_outlier_neither_sets_the_unit_nor_flips_the_answer(sampler):
    """With the mean sd as the unit, one fold of 1e6 made s ~ 1.6e4 and the sigma_i floor 160: every other data
    set looked constant and P(delta0 > 0) fell from about 0.9 to about 0.5. With a common sigma_i bound, or
    chains started in the middle of the priors' (now huge) ranges, chains stuck where sigma0 ~ 1e7."""
    x = with_outlier()
    fits = {}
    for name, data in (("outlier", x), ("without", np.delete(x, 3, axis=0))):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            # the form the policy ends on (the centred first fit has sigma0's funnel on 20 data sets and is
            # retried): fitting it directly tests the unit and the start without the failing fit (a third the time)
            fits[name] = hierarchical_test(data, folds=10, random_seed=1, sampler=sampler, method="mcmc",
                                           retry=False, **ROBUST | {"draws": 1000, "tune": 1000})
        far = [str(w.message) for w in caught if issubclass(w.category, OutlierWarning)]
        if name == "outlier":
            assert len(far) == 1 and "data set 'D4': its sd 3.16e+05 is" in far[0], far
            assert far[0].count("data set '") == 1  # only D4
        else:
            assert far == []
        # chains no longer stick where sigma0 ~ 1e7: delta0 and sigma0 converge (nu, barely informed by 20 data
        # sets, may still be flagged; method="mcmc", as the exact fallback would hide the MCMC's problems)
        assert not [p for p in fits[name].convergence_problems if "delta0" in p or "sigma0" in p or "diverg" in p]
    p, se2 = {}, 0.0
    for name, res in fits.items():
        positive = (res.idata.posterior["delta0"] > 0).values.astype(float)
        p[name] = positive.mean()
        se2 += p[name] * (1 - p[name]) / float(az.ess(positive))
    assert 0.5 < p["without"] < 0.99  # not at an edge, so the comparison has power
    assert abs(p["outlier"] - p["without"]) <= 4 * np.sqrt(se2), (p, np.sqrt(se2))
    mcse = [float(az.mcse(r.idata, var_names=["delta0"])["delta0"]) for r in fits.values()]
    assert abs(fits["outlier"].delta0.mean() - fits["without"].delta0.mean()) <= 4 * np.hypot(*mcse)


def test_the_priors_cover_the_outlier_and_the_unit_ignores_it():
    x = with_outlier()
    with pytest.warns(OutlierWarning, match="'D4'"):
        model = hierarchical_model(x, folds=10)
    sd = x.std(axis=1, ddof=1)
    s = float(np.median(sd))
    np.testing.assert_allclose(model["xbar_obs"].get_value(), x.mean(axis=1) / s, rtol=1e-12)
    # the prior of every sigma_i reaches 100 times its data set's sd, D4's 3e5 included; delta0's reaches max |x|
    sigma_prior = pm.logp(model["sigma_scaled"], 100 * sd / s).eval()
    assert np.isfinite(sigma_prior).all(), sigma_prior
    assert np.isfinite(pm.logp(model["delta0_scaled"], 0.999 * 1e6 / s).eval())
    assert pm.logp(model["delta0_scaled"], 1.001 * 1e6 / s).eval() == -np.inf


def test_the_unit_when_most_or_all_data_sets_are_constant():
    rng = np.random.default_rng(1)
    x = rng.normal(0.01, 0.02, (5, 10))
    x[[0, 1, 2]] = [[0.0], [0.02], [-0.01]]  # three of five constant: the median sd is 0
    model = hierarchical_model(x, folds=10)
    s = np.median(x[3:].std(axis=1, ddof=1))  # the median of the non-zero sds
    np.testing.assert_allclose(model["xbar_obs"].get_value(), x.mean(axis=1) / s, rtol=1e-12)
    constant = np.array([[0.0] * 4, [0.02] * 4, [-0.04] * 4, [0.01] * 4])  # all constant: the median non-zero |mean|
    model = hierarchical_model(constant, folds=4)
    np.testing.assert_allclose(model["xbar_obs"].get_value(), constant[:, 0] / 0.02, rtol=1e-12)


def test_a_far_out_mean_is_named_and_real_data_raise_no_outlier_warning(uci54):
    x = np.random.default_rng(2).normal(0.01, 0.02, (8, 10))
    x[5] = 50.0  # constant and far out: a mean, not an sd, gives it away
    with pytest.warns(OutlierWarning, match=r"data set 'D6': its mean 50 is .* times further from the median"):
        hierarchical_model(x, folds=10)
    with warnings.catch_warnings():
        warnings.simplefilter("error", OutlierWarning)
        hierarchical_model(np.delete(x, 5, axis=0), folds=10)
        for pair in (("nbc", "hnb"), ("j48", "j48gr")):  # j48/j48gr: 14 of 54 data sets have zero variance
            hierarchical_model(uci54, algorithms=pair)


# ---- a fit in a fresh process: reproducible with a cold or warm cache, no stray files, a clean stdout -------------

FIT_SCRIPT = textwrap.dedent("""
    import sys, warnings
    import numpy as np
    from pp_corr.hierarchical.fit import hierarchical_test
    warnings.simplefilter("ignore")
    x = np.random.default_rng(0).normal(0.02, 0.02, (5, 10))
    res = hierarchical_test(x, folds=10, draws=100, tune=100, chains=2, random_seed=1, sampler=sys.argv[2], retry=False,
                            progressbar=True, method="mcmc")
    np.save(sys.argv[1], res.idata.posterior["delta"].values)
""")


@pytest.fixture(scope="module", params=["pymc", "nutpie"])
def fresh_fits(request, tmp_path_factory):
    """The same seeded fit run twice, each in a new process, sharing a PyTensor cache that starts empty (the
    Numba cache lives under base_compiledir, so compiledir alone would not empty it), each with its own empty
    temporary directory."""
    root = tmp_path_factory.mktemp(f"fresh_{request.param}")
    env = {**os.environ, "PYTENSOR_FLAGS": f"base_compiledir={root / 'pytensor'}",
           "PYTHONPATH": os.pathsep.join([str(Path(__file__).resolve().parents[1]), os.environ.get("PYTHONPATH", "")])}
    runs = []
    for label in ("cold", "warm"):
        tmp = root / f"tmp_{label}"
        tmp.mkdir()
        out = root / f"{label}.npy"
        done = subprocess.run([sys.executable, "-c", FIT_SCRIPT, str(out), request.param], capture_output=True,
                              env={**env, "TMPDIR": str(tmp)}, timeout=600)
        assert done.returncode == 0, done.stderr.decode()[-3000:]
        runs.append({"draws": np.load(out), "stdout": done.stdout, "stderr": done.stderr.decode(),
                     "left in tmp": sorted(p.name for p in tmp.iterdir())})
    return runs


@pytest.mark.long
def test_a_seeded_fit_gives_the_same_draws_with_a_cold_and_a_warm_cache(fresh_fits):
    """With Numba's fast-math, the code compiled on the first run and the code loaded from the cache later
    differed in the last bits of the log density, and so did every draw after a few iterations."""
    cold, warm = fresh_fits
    assert cold["draws"].shape == (2, 100, 5)
    np.testing.assert_array_equal(cold["draws"], warm["draws"])


@pytest.mark.long
def test_a_fit_leaves_no_generated_source_in_the_temporary_directory(fresh_fits):
    """PyTensor wrote ~30 tmp* files of generated Numba source per fit to the temporary directory and never removed
    them."""
    for run in fresh_fits:
        assert run["left in tmp"] == []


@pytest.mark.long
def test_the_progress_bar_goes_to_stderr(fresh_fits):
    for run in fresh_fits:
        assert run["stdout"] == b""
        assert "━" in run["stderr"]  # the bar itself


@pytest.mark.long
def test_an_unconverged_fit_is_retried_once_with_the_robust_settings_then_says_so():
    from pp_corr.hierarchical.fit import DEFAULT, ROBUST

    x = np.random.default_rng(5).normal(0.02, 0.02, (4, 10))
    short = {"draws": 60, "tune": 60, "chains": 2, "random_seed": 1, "method": "mcmc"}  # bulk ESS < 400
    with pytest.warns(ConvergenceWarning, match=r"did not converge \(2 attempt\(s\), last with form=") as record:
        res = hierarchical_test(x, folds=10, **short)
    assert len(record) == 1  # one warning for the result, none for the first attempt
    given = {"draws": 60, "tune": 60}  # what the caller set is kept in both attempts
    assert res.attempts == ({**DEFAULT, **given}, {**ROBUST, **given}) and DEFAULT != ROBUST
    assert not res.converged and any("bulk ESS of delta0" in p for p in res.convergence_problems)
    with pytest.warns(ConvergenceWarning, match=r"\(1 attempt\(s\)"):
        once = hierarchical_test(x, folds=10, retry=False, target_accept=0.8, **short)
    assert once.attempts == ({**DEFAULT, **given, "target_accept": 0.8},)
    every = {**ROBUST, **given}  # the caller set every setting: a retry would repeat the fit
    with pytest.warns(ConvergenceWarning, match=r"\(1 attempt\(s\)"):
        assert hierarchical_test(x, folds=10, **{**short, **every}).attempts == (every,)


@pytest.mark.parametrize("kwargs, message", [({"form": "centred"}, "form must be one of"),
                                             ({"tune": 0}, "tune"), ({"draws": 1.5}, "draws"),
                                             ({"target_accept": 1.0}, "target_accept")])
def test_fit_settings_are_checked(kwargs, message):
    with pytest.raises((ValueError, TypeError), match=message):
        hierarchical_test(np.zeros((3, 10)), folds=10, **kwargs)


@pytest.mark.slow
def test_the_marginal_form_gives_the_centred_posterior():
    """Centred and marginal (delta_i integrated out, then drawn from its exact conditional normal) are one model:
    delta0, sigma0, nu and every delta_i agree within 4 Monte Carlo standard errors. (The non-centred form has
    divergences on such data, where each data set's folds pin its delta_i.)"""
    rng = np.random.default_rng(8)  # 12 data sets, each locating its delta_i: no funnel, every form mixes
    x = rng.normal(0.01, 0.03, (12, 1)) + rng.normal(0, 0.01, (12, 10))
    fits = {}
    for form in ("centered", "marginal"):
        fits[form] = hierarchical_test(x, folds=10, form=form, draws=2000, target_accept=0.95, random_seed=3,
                                       retry=False, method="mcmc")
        assert fits[form].converged, (form, fits[form].convergence_problems)
    names = ["delta0", "sigma0", "nu", "delta"]
    summary = {form: (res.idata.posterior.to_dataset()[names].mean(("chain", "draw")),
                      az.mcse(res.idata, var_names=names)) for form, res in fits.items()}
    (base_mean, base_se), (mean, se) = summary["centered"], summary["marginal"]
    for name in names:
        gap = np.abs(mean[name] - base_mean[name]) / np.sqrt(se[name] ** 2 + base_se[name] ** 2)
        assert float(gap.max()) <= 4, (name, gap.values)


@pytest.mark.long
def test_the_default_is_the_exact_posterior_and_refuses_mcmc_settings():
    """method="auto" (the default) computes the exact posterior where the model has one: the result says so, holds
    chains x draws independent draws and gives its verdict; an MCMC setting is an error that says how to sample."""
    x = np.random.default_rng(5).normal(0.02, 0.02, (4, 10))
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        res = hierarchical_test(x, folds=10, draws=60, chains=2, random_seed=1)
    assert res.converged and res.method == "exact" and len(res.attempts) == 1
    assert res.attempts[0]["method"] == "exact quadrature" and res.attempts[0]["max_error"] < 0.01
    assert res.idata.posterior["delta"].shape == (2, 60, 4)  # chains x draws, as asked
    assert "posterior by exact quadrature" in res.summary() and "P(delta0 > 0)" in res.summary()
    for setting in ({"tune": 100}, {"form": "marginal"}, {"target_accept": 0.9}):
        with pytest.raises(ValueError, match=f"{next(iter(setting))}: MCMC settings.*method='mcmc'"):
            hierarchical_test(x, folds=10, **setting)


@pytest.mark.long
def test_the_exact_posterior_draws_when_first_used():
    """The summary, decision and a new data set's probabilities of an exact posterior are the quadrature's and make
    no draws; ``idata`` then makes them: the draws exact_draws gives for the seed, the same after pickling (a Dask
    worker's result), and the summary's delta0 numbers within Monte Carlo error of theirs."""
    import cloudpickle  # as Dask ships results (the pm.Model does not pickle with pickle alone)

    from pp_corr.hierarchical.exact import exact_draws
    from pp_corr.hierarchical.fit import exact_arguments

    x = np.random.default_rng(5).normal(0.02, 0.02, (6, 10))
    res = hierarchical_test(x, folds=10, draws=500, chains=2, random_seed=3)
    text, decision, new = res.summary(), res.decision(), res._regions()
    assert not res.tree.made and decision == new.decision(0.05)
    assert (new.p_rope, new.win_rope) == (res.quadrature["p_rope"], res.quadrature["win_rope"])
    shipped = cloudpickle.loads(cloudpickle.dumps(res))
    delta0 = res.idata.posterior["delta0"].values.ravel()
    args, kwargs = exact_arguments(res.data, "current", {}, res.rope)
    _, values = exact_draws(*args, **kwargs, draws=1000, random_seed=3)
    np.testing.assert_array_equal(delta0, values["delta0"] * res.data.scale)
    np.testing.assert_array_equal(shipped.idata.posterior["delta"].values, res.idata.posterior["delta"].values)
    assert replace(res, rope=(-0.1, 0.1)).idata is res.idata  # a copy shares the draws
    mean, lo, hi = (res.quadrature[name] for name in ("delta0_mean", "delta0_q025", "delta0_q975"))
    assert f"mean {mean:+.4f}, 95% [{lo:+.4f}, {hi:+.4f}]" in text
    assert abs(delta0.mean() - mean) < 4 * delta0.std() / np.sqrt(len(delta0))
    assert lo < np.quantile(delta0, 0.1) and np.quantile(delta0, 0.9) < hi


@pytest.mark.slow
@pytest.mark.parametrize("population, priors", [("student_t", "current"), ("normal", "current"),
                                                ("student_t", "kruschke")])
def test_the_exact_method_agrees_with_a_converged_fit(population, priors):
    """Where MCMC converges, method="exact" (quadrature, iid draws) gives its numbers within 4 Monte Carlo
    standard errors, for either population and a prior of nu given as a law: the scaling to the model's unit, the
    rope and the draws' shapes are right."""
    x = np.random.default_rng(0).normal(0.02, 0.02, (6, 10))
    exact = hierarchical_test(x, folds=10, method="exact", random_seed=1, population=population, priors=priors)
    # the fit the policy ends on here (the centred first fit has sigma0's funnel on 6 data sets), without the failing
    # one: a third of the time
    fit = hierarchical_test(x, folds=10, method="mcmc", random_seed=1, retry=False, population=population,
                            priors=priors, **ROBUST | {"draws": 1000, "tune": 1000})
    assert fit.converged and fit.method == "mcmc" and exact.method == "exact"
    assert ("nu" in exact.idata.posterior) == ("nu" in fit.idata.posterior) == (population == "student_t")

    def quantities(res):
        post = res.idata.posterior
        d0, s0 = (post[v].values for v in ("delta0", "sigma0"))
        nu = post["nu"].values if "nu" in post else np.inf
        lo, hi = res.rope
        left, right = stats.t.cdf((lo - d0) / s0, nu), stats.t.sf((hi - d0) / s0, nu)
        values = {"delta0": d0, "P(delta0>0)": (d0 > 0).astype(float), "p_left": left, "p_right": right,
                  "delta[0]": post["delta"].values[..., 0]}
        return values | ({"P(nu<5)": (nu < 5).astype(float)} if "nu" in post else {})

    ours, theirs = quantities(exact), quantities(fit)
    for name in ours:
        tree = az.from_dict({"posterior": {"v": theirs[name]}})
        se_fit = float(az.mcse(tree)["v"])
        se_exact = ours[name].std() / np.sqrt(ours[name].size)
        gap = abs(ours[name].mean() - theirs[name].mean()) / np.hypot(se_fit, se_exact)
        assert gap < 4, (name, gap)


@pytest.mark.long
def test_a_pair_uses_the_data_sets_where_both_have_scores_and_says_which_it_left_out():
    """A data set where B was not run is left out (named in the summary and to_dict), a data set with two failed
    folds keeps the other folds: the answer is, draw for draw, the one on those data sets and folds alone."""
    scores = pp_corr.load_scores(pp_corr.example_path())
    a, b = "naive_bayes", "logistic"
    gappy = scores.copy()
    gappy["score"] = scores.score.where(~((scores.dataset == "breast_cancer") & (scores.algorithm == b)))
    gappy["score"] = gappy.score.where(~((gappy.dataset == "iris") & (gappy.algorithm == b) & (gappy.run == 1)
                                         & gappy.fold.isin([2, 5])))
    options = {"algorithms": (a, b), "draws": 100, "chains": 2, "random_seed": 1}
    res = hierarchical_test(gappy, **options)
    alone = hierarchical_test(gappy.sel(dataset=["iris", "wine", "digits"]), **options)
    assert res.left_out == ("breast_cancer",) and list(res.data.datasets) == ["iris", "wine", "digits"]
    assert res.data.n.tolist() == [98, 100, 100]
    np.testing.assert_array_equal(res.idata.posterior["delta"].values, alone.idata.posterior["delta"].values)
    assert f"left out: 1 data set where {a} and {b} do not both have scores: breast_cancer" in res.summary()
    assert res.to_dict()["left_out"] == ["breast_cancer"] and alone.to_dict()["left_out"] == []


# --- bad and extreme inputs: refused by name, or the documented answer (issue #10); independent oracles (issue #19) ---


class TestHierarchicalTestArguments:
    @pytest.mark.parametrize("label", sorted(HIER_TEST_BAD) + ["scale=inf", "bounds sigma not a pair"])
    def test_hierarchical_test_refuses_bad_parameters(self, label):
        from pp_corr import hierarchical_test

        kwargs, names = {**HIER_TEST_BAD, **HIER_MODEL_BAD}[label]
        small = {"draws": 20, "tune": 20, "chains": 1, "random_seed": 0, "folds": 10}
        check_error(lambda: hierarchical_test(HIER_X, **{**small, **kwargs}), names)

    def test_regression_hierarchical_scale_draws_bounds(self):
        """scale=inf, draws=0 and bounds of the wrong form: each a ValueError naming it (no fit)."""
        from pp_corr import hierarchical_model, hierarchical_test

        check_error(lambda: hierarchical_model(HIER_X, folds=10, scale=INF), ("scale",))
        check_error(lambda: hierarchical_model(HIER_X, folds=10, bounds={"sigma": 5.0}), ("bounds", "sigma"))
        check_error(lambda: hierarchical_model(HIER_X, folds=10, bounds=(1, 2)), ("bounds",))
        check_error(lambda: hierarchical_test(HIER_X, folds=10, draws=0, tune=20, chains=1, random_seed=0), ("draws",))


class TestHierarchicalTestExtremes:
    @pytest.mark.slow
    def test_regression_magnitude_hierarchical(self):
        """The hierarchical test on x * 1e-170 (rope scaled too) gives the answer of x."""
        from pp_corr import hierarchical_test

        x = np.random.default_rng(16).normal(0.01, 0.02, (6, 10))
        kwargs = {"folds": 10, "draws": 500, "chains": 2, "random_seed": 3}  # the default: the exact posterior
        base = quiet(hierarchical_test, x, rope=0.01, **kwargs)
        assert isinstance(base, pp_corr.HierarchicalResult)
        for scale in (1e-170, 1e160):
            res = quiet(hierarchical_test, x * scale, rope=0.01 * scale, **kwargs)
            assert abs(res.p_delta0_positive - base.p_delta0_positive) < 0.03, (scale, res.p_delta0_positive,
                                                                                base.p_delta0_positive)
            assert abs(res.new_dataset().p_right - base.new_dataset().p_right) < 0.03

    @pytest.mark.slow
    def test_regression_hierarchical_outlier(self):
        """One absurd outlier (1e6 among 200 differences) flipped P(delta0 > 0) from 1.000 to 0.48 with only a generic
        warning: the answer stays, or a warning names the data set that dominates."""
        from pp_corr import ConvergenceWarning, OutlierWarning, hierarchical_test

        x = np.random.default_rng(17).normal(0.02, 0.01, (20, 10))
        x[6, 4] = 1e6
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            res = hierarchical_test(x, folds=10, draws=500, tune=500, chains=2, random_seed=1, retry=False,
                                    method="mcmc")
        # a generic convergence warning may list delta[D7] among others: an OutlierWarning must name D7
        named = [str(w.message) for w in caught if issubclass(w.category, OutlierWarning)
                 and names_any(str(w.message), ("D7",))]
        assert res.p_delta0_positive > 0.95 and named, (res.p_delta0_positive, [str(w.message) for w in caught])
        # the result says whether it converged exactly when a ConvergenceWarning was (or was not) given
        warned = any(issubclass(w.category, ConvergenceWarning) for w in caught)
        assert res.converged is not warned


class TestNewDatasetProbabilities:
    @pytest.mark.long
    def test_new_dataset_probabilities_from_the_posterior_draws(self):
        x = np.random.default_rng(0).normal(0.01, 0.02, (6, FOLDS))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)   # a short fit; the draws are what we check against
            res = hierarchical_test(x, folds=FOLDS, rope=0.01, draws=300, tune=300, chains=2,
                                    form="noncentered", retry=False, method="mcmc",
                                    target_accept=0.95, random_seed=1)
        post = res.idata.posterior
        delta0, sigma0, nu = (post[v].values.ravel() for v in ("delta0", "sigma0", "nu"))
        lo, hi = res.rope
        assert (lo, hi) == pytest.approx((-0.01, 0.01))
        # delta_new ~ Student-t(nu, delta0, sigma0), per draw
        left = stats.t.cdf(lo, nu, delta0, sigma0)
        right = stats.t.sf(hi, nu, delta0, sigma0)
        regions = np.column_stack([left, 1 - left - right, right])
        top = regions == regions.max(axis=1, keepdims=True)
        wins = (top / top.sum(axis=1, keepdims=True)).mean(axis=0)
        new = res.new_dataset()
        means = regions.mean(axis=0)
        # the three regions differ clearly, so a swap of any two cannot pass
        assert min(abs(means[0] - means[1]), abs(means[1] - means[2]), abs(means[0] - means[2])) > 0.05, means
        assert min(abs(wins[0] - wins[1]), abs(wins[1] - wins[2]), abs(wins[0] - wins[2])) > 0.05, wins
        np.testing.assert_allclose([new.p_left, new.p_rope, new.p_right], means, rtol=1e-7, atol=1e-10)
        np.testing.assert_allclose([new.win_left, new.win_rope, new.win_right], wins, rtol=0, atol=1e-12)
        # draw by draw (the order of the draws aside)
        np.testing.assert_allclose(np.sort(new.samples, axis=0), np.sort(regions, axis=0), rtol=1e-7, atol=1e-10)


@pytest.mark.long
class TestHierarchicalResultProtocol:
    """The Result methods of a fit (the module's MCMC fixture: no cheaper HierarchicalResult exists)."""

    def test_contract(self, zero_variance_fit):
        check_result(zero_variance_fit)

    def test_frame_numbers_are_the_datasets(self, zero_variance_fit):
        res = zero_variance_fit
        frame, shrunk = res.to_frame(), res.datasets()
        np.testing.assert_array_equal(frame["hier_mean"], shrunk["hier. mean"])
        np.testing.assert_array_equal(frame["indep_p_right"], shrunk["indep. P(nbc better)"])

    @pytest.mark.parametrize("alpha", [0.05, 0.6])
    def test_decision_is_the_new_data_sets(self, zero_variance_fit, alpha):
        res = zero_variance_fit
        new = res.new_dataset()
        wins = {"j48": new.win_left, "rope": new.win_rope, "nbc": new.win_right}
        best = max(wins, key=wins.get)
        want = best if wins[best] > 1 - alpha and res.converged else "none"
        assert res.decision(alpha) == want
        if res.converged:
            assert f"decision at alpha = {alpha:g}: {want} (" in res.summary(alpha=alpha)
        with pytest.raises(ValueError, match="^alpha must"):
            res.decision(alpha=-alpha)
