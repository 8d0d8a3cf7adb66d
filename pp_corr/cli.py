"""Command line: ``pp-corr compare FILE``, ``pp-corr report FILE -o DIR``, ``pp-corr simulate STUDY``,
``pp-corr replicability FILE``, ``pp-corr sequential FILE``, ``pp-corr items FILE``, ``pp-corr demo``.

Every error is one line on stderr starting ``pp-corr:`` that names the option or path, with a non-zero exit
status (2 for a wrong option, 1 for other errors, 3 when a hierarchical fit with --method mcmc did not
converge); arguments and output paths are checked before any work starts. Tables go to stdout; progress,
warnings and the names of written files to stderr.
"""
from __future__ import annotations

import argparse
import functools
import itertools
import sys
import tempfile
import warnings

import numpy as np
import pandas as pd

from . import __version__
from ._args import SAMPLERS, check_count, check_probability_level, check_real
from .cli_modes import parse_args
from .cli_reading import add_reading_options, cli_spelling, input_file, load_file, option
from .data.scores import example_path
from .execution import check_scheduler
from .figures import plot_files
from .figures.kinds import AllPairs, HierarchicalFit
from .hierarchical.exact import METHODS
from .pairwise.pairs import TESTS, compare_all_pairs, format_pairs
from .pairwise.poisson_test import poisson_test
from .pairwise.rank_tests import bayesian_signed_rank
from .pairwise.priors import NormalGamma
from .pairwise.ttest import DegenerateWarning
from .reporting.figure_files import pair_figures, save_figure
from .reporting.output import check_output_dir, check_output_file, write_files, write_result
from .items.command import add_command as add_items_command
from .sequential.command import add_command as add_sequential_command


def format_table(result, *, negated=False, alpha=None) -> str:
    """The per-data-set table printed by ``pp-corr compare``, the correlated t-test's summary; ``negated``: the
    scores are losses, negated on loading (``--lower-is-better``), so the title names the difference in the units
    given, a - b.

    >>> from pp_corr import correlated_ttest
    >>> print(format_table(correlated_ttest([0.01, 0.03, 0.02, 0.04], folds=4, names=("a", "b")), negated=True))
    a - b (lower is better, positive: b better), rope None, prior matching
      mean diff        95% interval P(a better) P(rope) P(b better) decision
    0   +0.0250  [-0.0064, +0.0564]       0.043   0.000       0.957        b
    """
    text = result.summary(alpha=alpha)
    if not negated:
        return text
    a, b = result.names
    return text.replace(f"{b} - {a} (positive: {b} better)", f"{a} - {b} (lower is better, positive: {b} better)", 1)


def _parse_prior(text):
    if text in (None, "matching"):
        return NormalGamma.matching()
    try:
        mu0, k0, a, b = (float(v) for v in text.split(","))
    except ValueError:
        raise ValueError(f"--prior takes 'matching' or 'mu0,k0,a,b', got {text!r}") from None
    try:
        return NormalGamma(mu0, k0, a, b)
    except ValueError as err:
        raise ValueError(f"--prior {text}: {err}") from None


def _pair_options(args):
    """The pair named by -a and -b, or None (all pairs)."""
    if not (args.a or args.b):
        return None
    if not (args.a and args.b):
        raise ValueError("give both -a and -b, or neither (all pairs)")
    if args.a == args.b:
        raise ValueError(f"-a and -b name the same algorithm {args.a!r}: nothing to compare")
    return args.a, args.b


def _pairs(scores, args, source):
    algos = [str(a) for a in scores.algorithm.values]
    if args.a or args.b:
        for flag, name in (("-a", args.a), ("-b", args.b)):
            if name not in algos:
                raise ValueError(f"{flag} {name!r} is not in {source} (it has {algos})")
        return [(args.a, args.b)]
    if len(algos) < 2:
        raise ValueError(f"{source} holds {len(algos)} algorithm(s) {algos}: nothing to compare")
    return list(itertools.combinations(algos, 2))


PLOT_FORMATS = ("png", "svg", "pdf")


