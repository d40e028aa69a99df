"""Miscellaneous VALU semantics: the gfx9 f16 mad family (v_madak/madmk/mac_f16, v_mad_legacy_*),
v_pk_fmac_f16, v_div_fixup_legacy_f16, the byte media ops (v_lerp_u8, v_msad_u8, v_qsad/mqsad),
the cube-map ops (v_cube{id,sc,tc,ma}_f32), v_trig_preop_f64, v_clrexcp, and gfx950's v_bitop3_b16
and v_pk_maximum3/minimum3_f16. Instructions of this group whose behaviour the available documents
do not pin down load, but raise UnknownInstructionError naming the reason when executed (REFUSED).

Sources, per family (also in the comments): the CDNA4 ISA guide's instruction pseudocode (VOP1/VOP2/
VOP3 chapters: mac/madak/madmk_f16, mad_legacy_*, div_fixup_legacy_f16, pk_fmac_f16, lerp/msad/qsad/
mqsad, bitop3_b16, prng_b32); LLVM ConstantFolding.cpp (cube ops) and AMDGPUInstCombineIntrinsic.cpp
(v_trig_preop_f64) for bit-exact rules. Every mnemonic is also accepted by llvm-mc-22 (tests).

Registration goes through ``operand_io.alu`` binders into the VOP registry (isa.emu.registry);
isa.emu.catalog imports this module.
"""
from __future__ import annotations

import numpy as np

from ..instr import Instr
from ..operands import Imm, Reg
from .dpp import bind_vop, dpp_of, is_sdwa, plain_reader, reject_mods, sel_bit
from .errors import UnknownInstructionError
from .operand_io import (
    AluModifierError,
    alu,
    ops,
    vector_getter,
    vector_getter64,
    vector_setter,
)
from .registry import RW_SETS
from .valu_float import _bind_pk, fma_round, maximum_ieee, minimum_ieee
from .valu_int import INT_OPS, _bitop3

F16, F32 = np.float16, np.float32
U32 = np.uint32


def _zero_high(ins: Instr, bound):
    """Wrap a bound 16-bit op (whose binder would keep the high half) so the high half of vdst becomes 0."""
    d = ins.operands[0]
    get, put = vector_getter(d), vector_setter(d)
    low = U32(0xFFFF)

    def run(m, w):
        bound(m, w)
        put(w, get(w) & low, w.exec_mask())
    return run


def _mad16(a, b, c):
    # non-fused: the product is rounded to f16, then the sum (same model as v_mad_f16 in valu_float)
    return (a * b) + c


def _plain16(ins: Instr) -> None:
    """These gfx9 16-bit forms have neither SDWA nor op_sel in LLVM's assembler (llvm-mc-22 rejects
    op_sel on them); the CDNA4 guide's OPSEL[3] rule is therefore not reachable from text."""
    if is_sdwa(ins):
        raise AluModifierError(f"{ins}: the SDWA form of {ins.op} is not modelled")
    if ins.mod("op_sel") is not None:
        raise AluModifierError(f"{ins}: {ins.op} takes no op_sel")


# ----- v_madak_f16 vdst, s0, s1, K: D = S0*S1 + K; v_madmk_f16 vdst, s0, K, s1: D = S0*K + S1;
# v_mac_f16 vdst, s0, s1: D = S0*S1 + D.lo. CDNA4 ISA guide (VOP2): "D0 = { 16'0, tmp.f16 }", the high
# half of vdst is written as 0 (bind_vop's default for ops outside PRESERVE_HI16). ----------------
@alu("v_madak_f16", "v_madmk_f16")
def _bind_madk(ins):
    _plain16(ins)
    reject_mods(ins)
    ops(ins, 4)
    return bind_vop(ins, _mad16, ("f16",) * 3, "f16")


@alu("v_mac_f16")
def _bind_mac16(ins):
    _plain16(ins)
    d = ops(ins, 3)[0]
    widened = Instr(ins.op, tuple(ins.operands[:3]) + (d,), ins.mods, ins.encoding)
    return bind_vop(widened, _mad16, ("f16",) * 3, "f16")


