"""gfx950 scaled conversions v_cvt_scalef32_*: f32/f16/bf16 <-> OCP fp8 (E4M3), bf8 (E5M2), fp4 (E2M1),
fp6 (E2M3) and bf6 (E3M2) with a per-instruction f32 scale operand; unpinned forms are refused.

Sources (cited per family below):
  [ISA]  AMD "CDNA4 ISA" guide, VOP3 opcode descriptions: V_CVT_SCALEF32_PK_FP8_F32 "Scale two
         single-precision float inputs using the exponent provided by the third single-precision float
         input, then convert ... with round toward nearest even semantics"; the up-converts "convert ...
         then scale the packed values using the exponent provided by the second ... input".
  [HIP]  ROCm HIP ``amd_hip_ocp.h`` ``__amd_scale_to_float``: "On gfx950 the "scale" operand is encoded
         in the exponent bits of an IEEE-754 float - always in the form: 1.0 * 2**scale"; exponent field
         0xFF is the E8M0 NaN scale. Its host model of the same builtins divides by 2**scale before a
         narrowing conversion and multiplies after a widening one.
  [GEM5] gem5 ``arch/amdgpu/vega/insts/vop3_cvt.hh`` (AMD's MI355X model): ``scaleDiv`` before
         down-conversion, ``scaleMul`` after up-conversion, scale = exponent field of the f32 operand;
         packed 8-bit sources take the word OPSEL[0], 4-bit sources the byte OPSEL[1:0]; 8-bit results
         go to the word OPSEL[3], 4-bit results to the byte OPSEL[3:2], the rest of vdst kept; results
         are packed first element in the low bits.
  [LLVM] llvm-mc-22 encodings for gfx950 (the op_sel list as printed) and the clang builtins
         ``__builtin_amdgcn_cvt_scalef32_f16_fp8(half2 old, int src, float scale, int byte_sel,
         bool word_sel)`` (tied old value: the other half of vdst is kept), ``..._f32_fp8(src, scale,
         byte_sel)``, ``..._pk_fp8_f32(old, a, b, scale, word_sel)``, ``..._pk_fp4_f32(old, a, b,
         scale, byte_sel)``.
  [OCP]  OCP Microscaling Formats (MX) v1.0: E2M1 has no Inf/NaN encodings (max normal 6.0); the
         E8M0 scale X means 2**(X-127), the element value is scale * element.

Semantics implemented (exactly, RNE, per [ISA]): narrowing  q = RNE_fmt(x / 2**k); widening
y = decode(q) * 2**k, with k = ((scale_bits >> 23) & 0xFF) - 127. Zero keeps its sign. fp4, fp6 and
bf6 overflow saturates to the largest magnitude ([OCP], [HIP] host model). Where the sources disagree
or are silent, the lane is refused at run time with ``ScaleCvtUnmodelledError`` naming lane and
value: NaN scale (exponent 0xFF), NaN/Inf inputs, fp8/bf8 overflow (saturate vs NaN/Inf not
documented), subnormal sources,
widening results outside the target's normal range ([HIP] rounds, [GEM5] clamps the exponent), and
narrowing values below the source format's normal range unless both models give +-0.
Not modelled at all (UnknownInstructionError naming why): the stochastic-rounding forms (which seed
bits are added is documented for the unscaled v_cvt_sr_{fp8,bf8}_f32 only: the CDNA3 guide's
S1[31:12] / S1[31:11], isa.emu.valu_cvt; [HIP]'s host model also uses the top bits, but nothing
states it for the scaled CDNA4 forms), the 2xpk16 forms (how the 32 elements are
spread over src0/src1 is not documented; gem5 interleaves their dwords), and v_mfma_ld_scale_b32.
abs/neg source modifiers are rejected ([GEM5] panics on them in the pk forms).
"""
from __future__ import annotations

import ml_dtypes
import numpy as np

from .errors import EmulatorError, UnknownInstructionError
from .operand_io import AluModifierError, ops, vector_getter, vector_setter
from .registry import RW_SETS, binder, handler
from .regkeys import reg_keys

