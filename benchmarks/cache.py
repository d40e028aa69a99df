"""Kernel cache: time of a cold ``asmgen.gemm(...)`` (generate + schedule + passes + emit + assemble
and store) against the same call answered from the on-disk cache, through ``asmgen.cache.cached_gemm``.

    python benchmarks/cache.py [--repeat 5] [--m 4096 --n 4096 --k 4096] [--tile 128x128x32]
                               [--schedule pgr2] [--arch gfx942]

Uses a fresh temporary cache folder (the user's cache is untouched). Cold = median over ``repeat``
builds, each after ``cache_clear``; cached = median over ``repeat`` hits.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

# Run as a script, this folder is sys.path[0]; benchmarks/schedules.py would then shadow the
# ``schedules`` package that asmgen.gemm imports: drop the folder.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]

from asmgen.cache import cache_clear, cached_gemm


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--arch", default="gfx942")
    ap.add_argument("--m", type=int, default=4096)
    ap.add_argument("--n", type=int, default=4096)
    ap.add_argument("--k", type=int, default=4096)
    ap.add_argument("--tile", default="128x128x32")
    ap.add_argument("--schedule", default="pgr2")
    args = ap.parse_args()
    tile = tuple(map(int, args.tile.split("x")))
    kw = {"m": args.m, "n": args.n, "k": args.k, "dtype": "f16", "arch": args.arch, "tile": tile,
          "schedule": args.schedule}
    with tempfile.TemporaryDirectory(prefix="asmgen-cache-bench-") as root:
        cached_gemm(**kw, root=root)           # warm imports and toolchain discovery
        cold, warm = [], []
        for _ in range(args.repeat):
            cache_clear(root)
            t0 = time.perf_counter()
            kern, hit = cached_gemm(**kw, root=root)
            cold.append(time.perf_counter() - t0)
            assert not hit
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            again, hit = cached_gemm(**kw, root=root)
            warm.append(time.perf_counter() - t0)
            assert hit and again.hsaco == kern.hsaco
    c, w = statistics.median(cold), statistics.median(warm)
    print(f"asmgen.gemm {args.m}x{args.n}x{args.k} f16 {args.arch} tile {args.tile} {args.schedule} "
          f"({kern.name}, {len(kern.hsaco)} B code object)")
    print(f"cold  (build + store): {c * 1e3:9.1f} ms  (median of {args.repeat})")
    print(f"cached (hit):          {w * 1e3:9.2f} ms  (median of {args.repeat})")
    print(f"speed-up:              {c / w:9.0f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
