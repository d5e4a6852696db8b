"""A one-file masked PPO in the manner of CleanRL's ``ppo.py``: read it top to bottom.

    python -m aerodeck.train.ppo_lite --task as-standard-v0 --seed 1 --total-steps 1000000 --out runs/lite
    tensorboard --logdir runs/lite

Every hyperparameter is a field of :class:`Args` (each one a ``--flag``). The env is the game's fastest
batched API: Airport Scramble's native vector env (``AirportScrambleVectorEnv``), Flight Tycoon's learner
view (``LearnerGames``: the learner in one seat, the task's opponents — agents from the registry — in the
others). Illegal actions get a logit of -1e8 (masked logits); advantages by GAE; the clipped PPO loss.
Every ``eval_every`` steps the greedy policy plays the task's evaluation deals; the result goes to
TensorBoard and ``eval.csv`` (steps, wall seconds, raw, normalized). The model is ``model.pt``: it plays
in ``aerodeck bench`` / ``compare`` as ``ppo-lite:path=OUT/model.pt`` (``aerodeck.agents.ppo_lite``).
A stopped run started again with the same ``--out`` continues from ``checkpoint.pt``.
"""

from __future__ import annotations

import argparse
import csv
import dataclasses
import json
import time
from pathlib import Path

import numpy as np
import torch
from torch import nn
from torch.utils.tensorboard import SummaryWriter

from aerodeck.agents import ppo_lite
from aerodeck.agents.registry import make_agent


@dataclasses.dataclass
class Args:
    task: str = "as-standard-v0"  # a task of aerodeck.bench.tasks (its game, rules, opponents, evaluation)
    seed: int = 1  # seeds torch, the training deals and the policy's sampling
    total_steps: int = 1_000_000  # env steps (the learner's decisions) to train for
    minutes: float = 0.0  # wall-clock budget as well (0 = none): the run stops at whichever comes first
    out: str = "runs/ppo-lite"  # folder of model.pt, checkpoint.pt, eval.csv, TensorBoard events
    num_envs: int = 256  # games stepped at once
    num_steps: int = 32  # steps per game per rollout (rollout = num_envs x num_steps)
    learning_rate: float = 3e-4  # Adam's step size
    anneal_lr: bool = True  # linearly to 0 over total_steps
    gamma: float = 0.99  # discount per decision
    gae_lambda: float = 0.95  # GAE's lambda
    minibatch_size: int = 2048  # samples per gradient step
    update_epochs: int = 2  # passes over a rollout
    clip_coef: float = 0.2  # PPO's ratio clipping
    ent_coef: float = 0.01  # entropy bonus
    vf_coef: float = 0.5  # value loss weight
    max_grad_norm: float = 0.5  # gradient clipping
    target_kl: float = 0.0  # stop an update's epochs above this approximate KL (0 = never)
    hidden: str = "256,256"  # hidden layer widths of the actor and of the critic (separate networks)
    sees_mask: bool = False  # the network also reads the legal mask as 0/1 inputs
    reward: str = ""  # Flight Tycoon: 'outcome' or 'vp' (FT-15), 'lead' (outcome + lead_scale x the change of
    # the learner's VP lead over the best other seat); '' = the task's
    lead_scale: float = 0.1  # reward 'lead': reward per VP of lead gained
    opponents: str = ""  # Flight Tycoon: agent specs 'A>B>C' met in turn over the curriculum ('' = the task's)
    curriculum: float = 0.5  # share of total_steps over which the opponents move from the first to the last
    eval_every: int = 100_000  # env steps between evaluations (one more at the start and at the end)
    eval_games: int = 0  # deals per evaluation (0 = the task's eval_games)
    threads: int = 1  # torch CPU threads


def parse_args(argv=None) -> Args:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    for f in dataclasses.fields(Args):
        flag = "--" + f.name.replace("_", "-")
        if f.type in ("bool", bool):
            parser.add_argument(flag, default=f.default, action=argparse.BooleanOptionalAction)
        else:
            parser.add_argument(flag, type={"int": int, "float": float}.get(str(f.type), str), default=f.default)
    return Args(**vars(parser.parse_args(argv)))


# --- the env: each game's batched API, stepped as (obs float32 (N, O), masks bool (N, A)) -> rewards, dones --


