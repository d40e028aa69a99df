"""The low-precision GEMM reference (issue 15, kinds.gemm.reference): exact decoding of every
fp8/bf8 code through the DType table's ml_dtypes types, checked against an independent bit-level
decoder per format and against what the emulator's MFMAs decode on each arch; the tolerance
table (ACC_UNITS) against the emulator's fp8/bf8 MFMA numerics; i8 -> i32 exact and wrapping;
per-tensor scales; representable random inputs."""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from asmgen.dtypes import dtype_of
from asmgen.errors import ConfigError
from asmgen.kinds.gemm.reference import (
    ACC_UNITS,
    compare,
    gemm_random_inputs,
    gemm_reference,
    gemm_tolerance,
)
from asmgen.target import Target

FP8 = {"gfx942": ("fp8_e4m3fnuz", "bf8_e5m2fnuz"), "gfx950": ("fp8_e4m3", "bf8_e5m2")}


def _decode(code: int, name: str) -> float:
    """Independent decoder (sign, exponent, mantissa fields) of one 8-bit float code:
    FNUZ (AMD / Graphcore): bias 8 (E4M3) / 16 (E5M2), 0x80 the only NaN, no inf, no -0;
    OCP v1.0: E4M3FN bias 7, S.1111.111 NaN, no inf; E5M2 bias 15, IEEE inf/NaN."""
    ebits, mbits = (4, 3) if "e4m3" in name else (5, 2)
    fnuz = name.endswith("fnuz")
    bias = (1 << (ebits - 1)) - (0 if fnuz else 1)
    s, e, m = code >> 7, (code >> mbits) & ((1 << ebits) - 1), code & ((1 << mbits) - 1)
    if fnuz and code == 0x80:
        return float("nan")
    if not fnuz and name == "fp8_e4m3" and e == 15 and m == 7:
        return float("nan")
    if not fnuz and name == "bf8_e5m2" and e == 31:
        return float("nan") if m else (-1) ** s * float("inf")
    val = (m / (1 << mbits)) * 2.0 ** (1 - bias) if e == 0 else \
        (1 + m / (1 << mbits)) * 2.0 ** (e - bias)
    return -val if s else val


def _cfg(dtype, out="f32", m=5, n=7, k=9, layout="NT", dtype_b=None, activation="none"):
    ta, tb = layout[0] == "T", layout[1] == "T"
    return SimpleNamespace(m=m, n=n, k=k, dtype=dtype, dtype_b=dtype_b, out_dtype=out,
                           layout=layout, lda=m if ta else k, ldb=k if tb else n, ldc=n,
                           bias=False, activation=activation)


@pytest.mark.parametrize("name", [n for v in FP8.values() for n in v])
def test_every_code_decodes_exactly(name):
    codes = np.arange(256, dtype=np.uint8)
    got = codes.view(dtype_of(name).np_type).astype(np.float64)
    want = np.array([_decode(int(c), name) for c in codes])
    assert np.array_equal(got, want, equal_nan=True), name


def _operands(rng, name_a, name_b, regs):
    """Random A/B registers [regs, 64] whose bytes are representable codes of the dtypes."""
    out = []
    for name in (name_a, name_b):
        vals = rng.standard_normal(regs * 64 * 4) * 2.0 ** rng.integers(-6, 5, regs * 64 * 4)
        codes = vals.astype(dtype_of(name).np_type).view(np.uint8)
        out.append(codes.view(np.uint32).reshape(regs, 64))
    return out


@pytest.mark.parametrize("arch,a,b", [(arch, a, b) for arch, (f, g) in FP8.items()
                                      for a, b in ((f, f), (g, g), (f, g))])
