"""On-disk kernel cache: generated artifacts (``.s``, ``.hsaco``, ``.json``) stored under a key that
hashes everything they depend on, so a repeated ``gemm(...)`` skips template, passes and assembler.

- Folder: ``$ASMGEN_CACHE_DIR``, else ``$XDG_CACHE_HOME/asmgen``, else ``~/.cache/asmgen``.
- Key: sha256 of the canonical JSON (sorted keys, no spaces) of ``key_parts(kind, config, recipe,
  arch, toolchain)``, which adds the asmgen version (``__version__`` plus a fingerprint of the
  asmgen/isa/schedules sources, so editing the generator invalidates its old kernels); the
  toolchain part is the assembler's version line, so a new LLVM invalidates every entry too.
- Entry: one file ``<key>.entry``: a header line ``ASMGEN-CACHE 1 <sha256 of the rest>``, a JSON
  manifest line (key parts, artifact names and sizes), then the artifacts' bytes back to back.
  A checksum mismatch, truncation or bad manifest is a corrupt entry: a ``CacheCorruptWarning``
  naming the path is issued and the entry is rebuilt.
- Writes are atomic: the entry is written to a temporary file in the same folder and moved into
  place with ``os.replace``; two processes building one key both publish a complete entry and the
  last rename wins, so readers only ever see a whole entry.
"""
from __future__ import annotations

import contextlib
import functools
import hashlib
import importlib.util
import json
import os
import tempfile
import time
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import __version__

MAGIC = b"ASMGEN-CACHE 1"
ENTRY_SUFFIX = ".entry"
TMP_PREFIX = ".tmp-"
CACHE_ENV = "ASMGEN_CACHE_DIR"

Artifacts = dict[str, bytes]


def cache_dir() -> Path:
    """The cache folder (not created here)."""
    explicit = os.environ.get(CACHE_ENV)
    if explicit:
        return Path(explicit).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg).expanduser() if xdg else Path.home() / ".cache"
    return base / "asmgen"


def _root(root: str | Path | None) -> Path:
    return Path(root).expanduser() if root is not None else cache_dir()


SOURCE_PACKAGES = ("asmgen", "isa", "schedules")


def _errors():
    """``asmgen.runtime.errors`` (CacheError, CacheCorruptWarning), imported when an error is
    raised: importing the runtime package loads the backends, which a cache hit never needs."""
    from .runtime import errors
    return errors


@functools.lru_cache(maxsize=4)
def asmgen_version(memo_dir: str | Path | None = None) -> str:
    """``<__version__>+<source fingerprint>``: the package version plus a sha256 (16 hex digits)
    over every ``.py``/``.json`` file of asmgen, isa and schedules (path and content sha256), so
    an edited generator never reuses kernels built by the old code even though ``__version__``
    did not change. Computed once per process. With ``memo_dir`` (the cache folder) each file's
    content hash is remembered under its (mtime, size) in ``.sources-<hash of the roots>.json``,
    so a process whose sources are unchanged stats the files instead of reading them all."""
    files: list[tuple[str, str]] = []
    bases: list[str] = []
    for pkg in SOURCE_PACKAGES:
        spec = importlib.util.find_spec(pkg)
        if spec is None or not spec.submodule_search_locations:
            continue
        base = str(next(iter(spec.submodule_search_locations)))
        bases.append(base)
        found = []
        for folder, dirs, names in os.walk(base):     # os.walk: pathlib's rglob costs ~40 ms here
            dirs[:] = [d for d in dirs if d != "__pycache__"]
            rel = os.path.relpath(folder, base).replace(os.sep, "/")
            for n in names:
                if n.endswith((".py", ".json")):
                    found.append((f"{pkg}/{n}" if rel == "." else f"{pkg}/{rel}/{n}",
                                  os.path.join(folder, n)))
        files += sorted(found)
    memo_path, memo = None, {}
    if memo_dir is not None:
        roots = hashlib.sha256("\0".join(bases).encode())      # one memo per checkout
        memo_path = Path(memo_dir) / f".sources-{roots.hexdigest()[:16]}.json"
        try:
            memo = json.loads(memo_path.read_text())
        except (OSError, ValueError):
            memo = {}
    h = hashlib.sha256()
    fresh: dict = {}
    for rel, path in files:
        st = os.stat(path)
        seen = memo.get(rel) if isinstance(memo, dict) else None
        if isinstance(seen, list) and seen[:2] == [st.st_mtime_ns, st.st_size]:
            digest = seen[2]
        else:
            with open(path, "rb") as f:
                digest = hashlib.sha256(f.read()).hexdigest()
        fresh[rel] = [st.st_mtime_ns, st.st_size, digest]
        h.update(f"{rel}\0{digest}\0".encode())
    if memo_path is not None and fresh != memo:
        try:
            memo_path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=f"{TMP_PREFIX}sources-", dir=memo_path.parent)
            with os.fdopen(fd, "w") as f:
                json.dump(fresh, f)
            os.replace(tmp, memo_path)
        except OSError:
            pass
    return f"{__version__}+{h.hexdigest()[:16]}"


