"""Group MFMA speed: CPU microseconds per call and per wave-MFMA of the emulator's exact fast path
(isa.emu.mfma_fast.fdpa_at, the call a group of waves makes at one MFMA), on GEMM-like data.

    python benchmarks/mfma_speed.py [--waves 4,16,64] [--calls 40] [--repeat 3]

Per form and group size W: W waves' A/B registers hold N(0, 1) f16/bf16 (as a GEMM's tiles) and
C an accumulator a few K-steps deep (N(0, 1) * 8), or, for the "int" rows, small integers -3..3
with C grown over many steps (benchmarks/emu_speed.py's dsmfma loop). Each call's D is first
checked bit for bit against the model (isa.emu.mfma.mfma_model), so a fast wrong path does not
pass; then the best of ``--repeat`` timed passes over ``--calls`` distinct operand sets is
printed. One core (BLAS threads pinned to 1).
"""
from __future__ import annotations

import os

for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_v, "1")

import argparse
import sys
import time

_HERE = os.path.dirname(os.path.abspath(__file__))
_ROOT = os.path.dirname(_HERE)
sys.path = [p for p in sys.path if os.path.abspath(p or os.getcwd()) != _HERE]
if _ROOT not in sys.path:
    sys.path.insert(0, _ROOT)

import numpy as np

FORMS = (("v_mfma_f32_32x32x8_f16", "f16"), ("v_mfma_f32_16x16x16_f16", "f16"),
         ("v_mfma_f32_32x32x8_bf16", "bf16"), ("v_mfma_f32_16x16x16_bf16", "bf16"))


class BenchError(RuntimeError):
    """The fast path did not answer, or its bits differ from the model's."""


def _operands(name: str, dt, waves: int, kind: str, rng):
    from isa.mfma_layout import pack_a, pack_b, pack_c
    from isa.mfma_shapes import mfma_info
    info = mfma_info(name, "gfx942")
    regs = ([], [], [])
    for _ in range(waves):
        if kind == "int":
            a = rng.integers(-3, 4, (info.m, info.k)).astype(dt)
            b = rng.integers(-3, 4, (info.k, info.n)).astype(dt)
            c = rng.integers(-3000, 3000, (info.m, info.n)).astype(np.float32)
        else:
            a = rng.standard_normal((info.m, info.k)).astype(dt)
            b = rng.standard_normal((info.k, info.n)).astype(dt)
            c = (rng.standard_normal((info.m, info.n)) * 8).astype(np.float32)
        for r, x in zip(regs, (pack_a(name, a), pack_b(name, b), pack_c(name, c))):
            r.append(x)
    return [np.stack(r) for r in regs]


def bench(name: str, dtype: str, waves: int, kind: str, calls: int, repeat: int) -> float:
    """Best CPU seconds per call over ``repeat`` passes (after checking every call's bits)."""
    import ml_dtypes

    from isa.emu import mfma_fast
    from isa.emu.mfma import mfma_model
    dt = np.float16 if dtype == "f16" else ml_dtypes.bfloat16
    rng = np.random.default_rng(waves * 131 + len(name))
    plan = mfma_fast.plan(name, "gfx942", 0, 0, 0)
    sets = [_operands(name, dt, waves, kind, rng) for _ in range(calls)]
    for a, b, c in sets:
        d = mfma_fast.fdpa_at(plan, a, 0, b, 0, c, 0)
        if d is None or not np.array_equal(d, mfma_model(name, "gfx942", a, b, c)):
            raise BenchError(f"{name} W={waves} {kind}: fast path differs from the model")
    best = float("inf")
    for _ in range(repeat):
        t0 = time.process_time()
        for a, b, c in sets:
            mfma_fast.fdpa_at(plan, a, 0, b, 0, c, 0)
        best = min(best, (time.process_time() - t0) / calls)
    return best


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--waves", default="4,16,64", help="comma-separated group sizes")
    ap.add_argument("--calls", type=int, default=40)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    sizes = [int(x) for x in args.waves.split(",") if x]
    if not sizes or min(sizes) < 1 or args.calls < 1 or args.repeat < 1:
        ap.error("--waves, --calls and --repeat take positive integers")
    for name, dtype in FORMS:
        for kind in ("normal", "int"):
            for w in sizes:
                sec = bench(name, dtype, w, kind, args.calls, args.repeat)
                print(f"{name:26s} {kind:6s} W={w:3d}  {sec * 1e6:8.1f} us/call  "
                      f"{sec * 1e6 / w:7.2f} us/wave-MFMA", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
