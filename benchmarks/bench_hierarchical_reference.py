"""The hierarchical test's default answer against a long-run reference (#37's acceptance): for every uci54 pair and
the stress battery's tie-heavy benchmark (81 data sets x 10 folds), ``hierarchical_test`` as a user calls it (the
exact posterior, 4000 draws) and the quadrature on a grid twice as fine in every direction (the reference). Printed
per pair: the largest difference over a new data set's three probabilities and P(delta0 > 0), for the quadrature's
own values and for the default call's (from its draws, as the summary shows them), beside the quadrature's own error
estimate and both times. Acceptance: every difference of the default call within 0.005.

Run: python benchmarks/bench_hierarchical_reference.py [--pairs N] (default: all 10 uci54 pairs; the reference
takes about four times as long as a default call).
"""
import argparse
import itertools
import sys
from pathlib import Path
from unittest import mock

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _timing import load, timed  # noqa: E402 - one BLAS thread


import pp_corr  # noqa: E402
from pp_corr.hierarchical import fit  # noqa: E402
from pp_corr.hierarchical.exact import ExactGrid, exact_sampler  # noqa: E402
from pp_corr.hierarchical.stress import stress_scores  # noqa: E402

UCI54 = Path(__file__).resolve().parents[2] / "shared" / "data" / "uci54" / "uci54_tidy.csv"
FIELDS = ("p_left", "p_rope", "p_right", "delta0_p_positive")


def answered(scores, pair, grid):
    """hierarchical_test on ``grid`` (None: the default): its quadrature (ExactPosterior), the probabilities its
    summary shows and its time."""
    kept = {}

    def recording(*args, **kwargs):
        kept["post"], sampler = exact_sampler(*args, **kwargs, grid=grid)
        return kept["post"], sampler

    with mock.patch.object(fit, "exact_sampler", recording):
        seconds, result = timed(lambda: pp_corr.hierarchical_test(scores, algorithms=pair, random_seed=1))
    new = result.new_dataset()
    shown = dict(zip(FIELDS, (new.p_left, new.p_rope, new.p_right, result.p_delta0_positive)))
    return kept["post"], shown, seconds


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=10, help="uci54 pairs checked (default 10, all)")
    args = parser.parse_args()
    cases = []
    if UCI54.exists():
        scores = pp_corr.load_scores(UCI54, columns={"score": "accuracy"})
        pairs = list(itertools.combinations(scores.algorithm.values, 2))[: args.pairs]
        cases += [(f"uci54 {b} - {a}", scores, (a, b)) for a, b in pairs]
    else:
        print(f"uci54 skipped: not at {UCI54}")
    cases.append(("tie-heavy 81 x 10", stress_scores({"n_datasets": 81, "runs": 1}, seed=3), ("A", "B")))
    answered(cases[-1][1], cases[-1][2], None)  # the first call of a process loads the compiled kernels
    worst_exact = worst_shown = 0.0
    for label, scores, pair in cases:
        post, shown, seconds = answered(scores, pair, None)
        reference, _, ref_seconds = answered(scores, pair, ExactGrid().scaled(2))
        exact = max(abs(getattr(post, f) - getattr(reference, f)) for f in FIELDS)
        drawn = max(abs(shown[f] - getattr(reference, f)) for f in FIELDS)
        worst_exact, worst_shown = max(worst_exact, exact), max(worst_shown, drawn)
        print(f"{label}: quadrature {exact:.1e} from the reference (its own estimate {post.max_error:.1e}), "
              f"the default call's summary {drawn:.1e}; {seconds:.1f} s, reference {ref_seconds:.1f} s ({load()})",
              flush=True)
    print(f"=> largest difference from the reference: quadrature {worst_exact:.1e}, default call {worst_shown:.1e} "
          f"(acceptance 0.005: {'met' if worst_shown <= 0.005 else 'NOT met'})")


if __name__ == "__main__":
    main()
