"""Operand I/O of the ALU semantics: read and write SGPRs, VGPRs, AGPRs, special registers, immediates.

Two layers. The plain functions of the interface (``read_scalar``, ``write_scalar``, ``read_vector``,
``write_vector``, ``imm_for_type``) for occasional use, and accessor factories (``scalar_getter``,
``scalar_setter``, ``vector_getter``, ``vector_setter``) that resolve an operand once at bind time and
return a closure, so a bound instruction touches no Python dispatch on operand kind per step.
``alu`` registers the ALU binders in their format's registry (isa.emu.registry).

Register layout (EMU_INTERFACE.md): ``w.sgpr`` uint32[108] with vcc_lo/hi at 106/107, ``w.vgpr`` and
``w.agpr`` uint32[256, 64], EXEC as a Python int (written through ``w.set_exec``), ``w.m0``, ``w.scc``.
"""
from __future__ import annotations

import struct
from collections.abc import Callable

import numpy as np

from ..errors import IsaError
from ..instr import Instr
from ..operands import Imm, Label, Reg, Special
from .mem_common import APERTURE_OPERANDS
from .registry import binder

# IEEE results (inf, NaN, denormals) are the semantics being emulated, not errors: the ALU modules run
# with NumPy's floating-point error reporting off for the importing thread (a per-instruction
# np.errstate would cost more than the arithmetic). Set once here, at import of the ALU package.
np.seterr(all="ignore")

VCC_LO = 106
M32 = 0xFFFFFFFF
M64 = 0xFFFFFFFFFFFFFFFF


class AluError(IsaError):
    """Base error of the ALU semantics."""


class AluOperandError(AluError):
    """An operand the ALU cannot read or write in the position it has (names operand and instruction)."""


class AluModifierError(AluError):
    """A modifier value outside what the hardware encodes (names modifier, value and the limit)."""


# ---------------------------------------------------------------------------------------------------
# Immediates. AMD CDNA3 ISA guide, "Scalar/vector operand encodings": integer inline constants are
# their two's-complement value (sign-extended to 64 bits for 64-bit operands); inline floats are
# given in the operand's own format; a 32-bit literal is zero-extended for unsigned 64-bit operands,
# sign-extended for signed ones, and is the high half of an f64 (LLVM AMDGPUAsmParser
# addLiteralImmOperand: "Val << 32" for FP64 operands).
# ---------------------------------------------------------------------------------------------------
TYPES = ("b32", "u32", "i32", "f32", "b16", "u16", "i16", "f16", "bf16", "b64", "u64", "i64", "f64")
WIDE = frozenset(("b64", "u64", "i64", "f64"))


def imm_for_type(imm: Imm, typ: str) -> int:
    """Bit pattern of ``imm`` as an operand of type ``typ`` (32 bits, or 64 for 64-bit types)."""
    val = imm.value
    if typ not in TYPES:
        raise AluOperandError(f"operand type {typ!r} is not one of {TYPES}")
    if isinstance(val, float):
        if typ in WIDE:
            return struct.unpack("<Q", struct.pack("<d", val))[0]
        if typ in ("f16", "b16", "u16", "i16"):
            return int(np.array(val, np.float16).view(np.uint16))
        if typ == "bf16":
            return struct.unpack("<I", struct.pack("<f", val))[0] >> 16
        return struct.unpack("<I", struct.pack("<f", val))[0]
    if typ in WIDE:
        if imm.is_inline or typ == "i64":
            return (val if val < (1 << 31) else val - (1 << 32)) & M64
        if typ == "f64":
            return (val & M32) << 32
        return val & M32
    return val & M32


# ---------------------------------------------------------------------------------------------------
# Scalar side.
# ---------------------------------------------------------------------------------------------------
_SPECIAL_SGPR = {"vcc": VCC_LO, "vcc_lo": VCC_LO, "vcc_hi": VCC_LO + 1}


def _sgpr_index(op) -> int | None:
    if isinstance(op, Reg) and op.file == "s":
        return op.index
    if isinstance(op, Special) and op.name in _SPECIAL_SGPR:
        return _SPECIAL_SGPR[op.name]
    return None


