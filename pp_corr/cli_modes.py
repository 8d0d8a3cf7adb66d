"""Which options each mode of each ``pp-corr`` command uses, in one table, and the refusal of an option typed for a
mode that does not use it (``pp-corr compare FILE --hierarchical --prior 0,1,2,0.001`` exits with status 2 and says
that --prior is the correlated t-test's).

A mode is named in the user's words ("with --hierarchical"); :data:`MODES` says when each holds, :data:`OPTIONS`
which modes use each option. To add an option to a command, add its row here: ``tests/test_cli_modes.py`` fails
while the parser and the table disagree.
"""
from __future__ import annotations

EVERY = "every mode"  # an option that every mode of its command uses

# The reading options (pp_corr.cli_reading.add_reading_options): the same rows in every command that reads FILE
_READING = dict.fromkeys(("--format", "--algorithms", "--exclude-algorithms", "--exclude-datasets", "--column",
                          "--na-values", "--delimiter", "--encoding", "--scoring", "--runs", "--folds", "--rho",
                          "--lower-is-better"), EVERY)
# The modes' names, shared by MODES and OPTIONS
_PAIRS, _ALL_PAIRS = "without --all-pairs or --hierarchical", "with --all-pairs"
_HIERARCHICAL, _MCMC, _JOINT = "with --hierarchical", "with --hierarchical --method mcmc", "with --joint"
_RUNS, _DATASETS = "with --over runs", "with --over datasets"


def _study(name):
    return lambda args: args.study == name


# command: {mode, in the user's words: whether the parsed arguments select it}. Several modes may hold at once (the
# last that holds names the mode in a refusal); a command without a row here has one mode.
MODES = {
    "compare": {
        _PAIRS: lambda args: not (args.all_pairs or args.hierarchical),
        _ALL_PAIRS: lambda args: args.all_pairs and not args.hierarchical,
        _HIERARCHICAL: lambda args: args.hierarchical,
        _MCMC: lambda args: args.hierarchical and args.method == "mcmc",
    },
    "report": {
        "without --hierarchical or --joint": lambda args: not (args.hierarchical or args.joint),
        _HIERARCHICAL: lambda args: args.hierarchical,
        _MCMC: lambda args: args.hierarchical and args.method == "mcmc",
        _JOINT: lambda args: args.joint,
    },
    "sequential": {_RUNS: lambda args: args.over == "runs", _DATASETS: lambda args: args.over == "datasets"},
    "simulate": {f"by the {study} study": _study(study)
                 for study in ("experiment1", "experiment2", "toy", "signed-rank", "nadeau-bengio")},
}

