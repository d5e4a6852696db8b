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

The paths are checked when the ``OutputFolder`` is made, before any game is played: a folder that
cannot be written (its parent, or the folder itself, which is moved aside as a whole) is refused then.
While a run writes, it holds a lock (``.<name>.lock`` beside the folder, removed at its end), so a
second run into the same folder is refused at once instead of one silently replacing the other; the
run holding the lock removes (and names) the ``.<name>.*.partial`` and ``.<name>.*.old`` folders that an
earlier run killed before its end (``kill -9``, a power cut) left beside the folder. An OS error while
writing or moving the output names the operation and the file (:class:`OutputError`).
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import re
import shutil
import signal
import sys
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

#: The manifest an output folder holds: who wrote it and which files.
MANIFEST = "aerodeck-output.json"
WRITER = "aerodeck"


class OutputError(OSError):
    """An OS error while writing output, saying what was being done to which file (``str`` is that
    sentence; ``errno`` and ``strerror`` are the OS's)."""

    def __str__(self) -> str:
        return str(self.args[1]) if len(self.args) > 1 else super().__str__()


def output_error(err: OSError, doing: str, note: str = "") -> OutputError:
    """``err`` as an :class:`OutputError`: ``"could not <doing>: <the OS's reason><note>"``."""
    reason = err.strerror or str(err) or type(err).__name__
    return OutputError(err.errno, f"could not {doing}: {reason}{note}")


@contextlib.contextmanager
def naming(doing: str) -> Iterator[None]:
    """Re-raise an ``OSError`` of the block (one that is not already an :class:`OutputError`) as an
    :class:`OutputError` saying ``doing`` (e.g. ``"write out/bench/games.csv"``)."""
    try:
        yield
    except OutputError:
        raise
    except OSError as err:
        raise output_error(err, doing) from err


def lock_path(path: Path) -> Path:
    """The lock file of the output folder ``path``: ``.<name>.lock`` beside it."""
    return path.parent / f".{path.name}.lock"


def stale_folders(path: Path) -> list[Path]:
    """The temporary folders of earlier runs into ``path`` beside it (``.<name>.XXXXXXXX.partial`` and
    ``.old``, as :meth:`OutputFolder.staged` names them), oldest name first."""
    if not path.parent.is_dir():
        return []
    pattern = re.compile(rf"\.{re.escape(path.name)}\.[a-z0-9_]{{8}}\.(partial|old)")
    return sorted(p for p in path.parent.iterdir() if pattern.fullmatch(p.name) and p.is_dir() and not p.is_symlink())


#: The locks this process holds, released (their files removed) when it exits however it ends but kill -9.
_HELD: set[_Lock] = set()


@atexit.register
def _release_held() -> None:
    for lock in list(_HELD):
        lock.release()


