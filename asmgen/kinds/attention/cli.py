"""The attention kind's CLI pieces: the arguments of ``asmgen attention`` (``add_arguments``; the
command itself, ``-o`` included, is the generic one of ``asmgen.cli``, design.md "Command
line"), their translation into ``asmgen.api.generate`` keywords (``cli_kwargs``), and
``cli_generate``: with no tuning flag, the configuration the calibrated model ranks best for the
problem (``defaults``, printed), else the flags' one."""
from __future__ import annotations

import argparse

from ...target import ARCHES, DEFAULT_ARCH
from .config import FP8_DTYPES, FP8_OUT


def add_arguments(a: argparse.ArgumentParser) -> None:
    a.add_argument("--arch", default=DEFAULT_ARCH, choices=ARCHES)
    a.add_argument("--batch", type=int, required=True)
    a.add_argument("--heads", type=int, required=True)
    a.add_argument("--kv-heads", type=int, default=None, help="GQA/MQA: divides --heads")
    a.add_argument("--seqlen-q", type=int, required=True)
    a.add_argument("--seqlen-k", type=int, required=True)
    a.add_argument("--head-dim", type=int, required=True,
                   help="64, 128 or 256 (prefill; decode and extend: 64 or 128)")
    a.add_argument("--dtype", default="f16", choices=("f16", "bf16") + FP8_DTYPES,
                   help="Q/K/V type; fp8 (the arch's E4M3: FNUZ on CDNA3, OCP on CDNA4) adds "
                        "q_scale/k_scale/v_scale arguments")
    a.add_argument("--out-dtype", default=None, choices=FP8_OUT,
                   help="O's type of an fp8 kernel (default bf16)")
    a.add_argument("--causal", action="store_true", help="bottom-right aligned causal mask")
    a.add_argument("--scale", type=float, default=None, help="default 1/sqrt(head_dim)")
    a.add_argument("--schedule", default=None,
                   help="recipe name (attn_basic, attn_interleave, attn_prio, "
                        "attn_prio_interleave, attn_pingpong, shuffle); with none of --schedule, --waves, "
                        "--kv-buffers, --seed: the configuration the cycle model ranks best for "
                        "the problem (printed), else attn_basic")
    a.add_argument("--waves", type=int, default=None,
                   help="waves per workgroup (1, 2, 4, 8: the ping-pong loop), 32 query rows "
                        "each; > 1 shares K/V through LDS (default 1 when a tuning flag is "
                        "given, 8 with --schedule attn_pingpong)")
    a.add_argument("--kv-buffers", type=int, default=None,
                   help="LDS K/V buffers (2, 3; default 1 for one wave, 3 for 8, else 2)")
    a.add_argument("--seqlen-k-multiple", type=int, default=1,
                   help="promise runtime seqlen_k is a multiple of this (checked at launch); a "
                        "multiple of 32 drops the per-element key mask when not causal")
    a.add_argument("--varlen", action="store_true",
                   help="packed variable-length batch (cu_seqlens_q / cu_seqlens_k, "
                        "docs/launch-contract.md); --seqlen-q / --seqlen-k are the generated "
                        "max_seqlen_q / max_seqlen_k; uses the flags' configuration (attn_basic, "
                        "one wave unless --waves), not the model-ranked default")
    a.add_argument("--seed", type=int, default=None, help="schedule seed (fuzzing tie-break)")


TUNING = ("schedule", "waves", "kv_buffers", "seed")


def _problem(args: argparse.Namespace) -> dict:
    return dict(batch=args.batch, heads=args.heads, kv_heads=args.kv_heads,
                seqlen_q=args.seqlen_q, seqlen_k=args.seqlen_k, head_dim=args.head_dim,
                dtype=args.dtype, causal=args.causal, arch=args.arch, scale=args.scale,
                seqlen_k_multiple=args.seqlen_k_multiple,
                **({"out_dtype": args.out_dtype} if getattr(args, "out_dtype", None) else {}),
                **({"varlen": True} if getattr(args, "varlen", False) else {}))


def cli_kwargs(args: argparse.Namespace) -> dict:
    """Keywords of ``asmgen.api.generate`` for ``asmgen attention``'s arguments (as given)."""
    params = {} if args.seed is None else {"seed": args.seed}
    return dict(_problem(args), schedule=args.schedule or "attn_basic", schedule_params=params,
                **({"waves": args.waves} if args.waves else
                   {} if args.schedule == "attn_pingpong" else {"waves": 1}),
                kv_buffers=args.kv_buffers)


def cli_generate(args: argparse.Namespace, generate):
    """The kernel of ``asmgen attention``: with no tuning flag, the configuration the calibrated
    model ranks best (``defaults.build_default``, printed), else the flags' one."""
    def attention(schedule=None, schedule_params=None, **kw):
        return generate("attention", schedule, schedule_params, **kw)

    if all(getattr(args, t) is None for t in TUNING) and not getattr(args, "varlen", False):
        from .defaults import build_default
        kern, cfg = build_default(attention, **_problem(args))
        print("default configuration: " + " ".join(f"{k}={v}" for k, v in cfg.items()))
        return kern
    return attention(**cli_kwargs(args))
