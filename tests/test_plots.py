"""Plot arguments: a data set that is not there, or a choice the plot cannot make, is an error naming it."""
import numpy as np
import pytest

import pp_corr
from pp_corr import plots


@pytest.fixture(scope="module")
def per_dataset():
    return pp_corr.correlated_ttest(pp_corr.load_scores(pp_corr.example_path()), algorithms=("tree", "knn"), rope=0.01)


def test_regression_plot_unknown_dataset_is_named(per_dataset):
    with pytest.raises(ValueError, match="dataset='iriss' is not in the result"):
        plots.plot_posterior(per_dataset, "iriss")
    with pytest.raises(ValueError, match="choose one with dataset="):
        plots.plot_posterior(per_dataset)
    ax = plots.plot_posterior(per_dataset, "wine")
    assert ax.get_title().startswith("wine:")
    single = pp_corr.correlated_ttest(np.random.default_rng(0).normal(0, 0.02, 10), folds=10)
    with pytest.raises(ValueError, match="one unnamed data set"):
        plots.plot_posterior(single, "wine")


@pytest.mark.parametrize("level", [0.0, 1.0, 1.5, float("nan")])
def test_regression_plot_forest_confidence_level(per_dataset, level):
    with pytest.raises(ValueError, match="confidence_level"):
        plots.plot_forest(per_dataset, confidence_level=level)


def test_plot_simplex_max_points():
    res = pp_corr.bayesian_signed_rank([0.02, 0.01, 0.03, -0.01, 0.02], rope=0.01, n_samples=500, random_seed=0)
    with pytest.raises(ValueError, match="max_points"):
        plots.plot_simplex(res, max_points=0)


def test_regression_plot_posterior_at_any_magnitude():
    """The plotted density is the result's posterior, whatever the units (its b overflows beyond ~1e154)."""
    x = np.array([[1.0, 2.0, 3.0, 2.5], [1.0, 2.0, 3.0, 2.5]]) * np.array([[1e160], [1.0]])
    res = pp_corr.correlated_ttest(x, folds=4, rope=(-1e159, 1e159))
    ax = plots.plot_posterior(res, "D1")
    grid, density = ax.lines[0].get_data()
    assert np.isfinite(density).all() and grid.min() < 2.125e160 < grid.max()
    np.testing.assert_allclose(density * 1e160, plots.plot_posterior(res.with_rope(1.0), "D2").lines[0].get_data()[1],
                               rtol=1e-9)
