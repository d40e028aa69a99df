"""The GEMM kind's CLI pieces: the arguments of ``asmgen gemm`` (``add_arguments``; the command
itself, ``-o`` included, is the generic one of ``asmgen.cli.generate``, design.md "Command
line"), their translation into ``asmgen.api.generate`` keywords (``cli_kwargs``), and
``cli_generate``: with no tuning flag, the configuration the calibrated model ranks best
(``defaults``)."""
from __future__ import annotations

import argparse

from ...errors import ConfigError
from ...target import ARCHES


def add_arguments(g: argparse.ArgumentParser) -> None:
    g.add_argument("--arch", default=ARCHES[0], choices=ARCHES,
                   help=f"target GPU architecture (default: {ARCHES[0]})")
    g.add_argument("--m", type=int, required=True, help="rows of C (and of op(A))")
    g.add_argument("--n", type=int, required=True, help="columns of C (and of op(B))")
    g.add_argument("--k", type=int, required=True, help="the reduction length (columns of op(A))")
    g.add_argument("--dtype", default="f16",
                   choices=("f16", "bf16", "fp8_e4m3fnuz", "bf8_e5m2fnuz", "fp8_e4m3", "bf8_e5m2",
                            "i8", "mxfp8", "mxfp4"),
                   help="element type of A and B (default: f16); fp8/bf8: FNUZ on CDNA3, OCP on "
                        "CDNA4, with scale_a/scale_b arguments, any layout (NT, both operands "
                        "K-contiguous, is the fast one: the others byte-transpose MN-contiguous "
                        "operands in registers); "
                        "mxfp8 (CDNA4): E4M3 with E8M0 block scales scale_a [M, K/32], scale_b "
                        "[N, K/32], K a multiple of 32, any layout (NT fastest); mxfp4: E2M1 pairs "
                        "packed in uint8 along the contiguous dimension (NT: A [M, K/2], B "
                        "[N, K/2]; an MN-contiguous operand [K, M/2] / [K, N/2], nibble-"
                        "transposed in registers), even index in the low nibble, same scales")
    g.add_argument("--dtype-b", default=None,
                   choices=("fp8_e4m3fnuz", "bf8_e5m2fnuz", "fp8_e4m3", "bf8_e5m2"),
                   help="element type of B when it differs from A's (fp8 x bf8 or bf8 x fp8 of the "
                        "arch's encodings, v_mfma_f32_*_fp8_bf8 / _bf8_fp8)")
    g.add_argument("--scale-a", default="tensor", choices=("tensor", "ptr", "row"),
                   help="scale_a of 8-bit inputs: an f32 argument (default), a device pointer to "
                        "one f32, or an f32 vector over M (per row of A, per-token quantisation)")
    g.add_argument("--scale-b", default="tensor", choices=("tensor", "ptr", "col"),
                   help="scale_b of 8-bit inputs: an f32 argument (default), a device pointer, or "
                        "an f32 vector over N (per column of C, per-channel quantisation)")
    g.add_argument("--out-dtype", default=None,
                   choices=("f32", "f16", "bf16", "i32", "fp8_e4m3fnuz", "bf8_e5m2fnuz", "fp8_e4m3",
                            "bf8_e5m2"),
                   help="element type of C (default: the input dtype) (f32 for fp8/bf8 inputs, i32 for "
                        "i8); fp8/bf8 outputs (the arch's encodings) saturate to the largest finite value")
    g.add_argument("--layout", default="NN", choices=("NN", "NT", "TN", "TT"),
                   help="A and B as stored: N row-major as is, T transposed (default: NN)")
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


def _common(args: argparse.Namespace) -> dict:
    return {"dtype": args.dtype, "dtype_b": args.dtype_b, "layout": args.layout,
            "out_dtype": args.out_dtype, "scale_a_mode": args.scale_a, "scale_b_mode": args.scale_b,
            "activation": args.activation, "bias": args.bias, "nontemporal": args.nontemporal,
            "bake_sizes": args.bake_sizes, "k_multiple": args.k_multiple}


def cli_kwargs(args: argparse.Namespace) -> dict:
    """Keywords of ``asmgen.api.generate`` for ``asmgen gemm``'s arguments (tuning flags given)."""
    return dict(m=args.m, n=args.n, k=args.k, arch=args.arch, schedule=args.schedule or "pgr1",
                tile=_shape(args.tile or "64x64x32", 3, "tile"),
                waves=_shape(args.waves or "2x2", 2, "waves"), prefetch=args.prefetch,
                mfma=_shape(args.mfma, 3, "mfma") if args.mfma else None,
                direct_to_lds=args.direct_to_lds, lds_swizzle=args.lds_swizzle,
                **({"staging": args.staging} if args.staging else {}), **_common(args))


def cli_generate(args: argparse.Namespace, generate):
    """The kernel of ``asmgen gemm``: with no tuning flag, the configuration the calibrated model
    ranks best for the size (``defaults.build_default``, printed), else the flags' one."""
    def gemm(m, n, k, schedule=None, schedule_params=None, **kw):
        return generate("gemm", schedule, schedule_params, m=m, n=n, k=k, **kw)

    if not any(getattr(args, t) for t in TUNING):
        from .defaults import build_default
        kern, cfg = build_default(gemm, args.m, args.n, args.k, args.arch, **_common(args))
        print("default configuration: " + " ".join(
            f"{k}={'x'.join(map(str, v)) if isinstance(v, tuple) else v}" for k, v in cfg.items()))
        return kern
    return gemm(**cli_kwargs(args))
