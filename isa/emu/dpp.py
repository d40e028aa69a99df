"""VALU operand modifiers applied generically: DPP lane selection, SDWA selects, VOP3 abs/neg/op_sel,
clamp and omod; and ``bind_vop``, the bound lane-wise VALU operation every VALU module builds on.

Modifier conventions on ``Instr.mods`` (LLVM syntax, parsed):
- DPP: ``quad_perm`` (tuple of 4), ``row_shl``/``row_shr``/``row_ror`` (1..15), ``wave_shl``/``wave_shr``/
  ``wave_rol``/``wave_ror`` (1), ``row_mirror``/``row_half_mirror`` (True), ``row_bcast`` (15|31),
  ``row_newbcast`` (0..15, gfx90a+), ``row_mask``/``bank_mask`` (4 bits, default 0xf), ``bound_ctrl``
  (any value: LLVM 22 reads ``bound_ctrl:0`` and prints ``bound_ctrl:1``; both set the BOUND_CTRL bit).
- SDWA: ``src0_sel``/``src1_sel``/``dst_sel`` (BYTE_0..3, WORD_0/1, DWORD), ``dst_unused``
  (UNUSED_PAD | UNUSED_SEXT | UNUSED_PRESERVE).
- Source modifiers (isa.asm_parse / isa.asm_format convention): ``neg``, ``abs``, ``sext`` = tuples of
  the operand positions they apply to (``-v1``, ``|v1|``, ``sext(v1)``).
- VOP3: ``op_sel`` (tuple of 0/1 per source, 16-bit halves; the entry after the sources selects the
  destination half), ``clamp`` (True), ``mul`` (2|4) / ``div`` (2) = omod.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from ..instr import Instr
from .operand_io import (
    WIDE,
    AluModifierError,
    AluOperandError,
    GroupUnsupported,
    group_mode,
    split64,
    vector_getter,
    vector_getter64,
    vector_setter,
)

LANES = np.arange(64)
ROW_LANE = LANES & 15
DPP_KEYS = ("quad_perm", "row_shl", "row_shr", "row_ror", "wave_shl", "wave_shr", "wave_rol", "wave_ror",
            "row_mirror", "row_half_mirror", "row_bcast", "row_newbcast")


# ---------------------------------------------------------------------------------------------------
# DPP (AMD CDNA3 ISA guide, "DPP": dst lane l reads src lane map(l); row = 16 lanes, bank = 4 lanes of
# a row; lanes of disabled rows/banks are not written; an out-of-range or EXEC-disabled source lane
# reads 0 when BOUND_CTRL is set, otherwise the destination lane is not written).
# ---------------------------------------------------------------------------------------------------
class Dpp:
    """A resolved DPP control: source lane per lane, static validity, row/bank write enables."""

    __slots__ = ("all_valid", "bound_zero", "enable", "src", "valid")

    def __init__(self, src: np.ndarray, valid: np.ndarray, enable: np.ndarray, bound_zero: bool):
        self.src, self.valid, self.enable, self.bound_zero = src, valid, enable, bound_zero
        self.all_valid = bool(valid.all())

    def apply(self, raw: np.ndarray, exec_mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(selected source values, lanes to write) for a source ``raw`` (uint32[..., 64])."""
        ok = exec_mask[self.src]
        if not self.all_valid:
            ok = ok & self.valid
        vals = raw[..., self.src]
        if self.bound_zero:
            vals = np.where(ok, vals, np.uint32(0))
            return vals, self.enable & exec_mask
        return vals, self.enable & exec_mask & ok


