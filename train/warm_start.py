"""The warm start: a teacher agent's decisions, saved for reuse, and behaviour cloning of them.

The teacher plays on the batched core through the suite's play loop (``aerodeck.arena.loop.play_games``)
with a :class:`TeacherRecorder` watching; its games are played in chunks (each a self-contained task
seeded by the run's seed and its first game), in one process, several, or as Ray tasks, and stop at a
deadline when the run has a time budget. :func:`clone` then fits the policy to the teacher's policy (its actions,
or a search's candidates weighed by value) and the value function to its returns.
"""

from __future__ import annotations

import concurrent.futures
import json
import math
import multiprocessing
import os
import zipfile
from collections.abc import Callable
from pathlib import Path

import numpy as np

from aerodeck import envs
from aerodeck.agents.base import act, played_policy
from aerodeck.agents.streams import draws

#: The arrays of the teacher's decisions.
DECISION_KEYS = ("inputs", "masks", "actions", "returns", "games", "seats", "target_actions", "target_probs")

#: The teacher's policy at each decision (absent from decisions saved before it was kept).
TARGET_KEYS = ("target_actions", "target_probs")


class PolicyTap:
    """The teacher as the play loop sees it (its name, key, view and keys forwarded), keeping its action and
    policy at its last ``act`` (``Agent.act_with_policy``) for the :class:`TeacherRecorder`.

    With a ``player`` (an agent), the player's actions are played and the teacher only labels the states
    the player reaches (DAgger: a student taught on its own states). The player draws its random choices
    from part :data:`PLAYER_PART` of each decision's key, so its randomness is keyed by the game and the
    decision as the teacher's is."""

    def __init__(self, teacher, player=None) -> None:
        self.teacher, self.player = teacher, player
        self.last: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None  # actions (R,), weighed (R, k), probs (R, k)

    #: Decision keys always: the player's keys derive from them even where the teacher draws none.
    takes_keys = True

    def __getattr__(self, name):
        return getattr(self.teacher, name)

    @property
    def name(self) -> str:
        """The teacher's name, or the player's labelled by it (the agent an illegal move is blamed on)."""
        return self.teacher.name if self.player is None else f"{self.player.name} (labelled by {self.teacher.name})"

    @property
    def needs_view(self) -> bool:
        """Whether the teacher or the player reads the game's view."""
        return bool(self.teacher.needs_view or getattr(self.player, "needs_view", False))

    def act(self, observations, masks, view=None, keys=None) -> np.ndarray:
        """The actions played ``int64 (R,)`` (the player's, else the teacher's); the teacher's action and
        policy are kept in ``last``."""
        actions, weighed, probs = self.teacher.act_with_policy(observations, masks, view, keys)
        self.last = (np.asarray(actions, np.int64), np.asarray(weighed, np.int64), np.asarray(probs, np.float32))
        if self.player is None:
            return actions
        player_keys = None if keys is None else draws(keys, 1, PLAYER_PART)[:, 0]
        return np.asarray(act(self.player, observations, masks, view, player_keys), np.int64)


#: The part of a decision's key stream the :class:`PolicyTap`'s player draws its own decision keys from.
PLAYER_PART = 2**31 + 7