def scalar_getter(op, width: int = 1, typ: str | None = None) -> Callable[[object], int]:
    """A function ``w -> int`` reading ``op`` (``width`` dwords) as an unsigned integer."""
    if _MODE.group:
        raise GroupUnsupported(f"scalar read of {op} (one value per wave)")
    if typ is None:
        typ = "b64" if width == 2 else "b32"
    if isinstance(op, Imm):
        bits = imm_for_type(op, typ)
        return lambda w: bits
    idx = _sgpr_index(op)
    if idx is not None:
        if width == 1:
            return lambda w: int(w.sgpr[idx])
        if width == 2:
            return lambda w: int(w.sgpr[idx]) | (int(w.sgpr[idx + 1]) << 32)
        raise AluOperandError(f"scalar read of {op} with width {width}: only 1 or 2 dwords")
    if isinstance(op, Special):
        name = op.name
        if name == "exec":
            return (lambda w: w.exec) if width == 2 else (lambda w: w.exec & M32)
        if name == "exec_lo":
            return lambda w: w.exec & M32
        if name == "exec_hi":
            return lambda w: w.exec >> 32
        if name == "m0":
            return lambda w: w.m0 & M32
        if name == "scc":
            return lambda w: w.scc
        if name.startswith("src_") and name.endswith(("_base", "_limit")):
            # aperture registers (isa.emu.mem_flat): 64-bit values; LLVM reads them as s[n:n+1]
            if name in APERTURE_OPERANDS and width == 2:
                value = APERTURE_OPERANDS[name]
                return lambda w: value
            raise AluOperandError(f"{name} read as a {32 * width}-bit scalar: only the 64-bit "
                                  "read (s_mov_b64) is modelled")
    raise AluOperandError(f"cannot read {op!r} as a scalar source")


def scalar_setter(op, width: int = 1) -> Callable[[object, int], None]:
    """A function ``(w, value)`` writing ``value`` (an int, ``width`` dwords) to ``op``."""
    if _MODE.group:
        raise GroupUnsupported(f"scalar write of {op} (one value per wave)")
    idx = _sgpr_index(op)
    if idx is not None:
        if width == 1:
            def set1(w, value):
                w.sgpr[idx] = value & M32
            return set1
        if width == 2:
            def set2(w, value):
                w.sgpr[idx] = value & M32
                w.sgpr[idx + 1] = (value >> 32) & M32
            return set2
        raise AluOperandError(f"scalar write of {op} with width {width}: only 1 or 2 dwords")
    if isinstance(op, Special):
        name = op.name
        if name == "exec":
            if width == 2:
                return lambda w, value: w.set_exec(value & M64)
            return lambda w, value: w.set_exec((w.exec & ~M32 & M64) | (value & M32))
        if name == "exec_lo":
            return lambda w, value: w.set_exec((w.exec & ~M32 & M64) | (value & M32))
        if name == "exec_hi":
            return lambda w, value: w.set_exec((w.exec & M32) | ((value & M32) << 32))
        if name == "m0":
            def setm0(w, value):
                w.m0 = value & M32
            return setm0
    raise AluOperandError(f"cannot write {op!r} as a scalar destination")


def read_scalar(w, op, width: int = 1) -> int:
    return scalar_getter(op, width)(w)


def write_scalar(w, op, value: int, width: int = 1) -> None:
    scalar_setter(op, width)(w, value)


# ---------------------------------------------------------------------------------------------------
# Vector side. Values are uint32[64] (width 1) or uint32[width, 64]; 64-bit helpers give uint64[64].
# ---------------------------------------------------------------------------------------------------
def _file(w, f: str) -> np.ndarray:
    return w.vgpr if f == "v" else w.agpr


def _const_row(bits: int) -> np.ndarray:
    row = np.full(64, bits, np.uint32)
    row.flags.writeable = False
    return row


def vector_getter(op, width: int = 1, typ: str | None = None) -> Callable[[object], np.ndarray]:
    """A function ``w -> uint32[64]`` (or ``[width, 64]``) reading ``op``; scalars broadcast.

    Returned arrays may be views of the register file or shared read-only broadcasts: callers must
    not modify them in place."""
    if _MODE.group:
        return _group_getter(op, width, typ)
    if isinstance(op, Reg) and op.file in ("v", "a"):
        f, i = op.file, op.index
        if width == 1:
            if f == "v":
                return lambda w: w.vgpr[i]
            return lambda w: w.agpr[i]
        if f == "v":
            return lambda w: w.vgpr[i:i + width]
        return lambda w: w.agpr[i:i + width]
    if isinstance(op, Label):
        raise AluOperandError(f"label {op} is not a vector source")
    if width == 1 and isinstance(op, Imm):
        row = _const_row(imm_for_type(op, typ or "b32") & M32)
        return lambda w: row
    sget = scalar_getter(op, min(width, 2), typ)
    if width == 1:
        cache = [-1, None]

        def get1(w):
            val = sget(w)
            if val != cache[0]:
                cache[0], cache[1] = val, _const_row(val)
            return cache[1]
        return get1
    if width == 2:
        def get2(w):
            val = sget(w)
            out = np.empty((2, 64), np.uint32)
            out[0] = val & M32
            out[1] = val >> 32
            return out
        return get2
    raise AluOperandError(f"vector read of scalar operand {op} with width {width} > 2")