def dpp_of(ins: Instr) -> Dpp | None:
    """The DPP control of ``ins`` (None when it has none)."""
    ctrl = [(k, v) for k, v in ins.mods if k in DPP_KEYS]
    if not ctrl:
        if ins.encoding == "dpp":
            raise AluModifierError(f"{ins}: DPP encoding without a DPP control")
        return None
    if len(ctrl) > 1:
        raise AluModifierError(f"{ins}: more than one DPP control {ctrl}")
    key, val = ctrl[0]
    n = 1 if val is True else val
    valid = np.ones(64, bool)
    if key == "quad_perm":
        if len(val) != 4 or any(not 0 <= x <= 3 for x in val):
            raise AluModifierError(f"{ins}: quad_perm {val} needs 4 entries in 0..3")
        src = (LANES & ~3) | np.array(val)[LANES & 3]
    elif key in ("row_shl", "row_shr", "row_ror"):
        if not 1 <= n <= 15:
            raise AluModifierError(f"{ins}: {key}:{n} outside 1..15")
        if key == "row_shl":
            src, valid = LANES + n, ROW_LANE + n < 16
        elif key == "row_shr":
            src, valid = LANES - n, ROW_LANE >= n
        else:
            src = (LANES & ~15) | ((ROW_LANE - n) & 15)
    elif key in ("wave_shl", "wave_shr", "wave_rol", "wave_ror"):
        if n != 1:
            raise AluModifierError(f"{ins}: {key}:{n}, only 1 is encodable")
        if key == "wave_shl":
            src, valid = LANES + 1, LANES < 63
        elif key == "wave_shr":
            src, valid = LANES - 1, LANES > 0
        elif key == "wave_rol":
            src = (LANES + 1) & 63
        else:
            src = (LANES - 1) & 63
    elif key == "row_mirror":
        src = (LANES & ~15) | (15 - ROW_LANE)
    elif key == "row_half_mirror":
        src = (LANES & ~7) | (7 - (LANES & 7))
    elif key == "row_bcast":
        # row_bcast:15: lane 15 of row r-1 feeds row r; row_bcast:31: lane 31 feeds rows 2 and 3.
        # Rows without a source (row 0; rows 0-1 for :31) are treated as out of range.
        if n == 15:
            src, valid = (LANES & ~15) - 1, LANES >= 16
        elif n == 31:
            src, valid = np.full(64, 31), LANES >= 32
        else:
            raise AluModifierError(f"{ins}: row_bcast:{n}, only 15 or 31")
    else:  # row_newbcast:n (gfx90a+): lane n of each row to the whole row
        if not 0 <= n <= 15:
            raise AluModifierError(f"{ins}: row_newbcast:{n} outside 0..15")
        src = (LANES & ~15) | n
    src = np.where(valid, src, LANES) & 63
    row_mask = ins.mod("row_mask", 0xF)
    bank_mask = ins.mod("bank_mask", 0xF)
    for name, m in (("row_mask", row_mask), ("bank_mask", bank_mask)):
        if not 0 <= m <= 0xF:
            raise AluModifierError(f"{ins}: {name}:{m:#x} outside 0..0xf")
    enable = (((row_mask >> (LANES >> 4)) & 1) & ((bank_mask >> ((LANES >> 2) & 3)) & 1)).astype(bool)
    return Dpp(src.astype(np.intp), valid, enable, ins.has("bound_ctrl"))


# ---------------------------------------------------------------------------------------------------
# SDWA (AMD CDNA3 ISA guide, "SDWA"): sources select a byte/word (zero- or sign-extended), the result
# goes to a byte/word of the destination, other bits zero (PAD), sign bits (SEXT) or kept (PRESERVE).
# ---------------------------------------------------------------------------------------------------
SEL = {"BYTE_0": (0, 8), "BYTE_1": (8, 8), "BYTE_2": (16, 8), "BYTE_3": (24, 8),
       "WORD_0": (0, 16), "WORD_1": (16, 16), "DWORD": (0, 32)}


def _sel(ins: Instr, key: str) -> tuple[int, int]:
    val = ins.mod(key, "DWORD")
    if val not in SEL:
        raise AluModifierError(f"{ins}: {key}:{val} is not one of {tuple(SEL)}")
    return SEL[val]


SDWA_KEYS = ("dst_sel", "dst_unused", "src0_sel", "src1_sel")


def is_sdwa(ins: Instr) -> bool:
    """SDWA form: the ``_sdwa`` suffix or any SDWA select written without it."""
    return ins.encoding == "sdwa" or any(k in SDWA_KEYS for k, _ in ins.mods)


