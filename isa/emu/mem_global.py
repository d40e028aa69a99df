"""GLOBAL and FLAT instructions: global_/flat_ loads, stores, atomics, and global_load_lds_* (DMA).

Address (CDNA3 ISA, FLAT/GLOBAL): with ``saddr`` off, vaddr is a 64-bit VGPR pair; with an SGPR
pair saddr, address = saddr + zero-extended 32-bit vaddr; plus the signed 13-bit inst offset
(cdna-facts section 5). Every active lane's access must lie inside one registered allocation
(GlobalOutOfBoundsError otherwise). FLAT loads/stores whose lanes point into the LDS aperture are
isa.emu.mem_flat's (it registers every FLAT form, the atomics through ``_bind_atomic`` here: global
only). Atomics
return the pre-op value into vdst when ``sc0`` is set (the "rtn" spec form); lanes apply in lane
order; 32-bit, _x2 (64-bit) and cmpswap forms. D16 loads merge 16 bits into one half of vdst at
write-back.
"""
from __future__ import annotations

import numpy as np

from .errors import GlobalOutOfBoundsError
from .global_sync import check_read, sync_of
from .lds import dwords_of
from .mem_common import byte_range, bytes_to_dwords, is_off, lanes_to_bytes, mod_int, regfile
from .mem_ops import ATOMIC_NAMES, ATOMIC_OPS, ATOMIC_OPS64, F64_ATOMICS, LOADS, STORES
from .pending import VM, AsyncOp
from .registry import RW_SETS, binder
from .regkeys import reg_keys

M32 = 0xFFFFFFFF


def _addr(w, vaddr, saddr, offset, lanes) -> np.ndarray:
    if saddr is None or is_off(saddr):
        lo = w.vgpr[vaddr.index][lanes].astype(np.uint64)
        hi = w.vgpr[vaddr.index + 1][lanes].astype(np.uint64)
        a = lo | (hi << np.uint64(32))
    else:
        base = int(w.sgpr[saddr.index]) | (int(w.sgpr[saddr.index + 1]) << 32)
        a = np.uint64(base) + w.vgpr[vaddr.index][lanes].astype(np.uint64)
    if offset > 0:
        return a + np.uint64(offset)
    if offset < 0:
        return a - np.uint64(-offset)
    return a


def _locate(m, w, addr, nbytes, what):
    try:
        loc = m.mem.locate(addr, nbytes, what)
    except GlobalOutOfBoundsError as e:
        raise m.error(GlobalOutOfBoundsError, e.what, w) from None
    if "_load" in what:           # a read of another workgroup's write must be ordered after it
        check_read(m, w, loc, nbytes)
    return loc


def _bind_load(ins, nbytes, signed, flat):
    if flat:
        vdst, vaddr = ins.operands[:2]
        saddr = None
    else:
        vdst, vaddr, saddr = ins.operands[:3]
    offset = mod_int(ins, "offset")
    ndw = (nbytes + 3) // 4
    regs, d = reg_keys(vdst), vdst.index
    what = ins.op

    acquire = bool(ins.has("sc1"))     # agent-scope "load atomic" (isa.emu.global_sync)

    def fn(m, w):
        lanes = w.exec_lanes()
        addr = _addr(w, vaddr, saddr, offset, lanes)
        loc = _locate(m, w, addr, nbytes, what)
        f, mem, n = regfile(w, vdst), m.mem, len(addr)
        sync = sync_of(m) if acquire and n else None
        seen = sync.read(m, w, loc, nbytes) if sync is not None else None

        def apply():
            if seen is not None:
                seen()
            f[d:d + ndw, lanes] = bytes_to_dwords(mem.gather(loc, n, nbytes), signed).T
        m.issue(w, AsyncOp(w, VM, regs, apply, w.pc, ins))
    return fn


