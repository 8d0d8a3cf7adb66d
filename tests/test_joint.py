"""The joint hierarchical model of k algorithms (pp_corr.hierarchical.joint) against independent computations: at
k = 2 the pairwise model's log density, for k > 2 the dense Kronecker-structured normal of every fold difference, the
conditional draws of delta_i against Gaussian conditioning written in precision form, and the ranking and pair
summaries against numerical integration."""
import arviz as az
import numpy as np
import pymc as pm
import pytensor.tensor as pt
import pytest
from pytensor.graph.basic import Constant
from scipy import integrate, stats

import pp_corr.hierarchical.joint as joint
from pp_corr.hierarchical.covariance import pivot_order
from pp_corr.hierarchical.fit import check_convergence
from pp_corr.hierarchical.joint import (_add_pair_contrasts, _build, _draw_delta, _estimates, _orders, prepare_joint,
                                        _data_values, _scalings, _start, joint_model, pair_contrasts)
from pp_corr.hierarchical.model import build_hierarchical_model as build_pairwise
from pp_corr.hierarchical.preparation import prepare_hierarchical as prepare_pairwise
from pp_corr.hierarchical.preparation import SIGMA_FLOOR
from pp_corr.sampling import ConvergenceWarning
from pp_corr.sampling import compilation_settings, sample
from pp_corr.testing import check_result
from tests.conftest import (HIER_MODEL_BAD, HIER_TEST_BAD, INF, JOINT_X, NAN, check_error, regression_recursion,
                            result_from_levels, simulated_scores)

RNG_SEED = 20261123


def dataset_covariances(data, log_sd, slopes, scaling):
    """Sigma_i of every data set from the free values (slopes scaled by ``scaling``, one row per data set): the
    recursion in the model's orders, plus the floor. The recursion gives Cov(z); z = x but on a data set without the
    reference, where z_a = x_a - (s_r / s_a) x_r for the others present, r the first present: x = B z."""
    orders = _orders(data)[1]  # pivoted on the estimates, a data set's absent coordinates last
    lacking = dict(data.absent)
    covariances = []
    for name, d, b, o, w in zip(data.datasets, log_sd, slopes, orders, scaling):
        basis = np.eye(data.mean.shape[1])
        if data.algorithms[0] in lacking.get(name, ()):
            present = [j - 1 for j, a in enumerate(data.algorithms) if a not in lacking[name]]
            for a in present[1:]:
                basis[a, present[0]] = data.scale[present[0]] / data.scale[a]
        covariances.append(basis @ regression_recursion(d, b, o, w) @ basis.T)
    return np.array(covariances) + SIGMA_FLOOR**2 * np.eye(data.mean.shape[1])


def values_at(model, point):
    """The constrained values of every free variable and deterministic at an unconstrained ``point``."""
    names = [v.name for v in model.unobserved_value_vars]
    fn = model.compile_fn(model.unobserved_value_vars, inputs=model.value_vars, on_unused_input="ignore",
                          mode="NUMBA")
    return dict(zip(names, fn(point)))


def random_point(model, rng, spread=0.7):
    return {name: rng.normal(0, spread, np.shape(value)) for name, value in model.initial_point().items()}


@pytest.mark.long
@pytest.mark.parametrize("form", ["centered", "marginal"])
def test_k2_log_density_equals_the_pairwise_model(uci54, form):
    """At k = 2 the joint model is the pairwise model, form by form: equal log densities (Jacobians included)
    at random unconstrained points."""
    pair = uci54.sel(algorithm=["nbc", "hnb"])
    joint = _build(prepare_joint(pair), "current", {}, form=form)
    pairwise = build_pairwise(prepare_pairwise(pair, None, None, None, None, ("nbc", "hnb")), "current", form)
    # the joint model's batched linear algebra compiles in seconds with Numba, minutes with the C backend; the
    # pairwise model's C code is in the compilation cache from the other tests
    joint_logp, pairwise_logp = joint.compile_logp(mode="NUMBA"), pairwise.compile_logp()
    rng = np.random.default_rng(RNG_SEED)
    for _ in range(5):
        point = random_point(pairwise, rng)
        as_joint = {name: value.reshape(joint.initial_point()[name].shape) for name, value in point.items()}
        assert joint_logp(as_joint) == pytest.approx(pairwise_logp(point), rel=1e-10, abs=1e-8)


def observed_map(block, scale):
    """For one data set's scores (n, k) with NaN columns for absent algorithms: the differences of the others
    present from the first present one r, and the rows e_a - e_r (e_1 = 0) that give them from the model's
    coordinates (units ``scale``), written here from the definition."""
    present = np.flatnonzero(~np.isnan(block).all(axis=0))
    first, others = present[0], present[1:]
    t = np.zeros((len(others), block.shape[1] - 1))
    t[np.arange(len(others)), others - 1] = 1.0
    if first > 0:
        t[:, first - 1] = -1.0
    return block[:, others] - block[:, [first]], t * scale


