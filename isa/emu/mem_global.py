"""GLOBAL and FLAT instructions: global_/flat_ loads, stores, atomics, and global_load_lds_* (DMA).

Address (CDNA3 ISA, FLAT/GLOBAL): with ``saddr`` off, vaddr is a 64-bit VGPR pair; with an SGPR
pair saddr, address = saddr + zero-extended 32-bit vaddr; plus the signed 13-bit inst offset
(cdna-facts section 5). Every active lane's access must lie inside one registered allocation
(GlobalOutOfBoundsError otherwise). FLAT addresses are treated as global (the LDS and scratch
apertures are not modelled). Atomics return the pre-op value into vdst when ``sc0`` is set
(the "rtn" spec form); lanes apply in lane order.
"""
from __future__ import annotations

import numpy as np

from .errors import GlobalOutOfBoundsError
from .lds import dwords_of
from .mem_buffer import LOADS, STORES
from .mem_common import byte_range, bytes_to_dwords, is_off, lanes_to_bytes, mod_int, regfile
from .pending import VM, AsyncOp
from .program import reg_keys
from .semantics import binder

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
        return m.mem.locate(addr, nbytes, what)
    except GlobalOutOfBoundsError as e:
        raise m.error(GlobalOutOfBoundsError, e.what, w) from None


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

    def fn(m, w):
        lanes = w.exec_lanes()
        addr = _addr(w, vaddr, saddr, offset, lanes)
        loc = _locate(m, w, addr, nbytes, what)
        f, mem, n = regfile(w, vdst), m.mem, len(addr)

        def apply():
            f[d:d + ndw, lanes] = bytes_to_dwords(mem.gather(loc, n, nbytes), signed).T
        m.issue(w, AsyncOp(w, VM, regs, apply, w.pc, ins))
    return fn


def _bind_store(ins, nbytes, flat):
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
        data = lanes_to_bytes(regfile(w, vdata)[vdata.index:vdata.index + ndw], lanes, nbytes)
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
        addr = _addr(w, vaddr, saddr, offset, lanes)
        _locate(m, w, addr, nbytes, what)
        # cdna-facts section 6: the inst offset applies to both the global and the LDS address
        idx = ((w.m0 & 0x3FFFF) + offset + lanes.astype(np.int64) * stride)[:, None] + byte_range(nbytes)
        m.lds.check_bounds(m, w, idx, f"LDS-DMA write of {nbytes} bytes")
        mem, lds_data = m.mem, m.lds.data

        def apply():
            lds_data[idx] = mem.read_lanes(addr, nbytes, what)
        op = AsyncOp(w, VM, (), apply, w.pc, ins, lds_dw=dwords_of(idx), lds_write=True, dma=True)
        m.lds.dma_issue(m, w, op)
        m.issue(w, op)
    return fn


def _s32(x: int) -> int:
    return x - (1 << 32) if x >> 31 else x


def _f32(x: int) -> float:
    return float(np.array([x], np.uint32).view(np.float32)[0])


def _f32bits(f: float) -> int:
    return int(np.array([f], np.float32).view(np.uint32)[0])


ATOMIC_OPS = {
    "add": lambda o, v: (o + v) & M32, "sub": lambda o, v: (o - v) & M32,
    "smin": lambda o, v: o if _s32(o) <= _s32(v) else v, "smax": lambda o, v: o if _s32(o) >= _s32(v) else v,
    "umin": min, "umax": max, "and": lambda o, v: o & v, "or": lambda o, v: o | v,
    "xor": lambda o, v: o ^ v, "swap": lambda o, v: v,
    "inc": lambda o, v: 0 if o >= v else o + 1, "dec": lambda o, v: v if (o == 0 or o > v) else o - 1,
    "add_f32": lambda o, v: _f32bits(np.float32(_f32(o)) + np.float32(_f32(v))),
}


def _bind_atomic(ins, name, flat):
    rtn = ins.has("sc0")
    ops = list(ins.operands)
    vdst = ops.pop(0) if rtn else None
    vaddr, vdata = ops[0], ops[1]
    saddr = None if flat else ops[2]
    offset = mod_int(ins, "offset")
    fn_op = ATOMIC_OPS[name]
    regs = reg_keys(vdst) if rtn else ()

    def fn(m, w):
        lanes = np.flatnonzero(w.exec_mask())
        addr = _addr(w, vaddr, saddr, offset, lanes)
        _locate(m, w, addr, 4, ins.op)
        vals = regfile(w, vdata)[vdata.index][lanes].copy()
        mem = m.mem

        def apply():
            old = np.empty(len(lanes), np.uint32)
            for j in range(len(lanes)):
                buf, off = mem.find(int(addr[j]), 4, ins.op)
                cur = buf[off:off + 4].view(np.uint32)
                old[j] = cur[0]
                cur[0] = fn_op(int(cur[0]), int(vals[j]))
            if vdst is not None:
                regfile(w, vdst)[vdst.index, lanes] = old
        m.issue(w, AsyncOp(w, VM, regs, apply, w.pc, ins))
    return fn


for _sfx, (_nb, _sg) in LOADS.items():
    binder("global_load_" + _sfx)(lambda ins, nb=_nb, sg=_sg: _bind_load(ins, nb, sg, False))
    binder("flat_load_" + _sfx)(lambda ins, nb=_nb, sg=_sg: _bind_load(ins, nb, sg, True))
for _sfx, _nb in STORES.items():
    binder("global_store_" + _sfx)(lambda ins, nb=_nb: _bind_store(ins, nb, False))
    binder("flat_store_" + _sfx)(lambda ins, nb=_nb: _bind_store(ins, nb, True))
for _sfx, _nb in (("dword", 4), ("ubyte", 1), ("sbyte", 1), ("ushort", 2), ("sshort", 2),
                  ("dwordx3", 12), ("dwordx4", 16)):
    binder("global_load_lds_" + _sfx)(lambda ins, nb=_nb: _bind_lds_dma(ins, nb))
for _name in ATOMIC_OPS:
    binder("global_atomic_" + _name)(lambda ins, n=_name: _bind_atomic(ins, n, False))
    binder("flat_atomic_" + _name)(lambda ins, n=_name: _bind_atomic(ins, n, True))
