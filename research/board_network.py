"""Does a network that reads the whole board learn the search's choices where the local network stops? (issue 20)

The shipped Airport Scramble network (``[policy] network = "local"``) scores each of the heuristic's 4
best actions from the 7 × 7 cells around it; distilled from the search it agrees with it on about 0.83
of the search's decisions where two runs of the search agree on about 0.87, and it plays about 0.1
tickets below the search. More data, a wider scorer and a wider window did not move it
(docs/research/teacher-games-learning-curve.md). This tries the other axis, a larger network that reads
the whole board, at a size this 2-core machine cannot train in hours but one GPU trains in minutes:

* ``board``: a transformer (``--layers``, ``--width``) over one token per cell (its card's colours, the
  plane, the ticket's airports, a learnt position), one for the game's counts and the face-up cards,
  and one per candidate (what the local network reads of it, its rank, the position of its cell); each
  candidate's score is read from its token;
* ``local``: the local network's scorer (two layers of 256 over the same candidate features), fitted to
  the same decisions, the point of comparison;
* ``tickets``: that scorer reading also what the tickets still in the ticket deck say of each candidate
  (:class:`TicketFigures`), which neither the heuristic nor the local network reads and the search's
  rollouts play out.

Both keep the student's prior: logits = score + 32 × the candidate's rank feature (2 logits a rank;
an untrained network plays the heuristic's choice). The steps, each a subcommand:

    play   the teacher (``--teacher``, default the plain ``search``) plays ``--games`` deals from game
           ``--first`` on, or as many as fit in ``--seconds``, in ``--workers`` processes; keeps each
           decision's features (deals keyed by (seed, game): the same games on any layout). With
           ``--replay`` the games of a ``pack`` file are played again move by move instead (no teacher:
           the same decisions)
    pack   a warm start's ``warm_start.npz`` of teacher games (hundreds of megabytes) as such a replay (a few):
           what can be carried to a machine with a GPU
    fit    fits each ``--arch`` on the first 95 % of the games for ``--epochs`` (or ``--seconds``; the
           step size a cosine over the fit; with ``--symmetries 4`` or ``8`` each batch seen through
           one of the grid's 4 mirrors or 8 symmetries, :class:`Symmetries`), prints the held-out
           agreement with the teacher each epoch, saves the model; ``--data`` may name several files
    bench  plays ``--games`` deals of ``aerodeck bench``'s seed ``--seed`` with each model (one forward
           pass a decision, no rollout; the deals split across ``--workers`` processes) and writes
           ``games.csv`` (a seed column and a score column per model) to pair with ``aerodeck bench``'s
           own ``games.csv`` on the same seed

    .venv/bin/python research/board_network.py play --games 64 --workers 1 --out out/board/data.npz
    .venv/bin/python research/board_network.py fit --data out/board/data.npz --epochs 5 --out out/board
    .venv/bin/python research/board_network.py bench --models out/board/board.pt --games 200 --out out/board
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import math
import multiprocessing
import sys
import time
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from aerodeck.agents.airport_scramble.local import LocalFeatures  # noqa: E402
from aerodeck.agents.airport_scramble.planning import Table  # noqa: E402
from aerodeck.agents.ppo import Inputs  # noqa: E402
from aerodeck.envs.airport_scramble.rules import AirportScrambleRules  # noqa: E402

GAME = "airport-scramble"
K = 4  # the heuristic's candidates (the student's prior_ranks)
INPUTS = {"mask": True, "prior": "heuristic", "prior_units": 4.0, "prior_ties": "first", "prior_ranks": K}
PRIOR_SCALE = 32.0


def board_view(x: np.ndarray, features: LocalFeatures) -> dict:
    """What the networks read of policy inputs ``x`` ``float (n, O + A + A)`` (observation, mask, the
    heuristic's rank features): ``cand`` int64 (n, K) the candidates, ``value`` float32 (n, K) their rank
    features (0: no candidate), ``local`` float16 (n, K, F) the local network's features of each,
    ``cell`` int64 (n, K) the cell each acts on, ``codes`` int16 (n, G²) each cell's channels as bits,
    ``table`` float16 (n, T) the game's counts and the face-up cards' colours, ``tick`` float16 (n, K, 105)
    what the tickets to come say of each candidate (:class:`TicketFigures`)."""
    O, A = features.geo.observation.size, features.geo.actions.n_actions
    obs, masks, ranks = x[:, :O].astype(np.float32), x[:, O:O + A] > 0.5, x[:, O + A:].astype(np.float32)
    cand = np.argsort(-ranks, axis=1, kind="stable")[:, :K]
    value = np.take_along_axis(ranks, cand, axis=1)
    t = Table.from_observations(features.geo, obs)
    local = features.of_table(t, cand, masks).astype(np.float16)
    codes = features.cell_codes(t) >> 1  # without "off the grid", 0 on every cell
    one_hot = np.eye(features.geo.n_colors + 1)  # the face-up cards' colours (index 0: an empty slot)
    slots = np.concatenate([one_hot[t.slot_h.astype(np.int64) + 1], one_hot[t.slot_v.astype(np.int64) + 1]], axis=2)
    table = np.concatenate([features.game_figures(t), slots.reshape(len(x), -1)], axis=1)
    cell = features.cells(t, cand)
    return {"cand": cand, "value": value, "local": local, "cell": cell, "codes": codes.astype(np.int16),
            "table": table.astype(np.float16), "tick": TicketFigures(features)(obs, cand, cell)}


class TicketFigures:
    """What the tickets still in the ticket deck say of each candidate: ``float16 (n, K, 105)`` for
    observations ``float (n, O)``, candidates ``int64 (n, K)`` and the cells they act on ``int64 (n, K)``,
    read around each cell as ``features`` (a :class:`LocalFeatures` of radius 3) reads the grid.

    A candidate's cards are the card it plays, or the cards it replaces (none for other kinds). Per
    candidate, in this order: the tickets to come on its cards / 3; of their other airports, those on the
    grid / 3; the grid distance from its cell to the nearest of those / 16 (1 without one); those face up
    / 3; those in the airport deck / 3 (a ticket joining two of its cards counts once from each); then
    the tickets to come on the card of each of the 7 × 7 cells around its cell / 3 (row-major), and for
    each of those cells whether a ticket to come joins its card to the candidate's; last the game's
    tickets to come with both airports on the grid (pre-played, AS-15) / 3 and with one / 12. (Cards are
    told apart by the observation's ``card_place`` and tickets by its ``ticket_deck``: AS-17 hides only
    the order.)"""

    OWN = 5  # the figures of a candidate's own cards, before those of the cells around it

    def __init__(self, features: LocalFeatures) -> None:
        self.features = features
        self.geo = geo = features.geo
        blocks = geo.observation.blocks
        self.place, self.left = blocks["card_place"].slice, blocks["ticket_deck"].slice
        tickets = len(geo.origin)
        self.joins = np.zeros((tickets, geo.n_cards), np.float32)  # ticket × card: its two airports
        self.joins[np.arange(tickets), geo.origin] = 1
        self.joins[np.arange(tickets), geo.destination] = 1
        self.size = self.OWN + 2 * (2 * features.radius + 1) ** 2 + 2

    def __call__(self, obs: np.ndarray, cand: np.ndarray, cells: np.ndarray) -> np.ndarray:
        geo = self.geo
        (n, K), G, G2, F, N = cand.shape, geo.G, geo.G2, geo.F, geo.n_cards
        place = np.rint(obs[:, self.place].astype(np.float32) * (G2 + F)).astype(np.int64) - 1  # −1: the deck
        left = (obs[:, self.left].astype(np.float32) > 0.5).astype(np.float32)  # (n, T)
        per_card = left @ self.joins  # (n, N) tickets to come on each card
        pair = np.einsum("nt,ta,tb->nab", left, self.joins, self.joins)  # tickets to come joining a and b
        pair[:, np.arange(N), np.arange(N)] = 0
        on_grid, face_up, in_deck = (place >= 0) & (place < G2), place >= G2, place < 0
        slot_card, cell_card = np.full((n, F), -1, np.int64), np.full((n, G2), -1, np.int64)
        rows, cards = np.nonzero(face_up)
        slot_card[rows, place[rows, cards] - G2] = cards
        rows, cards = np.nonzero(on_grid)
        cell_card[rows, place[rows, cards]] = cards
        lay = geo.actions
        play = (cand >= lay.play_offset) & (cand < lay.replace_offset)
        replace = (cand >= lay.replace_offset) & (cand < lay.line_offset)
        mine = np.zeros((n, K, N), np.float32)  # each candidate's cards
        played = np.take_along_axis(slot_card, np.where(play, (cand - lay.play_offset) // G2, 0), axis=1)
        rows, ks = np.nonzero(play & (played >= 0))
        mine[rows, ks, played[rows, ks]] = 1
        bits = np.where(replace, cand - lay.replace_offset + 1, 0)  # AS-19: the slots' bitmask
        for s in range(F):
            chosen = np.repeat(slot_card[:, s:s + 1], K, axis=1)
            rows, ks = np.nonzero(replace & ((bits >> s) & 1).astype(bool) & (chosen >= 0))
            mine[rows, ks, chosen[rows, ks]] = 1
        partner = np.einsum("nka,nab->nkb", mine, pair)  # (n, K, N) tickets joining its cards to card b
        row, col = np.where(on_grid, place // G, 0), np.where(on_grid, place % G, 0)
        dist = np.abs(row[:, None] - (cells // G)[:, :, None]) + np.abs(col[:, None] - (cells % G)[:, :, None])
        dist = np.where((partner > 0) & on_grid[:, None], dist, 2 * G).min(axis=2)
        dist = np.where(dist < 2 * G, dist / (2 * (G - 1)), 1.0)
        around = self.features.around(cell_card, cells, -1)  # (n, K, 49) card ids
        card = np.maximum(around, 0)
        around_tickets = np.where(around >= 0, np.take_along_axis(np.repeat(per_card[:, None], K, axis=1), card, 2), 0)
        around_joined = np.where(around >= 0, np.take_along_axis(partner, card, axis=2), 0)
        both = (pair * on_grid[:, :, None] * on_grid[:, None, :]).sum(axis=(1, 2)) / 2
        one = (per_card * on_grid).sum(axis=1) - 2 * both
        game = np.repeat(np.stack([both / 3, one / 12], axis=1)[:, None], K, axis=1)
        own = np.stack([(mine * per_card[:, None]).sum(2) / 3, (partner * on_grid[:, None]).sum(2) / 3,
                        dist, (partner * face_up[:, None]).sum(2) / 3, (partner * in_deck[:, None]).sum(2) / 3], axis=2)
        return np.concatenate([own, around_tickets / 3, np.minimum(around_joined, 1), game], axis=2).astype(np.float16)


def play_chunk(teacher: str, seed: int, start: int, count: int) -> dict:
    """The teacher's decisions in games ``start … start+count−1`` (train.learn.warm_start.teacher_chunk),
    as :func:`board_view` reads them, with ``label`` int64 (n,) the teacher's candidate (−1: not one of
    the K) and ``game`` int64 (n,)."""
    from aerodeck.train.config import WarmStartConfig
    from aerodeck.train.warm_start import teacher_chunk

    rules = AirportScrambleRules()
    warm = WarmStartConfig(teacher=teacher, seed=seed)
    data = teacher_chunk(GAME, rules, warm, INPUTS, seed, 0.995, start, count)
    return labelled(board_view(data["inputs"], LocalFeatures(rules, 3, plan=True)), data["actions"], data["games"])


def labelled(view: dict, actions: np.ndarray, games: np.ndarray) -> dict:
    """``view`` (:func:`board_view`) with ``label`` int64 (n,), the candidate that is ``actions`` int64 (n,)
    (−1: not one of the K), and ``game`` int64 (n,) ``games``."""
    hit = view["cand"] == actions[:, None]
    view["label"] = np.where(hit.any(axis=1), hit.argmax(axis=1), -1)
    view["game"] = games
    return view


def pack(args) -> None:
    """``pack``: a warm start's ``warm_start.npz`` of teacher games (the teacher played every move: no
    ``player``; Airport Scramble's standard rules) as a replay — the run's seed, each game's number and
    its decisions' actions in order — a few megabytes for a file of hundreds, to carry to a machine
    that rebuilds the decisions (``play --replay``)."""
    try:
        with np.load(args.decisions) as f:
            meta, games, actions = json.loads(str(f["meta"])), f["games"], f["actions"]
    except FileNotFoundError:
        raise ValueError(f"no file {args.decisions}") from None
    except Exception as err:  # noqa: BLE001
        raise ValueError(f"{args.decisions} is not a warm_start.npz ({type(err).__name__}: {err})") from None
    if meta.get("game") != GAME or meta.get("player") or meta.get("opponent") or meta.get("inputs", {}).get("variants"):
        raise ValueError(f"{args.decisions}: a replay needs {GAME} games the teacher played itself (no player, "
                         f"opponent or variants)")
    if meta.get("rules") != AirportScrambleRules().to_dict():
        raise ValueError(f"{args.decisions}: a replay needs the standard rules (the file's: {meta.get('rules')})")
    order = np.lexsort((-np.arange(games.size), games))  # each game's decisions, first to last
    ids, length = np.unique(games, return_counts=True)
    saved(Path(args.out), lambda f: np.savez_compressed(
        f, seed=np.uint64(meta["seed"]), teacher=np.array(meta["teacher"]), game=ids, length=length,
        actions=actions[order].astype(np.int16)))
    print(f"packed {ids.size} games, {games.size} decisions of {meta['teacher']!r} (seed {meta['seed']})")


def replay_chunk(path: str, start: int, count: int) -> dict:
    """Games ``start … start+count−1`` of the replay ``path`` (:func:`pack`) played again move by move,
    their decisions as :func:`play_chunk` returns them, in its order; ``ValueError`` if a game does not
    replay (an illegal move, or a game that ends before or after its recorded moves)."""
    from aerodeck import envs
    from aerodeck.envs.common.rng import game_seeds

    with np.load(path) as f:
        seed, ids, length, actions = int(f["seed"]), f["game"], f["length"], f["actions"].astype(np.int64)
    offset = np.concatenate([[0], np.cumsum(length)])[start:start + count]
    ids, length = ids[start:start + count], length[start:start + count]
    rules = AirportScrambleRules()
    core = envs.spec(GAME).make_core(rules, check_actions=False)
    first = int(ids.min())
    state = core.init(game_seeds(seed, int(ids.max()) - first + 1, first)[ids - first])
    inputs, features = Inputs.make(GAME, rules, **INPUTS), LocalFeatures(rules, 3, plan=True)
    played, steps = np.zeros(ids.size, np.int64), []
    while not state.done.all():
        rows = np.flatnonzero(~state.done)
        if (played[rows] >= length[rows]).any():
            raise ValueError(f"{path}: game {ids[rows][played[rows] >= length[rows]][0]} goes on past its moves")
        masks = core.legal_mask(state)
        recorded = actions[offset[rows] + played[rows]]
        legal = (recorded >= 0) & (recorded < masks.shape[1])
        legal[legal] = masks[rows[legal], recorded[legal]]
        if not legal.all():
            raise ValueError(f"{path}: a recorded move of game {ids[rows][~legal][0]} is illegal")
        chosen = np.zeros(ids.size, np.int64)  # a finished game ignores its action
        chosen[rows] = recorded
        # as the warm start keeps them (float16), so the features are the same as play_chunk's
        view = board_view(inputs(core.observe(state)[rows], masks[rows]).astype(np.float16), features)
        steps.append(labelled(view, recorded, ids[rows]))
        core.step(state, chosen)
        played[rows] += 1
    if (played != length).any():
        raise ValueError(f"{path}: game {ids[played != length][0]} ended before its last move")
    return {key: np.concatenate([step[key] for step in reversed(steps)]) for key in steps[0]}


def play(args) -> None:
    """``play``: the teacher's games from game ``--first`` on in ``--workers`` processes (1: here), chunks
    of ``--chunk`` games in game order, none started after ``--seconds``; saves the decisions of the
    chunks played (a prefix of the games: every chunk started is finished)."""
    began, parts = time.perf_counter(), {}
    if args.replay:
        with np.load(args.replay) as f:
            args.games = min(args.games, f["game"].size - args.first)
        if args.games < 1:
            size = args.first + args.games
            raise ValueError(f"--first {args.first}: {args.replay} holds {size} games; give --first below {size}")
    end = args.first + args.games
    starts = list(range(args.first, end, args.chunk))
    work = replay_chunk if args.replay else play_chunk

    def task(start):
        count = min(args.chunk, end - start)
        return (args.replay, start, count) if args.replay else (args.teacher, args.seed, start, count)

    def more() -> bool:
        return bool(starts) and time.perf_counter() - began < args.seconds

    if args.workers == 1:
        while more():
            s = starts.pop(0)
            parts[s] = work(*task(s))
    else:
        with concurrent.futures.ProcessPoolExecutor(args.workers,
                                                    mp_context=multiprocessing.get_context("spawn")) as pool:
            running = {}
            while True:
                while more() and len(running) < args.workers:
                    s = starts.pop(0)
                    running[pool.submit(work, *task(s))] = s
                if not running:
                    break
                done, _ = concurrent.futures.wait(running, return_when=concurrent.futures.FIRST_COMPLETED)
                for f in done:
                    parts[running.pop(f)] = f.result()
                print(f"{time.perf_counter() - began:6.0f} s: {len(parts)} chunks", flush=True)
    order = sorted(parts)
    data = {key: np.concatenate([parts[s][key] for s in order]) for key in parts[order[0]]}
    saved(Path(args.out), lambda f: np.savez(f, **data))
    games = min(order[-1] + args.chunk, end) - args.first
    print(f"played {games} games, {len(data['label'])} decisions in {time.perf_counter() - began:.0f} s; "
          f"teacher's choice among the candidates {np.mean(data['label'] >= 0):.4f}, "
          f"the heuristic's first {np.mean(data['label'] == 0):.4f}", flush=True)


def saved(path: Path, write) -> None:
    """``write(file)`` to ``path`` atomically (nothing half-written is left behind)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    part = path.with_name(f".{path.name}.partial")
    try:
        with open(part, "wb") as f:
            write(f)
        part.replace(path)
    finally:
        part.unlink(missing_ok=True)