U32 = np.uint32
F64 = np.float64
M32 = 0xFFFFFFFF


class ScaleCvtUnmodelledError(EmulatorError):
    """A lane of a v_cvt_scalef32_* whose result the documents do not pin down (names lane, value)."""


# (exponent bits, mantissa bits, bias, largest finite value, code of +NaN or None, has inf)
NARROW = {
    "fp8": (4, 3, 7, 448.0),
    "bf8": (5, 2, 15, 57344.0),
    "fp4": (2, 1, 1, 6.0),
    "fp6": (2, 3, 1, 7.5),       # OCP E2M3
    "bf6": (3, 2, 3, 28.0),      # OCP E3M2
}
# smallest normal magnitude and largest finite value of the wide formats
WIDE = {"f32": (2.0 ** -126, float(np.finfo(np.float32).max)),
        "f16": (2.0 ** -14, 65504.0),
        "bf16": (2.0 ** -126, float(ml_dtypes.finfo(ml_dtypes.bfloat16).max))}
WIDTH = {"fp8": 8, "bf8": 8, "fp4": 4, "fp6": 6, "bf6": 6}


def scale_exponent(bits: np.ndarray) -> np.ndarray:
    """k of the scale operand 2**k: its f32 exponent field minus 127 ([HIP] __amd_scale_to_float)."""
    return ((bits >> U32(23)) & U32(0xFF)).astype(np.int64) - 127


def decode_narrow(codes: np.ndarray, fmt: str) -> tuple[np.ndarray, np.ndarray]:
    """(f64 values, non-finite mask) of the ``fmt`` codes (sign bit at bit ebits + mbits)."""
    eb, mb, bias, _ = NARROW[fmt]
    c = codes.astype(np.int64)
    sign = (c >> (eb + mb)) & 1
    e = (c >> mb) & ((1 << eb) - 1)
    m = c & ((1 << mb) - 1)
    mag = np.where(e == 0, np.ldexp(m.astype(F64), 1 - bias - mb),
                   np.ldexp(((1 << mb) + m).astype(F64), (e - bias - mb).astype(np.int32)))
    if fmt == "fp8":
        bad = (e == 15) & (m == 7)                 # OCP E4M3: S.1111.111 is NaN, no Inf
    elif fmt == "bf8":
        bad = e == 31                              # OCP E5M2: Inf and NaN
    else:
        bad = np.zeros(c.shape, bool)              # OCP E2M1 / E2M3 / E3M2: every code is finite
    return np.where(sign == 1, -mag, mag), bad


def quantize(y: np.ndarray, fmt: str) -> tuple[np.ndarray, np.ndarray]:
    """RNE of finite f64 ``y`` into ``fmt`` codes; returns (codes uint32, overflow mask).

    fp4/fp6/bf6 overflow saturates to the largest magnitude ([OCP]: no Inf/NaN codes; [HIP] host
    model); for fp8/bf8 the mask reports it."""
    eb, mb, bias, vmax = NARROW[fmt]
    a = np.abs(y)
    _, e2 = np.frexp(a)
    emin = 1 - bias
    exp = np.maximum(e2.astype(np.int64) - 1, emin)
    n = np.rint(np.ldexp(a, (mb - exp).astype(np.int32)))           # exact scaling, then RNE
    carry = n >= (1 << (mb + 1))
    n = np.where(carry, n / 2, n)
    exp = np.where(carry, exp + 1, exp)
    val = np.ldexp(n, (exp - mb).astype(np.int32))
    over = val > vmax
    n_i = n.astype(np.int64)
    code = np.where(n_i >= (1 << mb), ((exp + bias) << mb) | (n_i - (1 << mb)), n_i)
    code = np.where(a == 0, 0, code)
    if fmt not in ("fp8", "bf8"):
        code = np.where(over, (1 << (eb + mb)) - 1, code)
        over = np.zeros(over.shape, bool)
    code = code | (np.signbit(y).astype(np.int64) << (eb + mb))
    return code.astype(U32), over


