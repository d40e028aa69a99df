"""Print every GEMM schedule recipe side by side under the cycle model: modeled cycles per K
iteration, steady-state MFMA busy %, whole-problem TFLOP/s, for bf16 8192^3 on gfx942 (MI325X)
and gfx950 (MI355X), next to the published anchors (cdna-facts §9.4: 749 TF MI325X, 1610 TF MI355X).

Each kernel comes from ``asmgen.api.gemm``; one workgroup of it runs on the emulator for a few K
iterations and the cycle model extrapolates over K and over the device's CUs
(``asmgen.cli_profile.profile``). A recipe that does not build or fails on the emulator is printed
as FAILED with its error; no number is made up for it. Modeled TFLOP/s assume the device's peak
clock (2100 / 2400 MHz); the anchors were measured at lower sustained clocks (cdna-timing §5).

    python benchmarks/schedules.py [--arch gfx942 gfx950] [--size 8192] [--iters 6]
                                   [--tiles-gfx942 128x128x32] [--tiles-gfx950 256x256x64 128x128x64]
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

# Run as a script, this file's folder comes first on sys.path and its name would shadow the
# ``schedules`` package of recipes: drop that folder.
_HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _HERE]
sys.modules.pop("schedules", None) if getattr(sys.modules.get("schedules"), "__file__", "") == __file__ else None

ANCHORS = {"gfx942": ("MI325X", 749.0, "HipKittens, cdna-facts §9.4"),
           "gfx950": ("MI355X", 1610.0, "HipKittens, cdna-facts §9.4")}
DEFAULT_TILES = {"gfx942": ("128x128x32",), "gfx950": ("256x256x64", "128x128x64")}


def _tile(text: str) -> tuple[int, int, int]:
    parts = tuple(int(x) for x in text.lower().split("x"))
    if len(parts) != 3:
        raise argparse.ArgumentTypeError(f"tile {text!r} is not MxNxK")
    return parts


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--arch", nargs="+", default=["gfx942", "gfx950"])
    ap.add_argument("--size", type=int, default=8192)
    ap.add_argument("--iters", type=int, default=6, help="K iterations emulated per kernel")
    ap.add_argument("--waves", default="2x2")
    ap.add_argument("--schedules", nargs="*", help="recipes to compare (default: all registered)")
    for arch, tiles in DEFAULT_TILES.items():
        ap.add_argument(f"--tiles-{arch}", type=_tile, nargs="+", default=[_tile(t) for t in tiles])
    args = ap.parse_args(argv)
    try:
        from asmgen import api
        from asmgen.cli_profile import profile
        from asmgen.errors import AsmgenError
        from isa.emu.errors import EmulatorError
        from isa.errors import IsaError
        from schedules import recipe_names
    except ImportError as exc:
        print(f"schedules benchmark: asmgen is not usable yet ({exc}); no numbers", file=sys.stderr)
        return 2
    errors = (AsmgenError, IsaError, EmulatorError)
    names = args.schedules or recipe_names()
    waves = tuple(int(x) for x in args.waves.split("x"))
    ok = 0
    for arch in args.arch:
        for tile in getattr(args, f"tiles_{arch}"):
            ok += _table(api, profile, errors, arch, tile, waves, args, names)
    if not ok:
        print("\nno recipe produced a kernel the model could run: no numbers", file=sys.stderr)
        return 1
    return 0


def _table(api, profile, errors, arch, tile, waves, args, names) -> int:
    """Print one table (one arch, one tile); returns how many recipes produced numbers."""
    device, anchor, src = ANCHORS[arch]
    size = args.size
    print(f"\nbf16 GEMM {size}^3 on {arch} ({device}), tile {'x'.join(map(str, tile))}, "
          f"waves {args.waves}; published: {anchor:.0f} TF ({src})")
    print(f"{'schedule':<10} {'clk/K-iter':>10} {'MFMA busy':>10} {'WG/CU':>6} {'TFLOP/s':>9} "
          f"{'% peak':>7} {'vs anchor':>9}  time")
    ok = 0
    for name in names:
        t0 = time.perf_counter()
        try:
            k = api.gemm(size, size, size, dtype="bf16", arch=arch, tile=tile, waves=waves,
                         schedule=name)
            out = profile(k, iters=args.iters, device=device)
        except errors as exc:   # report the failure, keep comparing the other recipes
            msg = str(exc).splitlines()[0][:110]
            print(f"{name:<10} {'FAILED':>10}  {type(exc).__name__}: {msg}")
            continue
        ok += 1
        p = out["perf"]
        print(f"{name:<10} {out['cycles_per_iter']:>10.0f} {100 * out['mfma_busy']:>9.1f}% "
              f"{out['wgs_per_cu']:>6} {out['tflops']:>9.1f} {100 * p['fraction_of_peak']:>6.1f}% "
              f"{out['tflops'] / anchor:>8.2f}x  {time.perf_counter() - t0:.0f}s")
    return ok


if __name__ == "__main__":
    sys.exit(main())
