"""Where the tools write: output folders replaced as a whole, and single files replaced atomically.

An output folder (``--out``) belongs to one run. Everything is written into a temporary sibling
folder (``.<name>.*.partial``) and moved into place only once the run has finished, so an interrupted
or failed run leaves nothing behind and the folder never mixes two runs. The folder then holds a
manifest, ``aerodeck-output.json``, listing what the run wrote. Reusing ``--out``:

- a missing or empty folder is used;
- a folder holding an earlier aerodeck output (its manifest, and only the files it lists) is replaced
  as a whole: the old folder is moved aside, the new one moved in, the old one deleted;
- any other non-empty folder is refused, unless ``--force`` (then it is replaced as a whole too,
  its files deleted) — except the current folder or one above it, which is never replaced.

The paths are checked when the ``OutputFolder`` is made, before any game is played.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

#: The manifest an output folder holds: who wrote it and which files.
MANIFEST = "aerodeck-output.json"
WRITER = "aerodeck"


def _writable_ancestor(path: Path, what: str) -> None:
    """Refuse ``path`` unless its nearest existing ancestor is a writable folder (``ValueError``)."""
    existing = next(p for p in (path.parent, *path.parent.parents) if p.exists())
    if not existing.is_dir():
        raise ValueError(f"{what} {str(path)!r}: {str(existing)!r} is not a folder")
    if not os.access(existing, os.W_OK | os.X_OK):
        raise ValueError(f"{what} {str(path)!r}: {str(existing)!r} is not writable")


def _manifest_files(folder: Path) -> list[str] | None:
    """The files an aerodeck manifest in ``folder`` lists, or ``None`` if there is no valid one."""
    try:
        data = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("written_by") != WRITER or not isinstance(data.get("files"), list):
        return None
    return [str(f) for f in data["files"]]


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


@contextlib.contextmanager
def _no_interrupt() -> Iterator[None]:
    """Hold Ctrl-C (SIGINT) and SIGTERM back while the block runs (main thread only); they are raised right
    after."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT, signal.SIGTERM})


class OutputFolder:
    """The output folder of one run (see the module docstring); checks ``path`` on construction."""

    def __init__(self, path: str | Path, *, force: bool = False, command: str = "") -> None:
        self.path = Path(path)
        self.force = force
        self.command = command
        #: The names of the files (and folders) this run wrote, once :meth:`writing` has finished.
        self.files: list[str] = []
        self.check()

    def check(self) -> None:
        """Refuse (``ValueError``) a path that cannot be written or that holds files aerodeck did not write."""
        path = self.path
        _writable_ancestor(path, "output folder")
        if not path.exists():
            return
        if not path.is_dir():
            raise ValueError(f"output folder {str(path)!r} is a file")
        entries = sorted(os.listdir(path))
        if not entries:
            return
        if Path.cwd().resolve().is_relative_to(path.resolve()):
            raise ValueError(f"output folder {str(path)!r} holds the current folder; choose a folder of its own")
        listed = _manifest_files(path)
        foreign = [e for e in entries if listed is None or (e not in listed and e != MANIFEST)]
        if foreign and not self.force:
            shown = ", ".join(foreign[:5]) + (", ..." if len(foreign) > 5 else "")
            raise ValueError(f"output folder {str(path)!r} holds files that aerodeck did not write ({shown}); "
                             "choose a new or empty folder, or pass --force to replace the folder and all it holds")

    @contextlib.contextmanager
    def writing(self) -> Iterator[Path]:
        """A new empty temporary folder beside ``path`` to write into. When the block ends normally,
        the manifest is added and the folder replaces ``path`` as a whole; when it raises (an error,
        Ctrl-C), the temporary folder and any parent folders made for it are removed."""
        with self.staged() as staging:
            yield staging.path

    @contextlib.contextmanager
    def staged(self) -> Iterator[Staging]:
        """As :meth:`writing`, for a long run that publishes its folder itself once it holds something
        worth keeping (a training run's first checkpoint): the block gets a :class:`Staging` whose
        ``path`` is the temporary folder until :meth:`Staging.publish` moves it into place, and the
        folder itself after. Published when the block ends normally (if not yet); when it raises before
        publishing, everything is removed as by :meth:`writing`; after publishing, the folder stays
        (its manifest then lists every file it holds)."""
        self.check()
        missing = [p for p in (self.path.parent, *self.path.parent.parents) if not p.exists()]
        tmp = staging = None
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            tmp = Path(tempfile.mkdtemp(prefix=f".{self.path.name}.", suffix=".partial", dir=self.path.parent))
            tmp.chmod(0o777 & ~_umask())  # mkdtemp's folder is private; the output is not
            staging = Staging(self, tmp)
            yield staging
            staging.publish()
        except BaseException:
            if staging is None or not staging.published:
                if tmp is not None:  # a Ctrl-C may come before staging is made
                    shutil.rmtree(tmp, ignore_errors=True)
                for folder in missing:  # nearest first; only the ones this run made, and only if still empty
                    with contextlib.suppress(OSError):
                        folder.rmdir()
            raise
        finally:
            if staging is not None and staging.published:
                staging.write_manifest(self.path)
                self.files = staging.files

    def _replace(self, tmp: Path) -> None:
        if not self.path.exists():
            os.rename(tmp, self.path)
            return
        old = Path(tempfile.mkdtemp(prefix=f".{self.path.name}.", suffix=".old", dir=self.path.parent))
        os.rename(self.path, old / "previous")
        try:
            os.rename(tmp, self.path)
        except BaseException:
            os.rename(old / "previous", self.path)
            raise
        shutil.rmtree(old, ignore_errors=True)