def _bind_store(ins, nbytes, flat, hi=False):
    """Stores; ``hi``: the _d16_hi forms store bits 31:16 (short) / 23:16 (byte) of the VGPR."""
    if flat:
        vaddr, vdata = ins.operands[:2]
        saddr = None
    else:
        vaddr, vdata, saddr = ins.operands[:3]
    offset = mod_int(ins, "offset")
    ndw = (nbytes + 3) // 4
    what = ins.op

    def fn(m, w):
        lanes = w.exec_lanes()
        addr = _addr(w, vaddr, saddr, offset, lanes)
        loc = _locate(m, w, addr, nbytes, what)
        rows = regfile(w, vdata)[vdata.index:vdata.index + ndw]
        data = lanes_to_bytes(rows >> np.uint32(16) if hi else rows, lanes, nbytes)
        mem = m.mem
        m.claim_global_writes(w, loc, nbytes)
        m.issue(w, AsyncOp(w, VM, (), lambda: mem.scatter(loc, data), w.pc, ins))
    return fn


def _bind_lds_dma(ins, nbytes):
    vaddr, saddr = ins.operands[:2]
    offset = mod_int(ins, "offset")
    stride = 16 if nbytes > 4 else 4
    what = ins.op

    def fn(m, w):
        lanes = np.flatnonzero(w.exec_mask())
        # cdna-facts section 6: the inst offset applies to both the global and the LDS address
        idx = ((w.m0 & 0x3FFFF) + offset + lanes.astype(np.int64) * stride)[:, None] + byte_range(nbytes)
        keep = m.lds.dma_lanes(idx)
        if not keep.all():          # lanes whose LDS address is out of range are masked off (ISA 3.11)
            lanes, idx = lanes[keep], idx[keep]
        addr = _addr(w, vaddr, saddr, offset, lanes)
        _locate(m, w, addr, nbytes, what)
        mem, lds_data = m.mem, m.lds.buf

        def apply():
            lds_data[idx] = mem.read_lanes(addr, nbytes, what)
        op = AsyncOp(w, VM, (), apply, w.pc, ins, lds_dw=dwords_of(idx), lds_write=True, dma=True)
        m.lds.dma_issue(m, w, op)
        m.issue(w, op)
    return fn


def _bind_atomic(ins, name, flat):
    rtn = ins.has("sc0")
    ops = list(ins.operands)
    vdst = ops.pop(0) if rtn else None
    vaddr, vdata = ops[0], ops[1]
    saddr = None if flat else ops[2]
    offset = mod_int(ins, "offset")
    wide = name.endswith("_x2") or name in F64_ATOMICS
    base = name.removesuffix("_x2")
    nbytes = 8 if wide else 4
    # CDNA3 ISA FLAT_ATOMIC_CMPSWAP(_X2): src = DATA[0] (first dword/qword), cmp = DATA[1];
    # MEM = (MEM == cmp) ? src : MEM; returns the old value. LLVM 22 puts the new value in the
    # first register of the tuple and the compare value after it (checked on clang-22 output).
    cas = base == "cmpswap"
    fn_op = None if cas else (ATOMIC_OPS64 if wide else ATOMIC_OPS)[base]
    ndw = nbytes // 4
    regs = reg_keys(vdst) if rtn else ()
    dtype = np.uint64 if wide else np.uint32

    def fn(m, w):
        lanes = np.flatnonzero(w.exec_mask())
        addr = _addr(w, vaddr, saddr, offset, lanes)
        loc = _locate(m, w, addr, nbytes, ins.op)
        rows = regfile(w, vdata)[vdata.index:vdata.index + (2 * ndw if cas else ndw), lanes]
        vals = np.ascontiguousarray(rows.T).view(dtype)     # [n_lanes, 1 or 2] little-endian
        mem = m.mem
        # an atomic returning the old value is a synchronising read (isa.emu.global_sync)
        sync = sync_of(m) if len(lanes) else None
        seen = sync.read(m, w, loc, nbytes) if sync is not None and rtn else None
        m.claim_global_writes(w, loc, nbytes)

        def apply():
            if seen is not None:
                seen()
            old = np.empty(len(lanes), dtype)
            for j in range(len(lanes)):
                buf, off = mem.find(int(addr[j]), nbytes, ins.op)
                cur = buf[off:off + nbytes].view(dtype)
                old[j] = cur[0]
                if cas:
                    if int(cur[0]) == int(vals[j, 1]):
                        cur[0] = vals[j, 0]
                else:
                    cur[0] = fn_op(int(cur[0]), int(vals[j, 0]))
            if vdst is not None:
                rows = old.view(np.uint32).reshape(-1, ndw).T
                regfile(w, vdst)[vdst.index:vdst.index + ndw, lanes] = rows
        m.issue(w, AsyncOp(w, VM, regs, apply, w.pc, ins))
    return fn