# command: {option: EVERY, or (the modes that use it, what it does: said when it is refused)}
OPTIONS = {
    "compare": {
        "-a": EVERY, "-b": EVERY, "--rope": EVERY, "--seed": EVERY, "--output": EVERY, "--plots": EVERY,
        "--plot-format": EVERY, **_READING,
        "--alpha": ((_PAIRS, _ALL_PAIRS), "it sets the level of the decisions of the tests across data sets"),
        "--prior": ((_PAIRS, _ALL_PAIRS), "it sets the prior of the correlated t-test on one data set"),
        "--all-pairs": ((_ALL_PAIRS,), "it prints the matrices of every pair by the tests on each data set and "
                                       "across them; --hierarchical compares every pair when -a and -b are left out"),
        "--plot-dataset": ((_PAIRS,), "it draws the posterior of a pair on one data set"),
        "--hierarchical": ((_HIERARCHICAL,), "it selects the hierarchical model"),
        "--method": ((_HIERARCHICAL,), "it chooses how --hierarchical computes the model"),
        "--workers": ((_HIERARCHICAL,), "it spreads the fits of --hierarchical over local worker processes"),
        "--scheduler": ((_HIERARCHICAL,), "it sends the fits of --hierarchical to a Dask cluster"),
        "--sampler": ((_MCMC,), "it chooses the MCMC sampler of --hierarchical --method mcmc"),
        "--allow-unconverged": ((_MCMC,), "it shows the numbers of an MCMC fit that did not converge, with "
                                          "--hierarchical --method mcmc"),
    },
    "report": {
        "--output": EVERY, "--rope": EVERY, "--alpha": EVERY, "--prior": EVERY, "--seed": EVERY, **_READING,
        "--hierarchical": EVERY, "--joint": EVERY, "--overwrite": EVERY, "--pair-figures": EVERY,
        "--method": ((_HIERARCHICAL,), "it chooses how --hierarchical computes the model of each pair"),
        "--sampler": ((_MCMC, _JOINT), "it chooses the MCMC sampler of --joint and of --hierarchical --method mcmc"),
    },
    "sequential": {
        "-a": EVERY, "-b": EVERY, "--over": EVERY, "--rope": EVERY, "--alpha": EVERY, "--futility": EVERY,
        "--seed": EVERY, **_READING,
        "--max-runs": ((_RUNS,), "it sets the budget of runs on each data set"),
        "--test": ((_DATASETS,), "it chooses the test across data sets"),
        "--orders": ((_DATASETS,), "it sets how many random orders of the data sets are replayed"),
    },
    "items": dict.fromkeys(("-a", "-b", "--rope", "--runs", "--alpha", "--hierarchical", "--metric", "--column",
                            "--na-values", "--draws", "--seed", "--output", "--report"), EVERY),
    "simulate": {
        "--repetitions": EVERY, "--workers": EVERY, "--scheduler": EVERY, "--alpha": EVERY, "--seed": EVERY,
        "--output": EVERY, "--no-progress": EVERY,
        "--draws": (("by the signed-rank study",), "it sets the Dirichlet draws per test of the signed-rank study"),
    },
    "replicability": dict.fromkeys(("-a", "-b", "--subset-size", "--subsets", "--draws", "--loss-ratio", "--alpha",
                                    "--seed", "--output", *_READING), EVERY),
    "demo": {"--rope": EVERY},
}


def dest(option: str) -> str:
    """The attribute of the parsed arguments that holds ``option``.

    >>> dest("--plot-format"), dest("-a")
    ('plot_format', 'a')
    """
    return option.lstrip("-").replace("-", "_")


def unused_options(args, typed) -> str | None:
    """Why the options typed that the mode does not use are refused, or None when it uses every option typed.

    ``args`` is the command line parsed, ``typed`` the same parsed with every option's default None: an option is
    typed when it is not None there (given-ness, not a comparison with its default).

    >>> from argparse import Namespace
    >>> args = Namespace(command="compare", all_pairs=False, hierarchical=True, method="auto")
    >>> typed = Namespace(**{dest(option): None for option in OPTIONS["compare"]})
    >>> typed.hierarchical, typed.prior = True, "0,1,2,0.001"
    >>> unused_options(args, typed)
    '--prior is not used with --hierarchical (it sets the prior of the correlated t-test on one data set)'
    """
    held = [mode for mode, holds in MODES.get(args.command, {}).items() if holds(args)]
    refused = [f"{option} is not used {held[-1]} ({use[1]})" for option, use in OPTIONS[args.command].items()
               if use is not EVERY and getattr(typed, dest(option)) is not None and not set(use[0]) & set(held)]
    return "; ".join(refused) or None


def parse_args(parser, argv=None):
    """``argv`` parsed by ``parser`` (:func:`pp_corr.cli.build_parser`'s, whose ``commands`` holds the parser of each
    subcommand); an option typed that the chosen mode does not use is refused with exit status 2.

    >>> from pp_corr.cli import build_parser
    >>> parse_args(build_parser(), ["compare", "scores.csv", "--hierarchical", "--method", "mcmc"]).method
    'mcmc'
    """
    args = parser.parse_args(argv)
    command = parser.commands[args.command]
    command.set_defaults(**dict.fromkeys(map(dest, OPTIONS[args.command]), None))  # None: the option was not typed
    refusal = unused_options(args, parser.parse_args(argv))
    if refusal:
        command.error(refusal)
    return args
