"""Result files other tools read: strict JSON (no bare NaN), CSV, written atomically, paths checked up front."""
from __future__ import annotations

import json
import math
import os
import stat
import sys
import tempfile
from collections.abc import Callable, Mapping
from pathlib import Path

import numpy as np

SUFFIXES = (".json", ".csv")


def plain(value):
    """``value`` as plain JSON-ready Python: numpy scalars and arrays unwrapped, NaN and inf as None.

    >>> plain({"p": np.float64("nan"), "n": np.int64(3), "xs": np.array([0.5, np.inf]), "pair": (1, 2)})
    {'p': None, 'n': 3, 'xs': [0.5, None], 'pair': [1, 2]}
    """
    if isinstance(value, Mapping):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, np.ndarray):
        return plain(value.tolist())
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    return str(value)


def json_text(value) -> str:
    """Strict JSON (RFC 8259: NaN and inf become null), indented.

    >>> json_text({"p": float("nan")})
    '{\\n  "p": null\\n}'
    """
    return json.dumps(plain(value), indent=2, allow_nan=False)


def check_output_file(path, suffixes=SUFFIXES) -> Path:
    """An output file's path, checked before any work: a known suffix, an existing directory to hold it and
    no directory in its place. Raises ValueError naming the path.

    >>> check_output_file("results.json").name
    'results.json'
    """
    path = Path(path)
    if path.is_dir():
        raise ValueError(f"output {path} is a directory; give a file name")
    if path.suffix not in suffixes:
        raise ValueError(f"output {path} must end in {' or '.join(suffixes)}")
    parent = path.parent
    if not parent.is_dir():
        raise ValueError(f"output {path}: the directory {parent} does not exist")
    if not os.access(parent, os.W_OK):
        raise ValueError(f"output {path}: the directory {parent} is not writable")
    return path


def check_output_dir(path) -> Path:
    """An output directory, checked before any work: a directory, or a path that can become one.

    >>> check_output_dir(".").is_dir()
    True
    """
    path = Path(path)
    if path.exists() and not path.is_dir():
        raise ValueError(f"output {path} exists and is not a directory")
    existing = next(p for p in (path, *path.parents) if p.exists())
    if not existing.is_dir() or not os.access(existing, os.W_OK):
        raise ValueError(f"output {path}: cannot create it in {existing}")
    if existing != path:  # try: a file system may refuse what the permissions allow (e.g. /proc for root)
        first = next(p for p in (path, *path.parents) if p.parent == existing)
        try:
            first.mkdir()
            first.rmdir()
        except OSError as err:
            raise ValueError(f"output {path}: cannot create it in {existing} ({err.strerror})") from None
    return path


def _umask() -> int:
    """The process's umask (reading it means setting it: it is set straight back)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def write_files(writers: Mapping[Path, Callable[[Path], None]], *, verbose=True) -> None:
    """Write every file or none: each ``writer(tmp_path)`` writes a temporary file beside its target; only when
    all have succeeded are they renamed into place. Says on stderr which files it wrote and which it replaced.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     target = Path(d) / "a.txt"
    ...     write_files({target: lambda p: p.write_text("hi")}, verbose=False)
    ...     target.read_text()
    'hi'
    """
    in_the_way = [str(t) for t in writers if Path(t).is_dir()]
    if in_the_way:
        raise ValueError(f"cannot write {', '.join(in_the_way)}: a directory is in the way")
    temporary = {}
    try:
        for target, writer in writers.items():
            target = Path(target)
            target.parent.mkdir(parents=True, exist_ok=True)
            handle, name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
            os.close(handle)
            temporary[target] = Path(name)
            writer(Path(name))
        for target, name in temporary.items():
            replaced = target.exists()
            # mkstemp makes the file private (0600); give it the mode a plain open() would, or the replaced file's
            os.chmod(name, stat.S_IMODE(target.stat().st_mode) if replaced else 0o666 & ~_umask())
            os.replace(name, target)
            if verbose:
                print(f"{'replaced' if replaced else 'wrote'} {target}", file=sys.stderr)
    finally:
        for name in temporary.values():
            Path(name).unlink(missing_ok=True)


def write_result(path, as_json: Callable[[], object], as_frame: Callable[[], object], *, verbose=True) -> None:
    """Write ``as_json()`` (plain values) to a .json path or ``as_frame()`` (a DataFrame) to a .csv one.

    >>> import pandas as pd, tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     write_result(Path(d) / "r.json", lambda: {"p": float("nan")}, pd.DataFrame, verbose=False)
    ...     (Path(d) / "r.json").read_text()
    '{\\n  "p": null\\n}'
    """
    path = check_output_file(path)
    if path.suffix == ".json":
        write_files({path: lambda tmp: tmp.write_text(json_text(as_json()))}, verbose=verbose)
    else:
        write_files({path: lambda tmp: as_frame().to_csv(tmp, index=False)}, verbose=verbose)
