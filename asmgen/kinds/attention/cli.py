"""CLI subcommand ``attention`` (generate .s/.hsaco/.json into a folder, design.md "Command
line") and ``check_attention``, the checker ``asmgen check`` (``asmgen.cli.check``) uses for
contracts of kind ``attention``.
"""
from __future__ import annotations

import argparse

from ...errors import ConfigError

EXIT_OK = 0


def register(sub) -> None:
    a = sub.add_parser("attention", help="generate a flash-attention forward kernel (O and LSE)")
    a.add_argument("--arch", default="gfx942", choices=("gfx942", "gfx950"))
    a.add_argument("--batch", type=int, required=True)
    a.add_argument("--heads", type=int, required=True)
    a.add_argument("--kv-heads", type=int, default=None, help="GQA/MQA: divides --heads")
    a.add_argument("--seqlen-q", type=int, required=True)
    a.add_argument("--seqlen-k", type=int, required=True)
    a.add_argument("--head-dim", type=int, required=True, help="64 or 128")
    a.add_argument("--dtype", default="f16", choices=("f16", "bf16"))
    a.add_argument("--causal", action="store_true", help="bottom-right aligned causal mask")
    a.add_argument("--scale", type=float, default=None, help="default 1/sqrt(head_dim)")
    a.add_argument("--schedule", default="attn_basic",
                   help="recipe name (attn_basic, attn_interleave, attn_prio, "
                        "attn_prio_interleave, shuffle)")
    a.add_argument("--waves", type=int, default=1,
                   help="waves per workgroup (1, 2, 4), 32 query rows each; > 1 shares K/V "
                        "through LDS")
    a.add_argument("--kv-buffers", type=int, default=None,
                   help="LDS K/V buffers (2, 3; default 1 for one wave, else 2)")
    a.add_argument("--seqlen-k-multiple", type=int, default=1,
                   help="promise runtime seqlen_k is a multiple of this (checked at launch); a "
                        "multiple of 32 drops the per-element key mask when not causal")
    a.add_argument("--seed", type=int, default=None, help="schedule seed (fuzzing tie-break)")
    a.add_argument("-o", "--output", required=True, help="output folder")
    a.set_defaults(func=cmd_attention)


def cmd_attention(args: argparse.Namespace) -> int:
    from .api import attention
    params = {} if args.seed is None else {"seed": args.seed}
    kern = attention(batch=args.batch, heads=args.heads, kv_heads=args.kv_heads,
                     seqlen_q=args.seqlen_q, seqlen_k=args.seqlen_k, head_dim=args.head_dim,
                     dtype=args.dtype, causal=args.causal, arch=args.arch,
                     schedule=args.schedule, scale=args.scale, schedule_params=params,
                     waves=args.waves, kv_buffers=args.kv_buffers,
                     seqlen_k_multiple=args.seqlen_k_multiple)
    path = kern.save(args.output)
    r = kern.resources
    print(f"{path}  vgpr={r['vgpr']} agpr={r['agpr']} sgpr={r['sgpr']} lds={r['lds']} "
          f"waves/simd={r['waves_per_simd']}")
    return EXIT_OK


def check_attention(meta: dict, run, seed: int) -> tuple[bool, str]:
    """Checker for ``asmgen check``: seeded Q/K/V, run, compare O and LSE with the reference."""
    from .config import AttentionConfig
    from .reference import attention_random_inputs, compare_attention
    cfg_d = {k: v for k, v in meta["config"].items() if k != "kind"}
    try:
        cfg = AttentionConfig(**cfg_d)
    except TypeError as exc:
        raise ConfigError(f"the contract's config is not an attention config: {exc}") from None
    inp = attention_random_inputs(cfg, seed)
    out = run(**inp)
    if not isinstance(out, dict) or "O" not in out or "LSE" not in out:
        raise ConfigError("the runner did not return the O and LSE outputs")
    return compare_attention(cfg, out, inp)