def key_parts(kind: str, config: Mapping[str, Any], recipe: Any, arch: str, toolchain: str,
              version: str | None = None) -> dict:
    """Everything a generated kernel depends on: kernel kind, its config, the schedule recipe
    (name and parameters), asmgen's version (``asmgen_version()`` unless given), the toolchain
    version line and the arch."""
    return {"kind": kind, "config": dict(config), "recipe": recipe,
            "asmgen": asmgen_version() if version is None else version, "toolchain": toolchain, "arch": arch}


def recipe_desc(recipe: Any) -> dict | None:
    """A schedule recipe as key data: ``{"name": ..., "params": {...}}`` (None for no recipe)."""
    if recipe is None:
        return None
    return {"name": getattr(recipe, "name", str(recipe)), "params": dict(getattr(recipe, "params", {}) or {})}


def canonical_json(parts: Any) -> str:
    """Sorted keys, no whitespace, tuples as lists; anything JSON cannot hold is a ``CacheError``."""
    try:
        return json.dumps(parts, sort_keys=True, separators=(",", ":"), ensure_ascii=True, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise _errors().CacheError(f"cache key parts are not plain JSON data: {exc}") from None


def cache_key(parts: Mapping[str, Any]) -> str:
    """sha256 (hex) of the canonical JSON of ``parts``."""
    return hashlib.sha256(canonical_json(parts).encode()).hexdigest()


def _normalize(artifacts: Mapping[str, Any]) -> Artifacts:
    if not isinstance(artifacts, Mapping) or not artifacts:
        raise _errors().CacheError(f"a cache build must return a non-empty dict of name -> bytes, got {artifacts!r:.80}")
    out: Artifacts = {}
    for name, data in artifacts.items():
        if not isinstance(name, str) or not name or "/" in name or "\\" in name or name in (".", ".."):
            raise _errors().CacheError(f"artifact name {name!r} must be a plain file name")
        if isinstance(data, str):
            data = data.encode()
        if not isinstance(data, (bytes, bytearray, memoryview)):
            raise _errors().CacheError(f"artifact {name!r} is {type(data).__name__}, not bytes or str")
        out[name] = bytes(data)
    return out


def encode_entry(parts: Mapping[str, Any], artifacts: Artifacts) -> bytes:
    """The bytes of one entry file (header, manifest, artifacts)."""
    manifest = {"key": cache_key(parts), "parts": parts, "created": time.time(),
                "files": [{"name": n, "size": len(b)} for n, b in artifacts.items()]}
    body = canonical_json(manifest).encode() + b"\n" + b"".join(artifacts.values())
    return MAGIC + b" " + hashlib.sha256(body).hexdigest().encode() + b"\n" + body


class _Corrupt(Exception):
    pass


def decode_entry(data: bytes) -> tuple[dict, Artifacts]:
    """``(manifest, artifacts)`` of an entry file; ``_Corrupt`` with the reason when it is damaged."""
    head, sep, body = data.partition(b"\n")
    if not sep or not head.startswith(MAGIC + b" "):
        raise _Corrupt("no 'ASMGEN-CACHE 1' header")
    want = head[len(MAGIC) + 1:].decode("ascii", "replace")
    got = hashlib.sha256(body).hexdigest()
    if want != got:
        raise _Corrupt(f"checksum mismatch (recorded {want[:16]}..., content {got[:16]}...)")
    line, sep, blob = body.partition(b"\n")
    try:
        manifest = json.loads(line)
        files = [(f["name"], int(f["size"])) for f in manifest["files"]]
    except (ValueError, KeyError, TypeError) as exc:
        raise _Corrupt(f"bad manifest ({exc})") from None
    if sum(size for _, size in files) != len(blob):
        raise _Corrupt(f"artifact sizes add up to {sum(s for _, s in files)} bytes, the entry holds {len(blob)}")
    out, off = {}, 0
    for name, size in files:
        out[name] = blob[off:off + size]
        off += size
    return manifest, out


def entry_path(key: str, root: str | Path | None = None) -> Path:
    return _root(root) / f"{key}{ENTRY_SUFFIX}"


def write_entry(parts: Mapping[str, Any], artifacts: Mapping[str, Any], root: str | Path | None = None) -> Path:
    """Publish an entry atomically (temporary file in the same folder, fsync, ``os.replace``)."""
    arts = _normalize(artifacts)
    key = cache_key(parts)
    folder = _root(root)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f"{TMP_PREFIX}{key[:16]}-", dir=folder)
    except OSError as exc:
        raise _errors().CacheError(f"cannot write to the kernel cache folder {folder}: {exc}; set {CACHE_ENV} "
                         "to a writable folder") from None
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(encode_entry(parts, arts))
            f.flush()
            os.fsync(f.fileno())
        final = folder / f"{key}{ENTRY_SUFFIX}"
        os.replace(tmp, final)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    return final


