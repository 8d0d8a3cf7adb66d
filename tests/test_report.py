"""The report (pp_corr.reporting.report, ``pp-corr report``): the files it writes and only those, a self-contained HTML
page that parses and renders in a real browser, LaTeX that compiles, numbers against independent computations, and a
verdict made of the numbers the tables show."""
import base64
import dataclasses
import functools
import re
import shutil
import subprocess
import warnings
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pytest

import pp_corr
from pp_corr.reporting.report import FILES, SHOWN, write_report
from pp_corr.reporting import document as report_document
from pp_corr.reporting.document import NOT_CONVERGED, Document, Section, Table, tex_escape, to_latex
from tests.conftest import formula_probs

NUMBER = re.compile(r"\d+\.\d+")
VOID = {"meta", "img", "br", "hr", "link", "input", "source", "col", "wbr"}


@pytest.fixture(scope="module")
def example_scores():
    return pp_corr.load_scores(pp_corr.example_path())


@pytest.fixture(scope="module")
def example_report(example_scores, tmp_path_factory):
    directory = tmp_path_factory.mktemp("example") / "report"
    return directory, write_report(example_scores, directory, progressbar=False)


@pytest.fixture(scope="module")
def uci54_report(uci54, tmp_path_factory):
    directory = tmp_path_factory.mktemp("uci54") / "report"
    return directory, write_report(uci54, directory, progressbar=False)


def markdown_tables(text) -> dict[str, list[list[str]]]:
    """Each table of report.md by its caption: the header and the rows, as lists of cells (unescaped)."""
    tables, caption, rows = {}, None, []
    for line in text.splitlines() + [""]:
        if line.startswith("**") and line.endswith("**") and not line.startswith("**Verdict"):
            caption = unescape(line.strip("*"))
        elif line.startswith("| ") and caption is not None:
            cells = [unescape(c.strip()) for c in re.split(r"(?<!\\)\|", line)[1:-1]]
            if not all(set(c) <= set(":-") for c in cells):
                rows.append(cells)
        elif rows:
            tables[caption], caption, rows = rows, None, []
    return tables


def unescape(text) -> str:
    return re.sub(r"\\(.)", r"\1", text)


def verdict_of(markdown) -> str:
    line = next(line for line in markdown.splitlines() if line.startswith("**Verdict.**"))
    return unescape(line.removeprefix("**Verdict.** "))


def table_by_start(tables, start):
    return next(rows for caption, rows in tables.items() if caption.startswith(start))


class _Checker(HTMLParser):
    """Collects every tag's attributes and checks that the tags nest (void elements aside)."""

    def __init__(self):
        super().__init__()
        self.stack, self.attributes, self.problems = [], [], []

    def handle_starttag(self, tag, attrs):
        self.attributes.append((tag, dict(attrs)))
        if tag not in VOID:
            self.stack.append(tag)

    def handle_endtag(self, tag):
        if not self.stack or self.stack[-1] != tag:
            self.problems.append(f"</{tag}> closes {self.stack[-1:] or 'nothing'}")
        else:
            self.stack.pop()


def check_html(path: Path) -> list:
    """The page parses with every tag closed in order, fetches nothing (no http, no link or script, no CSS url),
    and every image is an inline PNG or, above the inline limit, a PNG file in figures/ beside the page, linked.
    Returns the images' PNG bytes."""
    text = path.read_text(encoding="utf-8")
    checker = _Checker()
    checker.feed(text)
    checker.close()
    assert not checker.problems and checker.stack == [], (checker.problems, checker.stack)
    assert not re.search(r"https?://|url\(|@import", text)
    tags = [tag for tag, _ in checker.attributes]
    assert "link" not in tags and "script" not in tags and "iframe" not in tags
    assert all(not ({"href", "src"} & set(attrs)) or tag == "img" or (tag == "a" and attrs["href"].startswith(
        "figures/")) for tag, attrs in checker.attributes)
    images = []
    for tag, attrs in checker.attributes:
        if tag == "img":
            prefix = "data:image/png;base64,"
            if attrs["src"].startswith(prefix):
                images.append(base64.b64decode(attrs["src"].removeprefix(prefix), validate=True))
                assert len(images[-1]) <= report_document.INLINE_LIMIT
            else:
                assert re.fullmatch(r"figures/[\w.-]+\.png", attrs["src"]), attrs["src"][:40]
                images.append((path.parent / attrs["src"]).read_bytes())
                assert len(images[-1]) > report_document.INLINE_LIMIT
            assert images[-1][:8] == b"\x89PNG\r\n\x1a\n"
    return images


