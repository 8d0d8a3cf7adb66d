"""The report's document (paragraphs, tables and figures in sections) and its three renderings: Markdown with
the figures as files beside it, one HTML page (figures inline as base64 PNG up to :data:`INLINE_LIMIT` bytes, larger
ones linked to their files beside it; CSS inline, no network), and booktabs LaTeX tables to ``\\input`` into a
paper (a long table as a ``longtable`` that breaks across pages). Every table is formatted once, as text, so the
three renderings show the same numbers."""
from __future__ import annotations

import base64
import html
import re
from dataclasses import dataclass, field

NOT_CONVERGED = "NOT CONVERGED: no verdict"
WRAP = 40  # in HTML, text cells longer than this many characters wrap
INLINE_LIMIT = 400_000  # bytes: a larger figure is linked from the HTML page, not inlined
PAGE_WIDTH = 1120  # pixels of the HTML page's text (its CSS max-width): a wider figure scrolls at its own size
LONG_TABLE = 40  # rows: a longer table becomes a LaTeX longtable, which breaks across pages


@dataclass(frozen=True)
class Table:
    """A table as formatted text: ``header`` (one name per column), ``rows`` (tuples of cells), ``numeric``
    (per column: right-aligned, and its minus signs set as such in LaTeX), a caption, a label for LaTeX
    references (``tab:<label>``) and an optional note under it. ``widths`` gives, per column, a LaTeX paragraph
    width as a share of the line (text that wraps) or None (as wide as its cells). ``in_latex=False`` keeps the
    table out of tables.tex."""

    label: str
    caption: str
    header: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    numeric: tuple[bool, ...]
    note: str = ""
    widths: tuple[float | None, ...] | None = None
    in_latex: bool = True

    def __post_init__(self):
        width = len(self.header)
        sizes = [len(self.numeric), *map(len, self.rows), len(self.widths or self.header)]
        if any(size != width for size in sizes):
            raise ValueError(f"table {self.label!r}: every row, numeric and widths must have {width} entries")


@dataclass(frozen=True)
class Figure:
    """A figure as PNG bytes, with the file stem it is saved under beside the Markdown and its caption."""

    stem: str
    caption: str
    png: bytes

    @property
    def width(self) -> int:
        """The PNG's width in pixels (from its header)."""
        return int.from_bytes(self.png[16:20], "big")

    @property
    def linked(self) -> bool:
        """Whether the HTML page links the figure's file instead of inlining it."""
        return len(self.png) > INLINE_LIMIT


@dataclass(frozen=True)
class Details:
    """Blocks a reader opens on demand in HTML (``<details>``); Markdown shows them under a small heading."""

    summary: str
    blocks: tuple = ()


@dataclass(frozen=True)
class Section:
    """A heading and its blocks: paragraphs (str), :class:`Table`, :class:`Figure` or :class:`Details`."""

    title: str
    blocks: tuple = ()


@dataclass(frozen=True)
class Document:
    """The whole report: title, the verdict's sentences (shown first), the sections."""

    title: str
    verdict: tuple[str, ...]
    sections: tuple[Section, ...] = field(default_factory=tuple)

    def figures(self) -> list[Figure]:
        """Every figure, in reading order."""
        return [block for section in self.sections for block in _flat(section.blocks) if isinstance(block, Figure)]

    def linked_figures(self) -> list[Figure]:
        """The figures the HTML page links instead of inlining (larger than :data:`INLINE_LIMIT` bytes)."""
        return [figure for figure in self.figures() if figure.linked]

    def tables(self) -> list[Table]:
        """Every table, in reading order."""
        return [block for section in self.sections for block in _flat(section.blocks) if isinstance(block, Table)]


def _flat(blocks):
    for block in blocks:
        if isinstance(block, Details):
            yield from _flat(block.blocks)
        else:
            yield block


# --- Markdown -------------------------------------------------------------------------------------------------

_MD_SPECIAL = re.compile(r"([\\`*_\[\]<>|#])")


def md_escape(text) -> str:
    """Text with Markdown's special characters escaped.

    >>> md_escape("naive_bayes | knn")
    'naive\\\\_bayes \\\\| knn'
    """
    return _MD_SPECIAL.sub(r"\\\1", str(text))


