"""A sweep's heat map colours on an absolute scale (0–1 for a share, from 0 for a mean), so that noise
between grid points does not read as a trend, and marks the grid points whose change against the base
is detected (▲/▼, Holm)."""

from __future__ import annotations

import json

import pytest

from aerodeck.cli import main as cli
from aerodeck.judge import designer_report
from tests.games import SOLO
from tests.judge.options import bool_option, int_option, scalar_means


@pytest.fixture(scope="module")
def grid(tmp_path_factory):
    key, value = int_option(SOLO)
    default = getattr(SOLO.rules_class()(), key)
    switch = bool_option(SOLO)
    share = next(m.name for m in SOLO.catalogue().metrics if m.kind == "share" and not m.columns)
    out = tmp_path_factory.mktemp("sweep") / "s"
    status = cli.main(["sweep", SOLO.id, "--grid", f"{key}={default},{value}", "--grid", f"{switch}=off,on",
                       "--agent", "random", "--metric", share, "--metric", scalar_means(SOLO)[0], "--games", "30",
                       "--out", str(out), "--no-progress"])
    assert status == 0
    return json.loads((out / "results.json").read_text()), share, scalar_means(SOLO)[0]


def test_a_share_is_coloured_from_0_to_1_and_a_mean_from_0(grid):
    a, share, mean = grid
    fig = designer_report._sweep(a, share)
    assert fig.axes[0].images[0].get_clim() == (0.0, 1.0)
    fig = designer_report._sweep(a, mean)
    low, high = fig.axes[0].images[0].get_clim()
    values = [e[0]["value"] for v in a["estimates"][mean].values() for e in [v["random"]]]
    assert low == min(0.0, min(values)) and high == max(values)


def test_each_grid_point_is_marked_by_its_verdict_against_the_base(grid):
    a, share, _ = grid
    fig = designer_report._sweep(a, share)
    texts = [t.get_text() for t in fig.axes[0].texts]
    assert sum(t.endswith("(base)") for t in texts) == 1
    for c in a["comparisons"]:
        if c["metric"] != share or c["table"] != "random":
            continue
        found = c["p_holm"] is not None and c["p_holm"] < 0.05
        mark = designer_report._change_mark(a, share, c["variant"], "random")
        assert mark == ((" ▲" if c["difference"]["value"] > 0 else " ▼") if found else "")
    assert "absolute scale" in fig._suptitle.get_text()
