"""Denormal modes: the one place where the MODE register's FP_DENORM fields act on float VALU ops.

MODE (LLVM SIDefines.h FP_DENORM_*, AMDGPUUsage kernel descriptor FLOAT_DENORM_MODE_32 /
FLOAT_DENORM_MODE_16_64): [5:4] for f32, [7:6] for f16 and f64; 0 = flush source and destination
denormals, 1 = flush destination only (FLUSH_DST, "allow input, flush output"), 2 = flush source
only (FLUSH_SRC), 3 = flush none. A flushed denormal becomes a zero of the same sign. The fields
come from the kernel descriptor at launch (``w.fp_mode``, isa.emu.launch) and from ``s_setreg`` of
HW_REG_MODE at run time (isa.emu.salu_extra).

``apply(ins, fn, src_types, dst_type)`` (called by ``isa.emu.dpp.bind_vop`` for every lane-wise
VALU op) returns the op's function made mode-aware: float sources are flushed as they are read
when the mode flushes sources, the float result is flushed before it is written when the mode
flushes destinations. Which ops:
* every lane-wise float VALU op bound through bind_vop honours the mode of its operand types
  (a conversion reads under its source type's field and writes under its result type's);
* the non-fused f16 MADs (``v_mad_f16``, ``v_mac_f16``, ``v_madak_f16``, ``v_madmk_f16``,
  ``v_mad_legacy_f16``) always flush f16 sources and result, whatever MODE says: LLVM selects
  them only when f16 denormals are flushed (SIISelLowering isFMADLegal: hasMadF16() &&
  denormalModeIsFlushAllF64F16; measured: llc-22 -mcpu=gfx942 turns llvm.fmuladd.f16 into
  v_mac_f16 under "denormal-fp-math"="preserve-sign", into v_fma_f16 under "ieee"); madak/madmk/
  legacy share the MAD datapath (inferred, not separately documented). Their f32 counterparts
  (v_mad_f32, v_mac_f32, v_madak/madmk_f32, v_mad_legacy_f32), which flush on older gfx9, do not
  exist on gfx940+ (LLVM FeatureGFX940Insts drops MadMacF32Insts; the emulator's mnemonic table
  refuses them);
* the f32 transcendentals ``v_exp_f32``, ``v_log_f32``, ``v_rcp_f32``, ``v_rsq_f32``,
  ``v_sqrt_f32`` (and ``v_rcp_iflag_f32``, same unit, inferred) always flush f32 denormal sources
  and results, whatever MODE says. Source: LLVM (SIISelLowering lowerFastUnsafeFDIV: "v_rcp_f32
  and v_rsq_f32 do not support denormals"; AMDGPUISelLowering lowerFEXP2/lowerFLOG2 and
  SIISelLowering lowerFSQRTF32 scale around the instruction only when f32 denormals are kept).
  Measured with llc-22 -mcpu=gfx942 (tests/emu/test_denorm_more.py::test_llvm_scales_around_...):
  under "denormal-fp-math-f32"="ieee" exp2 adds 64 for x < -126 and ldexps the result by -64,
  log2 ldexps x < 2^-126 by 32, 1/x goes through frexp_mant / ldexp, sqrt and rsqrt ldexp
  x < 2^-126 up; under "preserve-sign" each is the bare instruction. The ISA guide's entries for
  these opcodes do not mention denormals (silent); LLVM is the only source and is followed;
* ``v_sin_f32`` / ``v_cos_f32`` and the f16 transcendentals (``v_exp/log/rcp/rsq/sqrt/sin/cos_f16``)
  honour the mode: LLVM selects the bare f16 instructions under "ieee" (SIISelLowering: "v_rcp_f16
  and v_rsq_f16 DO support denormals"; measured with llc-22 for rcp/sqrt/exp2/log2 f16), and it
  does nothing around v_sin/v_cos_f32 in either mode. The ISA guide is silent;
* VOPC compares (``v_cmp_*`` / ``v_cmpx_*`` on f16/f32/f64) read their sources under the source
  field like every float VALU op (a flushed denormal compares equal to zero). No source says
  otherwise; LLVM's LangRef lets fcmp under "preserve-sign" treat denormals either way, so LLVM
  gives no evidence, and the ISA guide's MODE.FP_DENORM description covers float VALU operands;
* ``v_cmp_class_*`` / ``v_cmpx_class_*`` never flush their value source: LLVM lowers
  llvm.is.fpclass (which must see the bits unchanged) to v_cmp_class with the subnormal class bits
  in every mode (measured: llc-22, "preserve-sign" and "ieee" give the same v_cmp_class_f32 with
  mask 0x90). The ISA guide describes V_CMP_CLASS as classifying S0 without mentioning MODE;
* the packed ops (``v_pk_fma/mul/add_f32``, ``v_pk_fma/mul/add/max/min_f16``), the mixed FMAs
  (``v_fma_mix_f32``, ``v_fma_mixlo/hi_f16``) and the f16 dot products (``v_dot2_f32_f16``,
  ``v_dot2c_f32_f16``) honour the mode: each element or source under its own type's field (an
  f16 source of a mix/dot under FLOAT_DENORM_MODE_16_64, an f32 source or result under _32).
  LLVM selects all of them under "ieee" (measured: fma.v2f32 -> v_pk_fma_f32, fma(fpext h, fpext
  h, f) -> v_fma_mix_f32, the fast f16 dot pattern -> v_dot2c_f32_f16), so they keep denormals in
  mode 3; which field governs a mixed-width source is not documented anywhere we could read (the
  per-type rule is our choice, stated here). The bf16 dot products (``v_dot2_f32_bf16``) keep bf16
  denormals in every mode: no source ties bf16 to either field (silent), like the bf16 MFMAs;
* MFMAs ignore MODE: denormal inputs are kept (cdna-facts 2.3, microsoft/MMA-Sim's CDNA3 model
  built from hardware measurements), so isa.emu.mfma is not routed through here;
* bit moves (v_mov, v_cndmask, DPP/permute) are not float ops and are never flushed.
Binders outside bind_vop (valu_cmp, the packed/mix binders in valu_float, valu_dot) call
``flush_src`` / ``flush_dst`` here; the per-op policy (always / never / mode) lives only in this
module (``ALWAYS_FLUSH``, ``NEVER_FLUSH_SRC``).

FP16_OVFL (MODE bit 23; kernel descriptor COMPUTE_PGM_RSRC1 bit 26, ``.amdhsa_fp16_overflow``,
LLVM AMDHSAKernelDescriptor.h COMPUTE_PGM_RSRC1_GFX9_PLUS FP16_OVFL) acts here too, on the same
result writes. AMD's GCN/CDNA ISA guides' MODE register table: "If set, an overflowed FP16 result
is clamped to +/- MAX_FP16, regardless of round mode, while still preserving true INF values."
(wording as the team's brief quotes it; the guide's PDF was not in this session's search corpora,
so it is not re-verified here).
The guide does not say what a "true INF" is for an op with several sources or for a
transcendental; AMD's rocjitsu emulator (its CDNA f16 paths compute in f32 and narrow with
``f32_to_f16_mode(value, fp16_ovfl)``; its measured f16 transcendental pipeline: "FP16_OVFL turns
an infinite result of a finite source into the signed maximum finite value, including
divide-by-zero results") is followed: an f16 result that is +-Inf while no float source of the op
is +-Inf becomes sign | 0x7BFF (+-65504); an Inf reached from an Inf source stays Inf, NaN stays
NaN. So v_add/v_mul/v_fma_f16 overflow -> +-65504, Inf + 1 -> Inf, v_rcp_f16(0) -> 65504,
v_cvt_f16_f32(1e6) -> 65504, v_cvt_f16_f32(Inf) -> Inf. Which ops: every f16-result float VALU op
bound through bind_vop (VOP1/VOP2/VOP3, the ALWAYS_FLUSH MADs too), the packed ``v_pk_*_f16``
and ``v_fma_mixlo/hi_f16`` (their binders call ``flush_dst`` with the sources). Not affected:
f32/f64 results; bf16 results (the guide names FP16 only; rocjitsu saturates its gfx950 packed
bf16 FMA under the bit, an op this emulator does not have); ``v_cvt_pkrtz_f16_f32``, whose
rounding toward zero already gives +-65504 for a finite overflow and keeps Inf; the fp8/bf8
converts, which read the bit themselves (isa.emu.valu_cvt [MODE]). An omod scaling applied after
the op (isa.emu.dpp) is not re-saturated (rocjitsu saturates it again; an f16 op with omod under
FP16_OVFL is not modelled beyond this).
"""
from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

