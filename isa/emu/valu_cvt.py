"""Conversion VALU semantics: int <-> float, f32 <-> f16/f64/bf16, packing, and the fp8/bf8 converts.

Rules (AMD CDNA3 ISA guide, V_CVT_*): float -> int truncates toward zero (flr/rpi round down / half
up), saturates to the integer range, NaN -> 0. Narrowing float converts round to nearest even
(v_cvt_pkrtz_f16_f32 rounds toward zero). bf16 and fp8/bf8 use ml_dtypes: on gfx942 fp8 is
e4m3fnuz and bf8 e5m2fnuz, on gfx950 OCP e4m3fn and e5m2 (cdna-facts section 2); the fp8 flavour
is looked up from ``m.arch`` at execution time.

f32 -> fp8/bf8 (v_cvt_pk_fp8_f32, v_cvt_pk_bf8_f32, v_cvt_sr_fp8_f32, v_cvt_sr_bf8_f32), sources:
  [ISA]   AMD CDNA3 / CDNA4 ISA guides, V_CVT_PK_FP8_F32: "Convert two single-precision float
          inputs to a packed FP8 value with round to nearest even semantics"; the SR forms add
          the top bits of src1 before truncating (stochastic rounding; see _bind_sr8).
  [MLIR]  llvm/llvm-project#74153 (ArithToAMDGPU saturate-fp8-truncf, gfx940): "the underlying
          hardware instruction ... implements overflow-to-NaN semantics"; saturation is clamping
          code emitted before the convert, Inf and NaN passed through.
  [RCCL]  ROCm/rocm-systems#9556: on gfx942 v_cvt_pk_fp8_f32 (and gfx950's packed converts)
          "round; they do not saturate": e4m3 448 + 18 -> 0x7f (NaN), e5m2 57344 + 4096 -> +Inf.
  [CK]    composable_kernel / MIGraphX fp8 casts (gfx942): ``fmed3f(x, 240, -240)`` unless x is
          Inf/NaN ("propagate NAN/INF, no clipping"), then ``__builtin_amdgcn_cvt_pk_fp8_f32``.
  [MODE]  The MODE register's FP16_OVFL bit (23; kernel descriptor COMPUTE_PGM_RSRC1 bit 26)
          makes these converts saturate finite overflow (triton-lang/triton#7337 sets it on
          gfx950; AMD's rocjitsu emulator passes ``wf.fp16_ovfl()`` to its CDNA3 and CDNA4
          narrowing helpers ``f32_to_fp8/bf8_*_rne_mode`` / ``_sr_mode``). The ISA guide's MODE
          table words the bit for FP16 only ("an overflowed FP16 result is clamped to +/-
          MAX_FP16, regardless of round mode, while still preserving true INF values"); for the
          fp8/bf8 converts the emulator follows rocjitsu and the guide's rule carried over: with
          the bit set, a finite source whose rounding would overflow gives the format's largest
          finite value with the source's sign (E4M3FNUZ 240, E5M2FNUZ 57344, OCP E4M3 448, OCP
          E5M2 57344), for the pk and the sr forms alike; an Inf source ("true INF") and NaN are
          encoded as without the bit (NaN, or Inf in OCP E5M2). The bit comes from the descriptor
          (isa.emu.launch) or s_setreg (isa.emu.salu_extra); the f16 results: isa.emu.denorm.
  [LLVM]  llvm-mc-22 (gfx942, gfx950) accepts ``op_sel:[0,0,1]`` (the destination word, encoding
          bit 14 = OPSEL[3]) on the pk forms, ``op_sel:[_,_,b2,b3]`` (destination byte b2 + 2 b3)
          on the sr forms, and abs/neg on the f32 sources, and rejects ``clamp`` on all four.
Semantics implemented: RNE to the format with the normal IEEE overflow rule: a value whose
rounding exceeds the largest finite magnitude becomes NaN (E4M3FNUZ/E5M2FNUZ: 0x80; OCP E4M3:
0x7f/0xff) or +-Inf (OCP E5M2); Inf becomes NaN except in OCP E5M2; a NaN result is the format's
NaN code with the source's sign (FNUZ 0x80; OCP E4M3 S.1111.111, E5M2 S.11111.10, as AMD HIP's
host implementation of its OCP types, ``amd_detail/amd_hip_ocp_host.hpp`` ``nan<E>``, encodes
it; ml_dtypes gives the same codes; the ISA guides name no payload); FNUZ has no -0, so values
rounding to zero give 0x00; fp8 denormals are produced (RNE on the subnormal grid). The pk forms
write two bytes (src0 low, src1 high) into the word OPSEL[3] selects, keeping the other word; the
sr forms write the byte OPSEL[2] + 2 OPSEL[3], keeping the other three; their results below the
fp8 normal range round stochastically on the denormal grid (``sr_denormal_codes``). The VOP3 clamp bit, whose
effect on these converts no source documents (LLVM refuses the syntax), is refused.
"""
from __future__ import annotations

