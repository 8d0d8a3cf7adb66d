"""``pp-corr items FILE -a A -b B``: two models compared on the items of each benchmark, and with
``--hierarchical`` over the benchmarks (the probabilities for a new benchmark).

:func:`pp_corr.cli` adds it with ``add_command(sub, **examples)``; its ``func`` is :func:`run_command`.
"""
from __future__ import annotations

import sys
from pathlib import Path

import pandas as pd

from .._args import check_count, check_probability_level, check_real
from ..cli_reading import option
from .comparison import RUN_KINDS


def add_command(subparsers, **keywords):
    """Add the ``items`` subcommand to an argparse ``subparsers`` and return its parser.

    >>> import argparse
    >>> sub = argparse.ArgumentParser(prog="pp-corr").add_subparsers(dest="command")
    >>> add_command(sub).parse_args(["logs/", "-a", "m1", "-b", "m2", "--runs", "seeds"]).runs
    'seeds'
    """
    parser = subparsers.add_parser("items", help="compare two models scored item by item on shared benchmarks (a "
                                                 "long or wide CSV, or lm-evaluation-harness / inspect_ai logs)",
                                   **keywords)
    parser.add_argument("file", help="item scores: a CSV (columns benchmark, item, model, run, score, or one column "
                                     "per model), a harness log file or a folder of them")
    parser.add_argument("-a", help="model A (the baseline; default: the first of two; without -a and -b a file of "
                                   "more models is ranked, benchmark by benchmark)")
    parser.add_argument("-b", help="model B (positive differences: B better; default: the second of two)")
    parser.add_argument("--rope", type=option(check_real, low=0), default=0.01,
                        help="half-width of the rope, in the scores' units (default 0.01: one point of accuracy)")
    parser.add_argument("--runs", choices=RUN_KINDS, default="samples",
                        help="samples (default): runs sample the answers again; seeds: runs are training seeds, "
                             "whose shift every item of the run shares")
    parser.add_argument("--alpha", type=option(check_probability_level), default=0.05,
                        help="level of the decisions (default 0.05); the credible intervals are at 1 - alpha")
    parser.add_argument("--hierarchical", action="store_true",
                        help="also the hierarchical model over the benchmarks (needs at least two; seconds)")
    parser.add_argument("--metric", action="append", metavar="[BENCHMARK=]METRIC",
                        help="the score of harness logs with several (e.g. acc_norm, or exact_match,strict-match); "
                             "BENCHMARK=METRIC for one benchmark's (repeatable)")
    parser.add_argument("--column", action="append", default=[], metavar="ROLE=NAME",
                        help="the column of a role (benchmark, item, model, run, score) in a CSV, e.g. "
                             "--column item=question (repeatable)")
    parser.add_argument("--na-values", action="append", metavar="TEXT", help="another spelling of a missing score")
    parser.add_argument("--draws", type=option(check_count, parse=int, minimum=100), default=50_000,
                        help="posterior draws (default 50000)")
    parser.add_argument("--seed", type=option(check_count, parse=int, minimum=0), default=0,
                        help="seed of every random draw (default 0)")
    parser.add_argument("--output", "-o", help="write the table to a .csv or .json file")
    parser.add_argument("--report", metavar="DIR",
                        help="also the report of every pair over the benchmarks (as pp-corr report writes it, a "
                             "benchmark for a data set) in DIR, which must be new or empty")
    parser.set_defaults(func=run_command)
    return parser


