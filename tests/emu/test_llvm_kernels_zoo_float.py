"""LLVM kernel zoo, part 3: float arithmetic as clang-22 lowers it for gfx942/gfx950 (fma, sqrt,
rsq, exp2/log2 builtins and their denormal-scaling expansions, fract, ldexp/frexp, NaN-aware
min/max, f32 and f64 division, half/bf16 conversions with round-to-nearest-even and denormals,
packed half math, 64-bit integer <-> float conversions) run with two seeds against NumPy / exact
rationals, and the refusal of flush-denormal kernels."""
from __future__ import annotations

import numpy as np
import pytest
from test_llvm_kernels_zoo_util import ARCHES, SEEDS, build, launch, mnemonics, needs_llvm, ulp_diff_f32

pytestmark = needs_llvm


FLOAT_SOURCE = r"""
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
#define L __builtin_amdgcn_workitem_id_x()
__kernel void f32ops(__global const float* px, __global const float* py, __global const float* pz,
                     __global const int* pn, __global float* out, __global int* iout) {
  float x = px[L], y = py[L], z = pz[L];
  __global float* o = out + L * 16;
  o[0] = __builtin_fmaf(x, y, z);
  o[1] = __builtin_sqrtf(x);
  o[2] = __builtin_exp2f(y);
  o[3] = __builtin_log2f(x);
  o[4] = __builtin_amdgcn_fractf(z);
  o[5] = __builtin_ldexpf(x, pn[L]);
  int e;
  o[6] = __builtin_frexpf(x, &e);
  iout[L] = e;
  o[7] = __builtin_fminf(x, y);
  o[8] = __builtin_fmaxf(x, y);
  o[9] = __builtin_elementwise_minimum(x, y);
  o[10] = __builtin_elementwise_maximum(x, y);
  o[11] = x / y;
  o[12] = __builtin_amdgcn_rsqf(z * z + 1.0f);
  o[13] = __builtin_amdgcn_exp2f(z);
  o[14] = __builtin_amdgcn_logf(z * z + 0.5f);
  o[15] = __builtin_amdgcn_rcpf(z * z + 0.25f);
}

typedef half h2 __attribute__((ext_vector_type(2)));
__kernel void f16ops(__global const float* px, __global const h2* pa, __global const h2* pb,
                     __global const h2* pc, __global ushort* hout, __global h2* pout,
                     __global float* fout) {
  float x = px[L];
  hout[L * 2 + 0] = __builtin_bit_cast(ushort, (half)x);          /* f32 -> f16, RNE */
  hout[L * 2 + 1] = __builtin_bit_cast(ushort, (__bf16)x);        /* f32 -> bf16, RNE */
  h2 a = pa[L], b = pb[L], c = pc[L];
  pout[L * 4 + 0] = a + b;
  pout[L * 4 + 1] = a * b;
  pout[L * 4 + 2] = __builtin_elementwise_fma(a, b, c);
  pout[L * 4 + 3] = __builtin_elementwise_max(a, b);
  fout[L * 2 + 0] = (float)a.x + (float)b.y;                       /* f16 -> f32 */
  fout[L * 2 + 1] = (float)(__builtin_bit_cast(__bf16, (ushort)__builtin_bit_cast(uint, x))) ;
}
"""


