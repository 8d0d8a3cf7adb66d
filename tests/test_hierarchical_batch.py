"""Hierarchical batches (#12 item 3): one compiled model refitted to new data, and hierarchical_tests over pairs.

The oracle of the log density is the model written out here with scipy (priors, likelihood, the chi-square term of
the sums of squares and each transform's Jacobian), independent of the PyMC graph; equality of results is draw for
draw, as both paths run the same compiled log density under the same seed.
"""
from __future__ import annotations

import numpy as np
import pytest
import xarray as xr

import pp_corr.hierarchical.fit as fit
import pp_corr.hierarchical.model as hier
from pp_corr.hierarchical.batch import check_pairs, hierarchical_tests
from pp_corr.hierarchical.fit import hierarchical_test
from pp_corr.hierarchical.model import build_hierarchical_model
from pp_corr.hierarchical.preparation import OutlierWarning, model_values, prepare_hierarchical
from tests.conftest import written_out_logp

Q = 6  # data sets in every case: one compiled model serves them all
RNG_SEED = 20261124


def scores_dataset(means, sd, rng, *, names=None, rho=0.1, drop=()):
    """A scores Dataset of algorithms whose per-fold scores are 0.8 + means + noise on Q data sets (10 runs x 10
    folds; ``means`` per algorithm, or per data set and algorithm); ``drop``: (data set, runs) left missing, so
    data sets have different numbers of folds."""
    means = np.broadcast_to(means, (Q, np.shape(means)[-1]))  # per algorithm, or per data set and algorithm
    score = 0.8 + means[:, :, None, None] + rng.normal(0, sd, (Q, means.shape[1], 10, 10))
    for dataset, runs in drop:
        score[dataset, :, runs] = np.nan
    return xr.Dataset({"score": (("dataset", "algorithm", "run", "fold"), score),
                       "rho": ("dataset", np.broadcast_to(rho, (Q,)).astype(float))},
                      coords={"dataset": names or [f"set{i}" for i in range(Q)],
                              "algorithm": [f"alg{k}" for k in range(means.shape[1])]})


def cases():
    """Data of Q data sets each: regular (10 x 10 folds), one data set far out, ragged n_i with rho_i of their own."""
    rng = np.random.default_rng(RNG_SEED)
    regular = prepare_hierarchical(rng.normal(0.01, 0.02, (Q, 100)), None, None, None, None, None, runs=10)
    far = rng.normal(0.01, 0.02, (Q, 10))
    far[2] = far[2] * 1e4 + 50
    with pytest.warns(OutlierWarning):
        far_out = prepare_hierarchical(far, None, None, None, 10, None)
    ragged = scores_dataset([0.0, 0.02], 0.03, rng, rho=np.linspace(0.05, 0.3, Q), drop=[(0, slice(0, 3)),
                                                                                        (4, slice(6, 10))])
    ragged = prepare_hierarchical(ragged, None, None, None, None, ("alg0", "alg1"))
    assert len(set(ragged.n)) == 3 and len(set(ragged.rho)) == Q
    return {"regular": regular, "far out": far_out, "ragged": ragged}


VARIANTS = [("centered", "student_t"), ("noncentered", "student_t"), ("marginal", "student_t"), ("centered", "normal")]


@pytest.mark.parametrize("form, population", VARIANTS)
def test_one_compiled_log_density_equals_the_written_out_model_on_every_data(form, population):
    """Built and compiled on the first case, given each case's data by pm.set_data: the log density equals the
    model written out with that case's statistics and limits (1e-12 relative) at random points, far-out data set
    and ragged n_i / rho_i included. (Compiled without optimisations: the same graph, in seconds.)"""
    data = cases()
    model = build_hierarchical_model(data["regular"], "kruschke", form, population=population)
    logp = model.compile_logp(mode="FAST_COMPILE")
    shapes = {name: np.shape(value) for name, value in model.initial_point().items()}
    rng = np.random.default_rng(RNG_SEED)
    for name, case in data.items():
        hier.pm.set_data(model_values(case, None), model=model)
        for _ in range(3):
            point = {v: rng.normal(0, 1.5, shape) for v, shape in shapes.items()}
            expected = written_out_logp(model_values(case, None), point, form, population)
            assert float(logp(point)) == pytest.approx(expected, rel=1e-12), name


