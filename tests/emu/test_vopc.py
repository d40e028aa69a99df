"""VOPC semantics (isa.emu.valu_cmp) against NumPy: every predicate on f32/f16/f64/i32/u32/i64/u64/i16,
NaN handling of ordered/unordered predicates, v_cmp_class, e32 -> VCC vs e64 -> SGPR pair, inactive
lanes 0 in the mask, and v_cmpx writing EXEC."""
from __future__ import annotations

import numpy as np
import pytest

from isa.emu.catalog import execute
from isa.emu.state import Wave

EXEC = 0xFFF0_0FFF_F00F_FFFF
F32 = np.float32


def lanes(mask):
    return np.array([(mask >> i) & 1 for i in range(64)], bool)


def bits(b):
    return sum(1 << i for i in range(64) if b[i])


def wave(seed=0):
    rng = np.random.default_rng(seed)
    w = Wave(0)
    small = rng.integers(-3, 4, (256, 64)).astype(np.int32)   # many equal pairs
    w.vgpr[:] = small.view(np.uint32)
    f = rng.integers(-2, 3, (2, 64)).astype(F32)
    f[0, :6] = [np.nan, 1.0, np.nan, -0.0, np.inf, -np.inf]
    f[1, :6] = [1.0, np.nan, np.nan, 0.0, np.inf, 1.0]
    w.vgpr[10:12] = f.view(np.uint32)
    w.set_exec(EXEC)
    return w


FLOAT_REF = {
    "f": lambda a, b: np.zeros(64, bool), "lt": np.less, "eq": np.equal, "le": np.less_equal,
    "gt": np.greater, "lg": lambda a, b: (a < b) | (a > b), "ge": np.greater_equal,
    "o": lambda a, b: ~np.isnan(a) & ~np.isnan(b), "u": lambda a, b: np.isnan(a) | np.isnan(b),
    "nge": lambda a, b: ~(a >= b), "nlg": lambda a, b: ~((a < b) | (a > b)), "ngt": lambda a, b: ~(a > b),
    "nle": lambda a, b: ~(a <= b), "neq": lambda a, b: ~(a == b), "nlt": lambda a, b: ~(a < b),
    "tru": lambda a, b: np.ones(64, bool)}
INT_REF = {"f": FLOAT_REF["f"], "lt": np.less, "eq": np.equal, "le": np.less_equal, "gt": np.greater,
           "ne": np.not_equal, "ge": np.greater_equal, "t": FLOAT_REF["tru"]}


@pytest.mark.parametrize("pred", sorted(FLOAT_REF))
def test_float_predicates_f32_f16_f64(pred):
    w = wave()
    a, b = w.vgpr[10].view(F32).copy(), w.vgpr[11].view(F32).copy()
    act = lanes(EXEC)
    with np.errstate(all="ignore"):
        ref = bits(FLOAT_REF[pred](a, b) & act)
    execute(w, f"v_cmp_{pred}_f32 vcc, v10, v11")
    assert w.vcc == ref
    execute(w, f"v_cmp_{pred}_f32_e64 s[8:9], v10, v11")
    assert int(w.sgpr[8]) | int(w.sgpr[9]) << 32 == ref
    h = np.stack([a.astype(np.float16), b.astype(np.float16)]).view(np.uint16).astype(np.uint32)
    w.vgpr[20:22] = h | 0xABCD0000          # garbage in the high halves must not matter
    execute(w, f"v_cmp_{pred}_f16 vcc, v20, v21")
    assert w.vcc == ref
    for k, x in enumerate((a, b)):
        w.vgpr[30 + 2 * k:32 + 2 * k] = x.astype(np.float64).view(np.uint32).reshape(64, 2).T
    execute(w, f"v_cmp_{pred}_f64_e64 s[8:9], v[30:31], v[32:33]")
    assert int(w.sgpr[8]) | int(w.sgpr[9]) << 32 == ref


