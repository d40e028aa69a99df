"""LLVM kernel zoo, part 1: clang-22-compiled OpenCL kernels for gfx942 and gfx950 that use MFMA
builtins (one-wave matmul over a K loop, operand layout per cdna-facts 2.2) and cross-lane builtins
(ds_bpermute, ds_swizzle, DPP, readfirstlane/readlane, ballot, gfx950 permlane swaps), run on the
emulator with two seeds and compared with NumPy references written from the ISA documents."""
from __future__ import annotations

import numpy as np
import pytest
from ml_dtypes import bfloat16
from test_llvm_kernels_zoo_util import ARCHES, SEEDS, build, launch, mnemonics, needs_llvm

pytestmark = needs_llvm

# One-wave C[M][M] = A[M][K] @ B[K][M]. Lane l holds row/column l % M and k = KL*(l/M)..+KL-1 of
# each K block (cdna-facts 2.2; gfx950 x16/x32 forms hold 8 k per lane). D: VGPR r, lane l ->
# i = 4*G*(r/4) + 4*(l/M) + r%4, j = l%M with G = 64/M lane groups.
MFMA_SOURCE = r"""
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
typedef half h4 __attribute__((ext_vector_type(4)));
typedef half h8 __attribute__((ext_vector_type(8)));
typedef short s4 __attribute__((ext_vector_type(4)));
typedef __bf16 b8 __attribute__((ext_vector_type(8)));
typedef float f16v __attribute__((ext_vector_type(16)));
typedef float f4v __attribute__((ext_vector_type(4)));

#define MM(NAME, T, VA, VACC, BUILTIN, M, KL, NR)                                        \
__kernel void NAME(__global const T* A, __global const T* B, __global float* C, int K) { \
  int l = __builtin_amdgcn_workitem_id_x(), row = l % M, g = l / M;                      \
  VACC acc = 0.0f;                                                                       \
  for (int k0 = 0; k0 < K; k0 += (64 / M) * KL) {                                         \
    VA a, b;                                                                             \
    for (int v = 0; v < KL; ++v) {                                                       \
      a[v] = A[row * K + k0 + g * KL + v];                                               \
      b[v] = B[(k0 + g * KL + v) * M + row];                                             \
    }                                                                                    \
    acc = BUILTIN(a, b, acc, 0, 0, 0);                                                   \
  }                                                                                      \
  for (int r = 0; r < NR; ++r)                                                           \
    C[((r / 4) * 4 * (64 / M) + 4 * g + r % 4) * M + row] = acc[r];                      \
}
MM(mm_32x32x8_f16, half, h4, f16v, __builtin_amdgcn_mfma_f32_32x32x8f16, 32, 4, 16)
MM(mm_16x16x16_f16, half, h4, f4v, __builtin_amdgcn_mfma_f32_16x16x16f16, 16, 4, 4)
MM(mm_32x32x8_bf16, short, s4, f16v, __builtin_amdgcn_mfma_f32_32x32x8bf16_1k, 32, 4, 16)
MM(mm_16x16x16_bf16, short, s4, f4v, __builtin_amdgcn_mfma_f32_16x16x16bf16_1k, 16, 4, 4)
#ifdef GFX950
MM(mm_32x32x16_f16, half, h8, f16v, __builtin_amdgcn_mfma_f32_32x32x16_f16, 32, 8, 16)
MM(mm_16x16x32_f16, half, h8, f4v, __builtin_amdgcn_mfma_f32_16x16x32_f16, 16, 8, 4)
MM(mm_32x32x16_bf16, __bf16, b8, f16v, __builtin_amdgcn_mfma_f32_32x32x16_bf16, 32, 8, 16)
MM(mm_16x16x32_bf16, __bf16, b8, f4v, __builtin_amdgcn_mfma_f32_16x16x32_bf16, 16, 8, 4)
#endif
"""

