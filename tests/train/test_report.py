"""Report files are written all-or-nothing."""

import pytest

from train.report import p_text, write_files


def test_a_failing_writer_leaves_neither_half_written_nor_temporary_files(tmp_path):
    (tmp_path / "results.json").write_text("old")

    def boom(path):
        path.write_text("partial")
        raise RuntimeError("disk full")

    with pytest.raises(RuntimeError):
        write_files(tmp_path, {"results.json": lambda p: p.write_text("new"), "plot.png": boom})
    assert sorted(p.name for p in tmp_path.iterdir()) == ["results.json"]
    assert (tmp_path / "results.json").read_text() == "old"


def test_all_files_appear_together(tmp_path):
    write_files(tmp_path / "out", {"a.txt": lambda p: p.write_text("a"), "b.txt": lambda p: p.write_text("b")})
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["a.txt", "b.txt"]


def test_a_failed_report_does_not_leave_a_new_empty_folder(tmp_path):
    with pytest.raises(ValueError):
        write_files(tmp_path / "new", {"a.txt": lambda p: (_ for _ in ()).throw(ValueError("bad"))})
    assert not (tmp_path / "new").exists()


def test_p_values_that_underflowed_read_as_a_bound_not_as_zero():
    assert p_text(0.01234) == "0.012"
    assert p_text(0.0) == "<1e-300"