def check_files(directory: Path, written: dict):
    """Exactly the files returned are in the directory, and report.md links exactly the figures written."""
    on_disk = {p.relative_to(directory).as_posix() for p in directory.rglob("*") if p.is_file()}
    assert on_disk == set(written) and all(written[name] == directory / name for name in written)
    linked = set(re.findall(r"\]\((figures/[^)]+\.png)\)", (directory / FILES["md"]).read_text(encoding="utf-8")))
    assert linked == {name for name in written if name.startswith("figures/")}


def check_latex_source(text):
    """Every \\begin has its \\end in order, every row has as many cells as its tabular's columns, and no special
    character is left unescaped outside the comments."""
    body = "\n".join(line for line in text.splitlines() if not line.startswith("%"))
    stack = []
    for kind, name in re.findall(r"\\(begin|end)\{(\w+\*?)\}", body):
        if kind == "begin":
            stack.append(name)
        else:
            assert stack and stack.pop() == name, f"\\end{{{name}}} out of order"
    assert stack == []
    assert not re.search(r"(?<!\\)[_#%$~^]", body.replace("$-$", "")), "unescaped special character"
    flat = re.sub(r"\\begin\{tabular\}\[b\].*?\\end\{tabular\}", "H", body)  # two-line header cells
    for spec, rows in re.findall(r"\\begin\{(?:long)?tabular\}\{([^\n]*)\}\n(.*?)\\end\{(?:long)?tabular\}", flat,
                                 flags=re.S):
        columns = len(re.sub(r"p\{[^}]*\}", "p", re.sub(r">\{[^}]*\}", "", spec)))
        assert columns > 1 and set(re.sub(r"p\{[^}]*\}", "p", re.sub(r">\{[^}]*\}", "", spec))) <= set("lrcp")
        for row in rows.splitlines():
            if row.strip().endswith("\\\\") and not row.strip().startswith(("\\caption", "\\multicolumn")):
                assert len(re.findall(r"(?<!\\)&", row)) == columns - 1, row


def compile_latex(tex_path: Path, tmp_path: Path) -> Path:
    if shutil.which("pdflatex") is None:
        pytest.skip("pdflatex is not installed (apt-get install texlive-latex-base texlive-latex-recommended); "
                    "the LaTeX source is still checked for balanced environments and escapes")
    shutil.copy(tex_path, tmp_path / "tables.tex")
    (tmp_path / "paper.tex").write_text("\\documentclass{article}\n"
                                        "\\usepackage{booktabs, array, graphicx, longtable}\n"
                                        "\\begin{document}\n\\input{tables}\n\\end{document}\n")
    for _ in range(2):  # as a paper is compiled: a longtable settles its column widths on the second run
        run = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "paper.tex"], cwd=tmp_path,
                             capture_output=True, text=True, timeout=120)
        assert run.returncode == 0, run.stdout[-2000:]
    assert "Overfull \\hbox" not in run.stdout, "a table runs into the margin"
    return tmp_path / "paper.pdf"


def test_a_table_wider_than_the_line_is_scaled_to_it(tmp_path):
    """Ten columns of long numbers overrun an article's line even in scriptsize; the LaTeX scales them down."""
    header = tuple(f"column {j}" for j in range(10))
    rows = tuple(tuple(f"{-0.123456789 * (j + 1):.9f}" for j in range(10)) for _ in range(3))
    document = Document("T", ("v",), (Section("S", (Table("wide", "w", header, rows, (True,) * 10),)),))
    (tmp_path / "wide.tex").write_text(to_latex(document), encoding="utf-8")
    compile_latex(tmp_path / "wide.tex", tmp_path)


def screenshot(html_path: Path, tmp_path: Path):
    """A headless chromium screenshot of the page as a grey-level array (skipped without chromium)."""
    from PIL import Image

    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        pytest.skip("chromium is not installed (apt-get install chromium): the page is not rendered")
    shot = tmp_path / "page.png"
    subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                    f"--screenshot={shot}", "--window-size=1200,3000", html_path.resolve().as_uri()],
                   capture_output=True, timeout=120, check=True)
    return np.asarray(Image.open(shot).convert("L"), dtype=float)