def read_entry(parts: Mapping[str, Any], root: str | Path | None = None) -> Artifacts | None:
    """The artifacts stored for ``parts``: None when absent; a corrupt entry issues a
    ``CacheCorruptWarning`` naming its path and counts as absent."""
    path = entry_path(cache_key(parts), root)
    try:
        data = path.read_bytes()
    except (FileNotFoundError, NotADirectoryError):   # an unusable folder is reported by the write
        return None
    except OSError as exc:
        raise _errors().CacheError(f"cannot read cache entry {path}: {exc}") from None
    try:
        manifest, arts = decode_entry(data)
        if manifest.get("key") != path.name[:-len(ENTRY_SUFFIX)]:
            raise _Corrupt(f"the manifest's key {str(manifest.get('key'))[:16]}... is not the file's")
    except _Corrupt as exc:
        warnings.warn(_errors().CacheCorruptWarning(f"corrupt kernel cache entry {path}: {exc}; rebuilding it"),
                      stacklevel=3)
        return None
    return arts


def cached(parts: Mapping[str, Any], build_fn: Callable[[], Mapping[str, Any]],
           root: str | Path | None = None) -> tuple[Artifacts, bool]:
    """``(artifacts, hit)``: the stored artifacts for ``parts`` (``hit=True``), else
    ``build_fn()``'s (a dict of file name -> bytes or str), stored before they are returned."""
    arts = read_entry(parts, root)
    if arts is not None:
        return arts, True
    with _build_lock(cache_key(parts), root):
        arts = read_entry(parts, root)       # built by another process while we waited
        if arts is not None:
            return arts, True
        arts = _normalize(build_fn())
        write_entry(parts, arts, root)
    return arts, False


LOCK_PREFIX = ".lock-"