# (kernel, M, mnemonic LLVM must emit, element type, archs)
MFMA_CASES = [
    ("mm_32x32x8_f16", 32, "v_mfma_f32_32x32x8_f16", "f16", ARCHES),
    ("mm_16x16x16_f16", 16, "v_mfma_f32_16x16x16_f16", "f16", ARCHES),
    ("mm_32x32x8_bf16", 32, "v_mfma_f32_32x32x8_bf16", "bf16", ARCHES),
    ("mm_16x16x16_bf16", 16, "v_mfma_f32_16x16x16_bf16", "bf16", ARCHES),
    ("mm_32x32x16_f16", 32, "v_mfma_f32_32x32x16_f16", "f16", ("gfx950",)),
    ("mm_16x16x32_f16", 16, "v_mfma_f32_16x16x32_f16", "f16", ("gfx950",)),
    ("mm_32x32x16_bf16", 32, "v_mfma_f32_32x32x16_bf16", "bf16", ("gfx950",)),
    ("mm_16x16x32_bf16", 16, "v_mfma_f32_16x16x32_bf16", "bf16", ("gfx950",)),
]
MFMA_PARAMS = [pytest.param(arch, case, id=f"{arch}-{case[0]}") for case in MFMA_CASES for arch in case[4]]


def _mfma_hsaco(arch):
    return build(MFMA_SOURCE, arch, ("-DGFX950",) if arch == "gfx950" else ())


def _run_mm(arch, case, a32, b32, seed):
    kernel, m, _, ty, _ = case
    np_ty = np.float16 if ty == "f16" else bfloat16
    a, b = a32.astype(np_ty), b32.astype(np_ty)
    c = np.full((m, m), np.nan, np.float32)
    launch(_mfma_hsaco(arch), arch, kernel, a.view(np.uint16), b.view(np.uint16), c,
           ("i", a.shape[1]), seed=seed)
    return c, a.astype(np.float64) @ b.astype(np.float64)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("arch,case", MFMA_PARAMS)
def test_mfma_matmul_exact_layout(arch, case, seed):
    """Small multiples of 1/8: every product and partial sum is exact in fp32, so any layout or
    accumulation-order error shows as an exact mismatch."""
    kernel, m, mnem = case[0], case[1], case[2]
    assert mnem in mnemonics(_mfma_hsaco(arch), arch, kernel)
    rng = np.random.default_rng(seed)
    k = 64
    a32 = rng.integers(-16, 17, (m, k)) / 8
    b32 = rng.integers(-16, 17, (k, m)) / 8
    got, want = _run_mm(arch, case, a32, b32, seed)
    assert np.array_equal(got, want.astype(np.float32))


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("arch,case", MFMA_PARAMS)
def test_mfma_matmul_rounding(arch, case, seed):
    """Random normals: cdna-facts 2.3 bounds the hardware's group-wise fused sum against an exact
    dot product by (K+2) ulp of sum|a*b| (f32 accumulator)."""
    m = case[1]
    rng = np.random.default_rng(100 + seed)
    k = 32
    a32, b32 = rng.standard_normal((m, k)), rng.standard_normal((k, m))
    got, want = _run_mm(arch, case, a32, b32, seed)
    np_ty = np.float16 if case[3] == "f16" else bfloat16
    mag = np.abs(a32.astype(np_ty).astype(np.float64)) @ np.abs(b32.astype(np_ty).astype(np.float64))
    assert np.all(np.abs(got - want) <= (k + 2) * np.spacing(mag.astype(np.float32)))