class TeacherRecorder:
    """A ``play_games`` observer keeping the decisions of the taught seats as training data.

    ``inputs``: what the policy reads (``aerodeck.agents.ppo.Inputs``); ``n_games``: the games of the play (numbered
    0 … G−1 by the loop, ``first_game`` + that in the data); ``taught``: ``int64 (G,)``, the teacher's seat
    in each game, or ``None`` (every seat is the teacher's); ``gamma``: the discount per decision of a seat;
    ``tap``: the teacher as the loop plays it (its policy at each decision is kept with the decision).
    """

    def __init__(self, inputs, n_games: int, first_game: int, taught: np.ndarray | None, gamma: float,
                 tap: PolicyTap) -> None:
        self.inputs, self.first_game, self.taught, self.gamma, self.tap = inputs, first_game, taught, gamma, tap
        self.n_games = n_games
        self.live = np.zeros(n_games, bool)  # by game: what the loop's state showed before its next step
        self.seat = np.zeros(n_games, np.int64)
        self.masks: np.ndarray | None = None
        self.kept: np.ndarray | None = None  # the policy's inputs at the taught seat's pending decision
        self.steps: list[tuple] = []
        self.n_players = 1

    def _look(self, core, state, games: np.ndarray) -> None:
        """Note what the seat to act sees in each game of ``state`` (rows ``games``)."""
        seat = np.asarray(core.to_act(state), np.int64)
        live = ~np.asarray(state.done, bool)
        masks = core.legal_mask(state)
        if self.masks is None:
            self.masks = np.zeros((self.n_games, masks.shape[1]), bool)
        self.live[games], self.seat[games], self.masks[games] = live, seat, masks
        mine = live & (True if self.taught is None else seat == self.taught[games])
        rows = np.flatnonzero(mine)
        if rows.size:
            obs = core.observe(state, np.maximum(seat, 0)) if core.n_players > 1 else core.observe(state)
            x = self.inputs(obs[rows], masks[rows]).astype(np.float16)
            if self.kept is None:
                self.kept = np.zeros((self.n_games, x.shape[1]), np.float16)
            self.kept[games[rows]] = x

    def on_start(self, core, state, games) -> None:
        """``play_games`` observer hook: a batch of games starts."""
        self._look(core, state, np.asarray(games))

    def on_step(self, core, state, actions, rewards, games) -> None:
        """``play_games`` observer hook: every game of ``state`` (rows ``games``) took ``actions``."""
        games = np.asarray(games)
        live = self.live[games]
        g, seat = games[live], self.seat[games[live]]
        mine = np.ones(g.size, bool) if self.taught is None else seat == self.taught[g]
        rewards = np.reshape(np.asarray(rewards, np.float64), (games.size, -1))[live]
        self.n_players = rewards.shape[1]
        m = g[mine]
        kept = None
        if m.size:
            # the teacher's actions (with a player: not the ones played), on the whole batch (it plays every
            # seat) or on its live rows only
            taught, weighed, probs = self.tap.last
            rows = np.flatnonzero(live)[mine] if len(weighed) == games.size else np.arange(m.size)
            kept = (self.kept[m].copy(), self.masks[m].copy(), taught[rows], weighed[rows], probs[rows])
        self.tap.last = None
        self.steps.append((g, seat, mine, rewards, kept))
        self._look(core, state, games)

    def result(self) -> dict:
        """The kept decisions (see :func:`teacher_decisions`), from the last step to the first."""
        ret_next = np.zeros((self.n_games, self.n_players))  # by game and seat: the return at the seat's next decision
        between = np.zeros_like(ret_next)  # every seat's rewards since its next decision
        parts: dict[str, list] = {key: [] for key in DECISION_KEYS}
        for g, seat, mine, rewards, kept in reversed(self.steps):
            between[g] += rewards
            ret = between[g, seat] + self.gamma * ret_next[g, seat]
            ret_next[g, seat], between[g, seat] = ret, 0.0
            if kept is not None:
                inputs, masks, actions, weighed, probs = kept
                for key, value in zip(DECISION_KEYS, (inputs, masks, actions, ret[mine].astype(np.float32),
                                                      self.first_game + g[mine], seat[mine], weighed, probs)):
                    parts[key].append(value)
        if not parts["actions"]:
            raise ValueError("the teacher made no decisions")
        return {key: np.concatenate(value) for key, value in parts.items()}