def check_verdict(markdown, level=0.95):
    """The verdict's claims against the tables it summarises: the best algorithm or none by the ranking table's
    P(best), the equivalent pairs as the signed-rank table's verdicts, and every number it quotes in a table."""
    verdict, tables = verdict_of(markdown), markdown_tables(markdown)
    cells = {n for rows in tables.values() for row in rows for cell in row for n in NUMBER.findall(cell)}
    quoted = NUMBER.findall(verdict)
    assert quoted and set(quoted) <= cells, set(quoted) - cells
    ranking = table_by_start(tables, "Bayesian Plackett-Luce ranking")
    column = ranking[0].index("P(best)")
    p_best = {row[0]: float(row[column]) for row in ranking[1:]}
    top = max(p_best, key=p_best.get)
    if p_best[top] > level:
        assert verdict.startswith(f"{top} is the best algorithm with probability {row_value(ranking, top, 'P(best)')}")
    else:
        assert verdict.startswith(f"No algorithm is clearly best: the likeliest best, {top}, ")
        assert f" {row_value(ranking, top, 'P(best)')}, " in verdict
    signed = table_by_start(tables, "Every pair: Bayesian signed-rank test")
    equivalent = [(row[0], row[1], row[-1].split("(")[1].rstrip(")")) for row in signed[1:]
                  if row[-1].startswith("equivalent")]
    for a, b, share in equivalent[:SHOWN]:  # the first ones named, the others counted
        assert re.search(rf"{re.escape(a)} and {re.escape(b)} \((the rope [^)]* in )?{share}( of the draws)?\)",
                         verdict)
    more = len(equivalent) - SHOWN
    assert (f"and {more} more in the table." in verdict) == (more > 0)
    assert ("No pair is practically equivalent" in verdict) == (not equivalent)
    return verdict, tables


def row_value(rows, name, column):
    return next(row for row in rows[1:] if row[0] == name)[rows[0].index(column)]


def test_example_report_files_html_and_verdict(example_report, example_scores):
    directory, written = example_report
    check_files(directory, written)
    images = check_html(directory / FILES["html"])
    assert len(images) == len([n for n in written if n.startswith("figures/")])
    assert images == [written[n].read_bytes() for n in re.findall(
        r"\]\((figures/[^)]+\.png)\)", (directory / FILES["md"]).read_text(encoding="utf-8"))]
    markdown = (directory / FILES["md"]).read_text(encoding="utf-8")
    verdict, tables = check_verdict(markdown)
    ranking = table_by_start(tables, "Bayesian Plackett-Luce ranking")
    order = pp_corr.order_by_ranking(example_scores)
    assert [row[0] for row in ranking[1:]] == order  # ordered by the ranking everywhere
    for column in ("P(first)", "P(best)"):  # probabilities over the algorithms: they sum to 1 (up to rounding)
        total = sum(float(row_value(ranking, name, column)) for name in order)
        assert abs(total - 1) <= 0.0005 * len(order) + 1e-9


def test_signed_rank_table_matches_the_test_and_the_matrix_its_draws(example_report, example_scores):
    """Each pair's row against the Bayesian signed-rank test run on its own (same rope and seed), orientation
    B - A with A ranked first; the matrix figure's table carries the same decisions."""
    from pp_corr.reporting.report import _Decision, signed_rank_table

    directory, _ = example_report
    signed = table_by_start(markdown_tables((directory / FILES["md"]).read_text(encoding="utf-8")),
                            "Every pair: Bayesian signed-rank test")
    order = pp_corr.order_by_ranking(example_scores)
    assert [tuple(row[:2]) for row in signed[1:]] == [(a, b) for i, a in enumerate(order) for b in order[i + 1:]]
    results = {}
    for a, b, _, left, rope, right, words in signed[1:]:
        results[a, b] = pp_corr.bayesian_signed_rank(example_scores, algorithms=(a, b), rope=0.01, random_seed=0)
        assert [left, rope, right] == [f"{v:.3f}" for v in (results[a, b].p_left, results[a, b].p_rope,
                                                             results[a, b].p_right)]
        assert words == _Decision.decide(a, b, results[a, b].wins, 0.05).words()
    table = signed_rank_table(results, order, 0.05, (-0.01, 0.01), example_scores.sizes["dataset"])
    for (a, b), result in results.items():
        assert str(table.decision_signed_rank.sel(a=a, b=b).values) == result.decision(0.05)
        assert float(table.signed_rank_right.sel(a=b, b=a)) == result.p_left


def test_example_latex_is_balanced_escaped_and_compiles(example_report, tmp_path):
    directory, _ = example_report
    text = (directory / FILES["tex"]).read_text(encoding="utf-8")
    check_latex_source(text)
    assert "naive\\_bayes" in text and "naive_bayes" not in text.split("\n", 2)[2]
    pdf = compile_latex(directory / FILES["tex"], tmp_path)
    assert pdf.stat().st_size > 1000


def test_example_report_renders_in_chromium(example_report, tmp_path):
    directory, _ = example_report
    page = screenshot(directory / FILES["html"], tmp_path)
    assert page.std() > 20 and (page < 128).mean() > 0.005  # text and figures, not a blank page


@pytest.mark.slow
def test_uci54_report(uci54_report, tmp_path):
    directory, written = uci54_report
    check_files(directory, written)
    check_html(directory / FILES["html"])
    markdown = (directory / FILES["md"]).read_text(encoding="utf-8")
    verdict, _ = check_verdict(markdown)
    assert "j48gr and j48" in verdict  # 15 of 54 data sets tie exactly: the signed-rank test finds them equivalent
    check_latex_source((directory / FILES["tex"]).read_text(encoding="utf-8"))
    compile_latex(directory / FILES["tex"], tmp_path)
    page = screenshot(directory / FILES["html"], tmp_path)
    assert page.std() > 20 and (page < 128).mean() > 0.005


