"""AMD's hand-written production asm kernels (ROCm/aiter, ``hsa/gfx942/``) on the judge, every check
on, against NumPy, one line per kernel. Not CI: it needs an aiter snapshot (``fetch`` of
github:ROCm/aiter puts one at /work/.mirror/ROCm+aiter/repo).

Nothing of aiter is committed: the ``.co`` code objects are read from the snapshot's git object
store at run time (``git show``) and given to ``isa.emu.Emulator`` as they are.

    python benchmarks/aiter.py [--aiter /work/.mirror/ROCm+aiter/repo] [--match REGEX]
                               [--size 64x128x256] [--allow-hazard RULE ...]

Kernels run: the bf16 GEMMs ``hsa/gfx942/bf16gemm/*.co`` without B pre-shuffle
(``bf16gemm_fp32bf16.csv`` column bPreshuffle = 0). Their arguments are aiter's
``csrc/py_itfs_cu/asm_gemm_a16w16.cu`` ``KernelArgs`` (each field padded to 16 bytes; the offsets
are taken from the code object's own ``.amdgpu_metadata`` argument list by name): D = A · Bᵀ with A
[M, K] and B [N, K] row-major bf16, strides in bytes (stride_A0 = K*2, stride_B0 = K*2, stride_D0 =
stride_C0 = N * out element size), alpha 1, beta 0, split-K 1 (``--splitk`` S: grid z = S), no bias; the split-K capable
kernels (csv column splitK = 1, the "_clean" ones) get a zeroed per-tile semaphore; grid
(ceil(N / tileN), ceil(M / tileM), 1) workgroups of 256 lanes, output f32 (is_out_b16 0) or bf16.

Columns: kernel, PASS / FAIL (with the emulator's error) / SKIP (with why), worst error / tolerance,
emulated wave instructions, seconds.
"""
from __future__ import annotations

import argparse
import csv
import io
import re
import struct
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

_HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _HERE]
sys.path.insert(0, str(_HERE.parent))

DEFAULT_SNAPSHOT = "/work/.mirror/ROCm+aiter/repo"
GEMM_DIR = "hsa/gfx942/bf16gemm"


class Skip(Exception):
    """The kernel is not run; the message says why."""


def _git(snapshot: str, *args: str) -> bytes:
    return subprocess.run(["git", "-C", snapshot, *args], check=True, capture_output=True).stdout


def gemm_table(snapshot: str) -> list[dict]:
    text = _git(snapshot, "show", f"HEAD:{GEMM_DIR}/bf16gemm_fp32bf16.csv").decode()
    return list(csv.DictReader(io.StringIO(text)))