class LocalNet(torch.nn.Module):
    """The local network's scorer: two layers of ``width`` over each candidate's features and rank (with
    ``tickets`` > 0 also its ``tickets`` :class:`TicketFigures`)."""

    def __init__(self, size: int, width: int = 256, tickets: int = 0) -> None:
        super().__init__()
        self.settings = {"size": size, "width": width, "tickets": tickets}
        self.score = torch.nn.Sequential(torch.nn.Linear(size + tickets + K, width), torch.nn.ReLU(),
                                         torch.nn.Linear(width, width), torch.nn.ReLU(), torch.nn.Linear(width, 1))

    def forward(self, b: dict) -> torch.Tensor:
        rank = torch.eye(K, device=b["local"].device).expand(len(b["local"]), K, K)
        parts = [b["local"].float(), *([b["tick"].float()] if self.settings["tickets"] else []), rank]
        return self.score(torch.cat(parts, dim=2)).squeeze(-1)


class BoardNet(torch.nn.Module):
    """A transformer (``layers`` of ``width``, 4 heads) over the board's cells, the game's counts and
    the K candidates (module docstring). Its output layer starts at 0: untrained, it plays the
    heuristic's choice."""

    def __init__(self, size: int, width: int = 256, layers: int = 6, cells: int = 81, channels: int = 12,
                 table: int = 63) -> None:
        super().__init__()
        self.settings = {"size": size, "width": width, "layers": layers}
        self.channels = channels
        self.cell_in = torch.nn.Linear(channels, width)
        self.position = torch.nn.Parameter(torch.randn(cells, width) * 0.02)
        self.table_in = torch.nn.Linear(table, width)
        self.cand_in = torch.nn.Sequential(torch.nn.Linear(size + K, width), torch.nn.ReLU(),
                                           torch.nn.Linear(width, width))
        layer = torch.nn.TransformerEncoderLayer(width, 4, 4 * width, dropout=0.0, batch_first=True, norm_first=True)
        self.encoder = torch.nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
        self.out = torch.nn.Sequential(torch.nn.LayerNorm(width), torch.nn.Linear(width, 1))
        torch.nn.init.zeros_(self.out[1].weight)
        torch.nn.init.zeros_(self.out[1].bias)

    def forward(self, b: dict) -> torch.Tensor:
        bits = ((b["codes"].long()[..., None] >> torch.arange(self.channels, device=b["codes"].device)) & 1).float()
        rank = torch.eye(K, device=bits.device).expand(len(bits), K, K)
        tokens = torch.cat([self.cell_in(bits) + self.position, self.table_in(b["table"].float())[:, None],
                            self.cand_in(torch.cat([b["local"].float(), rank], dim=2)) + self.position[b["cell"]]], 1)
        return self.out(self.encoder(tokens)[:, -K:]).squeeze(-1)