def sdwa_src(ins: Instr, n: int, pos: int) -> Callable[[np.ndarray], np.ndarray] | None:
    """The SDWA select of source ``n`` (operand ``pos``) on raw uint32 lanes (None = whole dword)."""
    shift, bits = _sel(ins, f"src{n}_sel")
    sext = has_src_mod(ins, "sext", pos)
    if bits == 32:
        return None
    mask = np.uint32((1 << bits) - 1)
    sh = np.uint32(shift)
    if not sext:
        return lambda raw: (raw >> sh) & mask
    up, sup = np.uint32(32 - bits), np.int32(32 - bits)
    return lambda raw: (((raw >> sh) << up).view(np.int32) >> sup).view(np.uint32)


def sdwa_dst(ins: Instr) -> Callable[[np.ndarray, np.ndarray], np.ndarray] | None:
    """The SDWA destination placement ``(new_raw, old_raw) -> raw`` (None = whole dword)."""
    shift, bits = _sel(ins, "dst_sel")
    unused = ins.mod("dst_unused", "UNUSED_PAD")
    if unused not in ("UNUSED_PAD", "UNUSED_SEXT", "UNUSED_PRESERVE"):
        raise AluModifierError(f"{ins}: dst_unused:{unused} is not UNUSED_PAD/SEXT/PRESERVE")
    if bits == 32:
        return None
    field = np.uint32(((1 << bits) - 1) << shift)
    sh = np.uint32(shift)
    if unused == "UNUSED_PAD":
        return lambda new, old: (new << sh) & field
    if unused == "UNUSED_PRESERVE":
        return lambda new, old: ((new << sh) & field) | (old & ~field)
    # sign-extend the field's top bit into the bits above it; bits below the field stay 0
    top, stop = np.uint32(32 - bits - shift), np.int32(32 - bits - shift)
    return lambda new, old: ((((new << sh) & field) << top).view(np.int32) >> stop).view(np.uint32)


# ---------------------------------------------------------------------------------------------------
# Typed views and VOP3 source modifiers.
# ---------------------------------------------------------------------------------------------------
def has_src_mod(ins: Instr, key: str, pos: int) -> bool:
    """Whether source modifier ``key`` (neg | abs | sext) applies to operand position ``pos``."""
    val = ins.mod(key)
    if val is None:
        return False
    if isinstance(val, tuple):
        return pos in val
    raise AluModifierError(f"{ins}: modifier {key}:{val!r} must be a tuple of operand positions")


def sel_bit(ins: Instr, key: str, n: int) -> int:
    val = ins.mod(key)
    if val is None:
        return 0
    if isinstance(val, tuple):
        return int(val[n]) if n < len(val) else 0
    raise AluModifierError(f"{ins}: modifier {key}:{val!r} must be a tuple of 0/1 per source")


NP_TYPE = {"f32": np.float32, "i32": np.int32, "u32": np.uint32, "b32": np.uint32,
           "f16": np.float16, "i16": np.int16, "u16": np.uint16, "b16": np.uint16,
           "f64": np.float64, "i64": np.int64, "u64": np.uint64, "b64": np.uint64}
FLOATS = ("f16", "f32", "f64")
HALF = ("f16", "i16", "u16", "b16")


def to_type(raw: np.ndarray, typ: str, hi: bool = False) -> np.ndarray:
    """Reinterpret raw uint32 lanes as ``typ`` (16-bit types take the low half, or the high one)."""
    if typ in ("u32", "b32"):
        return raw
    if typ in ("f32", "i32"):
        return raw.view(NP_TYPE[typ])
    if typ in ("f16", "i16", "u16", "b16"):
        half = (raw >> np.uint32(16)) if hi else raw
        return half.astype(np.uint16).view(NP_TYPE[typ])
    raise AluOperandError(f"cannot view 32-bit lanes as {typ}")