class Staging:
    """A run's folder while it is written (:meth:`OutputFolder.staged`): ``path`` is where to write."""

    def __init__(self, output: OutputFolder, tmp: Path) -> None:
        self.output, self.path, self.published = output, tmp, False
        #: The names of the files (and folders) the run wrote, once published.
        self.files: list[str] = []

    def write_manifest(self, folder: Path) -> None:
        """List what ``folder`` holds in its manifest."""
        self.files = sorted(f for f in os.listdir(folder) if f != MANIFEST)
        text = json.dumps({"written_by": WRITER, "command": self.output.command, "files": self.files}, indent=2) + "\n"
        write_file(folder / MANIFEST, text)

    def publish(self) -> None:
        """Move the temporary folder into place (replacing ``path`` as a whole); ``path`` is the output
        folder from now on. Nothing if already published."""
        if self.published:
            return
        self.write_manifest(self.path)
        with _no_interrupt():
            self.output._replace(self.path)
            self.path, self.published = self.output.path, True


def check_file(path: str | Path, what: str) -> Path:
    """``path`` if a file can be written there; ``ValueError`` naming the flag ``what`` and the path when
    it is a folder, or its folder is missing (a file's folder is never made), not a folder, or not writable."""
    path = Path(path)
    if path.is_dir():
        raise ValueError(f"{what} {str(path)!r} is a folder, not a file")
    folder = path.parent
    if not folder.exists():
        raise ValueError(f"{what} {str(path)!r}: the folder {str(folder)!r} does not exist (make it first)")
    _writable_ancestor(path, what)
    return path


@contextlib.contextmanager
def replacing(path: Path) -> Iterator[Path]:
    """A temporary file path beside ``path`` (``.<name>.*.partial``) to write into; when the block ends
    normally it is renamed to ``path`` (atomically), when it raises it is removed — so ``path`` is
    either the whole new file or untouched. ``path``'s folder must exist."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".partial", dir=path.parent)
    os.close(fd)
    try:
        yield Path(tmp)
        os.chmod(tmp, 0o666 & ~_umask())  # mkstemp's file is private; the output is not
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def write_file(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` atomically (:func:`replacing`); parents made."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with replacing(path) as tmp:
        tmp.write_text(text, encoding="utf-8")