def test_one_data_set_gives_t_tests_against_the_formula_and_no_ranking(example_scores, tmp_path):
    scores = example_scores.isel(dataset=[1])
    written = write_report(scores, tmp_path / "one", progressbar=False)
    check_files(tmp_path / "one", written)
    check_html(tmp_path / "one" / FILES["html"])
    check_latex_source(written[FILES["tex"]].read_text(encoding="utf-8"))
    markdown = written[FILES["md"]].read_text(encoding="utf-8")
    assert "## Why there is no ranking" in markdown and "Plackett-Luce ranking" not in markdown
    tables = markdown_tables(markdown)
    rows = table_by_start(tables, "Every pair on wine")
    order = pp_corr.order_by_ranking(scores)
    assert [tuple(row[:2]) for row in rows[1:]] == [(a, b) for i, a in enumerate(order) for b in order[i + 1:]]
    verdict = verdict_of(markdown)
    for a, b, mean, _, left, rope, right, words in rows[1:]:
        x = (scores.score.sel(algorithm=b) - scores.score.sel(algorithm=a)).values.ravel()
        expected = formula_probs(x, float(scores.rho[0]), 0.01)
        assert [left, rope, right] == [f"{v:.3f}" for v in expected]
        assert mean == f"{x.mean():+.4f}"
        probs = dict(zip((f"{a} better", "equivalent", f"{b} better"), expected))
        decided = max(probs, key=probs.get)
        if probs[decided] > 0.95:
            assert words == f"{decided} ({probs[decided]:.3f})"
            if decided != "equivalent":
                loser = b if decided.startswith(a) else a
                assert f"{decided} than {loser} ({probs[decided]:.3f})" in verdict
        else:
            assert words == "no decision"
    cells = {n for table in tables.values() for row in table for cell in row for n in NUMBER.findall(cell)}
    assert set(NUMBER.findall(verdict)) <= cells


def test_refuses_a_non_empty_directory_and_overwrite_replaces_only_its_files(example_scores, tmp_path):
    scores = example_scores.isel(dataset=[0], algorithm=[0, 1])
    mine = tmp_path / "notes.txt"
    mine.write_text("mine")
    with pytest.raises(ValueError, match=r"^directory .* is not empty.*overwrite=True"):
        write_report(scores, tmp_path, progressbar=False)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"]
    written = write_report(scores, tmp_path, overwrite=True, formats=("html",), progressbar=False)
    assert set(written) == {FILES["html"]} and mine.read_text() == "mine"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt", FILES["html"]]


@pytest.mark.parametrize("options, message", [
    ({"alpha": 1.5}, "alpha must be in"), ({"rope": -1}, "rope must be in"), ({"formats": ("pdf",)}, "formats"),
    ({"method": "smc"}, "method must be one of"), ({"random_seed": -1}, "random_seed must be >= 0"),
    ({"prior": 0.5}, "prior must be a NormalGamma"), ({"hierarchical": "yes"}, "hierarchical must be True"),
    ({"sampler": "stan"}, "sampler must be one of"),
])
def test_bad_arguments_are_named_before_anything_is_written(example_scores, tmp_path, options, message):
    with pytest.raises((ValueError, TypeError), match=message):
        write_report(example_scores, tmp_path / "new", progressbar=False, **options)
    assert not (tmp_path / "new").exists()


def test_bad_scores_are_named(example_scores, tmp_path):
    with pytest.raises(ValueError, match="a report compares at least two"):
        write_report(example_scores.isel(algorithm=[0]), tmp_path / "r", progressbar=False)
    with pytest.raises(ValueError, match="joint=True models the population of data sets"):
        write_report(example_scores.isel(dataset=[0]), tmp_path / "r", joint=True, progressbar=False)
    with pytest.raises(TypeError, match="scores must be a scores Dataset"):
        write_report(example_scores.score, tmp_path / "r", progressbar=False)
    assert not (tmp_path / "r").exists()


def test_tex_escape_covers_every_special_character():
    text = tex_escape(r"a_b & 50% #1 $x$ {y} ~z ^w \v")
    assert not re.search(r"(?<!\\)[_&%#${}]", text.replace(r"\textbackslash{}", "").replace(
        r"\textasciitilde{}", "").replace(r"\textasciicircum{}", ""))
    assert "~" not in text and "^" not in text


