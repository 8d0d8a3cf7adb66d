"""The loss study of the Bayesian signed-rank paper: each arm against an independent oracle (scipy's Wilcoxon, the
dense quadratic forms, the library's tests with their own draws, exact enumeration of the Wilcoxon null), the
internal orderings of the IDP, losses of known decisions worked out by hand, reproducibility."""
import itertools

import numpy as np
import pandas as pd
import pytest
import xarray as xr
from scipy import stats

from pp_corr import bayesian_signed_rank, imprecise_signed_rank
from pp_corr.cli import main
from pp_corr.pairwise.rank_tests import IDP_STRENGTH, PairSumRegions, heaviside
from pp_corr.studies.signed_rank_study import (CHUNK, DELTAS, LOSS_PAIRS, decisions, idp_probabilities, idp_weights,
                                               indeterminate_decisions, loss_areas, loss_curves, signed_rank_study)


@pytest.fixture(scope="module")
def study():
    """A reduced study: the full Delta grid, both correlations, 60 runs of 1000 draws."""
    return signed_rank_study(runs=60, draws=1000, workers=1, random_seed=3, progressbar=False)


def test_wilcoxon_arm_equals_scipy(study):
    for r, delta, run in itertools.product(study.correlation.values, study.delta.values, range(0, 60, 7)):
        z = study.noise.sel(correlation=r, run=run).values + delta
        expected = stats.wilcoxon(z, alternative="greater").pvalue
        assert study.wilcoxon_pvalue.sel(correlation=r, delta=delta, run=run) == pytest.approx(expected, rel=1e-12)


def test_lower_dp_upper_ordered_on_every_run_and_dp_agrees_with_a_determinate_idp(study):
    assert (study.idp_lower <= study.dp_probability).all() and (study.dp_probability <= study.idp_upper).all()
    dec = decisions(study)
    determinate = dec.idp_determinate.broadcast_like(dec.h1.sel(test="dp"))
    agree = dec.h1.sel(test="dp") == dec.h1.sel(test="idp")
    assert determinate.sum() > 0.5 * determinate.size  # the check is not empty
    assert bool(agree.where(determinate, True).all())  # the paper's claim: their determinate losses coincide
    # the IDP's H0 (upper < t) is the DP's H0 too
    h0 = study.idp_upper < dec.h1.sel(test="dp").loss_pair.copy(data=[l1 / (l0 + l1) for l0, l1 in LOSS_PAIRS])
    assert not bool((h0 & dec.h1.sel(test="dp")).any())


def test_noise_has_the_papers_law(study):
    """z - Delta = Y - X ~ N(0, 2 sigma^2 (1 - r)), independent across data sets: variance within a chi-square
    interval, correlation between data sets near 0."""
    for r in study.correlation.values:
        noise = study.noise.sel(correlation=r).values
        dof = noise.size
        ratio = np.sum(noise**2) / (2 * 0.12**2 * (1 - r)) / dof
        low, high = stats.chi2.ppf([0.0005, 0.9995], dof) / dof
        assert low < ratio < high, (r, ratio)
        assert abs(np.corrcoef(noise[:, 0], noise[:, 1])[0, 1]) < 4.5 / np.sqrt(len(noise))


def dense_probabilities(z, w):
    """The oracle: g = w' A w with the q x q matrix A_ij = H(z_i + z_j), per draw."""
    a = heaviside(z[:, None] + z[None, :])
    w0, data = w[:, 0], w[:, 1:]
    low = np.einsum("di,ij,dj->d", data, a, data)
    return np.mean(low / (1 - w0) ** 2 > 0.5), np.mean(low > 0.5), np.mean(w0 * (2 - w0) + low > 0.5)


def test_probabilities_equal_the_dense_quadratic_forms():
    rng = np.random.default_rng(4)
    z = rng.normal(0.02, 0.1, (6, 12))
    z[0, :4] = [0.05, -0.05, 0.0, 0.03]  # a pair sum of exactly 0 and a zero: H = 1/2
    w = idp_weights(rng, 3000, 12)
    fast = np.column_stack(idp_probabilities(z, w))
    dense = np.array([dense_probabilities(row, w) for row in z])
    assert np.abs(fast - dense).max() <= 1 / 3000  # a draw within rounding of g = 1/2 may fall either way