def _wide_values(raw: np.ndarray, typ: str, hi: bool = False) -> np.ndarray:
    """f64 values of f32 lanes, or of the low/high f16 / bf16 half of each lane."""
    if typ == "f32":
        return raw.view(np.float32).astype(F64)
    half = ((raw >> U32(16)) if hi else raw) & U32(0xFFFF)
    if typ == "f16":
        return half.astype(np.uint16).view(np.float16).astype(F64)
    return (half << U32(16)).view(np.float32).astype(F64)


def _encode_wide(v: np.ndarray, typ: str) -> np.ndarray:
    """Raw bits (uint32, 16-bit types in the low half) of values exactly representable in ``typ``."""
    if typ == "f32":
        return v.astype(np.float32).view(U32)
    if typ == "f16":
        return v.astype(np.float16).view(np.uint16).astype(U32)
    return v.astype(np.float32).astype(ml_dtypes.bfloat16).view(np.uint16).astype(U32)


def _refuse(m, w, ins, lanes: np.ndarray, why: str, vals) -> None:
    lane = int(np.flatnonzero(lanes)[0])
    raise m.error(ScaleCvtUnmodelledError,
                  f"{ins.op}: lane {lane} {why} (value {vals[lane]!r}); the CDNA4 ISA guide and the "
                  f"other sources do not pin this result down, so the emulator refuses it", w)


def _check_scale(m, w, ins, k: np.ndarray, act: np.ndarray) -> None:
    bad = act & (k == 128)
    if bad.any():
        _refuse(m, w, ins, bad, "has a NaN scale (exponent field 0xFF)", k)


def narrow(m, w, ins, x: np.ndarray, k: np.ndarray, src: str, fmt: str, act: np.ndarray) -> np.ndarray:
    """Codes of RNE(x / 2**k) in ``fmt``, refusing the lanes the documents leave open."""
    _check_scale(m, w, ins, k, act)
    fin = np.isfinite(x)
    if (act & ~fin).any():
        _refuse(m, w, ins, act & ~fin, "has a NaN/Inf source", x)
    tiny_src = WIDE[src][0]
    sub = (x != 0) & (np.abs(x) < tiny_src)
    if (act & sub).any():
        _refuse(m, w, ins, act & sub, f"has a subnormal {src} source", x)
    xs = np.where(fin, x, 0.0)
    y = np.ldexp(xs, (-np.clip(k, -200, 200)).astype(np.int32))
    _eb, mb, bias, _ = NARROW[fmt]
    half_min_sub = 2.0 ** (1 - bias - mb - 1)
    low = (y != 0) & (np.abs(y) < tiny_src)
    # both models agree on +-0 only when even the clamped value 2 * tiny_src rounds to zero
    if (act & low).any():
        if not 2 * tiny_src < half_min_sub:
            _refuse(m, w, ins, act & low, f"scales below the {src} normal range", y)
        y = np.where(low, np.copysign(0.0, y), y)
    code, over = quantize(y, fmt)
    if (act & over).any():
        _refuse(m, w, ins, act & over, f"overflows {fmt} (saturation vs NaN/Inf undocumented)", y)
    return code


def widen(m, w, ins, codes: np.ndarray, k: np.ndarray, fmt: str, dst: str, act: np.ndarray) -> np.ndarray:
    """Raw ``dst`` bits of decode(code) * 2**k, refusing the lanes the documents leave open."""
    _check_scale(m, w, ins, k, act)
    v, bad = decode_narrow(codes, fmt)
    if (act & bad).any():
        _refuse(m, w, ins, act & bad, f"holds a {fmt} NaN/Inf code", codes)
    v = np.where(bad, 0.0, v)
    y = np.ldexp(v, np.clip(k, -200, 200).astype(np.int32))
    tiny, big = WIDE[dst]
    nz = v != 0
    out = nz & ((np.abs(y) < tiny) | (np.abs(y) > big) | (np.abs(v) < tiny))
    if (act & out).any():
        _refuse(m, w, ins, act & out, f"leaves the {dst} normal range (rounding vs clamping undocumented)", y)
    y = np.where(out, 0.0, y)
    return _encode_wide(y, dst)