ARCHS = {"board": BoardNet, "local": LocalNet, "tickets": LocalNet}
KEYS = ("local", "tick", "codes", "table", "cell", "value")
DATA_KEYS = ("cand", "label", "game", *KEYS)


def logits(model, b: dict) -> torch.Tensor:
    """``float32 (n, K)``: the candidates' logits (score + the prior; −inf where there is no candidate)."""
    z = model(b).float() + PRIOR_SCALE * b["value"].float()
    return torch.where(b["value"] > 0, z, torch.full_like(z, -torch.inf))


def save_model(model, arch: str, path: Path) -> None:
    """``model`` (an ``arch``) to ``path``, its weights in float16 (the board network's 5.0M weights in 10 MB)."""
    state = {k: v.detach().cpu().half() for k, v in model.state_dict().items()}
    saved(path, lambda f: torch.save({"arch": arch, "settings": model.settings, "state": state}, f))


def load_model(path: str):
    """The model saved by :func:`save_model` at ``path``, in eval mode; ``ValueError`` naming the file
    when it is not one."""
    try:
        saved_model = torch.load(path, map_location="cpu", weights_only=True)
        model = ARCHS[saved_model["arch"]](**saved_model["settings"])
        model.load_state_dict({k: v.float() for k, v in saved_model["state"].items()})
    except FileNotFoundError:
        raise ValueError(f"no model file {path}") from None
    except Exception as err:  # noqa: BLE001 - any unreadable file is reported as one
        raise ValueError(f"{path} is not a model saved by board_network.py fit ({type(err).__name__}: {err})") from None
    return model.eval()