class Env:
    """``num_envs`` games of the task stepped at once (``task.make_vec_env``; Flight Tycoon with ``reward`` or
    ``opponents`` set: the same learner view under those rules and opponents). ``step`` returns ``(obs,
    masks, rewards float32 (N,), dones bool (N,), ended)``: ``ended`` lists, per finished game, ``(score,
    win_share)`` (Airport Scramble: tickets, win share ``None``; Flight Tycoon: the learner's VP, win share)."""

    def __init__(self, task, num_envs: int, seed: int, reward: str, opponents: str, curriculum_steps: int,
                 lead_scale: float = 0.1):
        self.solo, self.steps, self.curriculum_steps = task.spec.solo, 0, curriculum_steps
        self.lead_scale = lead_scale if reward == "lead" else 0.0
        if self.solo or not (reward or opponents):
            self.env = task.make_vec_env(num_envs, seed)
        else:  # the task's learner view under the trained reward, against an opponent curriculum
            from aerodeck.bench.tasks import training_seeds

            rules = dataclasses.replace(task.rules, reward="outcome" if reward == "lead" else reward) if reward else task.rules
            specs = opponents.split(">") if opponents else list(dict.fromkeys(task.opponents))
            self.pool = [make_agent(task.game, s, rules, seed=seed + 1 + i).act for i, s in enumerate(specs)]
            self.rng = np.random.default_rng(seed)
            self.env = task.spec.make_learner(num_envs, rules, opponents=self.pool,
                                              seed=int(training_seeds(seed, 1)[0]), assign=self.assign)
        first = self.env.reset()
        self.obs, self.masks = (first[0], self.env.action_masks()) if self.solo else first
        self.lead = None if self.solo else self._lead()

    def _lead(self, vp=None) -> np.ndarray:
        """``float64 (N,)``: the learner's VP minus the best other seat's (``vp``: by seat from the learner)."""
        if vp is None:
            g = self.env
            vp = np.take_along_axis(g.state.vp, (g.learner[:, None] + np.arange(g.rules.n_players)) % g.rules.n_players, 1)
        return vp[:, 0] - vp[:, 1:].max(1)

    def assign(self, count: int) -> np.ndarray:
        """The opponent of each new game: the curriculum moves linearly from the first spec to the last."""
        k = len(self.pool) - 1
        at = k * min(1.0, self.steps / self.curriculum_steps) if self.curriculum_steps and k else k
        low = int(min(at, k - 1)) if k else 0
        return np.where(self.rng.random(count) < at - low, low + 1, low).astype(np.int64)

    def step(self, actions: np.ndarray):
        self.steps += len(actions)
        if self.solo:
            obs, rewards, dones, _, infos = self.env.step(actions)
            self.obs, self.masks = obs, infos["action_mask"]
            ended = [(float(infos["final_info"]["score"][row]), None) for row in np.flatnonzero(dones)]
        else:
            self.obs, rewards, dones, infos = self.env.step(actions)
            self.masks = self.env.action_masks()
            if self.lead_scale:  # shaping: the change of the learner's lead (a finished game: up to its end)
                lead, now = self._lead(), self._lead()
                for row in np.flatnonzero(dones):
                    self.last_final_vp = infos[row]["vp"]
                    lead[row] = self._lead(infos[row]["vp"][None].astype(np.float64))[0]
                rewards = rewards + self.lead_scale * (lead - self.lead)
                self.lead = now
            ended = [(float(infos[row]["vp"][0]), infos[row]["win_share"]) for row in np.flatnonzero(dones)]
        return self.obs, self.masks, np.asarray(rewards, np.float32), np.asarray(dones, bool), ended


# --- evaluation: the task's protocol (held-out deals, greedy policy) -----------------------------------------


def evaluate(task, agent, games: int) -> dict:
    """``{"raw", "low", "high", "normalized"}`` of ``agent`` on the first ``games`` of the task's held-out deals
    (0: its ``eval_games``), played as ``Task.evaluate`` plays them (``aerodeck.bench.evaluate.play``); ``low``,
    ``high``: the raw score's 95 % interval; ``normalized`` NaN while the task has no reference scores."""
    from aerodeck.bench.evaluate import play
    from aerodeck.bench.tasks import mean_interval

    raw = mean_interval(play(task, task.rules, agent, task.eval_seeds(games or None)))
    try:
        normalized = task.normalize(raw.value)
    except ValueError:
        normalized = float("nan")
    return {"raw": raw.value, "low": raw.low, "high": raw.high, "normalized": normalized}