ALWAYS_FLUSH = frozenset(("v_mad_f16", "v_mac_f16", "v_madak_f16", "v_madmk_f16", "v_mad_legacy_f16",
                          "v_exp_f32", "v_log_f32", "v_rcp_f32", "v_rsq_f32", "v_sqrt_f32",
                          "v_rcp_iflag_f32"))
NEVER_FLUSH_SRC = frozenset(f"{b}class_{t}" for b in ("v_cmp_", "v_cmpx_") for t in ("f16", "f32", "f64"))
FLOAT_TYPES = ("f16", "f32", "f64")
DEFAULT_MODE = 0x2F0      # RNE, FP_DENORM 3/3, IEEE
FP16_OVFL = 1 << 23       # MODE.FP16_OVFL (module docstring)
_F16_INF, _F16_MAX = np.uint16(0x7C00), np.uint16(0x7BFF)

_BITS = {  # typ -> (unsigned view, exponent mask, sign mask)
    "f32": (np.uint32, np.uint32(0x7F800000), np.uint32(0x80000000)),
    "f16": (np.uint16, np.uint16(0x7C00), np.uint16(0x8000)),
    "f64": (np.uint64, np.uint64(0x7FF0000000000000), np.uint64(0x8000000000000000)),
}


def field(mode: int, typ: str) -> int:
    """FP_DENORM value (0..3) that governs ``typ`` under MODE bits ``mode``."""
    return (mode >> (4 if typ == "f32" else 6)) & 3