# ----- v_mad_legacy_{f16,u16,i16}: same arithmetic as v_mad_{f16,u16,i16}; CDNA4 ISA guide: "hi 16 bits
# are written as 0 (this is different from V_MAD_F16)" (isa.emu.dpp.PRESERVE_HI16 lists them as
# keeping the high half, so the bound op is wrapped to zero it). Integer clamp saturates. ----------
def _legacy(base: str):
    entry = INT_OPS.get(base)

    def bind(ins):
        _plain16(ins)
        if base == "v_mad_f16":
            return _zero_high(ins, bind_vop(ins, _mad16, ("f16",) * 3, "f16"))
        srcs, dst, fn = entry[:3]
        return _zero_high(ins, bind_vop(ins, fn, srcs, dst, fn_clamp=_int16_clamp(dst)))
    return bind


def _int16_clamp(dst: str):
    lo, hi = (0, 0xFFFF) if dst == "u16" else (-0x8000, 0x7FFF)
    dt = np.uint16 if dst == "u16" else np.int16
    return lambda a, b, c: np.clip(a.astype(np.int64) * b + c, lo, hi).astype(dt)


alu("v_mad_legacy_f16")(_legacy("v_mad_f16"))
alu("v_mad_legacy_u16")(_legacy("v_mad_u16"))
alu("v_mad_legacy_i16")(_legacy("v_mad_i16"))


# ----- v_div_fixup_legacy_f16 (CDNA4 ISA guide pseudocode; S0 = quotient, S1 = denominator,
# S2 = numerator): NaN S2, then NaN S1, are returned quieted; 0/0 and inf/inf give 0xfe00; x/0 and
# inf/y give +-inf; x/inf and 0/y give +-0; else +-|S0|; the sign is sign(S1) ^ sign(S2). Unlike
# valu_float._div_fixup there is no NaN-quotient rule. High half of vdst written as 0. ------------
def _fixup_legacy(q, den, num):
    h = np.uint16
    qb, db, nb = (np.asarray(x, F16).view(h) for x in (q, den, num))
    sign = (db ^ nb) & h(0x8000)
    out = (qb & h(0x7FFF)) | sign
    dabs, nabs = db & h(0x7FFF), nb & h(0x7FFF)
    d_zero, n_zero = dabs == 0, nabs == 0
    d_inf, n_inf = dabs == 0x7C00, nabs == 0x7C00
    out = np.where(d_inf | n_zero, sign, out)
    out = np.where(d_zero | n_inf, sign | h(0x7C00), out)
    out = np.where((d_zero & n_zero) | (d_inf & n_inf), h(0xFE00), out)
    out = np.where(dabs > 0x7C00, db | h(0x0200), out)
    out = np.where(nabs > 0x7C00, nb | h(0x0200), out)
    return out.astype(h).view(F16)


@alu("v_div_fixup_legacy_f16")
def _bind_fixup_legacy(ins):
    _plain16(ins)
    return bind_vop(ins, _fixup_legacy, ("f16",) * 3, "f16")


# ----- v_pk_fmac_f16 (VOP2, gfx90a+): D.lo = fma(S0.lo, S1.lo, D.lo), D.hi = fma(S0.hi, S1.hi, D.hi) --
@alu("v_pk_fmac_f16")
def _bind_pk_fmac(ins):
    d, s0, s1 = ops(ins, 3)
    if dpp_of(ins) is not None or is_sdwa(ins):
        raise AluModifierError(f"{ins}: DPP/SDWA forms of v_pk_fmac_f16 are not modelled")
    if any(isinstance(o, Imm) for o in (s0, s1)):
        # how a VOP2 packed op replicates an inline/literal constant is not documented
        raise AluModifierError(f"{ins}: constant sources of v_pk_fmac_f16 are not modelled")
    widened = Instr("v_pk_fma_f16", (d, s0, s1, d), (), ins.encoding)
    return _bind_pk(lambda a, b, c: fma_round(a, b, c, F16), 3, "f16")(widened)


# ----- byte media ops (ISA guide V_LERP_U8, V_MSAD_U8, V_QSAD_PK_U16_U8, V_MQSAD_*) ------------------
def _bytes(x):
    return np.ascontiguousarray(x, U32).view(np.uint8).reshape(64, 4).astype(np.int64)