def _check_plot_options(args):
    """The figure options, checked before any work: --plots DIR is created if needed and a file can be written
    in it; --plot-format and --plot-dataset need it. Returns the directory or None."""
    if not args.plots:
        for flag, value in (("--plot-format", args.plot_format), ("--plot-dataset", args.plot_dataset)):
            if value:
                raise ValueError(f"{flag} applies with --plots DIR only")
        return None
    try:
        directory = check_output_dir(args.plots)
        directory.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=directory):  # a probe: permissions alone do not say it (root, /proc)
            pass
    except (OSError, ValueError) as err:
        reason = getattr(err, "strerror", None) or err
        raise ValueError(f"--plots {args.plots}: cannot write figures there ({reason})") from None
    return directory


def write_figures(directory, formats, figures):
    """Write ``figures`` (pairs of a file stem and a function that draws the figure) in each format, all or
    none; each figure is drawn when it is written and closed after.

    >>> import pathlib, tempfile, matplotlib.pyplot as plt
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> write_figures(folder, ["svg"], [("empty", lambda: plt.subplots()[0])])
    >>> sorted(p.name for p in folder.iterdir())
    ['empty.svg']
    """
    writers = {}
    for stem, draw in figures:
        for file_format in formats or ["png"]:
            path = directory / f"{stem}.{file_format}"
            if path in writers:
                raise ValueError(f"--plots: two figures would both be written to {path} (rename an algorithm)")
            writers[path] = functools.partial(save_figure, draw, file_format)
    write_files(writers)


def _compare(args):
    source = input_file(args.file)
    output = check_output_file(args.output) if args.output else None
    plots_dir = _check_plot_options(args)
    prior = _parse_prior(args.prior)
    scores = load_file(source, args, _pair_options(args))
    pairs = _pairs(scores, args, source)
    unknown = [d for d in args.plot_dataset or [] if d not in set(scores.dataset.values)]
    if unknown:
        raise ValueError(f"--plot-dataset {unknown[0]!r} is not in {source} (it has {list(scores.dataset.values)})")
    if args.hierarchical and scores.sizes["dataset"] < 2:
        raise ValueError(f"--hierarchical models the population of data sets, and {source} holds one "
                         f"({scores.dataset.values[0]}): leave it out to compare on that data set")
    if args.hierarchical:
        _compare_hierarchical(scores, pairs, args, output, plots_dir)
    elif args.all_pairs:
        if scores.sizes["dataset"] < 2:
            raise ValueError(f"--all-pairs compares algorithms across data sets, and {source} holds one "
                             f"({scores.dataset.values[0]}); leave out --all-pairs to compare on it")
        table = compare_all_pairs(scores, rope=args.rope, alpha=args.alpha, prior=prior, random_seed=args.seed)
        from .ranking import order_by_ranking

        order = order_by_ranking(scores)  # best average rank first
        print(format_pairs(table, order))
        if output:
            off_diagonal = table.to_dataframe().reset_index().query("a != b")
            write_result(output, lambda: {"attrs": table.attrs, "pairs": off_diagonal.to_dict(orient="records")},
                         lambda: off_diagonal)
        if plots_dir:  # the matrix of each test
            write_figures(plots_dir, args.plot_format, plot_files(AllPairs(table, test, order) for test in TESTS))
    else:
        with warnings.catch_warnings():  # the table marks point-mass posteriors itself
            warnings.simplefilter("ignore", DegenerateWarning)
            results = [poisson_test(scores, algorithms=pair, rope=args.rope, prior=prior, alpha=args.alpha)
                       for pair in pairs]
        for result in results:
            print(format_table(result.per_dataset, negated=args.lower_is_better, alpha=args.alpha), end="\n\n")
            if result.n_datasets > 1:
                print(result.summary(), end="\n\n")
                print(bayesian_signed_rank(scores, algorithms=result.names, rope=args.rope, random_seed=args.seed)
                      .summary(alpha=args.alpha), end="\n\n")
        if output:
            write_result(output, lambda: [r.to_dict() for r in results],
                         lambda: pd.concat([r.to_frame() for r in results], ignore_index=True))
        if plots_dir:
            write_figures(plots_dir, args.plot_format,
                           [f for r in results for f in pair_figures(r, args.plot_dataset or [], scores,
                                                                     rope=args.rope, random_seed=args.seed)])


UNCONVERGED = 3  # exit status of ``compare --hierarchical --method mcmc`` when a fit did not converge


