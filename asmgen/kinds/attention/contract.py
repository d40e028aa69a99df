"""The attention launch contract (design.md Contracts: buffers Q K V O LSE, scalars batch heads
kv_heads seqlen_q seqlen_k scale), in kernarg order; the template reads its kernarg offsets from
it (``asmgen.kernarg.offsets``). fp8 kernels (``AttentionConfig.fp8``) add the per-tensor f32
scalars ``q_scale``, ``k_scale``, ``v_scale`` last (Q = q_scale x Q8, the same for K and V); O is
``out_dtype``."""
from __future__ import annotations

from ...kernarg import ArgSpec, row_major_strides
from .config import BATCH_MAX, HEADS_MAX, SEQ_MAX, AttentionConfig


def attention_args(cfg: AttentionConfig) -> list[ArgSpec]:
    """Arguments in kernarg order."""
    if cfg.varlen:
        return varlen_args(cfg)
    b, h, hk, sq, sk, d = (cfg.batch, cfg.heads, cfg.kv_heads, cfg.seqlen_q, cfg.seqlen_k,
                           cfg.head_dim)

    shapes = {"Q": (b, h, sq, d), "K": (b, hk, sk, d), "V": (b, hk, sk, d), "O": (b, h, sq, d),
              "LSE": (b, h, sq)}
    q_dims, kv_dims = ("batch", "heads", "seqlen_q", d), ("batch", "kv_heads", "seqlen_k", d)
    dims = {"Q": q_dims, "K": kv_dims, "V": kv_dims, "O": q_dims, "LSE": q_dims[:3]}
    args = _buffers(cfg, shapes, row_major_strides, dims)
    # every size is read at run time (kinds.attention.template); the limits are the config's
    hi = {"batch": BATCH_MAX, "heads": HEADS_MAX, "kv_heads": HEADS_MAX, "seqlen_q": SEQ_MAX,
          "seqlen_k": SEQ_MAX}
    for n, val in (("batch", b), ("heads", h), ("kv_heads", hk), ("seqlen_q", sq),
                   ("seqlen_k", sk)):
        mult = cfg.seqlen_k_multiple if n == "seqlen_k" and cfg.seqlen_k_multiple > 1 else None
        args.append(ArgSpec(n, "scalar", "u32", value=val, multiple_of=mult, range=(1, hi[n]),
                            divides="heads" if n == "kv_heads" else None))
    # positive and below 1e4, as AttentionConfig requires at generation
    args.append(ArgSpec("scale", "scalar", "f32", value=cfg.scale, range=(F32_TINY, SCALE_MAX)))
    return args + fp8_scales(cfg)


def _buffers(cfg: AttentionConfig, shapes: dict, strides, dims: dict) -> list[ArgSpec]:
    """Q K V (``dtype``), O (``out_dtype``), LSE (f32)."""
    types = {"O": cfg.out_dtype, "LSE": "f32"}
    return [ArgSpec(n, "buffer", types.get(n, cfg.dtype), shapes[n], strides(shapes[n]),
                    "out" if n in ("O", "LSE") else "in", dims=dims[n])
            for n in ("Q", "K", "V", "O", "LSE")]


def fp8_scales(cfg: AttentionConfig) -> list[ArgSpec]:
    """fp8: ``q_scale``, ``k_scale``, ``v_scale`` (positive f32, default 1), else nothing."""
    if not cfg.fp8:
        return []
    return [ArgSpec(n, "scalar", "f32", value=1.0, range=(F32_TINY, FP8_SCALE_MAX))
            for n in ("q_scale", "k_scale", "v_scale")]


FP8_SCALE_MAX = 1e30     # positive and finite; the kernel multiplies them in f32

F32_TINY = 1.1754943508222875e-38    # the smallest normal f32: "scale > 0"
SCALE_MAX = 1e4


def varlen_args(cfg: AttentionConfig) -> list[ArgSpec]:
    """The varlen contract (docs/launch-contract.md): sequences packed along the token axis,
    heads-major (Q/O ``[heads, total_q, head_dim]``, K/V ``[kv_heads, total_k, head_dim]``, LSE
    ``[heads, total_q]``: the dense kernel's row addressing with ``batch`` folded into the token
    axis), then ``cu_seqlens_q`` / ``cu_seqlens_k`` (i32 ``[batch + 1]``, FlashAttention's
    prefix sums). Scalars keep the dense kernel's kernarg slots (``total_q`` / ``total_k`` in
    those of seqlen_q / seqlen_k), then ``max_seqlen_q`` (the grid) and ``max_seqlen_k``. The
    generated sizes: ``batch`` sequences of ``seqlen_q`` / ``seqlen_k`` tokens each."""
    b, h, hk, sq, sk, d = (cfg.batch, cfg.heads, cfg.kv_heads, cfg.seqlen_q, cfg.seqlen_k,
                           cfg.head_dim)
    tq, tk = b * sq, b * sk
    q_dims, kv_dims = ("heads", "total_q", d), ("kv_heads", "total_k", d)
    shapes = {"Q": (h, tq, d), "K": (hk, tk, d), "V": (hk, tk, d), "O": (h, tq, d),
              "LSE": (h, tq)}
    dims = {"Q": q_dims, "K": kv_dims, "V": kv_dims, "O": q_dims, "LSE": q_dims[:2]}

    args = _buffers(cfg, shapes, row_major_strides, dims)
    for n in ("cu_seqlens_q", "cu_seqlens_k"):
        args.append(ArgSpec(n, "buffer", "i32", (b + 1,), (1,), "in", dims=("batch+1",)))
    tot = SEQ_MAX      # packed tokens: the dense seqlen bound (num_records, SALU products)
    for n, val, hi in (("batch", b, BATCH_MAX), ("heads", h, HEADS_MAX), ("kv_heads", hk, HEADS_MAX),
                       ("total_q", tq, tot), ("total_k", tk, tot)):
        args.append(ArgSpec(n, "scalar", "u32", value=val, range=(1, hi),
                            divides="heads" if n == "kv_heads" else None))
    args.append(ArgSpec("scale", "scalar", "f32", value=cfg.scale, range=(F32_TINY, SCALE_MAX)))
    for n, val in (("max_seqlen_q", sq), ("max_seqlen_k", sk)):
        args.append(ArgSpec(n, "scalar", "u32", value=val, range=(1, SEQ_MAX)))
    return args + fp8_scales(cfg)