@contextlib.contextmanager
def _build_lock(key: str, root: str | Path | None):
    """An exclusive ``flock(2)`` on the key's own lock file ``.lock-<key>`` while its missing entry
    is built: concurrent builders of ONE key build it once (the others wait, then read the entry);
    builders of different keys hold different locks and run concurrently. The lock goes with the
    process (a killed builder frees it). The process that holds the lock unlinks the file before
    releasing it when the path is still its inode, so no lock file outlives a build: a waiter
    still blocked on the unlinked inode, or a newcomer that creates a fresh one, takes the lock
    and re-reads the entry the builder published first (``cached``), so it still builds at most
    once per key (a second build only after a failed one). Without fcntl (Windows) every builder
    builds, as before."""
    folder = _root(root)
    try:
        import fcntl
    except ImportError:        # pragma: no cover - not POSIX
        yield
        return
    path = folder / f"{LOCK_PREFIX}{key}"
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as exc:
        raise _errors().CacheError(f"cannot write to the kernel cache folder {folder}: {exc}; set {CACHE_ENV} "
                         "to a writable folder (or ASMGEN_NO_CACHE=1)") from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        try:
            if os.stat(path).st_ino == os.fstat(fd).st_ino:
                os.unlink(path)
        except OSError:
            pass
        os.close(fd)           # releases the lock


# --- kernels ------------------------------------------------------------------------------------
def kernel_artifacts(kernel: Any) -> Artifacts:
    """``<name>.s``, ``<name>.hsaco`` and ``<name>.json`` of a ``Kernel`` (as ``Kernel.save`` writes)."""
    return kernel.artifacts()


def kernel_from_artifacts(arts: Mapping[str, bytes], config: Any = None) -> Any:
    """The ``Kernel`` stored by ``kernel_artifacts``."""
    from .kernel import Kernel
    metas = [n for n in arts if n.endswith(".json")]
    if len(metas) != 1:
        raise _errors().CacheError(f"a kernel entry needs exactly one .json artifact, it has {sorted(arts)}")
    name = metas[0][:-len(".json")]
    for ext in (".s", ".hsaco"):
        if name + ext not in arts:
            raise _errors().CacheError(f"kernel entry {name!r} lacks {name + ext} (has {sorted(arts)})")
    meta = json.loads(arts[name + ".json"])
    return Kernel(name, arts[name + ".s"].decode(), bytes(arts[name + ".hsaco"]), meta, config)


def cached_kernel(parts: Mapping[str, Any], build: Callable[[], Any], config: Any = None,
                  root: str | Path | None = None) -> tuple[Any, bool]:
    """``(Kernel, hit)``: a kernel from the cache, or ``build()`` (returning a ``Kernel``) stored."""
    built: list = []

    def build_arts() -> Artifacts:
        built.append(build())
        return kernel_artifacts(built[0])

    arts, hit = cached(parts, build_arts, root)
    if built:
        return built[0], hit
    return kernel_from_artifacts(arts, config), hit


def cached_generate(kind: Any, *, schedule: str | None = None, schedule_params: dict | None = None,
                    root: str | Path | None = None, assemble: bool = True, toolchain: Any = None,
                    **config: Any) -> tuple[Any, bool]:
    """``(Kernel, hit)`` for ``asmgen.api.generate(kind, schedule, schedule_params, **config)``
    through the cache, for any registered kernel kind. The key holds the kind, its validated
    config (so two spellings of one config share an entry), the recipe's name and parameters,
    the arch, the toolchain version line and asmgen's version. A kernel from the cache gets its
    config back from its contract."""
    from .driver import compile as compile_kernel
    from .driver import resolve
    from .kinds import registry
    from .toolchain import find_toolchain, toolchain_version
    k = registry.get(kind)
    cfg_kw, recipe = resolve(k, schedule, schedule_params, config)
    cfg = k.make_config(recipe, **cfg_kw)
    if not assemble:
        return compile_kernel(k, cfg, recipe, assemble=False), False
    # the toolchain's version line from the memo in the cache folder (no subprocess on a hit);
    # a build checks it against the toolchain it really found and retries under the true key
    version = toolchain.version if toolchain is not None else toolchain_version(_root(root))

    def build():
        tc = toolchain or find_toolchain()
        if tc.version != version:
            raise _StaleToolchain(tc)
        return compile_kernel(k, cfg, recipe, toolchain=tc)
    source = asmgen_version(str(_root(root)))
    parts = key_parts(k.name, k.config_to_dict(cfg), recipe_desc(recipe), cfg.arch, version,
                      source)
    try:
        kern, hit = cached_kernel(parts, build, root=root)
    except _StaleToolchain as stale:
        tc = stale.toolchain
        parts = key_parts(k.name, k.config_to_dict(cfg), recipe_desc(recipe), cfg.arch, tc.version,
                          source)
        kern, hit = cached_kernel(parts, lambda: compile_kernel(k, cfg, recipe, toolchain=tc),
                                  root=root)
    if hit:
        kern.config = k.config_from_dict(kern.meta["config"])
    kern.cache_hit = hit
    return kern, hit


