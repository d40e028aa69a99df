"""CLI subcommand ``gemm`` (generate .s/.hsaco/.json into a folder, design.md "Command line")
and ``check_gemm``, the GEMM checker of ``asmgen check`` (``asmgen.cli.check``)."""
from __future__ import annotations

import argparse

from ...errors import ConfigError

EXIT_OK = 0


def register(sub) -> None:
    g = sub.add_parser("gemm", help="generate a GEMM kernel (C = alpha op(A) op(B) + beta C)")
    g.add_argument("--arch", default="gfx942", choices=("gfx942", "gfx950"))
    g.add_argument("--m", type=int, required=True)
    g.add_argument("--n", type=int, required=True)
    g.add_argument("--k", type=int, required=True)
    g.add_argument("--dtype", default="f16", choices=("f16", "bf16"))
    g.add_argument("--out-dtype", default=None, choices=("f32", "f16", "bf16"))
    g.add_argument("--layout", default="NN", choices=("NN", "NT", "TN", "TT"))
    g.add_argument("--schedule", default=None,
                   help="recipe name: pgr1, pgr2, ck_v4, interleave (4 waves), pingpong (8 waves, "
                        "--waves 2x4), shuffle, fuzz (default: see below)")
    g.add_argument("--tile", default=None, help="MT0xMT1xDepthU, e.g. 256x256x64 (default 64x64x32)")
    g.add_argument("--waves", default=None, help="waves along M x N, e.g. 2x2 (default 2x2)")
    g.add_argument("--prefetch", type=int, default=None, help="K-tiles staged ahead (1..3)")
    g.add_argument("--mfma", default=None, help="MFMA shape, e.g. 32x32x8 or 16x16x16")
    g.add_argument("--staging", type=int, default=None,
                   help="K-tiles in flight in VGPRs (1 or 2; default: the recipe's)")
    g.add_argument("--activation", default="none", choices=("none", "silu", "gelu"))
    g.add_argument("--bias", action="store_true", help="fuse an f32 bias vector over N")
    g.add_argument("--nontemporal", type=int, default=0,
                   help="cache bits of the A/B loads: sc0=1 | sc1=2 | nt=4 (Tensile's NonTemporal)")
    g.add_argument("--bake-sizes", action="store_true",
                   help="M, N, K and the leading dimensions as constants of the kernel (default: arguments)")
    g.add_argument("--direct-to-lds", action="store_true",
                   help="load K-contiguous operands straight to LDS (buffer_load ... lds)")
    g.add_argument("--lds-swizzle", action="store_true",
                   help="XOR-swizzled unpadded LDS rows instead of padding (no bank conflicts)")
    g.add_argument("--k-multiple", type=int, default=1,
                   help="promise runtime K is a multiple of this (checked at launch); a multiple "
                        "of DepthU drops the per-tile K mask")
    g.add_argument("-o", "--output", required=True, help="output folder")
    g.set_defaults(func=cmd_gemm)


def _shape(text: str, n: int, what: str) -> tuple[int, ...]:
    try:
        parts = tuple(int(p) for p in text.lower().split("x"))
    except ValueError:
        raise ConfigError(f"--{what} {text!r} is not {'x'.join(['N'] * n)}") from None
    if len(parts) != n:
        raise ConfigError(f"--{what} {text!r} needs {n} numbers")
    return parts


TUNING = ("schedule", "tile", "waves", "prefetch", "mfma", "staging", "direct_to_lds",
          "lds_swizzle")


def cmd_gemm(args: argparse.Namespace) -> int:
    from ...api import gemm
    common = {"dtype": args.dtype, "layout": args.layout, "out_dtype": args.out_dtype,
                  "activation": args.activation, "bias": args.bias, "nontemporal": args.nontemporal,
                  "bake_sizes": args.bake_sizes, "k_multiple": args.k_multiple}
    if not any(getattr(args, t) for t in TUNING):
        # no tuning flag: the configuration the calibrated model ranks best for the size
        from .defaults import build_default
        kern, cfg = build_default(gemm, args.m, args.n, args.k, args.arch, **common)
        print("default configuration: " + " ".join(
            f"{k}={'x'.join(map(str, v)) if isinstance(v, tuple) else v}" for k, v in cfg.items()))
    else:
        kern = gemm(args.m, args.n, args.k, arch=args.arch, schedule=args.schedule or "pgr1",
                    tile=_shape(args.tile or "64x64x32", 3, "tile"),
                    waves=_shape(args.waves or "2x2", 2, "waves"), prefetch=args.prefetch,
                    mfma=_shape(args.mfma, 3, "mfma") if args.mfma else None,
                    direct_to_lds=args.direct_to_lds, lds_swizzle=args.lds_swizzle,
                    **({"staging": args.staging} if args.staging else {}), **common)
    path = kern.save(args.output)
    r = kern.resources
    print(f"{path}  vgpr={r['vgpr']} agpr={r['agpr']} sgpr={r['sgpr']} lds={r['lds']} "
          f"waves/simd={r['waves_per_simd']}")
    return EXIT_OK


def check_gemm(meta: dict, run, seed: int) -> tuple[bool, str]:
    from .config import GemmConfig
    from .reference import compare, gemm_random_inputs
    cfg_d = {k: v for k, v in meta["config"].items() if k != "kind"}
    try:
        cfg = GemmConfig(**cfg_d)
    except TypeError as exc:
        raise ConfigError(f"the contract's config is not a GEMM config: {exc}") from None
    inp = gemm_random_inputs(cfg, seed)
    out = run(**inp)
    return compare(cfg, out, inp["A"], inp["B"], inp["C"], inp["alpha"], inp["beta"], inp.get("bias"))
