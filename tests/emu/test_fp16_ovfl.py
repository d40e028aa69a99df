"""MODE.FP16_OVFL on the f16-result float VALU ops (isa.emu.denorm docstring): a hand-written .s
assembled by llvm-mc-22 runs v_add/v_mul/v_fma/v_rcp_f16, v_pk_add_f16, v_fma_mixlo_f16 and
v_cvt_f16_f32 over overflowing, Inf and NaN inputs with the bit off, set by the kernel descriptor
(``.amdhsa_fp16_overflow 1``, COMPUTE_PGM_RSRC1 bit 26) and set at run time by s_setreg of MODE
bit 23, against a NumPy reference of the ISA guide's rule ("an overflowed FP16 result is clamped
to +/- MAX_FP16 ... while still preserving true INF values", read as rocjitsu does: an Inf result
of finite sources becomes +-65504, rcp_f16(0) included). The fp8/bf8 converts: test_cvt_fp8_edges."""
from __future__ import annotations

import struct

import numpy as np
import pytest
from hand_kernel import hand_kernel, needs_mc

from isa.codeobj import CodeObject
from isa.emu import Emulator

F16, F32 = np.float16, np.float32
INF = np.inf
A = [0.0, -0.0, 2.0 ** -16, -(2.0 ** -16), 256.0, -512.0, 60000.0, -60000.0, 40000.0, 65504.0,
     INF, -INF, np.nan, 1.0, -2.0, 300.0]
B = [65504.0, -65504.0, 2.0, -3.0, 300.0, 0.5, 60000.0, -40000.0, INF, -INF, 4.0, 1.0, 2.0, np.nan,
     -65504.0, 1000.0]
C = [1e6, -1e6, 65504.0, 65520.0, 65519.0, INF, -INF, np.nan, 1.5, 3e38, -65520.0, 70000.0,
     0.25, -1e30, 65536.0, 2.0 ** -30]

BODY = """
  s_load_dwordx4 s[4:7], s[0:1], 0
  {setreg}
  v_lshlrev_b32 v1, 3, v0
  v_lshlrev_b32 v0, 5, v0
  s_waitcnt lgkmcnt(0)
  global_load_dwordx2 v[2:3], v1, s[4:5]
  s_waitcnt vmcnt(0)
  v_lshrrev_b32 v4, 16, v2
  v_add_f16 v6, v2, v4
  v_mul_f16 v7, v2, v4
  v_fma_f16 v8, v2, v4, v2
  v_rcp_f16 v9, v2
  v_pk_add_f16 v10, v2, v2
  v_mov_b32 v11, 0
  v_fma_mixlo_f16 v11, v2, v4, v2 op_sel_hi:[1,1,1]
  v_cvt_f16_f32 v12, v3
  s_getreg_b32 s8, hwreg(HW_REG_MODE, 23, 1)
  v_mov_b32 v13, s8
  global_store_dwordx4 v0, v[6:9], s[6:7]
  global_store_dwordx4 v0, v[10:13], s[6:7] offset:16
  s_endpgm"""
DIRS = """  .amdhsa_next_free_vgpr 16
  .amdhsa_next_free_sgpr 16
  .amdhsa_accum_offset 16
  .amdhsa_float_denorm_mode_32 3
  .amdhsa_user_sgpr_kernarg_segment_ptr 1
  .amdhsa_user_sgpr_count 2
  .amdhsa_fp16_overflow {ovfl}"""


def _inputs(n: int = 64):
    a = np.resize(np.asarray(A, F16), n)
    b = np.resize(np.asarray(B, F16), 64)
    b = np.resize(np.concatenate([np.roll(b, k) for k in range(4)]), n)   # vary the (a, b) pairs
    c = np.resize(np.asarray(C, F32), n)
    inp = np.zeros((n, 2), np.uint32)
    inp[:, 0] = a.view(np.uint16).astype(np.uint32) | b.view(np.uint16).astype(np.uint32) << 16
    inp[:, 1] = c.view(np.uint32)
    return a, b, c, inp


def _run(ovfl: int, setreg: str = "", arch: str = "gfx942", n: int = 64):
    """One workgroup of ``n`` work-items (n > 64: its waves step as groups, isa.emu.pool)."""
    hs = hand_kernel(BODY.format(setreg=setreg), DIRS.format(ovfl=ovfl), arch=arch)
    a, b, c, inp = _inputs(n)
    out = np.zeros((n, 8), np.uint32)
    emu = Emulator(arch=arch)
    emu.launch(hs, "k", block=(n, 1, 1),
               kernargs=struct.pack("<QQ", emu.alloc(inp), emu.alloc(out)))
    return hs, (a, b, c), out


def _sat(res, *srcs):
    """The reference rule: +-Inf from sources none of which is +-Inf -> +-65504."""
    res = np.asarray(res, F16)
    bad = np.isinf(res)
    for s in srcs:
        bad &= ~np.isinf(s)
    return np.where(bad, np.copysign(F16(65504), res), res).astype(F16)