@pytest.mark.parametrize("seed", [0, 1])
def test_emulator_mfma_decodes_the_table_type_and_meets_the_tolerance(arch, a, b, seed):
    """The emulator's fp8/bf8 MFMAs of ``arch`` read the codes as the DType table's type (same
    multiset of values), and their result stays inside ACC_UNITS' accumulation bound."""
    from isa.emu.mfma import mfma, mfma_reference, operand_values
    forms = [f for f in Target(arch).mfmas(a, b) if f.blocks == 1 and "f8f6f4" not in f.name]
    assert forms, (arch, a, b)
    rng = np.random.default_rng(seed)
    for f in forms:
        ra, rb = _operands(rng, a, b, f.a_regs)
        c = np.zeros((f.cd_regs, 64), np.uint32)
        av, bv, _ = operand_values(f.name, arch, ra, rb, c)
        for regs, vals, name in ((ra, av, a), (rb, bv, b)):
            table = regs.view(np.uint8).view(dtype_of(name).np_type).astype(np.float64)
            assert np.array_equal(np.sort(table.ravel()), np.sort(vals.ravel())), (f.name, name)
        d = mfma(f.name, arch, ra, rb, c)
        exact = np.einsum("bik,bkj->bij", av, bv)[0]
        mag = np.einsum("bik,bkj->bij", np.abs(av), np.abs(bv))[0]
        tol = max(ACC_UNITS[a], ACC_UNITS[b]) * (f.k + 8) * 2.0 ** -24 * mag
        ref = mfma_reference(f.name, arch, ra, rb, c).view(np.float32).astype(np.float64)
        got = d.view(np.float32).astype(np.float64)
        # mfma_reference is float64 A@B rounded once (same register layout as d): bound each D
        # by the tolerance of its element (the largest one, layout-free, as a safe upper bound)
        assert np.all(np.abs(got - ref) <= tol.max() + np.abs(ref) * 2.0 ** -24), f.name
        assert np.abs(exact).max() > 0


def test_i8_is_exact_and_wraps_like_the_mfma():
    cfg = _cfg("i8", "i32", m=1, n=2, k=140_000)        # 140000 * 127 * 127 > 2**31
    A = np.full((1, cfg.k), 127, np.int8)
    B = np.full((2, cfg.k), 127, np.int8)
    B[1] = -128
    ref = gemm_reference(cfg, A, B, None)
    want = [(140_000 * 127 * 127 + 2 ** 31) % 2 ** 32 - 2 ** 31,
            (140_000 * 127 * -128 + 2 ** 31) % 2 ** 32 - 2 ** 31]
    assert ref.dtype == np.int32 and ref[0].tolist() == want
    ok, _ = compare(cfg, ref, A, B, None, 1.0, 0.0)
    assert ok
    off = ref.copy()
    off[0, 1] += 1                                       # one unit off: exact compare fails
    assert not compare(cfg, off, A, B, None, 1.0, 0.0)[0]


def test_i8_against_the_emulator_int_mfma():
    from isa.emu.mfma import mfma, operand_values
    rng = np.random.default_rng(3)
    for arch in ("gfx942", "gfx950"):
        for f in (f for f in Target(arch).mfmas("i8") if f.blocks == 1):
            ra = rng.integers(0, 2 ** 32, (f.a_regs, 64), dtype=np.uint64).astype(np.uint32)
            rb = rng.integers(0, 2 ** 32, (f.a_regs, 64), dtype=np.uint64).astype(np.uint32)
            c = np.zeros((f.cd_regs, 64), np.uint32)
            av, bv, _ = operand_values(f.name, arch, ra, rb, c)
            cfg = _cfg("i8", "i32", m=f.m, n=f.n, k=f.k)
            ref = gemm_reference(cfg, av[0].astype(np.int8), bv[0].T.astype(np.int8), None)
            d = np.sort(mfma(f.name, arch, ra, rb, c).view(np.int32).ravel())
            assert np.array_equal(d, np.sort(ref.ravel())), f.name


def test_i32_output_refuses_scaling():
    cfg = _cfg("i8", "i32")
    inp = gemm_random_inputs(cfg, 0)
    assert (inp["alpha"], inp["beta"]) == (1.0, 0.0) and "scale_a" not in inp
    with pytest.raises(ConfigError, match="alpha=2.0"):
        gemm_reference(cfg, inp["A"], inp["B"], inp["C"], alpha=2.0)
    with pytest.raises(ConfigError, match="activation"):
        gemm_reference(_cfg("i8", "i32", activation="silu"), inp["A"], inp["B"], inp["C"])


@pytest.mark.parametrize("dtype,out", [("fp8_e4m3fnuz", "f32"), ("bf8_e5m2", "bf16"),
                                       ("i8", "bf16"), ("fp8_e4m3", "f16")])