import ml_dtypes
import numpy as np

from .denorm import FP16_OVFL
from .dpp import bind_vop, is_sdwa, plain_reader, reject_mods, sdwa_src, sel_bit
from .operand_io import AluModifierError, alu, ops, register, vector_getter, vector_setter

F32, F16, F64 = np.float32, np.float16, np.float64
U32 = np.uint32

FP8 = {"gfx942": {"fp8": ml_dtypes.float8_e4m3fnuz, "bf8": ml_dtypes.float8_e5m2fnuz},
       "gfx950": {"fp8": ml_dtypes.float8_e4m3fn, "bf8": ml_dtypes.float8_e5m2}}


def fp8_type(m, kind: str):
    arch = getattr(m, "arch", None)
    if arch not in FP8:
        raise AluModifierError(f"fp8/bf8 conversion needs the arch (gfx942 | gfx950), machine has {arch!r}")
    return FP8[arch][kind]


def f2i(x, lo: int, hi: int, out):
    """Float lanes to integer: truncate, saturate to [lo, hi], NaN -> 0."""
    t = np.trunc(x.astype(F64))
    t = np.where(np.isnan(t), 0, np.clip(t, lo, hi))
    return t.astype(np.int64).astype(out)


def f16_rtz(x):
    """f32 -> f16 rounding toward zero (v_cvt_pkrtz_f16_f32)."""
    h = x.astype(F16)
    hb = h.view(np.uint16).astype(np.int32)
    back = h.astype(F32)
    over = np.isfinite(x) & (np.abs(back) > np.abs(x))
    hb = np.where(over, hb - 1, hb)   # one ulp toward zero (also inf -> 65504)
    return hb.astype(np.uint16).view(F16)


def bf16_rne(x):
    return x.astype(ml_dtypes.bfloat16).view(np.uint16)


def _ubyte(k):
    return lambda a: ((a >> U32(8 * k)) & U32(0xFF)).astype(F32)


