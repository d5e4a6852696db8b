"""``aerodeck sweep`` on Airport Scramble: the grid against the defaults, and a point the linked
options (``face_up`` / ``max_replace``) refuse skipped with a note naming the fix."""

import json

from aerodeck.cli import main as cli

AS = "airport-scramble"
QUICK = ["--no-progress", "--agent", "random", "--judges", "random"]


def run(argv, capsys):
    status = cli.main(argv)
    out, err = capsys.readouterr()
    return status, out, err


def test_sweep_plays_the_grid_against_the_defaults(tmp_path, capsys):
    out = tmp_path / "s"
    status, _, err = run(["sweep", AS, "--grid", "replace_cost=1,2", "--grid", "allow_wait=on,off", "--games", "30",
                          "--out", str(out), *QUICK, "--metric", "decisions"], capsys)
    assert status == 0, err
    results = json.loads((out / "results.json").read_text())
    assert list(results["variants"]) == ["base", "replace_cost=1 allow_wait=on", "replace_cost=1 allow_wait=off",
                                         "replace_cost=2 allow_wait=off"]
    assert results["sweep"]["keys"] == ["replace_cost", "allow_wait"]
    assert (out / "sweep-decisions.png").exists()


def test_sweep_skips_a_grid_point_the_linked_options_refuse_with_a_note_naming_the_fix(tmp_path, capsys):
    out = tmp_path / "s"
    status, stdout, err = run(["sweep", AS, "--grid", "face_up=2,5", "--games", "20", "--out", str(out), *QUICK,
                               "--metric", "decisions"], capsys)
    assert status == 0, err
    results = json.loads((out / "results.json").read_text())
    assert list(results["variants"]) == ["base", "face_up=5"]
    [skipped] = results["sweep"]["skipped"]
    assert skipped["point"] == "face_up=2" and "max_replace" in skipped["reason"]
    assert "--grid max_replace=" in skipped["fix"] and "max_replace=2" in skipped["fix"]
    assert "Skipped grid point face_up=2" in (out / "report.md").read_text()
    assert "skipped grid point face_up=2" in stdout