def _specials(rng, n=64):
    """Random normals of mixed scale, denormals, signed zeros, infinities, NaN."""
    v = (rng.standard_normal(n) * 10.0 ** rng.integers(-6, 7, n)).astype(np.float32)
    v[:6] = [0.0, -0.0, np.inf, -np.inf, np.nan, 1.0]
    v[6:12] = rng.standard_normal(6).astype(np.float32) * np.float32(1e-40)      # denormals
    v[12:14] = [np.float32(1.2e-38), -np.float32(3e-39)]
    v[14:18] = rng.standard_normal(4).astype(np.float32) * np.float32(1e30)
    rng.shuffle(v)
    return v


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("arch", ARCHES)
def test_f32_ops(arch, seed):
    hs = build(FLOAT_SOURCE, arch)
    ops = mnemonics(hs, arch, "f32ops")
    assert {"v_fma_f32", "v_sqrt_f32", "v_exp_f32", "v_log_f32", "v_fract_f32", "v_ldexp_f32",
            "v_frexp_mant_f32", "v_frexp_exp_i32_f32", "v_rsq_f32", "v_rcp_f32"} <= ops, sorted(ops)
    if arch == "gfx950":
        assert {"v_minimum3_f32", "v_maximum3_f32"} <= ops
    rng = np.random.default_rng(seed)
    x, y = _specials(rng), _specials(rng)
    y[np.abs(y) > 60] = np.float32(rng.uniform(-160, 130))      # exp2 over normal and denormal results
    y[::7] = rng.uniform(-149.5, -126, len(y[::7])).astype(np.float32)
    z = rng.uniform(-20, 20, 64).astype(np.float32)
    z[:4] = [-1e-9, -3e-8, 5e-8, -0.0]                          # fract(tiny negative) clamps below 1
    n = rng.integers(-300, 300, 64).astype(np.int32)
    out = np.zeros(64 * 16, np.float32)
    iout = np.zeros(64, np.int32)
    launch(hs, arch, "f32ops", x, y, z, n, out, iout, seed=seed)
    got = out.reshape(64, 16)
    x64, y64, z64 = x.astype(np.float64), y.astype(np.float64), z.astype(np.float64)
    with np.errstate(all="ignore"):
        exact = {0: x64 * y64 + z64, 1: np.sqrt(x64), 7: np.fmin(x, y), 8: np.fmax(x, y),
                 9: np.minimum(x, y), 10: np.maximum(x, y), 5: np.ldexp(x, n)}
        # OpenCL's sqrt/exp2/log2 allowance is 3 ulp (LLVM lowers with !fpmath 3.0 semantics around
        # the 1-ulp hardware ops); the raw builtins are the hardware's 1-ulp instructions (ISA guide).
        # z*z+c is contracted to one fma (OpenCL fp-contract=on): its input is fma-rounded
        zz = lambda c: (z64 * z64 + c).astype(np.float32).astype(np.float64)
        approx = {2: (np.exp2(y64), 1), 3: (np.log2(x64), 1), 11: (x64 / y64, 3),
                  12: (1 / np.sqrt(zz(1)), 1), 13: (np.exp2(z64), 1),
                  14: (np.log2(zz(0.5)), 1), 15: (1 / zz(0.25), 1)}
        fr = z64 - np.floor(z64)
    for col, want in exact.items():
        d = ulp_diff_f32(got[:, col], np.asarray(want).astype(np.float32))
        assert not d.any(), (col, x[d > 0], y[d > 0], got[d > 0, col])
    for col, (want, tol) in approx.items():
        d = ulp_diff_f32(got[:, col], want.astype(np.float32))
        assert d.max() <= tol, (col, int(d.max()), x[d > tol], y[d > tol], got[d > tol, col])
    want_fract = np.minimum(fr.astype(np.float32), np.float32(np.nextafter(np.float32(1), np.float32(0))))
    assert np.array_equal(got[:, 4], want_fract), got[:4, 4]
    fin = np.isfinite(x)
    mant, ex = np.frexp(x)
    assert np.array_equal(got[fin, 6], mant[fin]) and np.array_equal(iout[fin], ex[fin])
    # zero signs: fmin/fmax and minimum/maximum order -0 below +0 (ISA guide IEEE mode)
    both0 = (x == 0) & (y == 0)
    assert np.array_equal(np.signbit(got[both0, 9]), np.signbit(x[both0]) | np.signbit(y[both0]))


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("arch", ARCHES)
def test_half_bf16_ops(arch, seed):
    from ml_dtypes import bfloat16
    hs = build(FLOAT_SOURCE, arch)
    ops = mnemonics(hs, arch, "f16ops")
    assert {"v_cvt_f16_f32", "v_pk_add_f16", "v_pk_mul_f16", "v_pk_fma_f16",
            "v_pk_max_f16"} <= ops, sorted(ops)
    assert arch != "gfx950" or "v_cvt_pk_bf16_f32" in ops     # gfx942 rounds to bf16 with integer ops
    rng = np.random.default_rng(seed)
    x = _specials(rng)
    x[20:30] = rng.uniform(-1, 1, 10).astype(np.float32) * np.float32(2.0 ** -20)   # f16 denormals
    x[30:34] = [65519.0, 65520.0, -70000.0, 2.0 ** -25]                             # overflow / ties
    x[34:38] = np.array([0x3F808000, 0x3F818000, 0x3F80C000, 0x7F7FFFFF], np.uint32).view(np.float32)
    h = lambda: (rng.standard_normal((64, 2)) * 4).astype(np.float16)
    a, b, c = h(), h(), h()
    a[0, 0], b[0, 0] = np.float16(np.nan), np.float16(3.0)
    a[1, 1], b[1, 1] = np.float16(2.0 ** -14), np.float16(-2.0 ** -24)
    hout = np.zeros(128, np.uint16)
    pout = np.zeros((64, 4, 2), np.float16)
    fout = np.zeros(128, np.float32)
    launch(hs, arch, "f16ops", x, a, b, c, hout, pout, fout, seed=seed)
    hh = hout.reshape(64, 2)
    nan = np.isnan(x)
    assert np.array_equal(hh[~nan, 0], x[~nan].astype(np.float16).view(np.uint16))
    assert np.array_equal(hh[~nan, 1], x[~nan].astype(bfloat16).view(np.uint16))
    assert np.all((hh[nan, 0] & 0x7C00) == 0x7C00) and np.all(hh[nan, 0] & 0x3FF)
    assert np.all((hh[nan, 1] & 0x7F80) == 0x7F80) and np.all(hh[nan, 1] & 0x7F)
    a64, b64, c64 = (t.astype(np.float64) for t in (a, b, c))
    with np.errstate(all="ignore"):
        want = np.stack([a64 + b64, a64 * b64, a64 * b64 + c64, np.fmax(a64, b64)], 1).astype(np.float16)
    assert np.array_equal(pout, want, equal_nan=True)
    assert np.array_equal(fout.reshape(64, 2)[:, 0], a[:, 0].astype(np.float32) + b[:, 1].astype(np.float32),
                          equal_nan=True)
    bf = (x.view(np.uint32) & 0xFFFF).astype(np.uint16).view(bfloat16).astype(np.float32)
    assert np.array_equal(fout.reshape(64, 2)[:, 1], bf, equal_nan=True)


