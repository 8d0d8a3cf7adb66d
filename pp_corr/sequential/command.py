"""``pp-corr sequential FILE -a A -b B``: how many runs (or data sets) each decision of a recorded benchmark needed.

:func:`pp_corr.cli` adds it with ``add_command(sub, **examples)`` (its ``func`` is :func:`run_command`); it reads
FILE with the options of ``pp-corr compare``.
"""
from __future__ import annotations

import numpy as np

from .._args import check_count, check_probability_level, check_real
from ..cli_reading import add_reading_options, input_file, load_file, option


def add_command(subparsers, **keywords):
    """Add the ``sequential`` subcommand to an argparse ``subparsers`` (``keywords`` go to its parser: the --help
    epilog) and return its parser.

    >>> import argparse
    >>> sub = argparse.ArgumentParser(prog="pp-corr").add_subparsers(dest="command")
    >>> add_command(sub).parse_args(["scores.csv", "-a", "nbc", "-b", "hnb", "--over", "datasets"]).orders
    10
    """
    probability = option(check_probability_level)
    count = option(check_count, parse=int)
    parser = subparsers.add_parser("sequential", help="replay a recorded benchmark and say how many runs (or data "
                                                      "sets) each decision needed: 'you could have stopped after ...'",
                                   **keywords)
    parser.add_argument("file", help="scores: a tidy or wide CSV (see --format)")
    parser.add_argument("-a", required=True, help="algorithm A (the baseline)")
    parser.add_argument("-b", required=True, help="algorithm B (positive differences: B better)")
    parser.add_argument("--over", choices=["runs", "datasets"], default="runs",
                        help="replay the runs of each data set (default) or the data sets in random orders")
    parser.add_argument("--rope", type=option(check_real, low=0), default=0.01,
                        help="half-width of the rope, in the scores' units (default 0.01)")
    parser.add_argument("--alpha", type=probability, default=0.05,
                        help="level of the decisions: stop when a region reaches 1 - alpha (default 0.05)")
    parser.add_argument("--futility", type=probability, default=0.05,
                        help="stop when the probability that more runs decide is below it (default 0.05)")
    parser.add_argument("--max-runs", type=count, help="the budget of runs (default: all recorded)")
    parser.add_argument("--test", choices=["signed_rank", "poisson", "hierarchical"], default="signed_rank",
                        help="with --over datasets: the test across data sets (default signed_rank; hierarchical: a "
                             "few seconds a data set)")
    parser.add_argument("--orders", type=count, default=10,
                        help="with --over datasets: how many random orders of the data sets (default 10)")
    add_reading_options(parser)
    parser.add_argument("--seed", type=option(check_count, parse=int, minimum=0), default=0,
                        help="seed of every random draw (default 0)")
    parser.set_defaults(func=run_command)
    return parser


def run_command(args):
    """Print the replay: per data set over runs, one line per random order over data sets."""
    from .replay import sequential_test

    if args.a == args.b:
        raise ValueError(f"-a and -b name the same algorithm {args.a!r}: nothing to compare")
    pair = (args.a, args.b)
    scores = load_file(input_file(args.file), args, pair)
    options = {"rope": args.rope, "alpha": args.alpha, "futility": args.futility}
    if args.over == "runs":
        print(sequential_test(scores, pair, max_runs=args.max_runs, random_seed=args.seed, **options))
        return
    results = [sequential_test(scores, pair, over="datasets", test=args.test, random_seed=args.seed + i,
                               progressbar=args.test == "hierarchical", **options) for i in range(args.orders)]
    print(results[0].summary().splitlines()[0])
    used = np.array([r.stopped_at for r in results])
    for i, r in enumerate(results):
        print(f"  order {i + 1}: {r.summary().splitlines()[1].strip()}")
    print(f"  on average {used.mean():.1f} of {scores.sizes['dataset']} data sets; the decision of all of them in "
          f"{sum(r.decision() == r.full_decision for r in results)} of {len(results)} orders")
