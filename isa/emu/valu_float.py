"""Floating-point VALU semantics (f32, f16, f64): arithmetic, fused multiply-add, min/max/med3,
transcendentals, rounding, ldexp/frexp/fract, the division helpers (div_scale/fmas/fixup), and the
VOP3P packed math and mixed-precision FMAs (v_pk_*, v_fma_mix*); dot products are in
``isa.emu.valu_dot``.

Numerics (documented choices):
- Denormals follow the wave's MODE FP_DENORM fields (isa.emu.denorm: flush sources and/or results per
  the kernel descriptor or s_setreg; all kept by default); rounding is RNE.
- FMAs are single-rounding: f32/f16 through an f64 sum made round-to-odd (exact to the target), f64
  through exact rationals.
- min/max follow IEEE mode (compute default): a NaN operand loses to a number (ISA guide V_MAX_F32),
  two NaNs give a quiet NaN, max(+0, -0) = +0, min(+0, -0) = -0. med3 with any NaN = min3 (ISA).
- Transcendentals are exact-rounded reference values where hardware is ~1 ulp: v_exp_f32 = np.exp2
  in float32, v_log_f32 = np.log2, v_rcp_f32 = 1/x, v_rsq_f32 = 1/sqrt in f64 rounded to f32,
  v_sqrt_f32 = np.sqrt; sin/cos take revolutions (sin(2*pi*x)). f16 forms are computed in f32 and
  rounded once to f16.
- Division helpers follow the ISA guide's V_DIV_SCALE/FMAS/FIXUP pseudocode; with exact v_rcp, LLVM's
  f32/f64 division sequences give IEEE quotients (tests/emu/test_vop3.py runs them).
"""
from __future__ import annotations

from fractions import Fraction

import numpy as np

from ..instr import Instr
from ..operands import Imm
from . import denorm
from .dpp import bind_vop, clamp01, plain_reader, reject_mods, sel_bit
from .operand_io import (
    AluModifierError,
    alu,
    group_mode,
    imm_for_type,
    ops,
    register,
    scalar_getter,
    scalar_setter,
    split64,
    vector_getter,
    vector_setter,
)
from .state import mask_to_bools

F32, F16, F64 = np.float32, np.float16, np.float64


_U32 = np.uint32
_LOW29, _HALF29 = _U32((1 << 29) - 1), _U32(1 << 28)
_ABS32, _ONE, _MANT32 = _U32(0x7FFFFFFF), _U32(1), _U32(0x7FFFFF)
_ABS16, _ONE16, _MANT16 = np.uint16(0x7FFF), np.uint16(1), np.uint16(0x3FF)
_HI_LOW10, _HI_HALF10 = _U32(0x3FF), _U32(0x200)


def fma_round(a, b, c, out):
    """Correctly rounded a*b + c for f32/f16 inputs, result of dtype ``out`` (single rounding).

    The product of two f32 is exact in f64, so the f64 sum s carries one rounding. Rounding s again
    to ``out`` can only differ from rounding the exact value when s is exactly halfway between two
    ``out`` values, or when the result is subnormal in ``out`` (the halfway position moves); those
    lanes are redone with s made round-to-odd from its TwoSum error, which makes the second rounding
    exact (Boldo-Melquiond)."""
    p = a.astype(F64, order="C") * b     # (a new array: a may be a broadcast [n, 1] group source)
    s = np.ascontiguousarray(p + c)
    res = s.astype(out)
    words = s.view(_U32)                 # little endian: even = low word, odd = high word
    if out is F32:
        sus = (words[..., 0::2] & _LOW29) == _HALF29
        sus |= ((res.view(_U32) & _ABS32) - _ONE) < _MANT32
    else:
        sus = (words[..., 0::2] == 0) & ((words[..., 1::2] & _HI_LOW10) == _HI_HALF10)
        sus |= ((res.view(np.uint16) & _ABS16) - _ONE16) < _MANT16
    if not np.count_nonzero(sus):
        return res
    cc = np.asarray(c).astype(F64)
    bb = s - p
    err = (p - (s - bb)) + (cc - bb)
    fix = sus & (err != 0) & np.isfinite(s)
    bits = s.view(np.int64)
    toward0 = fix & ((err < 0) == (s > 0))       # exact value nearer zero than s: truncate one ulp
    bits = np.where(toward0, bits - 1, bits)
    bits = np.where(fix, bits | 1, bits)          # jam the sticky bit: round-to-odd
    return np.where(fix, bits.view(F64).astype(out), res)


