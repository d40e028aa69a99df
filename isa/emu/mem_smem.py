"""Scalar memory: s_load_dword{,x2,x4,x8,x16} and s_buffer_load_dword{...}.

Both count in lgkmcnt and may land out of order (isa.emu.pending). s_load: address = sbase
(64-bit SGPR pair) + offset (immediate or SGPR, plus an ``offset:`` modifier), low 2 bits
ignored (dword aligned, CDNA3 ISA SMEM). s_buffer_load: base/num_records from the V# in
s[sbase:sbase+3]; dwords at or beyond num_records read 0 (buffer range rule, cdna-facts section 5).
"""
from __future__ import annotations

import numpy as np

from ..operands import Imm, Reg
from .errors import GlobalOutOfBoundsError
from .global_sync import check_read, sync_of
from .mem_common import mod_int, scalar_operand_value
from .pending import SMEM, AsyncOp
from .registry import binder
from .regkeys import reg_keys

WIDTHS = {"dword": 1, "dwordx2": 2, "dwordx4": 4, "dwordx8": 8, "dwordx16": 16}


def smem_offset(w, ins) -> int:
    """Byte offset of a scalar memory access: the offset modifier plus the soffset operand."""
    off = mod_int(ins, "offset")
    if len(ins.operands) > 2:
        op = ins.operands[2]
        if isinstance(op, (Imm, Reg)) or getattr(op, "name", "") in ("m0", "off"):
            off += scalar_operand_value(w, op)
    return off


def _bind(ins, ndw, buffered):
    sdst, sbase = ins.operands[:2]
    regs = reg_keys(sdst)
    d = sdst.index

    acquire = bool(ins.has("glc"))      # a synchronising read (isa.emu.global_sync)

    def fn(m, w):
        off = smem_offset(w, ins)
        if buffered:
            s = w.sgpr[sbase.index:sbase.index + 4]
            base = int(s[0]) | ((int(s[1]) & 0xFFFF) << 32)
            num_records = int(s[2])
        else:
            base = int(w.sgpr[sbase.index]) | (int(w.sgpr[sbase.index + 1]) << 32)
            num_records = None
        addr = (base + off) & ~3
        n_in = ndw if num_records is None else max(0, min(ndw, (num_records - (off & ~3) + 3) // 4))
        if n_in:
            try:
                m.mem.find(addr, 4 * n_in, ins.op)
            except GlobalOutOfBoundsError as e:
                raise m.error(GlobalOutOfBoundsError, e.what, w) from None
        mem = m.mem
        if n_in and not acquire and getattr(mem, "sync", None) is not None:
            check_read(m, w, mem.locate(np.array([addr], np.uint64), 4 * n_in, ins.op), 4 * n_in)
        sync = sync_of(m) if acquire and n_in else None
        seen = sync.read(m, w, mem.locate(np.array([addr], np.uint64), 4 * n_in, ins.op),
                         4 * n_in) if sync is not None else None

        def apply():
            if seen is not None:
                seen()
            vals = np.zeros(ndw, np.uint32)
            if n_in:
                vals[:n_in] = mem.read_scalar_bytes(addr, 4 * n_in).view(np.uint32)
            w.sgpr[d:d + ndw] = vals
        m.issue(w, AsyncOp(w, SMEM, regs, apply, w.pc, ins))
    return fn


for _sfx, _n in WIDTHS.items():
    binder("s_load_" + _sfx)(lambda ins, n=_n: _bind(ins, n, False))
    binder("s_buffer_load_" + _sfx)(lambda ins, n=_n: _bind(ins, n, True))


@binder("s_dcache_wb", "s_dcache_inv")
def bind_dcache(ins):
    """Scalar cache write-back / invalidate: nothing to move, but an SMEM op in lgkmcnt."""
    def fn(m, w):
        m.issue(w, AsyncOp(w, SMEM, (), None, w.pc, ins))
    return fn


@binder("s_memtime", "s_memrealtime")
def bind_memtime(ins):
    """64-bit time stamp into an SGPR pair (SMEM, lgkmcnt); the emulator's step counter."""
    sdst = ins.operands[0]
    d = sdst.index

    def fn(m, w):
        t = m.now

        def apply():
            w.sgpr[d] = t & 0xFFFFFFFF
            w.sgpr[d + 1] = (t >> 32) & 0xFFFFFFFF
        m.issue(w, AsyncOp(w, SMEM, reg_keys(sdst), apply, w.pc, ins))
    return fn