def _compare_hierarchical(scores, pairs, args, output, plots_dir=None):
    from .hierarchical.batch import hierarchical_tests  # PyMC: imported only when asked for

    # the pairs on the Dask layer (each pair's line on stderr as it finishes)
    results = list(hierarchical_tests(scores, pairs, rope=args.rope, random_seed=args.seed, method=args.method,
                                      sampler=args.sampler, progressbar=True, workers=args.workers,
                                      scheduler=args.scheduler).values())
    for result in results:
        print(result.summary(allow_unconverged=args.allow_unconverged), end="\n\n")
        if result.converged or args.allow_unconverged:
            print(result.format_datasets(), end="\n\n")
    if output:
        write_result(output, lambda: [r.to_dict() for r in results],
                     lambda: pd.concat([r.to_frame() for r in results], ignore_index=True))
    if plots_dir:  # the figures of the fits whose numbers were shown
        write_figures(plots_dir, args.plot_format, plot_files(HierarchicalFit(r, args.seed) for r in results
                                                              if r.converged or args.allow_unconverged))
    failed = [f"{r.names[1]} - {r.names[0]}" for r in results if not r.converged]
    if failed and not args.allow_unconverged:
        print(f"pp-corr: the hierarchical model did not converge for {', '.join(failed)}, even after a retry with "
              f"robust settings: no verdict (exit status {UNCONVERGED}; --allow-unconverged shows the numbers)",
              file=sys.stderr)
        raise SystemExit(UNCONVERGED)


def _report(args):
    from .reporting.report import check_report_directory, write_report  # PyMC: imported when asked for

    source = input_file(args.file)
    directory = check_report_directory(args.output, args.overwrite, name="--output", allow="--overwrite")
    prior = _parse_prior(args.prior)
    scores = load_file(source, args)
    for flag, asked in (("--hierarchical", args.hierarchical), ("--joint", args.joint)):
        if asked and scores.sizes["dataset"] < 2:
            raise ValueError(f"{flag} models the population of data sets, and {source} holds one "
                             f"({scores.dataset.values[0]}): leave it out")
    k, q = scores.sizes["algorithm"], scores.sizes["dataset"]
    write_report(scores, directory, rope=args.rope, alpha=args.alpha, prior=prior, hierarchical=args.hierarchical,
                 joint=args.joint, method=args.method, sampler=args.sampler, random_seed=args.seed,
                 overwrite=args.overwrite, pair_figures=args.pair_figures,
                 title=f"{source.name}: {k} algorithms on {q} data set{'s' * (q != 1)}")
    print(f"report written to {directory}: report.html, report.md with figures/, tables.tex")


def _demo(args):
    """compare on the embedded example: one pair, then every pair (the options of compare at their defaults)."""
    pair = build_parser().parse_args(["compare", str(example_path()), "-a", "logistic", "-b", "knn",
                                       "--rope", repr(args.rope)])
    print(f"Embedded example: {example_path().name} (scikit-learn classifiers, 10 runs of 10-fold CV)\n")
    _compare(pair)
    pair.a, pair.b, pair.all_pairs = None, None, True  # every classifier of the example
    _compare(pair)


def format_rates(rates) -> str:
    """The rejection rates of a simulation study as 'rate (se)', one column per test and number of runs.

    >>> from pp_corr.studies.simulation import rejection_rates, toy_example
    >>> print(format_rates(rejection_rates(toy_example(repetitions=100, random_seed=0))).splitlines()[0])
    toy example: how often B is declared better than A at alpha = 0.05, 100 repetitions; rate (standard error)
    """
    frame = rates[["rate", "se"]].to_dataframe()
    cells = frame["rate"].map("{:.3f}".format) + " (" + frame["se"].map("{:.3f}".format) + ")"
    keys = [k for k in ("test", "runs") if k in frame.index.names]
    table = cells.unstack(keys) if keys else cells.to_frame("rate (se)")
    return (f"{rates.attrs['study']}: how often {rates.attrs['b']} is declared better than {rates.attrs['a']} "
            f"at alpha = {rates.alpha:g}, {rates.repetitions} repetitions; rate (standard error)\n{table.to_string()}")


def format_estimates(values, errors, columns) -> str:
    """A table of 'value (standard error)' cells, ``columns`` the dims that go across.

    >>> import xarray as xr
    >>> v = xr.DataArray([[0.5, 0.25]], dims=("test", "loss_pair"), coords={"test": ["dp"], "loss_pair": ["a", "b"]})
    >>> print(format_estimates(v, v / 10, ["loss_pair"]))  # doctest: +NORMALIZE_WHITESPACE
    loss_pair                a               b
    test                                      
    dp         0.5000 (0.0500)  0.2500 (0.0250)
    """
    frame = pd.DataFrame({"value": values.to_series(), "se": errors.to_series()})
    cells = frame["value"].map(lambda v: "-" if np.isnan(v) else f"{v:.4f}") + \
        frame["se"].map(lambda v: "" if np.isnan(v) else f" ({v:.4f})")
    return cells.unstack(columns).to_string()