def read_data(paths: str | list[str]) -> dict:
    """The decisions saved by ``play`` at ``paths``, one file or several (their decisions concatenated,
    one key at a time); ``ValueError`` naming the file when one is not such a file."""
    paths = [paths] if isinstance(paths, str) else list(paths)
    files = []
    try:
        for path in paths:
            files.append(open_data(path))
        if len(files) == 1:
            return {k: read_key(files[0], paths[0], k) for k in DATA_KEYS}
        lengths = [len(read_key(f, path, "label")) for f, path in zip(files, paths)]
        data = {}
        for k in DATA_KEYS:
            for i, (f, path, at) in enumerate(zip(files, paths, np.cumsum([0, *lengths[:-1]]))):
                part = read_key(f, path, k)
                if not i:
                    data[k] = np.empty((sum(lengths), *part.shape[1:]), part.dtype)
                elif part.shape[1:] != data[k].shape[1:]:
                    shapes = [", ".join(map(str, shape)) for shape in (part.shape[1:], data[k].shape[1:])]
                    raise ValueError(f"{path}: {k} is (…, {shapes[0]}), {paths[0]}'s (…, {shapes[1]}): "
                                     f"not the same features")
                data[k][at:at + len(part)] = part
                del part
        return data
    finally:
        for f in files:
            f.close()