def to_markdown(document: Document, figure_dir="figures") -> str:
    """The document as GitHub-flavoured Markdown; figures are linked as ``figure_dir/<stem>.png``.

    >>> doc = Document("T", ("It is so.",), (Section("S", ("text", Table("t", "cap", ("a", "p"), (("x", "0.5"),),
    ...                                                                        (False, True)))),))
    >>> print(to_markdown(doc))  # doctest: +NORMALIZE_WHITESPACE
    # T
    <BLANKLINE>
    **Verdict.** It is so.
    <BLANKLINE>
    ## S
    <BLANKLINE>
    text
    <BLANKLINE>
    **cap**
    <BLANKLINE>
    | a | p |
    | :-- | --: |
    | x | 0.5 |
    <BLANKLINE>
    """
    lines = [f"# {md_escape(document.title)}", "", "**Verdict.** " + " ".join(map(md_escape, document.verdict)), ""]
    for section in document.sections:
        lines += [f"## {md_escape(section.title)}", ""]
        lines += _md_blocks(section.blocks, figure_dir)
    return "\n".join(lines)


def _md_blocks(blocks, figure_dir) -> list[str]:
    lines = []
    for block in blocks:
        if isinstance(block, str):
            lines += [md_escape(block), ""]
        elif isinstance(block, Table):
            lines += [f"**{md_escape(block.caption)}**", "", _md_row(block.header),
                      "| " + " | ".join("--:" if n else ":--" for n in block.numeric) + " |"]
            lines += [_md_row(row) for row in block.rows]
            lines += [""] + ([f"_{md_escape(block.note)}_", ""] if block.note else [])
        elif isinstance(block, Figure):
            lines += [f"![{md_escape(block.caption)}]({figure_dir}/{block.stem}.png)", "",
                      f"_{md_escape(block.caption)}_", ""]
        elif isinstance(block, Details):
            lines += [f"### {md_escape(block.summary)}", ""] + _md_blocks(block.blocks, figure_dir)
        else:
            raise TypeError(f"unknown block {type(block).__name__}")
    return lines


def _md_row(cells) -> str:
    return "| " + " | ".join(md_escape(c) for c in cells) + " |"


# --- HTML -----------------------------------------------------------------------------------------------------

CSS = """
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif; color: #111;
       max-width: 1120px; margin: 2em auto; padding: 0 1.2em; line-height: 1.45; }
h1 { font-size: 1.6em; margin-bottom: 0.3em; }
h2 { font-size: 1.25em; border-bottom: 1px solid #bbb; padding-bottom: 0.2em; margin-top: 1.8em; }
.verdict { border-left: 6px solid #0072B2; background: #f2f6fa; padding: 0.7em 1em; font-size: 1.08em; }
table { border-collapse: collapse; margin: 0.4em 0 0.3em; font-size: 0.9em; }
caption { text-align: left; font-weight: 600; padding-bottom: 0.3em; }
th, td { padding: 0.2em 0.65em; border-bottom: 1px solid #ddd; vertical-align: top; }
td { white-space: nowrap; }
td.wrap { white-space: normal; }
th { border-bottom: 2px solid #555; text-align: left; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
td.flag { font-weight: 700; }
p.note { font-size: 0.85em; color: #333; margin-top: 0.2em; }
figure { margin: 0.8em 0; }
figure.single img { max-width: 100%; }
figure.wide { overflow-x: auto; }
figure.wide img { max-width: none; }
figure img { max-width: 100%; height: auto; border: 1px solid #eee; }
figcaption { font-size: 0.85em; color: #333; }
details { margin: 0.4em 0; }
summary { cursor: pointer; font-weight: 600; }
.grid { display: flex; flex-wrap: wrap; gap: 0.8em; align-items: flex-start; }
.grid figure { flex: 1 1 340px; max-width: 540px; }
"""


def to_html(document: Document, figure_dir="figures") -> str:
    """The document as one HTML page: CSS inline, figures as base64 PNG ``data:`` URIs, or, above
    :data:`INLINE_LIMIT` bytes, linked as ``figure_dir/<stem>.png`` (:meth:`Document.linked_figures`); a figure
    wider than the page scrolls sideways at its own size, so that its text keeps its size.

    >>> page = to_html(Document("T", ("It is so.",), (Section("S", ("a < b",)),)))
    >>> "<p>a &lt; b</p>" in page, "http" in page
    (True, False)
    """
    body = [f"<h1>{html.escape(document.title)}</h1>",
            '<p class="verdict"><strong>Verdict.</strong> ' + " ".join(map(html.escape, document.verdict)) + "</p>"]
    for section in document.sections:
        body.append(f"<h2>{html.escape(section.title)}</h2>")
        body += _html_blocks(section.blocks, figure_dir)
    return ("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            f"<title>{html.escape(document.title)}</title>\n<style>{CSS}</style>\n</head>\n<body>\n"
            + "\n".join(body) + "\n</body>\n</html>\n")


