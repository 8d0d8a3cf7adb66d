"""The all-pairs table as text and its argument checks (issue #19, mutation survivors): every cell that
``format_pairs`` prints is read back and compared with the table it was given (whose numbers and decisions
tests/test_oracles_pairs.py checks against scipy, Dirichlet moments and an enumeration)."""
import numpy as np
import pytest

import pp_corr.pairs
from pp_corr import compare_all_pairs, example_path, format_pairs, load_scores
from pp_corr.pairs import TESTS


@pytest.fixture(scope="module")
def table():
    return compare_all_pairs(load_scores(example_path()), n_samples=2000, random_seed=0)


def rows_of(block, algorithms):
    """{row name: its cells} of one printed matrix (header, index-name line, then one line per algorithm)."""
    lines = block.splitlines()
    assert lines[1].split() == ["b", *algorithms] and lines[2].split() == ["a"]
    return {line.split()[0]: line.split()[1:] for line in lines[3:]}


def test_every_printed_cell_is_the_tables(table):
    algorithms = [str(a) for a in table.a.values]
    blocks = format_pairs(table).split("\n\n")
    assert len(blocks) == 1 + len(TESTS)
    title = "P(column better than row on a majority of 4 data sets), Poisson test, rope 0.01:"
    assert blocks[0].splitlines()[0] == title
    cells = rows_of(blocks[0], algorithms)
    p = table.p_b_majority.values
    for i, a in enumerate(algorithms):   # the diagonal is blank, so a row shows the k - 1 other cells
        assert cells[a] == [f"{p[i, j]:.3f}" for j in range(len(algorithms)) if j != i], a
    for block, test in zip(blocks[1:], TESTS):
        assert block.splitlines()[0] == f"Better of the pair at alpha = 0.05 ({test} test):"
        verdicts = rows_of(block, algorithms)
        decisions = table[f"decision_{test}"].values
        for i, a in enumerate(algorithms):
            assert verdicts[a] == [decisions[i, j] for j in range(len(algorithms)) if j != i], (test, a)
    assert np.isnan(np.diag(p)).all()


def test_format_pairs_names_what_it_was_given():
    with pytest.raises(TypeError, match="got list$"):
        format_pairs([1, 2])


def test_the_rope_is_checked_before_any_test_runs(monkeypatch):
    def started(*args, **kwargs):
        raise AssertionError("a test ran before the rope was checked")

    monkeypatch.setattr(pp_corr.pairs, "poisson_test", started)
    with pytest.raises(ValueError, match="^rope must be in"):
        compare_all_pairs(load_scores(example_path()), rope=-0.1)
