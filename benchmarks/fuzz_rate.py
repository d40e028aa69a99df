"""Print verified fuzz schedules per minute for a small GEMM config (issue #5).

A verified schedule = one ``fuzz``-recipe order compiled (template, schedule, passes, emit,
llvm-mc) and checked on the emulator against the NumPy reference. Cases run in ``--jobs`` worker
processes (default: every core; this machine has 2). Usage::

    python benchmarks/fuzz_rate.py [--seconds 60] [--jobs N] [--m 64 --n 64 --k 64]
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait

# run as a script this folder is sys.path[0] and the repository root is not (the workers inherit
# the path): make ``asmgen`` importable without an install
_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [os.path.dirname(_HERE)] + [p for p in sys.path if os.path.abspath(p or ".") != _HERE]


def _cpu() -> float:
    """CPU seconds of this process and its finished children (llvm-mc, ld.lld)."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def _one(args: tuple) -> tuple[str, float, float]:
    m, n, k, sched_seed, emu_seed = args
    c0 = _cpu()
    from asmgen.fuzz.cases import run_case, settle_gc
    from asmgen.fuzz.strategies import FuzzCase
    from asmgen.kinds.gemm.config import GemmConfig
    out = run_case(FuzzCase(GemmConfig(m=m, n=n, k=k, tile=(64, 64, 32), waves=(2, 2)),
                            sched_seed, emu_seed))
    settle_gc()          # as the campaign loop does after its first case
    return out.kind, out.seconds, _cpu() - c0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=60.0)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--m", type=int, default=64)
    ap.add_argument("--n", type=int, default=64)
    ap.add_argument("--k", type=int, default=64)
    a = ap.parse_args()
    kinds: dict[str, int] = {}
    busy = 0.0
    cpu = 0.0
    seed = 0
    t0 = time.monotonic()
    with ProcessPoolExecutor(a.jobs) as pool:
        # warm every worker (imports, spec tables) before the clock starts
        list(pool.map(_one, [(a.m, a.n, a.k, 10**6 + i, i) for i in range(a.jobs)]))
        t0 = time.monotonic()
        pending = set()
        while time.monotonic() - t0 < a.seconds or pending:
            while time.monotonic() - t0 < a.seconds and len(pending) < a.jobs:
                pending.add(pool.submit(_one, (a.m, a.n, a.k, seed, seed)))
                seed += 1
            done, pending = wait(pending, return_when=FIRST_COMPLETED)
            for f in done:
                kind, sec, c = f.result()
                kinds[kind] = kinds.get(kind, 0) + 1
                busy += sec
                cpu += c
    el = time.monotonic() - t0
    total = sum(kinds.values())
    ok = kinds.get("pass", 0)
    print(f"fuzz_rate: GEMM m={a.m} n={a.n} k={a.k} tile 64x64x32 waves 2x2 f16 gfx942, "
          f"{a.jobs} worker(s), {el:.0f} s")
    print(f"  cases {total}: " + ", ".join(f"{k}={v}" for k, v in sorted(kinds.items())))
    print(f"  {60.0 * ok / el:.1f} verified schedules/min  ({busy / max(total, 1):.2f} s per case "
          f"per worker)")
    # CPU per case (Python + llvm-mc/ld.lld) does not grow with the machine's load as wall time
    # does: the rate an idle machine's ``jobs`` cores would reach
    per = cpu / max(total, 1)
    print(f"  {per:.3f} CPU s per case (worker + its llvm-mc/ld.lld): "
          f"{60.0 * a.jobs / per * ok / max(total, 1) if per else 0:.0f} verified schedules/min at full "
          f"use of {a.jobs} "
          f"core(s)")


if __name__ == "__main__":
    main()