def flush(vals, typ: str):
    """``vals`` (typed lanes) with denormals replaced by zeros of the same sign."""
    view, exp, sign = _BITS[typ]
    a = np.asarray(vals)
    bits = a.view(view)
    den = ((bits & exp) == 0) & ((bits & ~sign) != 0)
    if not den.any():
        return a
    return np.where(den, bits & sign, bits).astype(view).view(a.dtype)


def mode_bits(denorm32: int, denorm16_64: int, fp16_ovfl: bool = False) -> int:
    """MODE bits for the descriptor's FLOAT_DENORM_MODE_32 / _16_64 and FP16_OVFL (round RNE,
    IEEE on)."""
    return ((DEFAULT_MODE & ~0xF0) | (denorm32 & 3) << 4 | (denorm16_64 & 3) << 6
            | (FP16_OVFL if fp16_ovfl else 0))


def saturate_f16(res, srcs: Sequence = ()):
    """f16 lanes ``res`` under FP16_OVFL: +-Inf becomes +-65504 in the lanes where no float source
    in ``srcs`` (typed lanes, broadcastable to ``res``) is +-Inf (module docstring)."""
    a = np.asarray(res, np.float16)
    bits = a.view(np.uint16)
    inf = (bits & np.uint16(0x7FFF)) == _F16_INF
    if not inf.any():
        return a
    for s in srcs:
        s = np.asarray(s)
        if s.dtype.kind == "f":
            inf = inf & ~np.isinf(s)
    return np.where(inf, (bits & np.uint16(0x8000)) | _F16_MAX, bits).astype(np.uint16).view(np.float16)


def flush_src(w, vals, typ: str, op: str = ""):
    """``vals`` (typed lanes of a float source of ``op``) as the op reads them under wave/group
    ``w``'s MODE: denormals flushed when the field of ``typ`` flushes sources (bit 0 clear), or
    always for ``ALWAYS_FLUSH`` ops; unchanged for ``NEVER_FLUSH_SRC`` ops and non-float types."""
    if typ not in FLOAT_TYPES or op in NEVER_FLUSH_SRC:
        return vals
    mode = 0 if op in ALWAYS_FLUSH else w.fp_mode
    return vals if field(mode, typ) & 1 else flush(vals, typ)


def flush_dst(w, vals, typ: str, op: str = "", srcs: Sequence = ()):
    """``vals`` (a float result of ``op``) as written under ``w``'s MODE: denormals flushed when
    the field of ``typ`` flushes results (bit 1 clear), or always for ``ALWAYS_FLUSH`` ops; an f16
    result saturated under FP16_OVFL (``saturate_f16`` with the op's sources ``srcs``)."""
    if typ not in FLOAT_TYPES:
        return vals
    mode = 0 if op in ALWAYS_FLUSH else w.fp_mode
    if not field(mode, typ) & 2:
        vals = flush(vals, typ)
    if typ == "f16" and w.fp_mode & FP16_OVFL:
        vals = saturate_f16(vals, srcs)
    return vals


def apply(ins, fn: Callable, src_types: Sequence[str], dst_type: str):
    """(fn, prologue): ``fn`` wrapped to flush per the wave's mode, and ``prologue(w)`` that the
    bound runner calls first so the wrapper sees the wave's MODE; (fn, None) when the op has no
    float operand."""
    floats_in = [i for i, t in enumerate(src_types) if t in FLOAT_TYPES]
    float_out = dst_type in FLOAT_TYPES
    if not floats_in and not float_out:
        return fn, None
    always = ins.op in ALWAYS_FLUSH
    ovfl_out = dst_type == "f16"
    cur = [DEFAULT_MODE]

    def prologue(w) -> None:
        cur[0] = w.fp_mode

    def flushing(*vals):
        ovfl = ovfl_out and cur[0] & FP16_OVFL
        mode = 0 if always else cur[0]
        if not always and mode & 0xF0 == 0xF0:         # neither field flushes
            res = fn(*vals)
            return saturate_f16(res, [vals[i] for i in floats_in]) if ovfl else res
        vals = list(vals)
        for i in floats_in:
            t = src_types[i]
            if not field(mode, t) & 1:                  # bit 0 clear: sources flushed
                vals[i] = flush(vals[i], t)
        res = fn(*vals)
        if float_out and not field(mode, dst_type) & 2:     # bit 1 clear: result flushed
            res = flush(np.asarray(res, _NP[dst_type]), dst_type)
        if ovfl:
            res = saturate_f16(res, [vals[i] for i in floats_in])
        return res
    return flushing, prologue


_NP = {"f32": np.float32, "f16": np.float16, "f64": np.float64}