def fma64(a, b, c):
    """Exact-rounded f64 fma (lanes with non-finite values fall back to IEEE a*b+c, which agrees)."""
    out = a * b + c
    fin = np.isfinite(a) & np.isfinite(b) & np.isfinite(c) & np.isfinite(out)
    for i in np.nonzero(fin)[0]:
        out[i] = float(Fraction(float(a[i])) * Fraction(float(b[i])) + Fraction(float(c[i])))
    return out


def fmax_ieee(a, b):
    r = np.fmax(a, b)
    z = r == 0
    if np.count_nonzero(z):     # max(+0, -0) = +0: the sum of two zeros is -0 only when both are -0
        r = np.where(z & (a == 0) & (b == 0), a + b, r)
    return r


def fmin_ieee(a, b):
    r = np.fmin(a, b)
    z = r == 0
    if np.count_nonzero(z):     # min(+0, -0) = -0
        r = np.where(z & (a == 0) & (b == 0), -((-a) + (-b)), r)
    return r


def med3f(a, b, c):
    nan = np.isnan(a) | np.isnan(b) | np.isnan(c)
    med = fmax_ieee(fmin_ieee(a, b), fmin_ieee(fmax_ieee(a, b), c))
    return np.where(nan, fmin_ieee(fmin_ieee(a, b), c), med)


def _f16_via_f32(fn):
    return lambda a: fn(a.astype(F32)).astype(F16)


def _rsq(a):
    return (1.0 / np.sqrt(a.astype(F64))).astype(a.dtype)


def _fract(a):
    one_minus = np.nextafter(a.dtype.type(1), a.dtype.type(0))
    return np.where(np.isinf(a), a.dtype.type(np.nan), np.minimum(a - np.floor(a), one_minus))


def _ldexp(a, e):
    return np.ldexp(a, np.clip(e.astype(np.int64), -400, 400).astype(np.int32)).astype(a.dtype)


def _frexp_mant(a):
    m, _ = np.frexp(a)
    return np.where(np.isfinite(a), m, a).astype(a.dtype)


def _frexp_exp(a):
    _, e = np.frexp(a)
    return np.where(np.isfinite(a), e, 0).astype(np.int32)


def _sin(a):
    return np.sin(a.astype(F64) * (2 * np.pi)).astype(a.dtype)


def _cos(a):
    return np.cos(a.astype(F64) * (2 * np.pi)).astype(a.dtype)


def _mul_legacy(a, b):
    # DX9 rules: 0 * anything (inf, NaN included) = +0 (ISA guide V_MUL_LEGACY_F32)
    return np.where((a == 0) | (b == 0), a.dtype.type(0), a * b)


def _fma_for(dt):
    if dt == "f64":
        return fma64
    return lambda a, b, c: fma_round(a, b, c, F32 if dt == "f32" else F16)


# name -> (src types, dst type, fn)
FLOAT_OPS: dict[str, tuple] = {}
for _t, _dt in (("f32", F32), ("f16", F16), ("f64", F64)):
    FLOAT_OPS.update({
        f"v_add_{_t}": ((_t, _t), _t, lambda a, b: a + b),
        f"v_sub_{_t}": ((_t, _t), _t, lambda a, b: a - b),
        f"v_subrev_{_t}": ((_t, _t), _t, lambda a, b: b - a),
        f"v_mul_{_t}": ((_t, _t), _t, lambda a, b: a * b),
        f"v_max_{_t}": ((_t, _t), _t, fmax_ieee),
        f"v_min_{_t}": ((_t, _t), _t, fmin_ieee),
        f"v_fma_{_t}": ((_t, _t, _t), _t, _fma_for(_t)),
        f"v_trunc_{_t}": ((_t,), _t, np.trunc),
        f"v_floor_{_t}": ((_t,), _t, np.floor),
        f"v_ceil_{_t}": ((_t,), _t, np.ceil),
        f"v_rndne_{_t}": ((_t,), _t, np.rint),
        f"v_fract_{_t}": ((_t,), _t, _fract),
        f"v_ldexp_{_t}": ((_t, "i32"), _t, _ldexp),
        f"v_frexp_mant_{_t}": ((_t,), _t, _frexp_mant),
        f"v_rcp_{_t}": ((_t,), _t, lambda a: a.dtype.type(1) / a),
        f"v_sqrt_{_t}": ((_t,), _t, np.sqrt),
        f"v_rsq_{_t}": ((_t,), _t, _rsq),
    })