def open_data(path: str):
    """The file of ``play`` at ``path``, open; ``ValueError`` naming it when it is not one."""
    try:
        f = np.load(path)
    except FileNotFoundError:
        raise ValueError(f"no data file {path} (make one with: board_network.py play --out {path})") from None
    except Exception as err:  # noqa: BLE001 - any unreadable file is reported as one
        raise ValueError(f"{path} is not a file of board_network.py play ({type(err).__name__}: {err})") from None
    if not isinstance(f, np.lib.npyio.NpzFile):
        raise ValueError(f"{path} is not a file of board_network.py play (one array, not an .npz of decisions)")
    missing = sorted(set(DATA_KEYS) - set(f.files))
    if missing:
        f.close()
        raise ValueError(f"{path} is not a file of board_network.py play as it is now: it lacks {', '.join(missing)}"
                         f"{' (made before the ticket figures)' if missing == ['tick'] else ''}; play it again")
    return f


def read_key(f, path: str, key: str) -> np.ndarray:
    """Array ``key`` of the open file ``f`` (at ``path``); ``ValueError`` naming both when it cannot be read."""
    try:
        return f[key]
    except Exception as err:  # noqa: BLE001 - a damaged member of the archive
        raise ValueError(f"{path}: {key} cannot be read ({type(err).__name__}: {err})") from None