def from_type(vals: np.ndarray, typ: str) -> np.ndarray:
    """Raw uint32 lanes of a typed result (16-bit results in the low half, high half zero)."""
    if typ in ("f16", "i16", "u16", "b16"):
        return np.asarray(vals, NP_TYPE[typ]).view(np.uint16).astype(np.uint32)
    return np.asarray(vals, NP_TYPE[typ]).view(np.uint32)


def plain_reader(ins: Instr, pos: int, n: int, typ: str) -> Callable:
    """A ``w -> typed lanes`` reader for source ``n`` at operand ``pos`` without DPP.

    Applies, in hardware order, the SDWA select, the op_sel half, abs, then neg."""
    op = ins.operands[pos]
    abs_ = has_src_mod(ins, "abs", pos)
    neg = has_src_mod(ins, "neg", pos)
    if (abs_ or neg) and typ not in FLOATS:
        raise AluModifierError(f"{ins}: abs/neg on source {n} of integer type {typ}")
    if typ in WIDE:
        get64 = vector_getter64(op, typ)
        view = NP_TYPE[typ]
        f = get64 if typ in ("u64", "b64") else (lambda w: get64(w).view(view))
    else:
        raw_get = vector_getter(op, 1, typ)
        sel = sdwa_src(ins, n, pos) if is_sdwa(ins) and n < 2 else None
        hi = bool(sel_bit(ins, "op_sel", n)) and typ in HALF and not is_sdwa(ins)
        if sel is not None:
            if group_mode():
                raise GroupUnsupported(f"{ins}: SDWA selects step per wave")
            f = (lambda w: to_type(sel(raw_get(w)), typ))
        elif typ in ("u32", "b32"):
            f = raw_get
        elif typ in ("f32", "i32"):
            dt = NP_TYPE[typ]
            f = (lambda w: raw_get(w).view(dt))
        else:
            f = (lambda w: to_type(raw_get(w), typ, hi))
    if abs_ and neg:
        return lambda w: -np.abs(f(w))
    if abs_:
        return lambda w: np.abs(f(w))
    if neg:
        return lambda w: -f(w)
    return f


def src_reader(ins: Instr, pos: int, n: int, typ: str, dpp: Dpp | None = None):
    """A function ``w -> (typed lanes, write mask or None)``; DPP (source 0 only) yields the mask."""
    if dpp is None or n != 0:
        f = plain_reader(ins, pos, n, typ)
        return lambda w: (f(w), None)
    if group_mode():
        raise GroupUnsupported(f"{ins}: DPP steps per wave")
    if typ in WIDE:
        raise AluModifierError(f"{ins}: DPP on a 64-bit source is not supported by the emulator")
    if is_sdwa(ins):
        raise AluModifierError(f"{ins}: DPP and SDWA on one instruction")
    raw_get = vector_getter(ins.operands[pos], 1, typ)
    hi = bool(sel_bit(ins, "op_sel", n)) and typ in HALF
    abs_, neg = has_src_mod(ins, "abs", pos), has_src_mod(ins, "neg", pos)
    if (abs_ or neg) and typ not in FLOATS:
        raise AluModifierError(f"{ins}: abs/neg on source {n} of integer type {typ}")

    def dpp_read(w):
        vals, mask = dpp.apply(raw_get(w), w.exec_mask())
        vals = to_type(vals, typ, hi)
        if abs_:
            vals = np.abs(vals)
        if neg:
            vals = -vals
        return vals, mask
    return dpp_read


def reject_mods(ins: Instr, *, dpp: bool = True, sdwa_dst_sel: bool = True, clamp: bool = False,
                omod: bool = True) -> None:
    """Fail (rather than silently ignore) modifiers a custom binder does not implement."""
    if dpp and dpp_of(ins) is not None:
        raise AluModifierError(f"{ins}: DPP is not modelled for {ins.op}")
    if sdwa_dst_sel and ins.mod("dst_sel", "DWORD") != "DWORD":
        raise AluModifierError(f"{ins}: SDWA dst_sel is not modelled for {ins.op}")
    if clamp and ins.mod("clamp"):
        raise AluModifierError(f"{ins}: clamp is not modelled for {ins.op}")
    if omod and (ins.mod("mul") not in (None, 1) or ins.mod("div") not in (None, 1)):
        raise AluModifierError(f"{ins}: omod is not modelled for {ins.op}")


