"""The table of which options each mode of a command uses (pp_corr.cli_modes): it matches the parser, and an option
typed for a mode that does not use it is refused by the parser (exit status 2, the option and the mode named)."""
import pytest

from pp_corr.cli import build_parser
from pp_corr.cli_modes import EVERY, MODES, OPTIONS, dest, parse_args

FILE = "scores.csv"  # the parser does not open FILE: a refusal comes before any reading


def _options(parser) -> dict:
    """The parser's options by their first spelling: {option: dest}."""
    return {action.option_strings[0]: action.dest for action in parser._actions
            if action.option_strings and action.dest != "help"}


@pytest.mark.parametrize("command", sorted(build_parser().commands))
def test_every_option_of_the_parser_is_in_the_table_and_back(command):
    parser = build_parser().commands[command]
    options = _options(parser)
    assert set(OPTIONS[command]) == set(options)
    assert all(dest(option) == name for option, name in options.items())
    modes = MODES.get(command, {})
    for option, use in OPTIONS[command].items():
        assert use is EVERY or (set(use[0]) <= set(modes) and use[1].startswith("it ")), option


def test_every_study_is_a_mode_of_simulate():
    (study,) = [a for a in build_parser().commands["simulate"]._actions if a.dest == "study"]
    assert set(MODES["simulate"]) == {f"by the {name} study" for name in study.choices}


def _refused(argv, capsys) -> str:
    with pytest.raises(SystemExit) as caught:
        parse_args(build_parser(), argv)
    message = capsys.readouterr().err
    assert caught.value.code == 2 and message.startswith("pp-corr: ") and message.count("\n") == 1, message
    return message


@pytest.mark.parametrize("option", [["--prior", "0,1,2,0.001"], ["--alpha", "0.2"]])
def test_compare_refuses_the_correlated_ttest_options_with_hierarchical(option, capsys):
    message = _refused(["compare", FILE, "-a", "A", "-b", "B", "--hierarchical", *option], capsys)
    assert f"{option[0]} is not used with --hierarchical (it sets the " in message


@pytest.mark.parametrize("mode", [[], ["--all-pairs"]])
@pytest.mark.parametrize("option", [["--method", "exact"], ["--workers", "2"], ["--scheduler", "tcp://h:8786"]])
def test_compare_refuses_the_hierarchical_options_without_it(mode, option, capsys):
    words = "with --all-pairs" if mode else "without --all-pairs or --hierarchical"
    assert f"{option[0]} is not used {words} (it " in _refused(["compare", FILE, *mode, *option], capsys)


@pytest.mark.parametrize("option", [["--sampler", "nutpie"], ["--allow-unconverged"]])
def test_compare_refuses_the_mcmc_options_without_method_mcmc(option, capsys):
    for method in ([], ["--method", "exact"], ["--method", "auto"]):
        message = _refused(["compare", FILE, "--hierarchical", *method, *option], capsys)
        assert f"{option[0]} is not used with --hierarchical (it " in message and "--method mcmc" in message
    assert _refused(["compare", FILE, *option], capsys).startswith(f"pp-corr: {option[0]} is not used without")


def test_compare_refuses_all_pairs_with_hierarchical(capsys):
    message = _refused(["compare", FILE, "--hierarchical", "--all-pairs"], capsys)
    assert "--all-pairs is not used with --hierarchical" in message and "-a and -b are left out" in message


@pytest.mark.parametrize("mode, words", [(["--all-pairs"], "with --all-pairs"),
                                         (["--hierarchical"], "with --hierarchical")])
def test_compare_refuses_a_pair_s_data_set_figure_across_pairs(mode, words, capsys):
    message = _refused(["compare", FILE, *mode, "--plots", "figs", "--plot-dataset", "iris"], capsys)
    assert f"--plot-dataset is not used {words}" in message


@pytest.mark.parametrize("argv, words", [
    (["--method", "mcmc"], "--method is not used without --hierarchical or --joint"),
    (["--joint", "--method", "exact"], "--method is not used with --joint"),
    (["--sampler", "nutpie"], "--sampler is not used without --hierarchical"),
    (["--hierarchical", "--sampler", "nutpie"], "--sampler is not used with --hierarchical ("),
])
def test_report_refuses_the_model_options_its_sections_do_not_use(argv, words, capsys):
    assert words in _refused(["report", FILE, "-o", "out", *argv], capsys)


@pytest.mark.parametrize("argv, words", [(["--test", "poisson"], "--test is not used with --over runs"),
                                         (["--orders", "3"], "--orders is not used with --over runs"),
                                         (["--over", "datasets", "--max-runs", "4"],
                                          "--max-runs is not used with --over datasets")])
def test_sequential_refuses_the_options_of_the_other_replay(argv, words, capsys):
    assert words in _refused(["sequential", FILE, "-a", "A", "-b", "B", *argv], capsys)


@pytest.mark.parametrize("study", ["toy", "experiment1", "experiment2", "nadeau-bengio"])
def test_simulate_refuses_draws_outside_the_signed_rank_study(study, capsys):
    assert f"--draws is not used by the {study} study" in _refused(["simulate", study, "--draws", "5000"], capsys)


def test_an_option_typed_at_its_default_value_is_refused_and_every_refusal_is_named(capsys):
    """Given-ness, not a comparison with the default: --method auto and --draws 5000 are typed."""
    message = _refused(["compare", FILE, "--all-pairs", "--method", "auto"], capsys)
    assert "--method is not used with --all-pairs" in message
    message = _refused(["compare", FILE, "--hierarchical", "--prior", "matching", "--alpha", "0.05"], capsys)
    assert "--alpha is not used with --hierarchical" in message
    assert "--prior is not used with --hierarchical" in message


@pytest.mark.parametrize("argv", [
    ["compare", FILE, "-a", "A", "-b", "B", "--prior", "0,1,2,0.001", "--alpha", "0.2", "--plots", "f",
     "--plot-dataset", "d"],
    ["compare", FILE, "--all-pairs", "--prior", "matching", "--alpha", "0.1", "--seed", "3"],
    ["compare", FILE, "--hierarchical", "--method", "exact", "--workers", "2"],
    ["compare", FILE, "--hierarchical", "--method", "mcmc", "--sampler", "nutpie", "--allow-unconverged",
     "--scheduler", "tcp://h:8786"],
    ["report", FILE, "-o", "out", "--joint", "--sampler", "nutpie"],
    ["report", FILE, "-o", "out", "--hierarchical", "--method", "mcmc", "--sampler", "nutpie"],
    ["report", FILE, "-o", "out", "--hierarchical", "--joint", "--method", "exact", "--sampler", "nutpie"],
    ["sequential", FILE, "-a", "A", "-b", "B", "--max-runs", "4"],
    ["sequential", FILE, "-a", "A", "-b", "B", "--over", "datasets", "--test", "poisson", "--orders", "3"],
    ["simulate", "signed-rank", "--draws", "100"],
    ["items", FILE, "-a", "A", "-b", "B", "--hierarchical", "--alpha", "0.1"],
])
def test_the_options_a_mode_uses_are_accepted_with_their_values(argv):
    args = parse_args(build_parser(), argv)
    assert args.command == argv[0] and args.seed in (0, 3)