def test_scales_multiply_the_accumulator(dtype, out):
    cfg = _cfg(dtype, out, m=17, n=3, k=33)
    inp = gemm_random_inputs(cfg, 0)
    A, B, C = inp["A"], inp["B"], inp["C"]
    sa, sb = inp["scale_a"], inp["scale_b"]
    assert sa != 1.0 and sb != 1.0 and sa != sb
    scaled = gemm_reference(cfg, A, B, C, inp["alpha"], 0.0, None, sa, sb).astype(np.float64)
    plain = gemm_reference(cfg, A, B, C, inp["alpha"] * sa * sb, 0.0).astype(np.float64)
    assert np.array_equal(scaled, plain)
    args = (A, B, C, inp["alpha"], 0.0, None, sa, sb)
    assert compare(cfg, scaled, *args)[0]
    # a kernel that forgot one scale fails the comparison
    missing = gemm_reference(cfg, A, B, C, inp["alpha"], 0.0, None, sa, 1.0)
    assert not compare(cfg, missing, *args)[0]
    tol = gemm_tolerance(cfg, *args)
    assert np.all(tol > 0) and np.all(tol < np.abs(scaled) * 0.1 + 1e-3)


@pytest.mark.parametrize("dtype", ["fp8_e4m3fnuz", "bf8_e5m2fnuz", "fp8_e4m3", "bf8_e5m2", "i8"])
def test_random_inputs_are_representable(dtype):
    cfg = _cfg(dtype, "f32", m=31, n=17, k=255, layout="TN")
    d = dtype_of(dtype)
    seen = []
    for seed in (0, 1):
        inp = gemm_random_inputs(cfg, seed)
        for key, shape in (("A", (cfg.k, cfg.lda)), ("B", (cfg.k, cfg.ldb))):
            x = inp[key]
            assert x.dtype == np.dtype(d.np_type) and x.shape == shape
            f = x.astype(np.float64)
            assert np.isfinite(f).all()
            assert np.array_equal(f.astype(d.np_type).astype(np.float64), f)   # round trip
        seen.append(inp["A"].astype(np.float64))
    assert not np.array_equal(*seen)                    # the seed matters
    if d.is_int:
        a = seen[0]
        assert a.min() == -128 and a.max() == 127


def test_mixed_b_dtype_is_drawn_and_decoded_as_b():
    cfg = _cfg("fp8_e4m3fnuz", "f32", dtype_b="bf8_e5m2fnuz")
    inp = gemm_random_inputs(cfg, 0)
    assert inp["A"].dtype == np.dtype(dtype_of("fp8_e4m3fnuz").np_type)
    assert inp["B"].dtype == np.dtype(dtype_of("bf8_e5m2fnuz").np_type)
    ref = gemm_reference(cfg, inp["A"], inp["B"], inp["C"])
    want = inp["A"].astype(np.float64) @ inp["B"].astype(np.float64).T   # NT: B is NxK
    assert np.allclose(ref, want.astype(np.float32), rtol=0, atol=0)


@pytest.mark.parametrize("out", ["f16", "bf16"])
def test_compare_expects_the_infinity_an_ieee_output_rounds_to(out):
    """An i8 GEMM whose f32 accumulator lies beyond the f16/bf16 range: the kernel's converts
    (v_cvt_f16_f32, RNE, MODE.FP16_OVFL clear) write +-inf, which ``compare`` accepts with the
    reference's sign (fuzz gemm --seed 1 found an i8 -> f16 GEMM failing on exactly this); a
    finite value there, or an infinity where the reference is in range, still fails."""
    cfg = _cfg("i8", out=out, m=2, n=2, k=4)
    big = 127 if out == "f16" else 0
    A = np.full((2, 4), big or 1, np.int8)
    B = np.full((2, 4), big or 1, np.int8)
    C = np.zeros((2, 2), np.float32)
    alpha = 2.0 if out == "f16" else 1e38        # f16: 2 * 4 * 127^2 = 129032 > 65520
    ref = gemm_reference(cfg, A, B, C, alpha, 0.0).astype(np.float64)
    assert np.isinf(ref).all()                   # NumPy's cast rounds the same way
    got = np.full((2, 2), np.inf)
    assert compare(cfg, got, A, B, C, alpha, 0.0)[0]
    ok, msg = compare(cfg, -got, A, B, C, alpha, 0.0)
    assert not ok and "expected" in msg          # wrong sign
    finite = np.full((2, 2), float(np.finfo(np.float16).max) if out == "f16" else 3.3e38)
    assert not compare(cfg, finite, A, B, C, alpha, 0.0)[0]
    small = alpha / 4                            # in range: an infinity is wrong
    assert not compare(cfg, got, A, B, C, small / (4 * (big or 1) ** 2), 0.0)[0]
