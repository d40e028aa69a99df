"""Find an AMDGPU assembler + linker and turn ``.s`` text into a ``.hsaco`` code object.

Discovery order (design.md, "Toolchain discovery"):
  1. ``$ASMGEN_LLVM`` (a bin folder holding llvm-mc and ld.lld, plain or ``-NN`` suffixed);
  2. ROCm's LLVM: ``$ROCM_PATH/llvm/bin``, then ``/opt/rocm/llvm/bin``;
  3. ``llvm-mc``/``ld.lld`` on PATH, plain or ``-NN`` suffixed, and ``/usr/lib/llvm-NN/bin``, each
     accepted only with LLVM >= 19 and the ``amdgcn`` target (an LLVM 14 ``llvm-mc`` is skipped and the
     reason recorded in ``Toolchain.skipped``);
  4. the ``ziglang`` wheel (LLVM 22 inside): ``python -m ziglang clang -cc1as`` assembles (its ``cc``
     driver would force ``sramecc-:xnack-`` into the target id), ``python -m ziglang ld.lld`` links.
``ASMGEN_TOOLCHAIN=llvm|zig`` (or ``find_toolchain(kind=...)``) forces one kind; an explicitly named
place that does not work is an error, never a silent fallback.
"""
from __future__ import annotations

import functools
import importlib.util
import os
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from .errors import AssembleError, LinkError, ToolchainError, ToolchainNotFound

MIN_LLVM_MAJOR = 19   # first LLVM whose assembler knows gfx950 and code object v5 defaults we rely on
KINDS = ("llvm", "zig")
TRIPLE = "amdgcn-amd-amdhsa"
_TIMEOUT = 120

_VERSION_RE = re.compile(r"LLVM version (\d+)\.(\d+)(?:\.(\d+))?")
_CLANG_VERSION_RE = re.compile(r"clang version (\d+)\.(\d+)(?:\.(\d+))?")
_DIAG_RE = re.compile(r"^(?P<file>[^:\n]*\.s):(?P<line>\d+):(?P<col>\d+): "
                      r"(?P<sev>error|warning): (?P<msg>.*)$", re.MULTILINE)


@dataclass(frozen=True)
class Toolchain:
    """A usable assembler + linker pair.

    ``assembler`` / ``linker`` are argv prefixes (``("/usr/bin/llvm-mc-22",)`` or
    ``(python, "-m", "ziglang", "clang", "-cc1as")``); ``version`` is the assembler's version line;
    ``source`` says how it was found; ``skipped`` lists candidates rejected before it, with reasons.
    """

    kind: str
    assembler: tuple[str, ...]
    linker: tuple[str, ...]
    version: str
    major: int
    source: str
    objdump_path: str | None = None
    skipped: tuple[str, ...] = field(default=(), compare=False)

    # --- assembling -----------------------------------------------------------------------------
    def _assemble_cmd(self, src: Path, obj: Path, arch: str) -> list[str]:
        if self.kind == "llvm":
            return [*self.assembler, f"-triple={TRIPLE}", f"-mcpu={arch}", "-filetype=obj",
                    "-o", str(obj), str(src)]
        return [*self.assembler, "-triple", TRIPLE, "-target-cpu", arch, "-filetype", "obj",
                "-o", str(obj), str(src)]

    def assemble_object(self, asm_text: str, arch: str) -> bytes:
        """Assemble ``asm_text`` for ``arch`` into a relocatable ELF object (not yet linked)."""
        with tempfile.TemporaryDirectory(prefix="asmgen-") as tmp:
            src, obj = Path(tmp, "k.s"), Path(tmp, "k.o")
            src.write_text(asm_text)
            self._run(self._assemble_cmd(src, obj, arch), asm_text, "assemble")
            return obj.read_bytes()

    def assemble(self, asm_text: str, arch: str) -> bytes:
        """Assemble and link ``asm_text`` for ``arch`` (plain ``gfx942``/``gfx950``) into .hsaco bytes."""
        with tempfile.TemporaryDirectory(prefix="asmgen-") as tmp:
            src, obj, out = Path(tmp, "k.s"), Path(tmp, "k.o"), Path(tmp, "k.hsaco")
            src.write_text(asm_text)
            self._run(self._assemble_cmd(src, obj, arch), asm_text, "assemble")
            self._run([*self.linker, "-shared", str(obj), "-o", str(out)], asm_text, "link")
            return out.read_bytes()

    def objdump(self, hsaco: bytes, arch: str) -> str | None:
        """Disassembly of ``hsaco`` by llvm-objdump, or None when no llvm-objdump >= 19 was found."""
        if self.objdump_path is None:
            return None
        with tempfile.TemporaryDirectory(prefix="asmgen-") as tmp:
            path = Path(tmp, "k.hsaco")
            path.write_bytes(hsaco)
            cmd = [self.objdump_path, "-d", f"--mcpu={arch}", str(path)]
            res = subprocess.run(cmd, capture_output=True, text=True, timeout=_TIMEOUT)
            if res.returncode != 0:
                raise ToolchainError(f"llvm-objdump failed ({' '.join(cmd)}): {res.stderr.strip()}")
            return res.stdout

    def _run(self, cmd: list[str], asm_text: str, stage: str) -> None:
        try:
            res = subprocess.run(cmd, capture_output=True, text=True, timeout=_TIMEOUT)
        except OSError as exc:
            raise ToolchainError(f"cannot run {cmd[0]}: {exc}") from exc
        except subprocess.TimeoutExpired as exc:
            raise ToolchainError(f"{stage} timed out after {_TIMEOUT} s: {' '.join(cmd)}") from exc
        if res.returncode == 0:
            errors = [m for m in _DIAG_RE.finditer(res.stderr) if m["sev"] == "error"]
            if not errors:
                return
        raise _diagnose(res.stderr or res.stdout, asm_text, stage, " ".join(cmd))