# Integer / fp8 / f32 MFMAs: the kernel gathers KL elements per lane into a byte vector and
# reinterprets it as the builtin's operand type (i64 = 8 x i8 / fp8 on both archs, int4 = 16 x i8
# on gfx950); f32 forms take one element per lane (k = l / M). Layouts per cdna-facts 2.2.
MFMA8_SOURCE = r"""
typedef float f16v __attribute__((ext_vector_type(16)));
typedef float f4v __attribute__((ext_vector_type(4)));
typedef int i16v __attribute__((ext_vector_type(16)));
typedef int i4v __attribute__((ext_vector_type(4)));
typedef char c8v __attribute__((ext_vector_type(8)));
typedef char c16v __attribute__((ext_vector_type(16)));
#define MM8(NAME, OPT, VE, VACC, CT, BUILTIN, M, KL, NR)                                  \
__kernel void NAME(__global const char* A, __global const char* B, __global CT* C, int K) { \
  int l = __builtin_amdgcn_workitem_id_x(), row = l % M, g = l / M;                        \
  VACC acc = 0;                                                                            \
  for (int k0 = 0; k0 < K; k0 += (64 / M) * KL) {                                          \
    VE a, b;                                                                               \
    for (int v = 0; v < KL; ++v) {                                                         \
      a[v] = A[row * K + k0 + g * KL + v];                                                 \
      b[v] = B[(k0 + g * KL + v) * M + row];                                               \
    }                                                                                      \
    acc = BUILTIN(__builtin_astype(a, OPT), __builtin_astype(b, OPT), acc, 0, 0, 0);        \
  }                                                                                        \
  for (int r = 0; r < NR; ++r)                                                             \
    C[((r / 4) * 4 * (64 / M) + 4 * g + r % 4) * M + row] = acc[r];                        \
}
#define MMF(NAME, VACC, BUILTIN, M, NR)                                                    \
__kernel void NAME(__global const float* A, __global const float* B, __global float* C, int K) { \
  int l = __builtin_amdgcn_workitem_id_x(), row = l % M, g = l / M;                        \
  VACC acc = 0;                                                                            \
  for (int k0 = 0; k0 < K; k0 += 64 / M)                                                   \
    acc = BUILTIN(A[row * K + k0 + g], B[(k0 + g) * M + row], acc, 0, 0, 0);               \
  for (int r = 0; r < NR; ++r)                                                             \
    C[((r / 4) * 4 * (64 / M) + 4 * g + r % 4) * M + row] = acc[r];                        \
}
MM8(mm_32x32x16_i8, long, c8v, i16v, int, __builtin_amdgcn_mfma_i32_32x32x16_i8, 32, 8, 16)
MM8(mm_16x16x32_i8, long, c8v, i4v, int, __builtin_amdgcn_mfma_i32_16x16x32_i8, 16, 8, 4)
MM8(mm_32x32x16_fp8_fp8, long, c8v, f16v, float, __builtin_amdgcn_mfma_f32_32x32x16_fp8_fp8, 32, 8, 16)
MM8(mm_16x16x32_bf8_fp8, long, c8v, f4v, float, __builtin_amdgcn_mfma_f32_16x16x32_bf8_fp8, 16, 8, 4)
MMF(mm_32x32x2_f32, f16v, __builtin_amdgcn_mfma_f32_32x32x2f32, 32, 16)
MMF(mm_16x16x4_f32, f4v, __builtin_amdgcn_mfma_f32_16x16x4f32, 16, 4)
#ifdef GFX950
MM8(mm_32x32x32_i8, i4v, c16v, i16v, int, __builtin_amdgcn_mfma_i32_32x32x32_i8, 32, 16, 16)
MM8(mm_16x16x64_i8, i4v, c16v, i4v, int, __builtin_amdgcn_mfma_i32_16x16x64_i8, 16, 16, 4)
#endif
"""

# (kernel, M, mnemonic, A format, B format, archs); fp8 formats: FNUZ on gfx942, OCP on gfx950
# (cdna-facts 2.1)
MFMA8_CASES = [
    ("mm_32x32x16_i8", 32, "v_mfma_i32_32x32x16_i8", "i8", "i8", ARCHES),
    ("mm_16x16x32_i8", 16, "v_mfma_i32_16x16x32_i8", "i8", "i8", ARCHES),
    ("mm_32x32x16_fp8_fp8", 32, "v_mfma_f32_32x32x16_fp8_fp8", "fp8", "fp8", ARCHES),
    ("mm_16x16x32_bf8_fp8", 16, "v_mfma_f32_16x16x32_bf8_fp8", "bf8", "fp8", ARCHES),
    ("mm_32x32x2_f32", 32, "v_mfma_f32_32x32x2_f32", "f32", "f32", ARCHES),
    ("mm_16x16x4_f32", 16, "v_mfma_f32_16x16x4_f32", "f32", "f32", ARCHES),
    ("mm_32x32x32_i8", 32, "v_mfma_i32_32x32x32_i8", "i8", "i8", ("gfx950",)),
    ("mm_16x16x64_i8", 16, "v_mfma_i32_16x16x64_i8", "i8", "i8", ("gfx950",)),
]


def _fp8_dtype(fmt, arch):
    import ml_dtypes
    if fmt == "fp8":
        return ml_dtypes.float8_e4m3fnuz if arch == "gfx942" else ml_dtypes.float8_e4m3fn
    return ml_dtypes.float8_e5m2fnuz if arch == "gfx942" else ml_dtypes.float8_e5m2


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("arch,case",
                         [pytest.param(a, c, id=f"{a}-{c[0]}") for c in MFMA8_CASES for a in c[5]])
