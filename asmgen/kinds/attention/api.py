"""The attention Python API: ``attention(...) -> Kernel`` (template -> schedule -> passes ->
emit -> assemble, the GEMM path of ``asmgen.api``) and the .json launch contract with
``config.kind = "attention"`` (design.md Contracts: buffers Q K V O LSE, scalars batch heads
kv_heads seqlen_q seqlen_k scale).
"""
from __future__ import annotations

import time

from ... import __version__
from ...api import Kernel
from ...errors import AsmgenError
from ...kernarg import ArgSpec, kernarg_size
from .config import AttentionConfig

DEFAULT_SCHEDULE = "attn_basic"


def attention_args(cfg: AttentionConfig) -> list[ArgSpec]:
    """Arguments in kernarg order (must match ``kinds.attention.template.kernarg_offsets``)."""
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


def get_attention_recipe(name: str, **params):
    from schedules import attention_fwd, attention_prio, get_recipe  # noqa: F401 (register attn_*)
    return get_recipe(name, **params)


def compile_attention(cfg: AttentionConfig, recipe, toolchain=None, assemble: bool = True,
                      limits: dict | None = None) -> Kernel:
    from ...emit import emit_kernel
    from ...passes.manager import compile_kernel
    from ...program import KernelResources
    from .template import build_attention, kernarg_offsets

    t0 = time.perf_counter()
    if hasattr(recipe, "bind"):      # recipes whose groups depend on the config (MFMA counts)
        recipe = recipe.bind(cfg)
    ir = build_attention(cfg)
    t1 = time.perf_counter()
    compiled = compile_kernel(ir, recipe, limits=limits)
    t2 = time.perf_counter()
    args = attention_args(cfg)
    _, size = kernarg_offsets()
    if kernarg_size(args) != size:
        raise AsmgenError(f"kernarg size mismatch: template {size}, contract {kernarg_size(args)}")
    used = compiled.allocation.used
    res = KernelResources(
        name=cfg.name, arch=cfg.arch, vgprs=max(used.get("v", 0), 1),
        sgprs=max(used.get("s", 0), 5), agprs=used.get("a", 0), lds_bytes=ir.lds_bytes,
        args=tuple(args), user_sgprs=("kernarg_segment_ptr",), workgroup_ids=(True, True, True),
        workitem_id_dims=1, max_flat_workgroup_size=cfg.threads)
    items = [it.name if hasattr(it, "name") and not hasattr(it, "op") else it
             for it in compiled.items()]
    asm = emit_kernel(items, res)
    t3 = time.perf_counter()
    hsaco, tc_version = b"", ""
    if assemble:
        from ...toolchain import find_toolchain
        tc = toolchain or find_toolchain()
        hsaco = tc.assemble(asm, cfg.arch)
        tc_version = tc.version
    t4 = time.perf_counter()
    meta = {
        "kernel": cfg.name, "arch": cfg.arch, "grid": list(cfg.grid), "block": [cfg.threads, 1, 1],
        "lds_bytes": ir.lds_bytes, "kernarg_size": size,
        "args": [a.to_dict() for a in args],
        "config": cfg.to_dict() | {"kind": "attention"},
        "schedule": recipe.name if recipe is not None else "default",
        "schedule_params": dict(getattr(recipe, "params", {}) or {}),
        "resources": {"vgpr": res.vgprs, "agpr": res.agprs, "sgpr": res.sgprs,
                      "lds": ir.lds_bytes, "waves_per_simd": res.waves_per_simd},
        "toolchain": tc_version, "asmgen": __version__,
    }
    k = Kernel(cfg.name, asm, hsaco, meta, cfg,
               {"template": t1 - t0, "passes": t2 - t1, "emit": t3 - t2, "assemble": t4 - t3})
    k.compiled = compiled
    return k


def attention(batch: int = 1, heads: int = 1, kv_heads: int | None = None, seqlen_q: int = 128,
              seqlen_k: int = 128, head_dim: int = 64, dtype: str = "f16", causal: bool = False,
              arch: str = "gfx942", schedule: str = DEFAULT_SCHEDULE, scale: float | None = None,
              schedule_params: dict | None = None, assemble: bool = True, waves: int = 1,
              kv_buffers: int | None = None, seqlen_k_multiple: int = 1) -> Kernel:
    """Generate a flash-attention forward kernel (design.md); ``schedule`` names a recipe
    (``attn_basic``, ``attn_interleave``, ``attn_prio``, ``attn_prio_interleave``, or
    ``shuffle`` for fuzzing); ``waves`` (1, 2, 4) per workgroup share K/V through
    ``kv_buffers`` LDS buffers; ``seqlen_k_multiple`` promises the runtime seqlen_k is a
    multiple of it (checked at launch; a multiple of 32 drops the key mask when not causal)."""
    recipe = get_attention_recipe(schedule, **dict(schedule_params or {}))
    cfg = AttentionConfig(batch=batch, heads=heads, kv_heads=kv_heads, seqlen_q=seqlen_q,
                          seqlen_k=seqlen_k, head_dim=head_dim, dtype=dtype, causal=causal,
                          arch=arch, scale=scale, waves=waves, kv_buffers=kv_buffers,
                          seqlen_k_multiple=seqlen_k_multiple)
    return compile_attention(cfg, recipe, assemble=assemble)