def _diagnose(stderr: str, asm_text: str, stage: str, command: str) -> AssembleError:
    """An AssembleError quoting the first .s line LLVM complains about."""
    if stage == "link":
        return LinkError(stderr or "(no message)", stage="link", command=command)
    m = next((m for m in _DIAG_RE.finditer(stderr) if m["sev"] == "error"), None)
    if m is None:
        return AssembleError(stderr or "(no message)", stage=stage, command=command)
    line_no = int(m["line"])
    lines = asm_text.splitlines()
    line = lines[line_no - 1] if 0 < line_no <= len(lines) else ""
    return AssembleError(stderr, line_no=line_no, line=line, stage=stage, command=command)


# --- probing candidates ------------------------------------------------------------------------
def _probe_llvm_mc(path: str) -> tuple[int | None, str, str]:
    """(major, version line, reason if unusable) of an llvm-mc binary."""
    try:
        res = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return None, "", f"{path}: cannot run ({exc})"
    out = res.stdout + res.stderr
    m = _VERSION_RE.search(out)
    if not m:
        return None, "", f"{path}: no 'LLVM version' in --version output"
    major = int(m.group(1))
    line = next(ln.strip() for ln in out.splitlines() if "LLVM version" in ln)
    if major < MIN_LLVM_MAJOR:
        return major, line, f"{path}: {line} is older than LLVM {MIN_LLVM_MAJOR}"
    if not re.search(r"^\s*amdgcn\s", out, re.MULTILINE):
        return major, line, f"{path}: {line} lacks the amdgcn target"
    return major, line, ""


def _tool_in(folder: Path, base: str, major: int | None = None) -> Path | None:
    """``base`` or ``base-NN`` in ``folder`` (NN = ``major`` when given, else the highest present)."""
    plain = folder / base
    if major is not None:
        cand = folder / f"{base}-{major}"
        if cand.is_file() and os.access(cand, os.X_OK):
            return cand
    if plain.is_file() and os.access(plain, os.X_OK):
        return plain
    if major is None:
        found = sorted(_suffixed(folder, base), reverse=True)
        if found:
            return found[0][1]
    return None


def _suffixed(folder: Path, base: str) -> list[tuple[int, Path]]:
    out = []
    try:
        entries = list(folder.iterdir())
    except OSError:
        return out
    pat = re.compile(re.escape(base) + r"-(\d+)$")
    for p in entries:
        m = pat.match(p.name)
        if m and p.is_file() and os.access(p, os.X_OK):
            out.append((int(m.group(1)), p))
    return out


def _try_llvm_pair(mc: Path, source: str, skipped: list[str]) -> Toolchain | None:
    major, line, reason = _probe_llvm_mc(str(mc))
    if reason:
        skipped.append(reason)
        return None
    folder = mc.parent
    lld = (_tool_in(folder, "ld.lld", major) or _tool_in(Path(f"/usr/lib/llvm-{major}/bin"), "ld.lld"))
    if lld is None:
        skipped.append(f"{mc}: no ld.lld or ld.lld-{major} beside it")
        return None
    objdump = _tool_in(folder, "llvm-objdump", major) or _tool_in(Path(f"/usr/lib/llvm-{major}/bin"),
                                                                   "llvm-objdump")
    return Toolchain("llvm", (str(mc),), (str(lld),), line, major, source,
                     str(objdump) if objdump else None, tuple(skipped))


