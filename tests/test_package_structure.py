"""The package's seams: no module of pp_corr reaches into another's private names (issue #39).

A name with a leading underscore is private to its module, and a module whose name starts with an underscore is
private to its package (and the packages inside it). Every import between pp_corr's modules is read with ``ast``,
relative or absolute, at the top of a module or inside a function.
"""
from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

import pp_corr

PACKAGE = Path(__file__).resolve().parent.parent / "pp_corr"
TESTS = Path(__file__).resolve().parent


def module_name(path: Path) -> str:
    """The dotted name of the module in ``path`` (a package's ``__init__.py`` is the package)."""
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def private(name: str) -> bool:
    """A leading underscore, dunders (``__version__``, ``__init__``) aside."""
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def imports(path: Path):
    """(line, module imported, names imported from it) of every import of a pp_corr module in ``path``; the names
    are () for ``import pp_corr.x``."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "pp_corr":
                    yield node.lineno, alias.name, ()
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[:len(package.split(".")) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target.split(".")[0] == "pp_corr":
                yield node.lineno, target, tuple(alias.name for alias in node.names)


def is_module(dotted: str) -> bool:
    """Whether ``dotted`` names a module or package of pp_corr (rather than a name defined in one)."""
    path = PACKAGE.parent.joinpath(*dotted.split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def problems(path: Path) -> list[str]:
    """What ``path`` imports against the package's seams: private names of another module, and private modules from
    outside their package (the package they are in, and the packages inside it, may import them)."""
    name = module_name(path)
    found = []
    for line, target, names in sorted(imports(path)):
        where = f"{path.relative_to(PACKAGE.parent)}:{line}"
        modules = [target]
        for imported in names:
            if is_module(f"{target}.{imported}"):  # `from package import module`
                modules.append(f"{target}.{imported}")
            elif private(imported):
                found.append(f"{where} imports the private name {imported} of {target}")
        for module in modules:
            parts = module.split(".")
            for depth in range(1, len(parts)):
                if private(parts[depth]):
                    owner = ".".join(parts[:depth])  # the package the private module belongs to
                    if not (name == owner or name.startswith(owner + ".")):
                        found.append(f"{where} imports the private module {'.'.join(parts[:depth + 1])} from "
                                     f"outside {owner}")
                    break
    return found


MODULES = sorted(PACKAGE.rglob("*.py"))


def test_the_package_has_modules():
    assert len(MODULES) > 20 and PACKAGE / "hierarchical" / "fit.py" in MODULES


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(PACKAGE.parent)))
def test_no_module_imports_another_modules_private_names(path):
    assert problems(path) == []


def test_the_check_sees_private_names_and_private_modules(tmp_path, monkeypatch):
    """The check itself, on a small package written here: what it must flag, and what it must leave alone."""
    root = tmp_path / "pp_corr"
    (root / "figures").mkdir(parents=True)
    for file in ("__init__.py", "figures/__init__.py", "figures/_layout.py", "figures/pairs.py", "a.py", "_args.py"):
        (root / file).write_text("")
    (root / "plots.py").write_text(
        "from .a import _hidden, shown, __version__\n"
        "from .figures._layout import axes\n"
        "from .figures import _layout\n"
        "from ._args import check\n"
        "def late():\n"
        "    import pp_corr.figures._layout\n"
        "    from pp_corr.a import _late\n")
    (root / "figures" / "pairs.py").write_text("from ._layout import axes\nfrom . import _layout\n"
                                               "from .._args import check\n")
    monkeypatch.setitem(globals(), "PACKAGE", root)
    found = problems(root / "plots.py")
    assert found == ["pp_corr/plots.py:1 imports the private name _hidden of pp_corr.a",
                     "pp_corr/plots.py:2 imports the private module pp_corr.figures._layout from outside "
                     "pp_corr.figures",
                     "pp_corr/plots.py:3 imports the private module pp_corr.figures._layout from outside "
                     "pp_corr.figures",
                     "pp_corr/plots.py:6 imports the private module pp_corr.figures._layout from outside "
                     "pp_corr.figures",
                     "pp_corr/plots.py:7 imports the private name _late of pp_corr.a"]
    assert problems(root / "figures" / "pairs.py") == []


# --- the suite as a whole: every public name tested, the edge campaign's size (moved from tests/test_edges.py) -----

def suite_sources():
    """The text of every module of the suite, by file name."""
    return {path.name: path.read_text() for path in sorted(TESTS.glob("*.py"))}


def test_every_public_function_is_exercised():
    """Each name of pp_corr.__all__ appears in the tests (a new public function needs its edges in the test module
    of the module that defines it); this module counts up to this check, whose own list would match."""
    sources = suite_sources()
    sources[Path(__file__).name] = sources[Path(__file__).name].split("def test_every")[0]
    source = "\n".join(sources.values())
    missing = [name for name in pp_corr.__all__ if not re.search(rf"\b{name}\b", source)]
    assert not missing, missing


def test_report_examples():
    """The number of generated examples the edge campaign's properties ask for, ``@campaign(n)`` summed over the
    suite (printed with -s)."""
    EXAMPLES = {}
    for name, source in suite_sources().items():
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.FunctionDef):
                for d in node.decorator_list:
                    if isinstance(d, ast.Call) and getattr(d.func, "id", None) == "campaign":
                        EXAMPLES[f"{name}::{node.name}"] = d.args[0].value
    total = sum(EXAMPLES.values())
    print(f"\nhypothesis: {len(EXAMPLES)} properties, max {total} examples")
    assert total > 1000