def test_mfma_int8_fp8_f32_exact(arch, case, seed):
    """Values whose products and sums are exact in the accumulator: any layout, format (FNUZ vs
    OCP) or accumulation error is an exact mismatch."""
    kernel, m, mnem, fa, fb, _ = case
    hs = build(MFMA8_SOURCE, arch, ("-DGFX950",) if arch == "gfx950" else ())
    assert mnem in mnemonics(hs, arch, kernel)
    rng = np.random.default_rng(seed)
    k = 128 if m == 16 else 64
    if fa == "i8":
        a = rng.integers(-128, 128, (m, k)).astype(np.int8)
        b = rng.integers(-128, 128, (k, m)).astype(np.int8)
        c = np.zeros((m, m), np.int32)
        launch(hs, arch, kernel, a, b, c, ("i", k), seed=seed)
        assert np.array_equal(c, a.astype(np.int64) @ b.astype(np.int64))
        return
    if fa == "f32":
        a32 = (rng.integers(-64, 65, (m, k)) / 16).astype(np.float32)
        b32 = (rng.integers(-64, 65, (k, m)) / 16).astype(np.float32)
        a_raw, b_raw = a32, b32
    else:
        # small multiples of 1/4: exact in e4m3 (both variants)
        a32 = (rng.integers(-12, 13, (m, k)) / 4).astype(np.float32)
        b32 = (rng.integers(-12, 13, (k, m)) / 4).astype(np.float32)
        a_raw = a32.astype(_fp8_dtype(fa, arch)).view(np.int8)
        b_raw = b32.astype(_fp8_dtype(fb, arch)).view(np.int8)
        # e5m2 keeps 2 mantissa bits: compare with the values actually encoded
        a32 = a_raw.view(_fp8_dtype(fa, arch)).astype(np.float32)
        b32 = b_raw.view(_fp8_dtype(fb, arch)).astype(np.float32)
    c = np.full((m, m), np.nan, np.float32)
    launch(hs, arch, kernel, a_raw, b_raw, c, ("i", k), seed=seed)
    assert np.array_equal(c, (a32.astype(np.float64) @ b32.astype(np.float64)).astype(np.float32))


GEMM_SOURCE = r"""
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
typedef half h4 __attribute__((ext_vector_type(4)));
typedef float f16v __attribute__((ext_vector_type(16)));
#define BARRIER() __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup"); __builtin_amdgcn_s_barrier(); \
                  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup")
/* 4 waves (256 threads) compute a 128x128 tile of C = A(MxK) * B(KxN), f16 in, f32 out. Each wave
   owns a 64x64 sub-tile = 2x2 MFMA 32x32x8 blocks, K staged through LDS 8 at a time. */
#ifndef GEMM_ATTR
#define GEMM_ATTR
#endif
__kernel GEMM_ATTR void gemm(__global const half* A, __global const half* B, __global float* C, int K, int N) {
  __local half As[128 * 8];
  __local half Bs[8 * 128];
  int t = __builtin_amdgcn_workitem_id_x(), wave = t / 64, l = t % 64;
  int wm = (wave / 2) * 64, wn = (wave % 2) * 64;
  int bm = __builtin_amdgcn_workgroup_id_y() * 128, bn = __builtin_amdgcn_workgroup_id_x() * 128;
  f16v acc[2][2];
  for (int i = 0; i < 2; ++i) for (int j = 0; j < 2; ++j) acc[i][j] = 0.0f;
  for (int k0 = 0; k0 < K; k0 += 8) {
    for (int e = t; e < 128 * 8; e += 256) {
      As[e] = A[(bm + e / 8) * K + k0 + e % 8];
      Bs[e] = B[(k0 + e / 128) * N + bn + e % 128];
    }
    BARRIER();
    h4 a[2], b[2];
    for (int i = 0; i < 2; ++i)
      for (int v = 0; v < 4; ++v) {
        a[i][v] = As[(wm + 32 * i + l % 32) * 8 + 4 * (l / 32) + v];
        b[i][v] = Bs[(4 * (l / 32) + v) * 128 + wn + 32 * i + l % 32];
      }
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 2; ++j)
        acc[i][j] = __builtin_amdgcn_mfma_f32_32x32x8f16(a[i], b[j], acc[i][j], 0, 0, 0);
    BARRIER();
  }
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 2; ++j)
      for (int r = 0; r < 16; ++r)
        C[(bm + wm + 32 * i + 8 * (r / 4) + 4 * (l / 32) + r % 4) * N + bn + wn + 32 * j + l % 32] = acc[i][j][r];
}
"""


