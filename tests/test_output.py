"""reporting/output.py: what lands on disk, where the temporary files go and what is said on stderr. The expected
contents are written here from the formats' rules (RFC 8259 JSON, CSV without an index)."""
import json
import os
import re
import stat
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from pp_corr.reporting.output import check_output_dir, check_output_file, json_text, plain, write_files, write_result


class TestPlain:
    def test_plain_keeps_none_and_writes_other_objects_as_text(self):
        value = {"missing": None, "path": Path("runs") / "a.csv", "n": np.int32(2), "ok": np.bool_(True)}
        assert plain(value) == {"missing": None, "path": str(Path("runs") / "a.csv"), "n": 2, "ok": True}
        assert json.loads(json_text(value)) == {"missing": None, "path": str(Path("runs") / "a.csv"), "n": 2,
                                                "ok": True}


class TestCheckOutputFile:
    def test_an_unwritable_directory_is_named(self, tmp_path, monkeypatch):
        """Root may write anywhere, so the refusal is simulated: os.access answers "no"."""
        monkeypatch.setattr(os, "access", lambda path, mode: False)
        message = f"output {tmp_path / 'r.json'}: the directory {tmp_path} is not writable"
        with pytest.raises(ValueError, match=re.escape(message)):
            check_output_file(tmp_path / "r.json")


class TestCheckOutputDir:
    def test_an_output_directory_is_created_on_trial_and_a_refusal_is_named_before_any_work(self, tmp_path,
                                                                                            monkeypatch):
        """Permissions can allow what the file system refuses (/proc for root): the first missing directory is
        created and removed again, so a refusal is an error naming the path, and a check leaves nothing behind."""
        assert check_output_dir(tmp_path / "a" / "b") == tmp_path / "a" / "b" and not (tmp_path / "a").exists()
        real = Path.mkdir

        def refuse(self, *args, **kwargs):
            if self == tmp_path / "new":
                raise OSError(2, "No such file or directory")
            return real(self, *args, **kwargs)

        monkeypatch.setattr(Path, "mkdir", refuse)
        with pytest.raises(ValueError, match=r"output .*report: cannot create it in .* \(No such file or directory\)"):
            check_output_dir(tmp_path / "new" / "report")


class TestWriteFiles:
    def test_every_directory_in_the_way_is_named(self, tmp_path):
        blockers = [tmp_path / "a.csv", tmp_path / "b.json"]
        for path in blockers:
            path.mkdir()
        message = f"cannot write {blockers[0]}, {blockers[1]}: a directory is in the way"
        with pytest.raises(ValueError, match=re.escape(message)):
            write_files({path: lambda p: p.write_text("x") for path in blockers})

    def test_missing_directories_are_created(self, tmp_path):
        target = tmp_path / "new" / "deeper" / "f.txt"
        write_files({target: lambda p: p.write_text("hi")}, verbose=False)
        assert target.read_text() == "hi"

    def test_each_temporary_file_is_hidden_beside_its_target_and_gone_afterwards(self, tmp_path):
        """A crash leaves at most a hidden ``.<name>.<random>.tmp`` beside the target, never a file elsewhere."""
        seen = {}

        def writer(target):
            def write(path):
                seen[target] = path
                path.write_text(target.name)
            return write

        targets = [tmp_path / "r.json", tmp_path / "r.csv"]
        write_files({t: writer(t) for t in targets}, verbose=False)
        for target in targets:
            temporary = seen[target]
            assert temporary.parent == target.parent, temporary
            assert temporary.name.startswith(f".{target.name}.") and temporary.name.endswith(".tmp"), temporary.name
            assert target.read_text() == target.name
        assert sorted(p.name for p in tmp_path.iterdir()) == ["r.csv", "r.json"]

    def test_stderr_says_wrote_then_replaced(self, tmp_path, capsys):
        target = tmp_path / "a.txt"
        for _ in range(2):
            write_files({target: lambda p: p.write_text("x")})
        assert capsys.readouterr().err.splitlines() == [f"wrote {target}", f"replaced {target}"]

    def test_a_new_file_gets_the_mode_open_would_give_and_a_replaced_file_keeps_its_own(self, tmp_path):
        """mkstemp's private 0600 must not leak: a report written for others to read is readable by them."""
        old = os.umask(0o022)
        try:
            new, kept = tmp_path / "new.txt", tmp_path / "kept.txt"
            kept.write_text("old")
            kept.chmod(0o640)
            write_files({new: lambda p: p.write_text("a"), kept: lambda p: p.write_text("b")}, verbose=False)
        finally:
            os.umask(old)
        assert stat.S_IMODE(new.stat().st_mode) == 0o644
        assert stat.S_IMODE(kept.stat().st_mode) == 0o640


class TestWriteResult:
    @pytest.mark.parametrize("suffix", [".json", ".csv"])
    def test_write_result_is_quiet_when_asked(self, tmp_path, capsys, suffix):
        frame = pd.DataFrame({"a": [1, 2]})
        write_result(tmp_path / f"r{suffix}", lambda: {"a": [1, 2]}, lambda: frame, verbose=False)
        assert capsys.readouterr().err == ""
        write_result(tmp_path / f"s{suffix}", lambda: {"a": [1, 2]}, lambda: frame)
        assert capsys.readouterr().err == f"wrote {tmp_path / f's{suffix}'}\n"

    def test_csv_has_the_frame_columns_and_no_index(self, tmp_path):
        frame = pd.DataFrame({"pair": ["a-b", "a-c"], "p": [0.25, np.nan]}, index=[7, 9])
        write_result(tmp_path / "r.csv", dict, lambda: frame, verbose=False)
        assert (tmp_path / "r.csv").read_text().splitlines() == ["pair,p", "a-b,0.25", "a-c,"]
