"""The web app of ``aerodeck serve`` (Starlette): the page, its static files and a small JSON API.

API (every error is a 4xx whose JSON body is ``{"error": "<one line>"}``; a fault of the server a 500
with one line, its traceback only in the server's log)::

    GET  /api/info                       the games (title, players, agents, rule options) and the folders read
    POST /api/games                      a new game {game, rules: ["k=v", ...], players, seat, opponents,
                                         hint, seed} -> the page's data (aerodeck.serve.tables.Table.view)
    GET  /api/games/{id}                 the page's data
    POST /api/games/{id}/move            the person's move {action, reply}: with reply true, the next agent
                                         decision too (its page, holding the page after the move as "moved")
    POST /api/games/{id}/advance         the next agent decision
    POST /api/games/{id}/hint            the hint agent's move, why, its ratings
    GET  /api/games/{id}/replay          the game as a replay file (once it is over)
    GET  /api/runs                       the output folders and replay files under the folders read
    GET  /api/run?root=R&path=P          one output folder (report, plots, tables, rows and their replays)
    GET  /api/replay?root=R&path=P       a replay file's games
    GET  /api/replay/game?root=R&path=P&game=I   one game played out, decision by decision
    GET  /files/{root}/{path}            a file under a folder read (nothing else)

The agents' moves run in the server's thread pool (``run_in_threadpool``), one game's calls in turn
under that game's lock, so a slow agent in one tab never holds up another.
"""

from __future__ import annotations

import dataclasses
import logging
from pathlib import Path

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from aerodeck import envs
from aerodeck.agents.registry import describe_kinds
from aerodeck.serve import folders, watching
from aerodeck.serve.tables import BadRequest, NotFound, Tables, new_table

STATIC = Path(__file__).with_name("static")
log = logging.getLogger("aerodeck.serve")
#: The Host headers a server on a loopback address answers (a page of another site cannot reach it
#: through DNS rebinding).
LOCAL_HOSTS = ["127.0.0.1", "localhost", "[::1]"]


def _one_line(message: str) -> str:
    return " ".join(str(message).split()) or "bad request"


def error(status: int, message: str) -> JSONResponse:
    """An error response: ``{"error": message}`` on one line."""
    return JSONResponse({"error": _one_line(message)}, status_code=status)


def game_info() -> list[dict]:
    """What the new-game form offers for each game of the registry that has a web module."""
    out = []
    for spec in envs.specs():
        if spec.web is None or spec.text is None:
            continue
        cls = spec.rules_class()
        options = []
        for f in dataclasses.fields(cls):
            default = f.default
            shown = ",".join(map(str, default)) if isinstance(default, tuple) else default
            options.append({"name": f.name, "default": shown if not isinstance(default, bool) else ("on" if default else "off"),
                            "allowed": f.metadata["allowed"].describe(), "doc": f.metadata.get("doc", "")})
        out.append({"id": spec.id, "title": spec.title, "solo": spec.solo, "player_counts": list(spec.player_counts),
                    "default_players": spec.default_players, "opponent": spec.opponent, "agents": spec.agent_names(),
                    "agent_help": describe_kinds(spec.id), "options": options, "style": spec.web_module().STYLE})
    return out