def teacher_decisions(game, rules, teacher, seeds, inputs, gamma: float, opponent=None, first_game: int = 0,
                      player=None) -> dict:
    """Play one game per seed with ``teacher``; its decisions as training data.

    ``game``: the ``GameSpec``; ``seeds[j]`` is game ``first_game + j``. Without ``opponent`` the teacher
    plays every seat and every decision is kept; with one (an agent), the teacher plays one seat of each
    game (game i: seat i mod n, so every seat is taught equally) and ``opponent`` the others, and only the
    teacher's decisions are kept. With ``player`` (an agent) the player's moves are played in the
    teacher's seat and the teacher labels the states they reach (DAgger; :class:`PolicyTap`).

    Returns ``inputs`` ``float16 (N, ·)`` (what the policy reads of the deciding seat's observation and
    mask, ``inputs`` an ``aerodeck.agents.ppo.Inputs``), ``masks`` ``bool (N, A)``, ``actions`` ``int64 (N,)`` (the
    teacher's), ``returns`` ``float32 (N,)`` (the seat's discounted return from that decision on, discounted once per
    decision of that seat: what PPO's value function learns), ``games`` ``int64 (N,)`` (the game number),
    ``seats`` ``int64 (N,)`` (the seat that decided), and the teacher's policy (``Agent.act_with_policy``),
    what the student is fitted to: ``target_actions`` ``int64 (N, k)`` with ``target_probs`` ``float32 (N, k)``.
    """
    from aerodeck.arena.loop import play_games

    core = game.make_core(rules, check_actions=False)  # play_games checks every action
    G, n = len(seeds), core.n_players
    taught = None if opponent is None else (first_game + np.arange(G)) % n
    lineups = None if taught is None else np.where(np.arange(n)[None, :] == taught[:, None], 0, 1)
    tap = PolicyTap(teacher, player)
    agents = [tap] if opponent is None else [tap, opponent]
    recorder = TeacherRecorder(inputs, G, first_game, taught, gamma, tap)
    play_games(core, agents, seeds, lineups, batch_size=max(G, 1), progress=False, make_view=game.make_view,
               summary=game.summary_of(), observers=[recorder])
    return recorder.result()


#: A rule-general warm start: consecutive teacher games played under one variant.
VARIANT_GAMES = 16