@pytest.mark.parametrize("spill", [False, True], ids=["regs", "spill"])
@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("arch", ARCHES)
def test_mfma_lds_tiled_gemm_four_waves(arch, seed, spill):
    """A realistic shape: 4 waves, LDS-staged K slices, 2x2 MFMA blocks per wave, hazards padded by
    LLVM's own s_nop (the emulator's hazard check must accept them): exact on values whose products
    and sums are exact in fp32."""
    # spill: 6 waves per SIMD leave LLVM too few VGPRs, so it spills to scratch (private segment)
    extra = ("-DGEMM_ATTR=__attribute__((amdgpu_waves_per_eu(6,6)))",) if spill else ()
    hs = build(GEMM_SOURCE, arch, extra)
    ops = mnemonics(hs, arch, "gemm")
    assert {"v_mfma_f32_32x32x8_f16", "s_barrier", "s_nop", "ds_read2st64_b64"} <= ops, sorted(ops)
    assert not spill or {"scratch_store_dword", "scratch_load_dword"} <= ops, sorted(ops)
    rng = np.random.default_rng(seed)
    m = n = 256
    k = 32
    a = (rng.integers(-8, 9, (m, k)) / 4).astype(np.float16)
    b = (rng.integers(-8, 9, (k, n)) / 4).astype(np.float16)
    c = np.zeros((m, n), np.float32)
    launch(hs, arch, "gemm", a.view(np.uint16), b.view(np.uint16), c, ("i", k), ("i", n),
           grid=(2, 2, 1), block=(256, 1, 1), seed=seed)
    assert np.array_equal(c, a.astype(np.float64) @ b.astype(np.float64))