# ----- operand forms --------------------------------------------------------------------------------
def opsel(ins, direct: bool) -> int:
    """Encoded OPSEL bits from the printed op_sel list ([LLVM] llvm-mc-22 gfx950): instructions with a
    src2 slot print bits [0..3] directly; the two-source ones print [src0, src1, dst] (dst = bit 3)."""
    val = ins.mod("op_sel")
    if val is None:
        return 0
    if not isinstance(val, tuple) or any(b not in (0, 1) for b in val):
        raise AluModifierError(f"{ins}: op_sel:{val!r} must be a list of 0/1")
    t = tuple(val) + (0,) * (4 - len(val))
    if direct:
        return t[0] | t[1] << 1 | t[2] << 2 | t[3] << 3
    if len(val) > 3 and t[3]:
        raise AluModifierError(f"{ins}: op_sel has {len(val)} entries, {ins.op} takes [src0, src1, dst]")
    return t[0] | t[1] << 1 | t[2] << 3


def _no_mods(ins, allowed_bits: int, bits: int) -> None:
    """Reject every modifier but op_sel (abs/neg: [GEM5] panics; clamp/omod: not modelled)."""
    extra = [name for name, _ in ins.mods if name != "op_sel"]
    if extra:
        raise AluModifierError(f"{ins}: modifier(s) {extra} are not modelled for {ins.op}")
    if bits & ~allowed_bits:
        raise AluModifierError(f"{ins}: op_sel bits {bits:#x} outside {allowed_bits:#x} have no documented "
                               f"meaning for {ins.op}")


def _vreg(ins, pos: int, count: int):
    op = ins.operands[pos]
    from ..operands import Reg
    if not (isinstance(op, Reg) and op.file == "v" and op.count >= count):
        raise AluModifierError(f"{ins}: operand {pos} ({op}) must be a VGPR range of {count} dword(s)")
    return op


# ----- narrowing: v_cvt_scalef32_pk_{fp8,bf8,fp4}_{f32,f16,bf16} ---------------------------------------
def _bind_down(fmt: str, src: str):
    def bind(ins):
        f32src = src == "f32"
        n = 4 if f32src else 3
        d = ops(ins, n)[0]
        _vreg(ins, 0, 1)
        bits = opsel(ins, direct=f32src or fmt == "fp4")
        allowed = 0b1000 if WIDTH[fmt] == 8 else 0b1100
        _no_mods(ins, allowed, bits)
        if WIDTH[fmt] == 8:
            sh, mask = 16 * ((bits >> 3) & 1), 0xFFFF
        else:
            sh, mask = 8 * ((bits >> 2) & 3), 0xFF
        ga = vector_getter(ins.operands[1], 1, src if src != "bf16" else "b32")
        gb = vector_getter(ins.operands[2], 1, "f32") if f32src else None
        gs = vector_getter(ins.operands[n - 1], 1, "f32")
        gd, put = vector_getter(d), vector_setter(d)
        keep = U32(~(mask << sh) & 0xFFFFFFFF)
        width = WIDTH[fmt]

        def run(m, w):
            act = w.exec_mask()
            k = scale_exponent(gs(w))
            if f32src:
                x0, x1 = _wide_values(ga(w), "f32"), _wide_values(gb(w), "f32")
            else:
                raw = ga(w)
                x0, x1 = _wide_values(raw, src), _wide_values(raw, src, hi=True)
            c0 = narrow(m, w, ins, x0, k, src, fmt, act)
            c1 = narrow(m, w, ins, x1, k, src, fmt, act)
            packed = (c0 | (c1 << U32(width))) & U32(mask)
            put(w, (gd(w) & keep) | (packed << U32(sh)), act)
        return run
    return bind