def dense_log_likelihood(scores, rho, values, form, data, scaling):
    """log p(every fold difference | parameters) from the dense normal of the stacked (n m)-vector: marginal
    form, mean 1 (x) delta0 and covariance J (x) Sigma0 / lambda_i + ((1 - rho) I + rho J) (x) Sigma_i; centred
    form, mean 1 (x) delta_i and covariance ((1 - rho) I + rho J) (x) Sigma_i. ``scaling``: the exponents of the
    population's and the data sets' slopes' scaling. A data set without some algorithms observes T d (T from
    :func:`observed_map`): mean T delta and covariances T Sigma T^T."""
    covariances = dataset_covariances(data, values["dataset_log_sd"], values["dataset_slopes"], scaling[1])
    cov0 = regression_recursion(values["population_log_sd"], values["population_slopes"],
                                pivot_order(_estimates(data)[0]), scaling[0])
    total = 0.0
    for i, block in enumerate(scores):
        d, t = observed_map(block, data.scale)
        n = len(d)
        ones = np.ones((n, n))
        big = np.kron((1 - rho) * np.eye(n) + rho * ones, t @ covariances[i] @ t.T)
        if form == "marginal":
            big += np.kron(ones, t @ cov0 @ t.T / values["lambda"][i])
            mean = values["delta0_scaled"]
        else:
            mean = values["delta_scaled"][i]
        total += stats.multivariate_normal(np.tile(t @ mean, n), big).logpdf(d.ravel())
    return total


def with_gaps(scores):
    """The scores with algorithm 3 not run on data set 2, the reference on data set 3 and algorithms 1 and 4 on
    data set 4 (its differences are from algorithm 2, a coordinate of its own)."""
    scores = scores.copy()
    scores[1, :, 2], scores[2, :, 0], scores[3][:, [0, 3]] = np.nan, np.nan, np.nan
    return scores


@pytest.mark.long
@pytest.mark.parametrize("gaps", [False, True])
@pytest.mark.parametrize("form", ["centered", "marginal"])
def test_likelihood_equals_the_dense_kronecker_normal(form, gaps):
    """Observed and scatter terms (the sufficient-statistic likelihood) differ between two parameter points
    exactly as the dense normal of all fold differences does (units 1: scale fixed). In the centred form the
    observed term is given delta_i, whose own prior is not part of it. With algorithms absent from data sets
    (``gaps``), each observes the differences among those it has: the dense normal of those, the exact marginal."""
    scores, rho = simulated_scores(q=4, n=5, k=4, seed=3), 0.2
    scores[1, :, 2] = scores[1, :, 0]  # algorithms 1 and 3 agree on every fold of data set 2: slopes scaled there
    scores = with_gaps(scores) if gaps else scores
    model = joint_model(scores, rho=rho, scale=1.0, form=form)
    scatter = model.replace_rvs_by_values([model["scatter"]])[0]  # the other potentials are priors
    likelihood = model.compile_fn(model.observedlogp + scatter, inputs=model.value_vars,
                                  on_unused_input="ignore", mode="NUMBA")
    rng = np.random.default_rng(RNG_SEED)
    points = [random_point(model, rng) for _ in range(3)]
    values = [values_at(model, p) for p in points]
    ours = [float(likelihood(p)) for p in points]
    data = prepare_joint(scores, rho=rho, scale=1.0)
    scaling = model["population_scaling"].get_value(), model["dataset_scaling"].get_value()
    assert np.ptp(scaling[0]) > 0.02 and (gaps or np.ptp(scaling[1]) > 0.5)  # pairs scaled differently
    dense = [dense_log_likelihood(scores, rho, v, form, data, scaling) for v in values]
    for j in (1, 2):
        assert ours[j] - ours[0] == pytest.approx(dense[j] - dense[0], rel=1e-8, abs=1e-8)


def observed_sds_and_correlations(data, log_sd, slopes, scaling, i, t):
    """(sds, correlations a < b) of T V_i T^T, the covariance of what data set i observes less the floor (T from
    :func:`observed_map`, V_i by :func:`dataset_covariances`)."""
    cov = t @ (dataset_covariances(data, log_sd, slopes, scaling)[i] - SIGMA_FLOOR**2 * np.eye(t.shape[1])) @ t.T
    sd = np.sqrt(np.diag(cov))
    corr = cov / np.outer(sd, sd)
    return np.r_[sd, corr[np.triu_indices(len(sd), 1)]], corr