CONV_SOURCE = r"""
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
#define L __builtin_amdgcn_workitem_id_x()
__kernel void conv(__global const long* pi, __global const double* pd, __global const float* pf,
                   __global float* of, __global double* od, __global long* ol, __global ushort* oh) {
  long i = pi[L];
  double d = pd[L];
  float f = pf[L];
  of[L * 4 + 0] = (float)i;                        /* i64 -> f32: ffbh + shifts, one rounding */
  of[L * 4 + 1] = (float)(ulong)i;                 /* u64 -> f32 */
  of[L * 4 + 2] = (float)d;                        /* f64 -> f32: v_cvt_f32_f64 */
  of[L * 4 + 3] = f / pf[63 - L];                  /* correctly rounded (build flag) division */
  od[L * 4 + 0] = (double)i;                       /* i64 -> f64 */
  od[L * 4 + 1] = d / pd[63 - L];                  /* div_scale / div_fmas / div_fixup f64 */
  od[L * 4 + 2] = __builtin_sqrt(__builtin_fabs(d));
  od[L * 4 + 3] = __builtin_fma(d, pd[(L + 1) % 64], (double)f);
  ol[L * 2 + 0] = (long)(f * 1e6f);                /* f32 -> i64 */
  ol[L * 2 + 1] = (long)__builtin_trunc(d * 1e9);  /* f64 -> i64 */
  oh[L * 2 + 0] = __builtin_bit_cast(ushort, (half)d);   /* f64 -> f16 directly: one rounding */
  oh[L * 2 + 1] = __builtin_bit_cast(ushort, (half)(float)__builtin_sqrt(__builtin_fabs(f)));
}
"""


def _conv_hsaco(arch):
    return build(CONV_SOURCE, arch, ("-cl-fp32-correctly-rounded-divide-sqrt",))


def _f64_to_f16_exact(d: np.ndarray) -> np.ndarray:
    """Single correctly rounded f64 -> f16 (NumPy's float64 -> float16 cast rounds once)."""
    return d.astype(np.float16).view(np.uint16)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("arch", ARCHES)
