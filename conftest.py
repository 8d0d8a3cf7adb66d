"""pytest set-up shared by the suite (tests/) and the package's doctests (pp_corr/)."""
import sys

import pytest


@pytest.fixture(autouse=True, scope="session")
def _chains_one_at_a_time():
    """The suite's two processes (pytest-xdist) fill the cores, so PyMC's chains run one at a time in each, as in a
    Dask worker's task (``pp_corr.sampling.parallel_chains``); tests/test_sampling.py restores the rule to test it."""
    import pp_corr.sampling

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(pp_corr.sampling, "parallel_chains", lambda chains: 1)
        yield


@pytest.fixture(autouse=True)
def _close_figures():
    """Each test's and each doctest's figures are closed after it, so a long run never piles up open figures (a
    worker that had run a handful of plotting doctests failed the next test that drew: more than 20 open figures
    is a RuntimeWarning, an error here)."""
    yield
    if "matplotlib.pyplot" in sys.modules:
        sys.modules["matplotlib.pyplot"].close("all")


# Marked long here rather than where they are defined: the doctests that fit a model (MCMC, Plackett-Luce, a report
# or a check that fits), over ~3 s each, and the long tests of the modules other work was editing at the same time
# (tests/test_cli.py, test_plots.py, test_registries.py, test_report.py; the other long tests have
# @pytest.mark.long in place). Measured with --durations in `make test-fast` runs (two processes, load 3-4): the
# doctests alone took 187 s of CPU, so `make test-fast` could not stay under 2 minutes on two cores with them.
# They all still run in `make test`, and in mutation testing (which leaves out only `slow`). An id is a test, or a
# prefix of its parametrized ids.
LONG = (
    "pp_corr/hierarchical/joint.py::pp_corr.hierarchical.joint.joint_test",
    "pp_corr/hierarchical/fit.py::pp_corr.hierarchical.fit.hierarchical_test",
    "pp_corr/hierarchical/fit.py::pp_corr.hierarchical.fit.exact_arguments",
    "pp_corr/hierarchical/fit.py::pp_corr.hierarchical.fit.HierarchicalResult.with_log_likelihood",
    "pp_corr/hierarchical/fit.py::pp_corr.hierarchical.fit.HierarchicalResult.summary",
    "pp_corr/hierarchical/fit.py::pp_corr.hierarchical.fit.HierarchicalResult.new_dataset",
    "pp_corr/hierarchical/fit.py::pp_corr.hierarchical.fit.HierarchicalResult.to_dict",
    "pp_corr/hierarchical/fit.py::pp_corr.hierarchical.fit.HierarchicalResult.to_frame",
    "pp_corr/hierarchical/fit.py::pp_corr.hierarchical.fit.HierarchicalResult.format_datasets",
    "pp_corr/hierarchical/model.py::pp_corr.hierarchical.model.add_log_prior",
    "pp_corr/hierarchical/batch.py::pp_corr.hierarchical.batch.hierarchical_tests",
    "pp_corr/checks.py::pp_corr.checks.compare_variants",
    "pp_corr/checks.py::pp_corr.checks.prior_sensitivity",
    "pp_corr/checks.py::pp_corr.checks.predictive_intervals",
    "pp_corr/checks.py::pp_corr.checks.compare_to_analytic",
    "pp_corr/checks.py::pp_corr.checks.compare_w_to_poisson_binomial",
    "pp_corr/plots.py::pp_corr.plots.plot_shrinkage",
    "pp_corr/plots.py::pp_corr.plots.plot_posterior_predictive",
    "pp_corr/plots.py::pp_corr.plots.plot_analytic_overlay",
    "pp_corr/ranking.py::pp_corr.ranking.plackett_luce",
    "pp_corr/ranking.py::pp_corr.ranking.PlackettLuceResult.summary",
    "pp_corr/ranking.py::pp_corr.ranking.PlackettLuceResult.before",
    "pp_corr/pairwise/models.py::pp_corr.pairwise.models.intraclass_likelihood",
    "pp_corr/pairwise/models.py::pp_corr.pairwise.models.add_log_likelihood",
    "pp_corr/reporting/report.py::pp_corr.reporting.report.write_report",
    "tests/test_cli.py::test_an_unconverged_hierarchical_fit_prints_no_verdict_and_exits_3",
    "tests/test_cli.py::test_hierarchical_pairs_on_workers_print_the_shrinkage_table",
    "tests/test_cli.py::test_allow_unconverged_shows_the_numbers_under_a_warning_and_exits_0",
    "tests/test_cli.py::test_simulate_writes_results_rates_and_figures_and_says_when_it_replaces",
    "tests/test_cli.py::test_plots_of_all_pairs_and_of_every_pair",
    "tests/test_cli.py::test_plots_of_a_pair_in_the_formats_asked",
    "tests/test_cli.py::TestArgumentEdges::test_regression_simulate_repetitions_too_many",
    "tests/test_registries.py::"
    "test_a_prior_with_hyperpriors_added_to_the_table_reaches_the_model_and_the_quadrature",
    "tests/test_registries.py::test_the_command_line_draws_and_writes_the_added_test",
    "tests/test_report.py::test_a_report_of_16_algorithms_is_small_and_leads_with_the_verdict",
    "tests/test_report.py::test_the_rank_diagram_separates_as_the_pair_table_decides",  # wide_report's other user
    "tests/test_report.py::test_large_figures_are_linked_and_written_with_the_html",
    "tests/test_report.py::test_the_sampler_reaches_the_hierarchical_and_joint_fits",
    "tests/test_report.py::test_a_converged_joint_fit_shows_its_numbers_and_how_it_was_sampled",
    "tests/test_report.py::test_pair_figures_on_request",
    "tests/test_report.py::test_cli_writes_the_report_and_names_its_errors",
    "tests/test_plots.py::test_pairs_grow_with_algorithms_without_overlap",
    "tests/test_plots.py::test_every_plot_uses_the_palette_and_names_algorithms",
    "tests/test_plots.py::test_compact_cells_point_to_the_better_and_fit_the_page[40]",
    "tests/test_plots.py::test_forest_grows_with_datasets_without_overlap[200]",
)


def pytest_collection_modifyitems(config, items):
    """Mark the tests of LONG long. An id that matches nothing in a file that was collected is an error (a test
    renamed or removed: the list must follow)."""
    files = {item.nodeid.split("::")[0] for item in items}
    for nodeid in LONG:
        if nodeid.split("::")[0] not in files:
            continue
        matches = [item for item in items if item.nodeid == nodeid or item.nodeid.startswith(nodeid + "[")]
        if not matches:
            raise pytest.UsageError(f"conftest.py LONG: {nodeid} was not collected (renamed or removed?)")
        for item in matches:
            item.add_marker(pytest.mark.long)