def make_app(runs: list[Path] | tuple = (), games_dir: Path | None = None, hosts: list[str] | None = None,
             limit: int = 64) -> Starlette:
    """The app: reads the ``runs`` folders (and ``games_dir``, where the games played are saved as
    replay files; None: they are not saved); answers only the Host names ``hosts`` (None: any)."""
    roots = folders.Roots(list(runs), games_dir)
    tables = Tables(games_dir, limit)
    info = {"games": game_info(), "folders": [str(r) for r in roots.all]}

    async def body(request: Request) -> dict:
        # JSON only: a page of another site cannot send it without the browser asking first (CORS)
        if request.headers.get("content-type", "").split(";")[0].strip() != "application/json":
            raise BadRequest("send the request body as JSON (Content-Type: application/json)")
        try:
            data = await request.json()
        except ValueError:
            raise BadRequest("the request body must be a JSON object") from None
        if not isinstance(data, dict):
            raise BadRequest("the request body must be a JSON object")
        return data

    async def index(request: Request) -> Response:
        return FileResponse(STATIC / "index.html", headers={"Cache-Control": "no-cache"})

    async def api_info(request: Request) -> Response:
        return JSONResponse(info)

    async def create(request: Request) -> Response:
        data = await body(request)
        unknown = sorted(set(data) - {"game", "rules", "players", "seat", "opponents", "hint", "seed"})
        if unknown:
            raise BadRequest(f"unknown field(s) {', '.join(unknown)}; fields: game, rules, players, seat, opponents, "
                             f"hint, seed")
        if "game" not in data:
            raise BadRequest(f"name the game: one of {', '.join(g['id'] for g in info['games'])}")
        table = await run_in_threadpool(new_table, data["game"], data.get("rules", []), data.get("players"),
                                        data.get("seat"), data.get("opponents") or None, data.get("hint") or None,
                                        data.get("seed"), games_dir)
        tables.add(table)
        return JSONResponse(await run_in_threadpool(_locked_view, table))

    async def show(request: Request) -> Response:
        table = tables.get(request.path_params["id"])
        return JSONResponse(await run_in_threadpool(_locked_view, table))

    async def move(request: Request) -> Response:
        table = tables.get(request.path_params["id"])
        data = await body(request)
        if "action" not in data:
            raise BadRequest("a move needs its action number: {\"action\": N}")
        reply = data.get("reply", False)
        if not isinstance(reply, bool):
            raise BadRequest(f"reply must be true or false, got {reply!r}")
        return JSONResponse(await run_in_threadpool(table.move, data["action"], reply))

    async def advance(request: Request) -> Response:
        table = tables.get(request.path_params["id"])
        return JSONResponse(await run_in_threadpool(table.advance))

    async def hint(request: Request) -> Response:
        table = tables.get(request.path_params["id"])
        return JSONResponse(await run_in_threadpool(table.hint))

    async def replay_file(request: Request) -> Response:
        table = tables.get(request.path_params["id"])
        if table.saved is None:
            raise BadRequest("the game is not over: there is no replay yet")
        return FileResponse(table.saved, media_type="application/x-ndjson", filename=table.saved.name)

    async def api_runs(request: Request) -> Response:
        return JSONResponse(await run_in_threadpool(folders.listing, roots))

    async def api_run(request: Request) -> Response:
        q = request.query_params
        return JSONResponse(await run_in_threadpool(folders.run_info, roots, q.get("root"), q.get("path", "")))

    def _replay_path(request: Request) -> tuple[Path, str]:
        q = request.query_params
        path = roots.resolve(q.get("root"), q.get("path", ""))
        if not path.is_file():
            raise BadRequest(f"{q.get('path', '')!r} is a folder, not a replay file")
        return path, q.get("path", "")

    async def api_replay(request: Request) -> Response:
        path, name = _replay_path(request)
        return JSONResponse(await run_in_threadpool(watching.games, path, name))

    async def api_replay_game(request: Request) -> Response:
        path, name = _replay_path(request)
        return JSONResponse(await run_in_threadpool(watching.frames, path, name, request.query_params.get("game", 0)))

    async def files(request: Request) -> Response:
        path = roots.resolve(request.path_params["root"], request.path_params["path"])
        if not path.is_file():
            raise BadRequest(f"{request.path_params['path']!r} is a folder, not a file")
        return FileResponse(path)

    async def bad_request(request: Request, exc: Exception) -> Response:
        return error(400, str(exc))

    async def not_found(request: Request, exc: Exception) -> Response:
        return error(404, str(exc))

    async def http_error(request: Request, exc: HTTPException) -> Response:
        return error(exc.status_code, exc.detail if exc.status_code != 404 else f"no page {request.url.path}")

    async def fault(request: Request, exc: Exception) -> Response:
        log.exception("aerodeck serve: %s %s failed", request.method, request.url.path)
        return error(500, f"the server failed on this request ({type(exc).__name__}); see the server's log")

    routes = [
        Route("/", index),
        Route("/api/info", api_info),
        Route("/api/games", create, methods=["POST"]),
        Route("/api/games/{id}", show),
        Route("/api/games/{id}/move", move, methods=["POST"]),
        Route("/api/games/{id}/advance", advance, methods=["POST"]),
        Route("/api/games/{id}/hint", hint, methods=["POST"]),
        Route("/api/games/{id}/replay", replay_file),
        Route("/api/runs", api_runs),
        Route("/api/run", api_run),
        Route("/api/replay", api_replay),
        Route("/api/replay/game", api_replay_game),
        Route("/files/{root}/{path:path}", files),
        Mount("/static", app=StaticFiles(directory=STATIC), name="static"),
    ]
    middleware = [Middleware(TrustedHostMiddleware, allowed_hosts=hosts)] if hosts else []
    app = Starlette(routes=routes, middleware=middleware,
                    exception_handlers={BadRequest: bad_request, NotFound: not_found, HTTPException: http_error,
                                        Exception: fault})
    app.state.tables, app.state.roots = tables, roots
    return app


def _locked_view(table) -> dict:
    with table.lock:
        return table.view()