def _try_folder(folder: Path, source: str, skipped: list[str]) -> Toolchain | None:
    if not folder.is_dir():
        skipped.append(f"{source}: {folder} is not a folder")
        return None
    cands = []
    plain = folder / "llvm-mc"
    if plain.is_file():
        cands.append(plain)
    cands += [p for _, p in sorted(_suffixed(folder, "llvm-mc"), reverse=True)]
    if not cands:
        skipped.append(f"{source}: no llvm-mc in {folder}")
        return None
    for mc in cands:
        tc = _try_llvm_pair(mc, source, skipped)
        if tc is not None:
            return tc
    return None


def _path_candidates() -> list[Path]:
    """llvm-mc binaries on PATH (plain first, then -NN newest first), then /usr/lib/llvm-NN/bin."""
    plain, suffixed, seen = [], [], set()
    for d in os.environ.get("PATH", "").split(os.pathsep):
        if not d:
            continue
        folder = Path(d)
        p = folder / "llvm-mc"
        if p.is_file() and os.access(p, os.X_OK) and p.resolve() not in seen:
            seen.add(p.resolve())
            plain.append(p)
        for n, q in _suffixed(folder, "llvm-mc"):
            if q.resolve() not in seen:
                seen.add(q.resolve())
                suffixed.append((n, q))
    usr = []
    for _major, folder in sorted(((int(m.group(1)), p) for p in Path("/usr/lib").glob("llvm-*")
                             if (m := re.fullmatch(r"llvm-(\d+)", p.name))), reverse=True):
        q = folder / "bin" / "llvm-mc"
        if q.is_file() and q.resolve() not in seen:
            seen.add(q.resolve())
            usr.append(q)
    return plain + [q for _, q in sorted(suffixed, key=lambda t: -t[0])] + usr


def _find_objdump_anywhere() -> str | None:
    for mc in _path_candidates():
        major, _, reason = _probe_llvm_mc(str(mc))
        if reason or major is None:
            continue
        od = _tool_in(mc.parent, "llvm-objdump", major)
        if od is not None:
            return str(od)
    return None


