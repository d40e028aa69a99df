"""The extend kind's CLI pieces: the arguments of ``asmgen extend`` (also reached as ``asmgen
attention --mode extend``, ``asmgen.cli``'s mode routing) and their ``asmgen.api.generate``
keywords."""
from __future__ import annotations

import argparse

from ...target import ARCHES, DEFAULT_ARCH
from ..decode.cli import add_cache_arguments, cache_kwargs


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
    add_cache_arguments(a)


def cli_kwargs(args: argparse.Namespace) -> dict:
    return dict(batch=args.batch, heads=args.heads, kv_heads=args.kv_heads,
                seqlen_q=args.seqlen_q, head_dim=args.head_dim, dtype=args.dtype,
                arch=args.arch, max_context=args.max_context, context_len=args.context_len,
                **cache_kwargs(args))
