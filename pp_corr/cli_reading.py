"""The command line's reading of FILE: its options (shared by ``compare``, ``report`` and ``replicability``),
:func:`pp_corr.load_scores` called with them, and the library's messages in the options' words."""
from __future__ import annotations

import argparse
import re
from pathlib import Path

from ._args import check_count, check_real
from .data.scores import load_scores
from .data.formats import FORMATS
from .data.sources import DELIMITERS, MISSING, UnknownAlgorithmError


def option(check, parse=float, **limits):
    """An argparse type: parse the text, then apply one of the shared checks (its message names the option).

    >>> option(check_count, parse=int)("0")
    Traceback (most recent call last):
    argparse.ArgumentTypeError: the value must be >= 1, got 0
    """
    def convert(text):
        try:
            value = parse(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected {'a whole number' if parse is int else 'a number'}, "
                                             f"got {text!r}") from None
        try:
            return check("the value", value, **limits)
        except (ValueError, TypeError) as err:
            raise argparse.ArgumentTypeError(str(err)) from None
    return convert


def add_reading_options(parser):
    """The options of reading FILE (see :func:`load_file`).

    >>> parser = argparse.ArgumentParser()
    >>> add_reading_options(parser)
    >>> parser.parse_args(["--exclude-datasets", "iris,wine"]).exclude_datasets
    'iris,wine'
    """
    parser.add_argument("--format", choices=["auto", *(f for f, entry in FORMATS.items() if entry.command_line)],
                        default="auto",
                        help="layout of FILE (default auto: split<k>_test_ columns = cv_results, .json = "
                             "cross_validate, columns algorithm and score = tidy, else wide)")
    parser.add_argument("--algorithms", metavar="A,B,...",
                        help="the algorithms to load (others are left out); in a wide table, its algorithm columns "
                             "(default: every column but dataset, run, fold, n_test, n_train)")
    parser.add_argument("--exclude-algorithms", metavar="A,B,...", help="algorithms to leave out")
    parser.add_argument("--exclude-datasets", metavar="D1,D2,...", help="data sets to leave out")
    parser.add_argument("--column", action="append", metavar="ROLE=NAME",
                        help="column of a role (dataset, algorithm, run, fold, score), e.g. score=accuracy; the "
                             "dataset column is by default the column 'dataset', else the one text column (e.g. "
                             "db); with neither FILE is one data set, without a run column one run")
    parser.add_argument("--na-values", metavar="TEXT,...",
                        help=f"other spellings of a missing score (always missing: "
                             f"{', '.join(repr(v) for v in MISSING)}); missing scores are named in a warning")
    parser.add_argument("--delimiter", choices=["tab" if d == "\t" else d for d in DELIMITERS],
                        help="CSV delimiter (default: the one the header line has most of); with ';' decimal commas "
                             "are read")
    parser.add_argument("--encoding", default="utf-8", help="text encoding of FILE (default utf-8), e.g. cp1252")
    parser.add_argument("--scoring", metavar="METRIC", help="the metric of cv_results / cross_validate results "
                                                            "(default: score, or their only one)")
    parser.add_argument("--runs", type=option(check_count, parse=int),
                        help="runs of cross-validation per data set (checked; splits rows without run labels)")
    parser.add_argument("--folds", type=option(check_count, parse=int),
                        help="folds of one cross-validation run: rho = 1/folds (checked against the data)")
    parser.add_argument("--rho", type=option(check_real, low=0), help="the correlation rho of every data set")
    parser.add_argument("--lower-is-better", action="store_true",
                        help="the scores are errors or losses (lower is better): compare their negatives")


def input_file(text) -> Path:
    """FILE as a path to an existing file.

    >>> input_file("no/such.csv")
    Traceback (most recent call last):
    ValueError: no/such.csv: no such file
    """
    path = Path(text)
    if not path.exists():
        raise ValueError(f"{path}: no such file")
    if path.is_dir():
        raise ValueError(f"{path} is a directory, not a CSV file")
    return path


def _parse_columns(items):
    mapping = {}
    for item in items or []:
        role, sep, name = item.partition("=")
        if not sep or not role or not name:
            raise ValueError(f"--column takes ROLE=NAME (e.g. score=accuracy), got {item!r}")
        mapping[role] = name
    return mapping


def _names(text):
    """The names of a comma-separated option, or None."""
    return [name.strip() for name in text.split(",")] if text else None


def load_file(source, args, pair=None):
    """``load_scores`` with the options of reading FILE; -a and -b load only that pair unless --algorithms.

    >>> from pp_corr import example_path
    >>> parser = argparse.ArgumentParser()
    >>> add_reading_options(parser)
    >>> args = parser.parse_args(["--exclude-algorithms", "knn", "--exclude-datasets", "digits"])
    >>> scores = load_file(example_path(), args)
    >>> scores.algorithm.values.tolist(), scores.dataset.values.tolist()
    (['naive_bayes', 'logistic', 'tree'], ['iris', 'wine', 'breast_cancer'])
    """
    algorithms = _names(args.algorithms) or pair
    excluded = _names(args.exclude_algorithms)
    if excluded and pair and algorithms == pair:  # only the pair is loaded: the others are left out already
        excluded = [name for name in excluded if name in pair] or None
    try:
        return load_scores(source, format=args.format, algorithms=algorithms, columns=_parse_columns(args.column),
                           runs=args.runs, folds=args.folds, rho=args.rho, higher_is_better=not args.lower_is_better,
                           encoding=args.encoding, delimiter={"tab": "\t"}.get(args.delimiter, args.delimiter),
                           scoring=args.scoring, na_values=_names(args.na_values),
                           exclude_algorithms=excluded,
                           exclude_datasets=_names(args.exclude_datasets))
    except UnknownAlgorithmError as err:
        if args.algorithms:
            raise ValueError(f"--algorithms names {err.unknown}, not in {source} (it has {err.have})") from None
        name = err.unknown[0]
        raise ValueError(f"{'-a' if name == pair[0] else '-b'} {name!r} is not in {source} "
                         f"(it has {err.have})") from None


# The Python spellings in the library's messages, and how a command-line user says the same
CLI_SPELLINGS = ((re.compile(r"\bcolumns=\{\"dataset\": (\w+)\}"), r"--column dataset=\1"),
                 (re.compile(r"\bcolumns=(\.\.\.)?"), "--column ROLE=NAME"),
                 (re.compile(r"\bhigher_is_better=False"), "--lower-is-better"),
                 (re.compile(r"\bn_test= with n_train="), "n_test and n_train columns"),
                 (re.compile(r"\bencoding='([^']*)'"), r"--encoding \1"),
                 (re.compile(r"\b(algorithms|runs|folds|rho|rope|format|delimiter|scoring|encoding|na_values|"
                             r"exclude_algorithms|exclude_datasets)=(?:([\w.,]+)\b)?"),
                  lambda m: f"--{m[1].replace('_', '-')}" + (f" {m[2]}" if m[2] else "")))


def cli_spelling(message: str) -> str:
    """``message`` with the library's argument names spelled as pp-corr's options.

    >>> cli_spelling("missing column(s) ['score'] (rename them with columns=...); give runs=r or rho=")
    "missing column(s) ['score'] (rename them with --column ROLE=NAME); give --runs r or --rho"
    >>> cli_spelling('say which with columns={"dataset": NAME}; exclude_datasets= names [\\'iris\\']')
    "say which with --column dataset=NAME; --exclude-datasets names ['iris']"
    """
    for pattern, replacement in CLI_SPELLINGS:
        message = pattern.sub(replacement, message)
    return message