def fit(args) -> None:
    """``fit``: each ``--arch`` fitted on the first 95 % of the games (by game number) for ``--epochs``
    (the step size a cosine over their steps) or, without, for ``--seconds`` (a cosine over that time:
    the model then depends on the machine's speed), each batch seen through one of the grid's 4 mirrors
    or 8 symmetries drawn at random with ``--symmetries 4`` or ``8``; saved to ``--out``/ARCH.pt."""
    device = "cuda" if torch.cuda.is_available() else "cpu"
    raw = read_data(args.data)
    keep = raw["label"] >= 0
    games = raw["game"][keep]
    held = games >= np.quantile(games, 0.95)
    if held.all() or not held.any():
        raise ValueError(f"{' '.join(args.data)} holds too few games to hold 5 % of them out ({np.unique(games).size})")
    data = {k: torch.as_tensor(raw[k] if keep.all() else raw[k][keep]).to(device) for k in KEYS + ("label",)}
    train_rows, held_rows = np.flatnonzero(~held), np.flatnonzero(held)
    print(f"{len(train_rows)} decisions fitted, {len(held_rows)} held out (the heuristic's first: "
          f"{float((data['label'][held_rows] == 0).float().mean()):.4f}) on {device}", flush=True)
    size = data["local"].shape[2]
    per_epoch = -(-len(train_rows) // args.batch)
    symmetries = None
    if args.symmetries > 1:
        symmetries = Symmetries(LocalFeatures(AirportScrambleRules(), 3, plan=True), device)
    for arch in args.arch:
        torch.manual_seed(args.seed)
        tickets = data["tick"].shape[2] if arch == "tickets" else 0
        model = BoardNet(size, args.width, args.layers) if arch == "board" else LocalNet(size, tickets=tickets)
        model = model.to(device)
        lr = args.lr[arch != "board"]
        opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.01)
        began, step, epoch = time.perf_counter(), 0, 0
        rng = np.random.default_rng(args.seed)

        def held_out() -> float:
            model.eval()
            right = 0
            with torch.no_grad(), torch.autocast(device, torch.bfloat16, enabled=device == "cuda"):
                for i in range(0, len(held_rows), 8192):
                    r = torch.as_tensor(held_rows[i:i + 8192], device=device)
                    right += int((logits(model, {k: data[k][r] for k in KEYS}).argmax(1) == data["label"][r]).sum())
            model.train()
            return right / len(held_rows)

        def done() -> float:
            """The share of the fit done: of its steps (--epochs) or of its time (--seconds), the larger."""
            shares = [step / (args.epochs * per_epoch)] if args.epochs else []
            shares += [(time.perf_counter() - began) / args.seconds] if args.seconds else []
            return max(shares)

        while not epoch or done() < 1:
            order = rng.permutation(train_rows)
            loss_sum, seen = 0.0, 0
            for i in range(0, len(order), args.batch):
                frac = done()
                if frac >= 1 and seen:
                    break
                for g in opt.param_groups:  # cosine over the fit
                    g["lr"] = lr * 0.5 * (1 + math.cos(math.pi * min(frac, 1.0)))
                r = torch.as_tensor(order[i:i + args.batch], device=device)
                batch = {k: data[k][r] for k in KEYS}
                if symmetries:  # one of the grid's symmetries for the whole batch
                    batch = symmetries(batch, int(rng.integers(args.symmetries)))
                with torch.autocast(device, torch.bfloat16, enabled=device == "cuda"):
                    loss = torch.nn.functional.cross_entropy(logits(model, batch), data["label"][r])
                opt.zero_grad(set_to_none=True)
                loss.backward()
                torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
                opt.step()
                loss_sum, seen, step = loss_sum + loss.item(), seen + 1, step + 1
            epoch += 1
            print(f"{arch}: epoch {epoch} ({step} steps, {step / per_epoch:.2f} passes, "
                  f"{time.perf_counter() - began:.0f} s) loss {loss_sum / seen:.4f} held-out agreement "
                  f"{held_out():.4f}", flush=True)
        save_model(model, arch, Path(args.out) / f"{arch}.pt")


class Symmetries:
    """The square grid's 8 symmetries acting on what the local networks read (``local``, ``tick``): ``g``
    in 0 … 7, bit 0 mirrors the rows, bit 1 the columns, bit 2 transposes the grid and swaps every card's
    H and V colours (AS-9: left and right neighbours share H, upper and lower V, so a transposed grid
    obeys the rule with the colours swapped; each hub has its mirror hub, AS-1 … AS-4). Through a mirror
    (g < 4) a position is a position of the game up to tie-breaks (the heuristic's action order, AS-15's
    relocation order), with the same candidates seen the same way. Through a transpose it is a position
    of a game whose hubs are relabelled: the standard edition's tickets name cards, and only 10 of its 24
    map onto a ticket between the same two airports (8 with the same origin), so the tickets to come,
    which the search's choice weighs, are not the game's.
    ``__call__`` returns the batch ``b`` (:data:`KEYS`) through ``g``; the other keys unchanged (the
    board network's are not transformed)."""

    COUNT = 8
    MIRRORS = 4  # g < 4: the row and column mirrors alone

    def __init__(self, features: LocalFeatures, device: str = "cpu") -> None:
        nc, self.C, self.S = features.geo.n_colors, features.channels, 2 * features.radius + 1
        self.P = self.S * self.S * self.C  # the patch: S × S cells of C channels, row-major
        channels = np.arange(self.C)
        channels[2:2 + nc], channels[2 + nc:2 + 2 * nc] = np.arange(2 + nc, 2 + 2 * nc), np.arange(2, 2 + nc)
        order = np.arange(features.size)  # after the patch: the played card's H then V one-hot, the game's figures
        card, game = self.P, self.P + 2 * (nc + 1)
        order[card:card + nc + 1] = np.arange(card + nc + 1, game)
        order[card + nc + 1:game] = np.arange(card, card + nc + 1)
        pairs = np.arange(nc * nc)  # the cards to come of each colour pair H · nc + V
        order[game + 7:game + 7 + nc * nc] = game + 7 + (pairs % nc) * nc + pairs // nc
        self.channels, self.order = torch.as_tensor(channels, device=device), torch.as_tensor(order, device=device)

    def grids(self, x: torch.Tensor, g: int) -> torch.Tensor:
        """``x`` (n, K, S, S, …) with its two grid axes through ``g``."""
        x = x.transpose(2, 3) if g & 4 else x
        x = x.flip(2) if g & 1 else x
        return x.flip(3) if g & 2 else x

    def __call__(self, b: dict, g: int) -> dict:
        if not g:
            return b
        local, tick = b["local"], b["tick"]
        n, k, S, P = local.shape[0], local.shape[1], self.S, self.P
        if g & 4:
            local = local[..., self.order]
        patch = local[..., :P].reshape(n, k, S, S, self.C)
        patch = patch[..., self.channels] if g & 4 else patch
        local = torch.cat([self.grids(patch, g).reshape(n, k, P), local[..., P:]], dim=2)
        own, end = TicketFigures.OWN, TicketFigures.OWN + 2 * S * S  # TicketFigures' cells
        around = tick[..., own:end].reshape(n, k, 2, S, S).permute(0, 1, 3, 4, 2)
        around = self.grids(around, g).permute(0, 1, 4, 2, 3).reshape(n, k, -1)
        tick = torch.cat([tick[..., :own], around, tick[..., end:]], dim=2)
        return {**b, "local": local, "tick": tick}


