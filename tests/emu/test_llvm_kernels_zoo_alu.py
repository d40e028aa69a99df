"""LLVM kernel zoo, part 2: integer arithmetic as clang-22 lowers it for gfx942/gfx950 (32/64-bit
division expansions, bit counting, bfe, 64-bit shifts and multiplies, 24-bit multiplies, saturation,
the same on wave-uniform values through SALU) and the integer/half/bf16 dot-product builtins, run on
the emulator with two seeds and compared with exact Python references."""
from __future__ import annotations

import numpy as np
import pytest
from test_llvm_kernels_zoo_util import ARCHES, SEEDS, build, launch, mnemonics, needs_llvm

pytestmark = needs_llvm

INT_SOURCE = r"""
#define L __builtin_amdgcn_workitem_id_x()
#define INT32_BODY(a, b, o)                                                                \
  int sa = (int)a, sb = (int)b;                                                            \
  o[0] = a / b;                                                                             \
  o[1] = a % b;                                                                             \
  o[2] = (uint)(sa / sb);                                                                   \
  o[3] = (uint)(sa % sb);                                                                   \
  o[4] = __builtin_popcount(a);                                                             \
  o[5] = __builtin_clzg(a, 32);                                                             \
  o[6] = __builtin_ctzg(b, 32);                                                             \
  o[7] = __builtin_bitreverse32(a);                                                         \
  o[8] = __builtin_amdgcn_ubfe(a, b & 31, (b >> 5) & 31);                                   \
  o[9] = (uint)__builtin_amdgcn_sbfe(sa, b & 31, (b >> 5) & 31);                            \
  o[10] = (uint)(((sa << 8) >> 8) * ((sb << 8) >> 8) + sa);          /* mad24 (signed) */   \
  o[11] = (a & 0xffffff) * (b & 0xffffff);                            /* mul24 (unsigned) */ \
  o[12] = __builtin_elementwise_add_sat(a, b);                                              \
  o[13] = (uint)__builtin_elementwise_sub_sat(sa, sb);                                      \
  o[14] = (uint)(((ulong)a * b) >> 32);                               /* mul_hi u32 */      \
  o[15] = (uint)(((long)sa * sb) >> 32);                              /* mul_hi i32 */      \
  o[16] = (a << (b & 31)) | (a >> ((32 - (b & 31)) & 31));             /* rotate */         \
  o[17] = a > b ? a - b : b - a;                                      /* abs_diff */        \
  o[18] = a / 7u + (uint)(sa / -3);                                   /* magic-number division */ \
  o[19] = (uint)__builtin_elementwise_add_sat(sa, sb);

__kernel void int32(__global const uint* pa, __global const uint* pb, __global uint* out) {
  uint a = pa[L], b = pb[L];
  __global uint* o = out + L * 20;
  INT32_BODY(a, b, o)
}

/* the same operations on wave-uniform values (s_load of a workgroup-indexed element): SALU forms */
__kernel void int32_uniform(__global const uint* pa, __global const uint* pb, __global uint* out) {
  uint g = __builtin_amdgcn_workgroup_id_x(), a = pa[g], b = pb[g];
  if (L == 0) {
    __global uint* o = out + g * 20;
    INT32_BODY(a, b, o)
  }
}

__kernel void int64(__global const ulong* pa, __global const ulong* pb, __global ulong* out) {
  ulong a = pa[L], b = pb[L];
  long sa = (long)a, sb = (long)b;
  __global ulong* o = out + L * 12;
  o[0] = a / b;
  o[1] = a % b;
  o[2] = (ulong)(sa / sb);
  o[3] = (ulong)(sa % sb);
  o[4] = a << (b & 63);
  o[5] = a >> (b & 63);
  o[6] = (ulong)(sa >> (b & 63));
  o[7] = a * b;
  o[8] = __builtin_popcountg(a) | ((ulong)__builtin_clzg(a, 64) << 8) | ((ulong)__builtin_ctzg(b, 64) << 16);
  o[9] = __builtin_bitreverse64(a);
  o[10] = (ulong)(((unsigned __int128)a * b) >> 64);                  /* mul_hi u64 */
  o[11] = a + b + (a < b);                                            /* carries */
}
"""

