"""The folders ``aerodeck serve`` may read: the ``--runs`` folders (and the folder of the games played in
the browser), their output folders (bench, compare, sweep, tune, train) and the files under them.

A file is named by its root's number and its path relative to that root; :meth:`Roots.resolve` refuses
anything that leads outside the root (``..``, an absolute path, a symbolic link pointing out), so the
server never hands out a file that is not under a folder it was given.
"""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path
from urllib.parse import quote

from aerodeck.arena.output import MANIFEST
from aerodeck.serve.tables import BadRequest, NotFound

#: How deep below a root output folders and replay files are looked for.
DEPTH = 4
#: The most rows of a CSV file a page shows.
CSV_ROWS = 200
#: Suffix of a replay file.
REPLAY_SUFFIX = ".jsonl"


class Roots:
    """The folders the server may read, in order: ``folders`` (the ``--runs`` folders), then ``games``
    (where games played in the browser are saved; made when the first is saved)."""

    def __init__(self, folders: list[Path], games: Path | None) -> None:
        self.folders = [Path(f).resolve() for f in folders]
        self.games = Path(games).resolve() if games is not None else None
        self.all = self.folders + ([self.games] if self.games is not None and self.games not in self.folders else [])

    def index_of(self, path: Path) -> tuple[int, str]:
        """``(root, relative path)`` of a path under a root; ``NotFound`` if it is under none."""
        path = Path(path).resolve()
        for i, root in enumerate(self.all):
            if path == root or root in path.parents:
                return i, path.relative_to(root).as_posix()
        raise NotFound(f"{path} is not under a folder this server reads")

    def resolve(self, root, relative: str) -> Path:
        """The path ``relative`` under root number ``root``: ``BadRequest`` for a root that is not a
        number, a path that leads outside its root; ``NotFound`` for one that does not exist."""
        try:
            index = int(root)
        except (TypeError, ValueError):
            raise BadRequest(f"root must be a folder number 0..{len(self.all) - 1}, got {root!r}") from None
        if not 0 <= index < len(self.all):
            raise NotFound(f"no folder number {index}: this server reads {len(self.all)} folder(s), 0..{len(self.all) - 1}")
        base = self.all[index]
        relative = relative or ""
        if "\x00" in relative or relative.startswith(("/", "\\")) or Path(relative).is_absolute():
            raise BadRequest(f"path {relative!r} must be relative to its folder")
        parts = Path(relative.replace("\\", "/")).parts
        if ".." in parts:
            raise BadRequest(f"path {relative!r} leads outside the folders this server reads ('..' is refused)")
        path = (base / relative).resolve()
        if path != base and base not in path.parents:
            raise BadRequest(f"path {relative!r} leads outside the folders this server reads")
        if not path.exists():
            raise NotFound(f"{relative or '.'} does not exist in folder {index}")
        return path


def manifest(folder: Path) -> dict | None:
    """An output folder's manifest (``aerodeck-output.json``), or None if ``folder`` is not one."""
    try:
        data = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def kind_of(data: dict) -> str:
    """The tool that wrote an output folder (``compare``, ``bench``, ``train`` …), from its manifest."""
    words = str(data.get("command", "")).split()
    return words[1] if len(words) > 1 and words[0] == "aerodeck" else words[0] if words else "output"


def _walk(root: Path, depth: int = DEPTH):
    """Every folder under ``root`` to ``depth`` levels (hidden ones and symbolic links skipped), in order."""
    stack = [(root, 0)]
    while stack:
        folder, level = stack.pop()
        yield folder
        if level >= depth:
            continue
        try:
            children = sorted((p for p in folder.iterdir() if p.is_dir() and not p.is_symlink()
                               and not p.name.startswith(".")), reverse=True)
        except OSError:
            continue
        stack += [(c, level + 1) for c in children]


def listing(roots: Roots) -> dict:
    """What the server can show: per root, its output folders (kind, command, when written) and the
    replay files that are not inside an output folder's ``replays``."""
    out = []
    for i, root in enumerate(roots.all):
        runs, replays = [], []
        if root.is_dir():
            for folder in _walk(root):
                data = manifest(folder)
                if data is not None and folder != root:
                    runs.append({"root": i, "path": folder.relative_to(root).as_posix(), "kind": kind_of(data),
                                 "command": data.get("command", ""), "modified": folder.stat().st_mtime})
                for f in sorted(folder.glob("*" + REPLAY_SUFFIX)):
                    if f.is_file():
                        replays.append({"root": i, "path": f.relative_to(root).as_posix(), "modified": f.stat().st_mtime})
        runs.sort(key=lambda r: -r["modified"])
        replays.sort(key=lambda r: -r["modified"])
        out.append({"root": i, "folder": str(root), "games": root == roots.games, "runs": runs, "replays": replays})
    return {"roots": out}


