"""The game contract, shipped: :func:`check_game` checks a game's whole :class:`~aerodeck.envs.GameSpec`.

In the spirit of PettingZoo's ``api_test`` and OpenSpiel's / Pgx's API tests, for an author who has
no checkout of aerodeck::

    from aerodeck.testing import check_game
    check_game("altimeter")          # a registered game's id, or a GameSpec object

It runs every check of :data:`CHECKS` and raises :class:`ContractError` (an ``AssertionError``)
naming the game, the GameSpec field to fix, the check and what went wrong. The checks:

- under each of ``spec.variants`` (the rule sets the game asks to be played): the ``Core`` protocol
  of ``aerodeck.envs.common.core`` (shapes and dtypes, determinism, batch invariance, finished games,
  masks, observation bounds, batch operations, save/restore, bad seeds and actions, illegal actions
  named with their reason, action kinds and descriptions), the ``View``, and the single-game env
  (agreeing with the core move by move, copies, bad seeds and actions);
- under the default rules: the spec's own consistency, the rule-general config, the docs page (every
  rule id defined), Gymnasium's ``check_env`` or PettingZoo's ``api_test``, the Gymnasium
  registration, the stable-baselines3 ``VecEnv``, rendering, the game in words, the metric recorder,
  the end-of-game summary, and every agent of the ladder (and the opponent) making legal moves.

A check that needs an optional package which is not installed (stable-baselines3, sb3-contrib,
torch for ``ppo``) is skipped with a note saying which; a check of a part the game does not declare
(``text=None``, ``metrics=None`` …) does not apply. :func:`cases` lists the single cases (one check
under one variant, or for one agent) and :func:`run_check` runs one of them, so a test suite can
give each its own test (aerodeck's ``tests/test_contract.py`` does).

The checks live in ``core_checks`` (the core and the view), ``env_checks`` (the single-game env) and
``spec_checks`` (the rest of the spec); ``contract`` holds the error, the registry of checks and the
random-play helpers they share.
"""

from __future__ import annotations

from collections.abc import Iterable

from aerodeck.envs.registry import GameSpec
from aerodeck.testing import core_checks, env_checks, house_checks, spec_checks  # noqa: F401 - each registers its checks
from aerodeck.testing.contract import CHECKS, Blamed, Case, Check, ContractError, SkipCheck, blame, detail_of, spec_of
from aerodeck.testing.spec_checks import defined_ids, rules_page

__all__ = ["CHECKS", "Case", "Check", "ContractError", "SkipCheck", "cases", "check_game", "defined_ids", "rules_page",
           "run_check"]


def cases(game: str | GameSpec, only: Iterable[str] | None = None) -> list[Case]:
    """The single cases of the contract for ``game`` (a game id or a GameSpec), in running order;
    ``only``: the names of the checks to include (default every check of :data:`CHECKS` that
    applies to the game). ``ValueError`` for a name that is not a check."""
    spec = spec_of(game)
    names = list(CHECKS) if only is None else list(only)
    unknown = [n for n in names if n not in CHECKS]
    if unknown:
        raise ValueError(f"unknown checks {unknown}; the checks: {', '.join(CHECKS)}")
    out = []
    for name in names:
        check = CHECKS[name]
        if not check.applies(spec):
            continue
        if check.over == "variant":
            out += [Case(name, f"v{i}", dict(options)) for i, options in enumerate(spec.variants)]
        elif check.over == "agent":
            out += [Case(name, agent, agent) for agent in dict.fromkeys([*spec.ladder_agents(), spec.opponent])]
        else:
            out.append(Case(name, ""))
    return out


def _run(spec: GameSpec, case: Case) -> None:
    """Run one case; ``ContractError`` on a failure, ``SkipCheck`` if it cannot run here."""
    check = CHECKS[case.check]
    try:
        with blame(check.field):
            if check.over == "variant":
                with blame("variants"):
                    rules = spec.make_rules(**case.param)
                with blame("core"):
                    core = spec.make_core(rules)
                check.run(spec, core)
            elif check.over == "agent":
                check.run(spec, case.param)
            else:
                check.run(spec)
    except Blamed as blamed:
        label = case.label
        if check.over == "variant":
            label = f"variant {case.label} {case.param or '(the default rules)'}"
        elif check.over == "agent":
            label = f"agent {case.label!r}"
        raise ContractError(spec.id, blamed.field, case.check, label, detail_of(blamed.error)) from blamed.error


def run_check(game: str | GameSpec, check: str, label: str | None = None) -> None:
    """Run the check named ``check`` on ``game`` (a game id or a GameSpec): the case ``label`` (a
    variant ``"v1"``, an agent spec, see :func:`cases`) or every case of the check. Raises
    :class:`ContractError` naming the field on a failure, :class:`SkipCheck` if the check cannot
    run here, ``ValueError`` for an unknown check or label."""
    spec = spec_of(game)
    if check not in CHECKS:
        raise ValueError(f"unknown check {check!r}; the checks: {', '.join(CHECKS)}")
    chosen = [c for c in cases(spec, [check]) if label is None or c.label == label]
    if not chosen:
        known = [c.label for c in cases(spec, [check])]
        raise ValueError(f"check {check!r} has no case {label!r} for {spec.id}"
                         + (f"; its cases: {', '.join(known)}" if known else " (it does not apply to the game)"))
    for case in chosen:
        _run(spec, case)


def check_game(game: str | GameSpec, only: Iterable[str] | None = None) -> list[tuple[Case, str]]:
    """Check ``game`` (a game id or a :class:`GameSpec`) against the whole contract, or only the checks
    named in ``only`` (keys of :data:`CHECKS`). Runs every case; raises :class:`ContractError`
    naming the field, the check and the case of each failure if any failed. Returns each case run
    with ``"passed"`` or ``"skipped: <why>"``.

    A GameSpec passed as an object is checked as it is; the Gymnasium-id check looks the id up in
    Gymnasium's registry (``import aerodeck`` registers the ids of the registered games)."""
    spec = spec_of(game)
    results, failures = [], []
    for case in cases(spec, only):
        try:
            _run(spec, case)
        except SkipCheck as why:
            results.append((case, f"skipped: {why}"))
        except ContractError as err:
            failures.append(err)
        else:
            results.append((case, "passed"))
    if failures:
        first = failures[0]
        raise ContractError(spec.id, first.field, first.check, first.case, first.detail, failures)
    return results