M32, M64 = (1 << 32) - 1, (1 << 64) - 1


def _s(x, bits):
    x = int(x)
    return x - (1 << bits) if x >> (bits - 1) else x


def _trunc_div(a, b):
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def _bfe(a, off, width, signed):
    if width == 0:
        return 0
    f = (a >> off) & ((1 << width) - 1)          # ISA: bits [off+width-1:off], off/width 5 bits each
    if off + width > 32:
        f = a >> off
        width = 32 - off
    return _s(f, width) & M32 if signed else f


def _int32_ref(a, b):
    sa, sb = _s(a, 32), _s(b, 32)
    sat = lambda v: min(max(v, -(1 << 31)), (1 << 31) - 1) & M32
    s24 = lambda v: _s(v & 0xFFFFFF, 24)
    rot = b & 31
    return [a // b, a % b, _trunc_div(sa, sb) & M32, (sa - _trunc_div(sa, sb) * sb) & M32,
            a.bit_count(), 32 - a.bit_length(), (b & -b).bit_length() - 1 if b else 32,
            int(f"{a:032b}"[::-1], 2), _bfe(a, b & 31, (b >> 5) & 31, False),
            _bfe(a, b & 31, (b >> 5) & 31, True), (s24(sa) * s24(sb) + sa) & M32,
            ((a & 0xFFFFFF) * (b & 0xFFFFFF)) & M32, min(a + b, M32), sat(sa - sb),
            (a * b) >> 32, ((sa * sb) >> 32) & M32, ((a << rot) | (a >> ((32 - rot) & 31))) & M32,
            abs(a - b), (a // 7 + _trunc_div(sa, -3)) & M32, sat(sa + sb)]


def _int64_ref(a, b):
    sa, sb = _s(a, 64), _s(b, 64)
    q = _trunc_div(sa, sb)
    sh = b & 63
    return [a // b, a % b, q & M64, (sa - q * sb) & M64, (a << sh) & M64, a >> sh, (sa >> sh) & M64,
            (a * b) & M64,
            a.bit_count() | (64 - a.bit_length()) << 8 | ((b & -b).bit_length() - 1 if b else 64) << 16,
            int(f"{a:064b}"[::-1], 2), (a * b) >> 64, (a + b + (a < b)) & M64]


def _operands(rng, bits, n=64):
    """Mixed magnitudes so both the fast (small divisor / high word zero) and long paths run;
    includes zero numerators, 1, -1 and extreme values; divisors are never 0."""
    top = 1 << bits
    a = [int(v) for v in rng.integers(0, top, n, dtype=np.uint64 if bits == 64 else np.int64)]
    b = [int(v) for v in rng.integers(1, top, n, dtype=np.uint64 if bits == 64 else np.int64)]
    for i in range(0, n, 4):
        b[i] = int(rng.integers(1, 1 << 16))            # small divisor
    for i in range(1, n, 8):
        a[i] = int(rng.integers(0, 1 << 20))           # small numerator
    a[2], b[2] = top - 1, top - 1                       # -1 / -1
    a[3], b[3] = 1 << (bits - 1), top - 1              # INT_MIN / -1 wraps
    a[5], b[5] = 0, 3
    a[6], b[6] = top - 7, 1
    if bits == 32:
        b[7] = (31 << 5) | 4                             # bfe past bit 31
    return a, b


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("arch", ARCHES)
def test_int32_ops(arch, seed):
    hs = build(INT_SOURCE, arch)
    ops = mnemonics(hs, arch, "int32")
    assert {"v_rcp_iflag_f32", "v_mul_hi_u32", "v_bcnt_u32_b32", "v_ffbh_u32", "v_bfrev_b32",
            "v_bfe_u32", "v_bfe_i32", "v_mad_i32_i24", "v_mul_u32_u24", "v_mul_hi_i32",
            "v_alignbit_b32", "v_ffbl_b32", "v_add_i32", "v_sub_i32"} <= ops, sorted(ops)
    rng = np.random.default_rng(seed)
    a, b = _operands(rng, 32)
    out = np.zeros(64 * 20, np.uint32)
    launch(hs, arch, "int32", np.array(a, np.uint32), np.array(b, np.uint32), out, seed=seed)
    want = np.array([_int32_ref(x, y) for x, y in zip(a, b)], np.uint64).astype(np.uint32)
    got = out.reshape(64, 20)
    bad = np.argwhere(got != want)
    assert not len(bad), [(int(i), int(j), a[i], b[i], int(got[i, j]), int(want[i, j])) for i, j in bad[:5]]


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("arch", ARCHES)
def test_int32_ops_uniform_salu(arch, seed):
    hs = build(INT_SOURCE, arch)
    ops = mnemonics(hs, arch, "int32_uniform")
    assert {"s_bcnt1_i32_b32", "s_flbit_i32_b32", "s_ff1_i32_b32", "s_brev_b32", "s_mul_hi_u32",
            "s_mul_i32", "s_bfe_u32", "s_bfe_i32"} <= ops, sorted(ops)
    rng = np.random.default_rng(seed)
    a, b = _operands(rng, 32, 16)
    out = np.zeros(16 * 20, np.uint32)
    launch(hs, arch, "int32_uniform", np.array(a, np.uint32), np.array(b, np.uint32), out,
           grid=(16, 1, 1), seed=seed)
    want = np.array([_int32_ref(x, y) for x, y in zip(a, b)], np.uint64).astype(np.uint32)
    got = out.reshape(16, 20)
    bad = np.argwhere(got != want)
    assert not len(bad), [(int(i), int(j), a[i], b[i], int(got[i, j]), int(want[i, j])) for i, j in bad[:5]]


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("arch", ARCHES)
def test_int64_ops(arch, seed):
    hs = build(INT_SOURCE, arch)
    ops = mnemonics(hs, arch, "int64")
    assert {"v_rcp_f32", "v_mad_u64_u32", "v_lshlrev_b64", "v_ashrrev_i64",
            "v_addc_co_u32"} <= ops, sorted(ops)
    rng = np.random.default_rng(seed)
    a, b = _operands(rng, 64)
    out = np.zeros(64 * 12, np.uint64)
    launch(hs, arch, "int64", np.array(a, np.uint64), np.array(b, np.uint64), out, seed=seed)
    want = np.array([_int64_ref(x, y) for x, y in zip(a, b)], dtype=object)
    got = out.reshape(64, 12)
    bad = [(i, j, a[i], b[i], int(got[i, j]), want[i, j]) for i in range(64) for j in range(12)
           if int(got[i, j]) != want[i, j]]
    assert not bad, bad[:5]


DOT_SOURCE = r"""
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
typedef half h2 __attribute__((ext_vector_type(2)));
typedef short s2 __attribute__((ext_vector_type(2)));
typedef ushort us2 __attribute__((ext_vector_type(2)));
__kernel void dots(__global const int* pa, __global const int* pb, __global int* o, __global float* of) {
  uint l = __builtin_amdgcn_workitem_id_x();
  int x = pa[l], y = pb[l];
  o[l * 8 + 0] = __builtin_amdgcn_sdot4(x, y, x, false);
  o[l * 8 + 1] = __builtin_amdgcn_udot4(x, y, (uint)y, false);
  o[l * 8 + 2] = __builtin_amdgcn_sdot4(x, y, x, true);
  o[l * 8 + 3] = __builtin_amdgcn_sdot2(__builtin_astype(x, s2), __builtin_astype(y, s2), y, false);
  o[l * 8 + 4] = __builtin_amdgcn_udot2(__builtin_astype(x, us2), __builtin_astype(y, us2), (uint)x, true);
  o[l * 8 + 5] = __builtin_amdgcn_sdot8(x, y, x, false);
  o[l * 8 + 6] = __builtin_amdgcn_udot8(x, y, (uint)x, false);
  o[l * 8 + 7] = __builtin_amdgcn_sdot2(__builtin_astype(x, s2), __builtin_astype(y, s2), x, true);
  of[l * 2 + 0] = __builtin_amdgcn_fdot2(__builtin_astype(x, h2), __builtin_astype(y, h2), 1.5f, false);
#ifdef GFX950
  of[l * 2 + 1] = __builtin_amdgcn_fdot2_f32_bf16(__builtin_astype(x, s2), __builtin_astype(y, s2), 1.5f, false);
#endif
}
"""


def _dot_ref(x, y):
    """Dot products (CDNA3 ISA V_DOT*): lane-wise sums of 8/16/4-bit products plus C; clamp
    saturates to the destination's integer range, otherwise the sum wraps."""
    def parts(v, bits, signed):
        out = []
        for i in range(32 // bits):
            p = (v >> (bits * i)) & ((1 << bits) - 1)
            out.append(p - (1 << bits) if signed and p >> (bits - 1) else p)
        return out

    def dot(bits, signed, c, clamp):
        s = sum(a * b for a, b in zip(parts(x, bits, signed), parts(y, bits, signed))) + c
        if clamp:
            lo, hi = (-(1 << 31), (1 << 31) - 1) if signed else (0, (1 << 32) - 1)
            s = min(max(s, lo), hi)
        return s & 0xFFFFFFFF
    sx = x - (1 << 32) if x >> 31 else x
    sy = y - (1 << 32) if y >> 31 else y
    return [dot(8, True, sx, False), dot(8, False, y, False), dot(8, True, sx, True),
            dot(16, True, sy, False), dot(16, False, x, True), dot(4, True, sx, False),
            dot(4, False, x, False), dot(16, True, sx, True)]


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("arch", ARCHES)
def test_dot_products(arch, seed):
    from ml_dtypes import bfloat16
    hs = build(DOT_SOURCE, arch, ("-DGFX950",) if arch == "gfx950" else ())
    ops = mnemonics(hs, arch, "dots")
    assert {"v_dot4_i32_i8", "v_dot4_u32_u8", "v_dot2_u32_u16", "v_dot8_u32_u4"} <= ops, sorted(ops)
    assert ops & {"v_dot2c_f32_f16", "v_dot2c_f32_f16_e32", "v_dot2_f32_f16"}, sorted(ops)
    rng = np.random.default_rng(seed)
    x = rng.integers(0, 1 << 32, 64, dtype=np.uint32)
    y = rng.integers(0, 1 << 32, 64, dtype=np.uint32)
    x[:4] = [0x7FFFFFF0, 0x7F7F7F7F, 0x80000000, 0xFFFFFFFF]          # clamp / wrap edges
    y[:4] = [0x7F7F7F7F, 0x7F7F7F7F, 0x7F7F7F7F, 0x80808080]
    # lanes 32..63: half (gfx942, gfx950) resp. bf16 pairs of small integers / 8, so the float dots'
    # products and sums are exact in f32 whatever the hardware's internal rounding
    small = lambda dt: (rng.integers(-64, 65, (32, 2)) / 8).astype(dt).view(np.uint32).ravel()
    fdt = bfloat16 if arch == "gfx950" and seed else np.float16
    x[32:], y[32:] = small(fdt), small(fdt)
    o = np.zeros(64 * 8, np.uint32)
    of = np.zeros(128, np.float32)
    launch(hs, arch, "dots", x.view(np.int32), y.view(np.int32), o, of, seed=seed)
    want = np.array([_dot_ref(int(a), int(b)) for a, b in zip(x, y)], np.uint64).astype(np.uint32)
    assert np.array_equal(o.reshape(64, 8), want)
    for col, dt in ((0, np.float16), (1, bfloat16)):
        if dt is not fdt or (col == 1 and arch != "gfx950"):
            continue
        hx = x[32:].view(dt).reshape(32, 2).astype(np.float64)
        hy = y[32:].view(dt).reshape(32, 2).astype(np.float64)
        ref = (hx * hy).sum(1) + 1.5
        assert np.array_equal(of.reshape(64, 2)[32:, col], ref.astype(np.float32))