for _t in ("f32", "f16"):
    FLOAT_OPS.update({
        f"v_max3_{_t}": ((_t,) * 3, _t, lambda a, b, c: fmax_ieee(fmax_ieee(a, b), c)),
        f"v_min3_{_t}": ((_t,) * 3, _t, lambda a, b, c: fmin_ieee(fmin_ieee(a, b), c)),
        f"v_med3_{_t}": ((_t,) * 3, _t, med3f),
    })
FLOAT_OPS.update({
    "v_rcp_iflag_f32": (("f32",), "f32", lambda a: F32(1) / a),
    "v_exp_f32": (("f32",), "f32", np.exp2),
    "v_log_f32": (("f32",), "f32", np.log2),
    "v_sin_f32": (("f32",), "f32", _sin),
    "v_cos_f32": (("f32",), "f32", _cos),
    "v_exp_f16": (("f16",), "f16", _f16_via_f32(np.exp2)),
    "v_log_f16": (("f16",), "f16", _f16_via_f32(np.log2)),
    "v_sin_f16": (("f16",), "f16", _f16_via_f32(_sin)),
    "v_cos_f16": (("f16",), "f16", _f16_via_f32(_cos)),
    "v_rcp_f16": (("f16",), "f16", _f16_via_f32(lambda a: F32(1) / a)),
    "v_sqrt_f16": (("f16",), "f16", _f16_via_f32(np.sqrt)),
    "v_rsq_f16": (("f16",), "f16", _f16_via_f32(_rsq)),
    "v_frexp_exp_i32_f32": (("f32",), "i32", _frexp_exp),
    "v_frexp_exp_i32_f64": (("f64",), "i32", _frexp_exp),
    "v_frexp_exp_i16_f16": (("f16",), "i16", lambda a: _frexp_exp(a).astype(np.int16)),
    "v_mul_legacy_f32": (("f32", "f32"), "f32", _mul_legacy),
    "v_mad_legacy_f32": (("f32",) * 3, "f32", lambda a, b, c: _mul_legacy(a, b) + c),
    "v_mad_f32": (("f32",) * 3, "f32", lambda a, b, c: a * b + c),
    "v_mad_f16": (("f16",) * 3, "f16", lambda a, b, c: (a * b) + c),
    "v_fma_legacy_f16": (("f16",) * 3, "f16", _fma_for("f16")),
})


def _make_float(name):
    srcs, dst, fn = FLOAT_OPS[name]
    return lambda ins: bind_vop(ins, fn, srcs, dst)


register(FLOAT_OPS, _make_float)


# ----- v_fmac_f32 / v_fmac_f64: D = S0 * S1 + D ---------------------------------------------------
def _fmac(typ: str):
    fn = _fma_for(typ)

    def bind(ins):
        d = ops(ins, 3)[0]
        widened = Instr(ins.op, tuple(ins.operands[:3]) + (d,), ins.mods, ins.encoding)
        return bind_vop(widened, fn, (typ, typ, typ), typ)
    return bind


alu("v_fmac_f32")(_fmac("f32"))
alu("v_fmac_f64")(_fmac("f64"))


# ----- division helpers (ISA guide V_DIV_SCALE/FMAS/FIXUP_F32); LLVM's fdiv expansion uses them ------
def _exp(x):
    """Biased exponent field of f32 or f64 lanes."""
    if x.dtype == F64:
        return ((x.view(np.uint64) >> np.uint64(52)) & np.uint64(0x7FF)).astype(np.int32)
    return ((x.view(np.uint32) >> np.uint32(23)) & np.uint32(0xFF)).astype(np.int32)


# V_DIV_SCALE parameters per type: (exponent gap meaning "quotient near max", scale exponent,
# "numerator tiny" exponent, smallest normal, wide type for the denormal tests)
_DIV_SCALE = {"f32": (96, 64, 23, 2.0 ** -126, F64), "f64": (768, 128, 53, 2.0 ** -1022, np.longdouble)}


