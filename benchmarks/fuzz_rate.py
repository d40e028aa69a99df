"""Print verified fuzz schedules per minute for a small GEMM config (issue #5).

A verified schedule = one ``fuzz``-recipe order compiled (template, schedule, passes, emit,
llvm-mc) and checked on the emulator against the NumPy reference. Cases run in ``--jobs`` worker
processes (default: every core; this machine has 2). Usage::

    python benchmarks/fuzz_rate.py [--seconds 60] [--jobs N] [--m 64 --n 64 --k 64]
"""
from __future__ import annotations

import argparse
import os
import time
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait


def _one(args: tuple) -> tuple[str, float]:
    m, n, k, sched_seed, emu_seed = args
    from asmgen.fuzz.cases import run_case, settle_gc
    from asmgen.fuzz.strategies import FuzzCase
    from asmgen.kinds.gemm.config import GemmConfig
    out = run_case(FuzzCase(GemmConfig(m=m, n=n, k=k, tile=(64, 64, 32), waves=(2, 2)),
                            sched_seed, emu_seed))
    settle_gc()          # as the campaign loop does after its first case
    return out.kind, out.seconds


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
                kind, sec = f.result()
                kinds[kind] = kinds.get(kind, 0) + 1
                busy += sec
    el = time.monotonic() - t0
    total = sum(kinds.values())
    ok = kinds.get("pass", 0)
    print(f"fuzz_rate: GEMM m={a.m} n={a.n} k={a.k} tile 64x64x32 waves 2x2 f16 gfx942, "
          f"{a.jobs} worker(s), {el:.0f} s")
    print(f"  cases {total}: " + ", ".join(f"{k}={v}" for k, v in sorted(kinds.items())))
    print(f"  {60.0 * ok / el:.1f} verified schedules/min  ({busy / max(total, 1):.2f} s per case "
          f"per worker)")


if __name__ == "__main__":
    main()