class NetworkAgent:
    """Plays by a fitted model: among the heuristic's K best actions, the one of highest logit (one
    forward pass a decision, on the GPU where there is one)."""

    needs_view = False

    def __init__(self, path: str, rules) -> None:
        self.device = "cuda" if torch.cuda.is_available() else "cpu"
        self.model = load_model(path).to(self.device)
        self.name = Path(path).stem
        self.inputs = Inputs.make(GAME, rules, **INPUTS)
        self.features = LocalFeatures(rules, 3, plan=True)

    def act(self, observations, masks, view=None, keys=None) -> np.ndarray:
        v = board_view(self.inputs(observations, masks), self.features)
        with torch.no_grad():
            z = logits(self.model, {k: torch.as_tensor(v[k], device=self.device) for k in KEYS})
        return np.take_along_axis(v["cand"], z.argmax(1, keepdim=True).cpu().numpy(), axis=1)[:, 0]


def bench_part(models: list[str], seeds: np.ndarray, batch: int, threads: int) -> tuple[np.ndarray, dict, dict]:
    """The heuristic and each model of ``models`` on the deals ``seeds`` ``uint64 (n,)``: those seeds, each
    one's scores ``float64 (n,)`` and each one's seconds."""
    from aerodeck import envs
    from aerodeck.agents.registry import make_agent
    from aerodeck.arena.loop import play_solo

    torch.set_num_threads(threads)
    rules = AirportScrambleRules()
    game = envs.spec(GAME)
    agents = {"heuristic": make_agent(GAME, "heuristic", rules, seed=0)}
    for path in models:
        agents[Path(path).stem] = NetworkAgent(path, rules)
    scores, seconds = {}, {}
    for name, agent in agents.items():
        began = time.perf_counter()
        scores[name] = play_solo(game.make_core(rules), agent, seeds, batch_size=batch, progress=False)
        seconds[name] = time.perf_counter() - began
    return seeds, scores, seconds


def bench(args) -> dict:
    """``bench``: the heuristic and each model play ``--games`` deals of ``aerodeck bench --seed``, split
    into ``--workers`` processes (the same deals in the same order; the heuristic's scores the same, a
    network's up to float rounding in near-ties between batch shapes); ``games.csv`` under ``--out``;
    returns each one's scores ``float64 (games,)``."""
    from itertools import repeat

    from aerodeck.arena.loop import game_seeds

    parts = np.array_split(game_seeds(args.seed, args.games), min(args.workers, args.games))
    if len(parts) == 1:
        results = [bench_part(args.models, parts[0], args.batch, args.threads)]
    else:
        context = multiprocessing.get_context("spawn")
        with concurrent.futures.ProcessPoolExecutor(len(parts), mp_context=context) as pool:
            results = list(pool.map(bench_part, repeat(args.models), parts, repeat(args.batch), repeat(args.threads)))
    seeds = np.concatenate([part_seeds for part_seeds, _, _ in results])
    columns = {}
    for name in results[0][1]:
        columns[name] = np.concatenate([scores[name] for _, scores, _ in results])
        print(f"{name}: mean score {columns[name].mean():.4f} over {args.games} deals "
              f"(the slowest worker's {max(seconds[name] for _, _, seconds in results):.0f} s)", flush=True)

    def write(f):
        lines = [",".join(["seed", *columns])]
        lines += [",".join([str(int(s)), *(f"{columns[c][i]:g}" for c in columns)]) for i, s in enumerate(seeds)]
        f.write(("\n".join(lines) + "\n").encode())

    saved(Path(args.out) / "games.csv", write)
    return columns