def _signed_rank_tables(areas, undecided) -> str:
    """The loss study's three tables as text: areas over all runs and over the IDP-determinate runs, and the DP's
    and Wilcoxon's H1 share in the IDP-indeterminate cases."""
    attrs = areas.attrs
    parts = [f"signed-rank loss study: {attrs['runs']} runs per Delta, {attrs['draws']} Dirichlet draws per test, "
             f"q = {attrs['n_datasets']}, sigma = {attrs['sigma']:g}; Wilcoxon at alpha = {attrs['alpha']:g}; "
             "value (Monte Carlo standard error)"]
    for r in areas.correlation.values:
        sel = areas.sel(correlation=r)
        parts += [f"\ncorrelation r = {r:g}: area under the loss curve over the Delta grid (span "
                  f"{attrs['delta_span']:g}; IDP: only where it decides)",
                  format_estimates(sel.area, sel.area_se, ["loss_pair"]),
                  f"\ncorrelation r = {r:g}: share of H1 decisions where the IDP is indeterminate",
                  format_estimates(undecided.h1.sel(correlation=r), undecided.h1_se.sel(correlation=r),
                                   ["loss_pair"]),
                  "indeterminate cases: " + ", ".join(
                      f"{k} {int(n)}" for k, n in undecided.n_indeterminate.sel(correlation=r).to_series().items())]
    return "\n".join(parts)


def _csv(data):
    """A writer (for :func:`write_files`) of an xarray Dataset as a tidy CSV: one row per coordinate tuple."""
    return lambda path: data.to_dataframe().reset_index().to_csv(path, index=False)


def _png(figure):
    """A writer (for :func:`write_files`) of a figure as a 120-dpi PNG."""
    return lambda path: figure.savefig(path, dpi=120, format="png")


def _simulate_signed_rank(args, out):
    from .studies.signed_rank_figure import plot_signed_rank_losses
    from .studies.signed_rank_study import indeterminate_decisions, loss_areas, loss_curves, signed_rank_study

    results = signed_rank_study(runs=args.repetitions or 1000, draws=args.draws, random_seed=args.seed,
                                scheduler=args.scheduler, workers=args.workers, progressbar=not args.no_progress)
    curves, areas = loss_curves(results, alpha=args.alpha), loss_areas(results, alpha=args.alpha)
    undecided = indeterminate_decisions(results, alpha=args.alpha)
    print(_signed_rank_tables(areas, undecided))
    if out is None:
        return
    figure = plot_signed_rank_losses(curves)

    write_files({out / "signed_rank_results.nc": lambda p: results.to_netcdf(p, engine="scipy"),
                 out / "signed_rank_losses.csv": _csv(curves), out / "signed_rank_areas.csv": _csv(areas),
                 out / "signed_rank_indeterminate.csv": _csv(undecided),
                 out / "signed_rank.png": _png(figure)})


def format_sizes(summary) -> str:
    """The Nadeau-Bengio study's sizes as 'size (se)', one row per procedure and one column per configuration,
    then rho against rho0 = n2 / n.

    >>> from pp_corr.studies.nadeau_bengio_study import CONFIGURATIONS, nadeau_bengio_study, study_summary
    >>> res = nadeau_bengio_study(repetitions=5, configurations=CONFIGURATIONS[:1], splits=3, halvings=2,
    ...                           bootstrap_repetitions=2, random_seed=0, workers=1, progressbar=False)
    >>> format_sizes(study_summary(res)).splitlines()[0]
    'Nadeau & Bengio (2003): size of each procedure at alpha = 0.05 (rejection rate under H0, standard error)'
    """
    short = {c: f"C{i + 1}" for i, c in enumerate(summary.config.values)}
    frame = summary[["size", "size_se"]].to_dataframe().rename(index=short, level="config")
    cells = (frame["size"].map("{:.3f}".format) + " (" + frame["size_se"].map("{:.3f}".format) + ")").unstack("config")
    rho = summary[["rho", "rho_se", "rho0"]].to_dataframe().round(3)
    rho.index = [f"{short[c]}: {c}" for c in rho.index]
    return (f"{summary.attrs['study']}: size of each procedure at alpha = {summary.attrs['alpha']:g} (rejection rate "
            f"under H0, standard error)\n{cells.to_string()}\n\nconfigurations, and the correlation of two split "
            f"estimates (rho, its standard error) against rho0 = n2 / n\n{rho.to_string()}")