# ------------------------------------------------------------------------------------------------
# Cross-lane builtins. References follow the CDNA3 ISA guide: DS_BPERMUTE_B32 reads lane
# (addr/4) % 64; DS_SWIZZLE_B32 offset[15] = 1 -> quad permute (2 bits per lane), else bit mode
# src = ((l & and) | or) ^ xor within 32 lanes (and = offset[4:0], or = [9:5], xor = [14:10]);
# DPP (row = 16 lanes): row_shr n reads l-n inside the row, row_bcast15 lane 15 of the previous row
# into rows 1 and 3 (row_mask 0xa), row_bcast31 lane 31 into rows 2 and 3 (row_mask 0xc), quad_perm
# selects inside 4 lanes, out-of-row sources read 0 with bound_ctrl, else keep the old value.
# ------------------------------------------------------------------------------------------------
LANE_SOURCE = r"""
#define L __builtin_amdgcn_workitem_id_x()
__kernel void xlane(__global const uint* x, __global const uint* y, __global const uint* idx,
                    __global uint* out, int k) {
  uint l = L, v = x[l], w = y[l];
  out[0 * 64 + l] = __builtin_amdgcn_ds_bpermute(idx[l] * 4, v);
  out[1 * 64 + l] = __builtin_amdgcn_ds_swizzle(v, 0x8000 | 0x1b);            /* quad perm 3,2,1,0 */
  out[2 * 64 + l] = __builtin_amdgcn_ds_swizzle(v, (0x1f ^ 0x10) | (0 << 5) | (0x0f << 10));
  out[3 * 64 + l] = __builtin_amdgcn_ds_swizzle(v, 0x18 | (0x03 << 5) | (0x01 << 10));
  out[4 * 64 + l] = __builtin_amdgcn_update_dpp(w, v, 0x113, 0xf, 0xf, false);  /* row_shr:3 */
  out[5 * 64 + l] = __builtin_amdgcn_update_dpp(w, v, 0x111, 0xf, 0xf, true);   /* row_shr:1 bc */
  out[6 * 64 + l] = __builtin_amdgcn_update_dpp(w, v, 0x142, 0xa, 0xf, false);  /* row_bcast:15 */
  out[7 * 64 + l] = __builtin_amdgcn_update_dpp(w, v, 0x143, 0xc, 0xf, false);  /* row_bcast:31 */
  out[8 * 64 + l] = __builtin_amdgcn_update_dpp(w, v, 0x39, 0xf, 0xf, false);   /* quad_perm 1,2,3,0 */
  out[9 * 64 + l] = __builtin_amdgcn_mov_dpp(v, 0x140, 0xf, 0xf, true);        /* row_mirror */
  out[10 * 64 + l] = __builtin_amdgcn_update_dpp(w, v, 0x101, 0x5, 0x3, false); /* row_shl:1 masks */
  out[11 * 64 + l] = __builtin_amdgcn_readlane(v, k);
  out[12 * 64 + l] = w > 0x80000000u ? __builtin_amdgcn_readfirstlane(v) : 7u;
  out[13 * 64 + l] = __builtin_amdgcn_mov_dpp(v, 0x138, 0xf, 0xf, true);       /* wave_shr:1 */
}

/* Wave-wide sum: inclusive row scan with row_shr 1,2,4,8, then row_bcast15/31, then readlane 63;
   plus a ballot population count. */
__kernel void wave_sum(__global const uint* x, __global uint* out) {
  uint v = x[L];
  v += __builtin_amdgcn_update_dpp(0u, v, 0x111, 0xf, 0xf, true);
  v += __builtin_amdgcn_update_dpp(0u, v, 0x112, 0xf, 0xf, true);
  v += __builtin_amdgcn_update_dpp(0u, v, 0x114, 0xf, 0xf, true);
  v += __builtin_amdgcn_update_dpp(0u, v, 0x118, 0xf, 0xf, true);
  v += __builtin_amdgcn_update_dpp(0u, v, 0x142, 0xa, 0xf, false);
  v += __builtin_amdgcn_update_dpp(0u, v, 0x143, 0xc, 0xf, false);
  out[64 + L] = v;
  ulong bal = __builtin_amdgcn_ballot_w64(x[L] & 1);
  if (L == 0) {
    out[0] = __builtin_amdgcn_readlane(v, 63);
    out[1] = __builtin_popcountl(bal);
    out[2] = (uint)bal;
    out[3] = (uint)(bal >> 32);
  }
}

/* more DPP controls (row_ror, row_half_mirror, wave_rol/ror/shl, gfx90a+ row_newbcast), forward
   ds_permute, mbcnt, and the timing / priority SOPP forms LLVM emits for the builtins */
__kernel void xlane2(__global const uint* x, __global uint* out, __global ulong* t) {
  uint l = L, v = x[l];
  ulong t0 = __builtin_readcyclecounter();
  __builtin_amdgcn_s_sleep(2);
  __builtin_amdgcn_s_setprio(1);
  out[0 * 64 + l] = __builtin_amdgcn_ds_permute(((l * 5) % 64) * 4, v);
  out[1 * 64 + l] = __builtin_amdgcn_update_dpp(7u, v, 0x124, 0xf, 0xf, false);  /* row_ror:4 */
  out[2 * 64 + l] = __builtin_amdgcn_update_dpp(7u, v, 0x141, 0xf, 0xf, false);  /* row_half_mirror */
  out[3 * 64 + l] = __builtin_amdgcn_update_dpp(7u, v, 0x134, 0xf, 0xf, false);  /* wave_rol:1 */
  out[4 * 64 + l] = __builtin_amdgcn_update_dpp(7u, v, 0x13c, 0xf, 0xf, false);  /* wave_ror:1 */
  out[5 * 64 + l] = __builtin_amdgcn_update_dpp(7u, v, 0x130, 0xf, 0xf, false);  /* wave_shl:1 */
  out[6 * 64 + l] = __builtin_amdgcn_update_dpp(7u, v, 0x153, 0xf, 0xf, false);  /* row_newbcast:3 */
  out[7 * 64 + l] = __builtin_amdgcn_mbcnt_hi(0xF0F0F0F0u, __builtin_amdgcn_mbcnt_lo(0x12345678u, 0u));
  out[8 * 64 + l] = __builtin_amdgcn_update_dpp(7u, v, 0x10f, 0xf, 0xf, false);  /* row_shl:15 */
  out[9 * 64 + l] = __builtin_amdgcn_update_dpp(7u, v, 0x12f, 0xf, 0xf, false);  /* row_ror:15 */
  ulong t1 = __builtin_readcyclecounter();
  ulong rt = __builtin_amdgcn_s_memrealtime();
  if (l == 0) { t[0] = t0; t[1] = t1; t[2] = rt; }
}

#ifdef GFX950
__kernel void permlane_swap(__global const uint* x, __global const uint* y, __global uint* out) {
  uint2 a = __builtin_amdgcn_permlane32_swap(x[L], y[L], false, false);
  uint2 b = __builtin_amdgcn_permlane16_swap(x[L], y[L], false, false);
  out[0 * 64 + L] = a.x; out[1 * 64 + L] = a.y; out[2 * 64 + L] = b.x; out[3 * 64 + L] = b.y;
}
#endif
"""