def test_probabilities_agree_with_the_library_tests_on_their_own_draws():
    """The study's DP and IDP against bayesian_signed_rank (s = 0) and imprecise_signed_rank, which draw their own
    Dirichlet weights: the difference of two Monte Carlo shares, within 4.5 standard errors."""
    rng = np.random.default_rng(5)
    n, m = 20_000, 20_000
    for k, z in enumerate(rng.normal(0.03, 0.12, (4, 15))):
        dp, lower, upper = (float(v[0]) for v in idp_probabilities(z[None], idp_weights(rng, n, 15)))
        idp = imprecise_signed_rank(z, draws=m, random_seed=k)
        dp_lib = bayesian_signed_rank(z, prior_strength=0, draws=m, random_seed=k).win_right
        for ours, theirs in ((dp, dp_lib), (lower, idp.lower), (upper, idp.upper)):
            se = np.sqrt(ours * (1 - ours) / n + theirs * (1 - theirs) / m) + 1e-12
            assert abs(ours - theirs) <= 4.5 * se, (k, ours, theirs)


def test_idp_weights_are_dirichlet_with_the_dp_inside():
    """(w0, w) ~ Dir(s, 1, ..., 1): E[w0] = s / (s + q); w / (1 - w0) ~ Dir(1, ..., 1) independent of w0."""
    q, n = 8, 200_000
    w = idp_weights(np.random.default_rng(6), n, q)
    s = IDP_STRENGTH
    mean0, var0 = s / (s + q), s * q / ((s + q) ** 2 * (s + q + 1))
    assert abs(w[:, 0].mean() - mean0) < 4.5 * np.sqrt(var0 / n)
    dp = w[:, 1:] / (1 - w[:, :1])
    var1 = (q - 1) / (q**2 * (q + 1))
    assert np.abs(dp.mean(axis=0) - 1 / q).max() < 4.5 * np.sqrt(var1 / n)
    assert abs(np.corrcoef(w[:, 0], dp[:, 0])[0, 1]) < 4.5 / np.sqrt(n)