@pytest.mark.parametrize("gaps", [False, True])
def test_each_data_sets_covariance_prior_is_set_on_the_differences_it_observes(gaps):
    """Sigma_i's prior holds in each data set's own coordinates: as a function of data set i's free values u, the
    model's prior term less the standard normal density of the values its data do not see is, up to a constant,
    (eta' - 1) log det R + log|d(sds, R)/du| (the uniform sds' density is constant) of T V_i T^T, the covariance of
    the p differences it observes (T from :func:`observed_map`), eta' = eta + (m - p) / 2: the LKJ(eta) block's
    marginal. Complete data sets (T = I, p = m) have the complete model's prior; D3, without the reference, has it
    on the differences from its own reference, and its coordinate of that reference is integrated out."""
    scores, eta = simulated_scores(q=4, n=6, k=4, seed=3), 1.5
    scores = with_gaps(scores) if gaps else scores
    model = joint_model(scores, rho=0.2, scale=1.0, eta=eta)
    prior = model.compile_fn(model.replace_rvs_by_values([model["dataset_prior"]])[0], inputs=model.value_vars,
                             on_unused_input="ignore", mode="NUMBA")
    data, scaling = prepare_joint(scores, rho=0.2, scale=1.0), model["dataset_scaling"].get_value()
    rng = np.random.default_rng(RNG_SEED)
    point = random_point(model, rng, spread=0.5)
    m = data.mean.shape[1]
    for i, block in enumerate(scores):
        t = observed_map(block, data.scale)[1]
        p = len(t)
        seen = np.r_[np.arange(p), m + np.arange(p * (p - 1) // 2)]  # the first p rows' log sds and slopes
        residues = []
        for _ in range(4):
            u = rng.normal(0, 0.5, m + m * (m - 1) // 2)
            log_sd, slopes = point["dataset_log_sd"].copy(), point["dataset_slopes"].copy()
            log_sd[i], slopes[i] = u[:m], u[m:]

            def observed(v):
                w, sds, free = u.copy(), log_sd.copy(), slopes.copy()
                w[seen] = v
                sds[i], free[i] = w[:m], w[m:]
                return observed_sds_and_correlations(data, sds, free, scaling, i, t)

            jac = np.empty((len(seen), len(seen)))
            for k in range(len(seen)):
                step = np.zeros(len(seen))
                step[k] = 1e-6
                jac[:, k] = (observed(u[seen] + step)[0] - observed(u[seen] - step)[0]) / 2e-6
            corr = observed(u[seen])[1]
            value = float(prior({**point, "dataset_log_sd": log_sd, "dataset_slopes": slopes}))
            residues.append(value - np.linalg.slogdet(jac)[1] - (eta + (m - p) / 2 - 1) * np.linalg.slogdet(corr)[1]
                            - stats.norm.logpdf(np.delete(u, seen)).sum())
        assert np.ptp(residues) < 1e-6, (i, p)
    assert not gaps or [len(observed_map(block, data.scale)[1]) for block in scores] == [3, 2, 2, 1]


@pytest.mark.long
def test_a_model_with_gaps_compiles_its_gradient_without_numba_object_mode():
    """The maps of a design with gaps have static shapes: with a symbolic matrix size, Numba ran the gradient's
    batched AllocDiag in object mode (Python, under the GIL; uci54 with 24 gappy data sets: 2.5x the time per
    gradient, and nutpie's chains waiting on each other). Numba warns of it only when it compiles afresh, not from
    its cache, so the compiled graph is checked: every AllocDiag's output shape is a constant."""
    model = joint_model(with_gaps(simulated_scores(q=4, n=5, k=4, seed=3)), rho=0.2)
    with compilation_settings():
        graph = model.logp_dlogp_function(ravel_inputs=True, mode="NUMBA")._pytensor_function.maker.fgraph
    allocs = [node for node in graph.toposort() if "AllocDiag" in str(node.op)]
    assert allocs and all(isinstance(shape, Constant) for node in allocs for shape in node.inputs[1:])


def synthetic_posterior(data, rng, chains=2, draws=3000):
    """A posterior-shaped DataTree with one fixed parameter value repeated (so delta_i draws have a known law)."""
    q, m = data.mean.shape
    fixed = {"delta0_scaled": rng.normal(0, 0.5, m), "sigma0_scaled": rng.uniform(0.3, 1.5, m),
             "corr0": np.corrcoef(rng.normal(size=(m, m + 3))), "lambda": rng.uniform(0.3, 3, q),
             "dataset_log_sd": rng.normal(0, 0.5, (q, m)), "dataset_slopes": rng.normal(0, 0.7, (q, m * (m - 1) // 2)),
             "nu": np.array(5.0)}
    posterior = {name: np.broadcast_to(value, (chains, draws) + np.shape(value)).copy()
                 for name, value in fixed.items()}
    posterior["delta0"] = posterior["delta0_scaled"] * data.scale
    posterior["sigma0"] = posterior["sigma0_scaled"] * data.scale
    tree = az.from_dict({"posterior": posterior}, dims={"delta0": ["algorithm"], "sigma0": ["algorithm"],
                                                        "delta0_scaled": ["algorithm"],
                                                        "sigma0_scaled": ["algorithm"]},
                        coords={"algorithm": list(data.algorithms[1:])})
    return tree, fixed


@pytest.mark.parametrize("gaps", [False, True])
def test_conditional_draws_of_delta_match_gaussian_conditioning_in_precision_form(gaps):
    """With gaps the data set observes y = T dbar (T from :func:`observed_map`, in the scores' units), whose
    precision T^T (c T Sigma T^T)^-1 T and information T^T (c T Sigma T^T)^-1 y enter the precision form."""
    scores = simulated_scores(q=4, n=8, k=4, seed=5)
    scores[0, :, 1] = scores[0, :, 0]  # no spread in one coordinate of data set 1: its slopes are scaled
    scores = with_gaps(scores) if gaps else scores
    data = prepare_joint(scores, rho=0.1)
    rng = np.random.default_rng(RNG_SEED)
    tree, fixed = synthetic_posterior(data, rng)
    delta = _draw_delta(tree, data, random_seed=1).posterior["delta_scaled"].values.reshape(-1, *data.mean.shape)
    c = (1 - data.rho) / data.n + data.rho
    cov0 = np.outer(fixed["sigma0_scaled"], fixed["sigma0_scaled"]) * fixed["corr0"]
    scaling = _scalings(data, _orders(data))[1]
    assert scaling.max() > 0.9
    covariances = dataset_covariances(data, fixed["dataset_log_sd"], fixed["dataset_slopes"], scaling)
    for i in range(len(data.datasets)):
        cov = covariances[i]
        prior_precision = fixed["lambda"][i] * np.linalg.inv(cov0)
        y, t = observed_map(scores[i][~np.isnan(scores[i]).all(axis=1)], data.scale)
        seen_precision = np.linalg.inv(c[i] * t @ cov @ t.T)
        post_cov = np.linalg.inv(prior_precision + t.T @ seen_precision @ t)
        post_mean = post_cov @ (prior_precision @ fixed["delta0_scaled"] + t.T @ seen_precision @ y.mean(axis=0))
        draws = delta[:, i]
        se = np.sqrt(np.diag(post_cov) / len(draws))
        assert np.all(np.abs(draws.mean(axis=0) - post_mean) < 4 * se)
        sd_se = np.sqrt(np.diag(post_cov) / (2 * len(draws)))
        assert np.all(np.abs(draws.std(axis=0) - np.sqrt(np.diag(post_cov))) < 4 * sd_se)
        corr_draws = np.corrcoef(draws.T)[0, 1]
        corr_true = post_cov[0, 1] / np.sqrt(post_cov[0, 0] * post_cov[1, 1])
        assert abs(corr_draws - corr_true) < 4 * (1 - corr_true**2) / np.sqrt(len(draws))


def test_pairs_and_ranking_against_integration():
    """Population P(best) and pair probabilities from normal delta0 draws against their integrals; a new data
    set's P(rope) of each pair against the t law of the contrast, averaged by quadrature over delta0."""
    rng = np.random.default_rng(RNG_SEED)
    mu, sd = np.array([0.01, -0.005]), 0.01
    levels = mu + sd * rng.standard_normal((40_000, 2))
    cov0 = np.array([[4e-4, 1e-4], [1e-4, 2e-4]])
    res = result_from_levels(levels, cov0, nu=6.0, names=["ref", "x", "y"])
    ranking, pairs = res.ranking(), res.pairs().set_index(["a", "b"])

    def p_best(j):  # the reference is 0; x ~ N(mu0, sd) and y ~ N(mu1, sd) independent
        if j == 0:
            return stats.norm.cdf(0, mu[0], sd) * stats.norm.cdf(0, mu[1], sd)
        mine, other = mu[j - 1], mu[2 - j]
        return integrate.quad(lambda v: stats.norm.pdf(v, mine, sd) * stats.norm.cdf(v, other, sd), 0, 0.2)[0]

    n = len(levels)
    for j, name in enumerate(["ref", "x", "y"]):
        exact = p_best(j)
        assert abs(ranking.loc[name, "P(best)"] - exact) < 4 * np.sqrt(exact * (1 - exact) / n)
    exact = stats.norm.sf(0, mu[1] - mu[0], sd * np.sqrt(2))
    assert abs(pairs.loc[("x", "y"), "p_delta0_positive"] - exact) < 4 * np.sqrt(exact * (1 - exact) / n)
    # a new data set, pair (x, y): contrast ~ t_6(delta0_y - delta0_x, sqrt(var_x + var_y - 2 cov))
    scale = np.sqrt(cov0[0, 0] + cov0[1, 1] - 2 * cov0[0, 1])
    diff = levels[:, 1] - levels[:, 0]
    per_draw = stats.t.cdf(0.01, 6, diff, scale) - stats.t.cdf(-0.01, 6, diff, scale)
    sd_diff = sd * np.sqrt(2)
    expected = integrate.quad(lambda v: stats.norm.pdf(v, mu[1] - mu[0], sd_diff)
                              * (stats.t.cdf(0.01, 6, v, scale) - stats.t.cdf(-0.01, 6, v, scale)), -0.2, 0.2)[0]
    assert abs(pairs.loc[("x", "y"), "p_rope"] - expected) < 4 * per_draw.std() / np.sqrt(n)
    assert list(ranking.index) == list(ranking.sort_values("expected rank").index)


def test_every_pairs_contrast_is_in_the_posterior_as_pairs_reports_it():
    """delta0_pair and sigma0_pair against a dense computation of e_b - e_a on the full k x k Sigma0 (zero for the
    reference), in the scores' units, and what pairs() reports from them."""
    scores = simulated_scores(q=4, n=8, k=4, seed=5)
    data = prepare_joint(scores, rho=0.1, algorithms=["r", "x", "y", "z"])
    tree, fixed = synthetic_posterior(data, np.random.default_rng(RNG_SEED), draws=5)
    post = _add_pair_contrasts(tree, data).posterior
    k = len(data.algorithms)
    full = np.zeros((k, k))
    cov0 = np.outer(fixed["sigma0_scaled"], fixed["sigma0_scaled"]) * fixed["corr0"]
    full[1:, 1:] = cov0 * np.outer(data.scale, data.scale)
    levels = np.concatenate([[0.0], fixed["delta0_scaled"] * data.scale])
    assert list(post["pair"].values) == ["x - r", "y - r", "z - r", "y - x", "z - x", "z - y"]
    for label in post["pair"].values:
        b, a = (data.algorithms.index(name) for name in label.split(" - "))
        e = np.zeros(k)
        e[b], e[a] = 1.0, -1.0
        np.testing.assert_allclose(post["delta0_pair"].sel(pair=label).values, levels[b] - levels[a], rtol=1e-12)
        np.testing.assert_allclose(post["sigma0_pair"].sel(pair=label).values, np.sqrt(e @ full @ e), rtol=1e-12)
    frame = joint.JointResult(tree, data, (-0.01, 0.01), random_seed=1).pairs()
    np.testing.assert_allclose(frame["delta0_mean"], post["delta0_pair"].mean(("chain", "draw")), rtol=1e-12)


def test_a_pairs_contrast_that_chains_disagree_on_is_not_converged():
    """Two near-copies whose levels each mix (chains agree on x and on y) while their difference does not (each
    chain sits on its own value of y - x): the joint policy checks the pairs' contrasts, so this is not converged."""
    rng = np.random.default_rng(RNG_SEED)
    common = rng.normal(0, 1, (4, 1000))
    side = np.array([1.0, -1.0, 1.0, -1.0])[:, None]
    x, y = common + 0.02 * side, common - 0.02 * side + 0.002 * rng.normal(size=(4, 1000))
    levels = np.stack([np.zeros_like(x), x, y], axis=-1)
    diff, sd = pair_contrasts(levels, np.eye(3) * rng.uniform(1, 2, (4, 1000, 1, 1)))
    posterior = {"delta0": levels[..., 1:], "delta0_pair": diff, "sigma0_pair": sd}
    tree = az.from_dict({"posterior": posterior}, dims={"delta0": ["algorithm"], "delta0_pair": ["pair"],
                                                        "sigma0_pair": ["pair"]},
                        coords={"algorithm": ["x", "y"], "pair": ["x - r", "y - r", "y - x"]})
    tree["sample_stats"] = az.from_dict({"sample_stats": {"diverging": np.zeros((4, 1000), bool)}})["sample_stats"]
    assert check_convergence(tree, ["delta0"]) == []
    with pytest.warns(ConvergenceWarning):
        problems = check_convergence(tree, ["delta0", *joint.PAIRS_CHECKED])
    assert problems[0].startswith("R-hat of delta0_pair[y - x]") and all("[y - x]" in p for p in problems)


def test_joint_test_checks_the_pairs_contrasts(monkeypatch, uci54):
    asked = {}

    def policy(fit, settings, given, **options):
        asked.update(options)
        raise RuntimeError("stop before fitting")

    monkeypatch.setattr(joint, "fit_with_policy", policy)
    with pytest.raises(RuntimeError, match="stop before fitting"):
        joint.joint_test(uci54, random_seed=1)
    assert set(joint.PAIRS_CHECKED) <= set(asked["var_names"]) and "delta0" in asked["var_names"]


def test_new_dataset_best_share_against_a_known_population():
    """With delta0 fixed, P(best on a new data set) is P(argmax of t_nu(delta0, Sigma0) with the reference at 0):
    compared with a direct Monte Carlo of the multivariate t written independently (chi-square mixing)."""
    levels = np.tile([0.01, 0.0], (4000, 1))
    cov0 = np.array([[1e-4, 5e-5], [5e-5, 1e-4]])
    res = result_from_levels(levels, cov0, nu=4.0, names=["ref", "x", "y"])
    ranking = res.ranking()
    rng = np.random.default_rng(7)
    z = rng.multivariate_normal(np.zeros(2), cov0, 400_000)
    t = np.array([0.01, 0.0]) + z / np.sqrt(rng.chisquare(4.0, (len(z), 1)) / 4.0)
    full = np.column_stack([np.zeros(len(t)), t])
    exact = np.bincount(full.argmax(axis=1), minlength=3) / len(full)
    draws = len(levels) * 20
    for j, name in enumerate(["ref", "x", "y"]):
        assert abs(ranking.loc[name, "P(best) new data set"] - exact[j]) < 4 * np.sqrt(exact[j] * (1 - exact[j])
                                                                                          * (1 / draws + 1 / len(z)))


@pytest.mark.parametrize("bad, message", [
    (dict(algorithms=["aode"]), "at least 2 algorithms"),
    (dict(algorithms=["aode", "aode"]), "distinct"),
    (dict(algorithms=["aode", "svm"]), r"\['svm'\] are not in the scores"),
    (dict(reference="svm"), "reference='svm'"),
    (dict(missing="ignore"), "missing must be"),
    (dict(eta=0), "eta"),
])
def test_bad_arguments_name_themselves(uci54, bad, message):
    with pytest.raises(ValueError, match=message):
        joint_model(uci54, **bad)


def test_joint_model_names_priors_of_the_wrong_type():
    scores = np.random.default_rng(0).normal([0.80, 0.82, 0.85], 0.02, (6, 10, 3))
    with pytest.raises(TypeError) as caught:
        joint_model(scores, folds=10, algorithms=["a", "b", "c"], priors=3)
    assert str(caught.value) == "priors must be one of ['current', 'older'], got int 3"


def test_an_algorithm_missing_on_a_data_set_is_integrated_out_or_named_and_dropped(uci54):
    scores = uci54.sel(algorithm=["nbc", "hnb", "j48"]).copy(deep=True)
    scores["score"].loc[dict(dataset=scores.dataset.values[3], algorithm="j48")] = np.nan
    name = str(scores.dataset.values[3])
    data = prepare_joint(scores)  # by default every data set is kept, with the cell integrated out
    assert data.datasets == [str(d) for d in uci54.dataset.values] and data.absent == ((name, ("j48",)),)
    assert data.transform[3].tolist() == [[1.0, 0.0], [0.0, 0.0]] and data.padding[3].tolist() == [0.0, 1.0]
    assert data.transform[[0, 4]].tolist() == [np.eye(2).tolist()] * 2
    with pytest.raises(ValueError, match=rf"'{name}': no scores of \['j48'\].*missing='drop'"):
        joint_model(scores, missing="raise")
    with pytest.warns(UserWarning, match=rf"dropped: '{name}'"):
        model = joint_model(scores, missing="drop")
    assert name not in model.coords["dataset"] and len(model.coords["dataset"]) == 53


def test_ragged_designs_use_each_data_sets_complete_folds():
    scores = simulated_scores(q=4, n=8, k=3, ragged=True)
    data = prepare_joint(scores, folds=10)
    assert data.n.tolist() == [6, 8, 8, 8]
    block = scores[0, :6]
    d = block[:, 1:] - block[:, :1]
    assert np.allclose(data.scatter[0], (len(d) - 1) * np.cov(d.T))


def test_reference_choice_only_changes_coordinates():
    """Another reference is a linear map T of the differences: means T dbar, scatter T S T^T."""
    scores = simulated_scores(q=4, n=8, k=3)
    a, b = prepare_joint(scores, folds=10), prepare_joint(scores, folds=10, reference="A3")
    assert b.algorithms == ("A3", "A1", "A2")
    to_b = np.array([[0.0, -1.0], [1.0, -1.0]])  # (A2 - A1, A3 - A1) -> (A1 - A3, A2 - A3)
    assert np.allclose(b.mean, a.mean @ to_b.T)
    assert np.allclose(b.scatter, to_b @ a.scatter @ to_b.T)


def test_summary_gives_no_verdict_when_unconverged_and_to_dict_is_json():
    import json
    from dataclasses import replace

    rng = np.random.default_rng(RNG_SEED)
    res = result_from_levels(0.01 * rng.standard_normal((500, 2)), np.diag([1e-4, 2e-4]), nu=5.0,
                             names=["ref", "x", "y"])
    shown = res.summary()
    assert "P(best)" in shown and all(name in shown for name in ("ref", "x", "y"))
    failed = replace(res, convergence_problems=("R-hat of nu is 1.2 > 1.01",), attempts=({"form": "centered"},))
    assert "NOT CONVERGED, no verdict" in failed.summary() and "P(best)" not in failed.summary()
    assert "P(best)" in failed.summary(allow_unconverged=True)
    record = json.loads(json.dumps(failed.to_dict()))
    assert record["converged"] is False and {r["algorithm"] for r in record["ranking"]} == {"ref", "x", "y"}
    assert "integrated out" not in shown and record["absent"] == {}
    scores = simulated_scores(q=4, n=6, k=3, seed=9)
    scores[1, :, 2], scores[2, :, 0] = np.nan, np.nan
    gappy = replace(res, data=prepare_joint(scores, rho=0.1, algorithms=["ref", "x", "y"]))
    assert "2 data sets without some algorithms, integrated out there: D2 lacks y; D3 lacks ref" in gappy.summary()
    assert json.loads(json.dumps(gappy.to_dict()))["absent"] == {"D2": ["y"], "D3": ["ref"]}


def test_delta0_through_its_fixed_basis_keeps_its_uniform_prior():
    """k > 2 samples v with delta0 = M tanh((centre + basis v) / M): the prior term it adds, less log |d delta0 /
    dv| (finite differences here), is the same at every point - delta0 is uniform on its box - and delta0 stays
    inside it."""
    scores = simulated_scores(q=5, n=6, k=3, seed=4)
    model = joint_model(scores, rho=0.1)
    prior = model.replace_rvs_by_values([model["delta0_prior"], model["delta0_scaled"]])
    values = model.compile_fn(prior, inputs=model.value_vars, on_unused_input="ignore", mode="NUMBA")
    rng = np.random.default_rng(RNG_SEED)
    base = random_point(model, rng, spread=0.3)
    limits = prepare_joint(scores, rho=0.1)
    residues = []
    for _ in range(5):
        v = rng.normal(0, 3.0, 2)
        log_prior, delta0 = values({**base, "delta0_standardised": v})
        jac = np.empty((2, 2))
        for k in range(2):
            step = np.zeros(2)
            step[k] = 1e-6
            jac[:, k] = (values({**base, "delta0_standardised": v + step})[1]
                         - values({**base, "delta0_standardised": v - step})[1]) / 2e-6
        residues.append(float(log_prior) - np.linalg.slogdet(jac)[1])
        assert np.all(np.abs(delta0) < limits.max_abs / limits.scale)
    assert np.ptp(residues) < 1e-6


def test_a_refit_sets_every_data_container_a_new_build_would_hold():
    """A compiled model refitted to other data (the coverage study) gets, container by container, the values a
    model built on those data holds: the statistics and the sampler's fixed maps (delta0's basis, the slopes'
    scalings), the scalings in the compiled model's orders."""
    first, second = simulated_scores(q=6, n=8, k=4, seed=11), simulated_scores(q=6, n=8, k=4, seed=12)
    compiled = joint_model(first, rho=0.1)
    data = prepare_joint(second, rho=0.1)
    values = _data_values(data, _orders(prepare_joint(first, rho=0.1)))
    fresh = joint_model(second, rho=0.1)
    assert set(values) == {v.name for v in compiled.data_vars}
    for name, value in values.items():
        if not name.endswith("_scaling"):
            np.testing.assert_allclose(value, fresh[name].get_value(), rtol=1e-12)
    for name, value in _data_values(data, _orders(data)).items():
        np.testing.assert_allclose(value, fresh[name].get_value(), rtol=1e-12)


@pytest.mark.long
def test_a_refitted_model_has_the_log_density_of_a_model_built_on_the_new_data():
    """Refitted to new data whose orders of the coordinates are the first data's (the scores moved a little), the
    compiled model's log density equals that of a model built on the new data, at random points: the refit changes
    every value that depends on the data, and only those. The unit and the priors' bounds are given, as in the
    coverage study (by default they come from the data, and a refit keeps the first data's)."""
    fixed = {"rho": 0.1, "scale": 0.03, "bounds": {"delta0": 10.0, "sigma0": 100.0, "sigma": (0.01, 100.0)}}
    first = simulated_scores(q=6, n=8, k=4, seed=11)
    second = first + np.random.default_rng(1).normal(0, 0.001, first.shape)
    data, old = (prepare_joint(x, rho=0.1, scale=0.03) for x in (second, first))
    assert all(np.array_equal(a, b) for a, b in zip(_orders(data), _orders(old)))   # else another model
    compiled, fresh = joint_model(first, **fixed), joint_model(second, **fixed)
    logp, built = compiled.compile_logp(mode="NUMBA"), fresh.compile_logp(mode="NUMBA")
    rng = np.random.default_rng(RNG_SEED)
    points = [random_point(fresh, rng, spread=0.3) for _ in range(4)]
    before = [logp(point) for point in points]
    pm.set_data(_data_values(data, _orders(old)), model=compiled)  # the compiled function reads the new values
    for point, first_value in zip(points, before):
        assert logp(point) == pytest.approx(built(point), rel=1e-10, abs=1e-8)
        assert abs(first_value - built(point)) > 1e-3   # the data moved the log density


def test_population_slopes_of_near_copies_are_not_scaled():
    """A coordinate that nearly copies another gets w near 0 on that slope, far below the other pairs' w."""
    rng = np.random.default_rng(RNG_SEED)
    scores = simulated_scores(q=20, n=10, k=4, seed=13)
    scores[..., 3] = scores[..., 2] + rng.normal(0, 1e-4, scores.shape[:2])  # algorithm 4 copies algorithm 3
    data = prepare_joint(scores, rho=0.1)
    order0 = _orders(data)[0]
    w = _scalings(data, _orders(data))[0]
    tri = np.tril_indices(3, -1)
    pair = {frozenset((int(order0[j]), int(order0[k]))): w[i] for i, (j, k) in enumerate(zip(*tri))}
    others = [v for key, v in pair.items() if key != frozenset((1, 2))]
    assert pair[frozenset((1, 2))] < 1e-2 * min(others) and np.all((w >= 0) & (w <= 1))


@pytest.mark.parametrize("nu", [1.3, 6.0, 80.0])
def test_standardised_mixing_weights_are_gamma(nu):
    """lambda_i = exp(m(nu) + s(nu) z_i) with the density the model gives z_i: its integral (scipy's quad) is 1,
    and its mass below z is scipy's Gamma(nu/2, rate nu/2) cdf at the lambda that z maps to."""
    from pp_corr.hierarchical.priors import standardised_mixing

    with pm.Model(coords={"dataset": ["one"]}) as model:
        lam = standardised_mixing(pt.constant(nu))
    values = model.compile_fn(model.replace_rvs_by_values([model["lambda_prior"], lam]), inputs=model.value_vars)

    def density(z):
        return float(np.exp(values({"lambda_standardised": np.array([z])})[0]))

    assert integrate.quad(density, -60, 30, limit=500)[0] == pytest.approx(1.0, abs=1e-5)
    for z in (-2.0, -0.5, 0.0, 1.0, 2.5):
        value = float(values({"lambda_standardised": np.array([z])})[1][0])
        below = integrate.quad(density, -60, z, limit=500)[0]
        assert below == pytest.approx(stats.gamma.cdf(value, nu / 2, scale=2 / nu), abs=1e-5)


def _per_draw(d0, s0, nu, rope):
    """The pair's per-draw quantities (chain, draw): delta0, its sign, a new data set's tails (t_nu(delta0, sigma0))."""
    lo, hi = rope
    return {"delta0": d0, "P(delta0 > 0)": (d0 > 0).astype(float), "p_left": stats.t.cdf((lo - d0) / s0, nu),
            "p_right": stats.t.sf((hi - d0) / s0, nu)}


def _mcse(values, prob=None):
    tree = az.from_dict({"posterior": {"v": values}})
    return float(az.mcse(tree, method="quantile", prob=prob)["v"] if prob else az.mcse(tree)["v"])


@pytest.mark.slow
@pytest.mark.parametrize("source", ["uci54", "simulated"])
def test_k2_fit_reports_what_the_pairwise_fit_reports(uci54, source):
    """At k = 2, joint_test and hierarchical_test (both policies, own seeds) agree on delta0's 5/50/95% quantiles,
    P(delta0 > 0) and a new data set's P(A better), P(B better) - each as its result reports it - within 4 Monte
    Carlo standard errors of the difference (each fit's MCSE from its own draws)."""
    from pp_corr import hierarchical_test, joint_test

    if source == "uci54":
        x = uci54.sel(algorithm=["nbc", "hnb"])
        joint = joint_test(x, algorithms=["nbc", "hnb"], random_seed=3)
        pair = hierarchical_test(x, algorithms=["nbc", "hnb"], random_seed=4)
    else:
        x = simulated_scores(q=12, n=10, k=2, seed=21)
        joint = joint_test(x, rho=0.1, random_seed=3)
        pair = hierarchical_test(x[..., 1] - x[..., 0], rho=0.1, random_seed=4)
    assert joint.converged and pair.converged
    jp, pp = joint.idata.posterior, pair.idata.posterior
    ours = _per_draw(jp["delta0"].values[..., 0], jp["sigma0"].values[..., 0], jp["nu"].values, joint.rope)
    theirs = _per_draw(pp["delta0"].values, pp["sigma0"].values, pp["nu"].values, pair.rope)
    row, new = joint.pairs().iloc[0], pair.new_dataset()
    reported = {"P(delta0 > 0)": (row.p_delta0_positive, pair.p_delta0_positive),
                "p_left": (row.p_left, new.p_left), "p_right": (row.p_right, new.p_right)}
    for name, (a, b) in reported.items():
        assert abs(a - b) <= 4 * np.hypot(_mcse(ours[name]), _mcse(theirs[name])), name   # = when both are 1
    for prob in (0.05, 0.5, 0.95):
        a, b = np.quantile(ours["delta0"], prob), np.quantile(pair.delta0, prob)
        assert abs(a - b) < 4 * np.hypot(_mcse(ours["delta0"], prob), _mcse(theirs["delta0"], prob)), prob


@pytest.mark.long
def test_a_retry_in_the_first_attempts_form_samples_the_model_compiled_for_it(monkeypatch):
    """20 draws do not converge, so joint_test retries in the same (marginal) form: with the model built and
    compiled once, and giving the draws of that model built afresh and sampled with the retry's settings."""
    built = []

    class Counting(joint.RefittableModel):
        def __init__(self, model, *args, **kwargs):
            built.append(model)
            super().__init__(model, *args, **kwargs)

    monkeypatch.setattr(joint, "RefittableModel", Counting)
    rng = np.random.default_rng(0)
    scores = rng.normal([0.80, 0.81, 0.85], 0.02, (6, 10, 3)) + rng.normal(0, 0.02, (6, 1, 3))
    with pytest.warns(ConvergenceWarning):
        res = joint.joint_test(scores, folds=10, algorithms=["a", "b", "c"], random_seed=1, draws=20, tune=20,
                               chains=2)
    assert [(a["form"], a["target_accept"]) for a in res.attempts] == [("marginal", 0.8), ("marginal", 0.95)]
    assert len(built) == 1
    data = prepare_joint(scores, ["a", "b", "c"], folds=10)
    fresh = sample(_build(data, "current", None, form="marginal"), draws=20, tune=20, chains=2, random_seed=1,
                   target_accept=0.95, initvals=_start(data, joint._limits(data, None), "marginal"),
                   compile_kwargs={"mode": "NUMBA"})
    np.testing.assert_array_equal(res.idata.posterior["delta0"].values,
                                  _draw_delta(fresh, data, 1).posterior["delta0"].values)


# --- bad and extreme inputs: refused by name, or the documented answer (issue #10) ----------------------------------

JOINT_BAD = {**HIER_TEST_BAD, **{label: HIER_MODEL_BAD[label] for label in (
    "scale=0", "scale=-1", "bounds list", "bounds unknown key", "bounds sigma reversed", "priors unknown",
    "folds=inf")},
    "eta=0": ({"eta": 0.0}, ("eta",)), "missing unknown": ({"missing": "skip"}, ("missing",)),
    "one algorithm": ({"x": JOINT_X[..., :1]}, ("at least 2 algorithms",)),
    "x 2-D": ({"x": JOINT_X[..., 0]}, ("x",)),
    "x with inf": ({"x": np.where(np.arange(3) == 1, INF, JOINT_X)}, ("x", "infinite")),
    "reference unknown": ({"reference": "bogus"}, ("reference",)),
}


class TestJointArguments:
    @pytest.mark.parametrize("label", sorted(JOINT_BAD))
    def test_joint_test_refuses_bad_parameters(self, label):
        """The joint model of k algorithms checks every argument before any work, naming it."""
        from pp_corr import joint_test

        kwargs, names = JOINT_BAD[label]
        kwargs = dict(kwargs)
        x = kwargs.pop("x", JOINT_X)
        small = {"draws": 20, "tune": 20, "chains": 1, "random_seed": 0, "folds": 10}
        check_error(lambda: joint_test(x, **{**small, **kwargs}), names)

    def test_joint_model_names_the_data_set_an_algorithm_is_missing_on(self):
        from pp_corr import JointResult, joint_model

        x = JOINT_X.copy()
        x[2, :, 1] = NAN
        check_error(lambda: joint_model(x, folds=10, missing="raise"), ("D3", "A2", "missing='drop'"))
        assert JointResult.__doc__


class TestJointResultProtocol:
    def result(self, spread=0.01):
        levels = np.random.default_rng(2).normal([0.02, -0.01], spread, (400, 2))
        return result_from_levels(levels, np.diag([1e-4, 1e-4]), 5.0, ["ref", "x", "y"])

    def test_contract(self):
        check_result(self.result())

    def test_frame_is_the_pairs(self):
        res = self.result()
        assert res.to_frame().equals(res.pairs()) and len(res.to_frame()) == 3

    @pytest.mark.parametrize("alpha", [0.01, 0.2])
    def test_decision_is_the_best_in_the_population_above_the_level(self, alpha):
        for spread in (0.01, 0.03):
            res = self.result(spread)
            best = res.ranking()["P(best)"]
            want = str(best.idxmax()) if best.max() > 1 - alpha else "none"
            assert res.decision(alpha) == want and f"decision at alpha = {alpha:g}: {want}" in res.summary(alpha=alpha)

    def test_unconverged_decides_nothing(self):
        from dataclasses import replace

        failed = replace(self.result(), convergence_problems=("R-hat of nu is 1.3 > 1.01",))
        assert failed.decision(0.2) == "none" and failed.to_dict()["decision"] == "none"