def _html_blocks(blocks, figure_dir) -> list[str]:
    out = []
    figures = []  # consecutive figures share a flexible grid

    def flush():  # one figure at its own size, several side by side
        if len(figures) == 1:
            out.append(figures[0].replace("<figure>", '<figure class="single">', 1))
        elif figures:
            out.append('<div class="grid">' + "".join(figures) + "</div>")
        figures.clear()

    for block in blocks:
        if isinstance(block, Figure):
            caption = html.escape(block.caption)
            if block.linked:
                source = html.escape(f"{figure_dir}/{block.stem}.png")
                caption += f' (<a href="{source}">the figure alone</a>)'
            else:
                source = "data:image/png;base64," + base64.b64encode(block.png).decode("ascii")
            wide = block.width > PAGE_WIDTH
            if wide:  # on its own, at its own size
                flush()
            figures.append(f'<figure{" class=" + chr(34) + "wide" + chr(34) if wide else ""}><img src="{source}" '
                           f'alt="{html.escape(block.caption)}"><figcaption>{caption}</figcaption></figure>')
            if wide:
                flush()
            continue
        flush()
        if isinstance(block, str):
            out.append(f"<p>{html.escape(block)}</p>")
        elif isinstance(block, Table):
            out.append(_html_table(block))
        elif isinstance(block, Details):
            out.append(f"<details><summary>{html.escape(block.summary)}</summary>"
                       + "\n".join(_html_blocks(block.blocks, figure_dir)) + "</details>")
        else:
            raise TypeError(f"unknown block {type(block).__name__}")
    flush()
    return out


def _html_table(table: Table) -> str:
    def cell(tag, text, numeric):
        kind = "num" if numeric else "flag wrap" if text.startswith(NOT_CONVERGED) else \
            "wrap" if len(text) > WRAP else ""
        return f"<{tag}{f' class={chr(34)}{kind}{chr(34)}' if kind else ''}>{html.escape(text)}</{tag}>"

    head = "<tr>" + "".join(cell("th", h, n) for h, n in zip(table.header, table.numeric)) + "</tr>"
    rows = ["<tr>" + "".join(cell("td", c, n) for c, n in zip(row, table.numeric)) + "</tr>" for row in table.rows]
    note = f'<p class="note">{html.escape(table.note)}</p>' if table.note else ""
    return (f'<table id="{html.escape(table.label)}"><caption>{html.escape(table.caption)}</caption>'
            f"<thead>{head}</thead><tbody>{''.join(rows)}</tbody></table>{note}")


# --- LaTeX ----------------------------------------------------------------------------------------------------

_TEX_SPECIAL = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
                "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
                "<": r"\textless{}", ">": r"\textgreater{}", "|": r"\textbar{}"}
_TEX_PATTERN = re.compile("|".join(re.escape(c) for c in _TEX_SPECIAL))


def tex_escape(text) -> str:
    r"""Text with LaTeX's special characters escaped (safe in text mode).

    >>> print(tex_escape("naive_bayes & 50% {#1} ~x^2 \\ $"))
    naive\_bayes \& 50\% \{\#1\} \textasciitilde{}x\textasciicircum{}2 \textbackslash{} \$
    """
    return _TEX_PATTERN.sub(lambda m: _TEX_SPECIAL[m.group(0)], str(text))


def _tex_number(text) -> str:
    """A numeric cell: escaped, with each minus sign before a digit set as a math minus."""
    return re.sub(r"-(?=\d)", "$-$", tex_escape(text))


def _tex_column(table: Table, j) -> str:
    """A column's alignment: numbers right, text left, or a ragged paragraph of the width ``table.widths`` gives."""
    width = (table.widths or [None] * len(table.header))[j]
    if width is not None:
        return rf">{{\raggedright\arraybackslash}}p{{{width:g}\linewidth}}"
    return "r" if table.numeric[j] else "l"


