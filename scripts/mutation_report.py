"""Summarise a mutmut run: the mutation score per module and the list of surviving mutants.

Run from the project root after ``mutmut run`` (``make mutation`` does both):

    python scripts/mutation_report.py --survivors mutation-survivors.txt 'pp_corr.pairwise.ttest.*' ...

The positional arguments are the same mutant-name patterns given to ``mutmut run``; mutants outside
them (mutmut generates mutants for every function of a mutated file) are left out of the table.
The score counts a timeout as a kill (the mutant made the tests hang), and a crash too (mutmut's "segfault":
the tests' process died of a signal, e.g. SIGKILL when a mutant filled the memory); "no tests" mutants, which no
test in the selection reaches, count as not killed and are listed with the survivors.

mutmut reruns every mutant that a pattern on its command line matches, whatever it found before; to finish an
interrupted run, give it the names of the mutants not checked yet, which ``--not-checked`` prints:

    make mutation MUTATION_SCOPE="$(python scripts/mutation_report.py --not-checked 'pp_corr.pairwise.rank_tests.*')"
"""
from __future__ import annotations

import argparse
import fnmatch
import json
import sys
from collections import Counter
from pathlib import Path

# mutmut's exit codes per mutant (mutmut/stats.py); anything else is "suspicious"
STATUS = {1: "killed", 3: "killed", 0: "survived", 5: "no tests", 33: "no tests", 34: "skipped",
          36: "timeout", -24: "timeout", 24: "timeout", 152: "timeout", 255: "timeout",
          -11: "crash", -9: "crash", 37: "type check", None: "not checked"}
NOT_KILLED = ("survived", "no tests")


def load(mutants: Path, patterns):
    """{mutant name: status} for the mutants in scope, from mutmut's per-file .meta files."""
    status = {}
    for meta in sorted(mutants.rglob("*.py.meta")):
        codes = json.loads(meta.read_text())["exit_code_by_key"]
        for name, code in codes.items():
            if not patterns or any(fnmatch.fnmatchcase(name, p) for p in patterns):
                status[name] = STATUS.get(code, "suspicious")
    return status


def split(name):
    """'pp_corr.pairwise.ttest.xǁResultǁinterval__mutmut_3' -> ('pp_corr.pairwise.ttest', 'Result.interval')."""
    mangled = name.partition("__mutmut_")[0]
    module, _, function = mangled.rpartition(".")
    if function.startswith("xǁ"):
        function = function[2:].replace("ǁ", ".")
    else:
        function = function.removeprefix("x_")
    return module, function


def table(status):
    rows = {}
    for name, s in status.items():
        rows.setdefault(split(name)[0], Counter())[s] += 1
    total = sum(rows.values(), Counter())
    lines = [f"{'module':<26} {'mutants':>7} {'killed':>6} {'survived':>8} {'no tests':>8} {'timeout':>7} "
             f"{'crash':>5} {'other':>5} {'score':>6}"]
    for module, c in sorted(rows.items()) + [("total", total)]:
        n = sum(c.values())
        other = n - sum(c[k] for k in ("killed", "survived", "no tests", "timeout", "crash"))
        score = (c["killed"] + c["timeout"] + c["crash"]) / n if n else float("nan")
        lines.append(f"{module:<26} {n:>7} {c['killed']:>6} {c['survived']:>8} {c['no tests']:>8} "
                     f"{c['timeout']:>7} {c['crash']:>5} {other:>5} {score:>6.1%}")
    return "\n".join(lines)


def survivors(status, diff):
    out = []
    for name in sorted(status, key=lambda n: (split(n), int(n.rpartition("_")[2]))):
        if status[name] in NOT_KILLED:
            module, function = split(name)
            out.append(f"=== {module} {function} [{status[name]}] {name}\n{diff(name)}\n")
    return "\n".join(out)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("patterns", nargs="*", help="mutant-name patterns in scope (default: all)")
    parser.add_argument("--survivors", type=Path, help="write the surviving mutants with their diffs here")
    parser.add_argument("--not-checked", action="store_true",
                        help="only print the names of the mutants in scope that have no result yet")
    args = parser.parse_args(argv)
    if not Path("mutants").is_dir():
        sys.exit("no mutants/ directory: run `make mutation` (or mutmut run) first")
    status = load(Path("mutants"), args.patterns)
    if not status:
        sys.exit("no mutants match the given patterns")
    if args.not_checked:
        print(" ".join(name for name, s in status.items() if s == "not checked"))
        return
    print(table(status))
    if args.survivors:
        from mutmut.mutation.diff_apply import get_diff_for_mutant

        def diff(name):
            module = split(name)[0]
            return get_diff_for_mutant(name, path=Path(*module.split(".")).with_suffix(".py"))

        args.survivors.write_text(table(status) + "\n\n" + survivors(status, diff))
        print(f"{sum(s in NOT_KILLED for s in status.values())} surviving mutants written to {args.survivors}")


if __name__ == "__main__":
    main()