def _csv_table(path: Path) -> dict:
    text = path.read_text(encoding="utf-8", errors="replace")
    rows = list(csv.reader(io.StringIO(text)))
    return {"name": path.name, "header": rows[0] if rows else [], "rows": rows[1:CSV_ROWS + 1],
            "total": max(len(rows) - 1, 0)}


def run_info(roots: Roots, root, relative: str) -> dict:
    """One output folder for its page: kind, command, its files, ``report.md`` (Markdown), the PNG
    plots, the CSV tables (the first rows), the replay files and — for a compare — the variant and
    table behind each replay file; for a training run the rows of ``evaluations.csv``."""
    folder = roots.resolve(root, relative)
    if not folder.is_dir():
        raise BadRequest(f"{relative} is a file, not an output folder")
    data = manifest(folder)
    if data is None:
        raise NotFound(f"{relative} is not an aerodeck output folder (it has no {MANIFEST})")
    index, rel = roots.index_of(folder)
    files = sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file() and not p.is_symlink())

    def ref(name: str) -> dict:
        return {"root": index, "path": f"{rel}/{name}" if rel else name}

    info = {"root": index, "path": rel, "kind": kind_of(data), "command": data.get("command", ""), "files": files,
            "plots": [ref(f) for f in files if f.endswith(".png")],
            "replays": [dict(ref(f), name=f) for f in files if f.endswith(REPLAY_SUFFIX)],
            "tables": [], "report": None, "rows": [], "summary": None, "evaluations": None}
    report = folder / "report.md"
    files_url = f"/files/{index}/{quote(rel)}/" if rel else f"/files/{index}/"
    if report.is_file():
        info["report"] = markdown_html(report.read_text(encoding="utf-8", errors="replace"), files_url)
    for name in files:
        if name.endswith(".csv") and "/" not in name and name != "evaluations.csv":
            info["tables"].append(_csv_table(folder / name))
    evaluations = folder / "evaluations.csv"
    if evaluations.is_file():
        info["evaluations"] = _csv_table(evaluations)
    results = folder / "results.json"
    if results.is_file():
        info.update(_compare_rows(results, files, ref))
        if info["summary"]:
            info["summary"] = markdown_html(info["summary"], files_url)
    return info


def _compare_rows(path: Path, files: list[str], ref) -> dict:
    """A compare's (sweep's, tune's) verdict summary and its rows: each variant under each table, with
    the replay file of its games where ``--save-games`` kept them (``replays/<variant>--<table>.jsonl``)."""
    try:
        results = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(results, dict):
        return {}
    variants = results.get("variants") if isinstance(results.get("variants"), dict) else {}
    tables = [t.get("name") for t in results.get("tables", []) if isinstance(t, dict)]
    rows = []
    for variant, options in variants.items():
        for table in tables:
            name = f"replays/{variant}--{table}{REPLAY_SUFFIX}"
            label = options.get("label", "") if isinstance(options, dict) else str(options)
            rows.append({"variant": variant, "table": table, "rules": label,
                         "replay": ref(name) if name in files else None})
    summary = None
    report = path.with_name("report.md")
    if report.is_file():  # the first section of report.md is the verdict summary
        text = report.read_text(encoding="utf-8", errors="replace")
        start = text.find("## Summary")
        if start >= 0:
            end = text.find("\n## ", start + 5)
            summary = text[start:end if end > 0 else len(text)]
    return {"rows": rows, "summary": summary, "title": results.get("title", ""), "base": results.get("base", "")}


def markdown_html(text: str, files_url: str) -> str:
    """Markdown (a report) as HTML: raw HTML in it is escaped, tables kept, and a relative image or
    link (a plot beside the report) points at ``files_url`` + its name."""
    from markdown_it import MarkdownIt

    html = MarkdownIt("commonmark", {"html": False}).enable("table").render(text)

    def local(match: re.Match) -> str:
        attr, target = match.group(1), match.group(2)
        if re.match(r"^[a-z][a-z0-9+.-]*:|^/|^#", target, re.IGNORECASE) or ".." in target.split("/"):
            return match.group(0)
        return f'{attr}="{files_url}{target}"'

    return re.sub(r'\b(src|href)="([^"]*)"', local, html)