def has_clamp(ins: Instr) -> bool:
    return bool(ins.mod("clamp", False))


def omod_of(ins: Instr) -> float | None:
    mul, div = ins.mod("mul"), ins.mod("div")
    if mul is not None and div is not None:
        raise AluModifierError(f"{ins}: both mul:{mul} and div:{div}")
    if mul is not None:
        if mul not in (1, 2, 4):
            raise AluModifierError(f"{ins}: omod mul:{mul}, only 2 or 4")
        return None if mul == 1 else float(mul)
    if div is not None:
        if div not in (1, 2):
            raise AluModifierError(f"{ins}: omod div:{div}, only 2")
        return None if div == 1 else 0.5
    return None


def clamp01(x: np.ndarray) -> np.ndarray:
    """DX10 clamp to [0, 1]: NaN and -0 become +0 (ISA guide, "clamp" output modifier)."""
    one = x.dtype.type(1)
    return np.where(x > 0, np.minimum(x, one), x.dtype.type(0))


# ---------------------------------------------------------------------------------------------------
# The generic bound VALU operation.
# ---------------------------------------------------------------------------------------------------
# The gfx9 op_sel forms keep the high half of vdst; their "_legacy" twins are the GFX8 encodings,
# which write it as 0 (CDNA4 ISA guide, V_MAD_LEGACY_F16: "hi 16 bits are written as 0 (this is
# different from V_MAD_F16)"; Mesa's ACO picks v_fma_legacy_f16 / v_mad_legacy_f16 for GFX8 only).
PRESERVE_HI16 = frozenset(("v_fma_f16", "v_mad_f16", "v_mad_u16", "v_mad_i16", "v_div_fixup_f16"))


def _fast_run(fn, readers, setter, view):
    """Arity-specialised closures for the common case: plain sources, EXEC-masked whole-dword write.
    Integer results are written with an unsafe cast (two's-complement wrap, 16-bit zero-extended);
    float results are reinterpreted through ``view`` first."""
    if len(readers) == 1:
        (r0,) = readers
        if view is None:
            return lambda m, w: setter(w, fn(r0(w)), w.exec_mask())
        return lambda m, w: setter(w, fn(r0(w)).view(view), w.exec_mask())
    if len(readers) == 2:
        r0, r1 = readers
        if view is None:
            return lambda m, w: setter(w, fn(r0(w), r1(w)), w.exec_mask())
        return lambda m, w: setter(w, fn(r0(w), r1(w)).view(view), w.exec_mask())
    if len(readers) == 3:
        r0, r1, r2 = readers
        if view is None:
            return lambda m, w: setter(w, fn(r0(w), r1(w), r2(w)), w.exec_mask())
        return lambda m, w: setter(w, fn(r0(w), r1(w), r2(w)).view(view), w.exec_mask())
    return lambda m, w: setter(w, np.asarray(fn(*[r(w) for r in readers])).view(view or np.uint32),
                               w.exec_mask())


def bind_vop(ins: Instr, fn: Callable, src_types: Sequence[str], dst_type: str, *,
             dst_pos: int = 0, src_pos: int = 1, fn_clamp: Callable | None = None):
    """Bind a lane-wise VALU op (see ``_bind_vop``) under the wave's denormal mode (isa.emu.denorm):
    waves in the default mode (no flushing) run the plain binding, others the flushing one."""
    from . import denorm
    plain = _bind_vop(ins, fn, src_types, dst_type, dst_pos=dst_pos, src_pos=src_pos, fn_clamp=fn_clamp)
    flushing_fn, prologue = denorm.apply(ins, fn, src_types, dst_type)
    if prologue is None:
        return plain
    flushing = _bind_vop(ins, flushing_fn, src_types, dst_type, dst_pos=dst_pos, src_pos=src_pos,
                         fn_clamp=fn_clamp)
    if ins.op in denorm.ALWAYS_FLUSH:
        def run_always(m, w):
            prologue(w)         # the wrapper reads MODE.FP16_OVFL (isa.emu.denorm)
            flushing(m, w)
        return run_always
    default = denorm.DEFAULT_MODE

    def run(m, w):
        if w.fp_mode == default:
            plain(m, w)
        else:
            prologue(w)
            flushing(m, w)
    return run