def test_the_prior_limits_and_unit_follow_the_data():
    """The limits, the unit and the statistics are data containers: a model built on one case and given another's
    values holds exactly the values a model built on that other case holds (so nothing data-dependent stayed a
    constant of the first case's graph)."""
    regular, far_out, _ = cases().values()
    model = build_hierarchical_model(regular, "current")
    hier.pm.set_data(model_values(far_out, None), model=model)
    fresh = build_hierarchical_model(far_out, "current")
    for name in model_values(far_out, None):
        np.testing.assert_array_equal(model[name].get_value(), fresh[name].get_value())
    assert far_out.scale != regular.scale and model_values(far_out, None)["delta0_max"] > 1e3


def algorithms3(rng):
    """Three algorithms on Q data sets: alg1 better than alg0 by 0.03 on average over the data sets, alg2 worse by
    0.03 (their differences spread over the data sets with sd 0.02, so sigma0 is far from 0: no funnel)."""
    return scores_dataset(np.array([0.0, 0.03, -0.03]) + rng.normal(0, 0.02, (Q, 3)), 0.02, rng)


FAST = {"draws": 200, "tune": 300, "chains": 2, "method": "mcmc", "retry": False}


def same_draws(a, b):
    for name in ("delta0", "sigma0", "nu", "delta"):
        np.testing.assert_array_equal(a.idata.posterior[name].values, b.idata.posterior[name].values)


@pytest.mark.slow
# 200 draws: the numbers, no verdict
@pytest.mark.filterwarnings("ignore::pp_corr.sampling.ConvergenceWarning")
def test_one_model_fits_each_pair_its_own_posterior_with_the_draws_of_hierarchical_test(monkeypatch):
    """pymc sampler (three fits, each compiling PyMC's function again: about 10 s each). The batch fits two pairs
    with opposite differences, on data sets of different names, on one model: each posterior is its own (delta0
    near its pair's mean difference, its data sets' names, its statistics in the DataTree's constant and observed
    data). hierarchical_test on the second pair alone, its model built afresh, gives the same draws."""
    rng = np.random.default_rng(RNG_SEED + 1)
    scores = xr.concat([algorithms3(rng), algorithms3(rng).assign_coords(dataset=[f"other{i}" for i in range(Q)])],
                       "dataset")
    first, second = (scores.isel(dataset=slice(k * Q, (k + 1) * Q)) for k in range(2))
    monkeypatch.setattr(fit, "_COMPILED", {})
    results = [hierarchical_tests(first, [("alg0", "alg1")], random_seed=2, progressbar=False, **FAST)["alg0", "alg1"],
               hierarchical_tests(second, [("alg0", "alg2")], random_seed=2, progressbar=False, **FAST)["alg0", "alg2"]]
    assert len(fit._COMPILED) == 1
    for result, data, pair, sign in zip(results, (first, second), (("alg0", "alg1"), ("alg0", "alg2")), (1, -1)):
        mean_difference = float((data.score.sel(algorithm=pair[1]) - data.score.sel(algorithm=pair[0])).mean())
        # the posterior mean of delta0 within 5 of its sds of the pair's own mean difference, and of its sign
        assert abs(result.delta0.mean() - mean_difference) < 5 * result.delta0.std()
        assert np.sign(result.delta0.mean()) == sign
        assert list(result.idata.posterior["dataset"].values) == list(data["dataset"].values)
        assert list(result.idata.observed_data["dataset"].values) == list(data["dataset"].values)
        np.testing.assert_allclose(result.idata.observed_data["xbar"].values, result.data.mean / result.data.scale,
                                   rtol=1e-14)
        assert float(result.idata.constant_data["unit"]) == result.data.scale
    monkeypatch.setattr(fit, "_COMPILED", {})
    same_draws(results[1], hierarchical_test(second, algorithms=("alg0", "alg2"), random_seed=2, **FAST))