def _tex_header(text, numeric) -> str:
    """A column's name, on two lines (a nested tabular) when it is long: the columns stay as narrow as numbers."""
    words = str(text).split(" ")
    if len(text) <= 9 or len(words) < 2:
        return tex_escape(text)
    cut = min(range(1, len(words)), key=lambda i: abs(len(" ".join(words[:i])) - len(" ".join(words[i:]))))
    lines = (tex_escape(" ".join(words[:cut])), tex_escape(" ".join(words[cut:])))
    return rf"\begin{{tabular}}[b]{{@{{}}{'r' if numeric else 'l'}@{{}}}}{lines[0]}\\ {lines[1]}\end{{tabular}}"


def to_latex(document: Document) -> str:
    r"""The document's tables as booktabs LaTeX (needs ``\usepackage{booktabs, array, graphicx, longtable}``):
    smaller type for more columns; a table of at most :data:`LONG_TABLE` rows is one ``table`` float, scaled down
    to the line when still wider (``\resizebox``), so that none runs into the margin; a longer one is a
    ``longtable`` that breaks across pages, its header repeated on each.

    >>> table = Table("r", "a_b", ("x", "d"), (("n_1", "-0.5"),), (False, True))
    >>> doc = Document("T", ("v",), (Section("S", (table,)),))
    >>> print(to_latex(doc).split("\\begin{tabular}")[1].split("\\end{tabular}")[0].strip())
    {lr}
        \toprule
        x & d \\
        \midrule
        n\_1 & $-$0.5 \\
        \bottomrule
    >>> long = Table("l", "many", ("x", "d"), (("n", "1"),) * (LONG_TABLE + 1), (False, True))
    >>> "\\begin{longtable}{lr}" in to_latex(Document("T", ("v",), (Section("S", (long,)),)))
    True
    """
    lines = ["% Tables written by pp-corr report. In the preamble: \\usepackage{booktabs, array, graphicx, longtable}",
             "% Verdict: " + " ".join(document.verdict).replace("\n", " "), ""]
    for table in document.tables():
        if not table.in_latex:
            continue
        columns = "".join(_tex_column(table, j) for j in range(len(table.header)))
        # many columns: smaller type and less space between them, to fit the line of an article
        count = len(table.header)
        size, space = ("\\small", 4) if count < 7 else ("\\footnotesize", 4) if count < 9 else \
            ("\\scriptsize", 3 if count < 10 else 2)
        header = ["    \\toprule",
                  "    " + " & ".join(_tex_header(h, n) for h, n in zip(table.header, table.numeric)) + " \\\\",
                  "    \\midrule"]
        rows = ["    " + " & ".join(_tex_number(c) if n else tex_escape(c) for c, n in zip(row, table.numeric))
                + " \\\\" for row in table.rows]
        note = ([f"  \\parbox{{0.95\\linewidth}}{{\\footnotesize {tex_escape(table.note)}}}"] if table.note else [])
        caption = [f"  \\caption{{{tex_escape(table.caption)}}}", f"  \\label{{tab:{table.label}}}"]
        if len(table.rows) > LONG_TABLE:
            lines += ["\\begingroup", f"  {size}", f"  \\setlength{{\\tabcolsep}}{{{space}pt}}",
                      f"  \\begin{{longtable}}{{{columns}}}", caption[0] + caption[1].strip() + " \\\\", *header,
                      "  \\endfirsthead", f"  \\multicolumn{{{count}}}{{@{{}}l}}"
                      "{\\emph{\\tablename\\ \\thetable{} (continued)}} \\\\",
                      *header, "  \\endhead", "    \\bottomrule", "  \\endfoot", *rows, "  \\end{longtable}",
                      *note, "\\endgroup", ""]
            continue
        lines += ["\\begin{table}[htbp]", "  \\centering", f"  {size}", f"  \\setlength{{\\tabcolsep}}{{{space}pt}}",
                  *caption, f"  \\resizebox{{\\ifdim\\width>\\linewidth\\linewidth\\else\\width\\fi}}{{!}}"
                  f"{{\\begin{{tabular}}{{{columns}}}", *header, *rows, "    \\bottomrule", "  \\end{tabular}}"]
        if note:
            lines += ["", "  \\smallskip", *note]
        lines += ["\\end{table}", ""]
    return "\n".join(lines)