# ----- widening: v_cvt_scalef32_pk_{f32,f16,bf16}_{fp8,bf8,fp4} and v_cvt_scalef32_{f32,f16}_{fp8,bf8} --
def _bind_up(fmt: str, dst: str, packed: bool):
    def bind(ins):
        d = ops(ins, 3)[0]
        bits = opsel(ins, direct=False)
        if packed:
            allowed = 0b0001 if WIDTH[fmt] == 8 else 0b0011
        else:
            allowed = 0b0011 | (0b1000 if dst == "f16" else 0)
        _no_mods(ins, allowed, bits)
        nd = 2 if (packed and dst == "f32") else 1
        _vreg(ins, 0, nd)
        gsrc = vector_getter(ins.operands[1], 1, "b32")
        gs = vector_getter(ins.operands[2], 1, "f32")
        put = vector_setter(d, nd)
        gd = vector_getter(d)
        width = WIDTH[fmt]
        if packed:
            shift = 16 * (bits & 1) if width == 8 else 8 * (bits & 3)
        else:
            shift = 8 * (bits & 3)
        word_hi = bool(bits & 0b1000)

        def run(m, w):
            act = w.exec_mask()
            k = scale_exponent(gs(w))
            v = gsrc(w) >> U32(shift)
            lo = widen(m, w, ins, v & U32((1 << width) - 1), k, fmt, dst, act)
            if not packed:
                if dst == "f32":
                    put(w, lo, act)
                else:   # [LLVM] builtin takes the old value: the other half of vdst is kept
                    old = gd(w)
                    if word_hi:
                        res = (old & U32(0x0000FFFF)) | (lo << U32(16))
                    else:
                        res = (old & U32(0xFFFF0000)) | lo
                    put(w, res, act)
                return
            hi = widen(m, w, ins, (v >> U32(width)) & U32((1 << width) - 1), k, fmt, dst, act)
            if dst == "f32":
                put(w, np.stack([lo, hi]), act)
            else:
                put(w, lo | (hi << U32(16)), act)
        return run
    return bind


# ----- v_cvt_scalef32_pk32_{fp6,bf6}_{f16,bf16} and v_cvt_scalef32_pk32_{f32,f16,bf16}_{fp6,bf6} ------------
# 32 six-bit values packed back to back over 6 VGPRs: element i at bits [6i, 6i+6) of the 192-bit
# concatenation v[n] (bits 0..31), v[n+1], ... ([GEM5] PackedReg<192, 6> of Inst_VOP3__V_CVT_SCALE_PK32;
# [HIP] host model: a packed struct of 32 six-bit bit-fields). 16-bit vectors: element 2r in the low
# half of register r, 2r+1 in the high half. Narrowing divides by the scale ([ISA] "Scale ... then
# convert"; [HIP] host model; gem5's PK32 applies scaleDiv to the output before overwriting it).
def _unpack6(regs: np.ndarray) -> np.ndarray:
    """uint32[6, 64] -> uint32[32, 64] six-bit codes."""
    r64 = regs.astype(np.uint64)
    out = np.empty((32, 64), U32)
    for i in range(32):
        r, off = divmod(6 * i, 32)
        v = r64[r] >> np.uint64(off)
        if off > 26:
            v = v | (r64[r + 1] << np.uint64(32 - off))
        out[i] = (v & np.uint64(0x3F)).astype(U32)
    return out


def _pack6(codes: np.ndarray) -> np.ndarray:
    """uint32[32, 64] six-bit codes -> uint32[6, 64]."""
    c = codes.astype(np.uint64) & np.uint64(0x3F)
    out = np.zeros((6, 64), U32)
    for i in range(32):
        bit = 6 * i
        r, off = divmod(bit, 32)
        out[r] |= ((c[i] << np.uint64(off)) & np.uint64(M32)).astype(U32)
        if off > 26:
            out[r + 1] |= (c[i] >> np.uint64(32 - off)).astype(U32)
    return out


def _bind_pk32_down(fmt: str, src: str):
    def bind(ins):
        d = ops(ins, 3)[0]
        _no_mods(ins, 0, opsel(ins, direct=False))
        _vreg(ins, 0, 6)
        _vreg(ins, 1, 16)
        gsrc = vector_getter(ins.operands[1], 16)
        gs = vector_getter(ins.operands[2], 1, "f32")
        put = vector_setter(d, 6)

        def run(m, w):
            act = w.exec_mask()
            k = scale_exponent(gs(w))
            raw = gsrc(w)
            codes = np.empty((32, 64), U32)
            for r in range(16):
                codes[2 * r] = narrow(m, w, ins, _wide_values(raw[r], src), k, src, fmt, act)
                codes[2 * r + 1] = narrow(m, w, ins, _wide_values(raw[r], src, hi=True), k, src, fmt, act)
            put(w, _pack6(codes), act)
        return run
    return bind


def _bind_pk32_up(fmt: str, dst: str):
    def bind(ins):
        d = ops(ins, 3)[0]
        _no_mods(ins, 0, opsel(ins, direct=False))
        nd = 32 if dst == "f32" else 16
        _vreg(ins, 0, nd)
        _vreg(ins, 1, 6)
        gsrc = vector_getter(ins.operands[1], 6)
        gs = vector_getter(ins.operands[2], 1, "f32")
        put = vector_setter(d, nd)

        def run(m, w):
            act = w.exec_mask()
            k = scale_exponent(gs(w))
            codes = _unpack6(np.asarray(gsrc(w)))
            vals = np.stack([widen(m, w, ins, codes[i], k, fmt, dst, act) for i in range(32)])
            if dst != "f32":
                vals = vals[0::2] | (vals[1::2] << U32(16))
            put(w, vals, act)
        return run
    return bind


def _rw(ins):
    """Reads: every register operand, vdst too (partial writes keep the rest); writes: vdst."""
    return [k for op in ins.operands for k in reg_keys(op)], list(reg_keys(ins.operands[0]))


IMPLEMENTED: list[str] = []


def _register(name: str, b) -> None:
    binder(name)(b)
    RW_SETS[name] = _rw
    IMPLEMENTED.append(name)


for _f in ("fp8", "bf8", "fp4"):
    for _s in ("f32", "f16", "bf16"):
        _register(f"v_cvt_scalef32_pk_{_f}_{_s}", _bind_down(_f, _s))
        _register(f"v_cvt_scalef32_pk_{_s}_{_f}", _bind_up(_f, _s, True))
for _f in ("fp8", "bf8"):
    for _d in ("f32", "f16"):
        _register(f"v_cvt_scalef32_{_d}_{_f}", _bind_up(_f, _d, False))


for _f in ("fp6", "bf6"):
    for _s in ("f16", "bf16"):
        _register(f"v_cvt_scalef32_pk32_{_f}_{_s}", _bind_pk32_down(_f, _s))
    for _d in ("f32", "f16", "bf16"):
        _register(f"v_cvt_scalef32_pk32_{_d}_{_f}", _bind_pk32_up(_f, _d))


# ----- refused forms ---------------------------------------------------------------------------------
REFUSED = {
    **{f"v_cvt_scalef32_sr_{f}_{s}": "stochastic rounding: which seed bits are added is not documented"
       for f in ("fp8", "bf8") for s in ("f32", "f16", "bf16")},
    **{f"v_cvt_scalef32_sr_pk_fp4_{s}": "stochastic rounding: which seed bits are added is not documented"
       for s in ("f32", "f16", "bf16")},
    **{f"v_cvt_scalef32_sr_pk32_{f}_{s}": "stochastic rounding into fp6/bf6 packs is not documented"
       for f in ("fp6", "bf6") for s in ("f32", "f16", "bf16")},
    **{f"v_cvt_scalef32_2xpk16_{f}_f32": "element order over src0/src1 is not pinned down (gem5 "
       "interleaves their dwords)" for f in ("fp6", "bf6")},
    "v_mfma_ld_scale_b32": "the scale hand-off to the next f8f6f4 MFMA is not modelled",
}


@handler(*REFUSED)
def _refused(m, w, ins):
    raise m.error(UnknownInstructionError, f"{ins.op} is not emulated: {REFUSED[ins.op]}", w)