def _lerp(a, b, c):
    # per byte: (S0.b + S1.b + S2.b[0]) >> 1 (rounded average; bit 0 of S2's byte is the round bit)
    r = (_bytes(a) + _bytes(b) + (_bytes(c) & 1)) >> 1
    return np.ascontiguousarray(r.astype(np.uint8)).view(U32)[:, 0]


def _msad(a, b):
    """Masked byte SAD: bytes whose reference (S1) byte is 0 contribute nothing."""
    x, y = _bytes(a), _bytes(b)
    return np.where(y != 0, np.abs(x - y), 0).sum(axis=1)


def _sad8(a, b):
    return np.abs(_bytes(a) - _bytes(b)).sum(axis=1)


def _int_bind(fn, nsrc):
    def bind(ins):
        reject_mods(ins, clamp=True)
        return bind_vop(ins, fn, ("u32",) * nsrc, "u32")
    return bind


alu("v_lerp_u8")(_int_bind(_lerp, 3))
alu("v_msad_u8")(_int_bind(lambda a, b, c: ((_msad(a, b) + c) & 0xFFFFFFFF).astype(U32), 3))


def _bind_qsad(kind: str):
    """v_qsad_pk_u16_u8 / v_mqsad_pk_u16_u8 vdst[2], S0[2], S1, S2[2]: four 16-bit SADs of the dwords
    S0[8k+31:8k] (k = 0..3) against S1, each accumulated onto S2's 16-bit field k (truncated to 16 bits).
    v_mqsad_u32_u8 vdst[4], S0[2], S1, S2[4]: the masked SADs onto 32-bit fields."""
    def bind(ins):
        d, s0, s1, s2 = ops(ins, 4)
        reject_mods(ins, clamp=True)
        if is_sdwa(ins):
            raise AluModifierError(f"{ins}: SDWA is not valid on {ins.op}")
        g0 = vector_getter64(s0)
        g1 = vector_getter(s1, 1, "b32")
        wide = kind == "mqsad_u32"
        g2 = vector_getter(s2, 4) if wide and isinstance(s2, Reg) else None
        if wide and g2 is None:
            raise AluModifierError(f"{ins}: a non-register 128-bit S2 of {ins.op} is not modelled")
        g2_64 = None if wide else vector_getter64(s2)
        put = vector_setter(d, 4 if wide else 2)
        sad = _sad8 if kind == "qsad" else _msad

        def run(m, w):
            src = g0(w)
            ref = g1(w)
            if wide:
                acc = g2(w).astype(np.int64)
                out = np.stack([((sad(((src >> np.uint64(8 * k)) & np.uint64(0xFFFFFFFF)).astype(U32), ref)
                                  + acc[k]) & 0xFFFFFFFF).astype(U32) for k in range(4)])
                put(w, out, w.exec_mask())
                return
            acc = g2_64(w)
            res = np.zeros(64, np.uint64)
            for k in range(4):
                part = sad(((src >> np.uint64(8 * k)) & np.uint64(0xFFFFFFFF)).astype(U32), ref)
                field = ((acc >> np.uint64(16 * k)) & np.uint64(0xFFFF)).astype(np.int64)
                res |= (((part + field) & 0xFFFF).astype(np.uint64)) << np.uint64(16 * k)
            put(w, np.stack([(res & np.uint64(0xFFFFFFFF)).astype(U32), (res >> np.uint64(32)).astype(U32)]),
                w.exec_mask())
        return run
    return bind


alu("v_qsad_pk_u16_u8")(_bind_qsad("qsad"))
alu("v_mqsad_pk_u16_u8")(_bind_qsad("mqsad"))
alu("v_mqsad_u32_u8")(_bind_qsad("mqsad_u32"))


# ----- cube map (ISA guide V_CUBEID/SC/TC/MA_F32; S0 = x, S1 = y, S2 = z). The major axis is z when
# |z| >= |x| and |z| >= |y|, else y when |y| >= |x|, else x. -------------------------------------
def _major(x, y, z):
    ax, ay, az = np.abs(x), np.abs(y), np.abs(z)
    zm = (az >= ax) & (az >= ay)
    ym = ~zm & (ay >= ax)
    return zm, ym


def _cubeid(x, y, z):
    zm, ym = _major(x, y, z)
    return np.where(zm, np.where(z < 0, F32(5), F32(4)),
                    np.where(ym, np.where(y < 0, F32(3), F32(2)), np.where(x < 0, F32(1), F32(0))))


