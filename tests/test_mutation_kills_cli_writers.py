"""What the command line writes and prints for a pair: ``pair_record`` (the JSON of ``pp-corr compare -o``) and
``format_table`` (the printed per-data-set table), and the options ``compare`` passes on (issue #19, mutation
survivors). Expected numbers: the enumerated Poisson test of tests/test_oracles_poisson.py and the Student-t
posterior written there."""
import json
import warnings

import numpy as np
import pytest

from pp_corr import NormalGamma, correlated_ttest, poisson_test
from pp_corr.cli import format_table, main, pair_record
from pp_corr.ttest import DegenerateWarning
from tests.test_oracles_poisson import FOLDS, count_distribution, make_differences, posterior_tails

Q = 4
ROPE = 0.004


@pytest.fixture(scope="module")
def x():
    return make_differences(Q, seed=11)


def test_pair_record_keys_and_values(x):
    d = pair_record(poisson_test(x, folds=FOLDS, rope=ROPE, alpha=0.2, names=("svm", "knn")))
    assert list(d) == ["a", "b", "rope", "rho", "prior", "alpha", "n_datasets", "p_b_majority", "p_a_majority",
                       "decision", "results"]
    p_right, p_left = posterior_tails(x, ROPE)
    majority = np.arange(Q + 1) > Q / 2
    p_b, p_a = (count_distribution(p)[majority].sum() for p in (p_right, p_left))
    rule = "knn" if p_b > 0.8 else "svm" if p_a > 0.8 else "none"
    assert (d["a"], d["b"], d["rope"], d["rho"], d["prior"], d["alpha"], d["n_datasets"], d["decision"]) == \
        ("svm", "knn", (-ROPE, ROPE), 1 / FOLDS, "matching", 0.2, Q, rule)
    assert (d["p_b_majority"], d["p_a_majority"]) == pytest.approx((p_b, p_a), rel=1e-10)
    assert [r["dataset"] for r in d["results"]] == [f"D{i + 1}" for i in range(Q)]
    assert [r["p_right"] for r in d["results"]] == pytest.approx(p_right.tolist(), rel=1e-10)
    assert [r["p_left"] for r in d["results"]] == pytest.approx(p_left.tolist(), rel=1e-10)


def test_pair_record_of_a_proper_prior_and_rho_per_data_set(x):
    prior = NormalGamma(0.0, 2.0, 3.0, 0.001)
    d = pair_record(poisson_test(x, rho=[0.1, 0.2, 0.1, 0.25], prior=prior))
    assert d["prior"] == {"mu0": 0.0, "k0": 2.0, "a": 3.0, "b": 0.001}
    assert d["rho"] == [0.1, 0.2, 0.1, 0.25] and d["rope"] is None


def test_format_table_marks_point_masses_and_names_the_prior(x):
    data = np.vstack([x[:2], np.full((1, FOLDS), 0.01)])   # D3: every difference equal -> a point mass
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateWarning)
        text = format_table(correlated_ttest(data, folds=FOLDS, names=("svm", "knn")))
    lines = text.splitlines()
    assert lines[0] == "knn - svm (positive: knn better), rope None, prior matching"
    assert [line.split()[0] for line in lines[2:5]] == ["D1", "D2", "D3*"]
    assert lines[4].split()[1:] == ["+0.0100", "[+0.0100,", "+0.0100]", "0.000", "0.000", "1.000"]
    assert lines[5:] == ["* all differences equal: the posterior is a point mass"]
    prior = NormalGamma(0.0, 2.0, 3.0, 0.001)
    plain = format_table(correlated_ttest(x, folds=FOLDS, prior=prior)).splitlines()
    assert plain[0] == f"B - A (positive: B better), rope None, prior {prior!r}"
    assert [line.split()[0] for line in plain[3:]] == [f"D{i + 1}" for i in range(Q)]   # no point mass, no note


def write_scores(path, encoding):
    """Tidy scores of two algorithms on two data sets, one named with a non-ASCII letter, in ``encoding``."""
    rng = np.random.default_rng(3)
    rows = ["dataset,algorithm,run,fold,score"]
    for dataset in ("café", "iris"):
        for algorithm, shift in (("a", 0.0), ("b", 0.01)):
            rows += [f"{dataset},{algorithm},1,{fold},{0.8 + shift + 0.02 * rng.standard_normal():.6f}"
                     for fold in range(1, 6)]
    path.write_text("\n".join(rows) + "\n", encoding=encoding)


def test_compare_reads_the_file_in_the_given_encoding_with_the_given_prior(tmp_path, capsys):
    source, out = tmp_path / "scores.csv", tmp_path / "out.json"
    write_scores(source, "cp1252")
    assert "café".encode("cp1252") in source.read_bytes() and "café".encode("utf-8") not in source.read_bytes()
    main(["compare", str(source), "--encoding", "cp1252", "--prior", "0,2,3,0.001", "-o", str(out)])
    capsys.readouterr()
    (record,) = json.loads(out.read_text())
    assert [r["dataset"] for r in record["results"]] == ["café", "iris"]
    assert record["prior"] == {"mu0": 0.0, "k0": 2.0, "a": 3.0, "b": 0.001}