def _simulate_nadeau_bengio(args, out):
    from .studies.nadeau_bengio_plots import plot_power, plot_rho, plot_sizes
    from .studies.nadeau_bengio_study import nadeau_bengio_study, pseudo_power, study_summary

    results = nadeau_bengio_study(repetitions=args.repetitions, random_seed=args.seed, scheduler=args.scheduler,
                                  workers=args.workers, progressbar=not args.no_progress)
    summary, power = study_summary(results, alpha=args.alpha), pseudo_power(results, alpha=args.alpha)
    print(format_sizes(summary))
    if out is None:
        return
    figures = {"sizes": plot_sizes(summary).figure, "rho": plot_rho(summary).figure,
               "power": plot_power(power)[0].figure}

    writers = {out / "nadeau_bengio_results.nc": lambda p: results.to_netcdf(p, engine="scipy"),
               out / "nadeau_bengio_sizes.csv": _csv(summary[["size", "size_se", "political_ratio",
                                                              "political_ratio_se"]]),
               out / "nadeau_bengio_rho.csv": _csv(summary[["rho", "rho_se", "rho0"]]),
               out / "nadeau_bengio_power.csv": _csv(power)}
    for name, figure in figures.items():
        writers[out / f"nadeau_bengio_{name}.png"] = _png(figure)
    write_files(writers)


def _simulate(args):
    from . import plots
    from .studies import simulation  # imported when asked for

    out = check_output_dir(args.output) if args.output else None
    if args.study == "signed-rank":
        return _simulate_signed_rank(args, out)
    if args.study == "nadeau-bengio":
        return _simulate_nadeau_bengio(args, out)
    common = dict(repetitions=args.repetitions or 5000, random_seed=args.seed, scheduler=args.scheduler,
                  workers=args.workers, progressbar=not args.no_progress)
    if args.study == "toy":
        results = simulation.toy_example(**common)
    else:
        run = simulation.experiment_1 if args.study == "experiment1" else simulation.experiment_2
        results = run(**common)
    rates = simulation.rejection_rates(results, alpha=args.alpha)
    print(format_rates(rates))
    if out is None:
        return
    if args.study == "toy":
        figures = {"": plots.plot_toy_example(results)}
    else:
        figures = {f"_q{int(q)}": plots.plot_rejection_rates(rates.sel(n_datasets=[q])).figure
                   for q in rates.n_datasets.values}
    writers = {out / f"{args.study}_results.nc": lambda p: results.to_netcdf(p, engine="scipy"),
               out / f"{args.study}_rates.csv": _csv(rates)}
    for suffix, figure in figures.items():
        writers[out / f"{args.study}{suffix}.png"] = _png(figure)
    write_files(writers)


def format_replicability(table) -> str:
    """The replicability table as text: shares of H1 and indeterminate, R over all, IDP-determinate and
    IDP-indeterminate subsets.

    >>> from pp_corr import load_scores
    >>> from pp_corr.studies.replicability import replicability_decisions, replicability_table
    >>> table = replicability_table(replicability_decisions(load_scores(example_path()), subset_size=3,
    ...                                                     n_subsets=20, draws=200, random_seed=0))
    >>> format_replicability(table).splitlines()[0]
    'replicability on 20 subsets per pair: H1 = B better; R = 1 - 2 var(decision) (1: always the same answer)'
    """
    shown = table.drop(columns=["a", "b", "n_subsets"]).rename(columns=lambda c: c.replace("_determinate", " det.")
                                                                .replace("_indeterminate", " indet."))
    cells = shown.T.apply(lambda row: row.map("{:.0f}".format if row.name == "n det." else "{:.3f}".format), axis=1)
    return (f"replicability on {int(table.n_subsets.iloc[0])} subsets per pair: H1 = B better; "
            f"R = 1 - 2 var(decision) (1: always the same answer)\n{cells.to_string()}\n"
            "det. / indet.: over the subsets where the imprecise signed-rank test (idp) decides / does not; "
            "n det.: their number")


