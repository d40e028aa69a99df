"""A Triton flash-attention forward kernel through asmgen's cycle model (issue 16), for
``benchmarks/attention.py``'s table: compiled offline for gfx942 / gfx950 (no GPU), checked on the
emulator against NumPy, then profiled by ``asmgen.profiling.foreign`` (the model ``asmgen
profile`` runs: one workgroup emulated, co-resident copies on one modeled CU, extrapolated by
loop trips, dealt over the device's CUs).

The kernel is our own, written here in Triton's language (FlashAttention-2's forward loop, Dao
2023, https://tridao.me/publications/flash2/flash2.pdf: one program per (Q-block, batch x head),
online softmax in base 2, P cast to the input type for the second ``tl.dot``). It is not Triton's
tutorial kernel: that one (python/tutorials/06-fused-attention.py) is built on block pointers,
which Triton 3.9 removed, and its code is not ours to copy. Non-causal, no masks: sizes must be
multiples of the blocks. Triton is not a dependency: without an importable ``triton`` the rows
are printed as unavailable.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

ARG_NAMES = ("Q", "K", "V", "O", "L", "sm_scale", "N_CTX")
SCRATCH_NAMES = ("global_scratch", "profile_scratch")   # Triton 3.x appends these two pointers


@dataclass(frozen=True)
class TritonAttnConfig:
    block_m: int = 128
    block_n: int = 64
    num_warps: int = 4
    num_stages: int = 1        # HIP autotune lists use one stage for attention

    @property
    def name(self) -> str:
        return f"triton fa2 M{self.block_m} N{self.block_n} w{self.num_warps}"


CONFIGS = (TritonAttnConfig(128, 64, 4), TritonAttnConfig(128, 32, 4), TritonAttnConfig(64, 64, 4))


def _kernel(triton, tl):
    @triton.jit
    def fa_fwd(Q, K, V, O, L, sm_scale, N_CTX,
               BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, D: tl.constexpr):
        start_m = tl.program_id(0)
        base = tl.program_id(1).to(tl.int64) * N_CTX * D        # (batch, head), BHSD layout
        offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
        offs_n = tl.arange(0, BLOCK_N)
        offs_d = tl.arange(0, D)
        q = tl.load(Q + base + offs_m[:, None] * D + offs_d[None, :])
        c = sm_scale * 1.4426950408889634                          # log2(e)
        m_i = tl.full([BLOCK_M], float("-inf"), tl.float32)
        l_i = tl.zeros([BLOCK_M], tl.float32)
        acc = tl.zeros([BLOCK_M, D], tl.float32)
        for start_n in range(0, N_CTX, BLOCK_N):
            kt = tl.load(K + base + (start_n + offs_n)[None, :] * D + offs_d[:, None])
            s = tl.dot(q, kt)
            m_new = tl.maximum(m_i, tl.max(s, 1) * c)
            p = tl.math.exp2(s * c - m_new[:, None])
            alpha = tl.math.exp2(m_i - m_new)
            l_i = l_i * alpha + tl.sum(p, 1)
            v = tl.load(V + base + (start_n + offs_n)[:, None] * D + offs_d[None, :])
            acc = tl.dot(p.to(v.dtype), v, acc * alpha[:, None])
            m_i = m_new
        tl.store(O + base + offs_m[:, None] * D + offs_d[None, :], (acc / l_i[:, None]).to(O.dtype.element_ty))
        lrow = tl.program_id(1).to(tl.int64) * N_CTX
        tl.store(L + lrow + offs_m, (m_i + tl.math.log2(l_i)) * 0.6931471805599453)
    return fa_fwd


def available() -> bool:
    try:
        import triton  # noqa: F401
        from triton.backends.compiler import GPUTarget  # noqa: F401
    except ImportError:
        return False
    return True


def compile_kernel(cfg: TritonAttnConfig, arch: str, head_dim: int, dtype: str):
    """(hsaco, kernel name, dynamic LDS bytes) of ``cfg`` for ``arch``."""
    import triton
    import triton.language as tl
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource
    ty = {"bf16": "*bf16", "f16": "*fp16"}[dtype]
    sig = {"Q": ty, "K": ty, "V": ty, "O": ty, "L": "*fp32", "sm_scale": "fp32", "N_CTX": "i32",
           "BLOCK_M": "constexpr", "BLOCK_N": "constexpr", "D": "constexpr"}
    # what Triton's JIT attaches for 16-byte aligned tensors under 2 GiB and sizes divisible by
    # 16 (see benchmarks/triton_calibration.py): buffer loads, as on a real run
    attrs = {(i,): [["tt.divisibility", 16]] + ([["tt.pointer_range", 32]] if i < 5 else [])
             for i in (0, 1, 2, 3, 4, 6)}
    src = ASTSource(_kernel(triton, tl), sig, constexprs={"BLOCK_M": cfg.block_m,
                                                          "BLOCK_N": cfg.block_n, "D": head_dim},
                    attrs=attrs)
    ck = triton.compile(src, target=GPUTarget("hip", arch, 64),
                        options={"num_warps": cfg.num_warps, "num_stages": cfg.num_stages,
                                 "enable_fp_fusion": True})
    return ck.asm["hsaco"], ck.metadata.name, int(ck.metadata.shared)


def _values(q, k, v, o, lse, scale) -> dict:
    return {"Q": q, "K": k, "V": v, "O": o, "L": lse, "sm_scale": scale, "N_CTX": q.shape[2],
            "global_scratch": 0, "profile_scratch": 0}


def _inputs(bh: int, n: int, d: int, dtype: str, seed: int):
    from asmgen.dtypes import np_dtype
    rng = np.random.default_rng(seed)
    q, k, v = (rng.uniform(-1, 1, (1, bh, n, d)).astype(np_dtype(dtype)) for _ in range(3))
    return q, k, v, np.zeros_like(q), np.zeros((1, bh, n), np.float32)


def check(fk, cfg: TritonAttnConfig, d: int, dtype: str, seed: int = 0) -> float:
    """Worst |O - NumPy| over 2 (batch, head)s x 256 rows x 256 keys on the emulator, relative to
    2^-7 (bf16) / 2^-10 (f16) of max |O| plus the LSE error: <= 1 passes."""
    from asmgen.kinds.attention.reference import attention_reference
    from asmgen.profiling import foreign
    n, scale = max(256, cfg.block_m), 1.0 / math.sqrt(d)
    q, k, v, o, lse = _inputs(2, n, d, dtype, seed)
    foreign.launch(fk, (n // cfg.block_m, 2, 1), _values(q, k, v, o, lse, scale), seed=seed,
                   scalar_dtypes={"sm_scale": "f32"})
    ro, rl = attention_reference(*(x.astype(np.float64) for x in (q, k, v)), scale, False)
    tol = (2.0 ** -7 if dtype == "bf16" else 2.0 ** -10) * float(np.abs(ro).max())
    err_o = float(np.abs(o.astype(np.float64) - ro).max()) / tol
    err_l = float(np.abs(lse.astype(np.float64) - rl).max()) / 1e-3
    return max(err_o, err_l)


def profile(fk, cfg: TritonAttnConfig, b: int, h: int, s: int, d: int, dtype: str,
            iters: int = 6) -> dict:
    """``asmgen profile --json``-shaped figures for the B x H x S x S x D problem (non-causal)."""
    from asmgen.dtypes import dtype_of
    from asmgen.profiling import foreign
    from asmgen.profiling.common import sustained_clock, sustained_tflops
    if s % cfg.block_m or s % cfg.block_n:
        raise ValueError(f"seqlen {s} is not a multiple of the blocks {cfg.block_m}, {cfg.block_n}")
    row = dtype_of(dtype).nbytes(d)
    n_wg = (s // cfg.block_m) * b * h
    loaded = n_wg * (cfg.block_m + 2 * s) * row
    unique = b * h * 3 * s * row

    def values(trips: int) -> dict:
        n = trips * cfg.block_n
        q, k, v, o, lse = _inputs(1, n, d, dtype, 0)
        return _values(q[:, :, :cfg.block_m].copy() if n > cfg.block_m else q, k, v, o, lse,
                       1.0 / math.sqrt(d)) | {"N_CTX": n}

    emulated = max(iters, -(-cfg.block_m // cfg.block_n))
    # charged as asmgen's attention profile charges its own kernels (kinds/attention/profile.py):
    # the unique share of the loaded bytes as the L2-miss mix, no tile-grid floors (neither has
    # one), the sustained clock of the kernel's own MFMA (profile_foreign passes its streams)
    out = foreign.profile_foreign(fk, values, flops=4.0 * b * h * s * s * d, n_wg=n_wg,
                                  loop_iters=s // cfg.block_n, emulated_iters=emulated,
                                  hbm_fraction=min(1.0, unique / loaded),
                                  scalar_dtypes={"sm_scale": "f32"})
    out["sustained_clock_mhz"] = sustained_clock(out)
    out["tflops_sustained"] = sustained_tflops(out)
    return out


def kernel(cfg: TritonAttnConfig, arch: str, d: int, dtype: str):
    from asmgen.profiling import foreign
    hsaco, name, shared = compile_kernel(cfg, arch, d, dtype)
    return foreign.ForeignKernel(hsaco, name, (64 * cfg.num_warps, 1, 1), shared,
                                 names=ARG_NAMES + SCRATCH_NAMES)