def _reference(a, b, c, ovfl: bool):
    with np.errstate(all="ignore"):
        a64, b64 = a.astype(np.float64), b.astype(np.float64)
        want = {
            "add": (a64 + b64).astype(F16), "mul": (a64 * b64).astype(F16),
            "fma": (a64 * b64 + a64).astype(F16), "rcp": (1.0 / a64).astype(F16),
            "pk_lo": (a64 + a64).astype(F16), "pk_hi": (b64 + b64).astype(F16),
            "mix": (a64 * b64 + a64).astype(F16), "cvt": c.astype(F16),
        }
    if ovfl:
        srcs = {"add": (a, b), "mul": (a, b), "fma": (a, b), "rcp": (a,), "pk_lo": (a,),
                "pk_hi": (b,), "mix": (a, b), "cvt": (c,)}
        want = {k: _sat(v, *srcs[k]) for k, v in want.items()}
    return want


def _got(out):
    lo = lambda col: (out[:, col] & 0xFFFF).astype(np.uint16).view(F16)
    return {"add": lo(0), "mul": lo(1), "fma": lo(2), "rcp": lo(3), "pk_lo": lo(4),
            "pk_hi": (out[:, 4] >> 16).astype(np.uint16).view(F16), "mix": lo(5), "cvt": lo(6)}


def _same(got, want) -> np.ndarray:
    """Lane-wise: both NaN, or the same bits (signed zeros and infinities distinguished)."""
    return (np.isnan(got) & np.isnan(want)) | (got.view(np.uint16) == want.view(np.uint16))


def _check(out, inputs, ovfl: bool, exact_rcp=True):
    a, b, c = inputs
    got, want = _got(out), _reference(a, b, c, ovfl)
    for k in want:
        ok = _same(got[k], want[k])
        if k == "rcp":      # v_rcp_f16 is exact only for powers of two, zero and Inf sources
            m = np.frexp(a.astype(np.float64))[0]
            ok |= ~(np.isin(np.abs(m), (0.5, 0.0)) | np.isinf(a))
        assert ok.all(), (k, ovfl, np.nonzero(~ok)[0][:4], got[k][~ok][:4], want[k][~ok][:4])
    assert (out[:, 7] == int(ovfl)).all()                 # s_getreg reads MODE bit 23 back



@needs_mc
def test_without_the_bit_f16_overflow_is_inf():
    hs, inputs, out = _run(0)
    assert not CodeObject.from_bytes(hs).kernel("k").descriptor.fp16_ovfl
    _check(out, inputs, False)
    assert (out[6, 0] & 0xFFFF) == 0x7C00               # 60000 + 60000 -> +Inf


@needs_mc
@pytest.mark.parametrize("arch", ["gfx942", "gfx950"])
def test_descriptor_bit_saturates_f16_results(arch):
    hs, inputs, out = _run(1, arch=arch)
    assert CodeObject.from_bytes(hs).kernel("k").descriptor.fp16_ovfl
    _check(out, inputs, True)
    b = inputs[1]
    got = _got(out)
    # spot facts of the rule: finite overflow -> +-65504, a true Inf stays, NaN stays NaN
    assert got["add"][6] == 65504 and b[6] == 60000            # 60000 + 60000
    assert got["cvt"][0] == 65504 and got["cvt"][1] == -65504    # +-1e6
    assert np.isposinf(got["cvt"][5]) and np.isneginf(got["cvt"][6])
    assert got["rcp"][0] == 65504 and got["rcp"][1] == -65504    # rcp(+-0): divide by zero
    assert got["rcp"][10] == 0                                   # rcp(Inf) = 0
    assert np.isposinf(got["add"][10])                           # Inf + finite
    assert np.isnan(got["add"][12])


@needs_mc
def test_setreg_sets_the_bit_at_run_time():
    hs, inputs, out = _run(0, "s_setreg_imm32_b32 hwreg(HW_REG_MODE, 23, 1), 1", n=256)
    assert not CodeObject.from_bytes(hs).kernel("k").descriptor.fp16_ovfl
    _check(out, inputs, True)
    _, inputs2, out2 = _run(1, "s_setreg_imm32_b32 hwreg(HW_REG_MODE, 23, 1), 0")
    _check(out2, inputs2, False)


@pytest.mark.parametrize("ovfl", [False, True])
def test_always_flushing_mad_and_f32_results(ovfl):
    """v_mad_f16 (an ALWAYS_FLUSH op, isa.emu.denorm) saturates under the bit too; an f32 result
    overflows to Inf either way (the bit names FP16 results only)."""
    from isa.emu.catalog import execute
    from isa.emu.state import Wave
    w = Wave(0)
    w.set_exec((1 << 64) - 1)
    w.fp_mode = 0x2F0 | (1 << 23 if ovfl else 0)
    w.vgpr[1] = 0x7800                                           # f16 32768
    w.vgpr[3] = np.full(64, 3e38, F32).view(np.uint32)
    execute(w, "v_mad_f16 v2, v1, v1, 0", arch="gfx942")
    execute(w, "v_add_f32 v4, v3, v3", arch="gfx942")
    assert (w.vgpr[2] & 0xFFFF == (0x7BFF if ovfl else 0x7C00)).all()
    assert np.isposinf(w.vgpr[4].view(F32)).all()