def _div_scale_for(typ: str):
    """V_DIV_SCALE_F32/F64 (ISA guide pseudocode): pre-scale numerator or denominator by 2^+-N so the
    reciprocal iteration stays in range; VCC flags lanes whose quotient V_DIV_FMAS must rescale."""
    gap, sc, tiny_exp, tiny, wide = _DIV_SCALE[typ]
    dt = F32 if typ == "f32" else F64

    def bind(ins):
        d, sd = ops(ins, 5)[:2]
        reject_mods(ins)
        g0, g1, g2 = (plain_reader(ins, 2 + i, i, typ) for i in range(3))
        put, put_mask = vector_setter(d, 1 if typ == "f32" else 2), scalar_setter(sd, 2)
        up, down = dt(2.0 ** sc), dt(2.0 ** -sc)

        def run(m, w):
            s0, s1, s2 = g0(w), g1(w), g2(w)
            out = s0.copy()
            vcc = np.zeros(64, bool)
            done = np.zeros(64, bool)
            q = s2.astype(wide) / s1.astype(wide)
            rcp = 1 / s1.astype(wide)
            q_den = (q != 0) & (np.abs(q) < tiny)
            r_den = (rcp != 0) & (np.abs(rcp) < tiny)
            cases = [
                ((s2 == 0) | (s1 == 0), None, dt(np.nan), False),
                (_exp(s2) - _exp(s1) >= gap, s0 == s1, s0 * up, True),
                ((_exp(s1) == 0) & (s1 != 0), None, s0 * up, False),
                (r_den & q_den, s0 == s1, s0 * up, True),
                (r_den, None, s0 * down, False),
                (q_den, s0 == s2, s0 * up, True),
                (_exp(s2) <= tiny_exp, None, s0 * up, False),
            ]
            for cond, sub, val, sets_vcc in cases:
                hit = cond & ~done
                if sets_vcc:
                    vcc |= hit
                out = np.where(hit if sub is None else hit & sub, val, out).astype(dt)
                done |= hit
            ex = w.exec_mask()
            put(w, out.view(np.uint32) if typ == "f32" else split64(out.view(np.uint64)), ex)
            put_mask(w, int.from_bytes(np.packbits(vcc & ex, bitorder="little").tobytes(), "little"))
        return run
    return bind


def _div_fmas_for(typ: str):
    """V_DIV_FMAS: fma(S0, S1, S2); in lanes with VCC set (V_DIV_SCALE pre-scaled one operand) the
    result is rescaled by 2^+N when exponent(S2) >= the bias (true quotient huge) else 2^-N (true
    quotient tiny), N = 64 (f32) / 128 (f64): the ISA guide's pseudocode."""
    fma = _fma_for(typ)
    dt = F32 if typ == "f32" else F64
    sc, bias = (64, 127) if typ == "f32" else (128, 1023)
    up, down = dt(2.0 ** sc), dt(2.0 ** -sc)

    def bind(ins):
        d = ops(ins, 4)[0]
        reject_mods(ins)
        gs = [plain_reader(ins, 1 + i, i, typ) for i in range(3)]
        put = vector_setter(d, 1 if typ == "f32" else 2)
        get_vcc = scalar_getter(ins.operands[4], 2) if len(ins.operands) > 4 else (lambda w: w.vcc)

        def run(m, w):
            ex = w.exec_mask()
            vals = [g(w) for g in gs]
            res = fma(*vals)
            vcc = mask_to_bools(get_vcc(w))
            if np.count_nonzero(vcc):
                res = np.where(vcc, res * np.where(_exp(vals[2]) >= bias, up, down), res).astype(dt)
            put(w, res.view(np.uint32) if typ == "f32" else split64(res.view(np.uint64)), ex)
        return run
    return bind


for _t in ("f32", "f64"):
    alu(f"v_div_scale_{_t}")(_div_scale_for(_t))
    alu(f"v_div_fmas_{_t}")(_div_fmas_for(_t))