@pytest.mark.slow
def test_unconverged_fits_are_marked_without_a_verdict(example_scores, tmp_path, monkeypatch):
    """Hierarchical fits (short, real) with one pair turned unconverged, and a joint result that did not
    converge: their rows and section say NOT CONVERGED and show no numbers; the verdict says so; converged pairs
    keep their numbers and shrinkage figures."""
    import pp_corr.hierarchical.batch as batch
    import pp_corr.hierarchical.fit as hierarchical
    import pp_corr.hierarchical.joint as joint
    from tests.conftest import result_from_levels

    scores = example_scores.sel(algorithm=["logistic", "knn", "tree"])
    order = pp_corr.order_by_ranking(scores)
    failed_pair = (order[1], order[2])
    real_test = hierarchical.hierarchical_test

    def short_fit(*args, algorithms, **kwargs):
        kwargs.update(draws=200, tune=200, chains=2, retry=False, method="mcmc")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", hierarchical.ConvergenceWarning)
            result = real_test(*args, algorithms=algorithms, **kwargs)
        problems = ("R-hat of nu is 1.3 > 1.01",) if tuple(algorithms) == failed_pair else ()
        return dataclasses.replace(result, convergence_problems=problems)

    rng = np.random.default_rng(5)
    fake_joint = result_from_levels(0.01 * rng.standard_normal((400, 2)), np.diag([1e-4, 2e-4]), nu=5.0, names=order)
    fake_joint = dataclasses.replace(fake_joint, convergence_problems=("R-hat of nu is 1.2 > 1.01",),
                                     attempts=({"form": "centered"}, {"form": "marginal"}))
    monkeypatch.setattr(hierarchical, "hierarchical_test", short_fit)
    monkeypatch.setattr(joint, "joint_test", lambda *args, **kwargs: fake_joint)
    # the pairs in this process (worker processes would not see the stand-in)
    monkeypatch.setattr(batch, "hierarchical_tests", functools.partial(batch.hierarchical_tests, workers=1))
    written = write_report(scores, tmp_path / "r", hierarchical=True, joint=True, method="mcmc", progressbar=False)
    markdown = written[FILES["md"]].read_text(encoding="utf-8")
    rows = table_by_start(markdown_tables(markdown), "Hierarchical model of each pair")
    for row in rows[1:]:
        if tuple(row[:2]) == failed_pair:
            assert row[-1].startswith(NOT_CONVERGED) and "R-hat of nu" in row[-1]
            assert not any(NUMBER.search(cell) for cell in row[3:-1])
        else:
            assert not row[-1].startswith(NOT_CONVERGED) and all(NUMBER.fullmatch(c) for c in (row[5], row[7]))
    verdict = verdict_of(markdown)
    assert f"did not converge for {failed_pair[0]} vs {failed_pair[1]}: no verdict" in verdict
    assert "The joint hierarchical model did not converge: no verdict from it." in verdict
    joint_part = markdown.split("## Joint hierarchical model")[1]
    assert NOT_CONVERGED in joint_part and "Joint hierarchical model: ranking" not in joint_part
    shrinkage = {name for name in written if name.startswith("figures/shrinkage_")}
    assert len(shrinkage) == 2 and not any("_vs_".join(failed_pair) in name for name in shrinkage)
    html = written[FILES["html"]].read_text(encoding="utf-8")
    assert html.count(f'class="flag wrap">{NOT_CONVERGED}') == 1


def test_cli_writes_the_report_and_names_its_errors(example_scores, tmp_path, capsys):
    from pp_corr.cli import main

    frame = example_scores.isel(dataset=[2]).score.to_dataframe().reset_index()
    source = tmp_path / "one.csv"
    frame.to_csv(source, index=False)
    out = tmp_path / "report"
    assert main(["report", str(source), "-o", str(out), "--rope", "0.02", "--seed", "3"]) == 0
    assert {p.name for p in out.iterdir()} == {"figures", *FILES.values()}
    settings = table_by_start(markdown_tables((out / FILES["md"]).read_text(encoding="utf-8")), "Settings")
    assert row_value(settings, "Rope", "Value").startswith("[-0.02, 0.02]")
    assert row_value(settings, "Random seed", "Value") == "3"
    captured = capsys.readouterr()
    assert "report written to" in captured.out and "wrote" in captured.err
    assert main(["report", str(source), "-o", str(tmp_path / "bare"), "--no-pair-figures"]) == 0
    assert {p.name for p in (tmp_path / "bare").iterdir()} == set(FILES.values())  # no figure: none asked for
    for argv, message in ((["-o", str(out)], "pp-corr: --output .* is not empty.*--overwrite"),
                          (["-o", str(tmp_path / "x"), "--joint"], "pp-corr: --joint models the population")):
        with pytest.raises(SystemExit, match=message):
            main(["report", str(source), *argv])
    for option in (["--method", "mcmc"], ["--sampler", "nutpie"]):  # refused by the parser (tests/test_cli_modes.py)
        with pytest.raises(SystemExit) as refused:
            main(["report", str(source), "-o", str(tmp_path / "x"), *option])
        assert refused.value.code == 2 and f"{option[0]} is not used without --hierarchical" in capsys.readouterr().err
    assert not (tmp_path / "x").exists()