@pytest.mark.parametrize("pred", sorted(INT_REF))
def test_int_predicates(pred):
    w = wave()
    act = lanes(EXEC)
    a, b = w.vgpr[1].copy(), w.vgpr[2].copy()
    f = INT_REF[pred]
    execute(w, f"v_cmp_{pred}_i32 vcc, v1, v2")
    assert w.vcc == bits(f(a.view(np.int32), b.view(np.int32)) & act)
    execute(w, f"v_cmp_{pred}_u32_e64 s[4:5], v1, v2")
    assert int(w.sgpr[4]) | int(w.sgpr[5]) << 32 == bits(f(a, b) & act)
    execute(w, f"v_cmp_{pred}_i16 vcc, v1, v2")
    assert w.vcc == bits(f(a.astype(np.uint16).view(np.int16), b.astype(np.uint16).view(np.int16)) & act)
    x = w.vgpr[4:6].T.copy().view(np.int64)[:, 0]
    y = w.vgpr[6:8].T.copy().view(np.int64)[:, 0]
    execute(w, f"v_cmp_{pred}_i64_e64 s[4:5], v[4:5], v[6:7]")
    assert int(w.sgpr[4]) | int(w.sgpr[5]) << 32 == bits(f(x, y) & act)
    execute(w, f"v_cmp_{pred}_u64_e64 s[4:5], v[4:5], v[6:7]")
    assert int(w.sgpr[4]) | int(w.sgpr[5]) << 32 == bits(f(x.view(np.uint64), y.view(np.uint64)) & act)


def test_sgpr_and_constant_operands():
    w = wave()
    act = lanes(EXEC)
    w.sgpr[3] = 1
    execute(w, "v_cmp_lt_i32 vcc, s3, v1")
    assert w.vcc == bits((1 < w.vgpr[1].view(np.int32)) & act)
    execute(w, "v_cmp_gt_u32 vcc, 64, v1")
    assert w.vcc == bits((64 > w.vgpr[1]) & act)


def test_class():
    w = wave()
    vals = np.array([np.nan, -np.inf, -2.0, -1e-40, -0.0, 0.0, 1e-40, 3.0, np.inf], F32)
    w.vgpr[10, :9] = vals.view(np.uint32)
    w.vgpr[10, 9] = 0x7F800001       # signalling NaN
    w.set_exec((1 << 10) - 1)
    expect_class = [1, 2, 3, 4, 5, 6, 7, 8, 9, 0]
    for k in range(10):
        execute(w, f"v_cmp_class_f32 vcc, v10, {1 << k:#x}")
        assert w.vcc == bits(np.array([c == k for c in expect_class] + [False] * 54)), k
    execute(w, "v_cmp_class_f32_e64 s[0:1], v10, 0x3ff")
    assert int(w.sgpr[0]) == 0x3FF


def test_cmpx_writes_exec_and_sdst():
    w = wave()
    a, b = w.vgpr[1].view(np.int32).copy(), w.vgpr[2].view(np.int32).copy()
    act = lanes(EXEC)
    execute(w, "v_cmpx_lt_i32 vcc, v1, v2")
    ref = bits((a < b) & act)
    assert w.exec == ref and w.vcc == ref
    assert np.array_equal(w.exec_mask(), lanes(ref))
    execute(w, "v_cmpx_eq_u32_e64 s[2:3], v1, v1")      # all active lanes stay
    assert w.exec == ref and int(w.sgpr[2]) | int(w.sgpr[3]) << 32 == ref


def test_class_f16():
    w = wave()
    vals = np.array([np.nan, -np.inf, -2.0, -1e-6, -0.0, 0.0, 1e-6, 3.0, np.inf], np.float16)
    w.vgpr[10, :9] = vals.view(np.uint16)
    w.vgpr[10, 9] = 0x7C01            # signalling NaN
    w.set_exec((1 << 10) - 1)
    expect_class = [1, 2, 3, 4, 5, 6, 7, 8, 9, 0]
    for k in range(10):
        execute(w, f"v_cmp_class_f16 vcc, v10, {1 << k:#x}")
        assert w.vcc == bits(np.array([c == k for c in expect_class] + [False] * 54)), k
