"""FLAT loads and stores through generic pointers: a lane whose 64-bit address lies in the LDS
(shared) aperture reads or writes the workgroup's LDS, every other lane global memory.

Facts: AMDGPUUsage "Address Spaces"/"Flat scratch": a flat address in the shared aperture is
``aperture_base + LDS offset`` (the LDS offset is the low 32 bits); LLVM 22 casts an LDS pointer to
a generic one with ``s_mov_b64 s[n:n+1], src_shared_base`` and takes the aperture's high dword
(gfx9+). The aperture base itself is chosen by the driver; the emulator uses the value ROCm's KFD
programs for 64-bit gfx9 processes (``MAKE_LDS_APP_BASE_V9`` = 1 << 48; private = 2 << 48), far
above the emulator's global allocations (isa.emu.memory, from 4 GiB upward).

Model: the whole access is one VMEM op (it counts in vmcnt; hardware also counts FLAT in lgkmcnt,
and LLVM waits for both). The LDS part is range-checked against the workgroup's allocation and
takes part in the LDS race detector like a ds access. Not modelled: FLAT atomics and scratch
(private aperture) accesses through generic pointers - such lanes are an EmulatorError.
"""
from __future__ import annotations

import numpy as np

from .errors import EmulatorError
from .lds import dwords_of
from .mem_common import (
    APERTURE_OPERANDS,  # noqa: F401  (re-exported: the aperture operands live in mem_common)
    PRIVATE_APERTURE_BASE,
    SHARED_APERTURE_BASE,
    byte_range,
    bytes_to_dwords,
    lanes_to_bytes,
    mod_int,
    regfile,
)
from .mem_global import _addr, _atomic_rw, _bind_atomic, _bind_load, _bind_store, _locate
from .mem_ops import ATOMIC_NAMES, F64_ATOMICS, LOADS, STORES
from .pending import VM, AsyncOp
from .registry import FLAT, RW_SETS
from .regkeys import reg_keys

_HI_SHARED = np.uint64(SHARED_APERTURE_BASE >> 32)
_HI_PRIVATE = np.uint64(PRIVATE_APERTURE_BASE >> 32)


def _split(m, w, ins, addr, lanes, nbytes, write=False):
    """(lds lane mask, int64 LDS byte indices [n_lds, nbytes], LDS dwords in range) of a flat
    access; LDS-aperture bytes beyond the allocation read 0 / are dropped (isa.emu.lds clamp)."""
    hi = addr >> np.uint64(32)
    if (hi == _HI_PRIVATE).any():
        raise m.error(EmulatorError, f"{ins.op}: a lane addresses the private (scratch) aperture "
                      "through a generic pointer; scratch is not modelled", w)
    lds = hi == _HI_SHARED
    idx = (addr[lds] & np.uint64(0xFFFFFFFF)).astype(np.int64)[:, None] + byte_range(nbytes)
    mapped, ok = m.lds.clamp(m, w, idx, nbytes, f"flat access of {nbytes} bytes through the LDS "
                             "aperture", write)
    return lds, mapped, dwords_of(idx) if ok is None else idx[ok] >> 2


def _bind_flat_load(ins, nbytes, signed):
    vdst, vaddr = ins.operands[:2]
    offset = mod_int(ins, "offset")
    ndw = (nbytes + 3) // 4
    regs, d = reg_keys(vdst), vdst.index
    global_only = _bind_load(ins, nbytes, signed, True)

    def fn(m, w):
        lanes = np.flatnonzero(w.exec_mask())
        addr = _addr(w, vaddr, None, offset, lanes)
        if not ((addr >> np.uint64(32)) >= _HI_SHARED).any():
            return global_only(m, w)
        lds, idx, ldw = _split(m, w, ins, addr, lanes, nbytes)
        gl, ll = lanes[~lds], lanes[lds]
        gloc = _locate(m, w, addr[~lds], nbytes, ins.op) if len(gl) else None
        f, mem, data = regfile(w, vdst), m.mem, m.lds.buf

        def apply():
            if len(gl):
                f[d:d + ndw, gl] = bytes_to_dwords(mem.gather(gloc, len(gl), nbytes), signed).T
            f[d:d + ndw, ll] = bytes_to_dwords(data[idx], signed).T
        m.issue(w, AsyncOp(w, VM, regs, apply, w.pc, ins, lds_dw=ldw, lds_write=False))
    return fn


def _bind_flat_store(ins, nbytes):
    vaddr, vdata = ins.operands[:2]
    offset = mod_int(ins, "offset")
    ndw = (nbytes + 3) // 4
    global_only = _bind_store(ins, nbytes, True)

    def fn(m, w):
        lanes = np.flatnonzero(w.exec_mask())
        addr = _addr(w, vaddr, None, offset, lanes)
        if not ((addr >> np.uint64(32)) >= _HI_SHARED).any():
            return global_only(m, w)
        lds, idx, ldw = _split(m, w, ins, addr, lanes, nbytes, write=True)
        payload = lanes_to_bytes(regfile(w, vdata)[vdata.index:vdata.index + ndw], lanes, nbytes)
        gpay, lpay = payload[~lds], payload[lds]
        gloc = _locate(m, w, addr[~lds], nbytes, ins.op) if (~lds).any() else None
        if gloc is not None:
            m.claim_global_writes(w, gloc, nbytes)
        mem, data = m.mem, m.lds.buf

        def apply():
            if gloc is not None:
                mem.scatter(gloc, gpay)
            data[idx] = lpay
        m.issue(w, AsyncOp(w, VM, (), apply, w.pc, ins, lds_dw=ldw, lds_write=True))
    return fn


for _sfx, (_nb, _sg) in LOADS.items():
    FLAT.binder("flat_load_" + _sfx)(lambda ins, nb=_nb, sg=_sg: _bind_flat_load(ins, nb, sg))
for _sfx, _nb in STORES.items():
    FLAT.binder("flat_store_" + _sfx)(lambda ins, nb=_nb: _bind_flat_store(ins, nb))
# FLAT atomics: global memory only (an LDS-aperture lane is refused by mem_global._bind_atomic)
for _name in ATOMIC_NAMES:
    FLAT.binder("flat_atomic_" + _name)(lambda ins, n=_name: _bind_atomic(ins, n, True))
    if _name.endswith("_x2") or _name in F64_ATOMICS:
        RW_SETS["flat_atomic_" + _name] = _atomic_rw
