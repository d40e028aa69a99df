"""Static LDS byte ranges of a kernel's LDS accesses, for the mutation proof's predictor
(``asmgen.fuzz.predict.publish_matters``): which bytes, over all lanes of all waves of the
workgroup, a ds read or write or an LDS-DMA can touch.

``Ranges`` is an interval abstraction of the 32-bit register values, stepped along the same walk
the predictor makes (prologue, loop bodies twice, epilogue). A value is ``(lo, hi)`` (inclusive,
unsigned) or unknown (absent). At entry only VGPR v0 is known: the work-item IDs, packed on
gfx90a and later (LLVM AMDGPUUsage "Initial Kernel Execution State": X in bits 9:0, Y in 19:10, Z
in 29:20); asmgen launches one-dimensional workgroups (``driver.py``: block ``[threads, 1, 1]``),
so v0 is the X id, 0..threads-1. Constants (``s_mov_b32 s31, 0x2400``), copies (a buffer
rotation ``s_mov_b32 s1, s31``) and the integer ALU ops that build LDS addresses (add, shift,
multiply, and, or, bit-field extract, lshl_add, mad_u32_u24, cndmask as the union of its sources)
are followed; every other write makes its destinations unknown, as does any op with modifiers
(DPP, SDWA, op_sel). A VALU write under an EXEC that may be partial joins the old value (the
inactive lanes keep it).

Access ranges (AMD CDNA3/CDNA4 ISA guides, "Data Share Operations" and "Global/Buffer Load to
LDS"): a DS op touches ``vaddr + offset`` .. + its size (read2/write2: ``offset0``/``offset1`` in
element units, x64 for st64); an LDS-DMA writes ``M0[17:0] + inst_offset + lane * stride``
(stride 16 for a 16-byte load, else 4), as the emulator's ``mem_buffer``/``mem_global`` read the
guide. An unknown address is the whole LDS (``None``): it overlaps everything, so the predictor
falls back to "may race" and no real race is lost to a missing rule.
"""
from __future__ import annotations

import functools

from isa.instr import Instr
from isa.operands import Imm, Reg, Special

from ..passes.effects import effects, map_operands, operand_units
from ..target import Target

MASK32 = (1 << 32) - 1
Interval = tuple[int, int]
EXEC = (("x", "exec_lo", 0), ("x", "exec_hi", 0))

# ds read2/write2: (element bytes, offset scale) as in the ISA guide's DS_READ2* / DS_WRITE2*
PAIRED = {"ds_read2_b32": (4, 1), "ds_read2_b64": (8, 1), "ds_read2st64_b32": (4, 64),
          "ds_read2st64_b64": (8, 64), "ds_write2_b32": (4, 1), "ds_write2_b64": (8, 1),
          "ds_write2st64_b32": (4, 64), "ds_write2st64_b64": (8, 64)}


def _norm(lo: int, hi: int) -> Interval | None:
    """``[lo, hi]`` as a 32-bit value: as is, shifted down once when all of it wrapped, else
    unknown (the interval straddles the wrap)."""
    if lo < 0 or hi < lo:
        return None
    if hi <= MASK32:
        return lo, hi
    if lo > MASK32 and hi <= 2 * MASK32 + 1:
        return lo - (1 << 32), hi - (1 << 32)
    return None


def _bits(x: int) -> int:
    """All-ones mask covering ``x`` (the bound of an or / xor of values up to x)."""
    return (1 << x.bit_length()) - 1


def _add(a, b):
    return _norm(a[0] + b[0], a[1] + b[1])


def _sub(a, b):
    return _norm(a[0] - b[1], a[1] - b[0])


def _shl(a, s):
    return _norm(a[0] << s[0], a[1] << s[1]) if s[1] < 32 else None


def _shr(a, s):
    return (a[0] >> s[1], a[1] >> s[0]) if s[1] < 32 else None


def _mul(a, b):
    return _norm(a[0] * b[0], a[1] * b[1])


def _mul24(a, b):
    return _mul(a, b) if a[1] < 1 << 24 and b[1] < 1 << 24 else None


def _and(a, b):
    return 0, min(a[1], b[1])


def _or(a, b):
    if a[0] == a[1] and b[0] == b[1]:
        return a[0] | b[0], a[0] | b[0]
    return max(a[0], b[0]), _bits(max(a[1], b[1]))


def _xor(a, b):
    if a[0] == a[1] and b[0] == b[1]:
        return a[0] ^ b[0], a[0] ^ b[0]
    return 0, _bits(max(a[1], b[1]))


def _join(a, b):
    return min(a[0], b[0]), max(a[1], b[1])


def _bfe(a, off, width):
    if off[0] != off[1] or width[0] != width[1]:
        return None
    return 0, min(a[1] >> off[0], (1 << (width[0] & 31)) - 1)


def _chain(f, g):
    return lambda a, b, c: None if (x := f(a, b)) is None else g(x, c)


def _lshl_add(n, a, b):
    return _chain(_shl, _add)(a, (n, n), b)


