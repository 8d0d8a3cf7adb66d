"""Command line: ``pp-corr compare FILE``, ``pp-corr simulate STUDY``, ``pp-corr demo``."""
from __future__ import annotations

import argparse
import itertools
import json
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from .pairs import compare_all_pairs, format_pairs
from .poisson_test import poisson_test
from .priors import NormalGamma
from .scores import example_path, load_scores
from .ttest import DegenerateWarning

def format_table(result, confidence_level=0.95) -> str:
    """The per-data-set table printed by ``pp-corr compare``.

    >>> from pp_corr import correlated_ttest
    >>> print(format_table(correlated_ttest([0.01, 0.03, 0.02, 0.04], folds=4, names=("a", "b"))))
    b - a (positive: b better), rope None, prior matching
      mean diff        95% interval P(a better) P(rope) P(b better)
    0   +0.0250  [-0.0064, +0.0564]       0.043   0.000       0.957
    """
    frame = result.to_frame(confidence_level)
    a, b = result.names
    level = f"{round(100 * confidence_level):g}%"
    lo, hi = frame.columns[1], frame.columns[2]
    table = pd.DataFrame({
        "mean diff": frame["mean"].map("{:+.4f}".format),
        f"{level} interval": [f"[{x:+.4f}, {y:+.4f}]" for x, y in zip(frame[lo], frame[hi])],
        f"P({a} better)": frame[f"P({a} better)"].map("{:.3f}".format),
        "P(rope)": frame["P(rope)"].map("{:.3f}".format),
        f"P({b} better)": frame[f"P({b} better)"].map("{:.3f}".format),
    }, index=frame.index)
    flags = np.flatnonzero(frame["degenerate"].values)
    if len(flags):
        table.index = [f"{d}*" if i in set(flags) else d for i, d in enumerate(table.index)]
    title = f"{b} - {a} (positive: {b} better), rope {result.rope}, prior " + \
        ("matching" if result.prior.is_matching else repr(result.prior))
    note = "\n* all differences equal: the posterior is a point mass" if len(flags) else ""
    return f"{title}\n{table.to_string()}{note}"


def _parse_columns(items):
    mapping = {}
    for item in items or []:
        role, sep, name = item.partition("=")
        if not sep:
            raise SystemExit(f"--column takes ROLE=NAME (e.g. score=accuracy), got {item!r}")
        mapping[role] = name
    return mapping


def _parse_prior(text):
    if text in (None, "matching"):
        return NormalGamma.matching()
    try:
        mu0, k0, a, b = (float(v) for v in text.split(","))
    except ValueError:
        raise SystemExit(f"--prior takes 'matching' or 'mu0,k0,a,b', got {text!r}") from None
    return NormalGamma(mu0, k0, a, b)


def _pairs(scores, args):
    algos = [str(a) for a in scores.algorithm.values]
    if args.a or args.b:
        if not (args.a and args.b):
            raise SystemExit("give both -a and -b, or neither (all pairs)")
        return [(args.a, args.b)]
    return list(itertools.combinations(algos, 2))


def _write(path: Path, as_json, as_frame):
    """Write ``as_json()`` (plain values) to a .json path or ``as_frame()`` (a DataFrame) to a .csv one."""
    if path.suffix == ".json":
        path.write_text(json.dumps(as_json(), indent=2, default=str))
    elif path.suffix == ".csv":
        as_frame().to_csv(path, index=False)
    else:
        raise SystemExit(f"--output must end in .json or .csv, got {path}")
    print(f"wrote {path}")


def _compare(args):
    try:
        scores = load_scores(args.file, columns=_parse_columns(args.column))
        prior = _parse_prior(args.prior)
        if args.hierarchical:
            from .hierarchical import hierarchical_test  # PyMC: imported only when asked for

            for pair in _pairs(scores, args):
                result = hierarchical_test(scores, algorithms=pair, rope=args.rope, random_seed=args.seed,
                                           progressbar=True)
                print(result, end="\n\n")
                with pd.option_context("display.width", 200, "display.max_columns", None):
                    print(result.datasets().round(4).to_string(), end="\n\n")
            return
        if args.all_pairs:
            table = compare_all_pairs(scores, rope=args.rope, prior=prior, random_seed=args.seed)
            print(format_pairs(table))
            if args.output:
                _write(Path(args.output), lambda: table.to_dict(data="list"),
                       lambda: table.to_dataframe().reset_index())
            return
        with warnings.catch_warnings():  # the table marks point-mass posteriors itself
            warnings.simplefilter("ignore", DegenerateWarning)
            results = [poisson_test(scores, algorithms=pair, rope=args.rope, prior=prior)
                       for pair in _pairs(scores, args)]
    except ValueError as err:
        raise SystemExit(f"pp-corr: {err}") from None
    for result in results:
        print(format_table(result.per_dataset), end="\n\n")
        if result.distribution.n_trials > 1:
            print(result, end="\n\n")
    if args.output:
        tests = [r.per_dataset for r in results]
        _write(Path(args.output), lambda: [t.to_dict() for t in tests],
               lambda: pd.concat([t.to_frame().reset_index().assign(a=t.names[0], b=t.names[1]) for t in tests]))


def _demo(args):
    args.file, args.column, args.prior, args.output, args.seed = example_path(), None, None, None, 0
    args.a, args.b, args.all_pairs, args.hierarchical = "logistic", "knn", False, False
    print(f"Embedded example: {args.file.name} (scikit-learn classifiers, 10 runs of 10-fold CV)\n")
    _compare(args)
    args.all_pairs = True
    _compare(args)