def test_compiled_models_are_kept_by_shape_and_the_least_recent_dropped(monkeypatch):
    """One model per (q, priors, form, population, delta0 prior, sampler): the same shape reuses it, another q or
    form builds another; beyond COMPILED_MODELS the least recently used goes."""
    monkeypatch.setattr(fit, "_COMPILED", {})
    monkeypatch.setattr(fit, "COMPILED_MODELS", 2)
    rng = np.random.default_rng(RNG_SEED)
    six, other_six = (prepare_hierarchical(rng.normal(0, 1, (Q, 10)), None, None, None, 10, None) for _ in range(2))
    four = prepare_hierarchical(rng.normal(0, 1, (4, 10)), None, None, None, 10, None)

    def get(data, form="centered"):
        return fit._refittable(data, "current", form, None, "student_t", None, "pymc")

    model = get(six)
    assert get(other_six) is model and get(four) is not model
    get(six, "marginal")  # a third: the least recently used (q = 6 centred, before q = 4) goes
    assert len(fit._COMPILED) == 2 and get(four) is get(four) and get(six) is not model


def test_bad_input_is_named_before_any_fit(monkeypatch):
    scores = algorithms3(np.random.default_rng(RNG_SEED))
    monkeypatch.setattr(fit, "hierarchical_test", lambda *a, **k: pytest.fail("fitted before checking"))
    bad = [((scores.score.values,), {}, TypeError, "scores must be a scores Dataset"),
           ((scores, "alg0 alg1"), {}, TypeError, "pairs must be a list of"),
           ((scores, 3), {}, TypeError, "pairs must be a list of"),
           ((scores, [("alg0", "alg1", "alg2")]), {}, ValueError, r"pairs: each pair must be two algorithms"),
           ((scores, ["alg0"]), {}, ValueError, r"pairs: each pair must be two algorithms"),
           ((scores, [("alg0", "svm")]), {}, ValueError, r"pairs: 'svm' not among the algorithms \['alg0'"),
           ((scores, [("alg1", "alg1")]), {}, ValueError, "pairs: a pair needs two different algorithms"),
           ((scores, [("alg0", "alg1"), ("alg1", "alg0")]), {}, ValueError, r"pairs: \('alg1', 'alg0'\) is given"),
           ((scores, []), {}, ValueError, "pairs is empty"),
           ((scores,), {"algorithms": ("alg0", "alg1")}, TypeError, "sets algorithms for each pair"),
           ((scores,), {"names": ("A", "B"), "y": scores}, TypeError, "sets names, y for each pair"),
           ((scores,), {"progressbar": "yes"}, TypeError, "progressbar must be True, False or a callable"),
           ((scores,), {"scheduler": "localhost"}, ValueError, "scheduler must be an address"),
           ((scores,), {"workers": 0}, ValueError, "workers")]
    for args, kwargs, error, message in bad:
        with pytest.raises(error, match=message):
            hierarchical_tests(*args, **kwargs)
    assert check_pairs(scores) == [("alg0", "alg1"), ("alg0", "alg2"), ("alg1", "alg2")]


