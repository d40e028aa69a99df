"""Generate an f16 GEMM for gfx942, check it on the emulator against NumPy, print its resources.

    python examples/gemm_fp16.py [--m 128 --n 128 --k 96 --layout NN --schedule pgr2 -o DIR]
"""
from __future__ import annotations

import argparse
import time

from asmgen import api
from asmgen.kinds.gemm.reference import compare, gemm_random_inputs


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--m", type=int, default=128)
    ap.add_argument("--n", type=int, default=128)
    ap.add_argument("--k", type=int, default=96)
    ap.add_argument("--arch", default="gfx942")
    ap.add_argument("--layout", default="NN")
    ap.add_argument("--schedule", default="pgr2")
    ap.add_argument("--tile", default="64x64x32")
    ap.add_argument("--waves", default="2x2")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("-o", "--output", default=None, help="also save .s/.hsaco/.json here")
    args = ap.parse_args()

    t0 = time.perf_counter()
    kern = api.gemm(args.m, args.n, args.k, dtype="f16", arch=args.arch, layout=args.layout,
                    schedule=args.schedule, tile=tuple(map(int, args.tile.split("x"))),
                    waves=tuple(map(int, args.waves.split("x"))))
    t1 = time.perf_counter()
    r = kern.resources
    print(f"kernel     {kern.name}")
    print(f"generated  in {t1 - t0:.2f} s ({', '.join(f'{k} {v:.2f}s' for k, v in kern.timings.items())})")
    print(f"resources  VGPR {r['vgpr']}  AGPR {r['agpr']}  SGPR {r['sgpr']}  LDS {r['lds']} B  "
          f"occupancy {r['waves_per_simd']} waves/SIMD")
    print(f"launch     grid {kern.meta['grid']} block {kern.meta['block']}")
    if args.output:
        print(f"saved      {kern.save(args.output)}")

    inp = gemm_random_inputs(kern.config, args.seed)
    run = api.load(kern, backend="emu", seed=args.seed)
    t2 = time.perf_counter()
    out = run(**inp)
    t3 = time.perf_counter()
    ok, msg = compare(kern.config, out, inp["A"], inp["B"], inp["C"], inp["alpha"], inp["beta"])
    steps = run.last_emulator.steps
    print(f"emulator   {steps} wave-instructions in {t3 - t2:.2f} s ({steps / (t3 - t2):,.0f}/s)")
    print(f"check      {'OK' if ok else 'MISMATCH'}: {msg}")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