def _replicability(args):
    from .studies.replicability import replicability_decisions, replicability_table

    source = input_file(args.file)
    output = check_output_file(args.output, suffixes=(".csv",)) if args.output else None
    pair = _pair_options(args)
    scores = load_file(source, args, pair)
    decisions = replicability_decisions(scores, pairs=None if pair is None else [pair], subset_size=args.subset_size,
                                        n_subsets=args.subsets, loss_ratio=args.loss_ratio, alpha=args.alpha,
                                        draws=args.draws, random_seed=args.seed)
    table = replicability_table(decisions)
    print(format_replicability(table))
    if output is not None:
        write_files({output: lambda p: table.to_csv(p)})


class _Parser(argparse.ArgumentParser):
    """argparse with one-line errors: ``pp-corr: <message>`` and exit status 2."""

    def error(self, message):
        self.exit(2, f"pp-corr: {message} (see pp-corr {' '.join(self.prog.split()[1:])} --help)\n")


EXAMPLES = {  # the epilog of each --help: what to type
    "pp-corr": ["pp-corr demo", "pp-corr compare scores.csv -a lr -b ridge", "pp-corr report scores.csv -o report"],
    "compare": ["pp-corr compare scores.csv -a lr -b ridge --rope 0.01",
                "pp-corr compare scores.csv --all-pairs --exclude-algorithms passive",
                "pp-corr compare results.csv --column dataset=db --na-values failed -a lr -b ridge"],
    "report": ["pp-corr report scores.csv -o report --rope 0.01"],
    "simulate": ["pp-corr simulate toy --repetitions 500 -o toy"],
    "replicability": ["pp-corr replicability scores.csv -a lr -b ridge --subsets 200"],
    "demo": ["pp-corr demo --rope 0.02"],
    "sequential": ["pp-corr sequential scores.csv -a nbc -b hnb", "pp-corr sequential scores.csv -a nbc -b hnb "
                   "--over datasets --orders 10"],
    "items": ["pp-corr items scores.csv -a base -b tuned --rope 0.01",
              "pp-corr items lm_eval_output/ -a model-7b -b model-13b --metric acc_norm --hierarchical",
              "pp-corr items seeds.csv -a base -b tuned --runs seeds"],
}


def _examples(command) -> dict:
    """The keywords of a parser whose --help ends with the examples of ``command``."""
    return {"epilog": "examples:\n" + "\n".join(f"  {line}" for line in EXAMPLES[command]),
            "formatter_class": argparse.RawDescriptionHelpFormatter}