# mnemonic -> (function of the source intervals in operand order); sources after the
# destination(s). VOP2 "rev" forms take the shift amount first (ISA guide, VOP2 opcodes).
OPS = {
    "s_mov_b32": lambda a: a, "v_mov_b32": lambda a: a, "s_movk_i32": lambda a: a,
    "v_readfirstlane_b32": lambda a: a,
    "s_add_u32": _add, "s_add_i32": _add, "v_add_u32": _add, "v_add_co_u32": _add,
    "s_sub_u32": _sub, "s_sub_i32": _sub, "v_sub_u32": _sub, "v_sub_co_u32": _sub,
    "v_subrev_u32": lambda a, b: _sub(b, a), "v_subrev_co_u32": lambda a, b: _sub(b, a),
    "s_lshl_b32": _shl, "v_lshlrev_b32": lambda s, a: _shl(a, s),
    "s_lshr_b32": _shr, "v_lshrrev_b32": lambda s, a: _shr(a, s),
    "s_mul_i32": _mul, "v_mul_lo_u32": _mul, "v_mul_u32_u24": _mul24,
    "s_and_b32": _and, "v_and_b32": _and, "s_or_b32": _or, "v_or_b32": _or,
    "s_xor_b32": _xor, "v_xor_b32": _xor,
    "v_cndmask_b32": _join, "s_cselect_b32": _join,
    "v_bfe_u32": _bfe,
    "v_lshl_add_u32": lambda a, s, c: _chain(_shl, _add)(a, s, c),
    "v_add_lshl_u32": lambda a, b, s: _chain(_add, _shl)(a, b, s),
    "v_lshl_or_b32": lambda a, s, c: _chain(_shl, _or)(a, s, c),
    "v_and_or_b32": lambda a, b, c: _chain(_and, _or)(a, b, c),
    "v_add3_u32": lambda a, b, c: _chain(_add, _add)(a, b, c),
    "v_or3_b32": lambda a, b, c: _chain(_or, _or)(a, b, c),
    "v_mad_u32_u24": lambda a, b, c: _chain(_mul24, _add)(a, b, c),
    **{f"s_lshl{n}_add_u32": functools.partial(_lshl_add, n) for n in (1, 2, 3, 4)},
}
# ops that compute with their first N sources only (v_cndmask's lane mask selects between them)
LEADING_SOURCES = {"v_cndmask_b32": 2}


def _unit(o) -> tuple | None:
    if isinstance(o, Reg) and o.count == 1 or isinstance(o, Special) and o.name == "m0":
        return operand_units(o)[0]
    return None


class Ranges:
    """Interval state of the registers along a walk (module docstring)."""

    def __init__(self, target: Target, threads: int | None) -> None:
        self.target = target
        self.val: dict[tuple, Interval] = {}
        if threads:
            self.val[("v", -1, 0)] = (0, threads - 1)
        self.full_exec = True

    def value(self, o) -> Interval | None:
        if isinstance(o, Imm):
            return (o.value & MASK32,) * 2 if isinstance(o.value, int) else None
        u = _unit(o)
        return self.val.get(u) if u is not None else None

    def step(self, ins: Instr) -> None:
        """Apply ``ins`` to the state."""
        e = effects(self.target, ins)
        new = None
        fn = OPS.get(ins.op)
        if fn is not None and not ins.mods and ins.encoding not in ("dpp", "sdwa") and e.dst_ops:
            srcs = [self.value(ins.operands[p]) for p in e.src_ops]
            srcs = srcs[:LEADING_SOURCES.get(ins.op, len(srcs))]
            if all(s is not None for s in srcs):
                try:
                    new = fn(*srcs)
                except TypeError:        # an operand count this table does not describe
                    new = None
        dst = _unit(ins.operands[e.dst_ops[0]]) if e.dst_ops else None
        old = self.val.get(dst) if dst is not None else None
        for u in e.writes:
            self.val.pop(u, None)
        if any(u in EXEC for u in e.writes):
            self.full_exec = (ins.op == "s_mov_b64" and isinstance(ins.operands[1], Imm)
                              and ins.operands[1].value == -1)
        if new is None or dst is None:
            return
        if dst[0] == "v" and not self.full_exec:     # inactive lanes keep the old value
            if old is None:
                return
            new = _join(old, new)
        self.val[dst] = new

    def access(self, ins: Instr) -> Interval | None:
        """Bytes (inclusive interval) an LDS access of ``ins`` may touch over all lanes of all
        waves, or None when unknown (then it may touch any byte)."""
        e = effects(self.target, ins)
        size = e.spec.mem_bytes or 0
        if not size:
            return None
        if e.lds_dma:
            m0 = self.val.get(("x", "m0", 0))
            if m0 is None or m0[1] > 0x3FFFF:
                return None
            base = m0[0] + int(ins.mod("offset", 0) or 0), m0[1] + int(ins.mod("offset", 0) or 0)
            stride = 16 if size > 4 else 4
            return base[0], base[1] + 63 * stride + size - 1
        spec_at = map_operands(e.spec, ins)
        addr = next((ins.operands[p] for p in e.src_ops
                     if e.spec.operands[spec_at[p]].name == "vaddr"), None)
        a = self.value(addr) if addr is not None else None
        if a is None:
            return None
        if ins.op in PAIRED:
            elem, scale = PAIRED[ins.op]
            offs = [int(ins.mod(k, 0) or 0) * elem * scale for k in ("offset0", "offset1")]
            return a[0] + min(offs), a[1] + max(offs) + elem - 1
        off = int(ins.mod("offset", 0) or 0)
        return a[0] + off, a[1] + off + size - 1


def overlap(a: Interval | None, b: Interval | None) -> bool:
    """May two access ranges share a byte (an unknown one overlaps everything)?"""
    return a is None or b is None or (a[0] <= b[1] and b[0] <= a[1])
