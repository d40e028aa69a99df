"""Shared helpers of the LLVM kernel zoo tests (no tests here): compile OpenCL C with clang-22 for
gfx942/gfx950 once per (source, arch), pack kernel arguments, launch on the emulator, list the
mnemonics LLVM emitted (so each test can prove it exercised the instruction forms it is about),
and ulp distances for float comparisons."""
from __future__ import annotations

import functools
import hashlib
import shutil
import struct
import subprocess
import tempfile
from pathlib import Path

import numpy as np
import pytest

from isa.emu import Emulator

CLANG, LLD = shutil.which("clang-22"), shutil.which("ld.lld-22")
ARCHES = ("gfx942", "gfx950")
SEEDS = (0, 1)
needs_llvm = pytest.mark.skipif(not (CLANG and LLD), reason="clang-22 / ld.lld-22 not installed")
_DIR = Path(tempfile.mkdtemp(prefix="llvm_zoo_"))


@functools.cache
def build(source: str, arch: str, extra: tuple[str, ...] = (), features: str = "", lang: str = "cl") -> bytes:
    """clang-22 -O3 OpenCL C (``lang="ir"``: LLVM IR) -> relocatable object -> ld.lld-22 -shared
    code object (cached). ``features`` is a target-id suffix such as ":sramecc-"."""
    tag = hashlib.sha1((source + arch + features + lang + " ".join(extra)).encode()).hexdigest()[:16]
    src, obj, out = _DIR / f"{tag}.{'ll' if lang == 'ir' else 'cl'}", _DIR / f"{tag}.o", _DIR / f"{tag}.hsaco"
    src.write_text(source)
    cc = subprocess.run([CLANG, "-target", "amdgcn-amd-amdhsa", f"-mcpu={arch}{features}", "-nogpulib", "-O3",
                         "-Wno-everything", *extra, "-x", lang, "-c", "-o", str(obj), str(src)],
                        check=False, capture_output=True, text=True)
    if cc.returncode:
        raise RuntimeError(f"clang-22 failed for {arch}:\n{cc.stderr}")
    subprocess.run([LLD, "-shared", str(obj), "-o", str(out)], check=True, capture_output=True)
    return out.read_bytes()


@functools.cache
def mnemonics(hsaco: bytes, arch: str, kernel: str) -> frozenset[str]:
    """The set of mnemonics in ``kernel``'s machine code (decoded with isa.decode), both bare
    (``v_mov_b32``) and as printed with an encoding suffix (``v_mov_b32_dpp``)."""
    from isa.codeobj import CodeObject
    from isa.decode import decode
    instrs = [d.instr for d in decode(CodeObject.from_bytes(hsaco).kernels[kernel].code, arch)]
    return frozenset({i.op for i in instrs} | {str(i).split()[0] for i in instrs})


def launch(hsaco: bytes, arch: str, kernel: str, *args, grid=(1, 1, 1), block=(64, 1, 1),
           seed: int = 0, **kw) -> Emulator:
    """Run ``kernel``; ``args`` are NumPy arrays (passed as global pointers, updated in place) or
    (struct format, value) pairs for by-value arguments, laid out at natural alignment."""
    emu = Emulator(arch=arch, seed=seed)
    blob = b""
    for a in args:
        fmt, val = ("Q", emu.alloc(a)) if isinstance(a, np.ndarray) else a
        size = struct.calcsize("<" + fmt)
        blob += b"\0" * (-len(blob) % size) + struct.pack("<" + fmt, val)
    emu.launch(hsaco, kernel, grid=grid, block=block, kernargs=blob, **kw)
    return emu


def ulp_diff_f32(got: np.ndarray, want: np.ndarray) -> np.ndarray:
    """Distance in units in the last place between float32 arrays (same-signed ordering trick);
    NaN compares equal to NaN (distance 0) and unequal to anything else (huge distance)."""
    g = np.asarray(got, np.float32).view(np.int32).astype(np.int64)
    w = np.asarray(want, np.float32).view(np.int32).astype(np.int64)
    g = np.where(g < 0, -(g & 0x7FFFFFFF), g)
    w = np.where(w < 0, -(w & 0x7FFFFFFF), w)
    d = np.abs(g - w)
    gn, wn = np.isnan(np.asarray(got, np.float32)), np.isnan(np.asarray(want, np.float32))
    return np.where(gn & wn, 0, np.where(gn | wn, 1 << 40, d))