def format_rates(rates) -> str:
    """The rejection rates of a simulation study as 'rate (se)', one column per test and number of runs.

    >>> from pp_corr.simulation import rejection_rates, toy_example
    >>> print(format_rates(rejection_rates(toy_example(repetitions=100, random_seed=0))).splitlines()[0])
    toy example: how often B is declared better than A at alpha = 0.05, 100 repetitions; rate (standard error)
    """
    frame = rates[["rate", "se"]].to_dataframe()
    cells = frame["rate"].map("{:.3f}".format) + " (" + frame["se"].map("{:.3f}".format) + ")"
    keys = [k for k in ("test", "runs") if k in frame.index.names]
    table = cells.unstack(keys) if keys else cells.to_frame("rate (se)")
    return (f"{rates.attrs['study']}: how often {rates.attrs['b']} is declared better than {rates.attrs['a']} "
            f"at alpha = {rates.alpha:g}, {rates.repetitions} repetitions; rate (standard error)\n{table.to_string()}")


def _simulate(args):
    from . import plots, simulation  # imported when asked for

    if args.repetitions < 1:
        raise SystemExit("pp-corr: --repetitions must be >= 1")
    common = dict(repetitions=args.repetitions, random_seed=args.seed)
    if args.study == "toy":
        results = simulation.toy_example(**common)
    else:
        run = simulation.experiment_1 if args.study == "experiment1" else simulation.experiment_2
        results = run(**common, workers=args.workers, progress=not args.no_progress)
    rates = simulation.rejection_rates(results, alpha=args.alpha)
    print(format_rates(rates))
    if args.output:
        out = Path(args.output)
        out.mkdir(parents=True, exist_ok=True)
        results.to_netcdf(out / f"{args.study}_results.nc", engine="scipy")
        rates.to_dataframe().reset_index().to_csv(out / f"{args.study}_rates.csv", index=False)
        if args.study == "toy":
            figures = {"": plots.plot_toy_example(results)}
        else:
            figures = {f"_q{int(q)}": plots.plot_rejection_rates(rates.sel(n_datasets=[q])).figure
                       for q in rates.n_datasets.values}
        for suffix, figure in figures.items():
            figure.savefig(out / f"{args.study}{suffix}.png", dpi=120)
        print(f"wrote {args.study}_results.nc, {args.study}_rates.csv and {len(figures)} figure(s) to {out}")


def _build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="pp-corr", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    cmp_ = sub.add_parser("compare", help="compare algorithms on the per-fold scores in a tidy CSV")
    cmp_.add_argument("file", help="tidy CSV: dataset, algorithm, run, fold, score (see --column)")
    cmp_.add_argument("-a", help="algorithm A (the baseline)")
    cmp_.add_argument("-b", help="algorithm B (positive differences: B better)")
    cmp_.add_argument("--rope", type=float, default=0.01, help="half-width of the rope (default 0.01)")
    cmp_.add_argument("--prior", help="'matching' (default) or a Normal-Gamma 'mu0,k0,a,b'")
    cmp_.add_argument("--column", action="append", metavar="ROLE=NAME",
                      help="column of a role (dataset, algorithm, run, fold, score), e.g. score=accuracy")
    cmp_.add_argument("--all-pairs", action="store_true",
                      help="matrices of every pair: P(column better on a majority) and each test's verdict")
    cmp_.add_argument("--hierarchical", action="store_true",
                      help="fit the hierarchical model over data sets (PyMC, about 10-20 s a pair)")
    cmp_.add_argument("--seed", type=int, default=0, help="seed of every random draw (default 0)")
    cmp_.add_argument("--output", "-o", help="write the results to a .json or .csv file")
    cmp_.set_defaults(func=_compare)
    sim = sub.add_parser("simulate", help="the simulation studies of Corani & Benavoli 2015 (DESIGN.md section 7)")
    sim.add_argument("study", choices=["experiment1", "experiment2", "toy"],
                     help="experiment1: the same gap on 50 data sets; experiment2: Cauchy gaps; toy: the toy example")
    sim.add_argument("--repetitions", type=int, default=5000, help="repetitions of each setting (default 5000)")
    sim.add_argument("--workers", type=int, help="worker processes (default: all cores)")
    sim.add_argument("--alpha", type=float, default=0.05, help="level of both tests (default 0.05)")
    sim.add_argument("--seed", type=int, default=0, help="seed of the whole study (default 0)")
    sim.add_argument("--output", "-o", help="directory for the results (.nc), the rates (.csv) and the figures")
    sim.add_argument("--no-progress", action="store_true", help="no progress bar")
    sim.set_defaults(func=_simulate)
    dem = sub.add_parser("demo", help="run the comparison on the embedded scikit-learn example")
    dem.add_argument("--rope", type=float, default=0.01)
    dem.set_defaults(func=_demo)
    return parser


def main(argv=None):
    """Entry point of ``pp-corr``.

    >>> main(["compare", str(example_path()), "-a", "tree", "-b", "logistic"])  # doctest: +ELLIPSIS
    logistic - tree (positive: logistic better), rope (-0.01, 0.01), prior matching
    ...
    """
    args = _build_parser().parse_args(argv)
    args.func(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