def run_command(args):
    """Print the comparison per benchmark (and over benchmarks with ``--hierarchical``)."""
    from .comparison import compare_items
    from .loading import load_items

    from ..reporting.output import check_output_dir, check_output_file, write_result

    path = Path(args.file)
    if not path.exists():
        raise ValueError(f"{path}: no such file or folder")
    output = check_output_file(args.output) if args.output else None
    report = check_output_dir(args.report) if args.report else None
    items = load_items(path, columns=_columns(args.column) or None, metric=_metric(args.metric),
                       na_values=args.na_values)
    have = [str(m) for m in items.model.values]
    if report:
        _report(items, report, args)
    if args.a is None and args.b is None and len(have) > 2:
        ranked = _rank(items, args)
        if output:
            write_result(output, lambda: ranked.to_dict(orient="records"), lambda: ranked)
        return
    models = _models(args, have)
    result = compare_items(items, models, rope=args.rope, runs=args.runs, draws=args.draws,
                           random_seed=args.seed)
    print(result.summary(confidence_level=1 - args.alpha, alpha=args.alpha))
    if args.hierarchical:
        _hierarchical(items, models, args)
    if output:
        write_result(output, lambda: result.to_dict(confidence_level=1 - args.alpha, alpha=args.alpha),
                     lambda: result.to_frame(confidence_level=1 - args.alpha).reset_index())


def _metric(given):
    """--metric as load_items takes it: None, one metric for every log, or {benchmark: metric}."""
    if not given:
        return None
    named = dict(text.split("=", 1) for text in given if "=" in text)
    bare = [text for text in given if "=" not in text]
    if bare and (named or len(bare) > 1):
        raise ValueError("--metric: give one METRIC for every benchmark, or BENCHMARK=METRIC for each")
    return bare[0] if bare else named


def _columns(pairs) -> dict:
    columns = {}
    for text in pairs:
        role, sep, name = text.partition("=")
        if not sep or not name:
            raise ValueError(f"--column {text!r}: write ROLE=NAME, e.g. --column item=question")
        columns[role.strip()] = name.strip()
    return columns


def _models(args, have) -> tuple[str, str]:
    if args.a is None and args.b is None:
        if len(have) < 2:
            raise ValueError(f"the file holds {len(have)} model {have}: nothing to compare")
        return have[0], have[1]
    if args.a is None or args.b is None:
        raise ValueError("give both -a and -b (or neither, for a file of two models)")
    return args.a, args.b


def _rank(items, args):
    """Print every benchmark's models ranked, with their tie groups; return them as one table."""
    from .loading import benchmark_names
    from .ranking import rank_items

    tables = []
    for name in benchmark_names(items):
        table = rank_items(items, benchmark=name, rope=args.rope, alpha=args.alpha, runs=args.runs,
                           draws=args.draws, random_seed=args.seed)
        print(f"{name}: {len(table)} models ranked; a group holds the models not separated from its first at "
              f"alpha = {args.alpha:g} (rope {args.rope:g})")
        print(table.to_string(float_format="{:.4f}".format) + "\n")
        tables.append(table.reset_index().assign(benchmark=name))
    return pd.concat(tables, ignore_index=True)


def _report(items, directory, args):
    """The report of every pair over the benchmarks (:func:`pp_corr.write_report` on :func:`benchmark_scores`)."""
    from ..reporting.report import write_report
    from .benchmarks import benchmark_scores

    scores = benchmark_scores(items, runs=args.runs)
    k, q = scores.sizes["algorithm"], scores.sizes["dataset"]
    write_report(scores, directory, rope=args.rope, alpha=args.alpha, hierarchical=args.hierarchical,
                 random_seed=args.seed,
                 title=f"Comparison of {k} models on {q} benchmark{'s' * (q != 1)} (items as folds, runs averaged)")
    print(f"pp-corr: wrote the report to {directory}", file=sys.stderr)


def _hierarchical(items, models, args):
    from ..hierarchical.fit import hierarchical_test
    from .benchmarks import benchmark_scores

    scores = benchmark_scores(items, runs=args.runs)
    if scores.sizes["dataset"] < 2:
        raise ValueError("--hierarchical needs at least two benchmarks; the file holds one")
    print(f"\nOver the {scores.sizes['dataset']} benchmarks (a benchmark is a data set, an item a fold):",
          file=sys.stdout)
    print(hierarchical_test(scores, algorithms=models, rope=args.rope, random_seed=args.seed))
