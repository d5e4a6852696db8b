"""research/board_network.py: the teacher's decisions do not depend on the chunking, each network reads
the candidates the student reads, an untrained board network plays the heuristic's moves, the steps run
end to end, a packed warm start replays to the teacher's own decisions, the ticket figures count the
tickets to come as the state holds them, and bad input is one line."""

import importlib
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

from aerodeck import envs

# imported by name from its folder, so that the worker processes of `play` import it too
sys.path.append(str(Path(__file__).resolve().parents[2] / "research"))
script = importlib.import_module("board_network")

TEACHER = "search:candidates=3,rollouts=2"


def test_the_teachers_decisions_do_not_depend_on_the_chunking():
    whole = script.play_chunk(TEACHER, 7, 0, 6)
    parts = [script.play_chunk(TEACHER, 7, 0, 4), script.play_chunk(TEACHER, 7, 4, 2)]
    split = {key: np.concatenate([p[key] for p in parts]) for key in script.DATA_KEYS}
    # a chunk lists its decisions step by step across its games: compare them game by game
    a, b = np.argsort(whole["game"], kind="stable"), np.argsort(split["game"], kind="stable")
    for key in script.DATA_KEYS:
        assert np.array_equal(whole[key][a], split[key][b]), key
    assert set(np.unique(whole["game"])) == set(range(6))


def test_each_decision_holds_the_heuristics_candidates_in_rank_order_and_the_teachers_among_them():
    data = script.play_chunk(TEACHER, 3, 0, 4)
    n = len(data["label"])
    assert n > 0 and data["cand"].shape == (n, script.K) and data["local"].shape[:2] == (n, script.K)
    # the first candidate is the heuristic's best (rank feature 1), and the teacher (3 candidates) chose
    # one of the heuristic's first three
    assert (data["value"][:, 0] == 1).all()
    assert ((data["label"] >= 0) & (data["label"] < 3)).all()
    # each cell's code: the plane stands on a card (AS-5: it always stands on a card in play)
    G2 = data["codes"].shape[1]
    plane_bit = 1 << 9
    on = (data["codes"] & plane_bit) > 0
    assert (on.sum(axis=1) == 1).all() and ((data["codes"][on] & 1) == 1).all() and G2 == 81


def test_an_untrained_board_network_plays_the_heuristics_moves(tmp_path):
    from aerodeck.agents.registry import make_agent
    from aerodeck.arena.loop import game_seeds, play_solo

    model = script.BoardNet(script.LocalFeatures(script.AirportScrambleRules(), 3, plan=True).size, width=16, layers=1)
    script.save_model(model, "board", tmp_path / "board.pt")
    game = envs.spec(script.GAME)
    rules = game.rules_class()()
    seeds = game_seeds(11, 30)
    heuristic = play_solo(game.make_core(rules), make_agent(script.GAME, "heuristic", rules), seeds, progress=False)
    board = play_solo(game.make_core(rules), script.NetworkAgent(str(tmp_path / "board.pt"), rules), seeds,
                      progress=False)
    assert np.array_equal(board, heuristic)
    # the file holds the weights in float16: they come back as saved
    loaded = script.load_model(str(tmp_path / "board.pt")).state_dict()
    assert all(torch.equal(loaded[k], v.half().float()) for k, v in model.state_dict().items())


def test_a_network_that_prefers_the_second_candidate_plays_it_where_there_is_one(tmp_path):
    rules = script.AirportScrambleRules()
    model = script.LocalNet(script.LocalFeatures(rules, 3, plan=True).size, width=4)
    with torch.no_grad():  # score = 100 for the candidate of rank index 1, 0 for the others
        for layer in model.score:
            if isinstance(layer, torch.nn.Linear):
                layer.weight.zero_()
                layer.bias.zero_()
        model.score[0].weight[0, -script.K + 1] = 100.0
        model.score[2].weight[0, 0] = 1.0
        model.score[4].weight[0, 0] = 1.0
    script.save_model(model, "local", tmp_path / "local.pt")
    agent = script.NetworkAgent(str(tmp_path / "local.pt"), rules)
    core = envs.spec(script.GAME).make_core(rules)
    from aerodeck.envs.common.rng import game_seeds

    state = core.init(game_seeds(5, 64))
    observations, masks = core.observe(state), core.legal_mask(state)
    view = script.board_view(agent.inputs(observations, masks), agent.features)
    second = view["value"][:, 1] > 0
    assert second.any()
    chosen = agent.act(observations, masks)
    assert (chosen[second] == view["cand"][second, 1]).all() and (chosen[~second] == view["cand"][~second, 0]).all()