CVT_OPS: dict[str, tuple] = {
    "v_cvt_f32_f16": (("f16",), "f32", lambda a: a.astype(F32)),
    "v_cvt_f16_f32": (("f32",), "f16", lambda a: a.astype(F16)),
    "v_cvt_f32_u32": (("u32",), "f32", lambda a: a.astype(F32)),
    "v_cvt_f32_i32": (("i32",), "f32", lambda a: a.astype(F32)),
    "v_cvt_u32_f32": (("f32",), "u32", lambda a: f2i(a, 0, 0xFFFFFFFF, U32)),
    "v_cvt_i32_f32": (("f32",), "i32", lambda a: f2i(a, -(1 << 31), (1 << 31) - 1, np.int32)),
    "v_cvt_flr_i32_f32": (("f32",), "i32", lambda a: f2i(np.floor(a), -(1 << 31), (1 << 31) - 1, np.int32)),
    "v_cvt_rpi_i32_f32": (("f32",), "i32",
                          lambda a: f2i(np.floor(a.astype(F64) + 0.5), -(1 << 31), (1 << 31) - 1, np.int32)),
    "v_cvt_f64_f32": (("f32",), "f64", lambda a: a.astype(F64)),
    "v_cvt_f32_f64": (("f64",), "f32", lambda a: a.astype(F32)),
    "v_cvt_f64_i32": (("i32",), "f64", lambda a: a.astype(F64)),
    "v_cvt_f64_u32": (("u32",), "f64", lambda a: a.astype(F64)),
    "v_cvt_i32_f64": (("f64",), "i32", lambda a: f2i(a, -(1 << 31), (1 << 31) - 1, np.int32)),
    "v_cvt_u32_f64": (("f64",), "u32", lambda a: f2i(a, 0, 0xFFFFFFFF, U32)),
    "v_cvt_f16_u16": (("u16",), "f16", lambda a: a.astype(F16)),
    "v_cvt_f16_i16": (("i16",), "f16", lambda a: a.astype(F16)),
    "v_cvt_u16_f16": (("f16",), "u16", lambda a: f2i(a, 0, 0xFFFF, np.uint16)),
    "v_cvt_i16_f16": (("f16",), "i16", lambda a: f2i(a, -(1 << 15), (1 << 15) - 1, np.int16)),
    "v_cvt_f32_ubyte0": (("u32",), "f32", _ubyte(0)),
    "v_cvt_f32_ubyte1": (("u32",), "f32", _ubyte(1)),
    "v_cvt_f32_ubyte2": (("u32",), "f32", _ubyte(2)),
    "v_cvt_f32_ubyte3": (("u32",), "f32", _ubyte(3)),
    "v_cvt_f32_bf16": (("u32",), "f32", lambda a: ((a & U32(0xFFFF)) << U32(16)).view(F32)),
    "v_cvt_pkrtz_f16_f32": (("f32", "f32"), "u32",
                            lambda a, b: f16_rtz(a).view(np.uint16).astype(U32)
                            | (f16_rtz(b).view(np.uint16).astype(U32) << U32(16))),
    "v_cvt_pk_f16_f32": (("f32", "f32"), "u32",
                         lambda a, b: a.astype(F16).view(np.uint16).astype(U32)
                         | (b.astype(F16).view(np.uint16).astype(U32) << U32(16))),
    "v_cvt_pk_bf16_f32": (("f32", "f32"), "u32",
                          lambda a, b: bf16_rne(a).astype(U32) | (bf16_rne(b).astype(U32) << U32(16))),
    "v_pack_b32_f16": (("f16", "f16"), "u32",
                       lambda a, b: a.view(np.uint16).astype(U32) | (b.view(np.uint16).astype(U32) << U32(16))),
    "v_cvt_pk_u16_u32": (("u32", "u32"), "u32",
                         lambda a, b: np.minimum(a, U32(0xFFFF)) | (np.minimum(b, U32(0xFFFF)) << U32(16))),
    "v_cvt_pk_i16_i32": (("i32", "i32"), "u32",
                         lambda a, b: (np.clip(a, -32768, 32767).astype(np.uint32) & U32(0xFFFF))
                         | (np.clip(b, -32768, 32767).astype(np.uint32) << U32(16))),
    "v_cvt_off_f32_i4": (("u32",) * 1, "f32",
                         lambda a: (((a & U32(0xF)) ^ U32(8)).astype(np.int32) - 8).astype(F32) / F32(16)),
    "v_cvt_pknorm_i16_f32": (("f32", "f32"), "u32", lambda a, b: _norm16(a, True) | (_norm16(b, True) << U32(16))),
    "v_cvt_pknorm_u16_f32": (("f32", "f32"), "u32",
                             lambda a, b: _norm16(a, False) | (_norm16(b, False) << U32(16))),
    "v_sat_pk_u8_i16": (("u32",), "u32",
                        lambda a: np.clip(np.ascontiguousarray(a).view(np.int16).reshape(64, 2), 0, 255)
                        .astype(np.uint8).view(np.uint16)[:, 0].astype(U32)),
}


def _norm16(x, signed: bool):
    """f32 -> snorm16 / unorm16 (ISA guide V_CVT_PKNORM_*: clamp, scale by 32767 / 65535, RNE)."""
    if signed:
        v = np.rint(np.clip(np.nan_to_num(x.astype(F64), nan=0.0), -1.0, 1.0) * 32767.0)
        return v.astype(np.int64).astype(np.uint16).astype(U32)
    v = np.rint(np.clip(np.nan_to_num(x.astype(F64), nan=0.0), 0.0, 1.0) * 65535.0)
    return v.astype(U32)


def _make_cvt(name):
    srcs, dst, fn = CVT_OPS[name]
    return lambda ins: bind_vop(ins, fn, srcs, dst)


register(CVT_OPS, _make_cvt)