def _atomic_rw(ins):
    """Register keys read/written by a FLAT/GLOBAL atomic (the spec table lacks the _x2 forms):
    with sc0 the first operand is the returned value, every other register operand is read."""
    ops = list(ins.operands)
    writes = list(reg_keys(ops.pop(0))) if ins.has("sc0") else []
    return [k for op in ops for k in reg_keys(op)], writes


def _bind_load_d16(ins, nbytes, signed, hi):
    """global_load_{ubyte,sbyte,short}_d16[_hi]: the loaded 8/16 bits (zero/sign-extended to 16)
    go into the low (or high) half of vdst; the other half keeps its value (gfx9 with
    d16-preserves-unused-bits; LLVM uses these forms only then, i.e. with sramecc off). The merge
    happens when the data is written back, in VMEM order, so the half kept is the register's
    value at landing (LLVM issues these right behind a load into the same VGPR without a wait)."""
    vdst, vaddr, saddr = ins.operands[:3]
    offset = mod_int(ins, "offset")
    regs, d = reg_keys(vdst), vdst.index
    keep = np.uint32(0x0000FFFF if hi else 0xFFFF0000)
    shift = np.uint32(16 if hi else 0)

    def fn(m, w):
        lanes = w.exec_lanes()
        addr = _addr(w, vaddr, saddr, offset, lanes)
        loc = _locate(m, w, addr, nbytes, ins.op)
        f, mem, n = regfile(w, vdst), m.mem, len(addr)

        def apply():
            v = bytes_to_dwords(mem.gather(loc, n, nbytes), signed)[:, 0] & np.uint32(0xFFFF)
            f[d, lanes] = (f[d, lanes] & keep) | (v << shift)
        m.issue(w, AsyncOp(w, VM, regs, apply, w.pc, ins))
    return fn


for _sfx, (_nb, _sg) in LOADS.items():
    binder("global_load_" + _sfx)(lambda ins, nb=_nb, sg=_sg: _bind_load(ins, nb, sg, False))
for _sfx, _nb in STORES.items():
    binder("global_store_" + _sfx)(lambda ins, nb=_nb: _bind_store(ins, nb, False))
for _sfx, _nb in (("dword", 4), ("ubyte", 1), ("sbyte", 1), ("ushort", 2), ("sshort", 2),
                  ("dwordx3", 12), ("dwordx4", 16)):
    binder("global_load_lds_" + _sfx)(lambda ins, nb=_nb: _bind_lds_dma(ins, nb))
for _name in ATOMIC_NAMES:
    binder("global_atomic_" + _name)(lambda ins, n=_name: _bind_atomic(ins, n, False))
    if _name.endswith("_x2") or _name in F64_ATOMICS:
        RW_SETS["global_atomic_" + _name] = _atomic_rw
for _sfx, _nb in (("byte", 1), ("short", 2)):
    binder(f"global_store_{_sfx}_d16_hi")(lambda ins, nb=_nb: _bind_store(ins, nb, False, True))
for _sfx, _nb, _sg in (("ubyte", 1, False), ("sbyte", 1, True), ("short", 2, False)):
    for _hi in (False, True):
        binder(f"global_load_{_sfx}_d16" + ("_hi" if _hi else ""))(
            lambda ins, nb=_nb, sg=_sg, hi=_hi: _bind_load_d16(ins, nb, sg, hi))
