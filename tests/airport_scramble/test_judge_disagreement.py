"""``aerodeck compare`` on Airport Scramble: judges that disagree on a change are named with their
differences (forbidding waiting changes the random agent's waits, not those of an agent never waiting)."""

import json

from aerodeck.cli import main as cli

AS = "airport-scramble"


def run(argv, capsys):
    status = cli.main([*argv, "--no-progress"])
    out, err = capsys.readouterr()
    assert status == 0, err
    return out


def test_judges_that_disagree_are_named_with_their_differences(tmp_path, capsys):
    # the random agent waits, so forbidding waiting lowers its share of waits; the agent already forbidden
    # to wait cannot change: the two judges disagree by construction
    out = tmp_path / "j"
    nowait = "restricted:base=random,forbid=wait"
    run(["compare", AS, "--variant", "nowait:allow_wait=off", "--agent", "random", "--judges", "random", nowait,
         "--metric", "action_mix", "--games", "60", "--seed", "2", "--out", str(out)], capsys)
    results = json.loads((out / "results.json").read_text())
    assert results["judges"] == ["random", nowait]
    [d] = [d for d in results["disagreements"] if d["column"] == "wait"]
    assert d["directions"] == {"random": -1, nowait: 0}
    # the difference between the two judges' effects is itself detected (a paired test on the same games)
    assert d["text"].startswith("no — different effects: random: lower -")
    assert f"{nowait}: no detectable change +0 [+0, +0]" in d["text"] and "difference of effects" in d["text"]
    [t] = d["tests"]
    assert t["judges"] == ["random", nowait] and t["p_holm"] < 0.05 and t["high"] < 0
    wait = [c for c in results["comparisons"] if c["metric"] == "action_mix" and c["column"] == "wait"
            and c["table"] in results["judges"] and c["against"] == ["base", c["table"]]]
    assert len(wait) == 2 and {c["agree"] for c in wait} == {False}
    assert "**The judges disagree** (the difference between their effects is detected) on: action_mix / wait under " \
           "nowait" in (out / "report.md").read_text()
