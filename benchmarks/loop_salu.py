"""What cutting the SALU instructions of a GEMM's K loop could pay, under the cycle model: the
8-wave ping-pong (bf16 8192^3 NT, 256x256, LDS-DMA + swizzle) is emulated for one workgroup, then
its wave streams run on the modeled CU twice, as emulated and with every SALU instruction inside
the steady K loop removed (an upper bound: the results the emulator computed do not change, only
the issue slots those instructions took). Prints the loop's static SALU instructions and the
cycles per K iteration and MFMA busy of both runs.

    python benchmarks/loop_salu.py [--arch gfx942 gfx950] [--schedule pingpong] [--iters 6]
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

_HERE = Path(__file__).resolve().parent
sys.path[:] = [str(_HERE.parent)] + [p for p in sys.path if Path(p or ".").resolve() != _HERE]

TILES = {"gfx942": (256, 256, 32), "gfx950": (256, 256, 64)}
DEVICE = {"gfx942": "MI325X", "gfx950": "MI355X"}


def run(arch: str, schedule: str, iters: int) -> None:
    from asmgen import api
    from asmgen.kinds.gemm.profile import gemm_problem, gemm_values
    from asmgen.profiling.common import emulate_streams
    from isa.cycle import CuModel, WaveStream, params_for
    from isa.cycle.ops import decode_op
    from isa.cycle.report import summarize
    waves = (2, 4) if schedule == "pingpong" else (2, 2)
    k = api.gemm(8192, 8192, 8192, dtype="bf16", arch=arch, layout="NT", tile=TILES[arch],
                 waves=waves, schedule=schedule, lds_pad=0, direct_to_lds=True, lds_swizzle=True)
    prob = gemm_problem(k.meta, iters)
    streams = emulate_streams(k.meta, k.hsaco, gemm_values(k.meta, prob["small"], 0), 0)
    p = params_for(arch, DEVICE[arch])
    base = summarize(CuModel(arch, p).run(streams))
    lo, hi = base["loop"]
    in_loop = lambda i, pc: lo <= pc <= hi and decode_op(arch, i).kind == "salu"   # noqa: E731
    sets_m0 = lambda i: str(i).split()[1].rstrip(",") == "m0"                       # noqa: E731

    def without(drop) -> dict:
        keep = [[(i, pc) for i, pc in zip(s.instrs, s.pcs, strict=True)
                 if not (in_loop(i, pc) and drop(i))] for s in streams]
        return summarize(CuModel(arch, p).run(
            [WaveStream(s.wave, [i for i, _ in kp], s.wg, s.simd, [pc for _, pc in kp])
             for s, kp in zip(streams, keep, strict=True)]))
    after = without(lambda i: True)
    parts = {"the LDS-DMA m0 set-up": without(sets_m0),
             "the rest (pointers, bounds, buffer swap, counter)": without(lambda i: not sets_m0(i))}
    static = sorted({pc: str(i) for i, pc in zip(streams[0].instrs, streams[0].pcs, strict=True)
                     if in_loop(i, pc)}.items())
    loop_len = hi - lo + 1
    print(f"{arch} {schedule} {k.name}\n  loop pcs {lo}..{hi} ({loop_len} instructions), "
          f"{len(static)} SALU in it (wave 0):")
    for pc, text in static:
        print(f"    {pc:5d}  {text}")
    print(f"  clk/K-iter {base['cycles_per_iter']:.0f} -> {after['cycles_per_iter']:.0f} without them "
          f"({100 * (after['cycles_per_iter'] / base['cycles_per_iter'] - 1):+.1f} %), MFMA busy "
          f"{100 * base['mfma_busy']:.1f} -> {100 * after['mfma_busy']:.1f} %")
    for what, r in parts.items():
        print(f"    without only {what}: {r['cycles_per_iter']:.0f} clk/K-iter")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--arch", nargs="+", default=["gfx942", "gfx950"], choices=sorted(TILES))
    ap.add_argument("--schedule", default="pingpong")
    ap.add_argument("--iters", type=int, default=6)
    args = ap.parse_args(argv)
    for arch in args.arch:
        run(arch, args.schedule, args.iters)
    return 0


if __name__ == "__main__":
    sys.exit(main())
