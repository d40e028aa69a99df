"""The extend kind's CLI pieces: the arguments of ``asmgen extend`` (also reached as ``asmgen
attention --mode extend``, ``asmgen.cli``'s mode routing) and their ``asmgen.api.generate``
keywords."""
from __future__ import annotations

import argparse

from ...target import ARCHES, DEFAULT_ARCH
from ..decode.cli import add_kv_arguments


def add_arguments(a: argparse.ArgumentParser) -> None:
    a.add_argument("--arch", default=DEFAULT_ARCH, choices=ARCHES)
    a.add_argument("--batch", type=int, required=True, help="sequences (the generated contract)")
    a.add_argument("--heads", type=int, required=True)
    a.add_argument("--kv-heads", type=int, default=None, help="GQA/MQA: divides --heads")
    a.add_argument("--seqlen-q", type=int, required=True,
                   help="new tokens per sequence of the generated contract (max_seqlen_q)")
    a.add_argument("--head-dim", type=int, required=True, help="64 or 128")
    a.add_argument("--dtype", default="bf16", choices=("f16", "bf16"))
    a.add_argument("--max-context", type=int, required=True,
                   help="longest context, new tokens included (dense: the cache's second dim; "
                        "paged: a multiple of --page-size, max_blocks_per_seq pages)")
    a.add_argument("--context-len", type=int, default=None,
                   help="keys per sequence of the generated contract (default --max-context)")
    a.add_argument("--paged", action="store_true", help="vLLM paged KV cache + block_table")
    a.add_argument("--page-size", type=int, default=16, help="keys per page (16..256)")
    a.add_argument("--num-blocks", type=int, default=None,
                   help="pages in the pool (default batch x max_blocks_per_seq)")
    a.add_argument("--scale", type=float, default=None, help="default 1/sqrt(head_dim)")
    a.add_argument("--prefetch", type=int, default=None, choices=(0, 1),
                   help="load key blocks one iteration ahead (default 1; 0 with --kv-scale "
                        "token at head_dim 128 on pages of 32+ keys)")
    add_kv_arguments(a)


def cli_kwargs(args: argparse.Namespace) -> dict:
    return dict(batch=args.batch, heads=args.heads, kv_heads=args.kv_heads,
                seqlen_q=args.seqlen_q, head_dim=args.head_dim, dtype=args.dtype,
                arch=args.arch, max_context=args.max_context, context_len=args.context_len,
                paged=args.paged, page_size=args.page_size, num_blocks=args.num_blocks,
                scale=args.scale, prefetch=args.prefetch, kv_dtype=args.kv_dtype,
                kv_scale=args.kv_scale)