@pytest.mark.parametrize("sampler", ["pymc", "nutpie"])
def test_the_sampler_reaches_the_hierarchical_and_joint_fits(example_scores, tmp_path, monkeypatch, sampler):
    """``sampler`` (``--sampler``) is the one both model fits are given; stopped at the joint fit, nothing written."""
    import pp_corr.hierarchical.batch as batch
    import pp_corr.hierarchical.joint as joint

    seen = {}

    class Stop(Exception):
        pass

    def record(name, result=None):
        def fit(*args, **kwargs):
            seen[name] = kwargs["sampler"]
            if result is None:
                raise Stop
            return result
        return fit

    monkeypatch.setattr(batch, "hierarchical_tests", record("hierarchical", {}))
    monkeypatch.setattr(joint, "joint_test", record("joint"))
    with pytest.raises(Stop):
        write_report(example_scores, tmp_path / "r", hierarchical=True, joint=True, sampler=sampler, progressbar=False)
    assert seen == {"hierarchical": sampler, "joint": sampler} and not (tmp_path / "r").exists()


def test_a_converged_joint_fit_shows_its_numbers_and_how_it_was_sampled(example_scores, tmp_path, monkeypatch):
    """A converged joint result (known draws, 4 chains, 3 divergences) in the report: the ranking and pair tables
    hold its numbers (to the digits shown), and the section says the sampler, the last attempt's settings and the
    population parameters' largest R-hat and smallest bulk ESS (computed here with ArviZ) and the divergences."""
    import arviz as az

    import pp_corr.hierarchical.joint as joint
    from tests.conftest import result_from_levels

    scores = example_scores.sel(algorithm=["logistic", "knn", "tree"])
    rng = np.random.default_rng(8)
    fits = []

    def fake_joint_test(scores, *, algorithms, sampler, **kwargs):
        levels = np.array([0.004, -0.006]) + 0.005 * rng.standard_normal((800, 2))
        result = result_from_levels(levels, np.diag([1e-4, 2e-4]), nu=5.0, names=algorithms)
        post = {name: value.values.reshape(4, 200, *value.shape[2:]) for name, value in result.idata.posterior.items()}
        post["sigma0"] = post["sigma0_scaled"] * result.data.scale * rng.uniform(0.9, 1.1, (4, 200, 2))
        post["nu"] = post["nu"] + 0.1 * rng.standard_normal((4, 200))   # R-hat of a constant is undefined
        diverging = np.zeros((4, 200), dtype=bool)
        diverging[1, [3, 50, 99]] = True
        attempts = ({"form": "marginal", "draws": 1000}, {"form": "marginal", "draws": 200, "tune": 300})
        fits.append(dataclasses.replace(result, idata=az.from_dict({"posterior": post,
                                                                   "sample_stats": {"diverging": diverging}}),
                                        attempts=attempts, convergence_problems=()))
        return fits[-1]

    monkeypatch.setattr(joint, "joint_test", fake_joint_test)
    written = write_report(scores, tmp_path / "r", joint=True, sampler="nutpie", progressbar=False)
    markdown = written[FILES["md"]].read_text(encoding="utf-8")
    (result,) = fits
    ranking, pairs = result.ranking(), result.pairs(0.95)
    tables = markdown_tables(markdown)
    for name, best, rank, *_ in table_by_start(tables, "Joint hierarchical model: ranking")[1:]:
        assert float(best) == pytest.approx(ranking.loc[name, "P(best)"], abs=6e-4)   # 3 digits shown
        assert float(rank) == pytest.approx(ranking.loc[name, "expected rank"], abs=6e-3)
    rows = table_by_start(tables, "Joint hierarchical model: every pair")[1:]
    assert [tuple(r[:2]) for r in rows] == list(zip(pairs.a, pairs.b))
    for row, pair in zip(rows, pairs.itertuples()):
        assert float(row[4]) == pytest.approx(pair.p_delta0_positive, abs=6e-4)
        assert float(row[6]) == pytest.approx(pair.p_rope, abs=6e-4)
    names = ["delta0", "sigma0", "nu"]
    rhat = max(float(az.rhat(result.idata, var_names=[v])[v].max()) for v in names)
    ess = min(float(az.ess(result.idata, var_names=[v])[v].min()) for v in names)
    section = unescape(markdown.split("## Joint hierarchical model")[1])
    assert "Sampled with nutpie, 4 chains, form='marginal', draws=200, tune=300 (after a retry)" in section
    assert f"largest R-hat {rhat:.3f} and smallest bulk ESS {ess:.0f} of the population parameters" in section
    assert "3 divergent transitions" in section


# --- reports of many algorithms (issue 38) ---------------------------------------------------------------------