def to_fp8(x, dt, sat: bool = False):
    """f32 lanes -> fp8/bf8 byte patterns (uint8): RNE, non-saturating, or with ``sat``
    (MODE.FP16_OVFL) finite overflow clamped to the largest finite value (module docstring)."""
    if sat:
        big = F32(ml_dtypes.finfo(dt).max)
        x = np.where(np.isfinite(x), np.clip(x, -big, big), x)
    with np.errstate(over="ignore", invalid="ignore"):
        return x.astype(dt).view(np.uint8)


def _no_clamp(ins) -> None:
    if ins.mod("clamp", False):
        raise AluModifierError(f"{ins}: clamp on {ins.op} is not documented for gfx942/gfx950 "
                               f"(llvm-mc-22 rejects it; saturate with v_med3_f32 first)")


# ----- v_cvt_pk_fp8_f32 / v_cvt_pk_bf8_f32 vdst, s0, s1 [op_sel:[_,_,hi]]: two bytes into one word of
# vdst, the other word kept (ISA guide V_CVT_PK_FP8_F32; op_sel[2] selects the destination word) ----
def _bind_pk8(kind: str):
    def bind(ins):
        d = ops(ins, 3)[0]
        reject_mods(ins)
        _no_clamp(ins)
        ga, gb = plain_reader(ins, 1, 0, "f32"), plain_reader(ins, 2, 1, "f32")
        hi = bool(sel_bit(ins, "op_sel", 2))
        gd, put = vector_getter(d), vector_setter(d)
        sh = U32(16 if hi else 0)
        keep = U32(0x0000FFFF if hi else 0xFFFF0000)

        def run(m, w):
            dt = fp8_type(m, kind)
            sat = bool(w.fp_mode & FP16_OVFL)
            word = to_fp8(ga(w), dt, sat).astype(U32) | (to_fp8(gb(w), dt, sat).astype(U32) << U32(8))
            put(w, (gd(w) & keep) | (word << sh), w.exec_mask())
        return run
    return bind


alu("v_cvt_pk_fp8_f32")(_bind_pk8("fp8"))
alu("v_cvt_pk_bf8_f32")(_bind_pk8("bf8"))


# ----- v_cvt_sr_fp8_f32 / v_cvt_sr_bf8_f32 vdst, s0, s1(random bits): stochastic rounding into the
# byte op_sel[2] + 2*op_sel[3] of vdst. CDNA3 ISA guide chapter 12.11 (as quoted by ROCm/rocm-systems'
# rocjitsu CDNA3 audit, item CDNA3-RJ-130): V_CVT_SR_FP8_F32 adds S1[31:12] into the f32 mantissa
# before converting, V_CVT_SR_BF8_F32 S1[31:11]; chapter 7: "add the stochastic value, then
# truncate". So, for a result in the fp8 normal range: the top (23 - mantissa bits) bits of S1 are
# added to the f32 bit pattern (a carry moves into the exponent), the dropped bits are cleared
# (truncation toward zero), and that value, exactly on the fp8 grid or past its largest finite
# value, is encoded like the pk forms (past the range: NaN, or Inf for OCP E5M2).
# Below the fp8 normal range the guide's sentence does not say where the noise goes; AMD's own
# reference of these conversions, HIP's ``amd_detail/amd_hip_ocp_host.hpp`` (``from_float_sr``, the
# host implementation of the fp8 types whose device path is the conversion builtins; it covers the
# FNUZ encodings too) and rocjitsu agree that rounding happens on the denormal grid: the f32
# significand with its implicit 1 is shifted right onto the fp8 denormal grid (bits shifted past the
# 23-bit field are dropped), the same seed bits are added just below the kept mantissa bits, the
# sum is truncated, and a carry out of the denormal field gives the smallest normal. f32 denormal
# sources are 2^-126-scale: they shift out entirely and give +-0 (FNUZ: 0). ------------------------
def sr_denormal_codes(x, seed, dt) -> np.ndarray:
    """fp8/bf8 byte codes of the stochastic rounding of f32 lanes ``x`` (finite, nonzero, below
    ``dt``'s smallest normal) with random dwords ``seed`` (see the comment above)."""
    fi = ml_dtypes.finfo(dt)
    mb = fi.nmant
    bits = x.view(U32)
    sign = (bits >> U32(31)).astype(U32)
    e32 = ((bits >> U32(23)) & U32(0xFF)).astype(np.int64)
    man = (bits & U32(0x7FFFFF)).astype(np.int64) | (1 << 23)
    man = np.where(e32 == 0, 0, man)                  # f32 denormals: 2^-126 scale, shift out
    diff = int(np.log2(float(fi.smallest_normal))) - (e32 - 127)
    shifted = np.where(diff >= 32, 0, man >> np.minimum(diff, 31))
    summed = shifted + (seed.astype(np.int64) >> (32 - (23 - mb)))
    normal = summed >= (1 << 23)                       # carried into the smallest normal
    code = np.where(normal, 1 << mb, (summed >> (23 - mb)) & ((1 << mb) - 1)).astype(U32)
    fnuz = bool(np.isnan(np.array(0x80, np.uint8).view(dt)))      # FNUZ: 0x80 is NaN, no -0
    neg = np.where((code == 0) & fnuz, U32(0), sign << U32(7))
    return code | neg