def teacher_chunk(game_id: str, rules, warm, inputs: dict, seed: int, gamma: float, start: int, count: int) -> dict:
    """The teacher's decisions in games ``start … start+count−1`` of the warm start (``warm``: the
    ``WarmStartConfig``; ``inputs``: ``Inputs.to_dict()``). A self-contained task: the teacher and the
    opponent draw their random choices from per-game decision keys (``seed``, game, agent, decision), so
    the decisions do not depend on the chunking or on which process plays the chunk.

    For a rule-general policy (``inputs`` names a variant space) game i is played under variant
    ``i // VARIANT_GAMES`` of the space drawn with ``warm.seed``, and the decisions are laid out in the
    family layout (inputs, masks and actions), so every variant's decisions train one policy."""
    from aerodeck.agents.ppo import Inputs
    from aerodeck.agents.registry import make_agent
    from aerodeck.agents.variants import VariantSpace
    from aerodeck.arena.loop import agent_seed, game_seeds

    game = envs.spec(game_id)
    teacher_seed, opponent_seed, player_seed = agent_seed(seed, 0), agent_seed(seed, 1), agent_seed(seed, 2)
    settings = {k: v for k, v in inputs.items() if k != "variants"}
    space = VariantSpace.from_dict(game, inputs["variants"]) if inputs.get("variants") else None
    blocks = [(rules, start, count)] if space is None else [
        (space.draw(warm.seed, block), max(start, block * VARIANT_GAMES),
         min(start + count, (block + 1) * VARIANT_GAMES) - max(start, block * VARIANT_GAMES))
        for block in range(start // VARIANT_GAMES, (start + count - 1) // VARIANT_GAMES + 1)]
    parts = []
    for block_rules, first, n in blocks:
        teacher = make_agent(game_id, warm.teacher, block_rules, seed=teacher_seed)
        opponent = make_agent(game_id, warm.opponent, block_rules, seed=opponent_seed) if warm.opponent else None
        player = make_agent(game_id, warm.player, block_rules, seed=player_seed) if warm.player else None
        reads = Inputs.make(game_id, block_rules, **settings, variants=space)
        data = teacher_decisions(game, block_rules, teacher, game_seeds(warm.seed, n, first), reads, gamma,
                                 opponent=opponent, first_game=first, player=player)
        if space is not None:  # in the family layout
            data["masks"] = reads.family_masks(data["masks"])
            data["actions"] = reads.embedding.action_index[data["actions"]]
            data["target_actions"] = reads.embedding.action_index[data["target_actions"]]
        parts.append(data)
    return joined(parts)


def play_teacher(game_id: str, rules, warm, inputs: dict, seed: int, gamma: float, games: int, *, first: int = 0,
                 chunk: int | None = None, workers: int = 1, fits: Callable[[float], bool] | None = None,
                 now: Callable[[], float] | None = None, done=lambda games: None, backend=None) -> list[dict]:
    """The teacher's decisions in games ``first … games−1``, ``chunk`` games at a time (default
    ``warm.play_batch``; :func:`teacher_chunk`) in ``workers`` processes (1: here), or with a Ray
    ``backend`` (``aerodeck.arena.backends.RayBackend``) as Ray tasks, one per CPU of its cluster at
    once; ``done(count)`` is called as each chunk ends. With ``fits(seconds)`` (a deadline) and ``now()`` (its clock), a chunk
    starts only if it fits at the slowest pace (seconds per game) of the chunks so far, halved until it
    does (so the play fills its time however far the first chunks' pace was from the plan's) and none
    when not one more game fits: the play may end early, on a whole chunk. Returns the chunks played,
    in game order (a prefix of the games)."""
    chunk = chunk or warm.play_batch
    pace = 0.0  # the most seconds a game of a finished chunk took (0: none finished; the first ones measure it)
    clock = now or (lambda: 0.0)
    start = first

    def next_task():
        """The next chunk's task, or ``None``: all games started, or not one more game fits."""
        nonlocal start
        count = min(chunk, games - start)
        while count > 0 and fits is not None and pace and not fits(count * pace):
            count //= 2  # near the deadline a smaller chunk still fits (the games do not depend on the chunking)
        if count <= 0:
            return None
        task, start = (game_id, rules, warm, inputs, seed, gamma, start, count), start + count
        return task

    if backend is not None and backend.name == "ray":
        def ended(task, seconds):
            nonlocal pace
            pace = max(pace, seconds / task[-1])
            done(task[-1])

        tasks = iter(next_task, None)  # read as tasks start: a deadline's pace sees the chunks ended so far
        return list(backend.imap(_teacher_task, tasks, done=ended, in_flight=backend.cpus()))
    if workers <= 1 or games - first <= chunk:
        parts = []
        while (task := next_task()) is not None:
            began = clock()
            parts.append(teacher_chunk(*task))
            pace = max(pace, (clock() - began) / task[-1])
            done(task[-1])
        return parts
    results: dict[int, dict] = {}
    with concurrent.futures.ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn")) as pool:
        running, index = {}, 0
        try:
            while True:
                while len(running) < workers and (task := next_task()) is not None:
                    running[pool.submit(teacher_chunk, *task)] = (index, task[-1], clock())
                    index += 1
                if not running:
                    break
                finished, _ = concurrent.futures.wait(running, return_when=concurrent.futures.FIRST_COMPLETED)
                for future in finished:
                    i, count, began = running.pop(future)
                    results[i] = future.result()  # a failed chunk stops the play at once
                    pace = max(pace, (clock() - began) / count)
                    done(count)
        except BaseException:
            pool.shutdown(cancel_futures=True)
            raise
    return [results[i] for i in sorted(results)]


def _teacher_task(task: tuple) -> dict:
    """:func:`teacher_chunk` of a task's arguments (a Ray task)."""
    return teacher_chunk(*task)


def joined(parts: list[dict]) -> dict:
    """Chunks of decisions (:func:`teacher_decisions`) as one set, in order."""
    return {key: np.concatenate([part[key] for part in parts]) for key in DECISION_KEYS}


def save_decisions(path: Path, data: dict, meta: dict) -> None:
    """Write the teacher's decisions and ``meta`` (what made them, a JSON-able dict) to the npz file
    ``path``, atomically."""
    part = path.with_name(f".{path.name}.partial")
    try:
        with open(part, "wb") as f:
            np.savez_compressed(f, **data, meta=np.array(json.dumps(meta)))
        os.replace(part, path)
    except BaseException:
        part.unlink(missing_ok=True)
        raise


def load_decisions(path: Path, meta: dict, games: int | None, knob: str = "decisions") -> tuple[dict, dict]:
    """The decisions saved by :func:`save_decisions` at ``path`` in its first ``games`` games (``None``:
    all; 0: none, only the meta is read), and its stored meta, if every key of ``meta`` has the same
    value there and it holds that many games; else ``ValueError`` naming the file (as ``[warm_start]
    knob``) and what differs."""
    where = f"[warm_start] {knob} = {str(path)!r}"
    try:
        with np.load(path) as f:
            stored = {"player": "", **json.loads(str(f["meta"]))}  # files saved before players were: ""
            data = {}
            if games != 0:
                data = {key: f[key] for key in DECISION_KEYS if key not in TARGET_KEYS}
                # decisions saved before the teacher's policy was kept: their actions are the targets
                targets = {key: f[key] for key in TARGET_KEYS if key in f}
                data.update(targets or zip(TARGET_KEYS, played_policy(data["actions"])))
    except FileNotFoundError:
        raise ValueError(f"{where}: no such file") from None
    except IsADirectoryError:
        raise ValueError(f"{where}: a folder; give the warm_start.npz of a run") from None
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile) as err:
        raise ValueError(f"{where}: not the teacher's decisions written by aerodeck train ({err})") from None
    differ = [f"{key} (file {stored.get(key)!r}, this run {value!r})" for key, value in meta.items() if stored.get(key) != value]
    if games is not None and stored.get("games", 0) < games:
        differ.append(f"games (file {stored.get('games')!r}, this run needs {games})")
    if differ:
        raise ValueError(f"{where} was made for another run: " + "; ".join(differ))
    if not data or games is None:
        return data, stored
    rows = data["games"] < games
    return {key: value[rows] for key, value in data.items()}, stored


#: What the decisions of ``[warm_start] also`` must share with the run: the same game, table and discount.
SHARED_META = ("game", "rules", "layout", "gamma")


def check_more_decisions(paths, meta: dict, inputs) -> None:
    """``ValueError`` naming ``[warm_start] also`` and the file unless every saved file of ``paths`` shares
    the keys :data:`SHARED_META` of the run's ``meta`` and holds decisions ``inputs`` can read
    (:func:`same_inputs`). Only the files' meta is read: a check before any teacher game is played."""
    for path in paths:
        _, stored = load_decisions(Path(path), {key: meta[key] for key in SHARED_META}, 0, knob="also")
        same_inputs(stored.get("inputs", {}), inputs, f"[warm_start] also = {str(path)!r}")


def with_more_decisions(data: dict, paths, meta: dict, inputs, obs_size: int) -> dict:
    """``data`` (:func:`teacher_decisions`) with the decisions of the saved files ``paths`` added (``[warm_start]
    also``: any teacher, player or seed, the keys :data:`SHARED_META` of ``meta`` the same), their inputs
    as ``inputs`` reads them (:func:`reread_inputs`) and their games numbered after ``data``'s."""
    if not paths:
        return data
    parts = [data]
    for path in paths:
        more, stored = load_decisions(Path(path), {key: meta[key] for key in SHARED_META}, None, knob="also")
        more["inputs"] = reread_inputs(more, stored["inputs"], inputs, obs_size, f"[warm_start] also = {str(path)!r}")
        more["games"] = more["games"] + int(parts[-1]["games"].max()) + 1
        parts.append(more)
    width = max(part["target_actions"].shape[1] for part in parts)
    for part in parts:  # the targets of fewer candidates padded with the first, at probability 0
        pad = width - part["target_actions"].shape[1]
        part["target_actions"] = np.concatenate([part["target_actions"], np.repeat(part["target_actions"][:, :1], pad, 1)], 1)
        part["target_probs"] = np.pad(part["target_probs"], ((0, 0), (0, pad)))
    return joined(parts)


def same_inputs(stored: dict, inputs, where: str = "[warm_start] decisions") -> bool:
    """Whether decisions saved under the inputs ``stored`` (their ``to_dict()``) are read as ``inputs``
    reads them; ``ValueError`` naming ``where`` when they cannot be reread (a rule-general side: they are
    laid out in its family layout)."""
    from aerodeck.agents.ppo import Inputs

    if {**Inputs().to_dict(), **stored} == inputs.to_dict():
        return True
    if stored.get("variants") or inputs.variants is not None:
        raise ValueError(f"{where}: a rule-general teacher's decisions serve only a student that reads the same "
                         "inputs and variants (they are laid out in its family layout)")
    return False


def reread_inputs(data: dict, stored: dict, inputs, obs_size: int, where: str = "[warm_start] decisions") -> np.ndarray:
    """The saved decisions' policy inputs as ``inputs`` (``aerodeck.agents.ppo.Inputs``) reads them: unchanged if
    they were saved under the same inputs (``stored``: their ``to_dict()``), else computed anew from the
    observations they begin with and the saved masks (the teacher's games do not depend on what the
    student reads, so one teacher's games serve students of every kind); ``ValueError`` naming ``where``
    when they cannot be (:func:`same_inputs`)."""
    from aerodeck.agents.ppo import CHUNK

    if same_inputs(stored, inputs, where):
        return data["inputs"]
    return np.concatenate([inputs(data["inputs"][i:i + CHUNK, :obs_size], data["masks"][i:i + CHUNK])
                           for i in range(0, len(data["masks"]), CHUNK)])


def clone(model, data: dict, epochs: int, batch_size: int, learning_rate: float, seed: int, log=None,
          holdout: float = 0.1, fits: Callable[[float], bool] | None = None, now: Callable[[], float] | None = None
          ) -> list[tuple[float, float | None]]:
    """Behaviour cloning: fit the policy of ``model`` to the teacher's policy (masked cross-entropy with
    ``target_probs`` over ``target_actions``: its action, or a search's candidates weighed by value) and
    its value function to the teacher's returns (mean squared error, weighted by ``vf_coef``), ``epochs``
    passes over ``data`` (:func:`teacher_decisions`) less a held-out share ``holdout`` of its decisions.

    ``log(epoch, loss, accuracy, held_out)`` is called before the first pass (epoch 0: the untrained
    policy; loss and accuracy ``None``) and after each; ``held_out`` is ``None`` when too few decisions
    are held out to measure. With ``fits(seconds)`` and ``now()`` (a deadline and its clock) a batch
    starts only if it, and the held-out measurement after it, still fit: the last pass may be cut short.
    Returns (accuracy, held-out accuracy) after each pass: the share of the teacher's actions that are
    the policy's most likely."""
    import torch

    policy = model.policy
    optimizer = torch.optim.Adam(policy.parameters(), lr=learning_rate)
    rng = np.random.default_rng(seed)
    order = rng.permutation(len(data["actions"]))
    held = order[:int(len(order) * holdout)]
    train = order[len(held):]
    clock = now or (lambda: 0.0)

    def batches(rows):
        for part in np.array_split(rows, max(1, len(rows) // batch_size)):
            masks = torch.as_tensor(data["masks"][part])
            x = torch.as_tensor(data["inputs"][part], dtype=torch.float32)
            features = policy.extract_features(x, policy.pi_features_extractor)
            latent_pi, latent_vf = policy.mlp_extractor(features)
            logits = policy.action_net(latent_pi).masked_fill(~masks, -1e9)
            yield part, logits, policy.value_net(latent_vf).squeeze(-1), torch.as_tensor(data["actions"][part])

    def held_out_accuracy() -> float | None:
        if not len(held):
            return None
        with torch.no_grad():
            hits = sum(int((logits.argmax(1) == actions).sum()) for _, logits, _, actions in batches(held))
        return hits / len(held)

    began = clock()
    first = held_out_accuracy()
    held_seconds = clock() - began
    if log is not None:
        log(0, None, None, first)
    accuracies = []
    batch_seconds = 0.0
    for epoch in range(epochs):
        policy.set_training_mode(True)
        total, hits, seen = 0.0, 0, 0
        for part, logits, values, actions in batches(rng.permutation(train)):
            if fits is not None and not fits(batch_seconds + held_seconds):
                break
            began = clock()
            log_p = torch.log_softmax(logits, 1).gather(1, torch.as_tensor(data["target_actions"][part]))
            loss = -(torch.as_tensor(data["target_probs"][part]) * log_p).sum(1).mean() \
                + model.vf_coef * torch.nn.functional.mse_loss(values, torch.as_tensor(data["returns"][part]))
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(policy.parameters(), model.max_grad_norm)
            optimizer.step()
            total += loss.item() * len(part)
            hits += int((logits.argmax(1) == actions).sum())
            seen += len(part)
            batch_seconds = max(batch_seconds, clock() - began)
        policy.set_training_mode(False)
        if not seen:
            break
        accuracies.append((hits / seen, held_out_accuracy()))
        if log is not None:
            log(epoch + 1, total / seen, *accuracies[-1])
        if seen < len(train):
            break
    return accuracies


def held_out_text(value: float | None) -> str:
    """A held-out accuracy in words (``"none held out"`` when too few decisions were held out)."""
    return "none held out" if value is None or math.isnan(value) else f"{value:.3f}"
