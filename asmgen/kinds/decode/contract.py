"""The decode launch contracts, in kernarg order (the templates read their offsets from them).

``decode``: ``q [batch, q_tokens, heads, head_dim]``; ``k_cache`` / ``v_cache`` dense
``[batch, max_context, kv_heads, head_dim]`` or paged ``[num_blocks, page_size, kv_heads,
head_dim]``; ``context_lens [batch]`` int32 (each in 0..max_context = max_blocks_per_seq x
page_size paged, checked at launch for host arrays); paged: ``block_table [batch,
max_blocks_per_seq]`` int32 (each entry in 0..num_blocks - 1, checked at launch); outputs ``o [batch, q_tokens, heads, head_dim]`` and ``lse [batch, q_tokens, heads]`` f32
with one split, else ``o_partial [batch, num_splits, q_tokens, heads, head_dim]`` (``dtype``)
and ``lse_partial [batch, num_splits, q_tokens, heads]`` f32; scalars ``batch`` (u32), paged
``num_blocks`` (u32), ``scale`` (f32); with an fp8 ``kv_dtype`` the caches are ``kv_dtype`` and
``k_scale``, ``v_scale`` (f32, per tensor: K = k_scale x k_cache, V = v_scale x v_cache) follow;
with ``kv_scale`` "token" they are f32 buffers instead, one scale per (key, KV head) in AITER's
per-token layout (its ``pa_fwd_asm`` K_QScale / V_QScale): paged ``[num_blocks, kv_heads,
page_size]``, dense ``[batch, kv_heads, max_context]`` (K[j, h] = k_scale[.., h, j] k_cache[j, h]).

``decode_combine``: ``o_partial``, ``lse_partial`` in, ``o``, ``lse`` out, scalar ``batch``.
"""
from __future__ import annotations

from dataclasses import replace

from ...kernarg import ArgSpec, row_major_strides
from ..attention.contract import F32_TINY, SCALE_MAX
from .config import BATCH_MAX, BUFFER_BYTES_MAX, DecodeConfig


def _buf(name, dtype, dims, sizes, io="in") -> ArgSpec:
    shape = tuple(sizes.get(d, d) if isinstance(d, str) else d for d in dims)
    return ArgSpec(name, "buffer", dtype, shape, row_major_strides(shape), io, dims=tuple(dims))


def partial_dims(cfg) -> tuple[tuple, tuple]:
    """dims of ``o_partial`` and ``lse_partial``."""
    return (("batch", cfg.num_splits, cfg.q_tokens, cfg.heads, cfg.head_dim),
            ("batch", cfg.num_splits, cfg.q_tokens, cfg.heads))


def output_args(cfg, partial: bool, io: str = "out") -> list[ArgSpec]:
    sizes = {"batch": cfg.batch}
    if partial:
        od, ld = partial_dims(cfg)
        return [_buf("o_partial", cfg.dtype, od, sizes, io), _buf("lse_partial", "f32", ld, sizes, io)]
    return [_buf("o", cfg.dtype, ("batch", cfg.q_tokens, cfg.heads, cfg.head_dim), sizes, io),
            _buf("lse", "f32", ("batch", cfg.q_tokens, cfg.heads), sizes, io)]


def block_table_arg(cfg, sizes: dict) -> ArgSpec:
    """``block_table [batch, max_blocks_per_seq]`` int32, every entry a page of the pool:
    0..num_blocks - 1 at the runtime ``num_blocks`` (checked at launch for host arrays; unused
    entries too: pad with 0, as vLLM's tables are)."""
    bt = _buf("block_table", "i32", ("batch", cfg.max_blocks_per_seq), sizes)
    return replace(bt, range=(0, "num_blocks-1"))


def batch_max(cfg: DecodeConfig) -> int:
    """The largest runtime batch: the dense cache must stay within one buffer resource."""
    if cfg.paged:
        return BATCH_MAX
    return max(1, min(BATCH_MAX, BUFFER_BYTES_MAX // (cfg.max_context * cfg.kv_row_bytes)))


def decode_args(cfg: DecodeConfig) -> list[ArgSpec]:
    sizes = {"batch": cfg.batch, "num_blocks": cfg.num_blocks}
    d, hk = cfg.head_dim, cfg.kv_heads
    kv = (("num_blocks", cfg.page_size, hk, d) if cfg.paged
          else ("batch", cfg.max_context, hk, d))
    args = [_buf("q", cfg.dtype, ("batch", cfg.q_tokens, cfg.heads, d), sizes),
            _buf("k_cache", cfg.kv_dtype, kv, sizes), _buf("v_cache", cfg.kv_dtype, kv, sizes),
            replace(_buf("context_lens", "i32", ("batch",), sizes), range=(0, cfg.max_context))]
    if cfg.paged:
        args.append(block_table_arg(cfg, sizes))
    args += output_args(cfg, cfg.num_splits > 1)
    args.append(ArgSpec("batch", "scalar", "u32", value=cfg.batch, range=(1, batch_max(cfg))))
    if cfg.paged:
        args.append(ArgSpec("num_blocks", "scalar", "u32", value=cfg.num_blocks,
                            range=(1, BUFFER_BYTES_MAX // cfg.page_bytes)))
    args.append(ArgSpec("scale", "scalar", "f32", value=cfg.scale, range=(F32_TINY, SCALE_MAX)))
    return args + kv_scale_args(cfg, sizes)


def kv_scale_args(cfg, sizes: dict) -> list[ArgSpec]:
    """An fp8 cache's ``k_scale`` / ``v_scale``: f32 scalars (per tensor), or f32 buffers of one
    scale per (key, KV head) (``kv_scale`` "token": paged ``[num_blocks, kv_heads, page_size]``,
    dense ``[batch, kv_heads, max_context]``); nothing for a 16-bit cache (decode and extend)."""
    if not cfg.kv_fp8:
        return []
    if cfg.token_scales:
        hk = cfg.kv_heads
        sd = (("num_blocks", hk, cfg.page_size) if cfg.paged else ("batch", hk, cfg.max_context))
        return [_buf(n, "f32", sd, sizes) for n in ("k_scale", "v_scale")]
    return [ArgSpec(n, "scalar", "f32", value=1.0, range=(F32_TINY, SCALE_MAX))
            for n in ("k_scale", "v_scale")]


def combine_args(cfg) -> list[ArgSpec]:
    return (output_args(cfg, True, "in") + output_args(cfg, False)
            + [ArgSpec("batch", "scalar", "u32", value=cfg.batch, range=(1, BATCH_MAX))])