def run_gemm(snapshot: str, row: dict, size, seed: int, allow, out_b16: bool, split: int = 1,
             races: bool = True):
    """(worst error / tolerance, Emulator) of one aiter bf16 GEMM on an MxNxK problem."""
    import ml_dtypes

    from isa.codeobj import CodeObject
    from isa.emu import Emulator
    if row["bPreshuffle"] != "0":
        raise Skip("B pre-shuffled layout (bPreshuffle 1) not reproduced here")
    co = _git(snapshot, "show", f"HEAD:{GEMM_DIR}/{row['co_name']}")
    obj = CodeObject.from_bytes(co)
    (kname,) = [k for k in obj.kernels]
    ki = obj.kernels[kname]
    off = {a[".name"]: a[".offset"] for a in ki.args if a.get(".name") != "pad"}
    tm, tn = int(row["tileM"]), int(row["tileN"])
    m, n, k = size
    if k % 64:
        raise Skip(f"K {k} is not a multiple of 64 (asm_gemm_a16w16.cu requires it)")
    if split > 1 and row["splitK"] != "1":
        raise Skip("split-K > 1 needs a split-K capable kernel (csv column splitK = 1)")
    if n % tn:      # the launcher's heuristic only picks kernels with N % tileN == 0 (M may have a tail)
        raise Skip(f"N {n} is not a multiple of tileN {tn} (asm_gemm_a16w16.cu requires it)")
    bf16 = np.dtype(ml_dtypes.bfloat16)
    tout = bf16 if out_b16 else np.dtype(np.float32)
    rng = np.random.default_rng(seed)
    a = rng.uniform(-1, 1, (m, k)).astype(bf16)
    b = rng.uniform(-1, 1, (n, k)).astype(bf16)
    d = np.zeros((m, n), tout)
    # Split-K protocol (read from the kernels' code): workgroup z = 0 of a tile waits for the
    # semaphore to be 0, zeroes its D tile and stores the split count into the semaphore; every
    # workgroup's wave 0 then waits for the semaphore to be non-zero before its waves atomically
    # add their partial sums (global_atomic_add_f32) and wave 0 decrements it (s_atomic_dec). The
    # emulator runs workgroups one after another, so a z > 0 workgroup that ran before its z = 0
    # would spin forever: split > 1 runs the workgroups in z-major order (z = 0 first), one of the
    # orders the hardware may produce. The judge's global race rule (workgroups are not ordered)
    # does not see the order the polling establishes, so it reports the z = 0 semaphore store and
    # a z > 0 s_atomic_dec as a race; ``--no-global-races`` (reported on the line) runs without it.
    emu = Emulator(arch="gfx942", seed=seed, allow_hazards=allow, shuffle_workgroups=split == 1,
                   check_global_races=races)
    pd, pa, pb = emu.alloc(d, "D"), emu.alloc(a, "A"), emu.alloc(b, "B")
    args = bytearray(ki.kernarg_segment_size)

    def put(name, fmt, v):
        struct.pack_into("<" + fmt, args, off[name], v)
    for name, v in (("D", pd), ("C", 0), ("A", pa), ("B", pb)):
        put(name, "Q", v)
    put("alpha", "f", 1.0)
    put("beta", "f", 0.0)
    for name, v in (("strideD0", n * tout.itemsize), ("strideC0", n * tout.itemsize),
                    ("strideA0", k * 2), ("strideB0", k * 2), ("Mdim", m), ("Ndim", n),
                    ("Kdim", k), ("splitk", split), ("is_out_b16", int(out_b16)), ("add_bias", 0)):
        put(name, "I", v)
    grid = (-(-n // tn), -(-m // tm), split)
    if row["splitK"] == "1":     # split-K capable kernels read/write a per-tile semaphore
        sem = np.zeros(grid[0] * grid[1], np.uint32)      # aiter's workspace starts zeroed
        put("ptr_semaphore" if "ptr_semaphore" in off else _last_pointer(ki), "Q", emu.alloc(sem, "semaphore"))
    emu.launch(co, kname, grid=grid, block=(256, 1, 1), kernargs=bytes(args))
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    ref = a64 @ b64.T
    mag = np.maximum(np.abs(ref), np.finfo(np.float32).tiny)
    ulp_out = np.exp2(np.floor(np.log2(mag)) - (7 if out_b16 else 23))
    tol = ulp_out + (k + 2) * np.finfo(np.float32).eps * (np.abs(a64) @ np.abs(b64.T))
    return float(np.max(np.abs(d.astype(np.float64) - ref) / tol)), emu


def _last_pointer(ki) -> str:
    """The name of the last global_buffer argument (the semaphore in asm_gemm_a16w16's layout)."""
    ptrs = [a[".name"] for a in ki.args if a.get(".value_kind") == "global_buffer"]
    return ptrs[-1]


def _size(text: str):
    parts = text.lower().split("x")
    if len(parts) != 3 or not all(p.isdigit() and int(p) > 0 for p in parts):
        raise argparse.ArgumentTypeError(f"{text!r} is not MxNxK")
    return tuple(int(p) for p in parts)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--aiter", default=DEFAULT_SNAPSHOT, help="aiter git snapshot (read only)")
    ap.add_argument("--match", default="", help="only kernels whose .co name matches REGEX")
    ap.add_argument("--size", type=_size, default=(64, 128, 256), help="GEMM problem MxNxK")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--splitk", type=int, default=1, help="split-K factor (grid z), split-K kernels only")
    ap.add_argument("--out-bf16", action="store_true", help="bf16 output (default f32)")
    ap.add_argument("--allow-hazard", action="append", default=[], metavar="RULE")
    ap.add_argument("--no-global-races", action="store_true",
                    help="do not check races between workgroups (the split-K semaphore protocol)")
    ns = ap.parse_args(argv)
    if not Path(ns.aiter).exists():
        print(f"error: no aiter snapshot at {ns.aiter}", file=sys.stderr)
        return 2
    for row in gemm_table(ns.aiter):
        if not re.search(ns.match, row["co_name"]):
            continue
        t0 = time.perf_counter()
        try:
            err, emu = run_gemm(ns.aiter, row, ns.size, ns.seed, frozenset(ns.allow_hazard), ns.out_bf16,
                                ns.splitk, not ns.no_global_races)
            res = "PASS" if err <= 1.0 else "FAIL  mismatch"
            allowed = ", ".join(f"{r}/{kind} x{c}" for (r, kind), c in sorted(emu.allowed_hazards.items()))
            print(f"{row['co_name']:55s} {res:5s} err/tol {err:8.3f} {emu.steps} wave-instrs "
                  f"{time.perf_counter() - t0:6.1f}s" + (f"  allowed: {allowed}" if allowed else "")
                  + ("  (global races not checked)" if ns.no_global_races else ""), flush=True)
        except Skip as e:
            print(f"{row['co_name']:55s} SKIP  {e}", flush=True)
        except Exception as e:  # noqa: BLE001 (the emulator's verdict, whatever it is, is the line)
            print(f"{row['co_name']:55s} FAIL  {type(e).__name__}: {str(e)[:400]}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