def test_conversions_and_f64(arch, seed):
    hs = _conv_hsaco(arch)
    ops = mnemonics(hs, arch, "conv")
    assert {"v_cvt_f32_f64", "v_div_scale_f64", "v_div_fmas_f64", "v_div_fixup_f64", "v_div_scale_f32",
            "v_div_fmas_f32", "v_div_fixup_f32", "v_rsq_f64", "v_fma_f64", "v_ffbh_u32"} <= ops, sorted(ops)
    rng = np.random.default_rng(seed)
    i = rng.integers(-(1 << 63), 1 << 63, 64, dtype=np.int64)
    i[:8] = [0, -1, 1 << 62, (1 << 63) - 1, -(1 << 63), (1 << 53) + 1, (1 << 24) + 1, 0x7FFFFFBFFFFFFFFF]
    i[8:16] >>= rng.integers(10, 60, 8)
    d = rng.standard_normal(64) * 10.0 ** rng.integers(-8, 9, 64)
    d[:6] = [65520.0, 65519.99, 2.0 ** -25, 2.0 ** -25 * 1.0000001, -6.1e-5, 3.0000000000000004e-8]
    f = (rng.standard_normal(64) * 10.0 ** rng.integers(-3, 3, 64)).astype(np.float32)
    f[5] = np.float32(1e-40)                                            # denormal numerator
    of, od = np.zeros(256, np.float32), np.zeros(256, np.float64)
    ol, oh = np.zeros(128, np.int64), np.zeros(128, np.uint16)
    launch(hs, arch, "conv", i, d, f, of, od, ol, oh, seed=seed)
    of, od, ol, oh = of.reshape(64, 4), od.reshape(64, 4), ol.reshape(64, 2), oh.reshape(64, 2)
    # Python int -> float is correctly rounded; float64 -> float32 then rounds a second time, so
    # go through exact fractions for the f32 results of 64-bit integers
    from fractions import Fraction
    f32_of = lambda x: np.float32(_round_f32(Fraction(int(x))))
    assert np.array_equal(of[:, 0], [f32_of(x) for x in i])
    assert np.array_equal(of[:, 1], [f32_of(int(x) & ((1 << 64) - 1)) for x in i])
    assert np.array_equal(of[:, 2], d.astype(np.float32))
    assert np.array_equal(of[:, 3], [np.float32(_round_f32(Fraction(float(a)) / Fraction(float(b))))
                                     for a, b in zip(f, f[::-1])])
    assert np.array_equal(od[:, 0], [float(int(x)) for x in i])
    assert np.array_equal(od[:, 1], d / d[::-1])                      # IEEE f64 division
    assert np.array_equal(od[:, 2], np.sqrt(np.abs(d)))
    fma = [float(Fraction(float(a)) * Fraction(float(b)) + Fraction(float(c)))
           for a, b, c in zip(d, np.roll(d, -1), f.astype(np.float64))]
    assert np.array_equal(od[:, 3], fma)
    assert np.array_equal(ol[:, 0], np.trunc(f * np.float32(1e6)).astype(np.int64))
    assert np.array_equal(ol[:, 1], np.trunc(d * 1e9).astype(np.int64))
    assert np.array_equal(oh[:, 0], _f64_to_f16_exact(d))
    assert np.array_equal(oh[:, 1], np.sqrt(np.abs(f)).astype(np.float16).view(np.uint16))


def _round_f32(q) -> float:
    """Round an exact rational to the nearest float32 (ties to even), as a Python float."""
    from fractions import Fraction
    if q == 0:
        return 0.0
    sign, q = (-1.0 if q < 0 else 1.0), abs(q)
    e = q.numerator.bit_length() - q.denominator.bit_length()
    if Fraction(2) ** e > q:
        e -= 1
    e = max(e, -126)                                  # denormals: fixed quantum 2^-149
    quantum = Fraction(2) ** (e - 23)
    n, r = divmod(q, quantum)
    n = int(n) + (1 if r > quantum / 2 or (r == quantum / 2 and int(n) % 2) else 0)
    return sign * float(n * quantum)


FTZ_SOURCE = r"""
__kernel void ftz(__global const float* x, __global const float* y, __global float* o) {
  uint l = __builtin_amdgcn_workitem_id_x();
  o[l] = x[l] * y[l];
}
"""


@pytest.mark.parametrize("arch", ARCHES)
def test_flush_denormal_kernel_flushes(arch):
    """-cl-denorms-are-zero sets float_denorm_mode_32 = 0: v_mul_f32 returns 0 for 1e-20 * 1e-20
    (the denormal result is flushed, isa.emu.denorm); the default build keeps it: 1e-40."""
    from isa.codeobj import CodeObject
    hs = build(FTZ_SOURCE, arch, ("-cl-denorms-are-zero",))
    assert CodeObject.from_bytes(hs).kernels["ftz"].descriptor.float_denorm_mode_32 == 0
    x = np.full(64, 1e-20, np.float32)
    o = np.full(64, 7, np.float32)
    launch(hs, arch, "ftz", x, x, o)
    assert np.all(o == 0)
    o = np.zeros(64, np.float32)                  # the default build keeps denormals: 1e-40
    launch(build(FTZ_SOURCE, arch), arch, "ftz", x, x, o)
    assert np.all(o == np.float32(1e-20) * np.float32(1e-20)) and o[0] != 0