def _cubesc(x, y, z):
    zm, ym = _major(x, y, z)
    return np.where(zm, np.where(z < 0, -x, x), np.where(ym, x, np.where(x < 0, z, -z)))


def _cubetc(x, y, z):
    zm, ym = _major(x, y, z)
    return np.where(zm, -y, np.where(ym, np.where(y < 0, -z, z), -y))


def _cubema(x, y, z):
    zm, ym = _major(x, y, z)
    return F32(2) * np.where(zm, z, np.where(ym, y, x))


def _cube_binder(fn):
    return lambda ins: bind_vop(ins, fn, ("f32",) * 3, "f32")


for _n, _f in (("v_cubeid_f32", _cubeid), ("v_cubesc_f32", _cubesc), ("v_cubetc_f32", _cubetc),
               ("v_cubema_f32", _cubema)):
    alu(_n)(_cube_binder(_f))


# ----- v_trig_preop_f64 vdst[2], S0 (f64), S1 (segment): 53 bits of 2/pi starting at bit
# shift = 53 * S1[4:0] (+ exponent(S0) - 1077 when that exponent is above 1077), scaled by
# 2^(-53 - shift) (2^128 more when exponent(S0) >= 1968); a segment past the 1184-bit table gives 0,
# a NaN S0 gives it quieted. Source: LLVM AMDGPUInstCombineIntrinsic.cpp, amdgcn_trig_preop folding
# ("hardware behavior"); the 2/pi bits are computed here, not copied. --------------------------------
_TABLE_BITS = 37 * 32