def _try_zig(skipped: list[str]) -> Toolchain | None:
    spec = importlib.util.find_spec("ziglang")
    if spec is None:
        skipped.append("ziglang: the wheel is not installed (pip install ziglang)")
        return None
    # `python -m ziglang ARGS` only execs the wheel's `zig` binary with ARGS (ziglang/__main__.py);
    # calling the binary directly saves a Python start-up (~1 s on a busy machine) per call.
    folders = list(spec.submodule_search_locations or [])
    exe = next((Path(f, name) for f in folders for name in ("zig", "zig.exe") if Path(f, name).is_file()),
               None)
    base: tuple[str, ...] = (str(exe),) if exe is not None else (sys.executable, "-m", "ziglang")
    try:
        res = subprocess.run([*base, "clang", "--version"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as exc:
        skipped.append(f"ziglang: cannot run ({exc})")
        return None
    m = _CLANG_VERSION_RE.search(res.stdout)
    if res.returncode != 0 or not m:
        skipped.append(f"ziglang: `clang --version` failed: {res.stderr.strip()[:200]}")
        return None
    major = int(m.group(1))
    if major < MIN_LLVM_MAJOR:
        skipped.append(f"ziglang: clang {major} is older than LLVM {MIN_LLVM_MAJOR}")
        return None
    line = "ziglang " + res.stdout.splitlines()[0].strip()
    return Toolchain("zig", (*base, "clang", "-cc1as"), (*base, "ld.lld"), line, major, "ziglang",
                     _find_objdump_anywhere(), tuple(skipped))


def _discover_llvm(skipped: list[str]) -> Toolchain | None:
    env_dir = os.environ.get("ASMGEN_LLVM")
    if env_dir:
        tc = _try_folder(Path(env_dir), "$ASMGEN_LLVM", skipped)
        if tc is None:   # the user named this place: failing over elsewhere would hide their mistake
            raise ToolchainNotFound(f"$ASMGEN_LLVM={env_dir} holds no usable llvm-mc + ld.lld",
                                    tuple(skipped))
        return tc
    rocm = os.environ.get("ROCM_PATH")
    for folder, source in ((Path(rocm, "llvm", "bin") if rocm else None, "$ROCM_PATH/llvm/bin"),
                           (Path("/opt/rocm/llvm/bin"), "/opt/rocm/llvm/bin")):
        if folder is None:
            continue
        if folder.is_dir():
            tc = _try_folder(folder, source, skipped)
            if tc is not None:
                return tc
        else:
            skipped.append(f"{source}: {folder} does not exist")
    for mc in _path_candidates():
        tc = _try_llvm_pair(mc, "PATH", skipped)
        if tc is not None:
            return tc
    return None


@functools.cache
def _find_cached(kind: str | None, _env_key: tuple) -> Toolchain:
    skipped: list[str] = []
    if kind not in (None, *KINDS):
        raise ToolchainError(f"toolchain kind {kind!r} is not one of {KINDS} (ASMGEN_TOOLCHAIN)")
    if kind in (None, "llvm"):
        tc = _discover_llvm(skipped)
        if tc is not None:
            return tc
        if kind == "llvm":
            raise ToolchainNotFound("no LLVM >= 19 with the amdgcn target was found (kind forced to "
                                    "'llvm')", tuple(skipped))
    tc = _try_zig(skipped)
    if tc is not None:
        return tc
    raise ToolchainNotFound("no AMDGPU assembler was found", tuple(skipped))


def find_toolchain(kind: str | None = None) -> Toolchain:
    """The toolchain to use: ``kind`` ('llvm'|'zig') or ``$ASMGEN_TOOLCHAIN`` forces one; cached."""
    kind = kind or os.environ.get("ASMGEN_TOOLCHAIN") or None
    env_key = tuple(os.environ.get(k, "") for k in ("ASMGEN_LLVM", "ROCM_PATH", "PATH"))
    return _find_cached(kind, env_key)


def _memo_witness(kind: str | None, env_key: tuple, tc: Toolchain | None) -> list:
    """What a remembered discovery depends on: the forcing kind, the environment, the mtime of
    every folder discovery looks in (a tool added or removed there changes it) and, with ``tc``,
    the identity (path, mtime, size) of its assembler and linker."""
    folders = [d for d in os.environ.get("PATH", "").split(os.pathsep) if d]
    folders += [str(Path(os.environ["ROCM_PATH"], "llvm", "bin"))] if os.environ.get("ROCM_PATH") else []
    folders += ["/opt/rocm/llvm/bin", "/usr/lib", os.environ.get("ASMGEN_LLVM", "")]
    out: list = [kind, list(env_key)]
    for f in folders:
        try:
            out.append([f, os.stat(f).st_mtime_ns])
        except OSError:
            out.append([f, None])
    if tc is not None:
        for b in (tc.assembler[0], tc.linker[0]):
            st = os.stat(b)
            out.append([b, st.st_mtime_ns, st.st_size])
    return out


def toolchain_version(memo_dir: str | Path | None = None, kind: str | None = None) -> str:
    """The version line of the toolchain ``find_toolchain`` would pick, without running it when
    ``memo_dir`` (the kernel cache folder) remembers an LLVM discovery whose witness
    (``_memo_witness``: environment, search folders, the binaries' path/mtime/size) is unchanged:
    a cache hit then starts no subprocess. Discovering writes the memo (atomically; a folder that
    cannot be written just means no memo)."""
    import hashlib
    import json
    kind = kind or os.environ.get("ASMGEN_TOOLCHAIN") or None
    env_key = tuple(os.environ.get(k, "") for k in ("ASMGEN_LLVM", "ROCM_PATH", "PATH"))
    if memo_dir is None:
        return find_toolchain(kind).version
    base = _memo_witness(kind, env_key, None)
    name = hashlib.sha256(json.dumps(base[:2]).encode()).hexdigest()[:16]
    memo = Path(memo_dir) / f".toolchain-{name}.json"
    try:
        saved = json.loads(memo.read_text())
        tc_bins = saved["binaries"]
        witness = base + [[b, os.stat(b).st_mtime_ns, os.stat(b).st_size] for b, _, _ in tc_bins]
        if saved["witness"] == witness:
            return saved["version"]
    except (OSError, ValueError, KeyError, TypeError):
        pass
    tc = find_toolchain(kind)
    if tc.kind != "llvm":
        return tc.version
    witness = _memo_witness(kind, env_key, tc)
    try:
        Path(memo_dir).mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".tmp-toolchain-", dir=memo_dir)
        with os.fdopen(fd, "w") as f:
            json.dump({"version": tc.version, "witness": witness,
                       "binaries": witness[len(base):]}, f)
        os.replace(tmp, memo)
    except OSError:
        pass
    return tc.version


def clear_cache() -> None:
    """Forget discovered toolchains (tests that change the environment call this)."""
    _find_cached.cache_clear()


def assemble(asm_text: str, arch: str, toolchain: Toolchain | None = None) -> bytes:
    """``.s`` text -> ``.hsaco`` bytes with the discovered (or given) toolchain."""
    return (toolchain or find_toolchain()).assemble(asm_text, arch)


def objdump(hsaco: bytes, arch: str, toolchain: Toolchain | None = None) -> str | None:
    """llvm-objdump disassembly of ``hsaco``, or None when no llvm-objdump is available."""
    return (toolchain or find_toolchain()).objdump(hsaco, arch)