def _div_fixup(q, den, num):
    """V_DIV_FIXUP (S0 = quotient, S1 = denominator, S2 = numerator): the special cases of IEEE
    division (NaN, 0/0, inf/inf -> NaN; x/0, inf/x -> inf; x/inf, 0/x -> 0), else the quotient with
    the sign of num/den. A NaN quotient from finite non-zero operands is the overflow of the scaled
    iteration (LLVM's sequence for a quotient beyond the format's range): it becomes +-inf, or +-0 when
    |num| < |den| (reconstructed so LLVM's division sequence gives IEEE results; hardware's exact
    rule for this case is not documented in the guide)."""
    t = q.dtype.type
    sign = np.signbit(den) ^ np.signbit(num)
    inf = np.where(sign, t(-np.inf), t(np.inf))
    zero = np.where(sign, t(-0.0), t(0.0))
    out = np.where(sign, -np.abs(q), np.abs(q))
    out = np.where(np.isnan(q), np.where(np.abs(num) > np.abs(den), inf, zero), out)
    out = np.where((den == 0) | np.isinf(num), inf, out)
    out = np.where((np.isinf(den) & ~np.isinf(num)) | (num == 0), zero, out)
    out = np.where(((den == 0) & (num == 0)) | (np.isinf(den) & np.isinf(num)), t(np.nan), out)
    out = np.where(np.isnan(den), den, out)
    return np.where(np.isnan(num), num, out).astype(q.dtype)


alu("v_div_fixup_f32")(lambda ins: bind_vop(ins, _div_fixup, ("f32",) * 3, "f32"))
alu("v_div_fixup_f16")(lambda ins: bind_vop(ins, _div_fixup, ("f16",) * 3, "f16"))
alu("v_div_fixup_f64")(lambda ins: bind_vop(ins, _div_fixup, ("f64",) * 3, "f64"))


def maximum_ieee(a, b):
    """IEEE 754-2019 maximum (gfx950 v_maximum3_f32): NaN propagates, +0 > -0."""
    r = np.maximum(a, b)
    return np.where((a == 0) & (b == 0), a + b, r)


def minimum_ieee(a, b):
    r = np.minimum(a, b)
    return np.where((a == 0) & (b == 0), -((-a) + (-b)), r)


alu("v_maximum3_f32")(lambda ins: bind_vop(ins, lambda a, b, c: maximum_ieee(maximum_ieee(a, b), c),
                                           ("f32",) * 3, "f32"))
alu("v_minimum3_f32")(lambda ins: bind_vop(ins, lambda a, b, c: minimum_ieee(minimum_ieee(a, b), c),
                                           ("f32",) * 3, "f32"))
# v_fmaak_f32 vdst, src0, src1, K and v_fmamk_f32 vdst, src0, K, src1: a fused multiply-add of the
# operands in their written order (D = op1 * op2 + op3)
alu("v_fmaak_f32", "v_fmamk_f32")(lambda ins: bind_vop(ins, _fma_for("f32"), ("f32",) * 3, "f32"))


# ===================================================================================================
# VOP3P packed math (ISA guide "VOP3P"): element lo of the result reads half/dword op_sel[i] of source
# i, element hi reads op_sel_hi[i] (default 1); neg_lo/neg_hi negate per element; clamp clamps floats.
# Inline constants (documented choice): a float constant is replicated into both 16-bit halves
# (both dwords for the f32 forms); an integer constant is its 32-bit pattern.
# ===================================================================================================


def _pk_raw(op, wide: bool, typ: str):
    """``w -> uint32[2, 64]`` (two dwords) for the f32 forms, ``w -> uint32[64]`` for 16-bit forms;
    for a group (isa.emu.group) ``[2, n, 64]`` / ``[n, 64]``, constants ``[2, 1, 64]`` / ``[64]``."""
    if isinstance(op, Imm):
        if wide:
            bits = imm_for_type(op, "f32" if isinstance(op.value, float) else "b32")
            arr = np.full((2, 1, 64) if group_mode() else (2, 64), bits, np.uint32)
            return lambda w: arr
        bits = imm_for_type(op, typ)
        if isinstance(op.value, float):
            bits = (bits & 0xFFFF) * 0x10001
        arr = np.full(64, bits, np.uint32)
        return lambda w: arr
    return vector_getter(op, 2 if wide else 1)