def _bind_sr8(kind: str):
    def bind(ins):
        d = ops(ins, 3)[0]
        reject_mods(ins)
        _no_clamp(ins)
        ga, gr = plain_reader(ins, 1, 0, "f32"), plain_reader(ins, 2, 1, "u32")
        byte = sel_bit(ins, "op_sel", 2) + 2 * sel_bit(ins, "op_sel", 3)
        gd, put = vector_getter(d), vector_setter(d)
        sh = U32(8 * byte)
        keep = ~U32(0xFF << (8 * byte))

        def run(m, w):
            dt = fp8_type(m, kind)
            fi = ml_dtypes.finfo(dt)
            drop = 23 - fi.nmant
            x, seed = ga(w), gr(w)
            fin = np.isfinite(x)
            bits = x.view(U32)
            noise = seed >> U32(32 - drop)
            with np.errstate(over="ignore"):
                summed = (bits.astype(np.uint64) + noise.astype(np.uint64)).astype(U32)
            rounded = np.where(fin, summed & ~U32((1 << drop) - 1), bits).view(F32)
            b8 = to_fp8(rounded, dt, bool(w.fp_mode & FP16_OVFL)).astype(U32)
            tiny = fin & (x != 0) & (np.abs(x) < F32(fi.smallest_normal))
            if tiny.any():
                b8 = np.where(tiny, sr_denormal_codes(x, seed, dt), b8)
            put(w, (gd(w) & keep) | (b8 << sh), w.exec_mask())
        return run
    return bind


alu("v_cvt_sr_fp8_f32")(_bind_sr8("fp8"))
alu("v_cvt_sr_bf8_f32")(_bind_sr8("bf8"))


# ----- v_cvt_f32_fp8 / bf8: one byte (SDWA src0_sel BYTE_n, default byte 0) -> f32;
# v_cvt_pk_f32_fp8 / bf8: one word (SDWA src0_sel WORD_n) -> two f32 ----------------------------------
def _bind_from8(kind: str, pk: bool):
    def bind(ins):
        d, s = ops(ins, 2)
        reject_mods(ins, clamp=True)
        raw = vector_getter(s)
        sel = sdwa_src(ins, 0, 1) if is_sdwa(ins) else None
        if ins.mod("op_sel") and not is_sdwa(ins):
            raise AluModifierError(f"{ins}: op_sel byte select is not accepted by LLVM for {ins.op}")
        put = vector_setter(d, 2 if pk else 1)

        def run(m, w):
            dt = fp8_type(m, kind)
            v = raw(w)
            if sel is not None:
                v = sel(v)
            b = (v & U32(0xFFFF if pk else 0xFF))
            lo = (b & U32(0xFF)).astype(np.uint8).view(dt).astype(F32).view(U32)
            if pk:
                hi = (b >> U32(8)).astype(np.uint8).view(dt).astype(F32).view(U32)
                put(w, np.stack([lo, hi]), w.exec_mask())
            else:
                put(w, lo, w.exec_mask())
        return run
    return bind


alu("v_cvt_f32_fp8")(_bind_from8("fp8", False))
alu("v_cvt_f32_bf8")(_bind_from8("bf8", False))
alu("v_cvt_pk_f32_fp8")(_bind_from8("fp8", True))
alu("v_cvt_pk_f32_bf8")(_bind_from8("bf8", True))