def test_several_workers_save_the_games_one_saves(tmp_path, capsys):
    for workers in (1, 2):
        assert script.main(["play", "--teacher", TEACHER, "--games", "6", "--workers", str(workers), "--chunk", "3",
                            "--out", str(tmp_path / f"w{workers}.npz")]) == 0
    one, two = script.read_data(str(tmp_path / "w1.npz")), script.read_data(str(tmp_path / "w2.npz"))
    assert all(np.array_equal(one[k], two[k]) for k in script.DATA_KEYS)


def test_a_later_first_game_plays_the_same_games_and_files_read_together_are_one(tmp_path, capsys):
    for first, games, name in ((0, 6, "all"), (0, 4, "head"), (4, 2, "tail")):
        assert script.main(["play", "--teacher", TEACHER, "--first", str(first), "--games", str(games),
                            "--workers", "1", "--chunk", "3", "--out", str(tmp_path / f"{name}.npz")]) == 0
        assert f"played {games} games" in capsys.readouterr().out
    whole = script.read_data(str(tmp_path / "all.npz"))
    both = script.read_data([str(tmp_path / "head.npz"), str(tmp_path / "tail.npz")])
    assert set(np.unique(both["game"])) == set(range(6))
    # the same decisions; a chunk lists its decisions step by step across its games: compare game by game
    a, b = np.argsort(whole["game"], kind="stable"), np.argsort(both["game"], kind="stable")
    assert all(np.array_equal(whole[k][a], both[k][b]) for k in script.DATA_KEYS)


def test_a_data_file_that_does_not_fit_with_the_others_is_named(tmp_path):
    good = tmp_path / "good.npz"
    script.main(["play", "--teacher", TEACHER, "--games", "2", "--workers", "1", "--out", str(good)])
    data = script.read_data(str(good))
    np.save(tmp_path / "one.npy", np.zeros(3))
    np.savez(tmp_path / "old.npz", **{k: v for k, v in data.items() if k != "tick"})
    np.savez(tmp_path / "wide.npz", **{**data, "local": np.zeros((*data["local"].shape[:2], 5), np.float16)})
    for name, says in (("one.npy", "one array, not an .npz"),
                       ("old.npz", "it lacks tick (made before the ticket figures)"),
                       ("wide.npz", "local is (…, 4, 5)")):
        with pytest.raises(ValueError, match=r"^" + str(tmp_path / name)) as err:
            script.read_data([str(good), str(tmp_path / name)])
        assert says in str(err.value)


