"""Atomic outputs: a kernel's ``.s``, ``.hsaco`` and ``.json`` published together or not at all,
and a different kernel never silently replacing another.

``publish(directory, files)``:
1. checks the folder (an existing file there, or one that cannot be created / written, is an
   ``OutputError`` naming the path and the reason);
2. refuses to replace a kernel of the same name whose contract describes a different kernel
   (another kind, config, schedule or arch: the names carry all of these, so this only happens
   when files were renamed or edited); the same kernel rebuilt (e.g. by a newer asmgen) is
   replaced;
3. writes every file to a temporary name in the same folder (``.<name>.tmp-XXXX``, fsynced),
   then renames them into place, the ``.json`` contract last: a reader that finds the contract
   finds its code object. A failure before the renames leaves none of the new files; a failure
   between renames is undone (the files already renamed are restored from their previous
   versions, or removed).

``write_text_atomic`` / ``write_bytes_atomic`` do the same for one file (profile traces, SVGs).
"""
from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Mapping
from pathlib import Path

from .errors import ConfigError

# which contract fields make two kernels of one name different kernels
IDENTITY_KEYS = ("kernel", "arch", "config", "schedule", "schedule_params")


class OutputError(ConfigError):
    """An output path that cannot be used (a file where a folder is needed, no permission, a
    different kernel already there); names the path and the reason."""


def _hook(stage: str) -> None:
    """Test seam: ``_FAIL_AT`` names a stage (``"write:<file>"`` or ``"rename:<file>"``) at which
    to raise, to prove that an interrupted publish leaves all files or none."""
    if _FAIL_AT is not None and stage == _FAIL_AT:
        raise OSError(f"injected failure at {stage}")


_FAIL_AT: str | None = None


def prepare_dir(directory: str | Path, what: str = "-o") -> Path:
    """The output folder, created if needed; ``OutputError`` when it cannot be."""
    d = Path(directory)
    if d.exists() and not d.is_dir():
        raise OutputError(f"{what} {str(d)!r} is a file, not a folder")
    try:
        d.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise OutputError(f"{what} {str(d)!r}: cannot create the folder ({exc.strerror or exc})") from None
    if not os.access(d, os.W_OK | os.X_OK):
        raise OutputError(f"{what} {str(d)!r}: the folder is not writable")
    return d


def _identity(meta_bytes: bytes) -> dict | None:
    try:
        meta = json.loads(meta_bytes)
    except (ValueError, UnicodeDecodeError):
        return None
    if not isinstance(meta, dict):
        return None
    return {k: meta.get(k) for k in IDENTITY_KEYS}


def _check_replace(path: Path, new: bytes) -> None:
    """A ``.json`` contract already at ``path`` must describe the same kernel as ``new``."""
    try:
        old = path.read_bytes()
    except FileNotFoundError:
        return
    except OSError as exc:
        raise OutputError(f"{path}: cannot read the existing file ({exc.strerror or exc})") from None
    if old == new:
        return
    a, b = _identity(old), _identity(new)
    if a is None or a != b:
        diff = ("it is not a kernel contract" if a is None else
                "they differ in " + ", ".join(k for k in IDENTITY_KEYS if a.get(k) != b.get(k)))
        raise OutputError(f"{path} already holds a different kernel of the same name ({diff}); "
                          "remove it or write to another folder")


def publish(directory: str | Path, files: Mapping[str, bytes | str], what: str = "-o") -> list[Path]:
    """Write ``files`` (name -> content) into ``directory`` atomically, together (module doc).
    The ``.json`` files are renamed last. Returns the final paths in ``files`` order."""
    d = prepare_dir(directory, what)
    data = {n: (c.encode() if isinstance(c, str) else bytes(c)) for n, c in files.items()}
    for name, content in data.items():
        if name.endswith(".json"):
            _check_replace(d / name, content)
    order = sorted(data, key=lambda n: n.endswith(".json"))      # contracts last
    temps: dict[str, str] = {}
    try:
        for name in order:
            fd, tmp = tempfile.mkstemp(prefix=f".{name}.tmp-", dir=d)
            temps[name] = tmp
            with os.fdopen(fd, "wb") as f:
                _hook(f"write:{name}")
                f.write(data[name])
                f.flush()
                os.fsync(f.fileno())
    except BaseException as exc:
        for tmp in temps.values():
            _unlink(tmp)
        if isinstance(exc, OSError):
            raise OutputError(f"{what} {str(d)!r}: cannot write {name} ({exc.strerror or exc})") from None
        raise
    # keep the previous versions until every rename is done, to undo a partial publish
    backups: dict[str, str | None] = {}
    done: list[str] = []
    try:
        for name in order:
            final = d / name
            if final.exists():
                bfd, bak = tempfile.mkstemp(prefix=f".{name}.bak-", dir=d)
                os.close(bfd)
                os.replace(final, bak)
                backups[name] = bak
            else:
                backups[name] = None
            _hook(f"rename:{name}")
            os.replace(temps.pop(name), final)
            done.append(name)
    except BaseException as exc:
        for name in done:
            _unlink(d / name)
        for name, bak in backups.items():
            if bak is not None:
                os.replace(bak, d / name)
        for tmp in temps.values():
            _unlink(tmp)
        if isinstance(exc, OSError):
            raise OutputError(f"{what} {str(d)!r}: publishing the kernel failed ({exc.strerror or exc}); "
                              "no file was changed") from None
        raise
    for bak in backups.values():
        if bak is not None:
            _unlink(bak)
    return [d / n for n in data]


def _file_in_folder(path: str | Path, what: str) -> tuple[Path, Path]:
    """(the path, its folder) of an output file; ``OutputError`` when the path is a folder or its
    folder does not exist."""
    p = Path(path)
    if p.is_dir():
        raise OutputError(f"{what} {str(p)!r} is a folder, not a file")
    parent = p.parent if str(p.parent) else Path(".")
    if not parent.is_dir():
        raise OutputError(f"{what} {str(p)!r}: the folder {str(parent)!r} does not exist")
    return p, parent


def write_bytes_atomic(path: str | Path, content: bytes | str, what: str) -> Path:
    """One file written to a temporary name beside it and renamed; ``OutputError`` on failure."""
    p, parent = _file_in_folder(path, what)
    data = content.encode() if isinstance(content, str) else bytes(content)
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{p.name}.tmp-", dir=parent)
    except OSError as exc:
        raise OutputError(f"{what} {str(p)!r}: cannot write there ({exc.strerror or exc})") from None
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, p)
    except OSError as exc:
        _unlink(tmp)
        raise OutputError(f"{what} {str(p)!r}: cannot write it ({exc.strerror or exc})") from None
    return p


def check_writable(path: str | Path, what: str) -> None:
    """Validate an output file path before any work (its folder exists and is writable, the path
    is not a folder)."""
    p, parent = _file_in_folder(path, what)
    if not os.access(parent, os.W_OK | os.X_OK):
        raise OutputError(f"{what} {str(p)!r}: the folder {str(parent)!r} is not writable")


def _unlink(path) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass
