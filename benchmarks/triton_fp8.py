"""Triton's fp8 GEMM as the peer of ``benchmarks/lowp_gemm.py`` (issue 15): a plain tiled ``tl.dot``
loop over fp8 A [M, K] and B [N, K] (both K-contiguous, asmgen's layout NT, BLAS's "TN"), f32
accumulation and output (or i8 with i32 accumulation and output, ``dtype="i8"``), compiled offline by Triton for gfx942 (``fp8e4b8``, E4M3 FNUZ) or gfx950
(``fp8e4nv``, OCP E4M3) with no GPU, checked on the emulator against NumPy, then profiled through
the same cycle model as ``asmgen profile`` (``asmgen.profiling.foreign``), one workgroup's K loop
emulated and extrapolated to the whole problem over the device's CUs, with the same L2 / MALL /
HBM traffic and floors of its tile grid (in the order its program ids walk it) as asmgen's GEMMs.

Triton is not an asmgen dependency and nothing it builds is committed; ``available()`` says whether
it can be imported (``pip install triton``). The kernel is ours (the same shape as
``benchmarks/triton_calibration.py``'s bf16 one); its configurations are the ones Triton's AMD
matmul tutorials list for large fp8 problems (``CONFIGS``); the best modeled one is the peer.

On gfx950 the MX peer is the same loop over ``tl.dot_scaled`` (``mx_kernel``): mxfp8 (E4M3) or
mxfp4 (E2M1 pairs, even K in the low nibble) with E8M0 scales [M | N, K/32], which Triton lowers
to ``v_mfma_scale_f32_*_f8f6f4`` as asmgen does; checked against asmgen's MX reference decoding.
"""
from __future__ import annotations

import contextlib
from dataclasses import dataclass

import numpy as np

ARG_NAMES = ("A", "B", "C", "M", "N", "K", "lda", "ldb", "ldc")
SCRATCH_NAMES = ("global_scratch", "profile_scratch")   # Triton 3.x appends these two pointers
# Triton's names of the arch's fp8 E4M3 and the ml_dtypes type of the same encoding
FP8 = {"gfx942": ("fp8e4b8", "float8_e4m3fnuz", "fp8_e4m3fnuz"),
       "gfx950": ("fp8e4nv", "float8_e4m3fn", "fp8_e4m3")}


@dataclass(frozen=True)
class TritonFp8Config:
    bm: int
    bn: int
    bk: int
    num_warps: int
    num_stages: int = 2
    group: int = 8

    @property
    def name(self) -> str:
        return f"{self.bm}x{self.bn}x{self.bk} w{self.num_warps} s{self.num_stages}"


CONFIGS = (TritonFp8Config(256, 256, 128, 8), TritonFp8Config(256, 256, 64, 8),
           TritonFp8Config(128, 128, 128, 4))


# The judge's verdict on Triton 3.9's fp8 block ping-pong GEMM (docs/production-kernels.md, "Triton's
# fp8 block ping-pong GEMM"): the race it reports, told by its writer's pc, is the kernel's
# (CONFIGS[0] on gfx950 with Triton's default block ping-pong schedule).
PINGPONG_RACE = ("LDS race", "pc 411, 'buffer_load_dwordx4")
PINGPONG_VERDICT = (
    "verdict: the kernel's race, not the judge's. Wave 4's ds_read_b128 (pc 449) is still "
    "outstanding at its s_barrier (pc 461, after s_waitcnt lgkmcnt(2)); that barrier releases "
    "wave 0's LDS-DMA refill (pc 411) of the same bytes. LLVM AMDGPUUsage 'Memory Model GFX942': "
    "LDS operations of different wavefronts can be reordered, 's_waitcnt lgkmcnt(0) is required' "
    "to order LDS operations and vector memory operations between wavefronts of a work-group")


PINGPONG_KNOB = "TRITON_HIP_USE_BLOCK_PINGPONG"     # Triton's AMD block ping-pong switch


@contextlib.contextmanager
def triton_env(pingpong: bool):
    """Compile with Triton's block ping-pong schedule on (its gfx950 default: the knob unset) or
    off (the knob 0), into a fresh cache folder; the caller's environment is restored after."""
    import os
    import tempfile
    saved = {k: os.environ.get(k) for k in (PINGPONG_KNOB, "TRITON_CACHE_DIR")}
    os.environ.pop(PINGPONG_KNOB, None)
    if not pingpong:
        os.environ[PINGPONG_KNOB] = "0"
    os.environ["TRITON_CACHE_DIR"] = tempfile.mkdtemp(prefix="asmgen-triton-")
    try:
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def available() -> bool:
    try:
        import triton  # noqa: F401
        from triton.backends.compiler import GPUTarget  # noqa: F401
    except ImportError:
        return False
    return True


def _kernel(triton, tl):
    @triton.jit
    def fp8_gemm_tn(a_ptr, b_ptr, c_ptr, M, N, K, lda, ldb, ldc,
                    BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, GROUP: tl.constexpr,
                    ACC: tl.constexpr):
        pid = tl.program_id(0)
        tiles_m = tl.cdiv(M, BM)
        tiles_n = tl.cdiv(N, BN)
        per_group = GROUP * tiles_n
        first_m = (pid // per_group) * GROUP
        rows_in_group = min(tiles_m - first_m, GROUP)
        tm = first_m + (pid % per_group) % rows_in_group
        tn = (pid % per_group) // rows_in_group
        offs_m = tm * BM + tl.arange(0, BM)
        offs_n = tn * BN + tl.arange(0, BN)
        offs_k = tl.arange(0, BK)
        a_tile = a_ptr + offs_m[:, None] * lda + offs_k[None, :]
        b_tile = b_ptr + offs_n[None, :] * ldb + offs_k[:, None]     # B^T: [BK, BN] of B [N, K]
        acc = tl.zeros((BM, BN), dtype=ACC)
        for _ in range(tl.cdiv(K, BK)):
            acc += tl.dot(tl.load(a_tile), tl.load(b_tile), out_dtype=ACC)
            a_tile += BK
            b_tile += BK
        tl.store(c_ptr + offs_m[:, None] * ldc + offs_n[None, :], acc)
    return fp8_gemm_tn


def kernel(cfg: TritonFp8Config, arch: str, dtype: str = "fp8"):
    """The ``ForeignKernel`` of ``cfg`` compiled for ``arch``: the arch's fp8 E4M3 with f32
    accumulation and output, or ``dtype`` "i8" with i32 accumulation and output."""
    import triton
    import triton.language as tl
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    from asmgen.profiling import foreign
    i8 = dtype == "i8"
    ty, out = ("*i8", "*i32") if i8 else ("*" + FP8[arch][0], "*fp32")
    sig = {"a_ptr": ty, "b_ptr": ty, "c_ptr": out, "M": "i32", "N": "i32", "K": "i32",
           "lda": "i32", "ldb": "i32", "ldc": "i32", "BM": "constexpr", "BN": "constexpr",
           "BK": "constexpr", "GROUP": "constexpr", "ACC": "constexpr"}
    # what Triton's JIT attaches for 16-byte aligned tensors under 2 GiB with sizes divisible by
    # 16 (benchmarks/triton_calibration.py): buffer loads, as on a real run
    attrs = {(i,): [["tt.divisibility", 16]] + ([["tt.pointer_range", 32]] if i < 3 else [])
             for i in range(9)}
    src = ASTSource(_kernel(triton, tl), sig,
                    constexprs={"BM": cfg.bm, "BN": cfg.bn, "BK": cfg.bk, "GROUP": cfg.group,
                                "ACC": tl.int32 if i8 else tl.float32}, attrs=attrs)
    ck = triton.compile(src, target=GPUTarget("hip", arch, 64),
                        options={"num_warps": cfg.num_warps, "num_stages": cfg.num_stages,
                                 "enable_fp_fusion": True})
    return foreign.ForeignKernel(ck.asm["hsaco"], ck.metadata.name, (64 * cfg.num_warps, 1, 1),
                                 int(ck.metadata.shared), names=ARG_NAMES + SCRATCH_NAMES)


MX_ARGS = ("A", "B", "SA", "SB", "C", "M", "N", "K", "lda", "ldb", "lds", "ldc")
MX_FORMATS = {"mxfp8": ("e4m3", "*fp8e4nv", 1), "mxfp4": ("e2m1", "*u8", 2)}


def _mx_kernel(triton, tl):
    @triton.jit
    def mx_gemm_tn(a_ptr, b_ptr, sa_ptr, sb_ptr, c_ptr, M, N, K, lda, ldb, lds, ldc,
                   BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, FMT: tl.constexpr,
                   PACK: tl.constexpr, GROUP: tl.constexpr):
        pid = tl.program_id(0)
        tiles_m = tl.cdiv(M, BM)
        tiles_n = tl.cdiv(N, BN)
        per_group = GROUP * tiles_n
        first_m = (pid // per_group) * GROUP
        rows_in_group = min(tiles_m - first_m, GROUP)
        tm = first_m + (pid % per_group) % rows_in_group
        tn = (pid % per_group) // rows_in_group
        offs_m = tm * BM + tl.arange(0, BM)
        offs_n = tn * BN + tl.arange(0, BN)
        offs_k = tl.arange(0, BK // PACK)          # bytes along K (mxfp4: two elements each)
        offs_s = tl.arange(0, BK // 32)
        a_tile = a_ptr + offs_m[:, None] * lda + offs_k[None, :]
        b_tile = b_ptr + offs_n[None, :] * ldb + offs_k[:, None]
        sa_tile = sa_ptr + offs_m[:, None] * lds + offs_s[None, :]
        sb_tile = sb_ptr + offs_n[:, None] * lds + offs_s[None, :]
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for _ in range(tl.cdiv(K, BK)):
            acc = tl.dot_scaled(tl.load(a_tile), tl.load(sa_tile), FMT, tl.load(b_tile),
                                tl.load(sb_tile), FMT, acc)
            a_tile += BK // PACK
            b_tile += BK // PACK
            sa_tile += BK // 32
            sb_tile += BK // 32
        tl.store(c_ptr + offs_m[:, None] * ldc + offs_n[None, :], acc)
    return mx_gemm_tn


def mx_kernel(cfg: TritonFp8Config, dtype: str, arch: str = "gfx950"):
    """The ``ForeignKernel`` of the ``tl.dot_scaled`` GEMM of ``dtype`` (mxfp8 / mxfp4)."""
    import triton
    import triton.language as tl
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    from asmgen.profiling import foreign
    fmt, ty, pack = MX_FORMATS[dtype]
    sig = {"a_ptr": ty, "b_ptr": ty, "sa_ptr": "*u8", "sb_ptr": "*u8", "c_ptr": "*fp32",
           **{n: "i32" for n in ("M", "N", "K", "lda", "ldb", "lds", "ldc")},
           **{n: "constexpr" for n in ("BM", "BN", "BK", "FMT", "PACK", "GROUP")}}
    attrs = {(i,): [["tt.divisibility", 16]] + ([["tt.pointer_range", 32]] if i < 5 else [])
             for i in range(12)}
    src = ASTSource(_mx_kernel(triton, tl), sig,
                    constexprs={"BM": cfg.bm, "BN": cfg.bn, "BK": cfg.bk, "FMT": fmt, "PACK": pack,
                                "GROUP": cfg.group}, attrs=attrs)
    ck = triton.compile(src, target=GPUTarget("hip", arch, 64),
                        options={"num_warps": cfg.num_warps, "num_stages": cfg.num_stages,
                                 "enable_fp_fusion": True})
    return foreign.ForeignKernel(ck.asm["hsaco"], ck.metadata.name, (64 * cfg.num_warps, 1, 1),
                                 int(ck.metadata.shared), names=MX_ARGS + SCRATCH_NAMES)


def _mx_inputs(dtype: str, m: int, n: int, k: int, seed: int):
    import ml_dtypes

    from asmgen.kinds.gemm.reference import pack_fp4
    rng = np.random.default_rng(seed)
    if dtype == "mxfp4":
        a, b = (pack_fp4(rng.choice(np.array([-4, -1.5, -0.5, 0, 0.5, 1, 2, 6]), (r, k)))
                for r in (m, n))
    else:
        a, b = (rng.standard_normal((r, k)).astype(ml_dtypes.float8_e4m3fn) for r in (m, n))
    sa, sb = (rng.integers(120, 135, (r, k // 32)).astype(np.uint8) for r in (m, n))
    return a, b, sa, sb, np.zeros((m, n), np.float32)


def _mx_values(a, b, sa, sb, c) -> dict:
    m, n = c.shape
    return {"A": a, "B": b, "SA": sa, "SB": sb, "C": c, "M": m, "N": n, "K": sa.shape[1] * 32,
            "lda": a.shape[1], "ldb": b.shape[1], "lds": sa.shape[1], "ldc": n,
            "global_scratch": 0, "profile_scratch": 0}


def mx_check(fk, cfg: TritonFp8Config, dtype: str, seed: int = 0) -> float:
    """``check`` of the MX kernel, the reference decoding through asmgen's MX helpers."""
    from asmgen.kinds.gemm.reference import mx_scales, unpack_fp4
    from asmgen.profiling import foreign
    m, n, k = 2 * cfg.bm, 2 * cfg.bn, 4 * cfg.bk
    a, b, sa, sb, c = _mx_inputs(dtype, m, n, k, seed)
    foreign.launch(fk, (4, 1, 1), _mx_values(a, b, sa, sb, c), seed=seed)
    dec = unpack_fp4 if dtype == "mxfp4" else (lambda x: x.astype(np.float64))
    a64, b64 = dec(a) * mx_scales(sa, m, k), dec(b) * mx_scales(sb, n, k)
    ref = a64 @ b64.T
    tol = (k + 2) * np.finfo(np.float32).eps * (np.abs(a64) @ np.abs(b64).T) + 1e-30
    return float(np.max(np.abs(c.astype(np.float64) - ref) / tol))


def mx_profile(fk, cfg: TritonFp8Config, dtype: str, size: int, iters: int = 4) -> dict:
    """``profile`` of the MX kernel (fp4: half a byte per element in the tile grid's traffic;
    the E8M0 scales, 1/32 byte per element, left out as asmgen's GEMM profile leaves them)."""
    return _profile(fk, cfg, "gfx950", size, iters,
                    lambda trips: _mx_values(*_mx_inputs(dtype, cfg.bm, cfg.bn, trips * cfg.bk, 0)),
                    in_bytes=1.0 / MX_FORMATS[dtype][2])


def _inputs(arch: str, m: int, n: int, k: int, seed: int, dtype: str = "fp8"):
    import ml_dtypes
    rng = np.random.default_rng(seed)
    if dtype == "i8":
        a, b = (rng.integers(-128, 128, (r, k)).astype(np.int8) for r in (m, n))
        return a, b, np.zeros((m, n), np.int32)
    t = getattr(ml_dtypes, FP8[arch][1])
    a = rng.standard_normal((m, k)).astype(t)
    b = rng.standard_normal((n, k)).astype(t)
    return a, b, np.zeros((m, n), np.float32)


def _values(a, b, c) -> dict:
    (m, k), n = a.shape, b.shape[0]
    return {"A": a, "B": b, "C": c, "M": m, "N": n, "K": k, "lda": k, "ldb": k, "ldc": n,
            "global_scratch": 0, "profile_scratch": 0}


def check(fk, cfg: TritonFp8Config, arch: str, seed: int = 0, dtype: str = "fp8") -> float:
    """Worst |C - NumPy| of a 2 x 2-tile, 4-trip problem on the emulator over the f32
    accumulation bound ((K + 2) f32 ulps of sum |a b|; fp8 products are exact in f32), for i8
    over half an integer (i32 accumulation is exact): <= 1 passes."""
    from asmgen.profiling import foreign
    m, n, k = 2 * cfg.bm, 2 * cfg.bn, 4 * cfg.bk
    a, b, c = _inputs(arch, m, n, k, seed, dtype)
    foreign.launch(fk, (4, 1, 1), _values(a, b, c), seed=seed)
    if dtype == "i8":
        ref = a.astype(np.int64) @ b.astype(np.int64).T
        return float(np.abs(c.astype(np.int64) - ref).max()) / 0.5
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    ref = a64 @ b64.T
    tol = (k + 2) * np.finfo(np.float32).eps * (np.abs(a64) @ np.abs(b64).T) + 1e-30
    return float(np.max(np.abs(c.astype(np.float64) - ref) / tol))


def profile(fk, cfg: TritonFp8Config, arch: str, size: int, iters: int = 4,
            dtype: str = "fp8") -> dict:
    """``asmgen profile --json``-shaped figures of the ``size``^3 problem (sustained clock
    figures too, as ``asmgen profile`` adds them)."""
    return _profile(fk, cfg, arch, size, iters,
                    lambda trips: _values(*_inputs(arch, cfg.bm, cfg.bn, trips * cfg.bk, 0, dtype)))


def tile_grid(cfg: TritonFp8Config, size: int, in_bytes: float = 1.0):
    """The ``size``^3 problem's tile grid as the kernel walks it: its program ids go through the
    tiles in GROUP_SIZE_M groups (``_kernel``'s swizzle, the grid's ``grouped`` order)."""
    from isa.cycle.problem import TileGrid
    return TileGrid(size, size, size, (cfg.bm, cfg.bn, cfg.bk), in_bytes=in_bytes,
                    order="grouped", group=cfg.group)


def _profile(fk, cfg: TritonFp8Config, arch: str, size: int, iters: int, values,
             in_bytes: float = 1.0) -> dict:
    """The foreign profile with the tile grid's L2 / MALL / HBM traffic and floors, as asmgen's
    own GEMMs are profiled (``asmgen.profiling.device.floored_round``)."""
    from asmgen.profiling import foreign
    from asmgen.profiling.common import sustained_clock, sustained_tflops
    grid = tile_grid(cfg, size, in_bytes)
    out = foreign.profile_foreign(fk, values, flops=2.0 * size ** 3, n_wg=grid.n_wg,
                                  loop_iters=grid.trips, emulated_iters=iters, tiles=grid)
    out["sustained_clock_mhz"] = sustained_clock(out)
    out["tflops_sustained"] = sustained_tflops(out)
    return out


def main(argv=None) -> int:
    """Print the emulator-vs-NumPy check of Triton's MX GEMMs (scales varying along K and rows):
    ``python benchmarks/triton_fp8.py [mxfp8] [mxfp4]``; exit 1 on a mismatch, 2 without Triton."""
    import sys
    import tempfile
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    dtypes = (argv if argv is not None else sys.argv[1:]) or ["mxfp8", "mxfp4"]
    if not available():
        print("triton is not importable (pip install triton): no Triton run", file=sys.stderr)
        return 2
    import os

    import triton
    os.environ.setdefault("TRITON_CACHE_DIR", tempfile.mkdtemp(prefix="asmgen-triton-"))
    bad = 0
    for dtype in dtypes:
        cfg = CONFIGS[0]
        ratio = mx_check(mx_kernel(cfg, dtype), cfg, dtype)
        ok = ratio <= 1.0
        bad += not ok
        print(f"triton {triton.__version__} {dtype} tl.dot_scaled {cfg.name} gfx950: "
              f"{'PASS' if ok else 'MISMATCH'}  err/tol {ratio:.3g}")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