def _two_over_pi_bits(nbits: int) -> int:
    """floor(2/pi * 2^nbits) by Machin's formula in integer arithmetic (64 guard bits)."""
    one = 1 << (nbits + 64)

    def atan_inv(x: int) -> int:
        total, term, k, x2 = 0, one // x, 0, x * x
        while term:
            total += term // (2 * k + 1) if k % 2 == 0 else -(term // (2 * k + 1))
            term //= x2
            k += 1
        return total
    pi = 16 * atan_inv(5) - 4 * atan_inv(239)
    return ((2 * one * one) // pi) >> 64


_TWO_OVER_PI = _two_over_pi_bits(_TABLE_BITS)


def _trig_preop(x: np.ndarray, seg: np.ndarray) -> np.ndarray:
    import math
    bits = x.view(np.uint64)
    out = np.zeros(64, np.float64)
    for i in range(64):
        b = int(bits[i])
        exp = (b >> 52) & 0x7FF
        if exp == 0x7FF and b & ((1 << 52) - 1):
            out.view(np.uint64)[i] = b | (1 << 51)          # NaN: quieted
            continue
        shift = 53 * (int(seg[i]) & 31) + max(exp - 1077, 0)
        if (shift >> 5) + 2 >= 37:
            continue                                          # past the table: +0
        mant = (_TWO_OVER_PI >> (_TABLE_BITS - shift - 53)) & ((1 << 53) - 1)
        out[i] = math.ldexp(float(mant), -53 - shift + (128 if exp >= 1968 else 0))
    return out


@alu("v_trig_preop_f64")
def _bind_trig_preop(ins):
    d = ops(ins, 3)[0]
    reject_mods(ins, clamp=True)
    if is_sdwa(ins):
        raise AluModifierError(f"{ins}: SDWA is not valid on {ins.op}")
    g0, g1 = plain_reader(ins, 1, 0, "f64"), plain_reader(ins, 2, 1, "u32")
    put = vector_setter(d, 2)

    def run(m, w):
        res = _trig_preop(g0(w), g1(w)).view(np.uint64)
        put(w, np.stack([(res & np.uint64(0xFFFFFFFF)).astype(U32), (res >> np.uint64(32)).astype(U32)]),
            w.exec_mask())
    return run


# ----- v_clrexcp: clears the wave's FP exception flags, which the emulator does not model: no effect
# on any modelled state (ISA guide VOP1 V_CLREXCP). ---------------------------------------------------
@alu("v_clrexcp")
def _bind_clrexcp(ins):
    if ins.operands:
        raise AluModifierError(f"{ins}: v_clrexcp takes no operands")
    return lambda m, w: None


# ----- gfx950 (CDNA4 ISA guide): v_bitop3_b16 "D.b16 = tmp.b16" with v_bitop3_b32's truth table:
# written like the guide's other plain 16-bit results (v_add_u16 ...): high half 0; op_sel picks
# source halves and op_sel[3] writes the high half keeping the low one (gfx9 VOP3 op_sel rule, as
# bind_vop does for every 16-bit op); v_pk_maximum3/minimum3_f16 = IEEE 754-2019 maximum/minimum
# (NaN propagates, -0 < +0) per half. v_prng_b32: D = (S0 << 1) ^ (S0[31] ? 197 : 0) (LFSR step). -
@alu("v_bitop3_b16")
def _bind_bitop3_16(ins):
    table = ins.mod("bitop3", 0)
    if not isinstance(table, int) or not 0 <= table <= 0xFF:
        raise AluModifierError(f"{ins}: bitop3:{table!r} is not an 8-bit truth table")
    f32 = _bitop3(table)

    def fn(a, b, c):
        return f32(a.astype(U32), b.astype(U32), c.astype(U32)).astype(np.uint16)
    return bind_vop(ins, fn, ("b16",) * 3, "b16")


alu("v_prng_b32")(lambda ins: bind_vop(
    ins, lambda a: (a << U32(1)) ^ np.where(a >> U32(31) != 0, U32(197), U32(0)), ("b32",), "b32"))
alu("v_pk_maximum3_f16")(_bind_pk(lambda a, b, c: maximum_ieee(maximum_ieee(a, b), c), 3, "f16"))
alu("v_pk_minimum3_f16")(_bind_pk(lambda a, b, c: minimum_ieee(minimum_ieee(a, b), c), 3, "f16"))


# ----- register roles: v_mac_f16 / v_pk_fmac_f16 read vdst (accumulator), and a 16-bit result written
# to the high half (op_sel[3]) keeps the low half; the spec table lacks most of these ops, and its
# default takes operand 0 as written only. ----------------------------------------------------------
def _rw(ins):
    from .regkeys import reg_keys
    dst = list(reg_keys(ins.operands[0])) if ins.operands else []
    srcs = [k for op in ins.operands[1:] for k in reg_keys(op)]
    if ins.op in ("v_mac_f16", "v_pk_fmac_f16") or sel_bit(ins, "op_sel", 3):
        srcs = dst + srcs
    return srcs, dst


for _n in ("v_mac_f16", "v_pk_fmac_f16", "v_bitop3_b16"):
    RW_SETS[_n] = _rw


# ----- refused: the documents available do not pin these down ---------------------------------------
REFUSED = {
    "v_exp_legacy_f32": "legacy (SI) precision and special cases of exp2 are not documented",
    "v_log_legacy_f32": "legacy (SI) precision and special cases of log2 are not documented",
    "v_cvt_pk_u8_f32": "the rounding of f32_to_u8 is not documented",
    "v_cvt_pkaccum_u8_f32": "the rounding of f32_to_u8 is not documented",
    "v_cvt_norm_i16_f16": "the rounding of f16_to_snorm is not documented",
    "v_cvt_norm_u16_f16": "the rounding of f16_to_unorm is not documented",
    "v_cvt_pknorm_i16_f16": "the rounding of f16_to_snorm is not documented",
    "v_cvt_pknorm_u16_f16": "the rounding of f16_to_unorm is not documented",
    "v_ashr_pk_i8_i32": "the guide writes D0[15:0] only; the high half of vdst is not documented",
    "v_ashr_pk_u8_i32": "the guide writes D0[15:0] only; the high half of vdst is not documented",
    "v_cvt_sr_bf16_f32": "how the seed bits enter the stochastic rounding is not documented",
    "v_cvt_sr_f16_f32": "how the seed bits enter the stochastic rounding is not documented",
}


def _refuse(name: str, why: str):
    """A binder that loads but raises UnknownInstructionError when the instruction executes."""
    def bind(ins):
        what = f"{ins}: {name} is refused by the emulator: {why}"

        def run(m, w):
            err = getattr(m, "error", None)
            raise err(UnknownInstructionError, what, w) if err else UnknownInstructionError(what)
        return run
    return bind


for _n, _why in REFUSED.items():
    alu(_n)(_refuse(_n, _why))