def positive(kind):
    """An argparse type: ``kind`` above 0."""
    def parse(text: str):
        value = kind(text)
        if not value > 0:
            raise argparse.ArgumentTypeError(f"must be above 0, got {text}")
        return value
    return parse


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="step", required=True)
    a = sub.add_parser("play", help="the teacher's games, their decisions saved")
    a.add_argument("--teacher", default="search", help="a search agent spec (default: the plain search)")
    a.add_argument("--games", type=positive(int), default=100_000)
    a.add_argument("--seconds", type=positive(float), default=math.inf, help="no chunk starts after this")
    a.add_argument("--workers", type=positive(int), default=2)
    a.add_argument("--chunk", type=positive(int), default=256)
    a.add_argument("--seed", type=int, default=2026120431, help="the teacher's deals (game i: (seed, i))")
    a.add_argument("--replay", default="", help="a file of pack: its games played again, not a teacher's")
    a.add_argument("--first", type=int, default=0, help="the first game (of the deals, or of the replay's games)")
    a.add_argument("--out", default="out/board/data.npz")
    k = sub.add_parser("pack", help="a warm start's teacher games as a small replay file")
    k.add_argument("--decisions", required=True, help="a warm_start.npz of aerodeck train")
    k.add_argument("--out", default="out/board/replay.npz")
    f = sub.add_parser("fit", help="the networks fitted to the teacher's decisions")
    f.add_argument("--data", nargs="+", default=["out/board/data.npz"], help="files of play (their decisions together)")
    f.add_argument("--arch", nargs="+", choices=sorted(ARCHS), default=["local", "board"])
    f.add_argument("--epochs", type=positive(int), default=None, help="passes over the fitted decisions")
    f.add_argument("--seconds", type=positive(float), default=None,
                   help="per network: the fit's time without --epochs (default 60), with them a cap")
    f.add_argument("--width", type=positive(int), default=256, help="the board network's (a multiple of 4)")
    f.add_argument("--layers", type=positive(int), default=6, help="the board network's")
    f.add_argument("--batch", type=positive(int), default=1024)
    f.add_argument("--lr", type=positive(float), nargs=2, default=[3e-4, 1e-3], metavar=("BOARD", "LOCAL"),
                   help="the step size of the board network and of the local ones (local, tickets)")
    f.add_argument("--symmetries", type=int, choices=(1, Symmetries.MIRRORS, Symmetries.COUNT), default=1,
                   help="each batch seen through one of the grid's 4 mirrors or all 8 symmetries (local and "
                        "tickets only)")
    f.add_argument("--seed", type=int, default=0)
    f.add_argument("--out", default="out/board")
    b = sub.add_parser("bench", help="the heuristic and the networks on fresh deals")
    b.add_argument("--models", nargs="+", required=True, help="files saved by fit")
    b.add_argument("--games", type=positive(int), default=5000)
    b.add_argument("--seed", type=int, default=20261250, help="aerodeck bench's seed: the same deals")
    b.add_argument("--batch", type=positive(int), default=5000)
    b.add_argument("--threads", type=positive(int), default=1, help="torch threads per process")
    b.add_argument("--workers", type=positive(int), default=1,
                   help="processes, each playing a share of the deals (workers × threads: at most the cores)")
    b.add_argument("--out", default="out/board")
    args = p.parse_args(argv)
    out = Path(args.out)
    to_file = args.step in ("play", "pack")
    if args.step == "play" and args.first < 0:
        p.error(f"--first must be 0 or more, got {args.first}")
    if (out.is_dir() if to_file else out.exists() and not out.is_dir()):
        p.error(f"--out {out}: {'a folder' if to_file else 'a file'} is there; "
                f"give a {'file' if to_file else 'folder'} path")
    try:
        if args.step == "pack":
            pack(args)
        elif args.step == "play" and args.replay:
            if not Path(args.replay).is_file():
                p.error(f"--replay {args.replay}: no such file (make one with: board_network.py pack)")
            try:
                with np.load(args.replay) as f:
                    fits = {"seed", "game", "length", "actions"} <= set(f.files) and f["game"].size > 0
            except Exception:  # noqa: BLE001 - any unreadable file is reported as one
                fits = False
            if not fits:
                p.error(f"--replay: {args.replay} is not a file of board_network.py pack (or holds no game)")
            play(args)
        elif args.step == "play":
            from aerodeck.agents.registry import make_agent

            teacher = make_agent(GAME, args.teacher, AirportScrambleRules())
            if not hasattr(teacher, "rollouts"):
                p.error(f"--teacher {args.teacher!r}: give a search agent (e.g. 'search' or 'search:gate=2')")
            play(args)
        elif args.step == "fit":
            if args.width % 4:
                p.error(f"--width must be a multiple of 4 (4 attention heads), got {args.width}")
            if args.seconds is None and args.epochs is None:
                args.seconds = 60.0
            if args.seconds is not None and not math.isfinite(args.seconds):
                p.error(f"--seconds must be finite for fit, got {args.seconds}")
            if args.symmetries > 1 and "board" in args.arch:
                p.error(f"--symmetries {args.symmetries} transforms what the local networks read: "
                        f"give --arch local or tickets")
            fit(args)
        else:
            names = [Path(m).stem for m in args.models]
            if len(set(names)) < len(names) or "heuristic" in names:
                p.error(f"--models must have different file names (their columns), none named heuristic: {names}")
            print(json.dumps({name: float(s.mean()) for name, s in bench(args).items()}))
    except ValueError as err:
        p.error(str(err))
    return 0


if __name__ == "__main__":
    sys.exit(main())