def test_progress_lines_name_each_pair_and_how_it_was_answered(monkeypatch, capsys):
    """The line of each pair, to a callable or to stderr (the fits are stand-ins: the lines are under test)."""
    from types import SimpleNamespace

    answers = iter([SimpleNamespace(converged=True, method="exact", attempts=({}, {}, {})),
                    SimpleNamespace(converged=True, method="mcmc", attempts=({}, {})),
                    SimpleNamespace(converged=False, method="mcmc", attempts=({}, {}))])
    monkeypatch.setattr(fit, "hierarchical_test", lambda *args, **kwargs: next(answers))
    scores = algorithms3(np.random.default_rng(RNG_SEED))
    lines = []
    hierarchical_tests(scores, [("alg2", "alg0"), ("alg0", "alg1")], progressbar=lines.append, workers=1)
    assert lines[0].startswith("hierarchical model 1/2: alg0 - alg2, ") and lines[0].endswith(" s (exact posterior)")
    assert lines[1].startswith("hierarchical model 2/2: alg1 - alg0, ") and lines[1].endswith(" s (MCMC, 2 fit(s))")
    hierarchical_tests(scores, [("alg1", "alg2")])
    assert capsys.readouterr().err.endswith(" s (not converged)\n")


@pytest.mark.long
def test_pairs_on_two_workers_give_the_results_of_one_pair_at_a_time():
    """Two local worker processes answer three pairs (the exact posterior) with the draws each pair gets alone in
    this process, in the order of the pairs; the seed is the caller's, not the task's."""
    scores = algorithms3(np.random.default_rng(RNG_SEED))
    options = {"draws": 50, "chains": 2, "random_seed": 4, "progressbar": False}
    spread = hierarchical_tests(scores, workers=2, **options)
    alone = hierarchical_tests(scores, workers=1, **options)
    assert list(spread) == list(alone) == [("alg0", "alg1"), ("alg0", "alg2"), ("alg1", "alg2")]
    for pair in alone:
        assert spread[pair].method == "exact" and spread[pair].names == pair
        same_draws(spread[pair], alone[pair])


@pytest.mark.slow
def test_nutpie_batch_on_uci54_gives_the_draws_of_a_fresh_compilation(uci54, monkeypatch):
    """nutpie: the second uci54 pair, fitted on the model compiled for the first (with_data), has the draws of
    hierarchical_test compiling its own model; two compilations (about 20 s each)."""
    monkeypatch.setattr(fit, "_COMPILED", {})
    settings = {"sampler": "nutpie", "random_seed": 3, "method": "mcmc", "retry": False}
    fits = hierarchical_tests(uci54, [("nbc", "hnb"), ("aode", "j48")], progressbar=False, **settings)
    monkeypatch.setattr(fit, "_COMPILED", {})
    same_draws(fits["aode", "j48"], hierarchical_test(uci54, algorithms=("aode", "j48"), **settings))


# --- bad and extreme inputs: refused by name, or the documented answer (issue #10) ----------------------------------


class TestHierarchicalTestsArguments:
    @pytest.mark.parametrize("args, kwargs, error, named", [
        (([[0.8, 0.9]],), {}, TypeError, "scores must be a scores Dataset"),
        ((), {"pairs": [("knn", "knn")]}, ValueError, "pairs: a pair needs two different algorithms"),
        ((), {"pairs": [("knn", "svm")]}, ValueError, "pairs: 'svm' not among"),
        ((), {"algorithms": ("knn", "tree")}, TypeError, "sets algorithms for each pair"),
        ((), {"progressbar": "yes"}, TypeError, "progressbar must be"),
        ((), {"rope": -1.0}, ValueError, "rope"),
        ((), {"sampler": "stan"}, ValueError, "sampler"),
        ((), {"method": "grid"}, ValueError, "method"),
    ])
    def test_hierarchical_tests_names_a_bad_argument_before_any_fit(self, monkeypatch, args, kwargs, error, named):
        import pp_corr.hierarchical.fit as hierarchical
        from pp_corr import example_path, hierarchical_tests, load_scores

        monkeypatch.setattr(hierarchical, "_fit", lambda *a, **k: pytest.fail("fitted before checking"))
        monkeypatch.setattr(hierarchical, "_exact_fit", lambda *a, **k: pytest.fail("computed before checking"))
        with pytest.raises(error, match=named):
            hierarchical_tests(*(args or (load_scores(example_path()),)), **{"progressbar": False, **kwargs})