def vector_getter64(op, typ: str = "b64") -> Callable[[object], np.ndarray]:
    """A function ``w -> uint64[64]`` reading a 64-bit operand (register pair or scalar/constant)."""
    if _MODE.group:
        return _group_getter64(op, typ)
    if isinstance(op, Reg) and op.file in ("v", "a"):
        i = op.index
        if op.file == "v":
            return lambda w: w.vgpr[i:i + 2].T.copy().view(np.uint64)[:, 0]
        return lambda w: w.agpr[i:i + 2].T.copy().view(np.uint64)[:, 0]
    sget = scalar_getter(op, 2, typ)
    return lambda w: np.full(64, sget(w), np.uint64)


def split64(vals: np.ndarray) -> np.ndarray:
    """uint64[..., 64] -> uint32[2, ..., 64] (lo row, hi row): a view (no np.moveaxis: its axis
    checks cost more than the data movement here)."""
    v = np.ascontiguousarray(vals, np.uint64)
    nd = v.ndim
    return v.view(np.uint32).reshape(v.shape + (2,)).transpose((nd,) + tuple(range(nd)))


def vector_setter(op, width: int = 1) -> Callable[[object, np.ndarray, np.ndarray], None]:
    """A function ``(w, values, mask)`` writing lanes where ``mask`` (bool[64]) is set."""
    if _MODE.group:
        return _group_setter(op, width)
    if not (isinstance(op, Reg) and op.file in ("v", "a")):
        raise AluOperandError(f"cannot write {op!r} as a vector destination")
    if op.count < width:
        raise AluOperandError(f"destination {op} is narrower than {width} dwords")
    f, i = op.file, op.index
    if width == 1:
        if f == "v":
            return lambda w, vals, mask: np.copyto(w.vgpr[i], vals, casting="unsafe", where=mask)
        return lambda w, vals, mask: np.copyto(w.agpr[i], vals, casting="unsafe", where=mask)
    if f == "v":
        return lambda w, vals, mask: np.copyto(w.vgpr[i:i + width], vals, casting="unsafe", where=mask)
    return lambda w, vals, mask: np.copyto(w.agpr[i:i + width], vals, casting="unsafe", where=mask)


def read_vector(w, op, width: int = 1) -> np.ndarray:
    return vector_getter(op, width)(w)


def write_vector(w, op, values, mask=None) -> None:
    vals = np.asarray(values)
    width = 1 if vals.ndim <= 1 else vals.shape[0]
    vector_setter(op, width)(w, vals, w.exec_mask() if mask is None else mask)


# ---------------------------------------------------------------------------------------------------
# Group binding (isa.emu.group): the same binders, bound with these factories, run one instruction for
# a group of waves of a workgroup that sit at the same pc. ``g`` is an isa.emu.group.WaveGroup:
# ``g.V``/``g.A`` the workgroup's [n_waves, 256, 64] VGPR/AGPR files, ``g.S`` its [n_waves, 108]
# SGPRs, ``g.sel`` the member waves (a slice, or an index array), ``g.exec_mask()`` their
# [n_members, 64] EXEC lanes. Sources read as [n_members, 64] (SGPRs and constants broadcast as
# [n_members, 1] / [64]), so a lane-wise op computes every member at once. Operand forms with one
# value per wave (scalar reads and writes: SCC, VCC, EXEC, SGPR destinations) raise GroupUnsupported
# at bind time and the instruction steps wave by wave.
# ---------------------------------------------------------------------------------------------------
class GroupUnsupported(AluError):
    """The instruction's operand form cannot be bound for a group of waves (it steps per wave)."""


class _Mode:
    group = False


_MODE = _Mode()


def group_mode() -> bool:
    """Is a group binding in progress (binders with per-lane or per-wave code refuse it)?"""
    return _MODE.group


class group_binding:
    """``with group_binding(): binder(ins)`` binds for a WaveGroup instead of a Wave."""

    def __enter__(self):
        self._old = _MODE.group
        _MODE.group = True
        return self

    def __exit__(self, *exc):
        _MODE.group = self._old
        return False


def _group_getter(op, width: int, typ: str | None):
    if isinstance(op, Reg) and op.file in ("v", "a"):
        i = op.index
        if width == 1:
            if op.file == "v":
                return lambda g: g.V[g.sel, i]
            return lambda g: g.A[g.sel, i]
        j = i + width
        # [width, n_members, 64], as a wave's [width, 64] gains the member axis after the row axis
        if op.file == "v":
            return lambda g: g.V[g.sel, i:j].swapaxes(0, 1)
        return lambda g: g.A[g.sel, i:j].swapaxes(0, 1)
    if width == 1 and isinstance(op, Imm):
        row = _const_row(imm_for_type(op, typ or "b32") & M32)
        return lambda g: row
    idx = _sgpr_index(op)
    if width == 1 and idx is not None:
        return lambda g: g.S[g.sel, idx][:, None]
    raise GroupUnsupported(f"vector read of {op!r} (width {width}) for a group")