# --- training ------------------------------------------------------------------------------------------------


def train(args: Args) -> dict:
    from aerodeck.bench.tasks import task as get_task

    task = get_task(args.task)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    env = Env(task, args.num_envs, args.seed, args.reward, args.opponents, int(args.curriculum * args.total_steps),
              args.lead_scale)
    N, T = args.num_envs, args.num_steps
    O, A = env.obs.shape[1], env.masks.shape[1]
    hidden = tuple(int(w) for w in args.hidden.split(","))
    net = ppo_lite.ActorCritic(O, A, hidden, args.sees_mask)
    optimizer = torch.optim.Adam(net.parameters(), lr=args.learning_rate, eps=1e-5)

    # resume: the checkpoint's weights, optimizer, step count and wall time; evaluations after it are dropped
    step, wall, rows = 0, 0.0, []
    if (out / "checkpoint.pt").exists():
        ck = torch.load(out / "checkpoint.pt", weights_only=False)
        net.load_state_dict(ck["net"]), optimizer.load_state_dict(ck["optimizer"])
        step, wall, rows = ck["step"], ck["wall"], ck["rows"]
        env.steps = step
        print(f"resuming {out} at step {step:,}")
    writer = SummaryWriter(out / "tb")
    writer.add_text("args", json.dumps(dataclasses.asdict(args)))
    agent = ppo_lite.PPOLiteAgent.from_network(net, task.rules)

    def checkpoint_and_eval():
        net.eval()
        result = evaluate(task, agent, args.eval_games)
        net.train()
        rows.append({"steps": step, "wall_s": round(wall, 1), **{k: round(v, 5) for k, v in result.items()}})
        for k, v in result.items():
            writer.add_scalar(f"eval/{k}", v, step)
        print(f"step {step:>10,}  wall {wall:7.0f}s  eval raw {result['raw']:.4f}  normalized {result['normalized']:.3f}",
              flush=True)
        with open(out / "eval.csv", "w", newline="") as fh:
            w = csv.DictWriter(fh, fieldnames=list(rows[0]))
            w.writeheader(), w.writerows(rows)
        meta = {"task": args.task, "steps": step, "seed": args.seed, "args": dataclasses.asdict(args), "eval": rows[-1]}
        ppo_lite.save(out / "model.pt", net, task.game, task.rules, hidden, meta)
        torch.save({"net": net.state_dict(), "optimizer": optimizer.state_dict(), "step": step, "wall": wall,
                    "rows": rows}, out / "checkpoint.pt.tmp")
        (out / "checkpoint.pt.tmp").replace(out / "checkpoint.pt")

    if not rows:
        checkpoint_and_eval()
    obs_b = torch.zeros((T, N, O))
    mask_b = torch.zeros((T, N, A), dtype=torch.bool)
    act_b = torch.zeros((T, N), dtype=torch.long)
    logp_b, rew_b, done_b, val_b = (torch.zeros((T, N)) for _ in range(4))
    next_obs, next_mask = torch.as_tensor(env.obs), torch.as_tensor(env.masks)
    next_done = torch.zeros(N)
    env_time, session, next_eval = 0.0, time.time(), (step // args.eval_every + 1) * args.eval_every
    start = session - wall
    episodes: list[tuple] = []
    while step < args.total_steps and not (args.minutes and wall >= 60 * args.minutes):
        if args.anneal_lr:
            optimizer.param_groups[0]["lr"] = args.learning_rate * max(0.0, 1.0 - step / args.total_steps)
        for t in range(T):  # the rollout
            obs_b[t], mask_b[t], done_b[t] = next_obs, next_mask, next_done
            with torch.no_grad():
                logits = net.logits(next_obs, next_mask)
                val_b[t] = net.value(next_obs, next_mask)
            dist = torch.distributions.Categorical(logits=logits)
            action = dist.sample()
            act_b[t], logp_b[t] = action, dist.log_prob(action)
            tick = time.time()
            obs, masks, rewards, dones, ended = env.step(action.numpy())
            env_time += time.time() - tick
            rew_b[t] = torch.as_tensor(rewards)
            next_obs, next_mask = torch.as_tensor(obs), torch.as_tensor(masks)
            next_done = torch.as_tensor(dones, dtype=torch.float32)
            episodes += ended
        step += N * T

        with torch.no_grad():  # GAE: advantages and returns, bootstrapped from the value after the rollout
            next_value = net.value(next_obs, next_mask)
            adv = torch.zeros((T, N))
            last = torch.zeros(N)
            for t in reversed(range(T)):
                alive = 1.0 - (next_done if t == T - 1 else done_b[t + 1])
                following = next_value if t == T - 1 else val_b[t + 1]
                delta = rew_b[t] + args.gamma * following * alive - val_b[t]
                adv[t] = last = delta + args.gamma * args.gae_lambda * alive * last
            ret = adv + val_b

        b_obs, b_mask, b_act = obs_b.reshape(N * T, O), mask_b.reshape(N * T, A), act_b.reshape(-1)
        b_logp, b_adv, b_ret, b_val = logp_b.reshape(-1), adv.reshape(-1), ret.reshape(-1), val_b.reshape(-1)
        clipfracs, approx_kl = [], torch.tensor(0.0)
        for _ in range(args.update_epochs):  # the PPO update
            order = torch.randperm(N * T)
            for lo in range(0, N * T, args.minibatch_size):
                mb = order[lo:lo + args.minibatch_size]
                dist = torch.distributions.Categorical(logits=net.logits(b_obs[mb], b_mask[mb]))
                logratio = dist.log_prob(b_act[mb]) - b_logp[mb]
                ratio = logratio.exp()
                with torch.no_grad():
                    approx_kl = ((ratio - 1) - logratio).mean()
                    clipfracs.append(((ratio - 1.0).abs() > args.clip_coef).float().mean().item())
                mb_adv = (b_adv[mb] - b_adv[mb].mean()) / (b_adv[mb].std() + 1e-8)
                pg_loss = torch.max(-mb_adv * ratio,
                                    -mb_adv * torch.clamp(ratio, 1 - args.clip_coef, 1 + args.clip_coef)).mean()
                v_loss = 0.5 * ((net.value(b_obs[mb], b_mask[mb]) - b_ret[mb]) ** 2).mean()
                probs = dist.probs  # entropy over the legal actions only (illegal ones have probability 0)
                entropy = -(probs * torch.where(b_mask[mb], dist.logits, torch.zeros_like(probs))).sum(1).mean()
                loss = pg_loss - args.ent_coef * entropy + args.vf_coef * v_loss
                optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(net.parameters(), args.max_grad_norm)
                optimizer.step()
            if args.target_kl and approx_kl > args.target_kl:
                break

        wall = time.time() - start
        var_y = b_ret.var()
        writer.add_scalar("charts/learning_rate", optimizer.param_groups[0]["lr"], step)
        writer.add_scalar("losses/value_loss", v_loss.item(), step)
        writer.add_scalar("losses/policy_loss", pg_loss.item(), step)
        writer.add_scalar("losses/entropy", entropy.item(), step)
        writer.add_scalar("losses/approx_kl", approx_kl.item(), step)
        writer.add_scalar("losses/clipfrac", float(np.mean(clipfracs)), step)
        writer.add_scalar("losses/explained_variance",
                          float("nan") if var_y == 0 else (1 - (b_ret - b_val).var() / var_y).item(), step)
        writer.add_scalar("charts/SPS", step / max(wall, 1e-9), step)
        writer.add_scalar("charts/env_share", env_time / max(time.time() - session, 1e-9), step)
        if episodes:
            writer.add_scalar("charts/episodic_score", float(np.mean([e[0] for e in episodes])), step)
            if episodes[0][1] is not None:
                writer.add_scalar("charts/win_share", float(np.mean([e[1] for e in episodes])), step)
            episodes = []
        if step >= next_eval:  # the first rollout to reach each multiple of eval_every
            checkpoint_and_eval()
            next_eval = (step // args.eval_every + 1) * args.eval_every
    if rows[-1]["steps"] != step:
        checkpoint_and_eval()
    writer.close()
    summary = {"steps": step, "wall_s": wall, "env_share": env_time / max(time.time() - session, 1e-9), "eval": rows[-1]}
    (out / "summary.json").write_text(json.dumps(summary, indent=1))
    return summary


if __name__ == "__main__":
    print(json.dumps(train(parse_args()), indent=1))