def _lane_hsaco(arch):
    return build(LANE_SOURCE, arch, ("-DGFX950",) if arch == "gfx950" else ())


def _dpp(old, src, srcl, valid, row_mask=0xF, bank_mask=0xF, bound=False):
    """DPP reference (CDNA3 ISA "DPP"): lane l reads src[srcl[l]] when valid[l]; disabled rows/banks
    keep old; invalid sources read 0 with bound_ctrl, else keep old."""
    lanes = np.arange(64)
    enable = (((row_mask >> (lanes // 16)) & 1).astype(bool)
              & ((bank_mask >> ((lanes % 16) // 4)) & 1).astype(bool))
    val = np.where(valid, src[srcl % 64], 0 if bound else old)
    return np.where(enable, val, old).astype(np.uint32)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("arch", ARCHES)
def test_cross_lane_builtins(arch, seed):
    hs = _lane_hsaco(arch)
    ops = mnemonics(hs, arch, "xlane")
    assert {"ds_bpermute_b32", "ds_swizzle_b32", "v_readlane_b32", "v_readfirstlane_b32"} <= ops
    assert "v_mov_b32_dpp" in ops
    rng = np.random.default_rng(seed)
    x = rng.integers(0, 1 << 32, 64, dtype=np.uint32)
    y = rng.integers(0, 1 << 32, 64, dtype=np.uint32)
    idx = rng.integers(0, 1 << 12, 64).astype(np.uint32)   # bpermute wraps the lane index mod 64
    k = int(rng.integers(0, 64))
    out = np.zeros(14 * 64, np.uint32)
    launch(hs, arch, "xlane", x, y, idx, out, ("i", k), seed=seed)
    got = out.reshape(14, 64)
    lanes = np.arange(64)
    row, in_row = lanes // 16 * 16, lanes % 16
    t = np.ones(64, bool)
    assert np.array_equal(got[0], x[idx % 64])
    assert np.array_equal(got[1], x[(lanes & ~3) | (3 - (lanes & 3))])
    half = lanes & ~31
    assert np.array_equal(got[2], x[half | (((lanes & 31) & 0x0F) ^ 0x0F)])
    assert np.array_equal(got[3], x[half | ((((lanes & 31) & 0x18) | 0x03) ^ 0x01)])
    assert np.array_equal(got[4], _dpp(y, x, lanes - 3, in_row >= 3))
    assert np.array_equal(got[5], _dpp(y, x, lanes - 1, in_row >= 1, bound=True))
    assert np.array_equal(got[6], _dpp(y, x, row - 1, t, row_mask=0xA))
    assert np.array_equal(got[7], _dpp(y, x, np.full(64, 31), t, row_mask=0xC))
    assert np.array_equal(got[8], _dpp(y, x, (lanes & ~3) | (((lanes & 3) + 1) & 3), t))
    assert np.array_equal(got[9], x[row + 15 - in_row])
    assert np.array_equal(got[10], _dpp(y, x, lanes + 1, in_row <= 14, row_mask=0x5, bank_mask=0x3))
    assert np.array_equal(got[11], np.full(64, x[k]))
    act = y > 0x80000000
    want = np.where(act, x[np.argmax(act)] if act.any() else 0, 7)
    assert np.array_equal(got[12], want)
    assert np.array_equal(got[13], np.where(lanes > 0, x[lanes - 1], 0))


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("arch", ARCHES)
def test_wave_sum_by_dpp_and_ballot(arch, seed):
    hs = _lane_hsaco(arch)
    assert "v_add_u32_dpp" in mnemonics(hs, arch, "wave_sum")   # LLVM folds the DPP mov into the add
    rng = np.random.default_rng(seed)
    x = rng.integers(0, 1 << 20, 64, dtype=np.uint32)
    out = np.zeros(128, np.uint32)
    launch(hs, arch, "wave_sum", x, out, seed=seed)
    assert out[0] == x.sum() % (1 << 32)
    # the scan: lanes hold an inclusive prefix inside each row plus the rows folded in by bcast
    prefix = np.cumsum(x.reshape(4, 16), axis=1).ravel()
    lanes = np.arange(64)
    rows = prefix.reshape(4, 16)
    want = prefix.copy()
    want[16:32] += rows[0, 15]
    want[48:64] += rows[2, 15]
    r1_total = rows[0, 15] + rows[1, 15]
    want[32:64] += r1_total
    assert np.array_equal(out[64:], want.astype(np.uint32)), lanes[out[64:] != want]
    bits = (x & 1).astype(bool)
    assert out[1] == bits.sum()
    bal = sum(1 << i for i in range(64) if bits[i])
    assert (int(out[2]), int(out[3])) == (bal & 0xFFFFFFFF, bal >> 32)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("arch", ARCHES)
def test_more_dpp_permute_mbcnt_and_timers(arch, seed):
    """DPP per the CDNA3 ISA "DPP" table: row_ror:n reads (l - n) mod 16 in the row, wave_rol/shl:1
    read lane l + 1 (rol wraps, shl has no source for lane 63), wave_ror:1 reads l - 1 mod 64,
    row_half_mirror mirrors 8 lanes, row_newbcast:n (gfx90a+) reads lane n of the row. ds_permute
    is the forward permute: lane l writes lane (addr/4) % 64. mbcnt counts mask bits below the lane."""
    hs = _lane_hsaco(arch)
    ops = mnemonics(hs, arch, "xlane2")
    assert {"ds_permute_b32", "v_mbcnt_lo_u32_b32", "v_mbcnt_hi_u32_b32", "s_memtime", "s_memrealtime",
            "s_sleep", "s_setprio", "v_mov_b32_dpp"} <= ops, sorted(ops)
    rng = np.random.default_rng(seed)
    x = rng.integers(0, 1 << 32, 64, dtype=np.uint32)
    out = np.zeros(10 * 64, np.uint32)
    t = np.zeros(3, np.uint64)
    launch(hs, arch, "xlane2", x, out, t, seed=seed)
    got = out.reshape(10, 64)
    lanes = np.arange(64)
    row, in_row = lanes // 16 * 16, lanes % 16
    old = np.full(64, 7, np.uint32)
    perm = np.zeros(64, np.uint32)
    perm[(lanes * 5) % 64] = x
    assert np.array_equal(got[0], perm)
    assert np.array_equal(got[1], x[row + (in_row - 4) % 16])
    assert np.array_equal(got[2], x[(lanes & ~7) | (7 - (lanes & 7))])
    assert np.array_equal(got[3], x[(lanes + 1) % 64])
    assert np.array_equal(got[4], x[(lanes - 1) % 64])
    assert np.array_equal(got[5], _dpp(old, x, lanes + 1, lanes < 63))
    assert np.array_equal(got[6], x[row + 3])
    mask = 0xF0F0F0F0 << 32 | 0x12345678
    assert np.array_equal(got[7], [(mask & ((1 << i) - 1)).bit_count() for i in range(64)])
    assert np.array_equal(got[8], _dpp(old, x, lanes + 15, in_row == 0))
    assert np.array_equal(got[9], x[row + (in_row - 15) % 16])
    assert t[1] > t[0] and t[2] > 0                       # s_memtime advances; s_memrealtime is set


@pytest.mark.parametrize("seed", SEEDS)
def test_permlane_swaps_gfx950(seed):
    """v_permlane32_swap: vdst lanes 32-63 <-> vsrc lanes 0-31; v_permlane16_swap: odd 16-lane rows
    of vdst <-> even rows of vsrc (CDNA4 ISA; LLVM returns {new vdst, new vsrc})."""
    hs = _lane_hsaco("gfx950")
    assert {"v_permlane32_swap_b32", "v_permlane16_swap_b32"} <= mnemonics(hs, "gfx950", "permlane_swap")
    rng = np.random.default_rng(seed)
    x = rng.integers(0, 1 << 32, 64, dtype=np.uint32)
    y = rng.integers(0, 1 << 32, 64, dtype=np.uint32)
    out = np.zeros(4 * 64, np.uint32)
    launch(hs, "gfx950", "permlane_swap", x, y, out, seed=seed)
    got = out.reshape(4, 64)
    assert np.array_equal(got[0], np.concatenate([x[:32], y[:32]]))
    assert np.array_equal(got[1], np.concatenate([x[32:], y[32:]]))
    xr, yr = x.reshape(4, 16), y.reshape(4, 16)
    assert np.array_equal(got[2], np.concatenate([xr[0], yr[0], xr[2], yr[2]]))
    assert np.array_equal(got[3], np.concatenate([xr[1], yr[1], xr[3], yr[3]]))