_LANE_BITS = np.uint64(1) << np.arange(64, dtype=np.uint64)


def group_mask_getter(op):
    """For a group: ``g -> bool [n_members, 64]`` of a 64-bit lane-mask source (an SGPR pair, VCC or
    a constant), each member's own value."""
    idx = _sgpr_index(op)
    if idx is not None:
        def get(g):
            s = g.S[g.sel]
            v = s[:, idx].astype(np.uint64) | (s[:, idx + 1].astype(np.uint64) << np.uint64(32))
            return (v[:, None] & _LANE_BITS) != 0
        return get
    if isinstance(op, Imm):
        row = (np.uint64(imm_for_type(op, "b64")) & _LANE_BITS) != 0
        return lambda g: row
    raise GroupUnsupported(f"lane mask {op!r} for a group")


def group_mask_setter(op):
    """For a group: ``(g, bools [n_members, 64])`` writing each member's 64-bit lane mask to an SGPR
    pair or VCC (bit i = lane i)."""
    idx = _sgpr_index(op)
    if idx is None:
        raise GroupUnsupported(f"lane-mask destination {op!r} for a group")

    def put(g, bools):
        words = np.packbits(bools, axis=-1, bitorder="little").view(np.uint32)   # [n, 2]
        g.S[g.sel, idx:idx + 2] = words
    return put


def _group_getter64(op, typ: str):
    if isinstance(op, Reg) and op.file in ("v", "a"):
        i = op.index
        if op.file == "v":
            return lambda g: np.ascontiguousarray(g.V[g.sel, i:i + 2].swapaxes(1, 2)).view(np.uint64)[..., 0]
        return lambda g: np.ascontiguousarray(g.A[g.sel, i:i + 2].swapaxes(1, 2)).view(np.uint64)[..., 0]
    if isinstance(op, Imm):
        row = np.full(64, imm_for_type(op, typ), np.uint64)
        row.flags.writeable = False
        return lambda g: row
    raise GroupUnsupported(f"64-bit vector read of {op!r} for a group")


def _group_setter(op, width: int):
    if not (isinstance(op, Reg) and op.file in ("v", "a")):
        raise GroupUnsupported(f"cannot write {op!r} for a group")
    if op.count < width:
        raise AluOperandError(f"destination {op} is narrower than {width} dwords")
    i, v = op.index, op.file == "v"
    if width == 1:
        def set1(g, vals, mask):
            f = g.V if v else g.A
            sel = g.sel
            if g.is_slice:
                np.copyto(f[sel, i], vals, casting="unsafe", where=mask)
            else:
                cur = f[sel, i]
                np.copyto(cur, vals, casting="unsafe", where=mask)
                f[sel, i] = cur
        return set1
    j = i + width

    def setn(g, vals, mask):
        # vals [width, n_members, 64] (or a broadcastable form), mask [n_members, 64]
        f = g.V if v else g.A
        sel = g.sel
        vals = np.broadcast_to(np.asarray(vals), (width, g.n, 64)).swapaxes(0, 1)
        if g.is_slice:
            np.copyto(f[sel, i:j], vals, casting="unsafe", where=mask[:, None, :])
        else:
            cur = f[sel, i:j]
            np.copyto(cur, vals, casting="unsafe", where=mask[:, None, :])
            f[sel, i:j] = cur
    return setn


# ---------------------------------------------------------------------------------------------------
# Registration of the ALU semantics: a binder turns one Instr into a closure ``(m, w) -> None``,
# registered in its format's registry (isa.emu.registry: SOP for s_*, VOP for v_*; a duplicate is an
# error). ``isa.emu.catalog.execute`` runs one instruction on a wave (tests, debugging).
# ---------------------------------------------------------------------------------------------------
Bound = Callable[[object, object], None]
Binder = Callable[[Instr], Bound]


def alu(*mnemonics: str, group: bool | None = None):
    """Decorator registering a binder ``(ins) -> (m, w) -> None`` for the mnemonics. Built only from
    this module's operand factories, such a binder can also bind for a group of waves (VALU); a
    scalar binder says so with ``group=True`` (it returns a group form under ``group_mode()``,
    isa.emu.salu_group)."""
    if group is None:
        group = all(m.startswith("v_") for m in mnemonics)
    return binder(*mnemonics, group=group)


def register(names, make: Callable[[str], Binder]) -> None:
    """Register ``make(name)`` as the binder of every mnemonic in ``names``."""
    for name in names:
        alu(name)(make(name))


def ops(ins: Instr, n: int) -> tuple:
    """The first ``n`` operands of ``ins``, with a typed error when there are fewer."""
    if len(ins.operands) < n:
        raise AluOperandError(f"{ins} has {len(ins.operands)} operands, {ins.op} needs {n}")
    return ins.operands[:n]