def _pk_elems(ins, pos: int, n: int, typ: str):
    """``w -> [2, 64]`` typed elements of packed source ``n`` at operand ``pos``: row 0 feeds the low
    result, row 1 the high one (computed together as one vector operation)."""
    wide = typ in ("f32", "b32")
    raw = _pk_raw(ins.operands[pos], wide, typ)
    s_lo = sel_bit(ins, "op_sel", n)
    s_hi = 1 if ins.mod("op_sel_hi") is None else sel_bit(ins, "op_sel_hi", n)
    n_lo, n_hi = sel_bit(ins, "neg_lo", n), sel_bit(ins, "neg_hi", n)
    if (n_lo or n_hi) and typ not in ("f16", "f32", "bf16"):
        raise AluModifierError(f"{ins}: neg_lo/neg_hi on integer packed op")
    dt = {"f16": F16, "i16": np.int16, "u16": np.uint16, "f32": F32, "b32": np.uint32, "bf16": np.uint16}[typ]
    rows = None if (s_lo, s_hi) == (0, 1) else [s_lo, s_hi]
    group = group_mode()          # lanes [n, 64] (a group's members) instead of [64]
    sign = None if not (n_lo or n_hi) else np.array([-1 if n_lo else 1, -1 if n_hi else 1], F32)
    if sign is not None:
        sign = sign.reshape((2, 1, 1) if group else (2, 1)).astype(F16 if typ == "f16" else F32)

    def get(w):
        r = raw(w)
        if wide:
            el = r.view(dt)
        elif group:
            # [n, 64] (an SGPR: [n, 1]; a constant: [64], as [1, 64]) dwords -> [2, n, 64] halves
            r = np.ascontiguousarray(r.reshape(1, -1) if r.ndim == 1 else r)
            el = r.view(dt).reshape(r.shape + (2,)).transpose((r.ndim,) + tuple(range(r.ndim)))
        else:
            el = r.view(dt).reshape(64, 2).T
        if rows is not None:
            el = el[rows]
        if typ == "bf16":
            el = (el.astype(np.uint32) << np.uint32(16)).view(F32)
        if sign is not None:
            el = el * sign
        return el
    return get


def _bind_pk(fn, nsrc: int, typ: str):
    def bind(ins):
        d = ops(ins, nsrc + 1)[0]
        srcs = [_pk_elems(ins, 1 + i, i, typ) for i in range(nsrc)]
        clamp = bool(ins.mod("clamp", False))
        if clamp and typ not in ("f16", "f32"):
            raise AluModifierError(f"{ins}: clamp on integer packed op is not modelled")
        wide = typ in ("f32", "b32")
        put = vector_setter(d, 2 if wide else 1)
        dt = {"f16": F16, "i16": np.int16, "u16": np.uint16, "f32": F32, "b32": np.uint32}[typ]
        bits = np.uint32 if wide else np.uint16

        is_float = typ in denorm.FLOAT_TYPES
        op = ins.op

        def run(m, w):
            if is_float and w.fp_mode != denorm.DEFAULT_MODE:     # MODE (isa.emu.denorm)
                vals = [denorm.flush_src(w, g(w), typ, op) for g in srcs]
                res = denorm.flush_dst(w, np.asarray(fn(*vals), dt), typ, op, vals)
            else:
                res = np.asarray(fn(*[g(w) for g in srcs]), dt)
            if clamp:
                res = clamp01(res)
            if wide:
                put(w, res.view(bits), w.exec_mask())
            else:
                # [2, ...lanes] halves -> [...lanes] dwords (low half from row 0)
                h = res.view(bits)
                h = np.ascontiguousarray(h.transpose(tuple(range(1, h.ndim)) + (0,)))
                put(w, h.view(np.uint32)[..., 0], w.exec_mask())
        return run
    return bind


PK_OPS = {
    "v_pk_fma_f32": (lambda a, b, c: fma_round(a, b, c, F32), 3, "f32"),
    "v_pk_mul_f32": (lambda a, b: a * b, 2, "f32"),
    "v_pk_add_f32": (lambda a, b: a + b, 2, "f32"),
    "v_pk_fma_f16": (lambda a, b, c: fma_round(a, b, c, F16), 3, "f16"),
    "v_pk_mul_f16": (lambda a, b: a * b, 2, "f16"),
    "v_pk_add_f16": (lambda a, b: a + b, 2, "f16"),
    "v_pk_max_f16": (fmax_ieee, 2, "f16"),
    "v_pk_min_f16": (fmin_ieee, 2, "f16"),
    "v_pk_add_u16": (lambda a, b: a + b, 2, "u16"),
    "v_pk_sub_u16": (lambda a, b: a - b, 2, "u16"),
    "v_pk_add_i16": (lambda a, b: a + b, 2, "i16"),
    "v_pk_sub_i16": (lambda a, b: a - b, 2, "i16"),
    "v_pk_mul_lo_u16": (lambda a, b: a * b, 2, "u16"),
    "v_pk_mad_u16": (lambda a, b, c: a * b + c, 3, "u16"),
    "v_pk_mad_i16": (lambda a, b, c: a * b + c, 3, "i16"),
    "v_pk_max_i16": (np.maximum, 2, "i16"),
    "v_pk_min_i16": (np.minimum, 2, "i16"),
    "v_pk_max_u16": (np.maximum, 2, "u16"),
    "v_pk_min_u16": (np.minimum, 2, "u16"),
    "v_pk_lshlrev_b16": (lambda a, b: b << (a & np.uint16(15)), 2, "u16"),
    "v_pk_lshrrev_b16": (lambda a, b: b >> (a & np.uint16(15)), 2, "u16"),
    "v_pk_ashrrev_i16": (lambda a, b: b >> (a & np.int16(15)), 2, "i16"),
}
for _n, (_f, _k, _t) in PK_OPS.items():
    alu(_n)(_bind_pk(_f, _k, _t))