class _Lock:
    """An exclusive, non-blocking ``flock`` on the lock file of an output folder (see the module docstring)."""

    def __init__(self, folder: Path) -> None:
        self.folder, self.path, self.fd = folder, lock_path(folder), None

    def acquire(self) -> None:
        """Hold the lock (nothing if held already); ``ValueError`` naming the folder and the other run's
        process when another run holds it."""
        if self.fd is not None:
            return
        import fcntl

        while True:
            with naming(f"make the lock file {self.path}"):
                fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o666 & ~_umask())
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                holder = os.read(fd, 32).decode(errors="replace").strip()
                os.close(fd)
                raise ValueError(f"output folder {str(self.folder)!r} is being written by another aerodeck run"
                                 + (f" (process {holder})" if holder else "") + "; wait for it to end, or choose "
                                 "another --out") from None
            try:  # the run that held it may have removed the file after we opened it: then take the new one
                same = os.stat(self.path).st_ino == os.fstat(fd).st_ino
            except FileNotFoundError:
                same = False
            if same:
                break
            os.close(fd)
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        self.fd = fd
        _HELD.add(self)

    def release(self) -> None:
        """Remove the lock file and let the lock go (nothing if not held)."""
        if self.fd is None:
            return
        with contextlib.suppress(OSError):
            os.unlink(self.path)
        os.close(self.fd)
        self.fd = None
        _HELD.discard(self)


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
        self.lock = _Lock(self.path)
        self.check()

    def release(self) -> None:
        """Let the folder's lock go (a checked folder that will not be written now); :meth:`writing` and
        :meth:`staged` take it again."""
        self.lock.release()

    def __del__(self) -> None:
        lock = getattr(self, "lock", None)
        if lock is not None:
            lock.release()

    def check(self) -> None:
        """Refuse (``ValueError``) a path that cannot be written, that another run is writing (its lock is
        then held by this object until :meth:`writing` ends or :meth:`release`), or that holds files
        aerodeck did not write."""
        path = self.path
        _writable_ancestor(path, "output folder")
        if path.exists() and not path.is_dir():
            raise ValueError(f"output folder {str(path)!r} is a file")
        if path.parent.is_dir():
            self.lock.acquire()
        try:
            self._check_contents()
        except ValueError:
            self.lock.release()
            raise

    def _check_contents(self) -> None:
        path = self.path
        if not path.exists():
            return
        if not os.access(path, os.W_OK | os.X_OK):  # it is moved aside as a whole: that needs write permission on it
            raise ValueError(f"output folder {str(path)!r} is not writable, and a run replaces it as a whole; "
                             "make it writable (chmod u+w) or choose another --out")
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
            with naming(f"make the folder {self.path.parent}"):
                self.path.parent.mkdir(parents=True, exist_ok=True)
            self.lock.acquire()
            self.remove_stale()
            with naming(f"make a temporary folder beside {self.path}"):
                tmp = Path(tempfile.mkdtemp(prefix=f".{self.path.name}.", suffix=".partial", dir=self.path.parent))
            tmp.chmod(0o777 & ~_umask())  # mkdtemp's folder is private; the output is not
            staging = Staging(self, tmp)
            yield staging
            staging.publish()
        except BaseException:
            kept = staging is not None and staging.kept
            if (staging is None or not staging.published) and not kept:
                if tmp is not None:  # a Ctrl-C may come before staging is made
                    shutil.rmtree(tmp, ignore_errors=True)
                self.lock.release()
                for folder in missing:  # nearest first; only the ones this run made, and only if still empty
                    with contextlib.suppress(OSError):
                        folder.rmdir()
            raise
        finally:
            try:
                if staging is not None and staging.published:
                    staging.write_manifest(self.path)
                    self.files = staging.files
            finally:
                self.lock.release()

    def remove_stale(self) -> None:
        """Remove the temporary folders that earlier runs into this folder left when killed (the lock is
        held: no run is writing them), naming them on stderr."""
        stale = stale_folders(self.path)
        for folder in stale:
            shutil.rmtree(folder, ignore_errors=True)
        if stale:
            print(f"aerodeck: removed {', '.join(p.name for p in stale)} beside {self.path}: left by an earlier run "
                  "into it that did not finish", file=sys.stderr)

    def _replace(self, tmp: Path) -> None:
        """Move ``tmp`` into place (the earlier folder moved aside, then deleted); an ``OSError`` becomes an
        :class:`OutputError` naming the move and where this run's files are kept (``tmp``, left as it is)."""
        kept = f"; this run's files are kept in {tmp}"
        if not self.path.exists():
            with naming(f"move {tmp} to {self.path}{kept}"):
                os.rename(tmp, self.path)
            return
        with naming(f"make a folder beside {self.path} to move the earlier output into{kept}"):
            old = Path(tempfile.mkdtemp(prefix=f".{self.path.name}.", suffix=".old", dir=self.path.parent))
        try:
            os.rename(self.path, old / "previous")
        except OSError as err:
            shutil.rmtree(old, ignore_errors=True)
            raise output_error(err, f"move the earlier output {self.path} aside (to {old / 'previous'})", kept) from err
        try:
            os.rename(tmp, self.path)
        except BaseException as err:
            os.rename(old / "previous", self.path)
            shutil.rmtree(old, ignore_errors=True)
            if isinstance(err, OSError):
                raise output_error(err, f"move {tmp} to {self.path}", kept) from err
            raise
        shutil.rmtree(old, ignore_errors=True)


class Staging:
    """A run's folder while it is written (:meth:`OutputFolder.staged`): ``path`` is where to write."""

    def __init__(self, output: OutputFolder, tmp: Path) -> None:
        self.output, self.path, self.published = output, tmp, False
        #: True when moving the folder into place failed: its files stay in ``path`` (the error says where).
        self.kept = False
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
            try:
                self.output._replace(self.path)
            except OSError:
                self.kept = True
                raise
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
    """Write ``text`` to ``path`` atomically (:func:`replacing`); parents made. An OS error is an
    :class:`OutputError` naming ``path``."""
    with naming(f"write {path}"):
        path.parent.mkdir(parents=True, exist_ok=True)
        with replacing(path) as tmp:
            tmp.write_text(text, encoding="utf-8")
