"""``aerodeck compare / sweep / tune`` on Airport Scramble: an option out of its range, or a grid whose
every point the linked options refuse, is a clear error before any game."""

import pytest

from aerodeck.cli import main as cli

AS = "airport-scramble"


@pytest.mark.parametrize("argv, message", [
    (["compare", AS, "--variant", "v:face_up=9"], "'face_up'"),
    (["sweep", AS, "--grid", "face_up=9"], "'face_up'"),
    (["sweep", AS, "--grid", "face_up=2", "--grid", "max_replace=3"], "refuse every point"),
    (["tune", AS, "--param", "face_up=4..9", "--target", "score=3"], "'face_up'"),
])
def test_an_option_out_of_range_is_a_clear_error_before_any_game(argv, message, tmp_path, capsys):
    out = tmp_path / "never"
    status = cli.main([*argv, "--out", str(out), "--no-progress"])
    assert status == 2
    assert message in capsys.readouterr().err
    assert not out.exists() and not any(tmp_path.iterdir())