@pytest.fixture(scope="module")
def wide_report(tmp_path_factory):
    """16 classifiers on 12 data sets (the shape of issue 38's benchmark, fewer data sets): the report's size,
    order, tables and diagram at 120 pairs."""
    from pp_corr import plots
    from pp_corr.testing import messy_benchmark

    frame = messy_benchmark(16, 12, random_seed=1, failed=())
    scores = pp_corr.load_scores(frame, columns={"dataset": "db"}, format="wide")
    directory = tmp_path_factory.mktemp("wide") / "report"
    captured = {}
    real = plots.plot_rank_diagram

    def spy(result, **kwargs):  # the diagram as drawn, with what it was given
        captured["figure"] = real(result, **kwargs)
        captured["names"] = list(result.to_frame().index)
        return captured["figure"]

    plots.plot_rank_diagram = spy
    try:
        written = write_report(scores, directory, progressbar=False)
    finally:
        plots.plot_rank_diagram = real
    return directory, written, scores, captured


def test_a_report_of_16_algorithms_is_small_and_leads_with_the_verdict(wide_report, tmp_path):
    """No per-pair figures unless asked (three files, not 360), the ranking right after the verdict, each
    algorithm's standing before the 120-row pair tables (folded in HTML), settings last; a compact matrix that fits
    the page; LaTeX longtables that compile without running into the margin."""
    directory, written, scores, _ = wide_report
    check_files(directory, written)
    assert sorted(written) == ["figures/pairs_signed_rank.png", "figures/rank_diagram.png", *sorted(FILES.values())]
    html = (directory / FILES["html"]).read_text(encoding="utf-8")
    assert len(html) < 1_500_000
    check_html(directory / FILES["html"])
    markdown = (directory / FILES["md"]).read_text(encoding="utf-8")
    sections = re.findall(r"^## (.*)$", markdown, flags=re.M)
    assert sections == ["Ranking", "All pairs", "Settings"]
    tables = markdown_tables(markdown)
    standing = table_by_start(tables, "Each algorithm against the 15 others")
    signed = table_by_start(tables, "Every pair: Bayesian signed-rank test")
    assert [row[0] for row in standing[1:]] == pp_corr.order_by_ranking(scores) and len(signed) == 121
    for name, better, equivalent, worse, undecided in standing[1:]:  # the counts of the pair table's verdicts
        mine = [row for row in signed[1:] if name in row[:2]]
        won = sum(row[-1].startswith(f"{name} better") for row in mine)
        lost = sum(row[-1].split(" better")[0] in set(row[:2]) - {name} for row in mine)
        tied = sum(row[-1].startswith("equivalent") for row in mine)
        assert (int(better), int(worse), int(equivalent), int(undecided)) == (won, lost, tied, 15 - won - lost - tied)
    unbeaten = [row[0] for row in standing[1:] if row[3] == "0"]  # the verdict names the top group
    assert f"No other algorithm is better than {', '.join(unbeaten)} (Bayesian" in verdict_of(markdown)
    assert html.index("Each algorithm against") < html.index("<details><summary>The pair tables (120 rows each)")
    matrix = written["figures/pairs_signed_rank.png"].read_bytes()
    assert int.from_bytes(matrix[16:20], "big") <= 1120  # its width in pixels: the page's, at its own size
    check_verdict(markdown)
    tex = (directory / FILES["tex"]).read_text(encoding="utf-8")
    check_latex_source(tex)
    assert tex.count("\\begin{longtable}") == 2 and "\\endhead" in tex
    compile_latex(directory / FILES["tex"], tmp_path)


def test_the_rank_diagram_separates_as_the_pair_table_decides(wide_report):
    """The diagram's black bars against the signed-rank table: no bar holds a pair the table gives a winner, and
    every two neighbours (in the diagram's order) the table does not separate share a bar."""
    directory, _, _, captured = wide_report
    signed = table_by_start(markdown_tables((directory / FILES["md"]).read_text(encoding="utf-8")),
                            "Every pair: Bayesian signed-rank test")
    separated = {frozenset(row[:2]) for row in signed[1:] if re.match(r".+ better \(", row[-1])}
    names = captured["names"]
    bars = [line.get_gid().removeprefix("not separated: ").split(" .. ") for line in captured["figure"].axes[0].lines
            if (line.get_gid() or "").startswith("not separated: ")]
    spans = [set(names[names.index(first):names.index(last) + 1]) for first, last in bars]
    assert separated and bars  # both kinds occur on this benchmark
    for span in spans:
        assert not any(frozenset((a, b)) in separated for a in span for b in span if a != b), span
    for a, b in zip(names, names[1:]):
        if frozenset((a, b)) not in separated:
            assert any({a, b} <= span for span in spans), (a, b)
    title = captured["figure"].axes[0].get_legend().get_title().get_text()
    assert "separated when the Bayesian signed-rank test decides a winner at 0.95" in title


