"""The decode kinds' CLI pieces: the arguments of ``asmgen decode`` (also reached as
``asmgen attention --mode decode``, ``asmgen.cli``'s mode routing) and of ``asmgen
decode_combine``, and their ``asmgen.api.generate`` keywords."""
from __future__ import annotations

import argparse

from ...target import ARCHES, DEFAULT_ARCH


def add_arguments(a: argparse.ArgumentParser) -> None:
    a.add_argument("--arch", default=DEFAULT_ARCH, choices=ARCHES)
    a.add_argument("--batch", type=int, required=True)
    a.add_argument("--heads", type=int, required=True)
    a.add_argument("--kv-heads", type=int, default=None, help="GQA/MQA: divides --heads")
    a.add_argument("--q-tokens", type=int, default=1, help="new tokens per sequence (1..16)")
    a.add_argument("--head-dim", type=int, required=True, help="64 or 128")
    a.add_argument("--dtype", default="bf16", choices=("f16", "bf16"))
    a.add_argument("--max-context", type=int, required=True,
                   help="longest context (dense: the cache's second dim; paged: a multiple of "
                        "--page-size, max_blocks_per_seq pages)")
    a.add_argument("--context-len", type=int, default=None,
                   help="typical context the split count is chosen for (default --max-context)")
    a.add_argument("--num-splits", type=int, default=None,
                   help="KV splits per sequence (default: from batch, context and CU count)")
    add_cache_arguments(a)


def add_cache_arguments(a: argparse.ArgumentParser) -> None:
    """The KV cache's and the loop's options (decode and extend): --paged, --page-size,
    --num-blocks, --scale, --prefetch, --kv-dtype, --kv-scale."""
    a.add_argument("--paged", action="store_true", help="vLLM paged KV cache + block_table")
    a.add_argument("--page-size", type=int, default=16, help="keys per page (16..256)")
    a.add_argument("--num-blocks", type=int, default=None,
                   help="pages in the pool (default batch x max_blocks_per_seq)")
    a.add_argument("--scale", type=float, default=None, help="default 1/sqrt(head_dim)")
    a.add_argument("--prefetch", type=int, default=None, choices=(0, 1),
                   help="load key blocks one iteration ahead (default 1; 0 with --kv-scale "
                        "token at head_dim 128 on paged caches where the prefetched scales do "
                        "not fit: common/serving.py)")
    a.add_argument("--kv-dtype", default=None, choices=("f16", "bf16", "fp8_e4m3fnuz", "fp8_e4m3"),
                   help="K/V cache dtype (default --dtype; fp8: the arch's E4M3, FNUZ on CDNA3, "
                        "OCP on CDNA4, with k_scale / v_scale)")
    a.add_argument("--kv-scale", default="tensor", choices=("tensor", "token"),
                   help="fp8 KV: k_scale / v_scale per tensor (f32 scalars) or per token and KV "
                        "head (f32 buffers, AITER's layout: paged [num_blocks, kv_heads, "
                        "page_size], dense [batch, kv_heads, max_context])")


def cli_kwargs(args: argparse.Namespace) -> dict:
    return dict(batch=args.batch, heads=args.heads, kv_heads=args.kv_heads,
                q_tokens=args.q_tokens, head_dim=args.head_dim, dtype=args.dtype, arch=args.arch,
                max_context=args.max_context, context_len=args.context_len,
                num_splits=args.num_splits, **cache_kwargs(args))


def cache_kwargs(args: argparse.Namespace) -> dict:
    """The keywords of ``add_cache_arguments``' options."""
    return dict(paged=args.paged, page_size=args.page_size, num_blocks=args.num_blocks,
                scale=args.scale, prefetch=args.prefetch, kv_dtype=args.kv_dtype,
                kv_scale=args.kv_scale)


def add_combine_arguments(a: argparse.ArgumentParser) -> None:
    a.add_argument("--arch", default=DEFAULT_ARCH, choices=ARCHES)
    a.add_argument("--batch", type=int, required=True)
    a.add_argument("--heads", type=int, required=True)
    a.add_argument("--q-tokens", type=int, default=1)
    a.add_argument("--head-dim", type=int, required=True)
    a.add_argument("--dtype", default="bf16", choices=("f16", "bf16"))
    a.add_argument("--num-splits", type=int, required=True)


def combine_kwargs(args: argparse.Namespace) -> dict:
    return dict(batch=args.batch, heads=args.heads, q_tokens=args.q_tokens,
                head_dim=args.head_dim, dtype=args.dtype, num_splits=args.num_splits,
                arch=args.arch)
