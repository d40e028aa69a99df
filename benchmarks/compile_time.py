"""Compile time of a 256x256x64 pgr2 GEMM: median time to generate + schedule + allocate + emit
(asmgen's own work), and LLVM's assemble + link time separately.

    python benchmarks/compile_time.py [--repeat 5] [--arch gfx950] [--waves 2x4] [--prefetch 1]

Defaults: gfx950 with 8 waves and prefetch depth 1, because a 256x256x64 f16 tile needs 72 KiB of
LDS per buffer (A and B tiles, rows padded by 16 bytes): two buffers fit gfx950's 160 KiB but not
gfx942's 64 KiB, and 4 waves would need more than 256 VGPRs for the operands (each wave's
128x128 C tile with every K-step's operands live).
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

# Python puts this script's folder first on sys.path, where benchmarks/schedules.py would shadow
# the ``schedules`` package: import the packages, not the sibling scripts.
_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path = [p for p in sys.path if os.path.abspath(p or os.getcwd()) != _HERE]

from asmgen.api import compile_config
from asmgen.kinds.gemm.config import GemmConfig
from asmgen.toolchain import find_toolchain
from schedules import get_recipe


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--arch", default="gfx950")
    ap.add_argument("--prefetch", type=int, default=1)
    ap.add_argument("--tile", default="256x256x64")
    ap.add_argument("--waves", default="2x4")
    args = ap.parse_args()
    tile = tuple(map(int, args.tile.split("x")))
    waves = tuple(map(int, args.waves.split("x")))
    recipe = get_recipe("pgr2")
    cfg = GemmConfig(m=4096, n=4096, k=4096, dtype="f16", arch=args.arch, tile=tile, waves=waves,
                     prefetch=args.prefetch)
    tc = find_toolchain()
    gen, asm_t = [], []
    kern = None
    for _ in range(args.repeat):
        t0 = time.perf_counter()
        kern = compile_config(cfg, recipe, assemble=False)
        t1 = time.perf_counter()
        tc.assemble(kern.asm, cfg.arch)
        t2 = time.perf_counter()
        gen.append(t1 - t0)
        asm_t.append(t2 - t1)
    n_instr = sum(1 for line in kern.asm.splitlines() if line.startswith("  ") and not line.startswith("  ."))
    print(f"kernel {cfg.name}: {n_instr} instructions, LDS {cfg.lds_bytes} B, "
          f"prefetch {cfg.prefetch} ({args.repeat} runs)")
    print(f"generate+schedule+allocate+emit  median {statistics.median(gen) * 1e3:8.1f} ms  "
          f"(template {kern.timings['template'] * 1e3:.1f} ms, passes {kern.timings['passes'] * 1e3:.1f} ms, "
          f"emit {kern.timings['emit'] * 1e3:.1f} ms, last run)")
    print(f"LLVM assemble+link ({tc.source})  median {statistics.median(asm_t) * 1e3:8.1f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