@alu("v_pk_mov_b32")
def _pk_mov(ins):
    """D.lo = src0 dword op_sel[0], D.hi = src1 dword op_sel[1] (LLVM: op_sel_hi is not used)."""
    d, s0, s1 = ops(ins, 3)
    g0, g1 = _pk_raw(s0, True, "b32"), _pk_raw(s1, True, "b32")
    i0, i1 = sel_bit(ins, "op_sel", 0), sel_bit(ins, "op_sel", 1)
    put = vector_setter(d, 2)
    return lambda m, w: put(w, np.stack(np.broadcast_arrays(g0(w)[i0], g1(w)[i1])), w.exec_mask())


# ----- v_fma_mix_f32 / v_fma_mixlo_f16 / v_fma_mixhi_f16 (VOP3P mixed precision): source i is f32, or
# f16 from half op_sel[i] when op_sel_hi[i] is set; neg_lo (or -x) negates, neg_hi (or |x|) takes the
# absolute value. One rounding to f32, or to f16 for mixlo/mixhi, which keep the other half of vdst. --
def _mix_src(ins, n: int):
    pos = 1 + n
    raw = vector_getter(ins.operands[pos], 1, "f16" if sel_bit(ins, "op_sel_hi", n) else "f32")
    is16, hi = sel_bit(ins, "op_sel_hi", n), sel_bit(ins, "op_sel", n)
    neg = sel_bit(ins, "neg_lo", n) or pos in (ins.mod("neg") or ())
    abs_ = sel_bit(ins, "neg_hi", n) or pos in (ins.mod("abs") or ())

    typ, op = ("f16" if is16 else "f32"), ins.op

    def get(w):
        r = raw(w)
        x = ((r >> _U32(16)) if hi else r).astype(np.uint16).view(F16) if is16 else r.view(F32)
        if w.fp_mode != denorm.DEFAULT_MODE:     # each source under its own type's field
            x = denorm.flush_src(w, x, typ, op)
        x = x.astype(F32)
        if abs_:
            x = np.abs(x)
        return -x if neg else x
    return get


def _bind_mix(dst: str):
    def bind(ins):
        d = ops(ins, 4)[0]
        srcs = [_mix_src(ins, n) for n in range(3)]
        clamp = bool(ins.mod("clamp", False))
        gd, put = vector_getter(d), vector_setter(d)
        out = F32 if dst == "f32" else F16

        typ, op = ("f32" if dst == "f32" else "f16"), ins.op

        def run(m, w):
            xs = [g(w) for g in srcs]
            r = fma_round(*xs, out)
            if w.fp_mode != denorm.DEFAULT_MODE:
                r = denorm.flush_dst(w, r, typ, op, xs)
            if clamp:
                r = clamp01(r)
            if dst == "f32":
                put(w, r.view(_U32), w.exec_mask())
                return
            h = r.view(np.uint16).astype(_U32)
            old = gd(w)
            val = (old & _U32(0xFFFF0000)) | h if dst == "lo" else (old & _U32(0xFFFF)) | (h << _U32(16))
            put(w, val, w.exec_mask())
        return run
    return bind


alu("v_fma_mix_f32")(_bind_mix("f32"))
alu("v_fma_mixlo_f16")(_bind_mix("lo"))
alu("v_fma_mixhi_f16")(_bind_mix("hi"))