def exact_wilcoxon_size(q, alpha=0.05):
    """The size of the exact one-sided Wilcoxon test: the null law of T+ by counting subsets of ranks."""
    counts = np.zeros(q * (q + 1) // 2 + 1)
    counts[0] = 1
    for rank in range(1, q + 1):
        counts[rank:] = counts[rank:] + counts[:-rank].copy()
    tail = np.cumsum(counts[::-1])[::-1] / 2.0**q  # P(T+ >= t)
    return float(tail[tail <= alpha].max())


def test_wilcoxon_type_one_error_equals_its_exact_size(study):
    size = exact_wilcoxon_size(30)
    rejected = (study.wilcoxon_pvalue.sel(delta=0.0) < 0.05).values.ravel()
    assert abs(rejected.mean() - size) <= 4 * np.sqrt(size * (1 - size) / len(rejected)), (rejected.mean(), size)


def handmade_results():
    """Three Deltas, four runs, statistics chosen so that every decision is known."""
    deltas = [-0.01, 0.0, 0.02]
    p = np.array([[0.01, 0.2, 0.04, 0.5], [0.03, 0.06, 0.01, 0.9], [0.001, 0.3, 0.2, 0.02]])
    dp = np.array([[0.6, 0.97, 0.2, 0.4], [0.55, 0.99, 0.3, 0.1], [0.96, 0.7, 0.45, 0.92]])
    lower, upper = dp - np.array([[0.1, 0.05, 0.2, 0.3]]), np.minimum(dp + 0.08, 1)
    dims = ("delta", "run")
    return xr.Dataset({"wilcoxon_pvalue": (dims, p), "dp_probability": (dims, dp), "idp_lower": (dims, lower),
                       "idp_upper": (dims, upper)}, coords={"delta": deltas, "run": np.arange(4)})


def test_losses_of_known_decisions_worked_out_by_hand():
    res = handmade_results()
    pairs = [(1, 1), (1, 4)]
    curves, areas = loss_curves(res, pairs), loss_areas(res, pairs)
    table3 = indeterminate_decisions(res, pairs)
    deltas = res.delta.values
    for l0, l1 in pairs:
        t, label = l1 / (l0 + l1), f"({l0:g}, {l1:g})"
        h1 = {"wilcoxon": res.wilcoxon_pvalue.values < 0.05, "dp": res.dp_probability.values > t,
              "idp": res.idp_lower.values > t}
        determinate = (res.idp_lower.values > t) | (res.idp_upper.values < t)
        undecided_dp, undecided_w = [], []
        for test, decided in h1.items():
            by_delta, det_by_delta = [], []
            for k, delta in enumerate(deltas):
                losses = [(l0 * (not decided[k, r]) if delta > 0 else l1 * decided[k, r]) for r in range(4)]
                kept = [loss for loss, d in zip(losses, determinate[k]) if d]
                by_delta.append(sum(losses) / 4)
                det_by_delta.append(sum(kept) / len(kept) if kept else np.nan)
                if test != "idp":
                    assert curves.loss.sel(test=test, loss_pair=label, delta=delta) == pytest.approx(by_delta[-1])
                    sd = np.std(losses, ddof=1)
                    assert curves.loss_se.sel(test=test, loss_pair=label, delta=delta) == pytest.approx(sd / 2)
                assert float(curves.determinate_loss.sel(test=test, loss_pair=label, delta=delta)) == \
                    pytest.approx(det_by_delta[-1], nan_ok=True)
                if test == "dp":
                    undecided_dp += [decided[k, r] for r in range(4) if not determinate[k, r]]
                    undecided_w += [h1["wilcoxon"][k, r] for r in range(4) if not determinate[k, r]]

            def trapezoid(y):
                return sum((y[k] + y[k + 1]) / 2 * (deltas[k + 1] - deltas[k]) for k in range(len(y) - 1))

            if test != "idp":
                assert areas.area.sel(runs_used="all", test=test, loss_pair=label) == pytest.approx(trapezoid(by_delta))
            assert float(areas.area.sel(runs_used="IDP determinate", test=test, loss_pair=label)) == \
                pytest.approx(trapezoid(det_by_delta), nan_ok=True)
        assert curves.indeterminate.sel(loss_pair=label).values.tolist() == pytest.approx(
            (1 - determinate.mean(axis=1)).tolist())
        assert int(table3.n_indeterminate.sel(loss_pair=label)) == len(undecided_dp)
        for test, shares in (("dp", undecided_dp), ("wilcoxon", undecided_w)):
            assert float(table3.h1.sel(test=test, loss_pair=label)) == pytest.approx(np.mean(shares))


@pytest.mark.long
def test_standard_errors_of_ratio_means_cover_the_run_to_run_scatter():
    """The linearised standard error of the IDP-determinate area against the scatter of the area over 40
    independent groups of 25 runs (a chi-square bound on the ratio of the two variances)."""
    res = signed_rank_study([-0.02, 0.0, 0.02, 0.04], [0.0], n_datasets=10, runs=1000, draws=100, workers=1,
                            random_seed=9, progressbar=False)
    areas = [loss_areas(res.isel(run=slice(25 * g, 25 * g + 25)), [(1, 19)])
             .sel(runs_used="IDP determinate", test="dp", loss_pair="(1, 19)", correlation=0.0) for g in range(40)]
    values, ses = np.array([float(a.area) for a in areas]), np.array([float(a.area_se) for a in areas])
    ratio = values.var(ddof=1) / np.mean(ses**2)
    low, high = stats.chi2.ppf([0.0005, 0.9995], 39) / 39
    assert low * 0.8 < ratio < high * 1.2, ratio  # 20% for the linearisation and the spread of the SEs


@pytest.mark.slow  # two local worker processes start: about 6 s, 15 s on a loaded machine
def test_results_do_not_depend_on_the_number_of_workers():
    kwargs = dict(deltas=[0.0, 0.03], correlations=[0.0, 0.5], n_datasets=8, runs=CHUNK + 5, draws=100,
                  random_seed=7, progressbar=False)
    serial, parallel = signed_rank_study(workers=1, **kwargs), signed_rank_study(workers=2, **kwargs)
    xr.testing.assert_identical(serial, parallel)
    other = signed_rank_study(workers=1, **{**kwargs, "random_seed": 8})
    assert not np.array_equal(serial.noise, other.noise)


def test_default_design_is_the_papers():
    assert DELTAS.tolist() == [round(-0.07 + 0.01 * k, 2) for k in range(15)]
    assert LOSS_PAIRS == ((1, 1), (1, 2), (1, 4), (1, 9), (1, 19))


@pytest.mark.parametrize("kwargs, name", [
    ({"correlations": [1.0]}, "correlations"), ({"deltas": []}, "deltas"), ({"n_datasets": 1}, "n_datasets"),
    ({"sigma": 0}, "sigma"), ({"runs": 0}, "runs"), ({"draws": 0}, "draws"), ({"workers": 0}, "workers")])
def test_bad_arguments_named(kwargs, name):
    with pytest.raises(ValueError, match=name):
        signed_rank_study(**{"runs": 2, "draws": 10, "progressbar": False, **kwargs})


def test_bad_loss_pairs_and_weights_named():
    res = handmade_results()
    for pairs in ([(1, 0)], [(1, 2, 3)], [(1, 1), (1, 1)]):
        with pytest.raises(ValueError, match="loss_pairs"):
            decisions(res, pairs)
    with pytest.raises(ValueError, match="alpha"):
        decisions(res, alpha=1.5)
    with pytest.raises(ValueError, match="weights"):
        idp_probabilities(np.zeros((2, 3)), np.full((5, 3), 1 / 3))


def test_regions_of_rows_equal_one_by_one():
    """PairSumRegions.of_rows (the study's batch of Deltas) against construction row by row, with ties, zeros,
    pair sums on the rope's edges and asymmetric ropes."""
    rng = np.random.default_rng(12)
    fields = ("columns", "points", "right_half", "right_full", "left_full", "left_half", "rope_empty", "right_trace")
    for trial in range(200):
        n = int(rng.integers(1, 16))
        z = np.round(rng.normal(0, 0.05, (4, n)), int(rng.integers(1, 4)))
        lo, hi = (0.0, 0.0) if trial % 2 else sorted(np.round(rng.normal(0, 0.02, 2), 2))
        columns = np.arange(1, n + 1)
        for batch, single in zip(PairSumRegions.of_rows(z, lo, hi, columns=columns),
                                 [PairSumRegions(row, lo, hi, columns=columns) for row in z]):
            for field in fields:
                assert np.array_equal(getattr(batch, field), getattr(single, field)), (trial, field)


@pytest.mark.long
def test_cli_simulate_signed_rank_writes_results_tables_and_figure(tmp_path, capsys):
    argv = ["simulate", "signed-rank", "--repetitions", "30", "--draws", "200", "--workers", "1", "--seed", "2",
            "--no-progress", "-o", str(tmp_path)]
    main(argv)
    out = capsys.readouterr().out
    assert "30 runs per Delta, 200 Dirichlet draws" in out and "correlation r = 0.95" in out
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "signed_rank.png", "signed_rank_areas.csv", "signed_rank_indeterminate.csv", "signed_rank_losses.csv",
        "signed_rank_results.nc"]
    results = xr.load_dataset(tmp_path / "signed_rank_results.nc", engine="scipy")
    areas = pd.read_csv(tmp_path / "signed_rank_areas.csv")
    expected = loss_areas(results)  # the saved tables are those of the saved statistics
    row = areas.query("runs_used == 'all' and test == 'dp' and loss_pair == '(1, 19)' and correlation == 0.95")
    assert row.area.item() == pytest.approx(float(expected.area.sel(runs_used="all", test="dp",
                                                                    loss_pair="(1, 19)", correlation=0.95)))
    capsys.readouterr()
    with pytest.raises(SystemExit) as refused:  # the parser refuses it (tests/test_cli_modes.py)
        main(["simulate", "toy", "--draws", "10", "--repetitions", "5"])
    assert refused.value.code == 2 and "--draws is not used by the toy study" in capsys.readouterr().err