def _bind_vop(ins: Instr, fn: Callable, src_types: Sequence[str], dst_type: str, *,
              dst_pos: int = 0, src_pos: int = 1, fn_clamp: Callable | None = None):
    """Bind a lane-wise VALU op: ``fn(*typed_sources) -> typed result`` written to operand ``dst_pos``.

    Handles DPP (source 0), SDWA selects and destination placement, op_sel halves, abs/neg, float clamp
    and omod, integer clamp through ``fn_clamp``, and EXEC masking. 16-bit results zero the high half
    except for the ops LLVM lists as preserving it on gfx9 (GCNSubtarget::zeroesHigh16BitsOfDest)."""
    n = len(src_types)
    if len(ins.operands) < src_pos + n:
        raise AluOperandError(f"{ins}: {ins.op} needs {src_pos + n} operands")
    dpp = dpp_of(ins)
    readers = [src_reader(ins, src_pos + i, i, t, dpp) for i, t in enumerate(src_types)]
    clamp = has_clamp(ins)
    omod = omod_of(ins)
    is_float = dst_type in FLOATS
    if clamp and not is_float:
        if fn_clamp is None:
            raise AluModifierError(f"{ins}: clamp is not supported on {ins.op}")
        fn = fn_clamp
    if omod is not None and not is_float:
        raise AluModifierError(f"{ins}: omod on integer op {ins.op}")
    wide = dst_type in WIDE
    dst = ins.operands[dst_pos]
    setter = vector_setter(dst, 2 if wide else 1)
    half = dst_type in ("f16", "i16", "u16", "b16")
    dst_hi = half and bool(sel_bit(ins, "op_sel", n)) and not is_sdwa(ins)
    keep_hi = half and (ins.op in PRESERVE_HI16 or dst_hi)
    place = sdwa_dst(ins) if is_sdwa(ins) else None
    old_get = vector_getter(dst) if (place is not None or keep_hi) else None
    omod_v = None if omod is None else NP_TYPE[dst_type](omod)

    def post(res):
        res = np.asarray(res, NP_TYPE[dst_type])
        if omod_v is not None:
            res = res * omod_v
        if clamp and is_float:
            res = clamp01(res)
        return res

    simple = omod is None and not (clamp and is_float) and place is None and not keep_hi and not wide
    view = {"f32": np.uint32, "f16": np.uint16, "i16": np.uint16}.get(dst_type)
    if simple and dpp is None:
        return _fast_run(fn, [plain_reader(ins, src_pos + i, i, t) for i, t in enumerate(src_types)],
                         setter, view)
    if simple:   # DPP on src0: its reader also yields the lanes to write
        r0, rest = readers[0], [plain_reader(ins, src_pos + i, i, t) for i, t in enumerate(src_types)][1:]

        def run_dpp(m, w):
            v0, mask = r0(w)
            res = fn(v0, *[r(w) for r in rest])
            setter(w, res if view is None else res.view(view), mask)
        return run_dpp

    def run_general(m, w):
        mask = w.exec_mask()
        vals = []
        for r in readers:
            v, mk = r(w)
            if mk is not None:
                mask = mk
            vals.append(v)
        res = post(fn(*vals))
        if wide:
            setter(w, split64(res.view(np.uint64)), mask)
            return
        raw = from_type(res, dst_type)
        if keep_hi:
            old = old_get(w)
            if dst_hi:
                raw = (old & np.uint32(0xFFFF)) | (raw << np.uint32(16))
            else:
                raw = (old & np.uint32(0xFFFF0000)) | raw
        if place is not None:
            raw = place(raw, old_get(w))
        setter(w, raw, mask)
    return run_general
