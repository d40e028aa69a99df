"""Print every GEMM schedule recipe side by side under the cycle model: modeled cycles per K
iteration, steady-state MFMA busy %, whole-problem TFLOP/s and the kernel's resources, for bf16
8192^3 (layout NT) on gfx942 (MI325X) and gfx950 (MI355X), next to the published anchors
(cdna-facts §9.4: 749 TF MI325X, 1610 TF MI355X).

Each kernel comes from ``asmgen.api.gemm``; one workgroup of it runs on the emulator for a few K
iterations and the cycle model extrapolates over K and over the device's CUs
(``asmgen.cli.profile.profile``). A recipe that does not build or fails on the emulator is printed
as FAILED with its error; no number is made up for it (a workgroup whose waves cannot all be
resident is refused by ``asmgen.api``, cdna-facts §1). ``TFLOP/s`` is at the device's peak clock
(2100 / 2400 MHz); ``TF@sust`` at its power-limited clock (``isa.cycle.power``: each round at the
clock its MFMA activity allows, anchored on MI325X's measured 1447 MHz and MI355X's fitted 1704 MHz,
see benchmarks/calibration.py), which is what the anchors ran at and what ``vs anchor`` compares.

Waves per recipe: ``pingpong`` 2x4 (two per SIMD, the 8-wave ping-pong), every other recipe 2x2.
The attention recipes and the schedule fuzzers (``fuzz``, ``shuffle``) are not GEMM schedules to
compare and are left out unless named with ``--schedules``.

    python benchmarks/schedules.py [--arch gfx942 gfx950] [--size 8192] [--iters 6]
        [--layout NT] [--lds-pad 0] [--lds-swizzle] [--direct-to-lds]
        [--tiles-gfx942 256x256x32] [--tiles-gfx950 256x256x64] [--schedules pgr1 pingpong]
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
# 256x256 tiles: two unpadded LDS buffers of 256x256x32 bf16 are exactly gfx942's 64 KiB
DEFAULT_TILES = {"gfx942": ("256x256x32",), "gfx950": ("256x256x64",)}
RECIPE_WAVES = {"pingpong": (2, 4)}
DEFAULT_WAVES = (2, 2)
NOT_COMPARED = ("fuzz", "shuffle")    # schedule fuzzers: random legal orders, not schedules


def _tile(text: str) -> tuple[int, int, int]:
    parts = tuple(int(x) for x in text.lower().split("x"))
    if len(parts) != 3:
        raise argparse.ArgumentTypeError(f"tile {text!r} is not MxNxK")
    return parts


def _waves(text: str) -> tuple[int, int]:
    parts = tuple(int(x) for x in text.lower().split("x"))
    if len(parts) != 2:
        raise argparse.ArgumentTypeError(f"waves {text!r} is not MxN")
    return parts


def gemm_recipes() -> list[str]:
    """Registered GEMM recipes worth comparing (attention recipes and fuzzers left out)."""
    from schedules import get_recipe, recipe_names
    from schedules.attention_fwd import AttnRecipe
    return [n for n in recipe_names()
            if n not in NOT_COMPARED and not isinstance(get_recipe(n), AttnRecipe)]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--arch", nargs="+", default=["gfx942", "gfx950"])
    ap.add_argument("--size", type=int, default=8192)
    ap.add_argument("--iters", type=int, default=6, help="K iterations emulated per kernel")
    ap.add_argument("--layout", default="NT", choices=("NN", "NT", "TN", "TT"))
    ap.add_argument("--waves", type=_waves, default=None,
                    help="waves of every recipe but pingpong (default 2x2)")
    ap.add_argument("--pingpong-waves", type=_waves, default=RECIPE_WAVES["pingpong"])
    ap.add_argument("--lds-pad", type=int, default=0,
                    help="f16 elements of LDS row padding (0: a 256x256x32 tile fits gfx942's "
                         "64 KiB in two buffers; LDS-DMA and the swizzle need 0)")
    ap.add_argument("--schedules", nargs="*", help="recipes to compare (default: the GEMM ones)")
    ap.add_argument("--prefetch", type=int, default=None,
                    help="LDS prefetch depth for every recipe (default: each recipe's own; pgr2's "
                         "2 needs three LDS buffers, which a 256x256 tile does not fit)")
    for arch, tiles in DEFAULT_TILES.items():
        ap.add_argument(f"--tiles-{arch}", type=_tile, nargs="+", default=[_tile(t) for t in tiles])
    try:
        from asmgen.kinds.gemm.config import GemmConfig
        fields = GemmConfig.__dataclass_fields__
    except ImportError:
        fields = {}
    if "direct_to_lds" in fields:
        ap.add_argument("--direct-to-lds", action="store_true",
                        help="K-contiguous operands load straight into LDS (LDS-DMA)")
    if "lds_swizzle" in fields:
        ap.add_argument("--lds-swizzle", action="store_true",
                        help="XOR-swizzled unpadded LDS rows instead of padding")
    if "k_multiple" in fields:
        ap.add_argument("--k-aligned", action="store_true",
                        help="promise K is a multiple of the tile's K (k_multiple = DepthU): no "
                             "per-tile K mask in the loop")
    args = ap.parse_args(argv)
    try:
        from asmgen import api
        from asmgen.cli.profile import profile
        from asmgen.errors import AsmgenError
        from isa.emu.errors import EmulatorError
        from isa.errors import IsaError
    except ImportError as exc:
        print(f"schedules benchmark: asmgen is not usable yet ({exc}); no numbers", file=sys.stderr)
        return 2
    errors = (AsmgenError, IsaError, EmulatorError)
    names = args.schedules or gemm_recipes()
    tuning = {"lds_pad": args.lds_pad}
    for knob in ("direct_to_lds", "lds_swizzle"):
        if getattr(args, knob, False):
            tuning[knob] = True
    ok = 0
    for arch in args.arch:
        for tile in getattr(args, f"tiles_{arch}"):
            ok += _table(api, profile, errors, arch, tile, args, names, tuning)
    if not ok:
        print("\nno recipe produced a kernel the model could run: no numbers", file=sys.stderr)
        return 1
    return 0


def _waves_of(name: str, args) -> tuple[int, int]:
    if name == "pingpong":
        return args.pingpong_waves
    return args.waves or RECIPE_WAVES.get(name, DEFAULT_WAVES)


def _table(api, profile, errors, arch, tile, args, names, tuning) -> int:
    """Print one table (one arch, one tile); returns how many recipes produced numbers."""
    device, anchor, src = ANCHORS[arch]
    size = args.size
    knobs = " ".join(f"{k}={v}" for k, v in tuning.items())
    print(f"\nbf16 GEMM {size}^3 {args.layout} on {arch} ({device}), tile "
          f"{'x'.join(map(str, tile))}, {knobs}; published: {anchor:.0f} TF ({src})")
    print(f"{'schedule':<11}{'waves':>5} {'clk/K-iter':>10} {'MFMA busy':>10} {'WG/CU':>6} "
          f"{'TFLOP/s':>8} {'% peak':>7} {'TF@sust':>8} {'vs anchor':>9} {'VGPR':>5} {'AGPR':>5} "
          f"{'w/SIMD':>6} "
          f"{'LDS':>7}  fit  time")
    ok = 0
    for name in names:
        waves = _waves_of(name, args)
        wtxt = "x".join(map(str, waves))
        t0 = time.perf_counter()
        try:
            extra = {"k_multiple": tile[2]} if getattr(args, "k_aligned", False) else {}
            k = api.gemm(size, size, size, dtype="bf16", arch=arch, layout=args.layout, tile=tile,
                         waves=waves, schedule=name, prefetch=args.prefetch, **tuning, **extra)
            out = profile(k, iters=args.iters, device=device)
        except errors as exc:   # report the failure, keep comparing the other recipes
            msg = str(exc).splitlines()[0][:110]
            print(f"{name:<11}{wtxt:>5} {'FAILED':>10}  {type(exc).__name__}: {msg}")
            continue
        ok += 1
        p, r = out["perf"], k.resources
        # a workgroup's waves spread over the 4 SIMDs: each SIMD must hold ceil(waves / 4)
        need = -(-waves[0] * waves[1] // 4)
        fit = "yes" if r["waves_per_simd"] >= need else "NO-FIT"
        print(f"{name:<11}{wtxt:>5} {out['cycles_per_iter']:>10.0f} {100 * out['mfma_busy']:>9.1f}% "
              f"{out['wgs_per_cu']:>6} {out['tflops']:>8.1f} {100 * p['fraction_of_peak']:>6.1f}% "
              f"{out['tflops_sustained']:>8.1f} {out['tflops_sustained'] / anchor:>8.2f}x "
              f"{r['vgpr']:>5} {r['agpr']:>5} "
              f"{r['waves_per_simd']:>6} {r['lds']:>7}  {fit:<4} {time.perf_counter() - t0:.0f}s")
    return ok


if __name__ == "__main__":
    sys.exit(main())