def test_pair_figures_on_request(example_scores, tmp_path):
    """pair_figures=False leaves out each pair's figures (the example draws them by default: 6 pairs);
    a report without Markdown still writes the figures its HTML links."""
    written = write_report(example_scores, tmp_path / "r", pair_figures=False, progressbar=False)
    assert sorted(n for n in written if n.startswith("figures/")) == ["figures/pairs_signed_rank.png",
                                                                      "figures/rank_diagram.png"]
    assert "Figures of each pair" not in written[FILES["md"]].read_text(encoding="utf-8")
    with pytest.raises(TypeError, match="pair_figures must be True or False"):
        write_report(example_scores, tmp_path / "bad", pair_figures="yes", progressbar=False)


def test_large_figures_are_linked_and_written_with_the_html(example_scores, tmp_path, monkeypatch):
    import pp_corr.reporting.document as document

    monkeypatch.setattr(document, "INLINE_LIMIT", 60_000)
    written = write_report(example_scores.isel(algorithm=[0, 1, 2]), tmp_path / "r", formats=("html",),
                           progressbar=False)
    large = sorted(n for n in written if n.startswith("figures/"))
    assert large and all(written[n].stat().st_size > 60_000 for n in large)
    html = written[FILES["html"]].read_text(encoding="utf-8")
    assert all(f'src="{n}"' in html and f'href="{n}"' in html for n in large)
    assert len(check_html(written[FILES["html"]])) > len(large)  # the small ones still inline


def test_gaps_name_each_missing_cell_and_not_the_design(example_scores):
    """A missing score is a gap; a fold that no algorithm has (a data set with fewer folds) is the design."""
    from pp_corr.reporting.overview import gaps_section

    scores = example_scores.copy(deep=True)
    assert gaps_section(scores) is None
    names, datasets = list(scores.algorithm.values), list(scores.dataset.values)
    scores["score"].loc[{"algorithm": names[1], "dataset": datasets[2]}] = np.nan  # every fold: a cell missing
    scores["score"][0, 3, 0, 4] = np.nan
    scores["score"][1, :, 0, 0] = np.nan  # no algorithm: the design
    section = gaps_section(scores)
    folds = scores.sizes["run"] * scores.sizes["fold"]
    assert section.title == "Gaps"
    words, table = section.blocks
    cells = {(row[0], row[1]): row[2] for row in table.rows}
    assert cells == {(names[1], datasets[2]): f"{folds} of {folds}", (names[3], datasets[0]): f"1 of {folds}"}
    assert words.startswith(f"{folds + 1} scores are missing: 2 (algorithm, data set) cells, of 2 algorithms on 2 "
                            "data sets.")


def test_long_tables_break_across_pages(tmp_path):
    """A table of 100 rows is a longtable: it compiles, its header repeats, and it spans more than one page."""
    rows = tuple((f"algorithm_{i}", f"{i / 7:+.4f}") for i in range(100))
    document = Document("T", ("v",), (Section("S", (Table("long", "many rows", ("name", "value"), rows,
                                                          (False, True)),)),))
    (tmp_path / "long.tex").write_text(to_latex(document), encoding="utf-8")
    check_latex_source(to_latex(document))
    pdf = compile_latex(tmp_path / "long.tex", tmp_path)
    pages = re.search(r"Output written on paper\.pdf \((\d+) pages?", (pdf.parent / "paper.log").read_text())
    assert int(pages.group(1)) >= 2


# --- bad and extreme inputs: refused by name, or the documented answer (issue #10) ----------------------------------


class TestWriteReportArguments:
    @pytest.mark.parametrize("kwargs, named", [({"rope": -1}, "rope"), ({"alpha": 2}, "alpha"),
                                               ({"formats": ("pdf",)}, "formats"), ({"method": "x"}, "method"),
                                               ({"random_seed": "a"}, "random_seed")])
    def test_write_report_names_a_bad_argument_and_writes_nothing(self, tmp_path, kwargs, named):
        from pp_corr import example_path, load_scores, write_report

        with pytest.raises((ValueError, TypeError), match=named):
            write_report(load_scores(example_path()), tmp_path / "report", progressbar=False, **kwargs)
        assert list(tmp_path.iterdir()) == []

    def test_write_report_refuses_a_file_in_place_of_its_directory_and_scores_of_another_type(self, tmp_path):
        from pp_corr import example_path, load_scores, write_report

        (tmp_path / "taken").write_text("x")
        with pytest.raises(ValueError, match="not a directory"):
            write_report(load_scores(example_path()), tmp_path / "taken", progressbar=False)
        with pytest.raises(TypeError, match="scores"):
            write_report([[0.8, 0.9]], tmp_path / "report", progressbar=False)
        assert [p.name for p in tmp_path.iterdir()] == ["taken"]
