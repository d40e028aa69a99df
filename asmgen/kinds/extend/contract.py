"""The extend launch contract, in kernarg order (the template reads its offsets from it).

Buffers: ``q`` ``[heads, total_q, head_dim]`` (heads-major packed new tokens, as varlen
prefill); ``k_cache`` / ``v_cache`` dense ``[batch, max_context, kv_heads, head_dim]`` or paged
``[num_blocks, page_size, kv_heads, head_dim]``; paged: ``block_table [batch,
max_blocks_per_seq]`` int32 (each entry in 0..num_blocks - 1); ``context_lens [batch]`` int32
(keys of each sequence, its new tokens included: q_len(b) <= context_lens[b] <= max_context);
``cu_seqlens_q [batch + 1]`` int32; outputs ``o [heads, total_q, head_dim]`` and ``lse [heads,
total_q]`` f32. Scalars: ``batch``, ``total_q``, paged ``num_blocks``, ``scale`` (f32),
``max_seqlen_q`` (the grid's Q-block dimension). The bounds are checked at launch for host
arrays (``runtime.launch``). With an fp8 ``kv_dtype`` the
caches hold ``kv_dtype`` and ``k_scale`` / ``v_scale`` follow last, as in decode
(``decode.contract.kv_scale_args``): f32 scalars per tensor, or with ``kv_scale`` "token" f32
buffers paged ``[num_blocks, kv_heads, page_size]``, dense ``[batch, kv_heads, max_context]``."""
from __future__ import annotations

from dataclasses import replace

from ...kernarg import ArgSpec
from ..attention.contract import F32_TINY, SCALE_MAX
from ..decode.config import BUFFER_BYTES_MAX
from ..decode.contract import _buf, batch_max, block_table_arg, kv_scale_args
from .config import TOTAL_Q_MAX, ExtendConfig


def extend_args(cfg: ExtendConfig) -> list[ArgSpec]:
    tq = cfg.batch * cfg.seqlen_q
    sizes = {"batch": cfg.batch, "num_blocks": cfg.num_blocks, "total_q": tq}
    d, h, hk = cfg.head_dim, cfg.heads, cfg.kv_heads
    kv = (("num_blocks", cfg.page_size, hk, d) if cfg.paged
          else ("batch", cfg.max_context, hk, d))
    args = [_buf("q", cfg.dtype, (h, "total_q", d), sizes),
            _buf("k_cache", cfg.kv_dtype, kv, sizes), _buf("v_cache", cfg.kv_dtype, kv, sizes)]
    if cfg.paged:
        args.append(block_table_arg(cfg, sizes))
    ctx = _buf("context_lens", "i32", ("batch",), sizes)
    args += [replace(ctx, range=(0, cfg.max_context)),       # elements checked at launch
             ArgSpec("cu_seqlens_q", "buffer", "i32", (cfg.batch + 1,), (1,), "in",
                     dims=("batch+1",)),
             _buf("o", cfg.dtype, (h, "total_q", d), sizes, "out"),
             _buf("lse", "f32", (h, "total_q"), sizes, "out"),
             ArgSpec("batch", "scalar", "u32", value=cfg.batch, range=(1, batch_max(cfg))),
             ArgSpec("total_q", "scalar", "u32", value=tq, range=(1, TOTAL_Q_MAX))]
    if cfg.paged:
        args.append(ArgSpec("num_blocks", "scalar", "u32", value=cfg.num_blocks,
                            range=(1, BUFFER_BYTES_MAX // cfg.page_bytes)))
    args += [ArgSpec("scale", "scalar", "f32", value=cfg.scale, range=(F32_TINY, SCALE_MAX)),
             ArgSpec("max_seqlen_q", "scalar", "u32", value=cfg.seqlen_q,
                     range=(1, cfg.max_context))]
    return args + kv_scale_args(cfg, sizes)