def build_parser() -> argparse.ArgumentParser:
    """The parser of ``pp-corr``; ``commands`` holds the parser of each subcommand (for
    :func:`pp_corr.cli_modes.parse_args`, which refuses an option the mode does not use).

    >>> sorted(build_parser().commands)
    ['compare', 'demo', 'items', 'replicability', 'report', 'sequential', 'simulate']
    """
    rope = option(check_real, low=0)
    level = option(check_probability_level)
    seed = option(check_count, parse=int, minimum=0)
    parser = _Parser(prog="pp-corr", description="Bayesian comparison of algorithms assessed by cross-validation: "
                     "per-fold scores of several algorithms on one or many data sets. Errors name the option or path "
                     "(exit status 2 for a wrong option, 1 for other errors, 3 when a hierarchical fit with --method "
                     "mcmc did not converge); tables go to stdout, progress and warnings to stderr.",
                     **_examples("pp-corr"))
    parser.add_argument("--version", action="version", version=f"pp-corr {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    cmp_ = sub.add_parser("compare", help="compare algorithms on their per-fold scores (a CSV or JSON file: see "
                                          "--format)", **_examples("compare"))
    cmp_.add_argument("-a", help="algorithm A (the baseline)")
    cmp_.add_argument("-b", help="algorithm B (positive differences: B better)")
    _add_analysis_options(cmp_, rope, level, seed)
    cmp_.add_argument("--all-pairs", action="store_true",
                      help="matrices of every pair: P(column better on a majority) and each test's verdict")
    cmp_.add_argument("--hierarchical", action="store_true",
                      help="the hierarchical model over data sets (its exact posterior by quadrature; seconds to a "
                           "minute a pair)")
    cmp_.add_argument("--method", choices=METHODS, default="auto",
                      help="with --hierarchical: auto (default) = the exact posterior by quadrature where the model "
                           "has one; exact = quadrature only; mcmc = PyMC's NUTS with one robust retry")
    cmp_.add_argument("--sampler", choices=SAMPLERS, default="pymc",
                      help="with --hierarchical --method mcmc: PyMC's NUTS (default) or nutpie's (compiled once for "
                           "all pairs)")
    cluster = cmp_.add_mutually_exclusive_group()
    cluster.add_argument("--workers", type=option(check_count, parse=int),
                         help="with --hierarchical and several pairs: local Dask worker processes answering the pairs "
                              "(default: one pair after another in this process, on every core)")
    cluster.add_argument("--scheduler", type=option(check_scheduler, parse=str),
                         help="with --hierarchical and several pairs: the Dask cluster answering them "
                              "(tcp://HOST:PORT) instead of a local one")
    cmp_.add_argument("--allow-unconverged", action="store_true",
                      help=f"with --hierarchical --method mcmc: show the numbers of a fit that did not converge, and "
                           f"exit 0 (default: its diagnostics, no verdict, exit status {UNCONVERGED})")
    cmp_.add_argument("--output", "-o", help="write the results to a .json or .csv file")
    cmp_.add_argument("--plots", metavar="DIR",
                      help="write the figures of the analysis to DIR (created if needed): forest and Poisson-binomial "
                           "of each pair, the all-pairs matrix of each test, shrinkage and posterior predictive "
                           "check of each hierarchical fit")
    cmp_.add_argument("--plot-format", action="append", choices=PLOT_FORMATS,
                      help="file format of the figures (default png; repeat for several)")
    cmp_.add_argument("--plot-dataset", action="append", metavar="DATASET",
                      help="with --plots: also the posterior of each pair on this data set (repeatable)")
    cmp_.set_defaults(func=_compare)
    rep = sub.add_parser("report", help="compare all algorithms and write a report: Markdown, HTML, LaTeX tables",
                         **_examples("report"))
    rep.add_argument("--output", "-o", required=True, metavar="DIR",
                     help="directory of the report (created; it must be new or empty unless --overwrite)")
    _add_analysis_options(rep, rope, level, seed)
    rep.add_argument("--hierarchical", action="store_true",
                     help="also the hierarchical model of each pair over the data sets (exact posterior, seconds to a "
                          "minute a pair)")
    rep.add_argument("--joint", action="store_true",
                     help="also the joint hierarchical model of all algorithms (PyMC, minutes)")
    rep.add_argument("--method", choices=METHODS, default="auto",
                     help="with --hierarchical, as for compare (default auto); a fit that did not converge is marked "
                          "in the report, without a verdict")
    rep.add_argument("--sampler", choices=SAMPLERS, default="pymc",
                     help="with --hierarchical or --joint: PyMC's NUTS (default) or nutpie's (faster on the joint "
                          "model of many algorithms)")
    rep.add_argument("--overwrite", action="store_true",
                     help="write into a directory that is not empty, replacing the report's files (only those)")
    rep.add_argument("--pair-figures", action=argparse.BooleanOptionalAction, default=None,
                     help="each pair's figures (three a pair); by default drawn up to 15 pairs (6 algorithms)")
    rep.set_defaults(func=_report)
    sim = sub.add_parser("simulate", help="the simulation studies of Corani & Benavoli 2015, of the Bayesian "
                                          "signed-rank paper (Benavoli et al. 2014) and of Nadeau & Bengio 2003",
                         **_examples("simulate"))
    sim.add_argument("study", choices=["experiment1", "experiment2", "toy", "signed-rank", "nadeau-bengio"],
                     help="experiment1: the same gap on 50 data sets; experiment2: Cauchy gaps; toy: the toy example; "
                          "signed-rank: losses of Wilcoxon, DP and imprecise DP over Delta; nadeau-bengio: sizes and "
                          "power of the seven procedures with the learners in the loop")
    sim.add_argument("--repetitions", type=option(check_count, parse=int),
                     help="repetitions of each setting (default 5000; signed-rank: 1000 runs per Delta; "
                          "nadeau-bengio: 4000 regression and 500 classification data sets, about half an hour)")
    sim.add_argument("--draws", type=option(check_count, parse=int), default=5000,
                     help="signed-rank: Dirichlet draws per test (default 5000)")
    where = sim.add_mutually_exclusive_group()
    where.add_argument("--workers", type=option(check_count, parse=int),
                       help="workers of the local Dask cluster (default and at most: the number of cores)")
    where.add_argument("--scheduler", type=option(check_scheduler, parse=str),
                       help="run on the Dask cluster whose scheduler is at this address (tcp://HOST:PORT)")
    sim.add_argument("--alpha", type=level, default=0.05,
                     help="level of both tests (default 0.05); signed-rank: of the Wilcoxon test; nadeau-bengio: of "
                          "every procedure")
    sim.add_argument("--seed", type=seed, default=0, help="seed of the whole study (default 0)")
    sim.add_argument("--output", "-o", help="directory for the results (.nc), the rates or tables (.csv) and the "
                                             "figures")
    sim.add_argument("--no-progress", action="store_true", help="no progress bar")
    sim.set_defaults(func=_simulate)
    rpl = sub.add_parser("replicability", help="how often Wilcoxon, the DP and IDP signed-rank tests and the Poisson "
                                               "test give the same answer on random subsets of the data sets",
                         **_examples("replicability"))
    rpl.add_argument("file", help="scores, as for compare (see --format)")
    rpl.add_argument("-a", help="algorithm A of one pair (default: every pair, B the one of higher mean score)")
    rpl.add_argument("-b", help="algorithm B of that pair (H1: B better)")
    rpl.add_argument("--subset-size", type=option(check_count, parse=int, minimum=2), default=15,
                     help="data sets in each subset (default 15)")
    rpl.add_argument("--subsets", type=option(check_count, parse=int, minimum=2), default=1000,
                     help="subsets drawn (default 1000)")
    rpl.add_argument("--draws", type=option(check_count, parse=int), default=5000,
                     help="Dirichlet draws of the DP and IDP (default 5000)")
    rpl.add_argument("--loss-ratio", type=option(check_real, low=0, low_open=True), default=19.0,
                     help="l1 / l0: the Bayesian tests decide at t = ratio / (1 + ratio) (default 19: t = 0.95)")
    rpl.add_argument("--alpha", type=level, default=0.05, help="level of the Wilcoxon test (default 0.05)")
    add_reading_options(rpl)
    rpl.add_argument("--seed", type=seed, default=0, help="seed of the subsets and the draws (default 0)")
    rpl.add_argument("--output", "-o", help="write the table to a .csv file")
    rpl.set_defaults(func=_replicability)
    add_sequential_command(sub, **_examples("sequential"))
    add_items_command(sub, **_examples("items"))
    dem = sub.add_parser("demo", help="run the comparison on the embedded scikit-learn example",
                         **_examples("demo"))
    dem.add_argument("--rope", type=rope, default=0.01, help="half-width of the rope (region of practical "
                     "equivalence), in accuracy (default 0.01)")
    dem.set_defaults(func=_demo)
    parser.commands = sub.choices
    return parser


def _add_analysis_options(parser, rope, level, seed):
    """FILE and the options of reading it and of the analysis that compare and report share."""
    parser.add_argument("file", help="scores: a tidy or wide CSV, a search's cv_results_ CSV or cross_validate JSON "
                                     "(see --format)")
    parser.add_argument("--rope", type=rope, default=0.01,
                        help="half-width of the rope, in the scores' units (default 0.01)")
    parser.add_argument("--alpha", type=level, default=0.05, help="level of the decisions (default 0.05)")
    parser.add_argument("--prior", help="'matching' (default) or a Normal-Gamma 'mu0,k0,a,b'")
    add_reading_options(parser)
    parser.add_argument("--seed", type=seed, default=0, help="seed of every random draw (default 0)")


def _show_warning(message, category, filename, lineno, file=None, line=None):
    print(f"pp-corr: warning: {cli_spelling(str(message))}", file=sys.stderr)


def main(argv=None):
    """Entry point of ``pp-corr``.

    >>> main(["compare", str(example_path()), "-a", "tree", "-b", "logistic"])  # doctest: +ELLIPSIS
    logistic - tree (positive: logistic better), rope (-0.01, 0.01), prior matching
    ...
    """
    args = parse_args(build_parser(), argv)
    with warnings.catch_warnings():
        warnings.showwarning = _show_warning
        try:
            args.func(args)
        except (ValueError, TypeError, OSError) as err:
            raise SystemExit(f"pp-corr: {cli_spelling(str(err))}") from None
    return 0


if __name__ == "__main__":
    sys.exit(main())
