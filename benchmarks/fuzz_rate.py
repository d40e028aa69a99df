"""Print verified fuzz schedules per minute for a small GEMM config (issue #5).

A verified schedule = one ``fuzz``-recipe order compiled (template, schedule, passes, emit,
llvm-mc + ld.lld) and checked on the emulator with every check against the NumPy reference. Cases
run in ``--jobs`` worker processes (default: every core; this machine has 2), ``--batch`` cases
per task, whose kernels are assembled and linked as one code object (``asmgen.fuzz.batch``, as
``asmgen fuzz`` does; ``--batch 1``: one case at a time through ``run_case``, one llvm-mc and one
ld.lld each). Usage::

    python benchmarks/fuzz_rate.py [--seconds 60] [--jobs N] [--batch K] [--m 64 --n 64 --k 64]
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


def _batch(args: tuple) -> list[tuple[str, float]]:
    """(kind, seconds) of the cases seeded ``seed0 .. seed0 + batch - 1``."""
    m, n, k, seed0, batch = args
    from asmgen.fuzz.batch import run_batch
    from asmgen.fuzz.cases import run_case, settle_gc
    from asmgen.fuzz.strategies import FuzzCase
    from asmgen.kinds.gemm.config import GemmConfig
    cfg = GemmConfig(m=m, n=n, k=k, tile=(64, 64, 32), waves=(2, 2))
    cases = [FuzzCase(cfg, s, s) for s in range(seed0, seed0 + batch)]
    outs = [run_case(cases[0])] if batch == 1 else run_batch(cases)
    settle_gc()          # as the campaign loop does after its first case
    return [(o.kind, o.seconds) for o in outs]


def _one(args: tuple) -> tuple[list, float]:
    c0 = _cpu()
    res = _batch(args)
    return res, _cpu() - c0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=60.0)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--batch", type=int, default=None,
                    help="cases per code object (default: asmgen.fuzz.batch.BATCH)")
    ap.add_argument("--m", type=int, default=64)
    ap.add_argument("--n", type=int, default=64)
    ap.add_argument("--k", type=int, default=64)
    a = ap.parse_args()
    if a.batch is None:
        from asmgen.fuzz.batch import BATCH
        a.batch = BATCH
    a.batch = max(1, a.batch)
    kinds: dict[str, int] = {}
    busy = 0.0
    cpu = 0.0
    seed = 0
    t0 = time.monotonic()
    with ProcessPoolExecutor(a.jobs) as pool:
        # warm every worker (imports, spec tables) before the clock starts
        list(pool.map(_one, [(a.m, a.n, a.k, 10**6 + a.batch * i, a.batch)
                             for i in range(a.jobs)]))
        t0 = time.monotonic()
        pending = set()
        while time.monotonic() - t0 < a.seconds or pending:
            while time.monotonic() - t0 < a.seconds and len(pending) < a.jobs:
                pending.add(pool.submit(_one, (a.m, a.n, a.k, seed, a.batch)))
                seed += a.batch
            done, pending = wait(pending, return_when=FIRST_COMPLETED)
            for f in done:
                res, c = f.result()
                for kind, sec in res:
                    kinds[kind] = kinds.get(kind, 0) + 1
                    busy += sec
                cpu += c
    el = time.monotonic() - t0
    total = sum(kinds.values())
    ok = kinds.get("pass", 0)
    print(f"fuzz_rate: GEMM m={a.m} n={a.n} k={a.k} tile 64x64x32 waves 2x2 f16 gfx942, "
          f"{a.jobs} worker(s), batches of {a.batch}, {el:.0f} s")
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