class _StaleToolchain(Exception):
    """The remembered toolchain version is not the discovered toolchain's (``cached_generate``)."""

    def __init__(self, toolchain) -> None:
        super().__init__(toolchain.version)
        self.toolchain = toolchain


def cached_gemm(*args: Any, root: str | Path | None = None, **kwargs: Any) -> tuple[Any, bool]:
    """``(Kernel, hit)`` for ``asmgen.api.gemm(*args, **kwargs)`` through the cache
    (``cached_generate`` of the GEMM kind, positional arguments as ``gemm`` takes them)."""
    positional = ("m", "n", "k", "dtype", "arch", "layout", "out_dtype", "schedule")
    if len(args) > len(positional):
        raise TypeError(f"cached_gemm takes at most {len(positional)} positional arguments")
    call = dict(zip(positional, args))
    for name in call:
        if name in kwargs:
            raise TypeError(f"cached_gemm got multiple values for argument {name!r}")
    call.update(kwargs)
    call.update(call.pop("tuning", {}) or {})
    return cached_generate("gemm", root=root, **call)


# --- housekeeping -------------------------------------------------------------------------------
@dataclass(frozen=True)
class CacheEntry:
    """One entry as ``cache_ls`` reports it."""

    key: str
    path: Path
    size: int
    mtime: float
    kind: str | None
    files: tuple[str, ...]
    valid: bool
    problem: str = ""


def cache_ls(root: str | Path | None = None) -> list[CacheEntry]:
    """Every entry (newest first), each checked against its checksum."""
    folder = _root(root)
    if not folder.is_dir():
        return []
    out = []
    for path in folder.glob(f"*{ENTRY_SUFFIX}"):
        try:
            st = os.stat(path)
            data = path.read_bytes()
        except OSError:
            continue   # removed by a concurrent cache_clear
        try:
            manifest, arts = decode_entry(data)
            kind = (manifest.get("parts") or {}).get("kind")
            out.append(CacheEntry(path.name[:-len(ENTRY_SUFFIX)], path, st.st_size, st.st_mtime, kind,
                                  tuple(arts), True))
        except _Corrupt as exc:
            out.append(CacheEntry(path.name[:-len(ENTRY_SUFFIX)], path, st.st_size, st.st_mtime, None, (),
                                  False, str(exc)))
    return sorted(out, key=lambda e: -e.mtime)


STALE_TMP_SECONDS = 60.0   # a temporary file younger than this may be a writer's entry in flight


def cache_clear(root: str | Path | None = None) -> int:
    """Delete every entry and every temporary or lock file older than ``STALE_TMP_SECONDS`` (a
    younger one belongs to a build in progress; an old lock file is one a killed builder left); nothing else in the folder is touched. Returns how many files
    were removed."""
    folder = _root(root)
    if not folder.is_dir():
        return 0
    removed = 0
    now = time.time()
    for path in [*folder.glob(f"*{ENTRY_SUFFIX}"), *folder.glob(f"{TMP_PREFIX}*"),
                 *folder.glob(f"{LOCK_PREFIX}*")]:
        try:
            if (path.name.startswith((TMP_PREFIX, LOCK_PREFIX))
                    and now - path.stat().st_mtime < STALE_TMP_SECONDS):
                continue
            path.unlink()
            removed += 1
        except FileNotFoundError:
            pass
        except OSError as exc:
            raise _errors().CacheError(f"cannot remove cache file {path}: {exc}") from None
    return removed
