"""The attention launch contract (design.md Contracts: buffers Q K V O LSE, scalars batch heads
kv_heads seqlen_q seqlen_k scale), in kernarg order; the template reads its kernarg offsets from
it (``asmgen.kernarg.offsets``)."""
from __future__ import annotations

from ...kernarg import ArgSpec
from .config import AttentionConfig


def attention_args(cfg: AttentionConfig) -> list[ArgSpec]:
    """Arguments in kernarg order."""
    b, h, hk, sq, sk, d = (cfg.batch, cfg.heads, cfg.kv_heads, cfg.seqlen_q, cfg.seqlen_k,
                           cfg.head_dim)

    def strides(shape):
        out, acc = [], 1
        for n in reversed(shape):
            out.append(acc)
            acc *= n
        return tuple(reversed(out))

    shapes = {"Q": (b, h, sq, d), "K": (b, hk, sk, d), "V": (b, hk, sk, d), "O": (b, h, sq, d),
              "LSE": (b, h, sq)}
    args = [ArgSpec(n, "buffer", "f32" if n == "LSE" else cfg.dtype, shapes[n], strides(shapes[n]),
                    "out" if n in ("O", "LSE") else "in") for n in ("Q", "K", "V", "O", "LSE")]
    for n, val in (("batch", b), ("heads", h), ("kv_heads", hk), ("seqlen_q", sq),
                   ("seqlen_k", sk)):
        mult = cfg.seqlen_k_multiple if n == "seqlen_k" and cfg.seqlen_k_multiple > 1 else None
        args.append(ArgSpec(n, "scalar", "u32", value=val, multiple_of=mult))
    args.append(ArgSpec("scale", "scalar", "f32", value=cfg.scale))
    return args