def test_play_fit_and_bench_run_end_to_end(tmp_path, capsys):
    data = tmp_path / "data.npz"
    assert script.main(["play", "--teacher", TEACHER, "--games", "12", "--workers", "1", "--chunk", "5",
                        "--out", str(data)]) == 0
    assert "played 12 games" in capsys.readouterr().out and not list(tmp_path.glob(".*partial"))
    assert script.main(["fit", "--data", str(data), "--epochs", "2", "--width", "8", "--layers", "1",
                        "--arch", "local", "board", "tickets", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "local: epoch 2" in out and "board: epoch 2" in out and "tickets: epoch 2" in out and "epoch 3" not in out
    assert "2.00 passes" in out
    models = [str(tmp_path / "board.pt"), str(tmp_path / "local.pt"), str(tmp_path / "tickets.pt")]
    # the ticket network reads the ticket figures: a first layer that many inputs wider than the local one's
    widths = [script.load_model(m).score[0].in_features for m in models[1:]]
    features = script.LocalFeatures(script.AirportScrambleRules(), 3)
    assert widths[1] - widths[0] == script.TicketFigures(features).size
    assert script.main(["bench", "--models", *models, "--games", "8", "--out", str(tmp_path)]) == 0
    rows = (tmp_path / "games.csv").read_text().splitlines()
    assert rows[0] == "seed,heuristic,board,local,tickets" and len(rows) == 9
    assert script.main(["fit", "--data", str(data), "--epochs", "1", "--arch", "tickets", "--symmetries", "8",
                        "--out", str(tmp_path / "sym")]) == 0
    assert "tickets: epoch 1" in capsys.readouterr().out and (tmp_path / "sym" / "tickets.pt").is_file()
    split = tmp_path / "split"
    assert script.main(["bench", "--models", *models, "--games", "8", "--workers", "2", "--out", str(split)]) == 0
    assert (split / "games.csv").read_text().splitlines() == rows  # the same deals, scores and order


def test_a_bad_teacher_is_one_line_naming_it(capsys):
    for teacher, named in (("serch", "unknown agent 'serch'"), ("heuristic", "give a search agent")):
        with pytest.raises(SystemExit) as stop:
            script.main(["play", "--teacher", teacher, "--games", "3"])
        assert stop.value.code == 2 and named in capsys.readouterr().err


@pytest.mark.parametrize("argv, says", [
    (["play", "--games", "0"], "--games: must be above 0, got 0"),
    (["fit", "--data", "no/such.npz"], "no data file no/such.npz"),
    (["fit", "--width", "10"], "--width must be a multiple of 4"),
    (["bench", "--models", "no/such.pt"], "no model file no/such.pt"),
    (["fit", "--seconds", "inf"], "--seconds must be finite for fit"),
    (["bench", "--models", "a/board.pt", "b/board.pt"], "--models must have different file names"),
    (["play", "--out", "."], "--out .: a folder is there"),
    (["play", "--replay", "no/such.npz"], "--replay no/such.npz: no such file"),
    (["pack", "--decisions", "no/such.npz"], "no file no/such.npz"),
    (["fit", "--symmetries", "8"], "--symmetries 8 transforms what the local networks read"),
    (["fit", "--symmetries", "2"], "--symmetries: invalid choice: 2 (choose from 1, 4, 8)"),
    (["play", "--first", "-1"], "--first must be 0 or more, got -1"),
])
def test_bad_input_is_one_line(capsys, argv, says):
    with pytest.raises(SystemExit) as stop:
        script.main(argv)
    assert stop.value.code == 2 and says in capsys.readouterr().err


def test_a_file_of_another_kind_is_refused_by_name(tmp_path, capsys):
    other = tmp_path / "other.npz"
    np.savez(other, x=np.zeros(3))
    for argv in (["fit", "--data", str(other)], ["bench", "--models", str(other)], ["play", "--replay", str(other)]):
        with pytest.raises(SystemExit) as stop:
            script.main(argv)
        assert stop.value.code == 2 and f"{other} is not a" in capsys.readouterr().err


def warm_start_file(path, seed=7, games=6, **meta):
    """A warm_start.npz of ``games`` teacher games, as ``aerodeck train`` saves one."""
    from aerodeck.train.config import WarmStartConfig
    from aerodeck.train.warm_start import save_decisions, teacher_chunk

    rules = script.AirportScrambleRules()
    data = teacher_chunk(script.GAME, rules, WarmStartConfig(teacher=TEACHER, seed=seed), script.INPUTS, seed, 0.995,
                         0, games)
    save_decisions(path, data, {"game": script.GAME, "rules": rules.to_dict(), "teacher": TEACHER, "opponent": "",
                                "player": "", "seed": seed, "inputs": script.INPUTS, **meta})


def test_a_packed_warm_start_replays_to_the_teachers_decisions(tmp_path, capsys):
    warm_start_file(tmp_path / "warm_start.npz")
    assert script.main(["pack", "--decisions", str(tmp_path / "warm_start.npz"), "--out", str(tmp_path / "r.npz")]) == 0
    assert "packed 6 games" in capsys.readouterr().out
    for start, count in ((0, 6), (2, 3)):
        replayed, played = script.replay_chunk(str(tmp_path / "r.npz"), start, count), script.play_chunk(TEACHER, 7, start,
                                                                                                         count)
        assert all(np.array_equal(replayed[k], played[k]) for k in script.DATA_KEYS)
    assert script.main(["play", "--replay", str(tmp_path / "r.npz"), "--workers", "1", "--chunk", "4",
                        "--out", str(tmp_path / "d.npz")]) == 0
    assert "played 6 games" in capsys.readouterr().out
    assert script.main(["play", "--replay", str(tmp_path / "r.npz"), "--first", "4", "--workers", "1",
                        "--out", str(tmp_path / "e.npz")]) == 0
    assert "played 2 games" in capsys.readouterr().out
    assert set(script.read_data(str(tmp_path / "e.npz"))["game"]) == {4, 5}
    with pytest.raises(SystemExit) as stop:
        script.main(["play", "--replay", str(tmp_path / "r.npz"), "--first", "6", "--out", str(tmp_path / "f.npz")])
    err = capsys.readouterr().err
    assert stop.value.code == 2 and "--first 6: " in err and "holds 6 games; give --first below 6" in err


def test_a_replay_that_does_not_replay_is_refused_naming_the_game(tmp_path):
    warm_start_file(tmp_path / "warm_start.npz")
    script.main(["pack", "--decisions", str(tmp_path / "warm_start.npz"), "--out", str(tmp_path / "r.npz")])
    with np.load(tmp_path / "r.npz") as f:
        packed = {k: f[k] for k in f.files}
    from aerodeck.envs.common.rng import game_seeds

    rules = script.AirportScrambleRules()
    core = envs.spec(script.GAME).make_core(rules)
    mask = core.legal_mask(core.init(game_seeds(int(packed["seed"]), 1)))[0]
    packed["actions"][0] = np.flatnonzero(~mask)[0]  # game 0's first move: an illegal one
    np.savez(tmp_path / "bad.npz", **packed)
    with pytest.raises(ValueError, match="a recorded move of game 0 is illegal"):
        script.replay_chunk(str(tmp_path / "bad.npz"), 0, 6)
    packed["actions"][0] = 30000  # not an action at all
    np.savez(tmp_path / "bad.npz", **packed)
    with pytest.raises(ValueError, match="a recorded move of game 0 is illegal"):
        script.replay_chunk(str(tmp_path / "bad.npz"), 0, 6)
    packed["length"][1] += 1  # game 1 has one move more than it plays
    packed["actions"] = np.insert(packed["actions"], packed["length"][0] + packed["length"][1] - 1, 0)
    with np.load(tmp_path / "r.npz") as f:
        packed["actions"][:packed["length"][0]] = f["actions"][:packed["length"][0]]
    np.savez(tmp_path / "long.npz", **packed)
    with pytest.raises(ValueError, match="game 1 ended before its last move"):
        script.replay_chunk(str(tmp_path / "long.npz"), 0, 6)


@pytest.mark.parametrize("meta, says", [({"player": "heuristic"}, "the teacher played itself"),
                                        ({"rules": {"grid_size": 7}}, "the standard rules")])
def test_pack_refuses_a_warm_start_it_cannot_replay(tmp_path, capsys, meta, says):
    warm_start_file(tmp_path / "warm_start.npz", games=2, **meta)
    with pytest.raises(SystemExit) as stop:
        script.main(["pack", "--decisions", str(tmp_path / "warm_start.npz"), "--out", str(tmp_path / "r.npz")])
    assert stop.value.code == 2 and says in capsys.readouterr().err and not (tmp_path / "r.npz").exists()


def test_the_ticket_figures_count_the_tickets_to_come_as_the_state_holds_them():
    """TicketFigures against a count, candidate by candidate, from the core's state (the decks' contents,
    the grid, the face-up slots), not from the observation it decodes."""
    from aerodeck.agents.registry import make_agent
    from aerodeck.envs.common.rng import game_seeds

    rules = script.AirportScrambleRules()
    core = envs.spec(script.GAME).make_core(rules)
    features = script.LocalFeatures(rules, 3, plan=True)
    geo, inputs = features.geo, script.Inputs.make(script.GAME, rules, **script.INPUTS)
    G, lay = geo.G, geo.actions
    tickets = list(zip(geo.origin.tolist(), geo.destination.tolist()))
    state, heuristic = core.init(game_seeds(3, 8)), make_agent(script.GAME, "heuristic", rules)
    checked = set()
    for _ in range(40):
        observations, masks = core.observe(state), core.legal_mask(state)
        view = script.board_view(inputs(observations, masks), features)
        for i in np.flatnonzero(~state.done):
            grid, slots = state.grid[i].reshape(-1).tolist(), state.slots[i].tolist()
            left = [t for t, (a, b) in enumerate(tickets) if state.ticket_deck[i, t]]
            on_grid = {card: cell for cell, card in enumerate(grid) if card >= 0}
            for k in np.flatnonzero(view["value"][i] > 0):
                a = int(view["cand"][i, k])
                if lay.play_offset <= a < lay.replace_offset:
                    mine, kind = [slots[(a - lay.play_offset) // geo.G2]], "play"
                elif lay.replace_offset <= a < lay.line_offset:
                    mine, kind = [c for s, c in enumerate(slots) if (a - lay.replace_offset + 1) >> s & 1], "replace"
                else:
                    mine, kind = [], "other"
                mine = [c for c in mine if c >= 0]
                partners = [b if a2 == x else a2 for t in left for (a2, b) in [tickets[t]] for x in mine
                            if x in (a2, b)]
                cell = int(view["cell"][i, k])
                near = [abs(on_grid[p] // G - cell // G) + abs(on_grid[p] % G - cell % G)
                        for p in partners if p in on_grid]
                both = sum(a2 in on_grid and b in on_grid for t in left for (a2, b) in [tickets[t]])
                one = sum((a2 in on_grid) != (b in on_grid) for t in left for (a2, b) in [tickets[t]])
                r0, c0 = cell // G, cell % G
                window = [grid[(r0 + dr) * G + c0 + dc] if 0 <= r0 + dr < G and 0 <= c0 + dc < G else -1
                          for dr in range(-3, 4) for dc in range(-3, 4)]
                expected = [sum(x in tickets[t] for t in left for x in mine) / 3,
                            sum(p in on_grid for p in partners) / 3, min(near) / 16 if near else 1.0,
                            sum(p in slots for p in partners) / 3, sum(bool(state.deck[i, p]) for p in partners) / 3]
                got = view["tick"][i, k].astype(np.float64)
                assert np.allclose(got[:5], expected, atol=2e-3), (kind, got[:5], expected)
                assert np.allclose(got[-2:], [both / 3, one / 12], atol=2e-3)
                around = [sum(c in tickets[t] for t in left) / 3 if c >= 0 else 0 for c in window]
                joined = [float(c >= 0 and any(c in tickets[t] and x in tickets[t] and x != c
                                               for t in left for x in mine)) for c in window]
                assert np.allclose(got[5:54], around, atol=2e-3) and np.array_equal(got[54:103], joined), kind
                checked.add(kind if expected[0] else "none")
        state_actions = heuristic.act(observations, masks)
        core.step(state, state_actions)
    assert {"play", "replace", "none"} <= checked


def seen_through(geo, g, observations, actions):
    """The observations ``float32 (n, O)`` and actions ``int64 (n, …)`` of the positions seen through the
    grid's symmetry ``g`` (:class:`Symmetries`' numbering), built from the observation's blocks."""
    G, G2, F, blocks, lay = geo.G, geo.G2, geo.F, geo.observation.blocks, geo.actions
    row, col = np.arange(G2) // G, np.arange(G2) % G
    row, col = (col, row) if g & 4 else (row, col)
    cell = np.where(g & 1, G - 1 - row, row) * G + np.where(g & 2, G - 1 - col, col)  # cell → its image
    direction = np.array([3, 2, 1, 0]) if g & 4 else np.arange(4)  # 0 N, 1 E, 2 S, 3 W: a transpose swaps N/W, E/S
    direction = np.array([{0: 2, 2: 0}.get(d, d) if g & 1 else d for d in direction])
    direction = np.array([{1: 3, 3: 1}.get(d, d) if g & 2 else d for d in direction])
    h, v = geo.card_h[:-1].astype(int), geo.card_v[:-1].astype(int)
    card = np.array([np.flatnonzero((h == v[i]) & (v == h[i]))[0] if g & 4 and h[i] != v[i] else i
                     for i in range(len(h))])  # card → its image (a transpose: the mirror hub)
    obs = observations.copy()
    for name in ("plane", "origin_cell", "destination_cell"):
        obs[:, cell + blocks[name].slice.start] = observations[:, blocks[name].slice]
    hv = observations[:, blocks["cell_hv"].slice].reshape(len(obs), G2, 2)
    image = np.zeros_like(hv)
    image[:, cell] = hv[..., ::-1] if g & 4 else hv
    obs[:, blocks["cell_hv"].slice] = image.reshape(len(obs), -1)
    if g & 4:  # every card's H and V swapped
        for name in ("slot_hv", "origin_hv", "destination_hv"):
            pairs = observations[:, blocks[name].slice].reshape(len(obs), -1, 2)
            obs[:, blocks[name].slice] = pairs[..., ::-1].reshape(len(obs), -1)
    place = np.rint(observations[:, blocks["card_place"].slice] * (G2 + F)).astype(int) - 1
    place = np.where((place >= 0) & (place < G2), cell[place.clip(0, G2 - 1)], place)
    for name, values in (("card_place", (place + 1) / (G2 + F)), ("deck", observations[:, blocks["deck"].slice])):
        image = np.zeros_like(values)
        image[:, card] = values
        obs[:, blocks[name].slice] = image
    fly, play = actions < lay.n_fly, (actions >= lay.play_offset) & (actions < lay.replace_offset)
    moved = np.where(fly, direction[(actions // (G - 1)).clip(0, 3)] * (G - 1) + actions % (G - 1), actions)
    at = (actions - lay.play_offset) % G2
    moved = np.where(play, lay.play_offset + (actions - lay.play_offset) // G2 * G2 + cell[at.clip(0, G2 - 1)], moved)
    return obs, moved


def test_a_symmetry_of_the_features_is_the_features_of_the_position_seen_through_it():
    """Symmetries against the features (the local network's, the plan figures included, and for the
    mirrors the ticket figures) of positions mirrored and transposed in the observation itself."""
    from aerodeck.agents.registry import make_agent
    from aerodeck.envs.common.rng import game_seeds

    rules = script.AirportScrambleRules()
    core = envs.spec(script.GAME).make_core(rules)
    features = script.LocalFeatures(rules, 3, plan=True)
    geo, inputs = features.geo, script.Inputs.make(script.GAME, rules, **script.INPUTS)
    symmetries, lay = script.Symmetries(features), geo.actions
    state, heuristic, seen = core.init(game_seeds(5, 32)), make_agent(script.GAME, "heuristic", rules), 0
    for _ in range(24):
        observations, masks = core.observe(state), core.legal_mask(state)
        view = script.board_view(inputs(observations, masks), features)
        lines = ((view["cand"] >= lay.line_offset) & (view["cand"] < lay.wait)).any(axis=1)
        rows = np.flatnonzero(~state.done & ~lines & (view["value"] > 0).all(axis=1))  # a line's image is not a line
        batch = {k: torch.as_tensor(view[k][rows]) for k in script.KEYS}
        for g in range(1, script.Symmetries.COUNT):
            obs, cand = seen_through(geo, g, observations[rows], view["cand"][rows])
            _, legal = seen_through(geo, g, observations[rows], np.arange(masks.shape[1])[None])
            mask = np.zeros_like(masks[rows])
            mask[:, legal[0]] = masks[rows]
            image = symmetries(batch, g)
            assert np.array_equal(image["local"].numpy(), features(obs, cand, mask).astype(np.float16)), g
            if not g & 4:  # a transpose relabels the hubs, and the tickets name cards
                cells = features.cells(script.Table.from_observations(geo, obs), cand)
                assert np.array_equal(image["tick"].numpy(), script.TicketFigures(features)(obs, cand, cells)), g
        seen += len(rows)
        core.step(state, heuristic.act(observations, masks))
    assert seen > 300
    batch = {k: torch.as_tensor(view[k]) for k in script.KEYS}
    assert all(torch.equal(symmetries(symmetries(batch, g), g)["local"], batch["local"]) for g in (1, 2, 3, 4))
