"""SCRATCH loads and stores: per-lane private memory (the kernel's private segment).

Facts (CDNA3 ISA "Scratch" FLAT segment; AMDGPUUsage "Private Segment" / architected flat scratch
on gfx940+): the address of lane l is the 32-bit sum of the SGPR ``saddr`` (or 0 with ``off``), the
lane's VGPR ``vaddr`` (or 0 with ``off``) and the signed 13-bit instruction offset; it is an offset
into that lane's own private memory, of ``private_segment_fixed_size`` bytes (kernel descriptor),
so lanes never see each other's data (the hardware's per-lane interleaving is invisible to the
program). clang-22 uses these for private arrays it cannot keep in registers.

Model: one uint8[64, size] buffer per wave, filled with seeded garbage at first use (hardware scratch
is not initialised); accesses outside [0, size) are ScratchOutOfBoundsError. Like other VMEM ops
the access is an AsyncOp counted in vmcnt, landing in issue order. ``size`` is the Machine's
``scratch_bytes`` (launch: the descriptor's private_segment_fixed_size; run_program: its argument).
A dynamic stack (uses_dynamic_stack) is not modelled beyond the fixed size.
"""
from __future__ import annotations

import numpy as np

from ..operands import Reg
from .errors import ScratchOutOfBoundsError
from .mem_common import byte_range, bytes_to_dwords, lanes_to_bytes, mod_int, regfile
from .mem_ops import LOADS, STORES
from .pending import VM, AsyncOp
from .registry import binder
from .regkeys import reg_keys


def _buffer(m, w) -> np.ndarray:
    store = m.__dict__.setdefault("scratch", {})
    buf = store.get(w.wave_id)
    if buf is None:
        size = int(getattr(m, "scratch_bytes", 0))
        g = np.random.default_rng(m.rng.getrandbits(64))
        buf = store[w.wave_id] = g.integers(0, 256, (64, size), dtype=np.uint8)
    return buf


def _offsets(m, w, ins, vaddr, saddr, offset, lanes, nbytes) -> np.ndarray:
    """int64 [n_lanes, nbytes] byte offsets into the lanes' private memory (bounds-checked)."""
    base = int(w.sgpr[saddr.index]) if isinstance(saddr, Reg) else 0
    if isinstance(vaddr, Reg):
        v = w.vgpr[vaddr.index][lanes].astype(np.int64)
    else:
        v = np.zeros(len(lanes), np.int64)
    off = (v + base + offset) & 0xFFFFFFFF
    size = _buffer(m, w).shape[1]
    if len(off) and (int(off.min()) < 0 or int(off.max()) + nbytes > size):
        bad = int(off.max())
        lane = int(lanes[int(np.argmax(off))])
        raise m.error(ScratchOutOfBoundsError,
                      f"{ins.op} of {nbytes} bytes at private offset {bad} (lane {lane}) is outside "
                      f"the {size}-byte private segment (descriptor private_segment_fixed_size)", w)
    return off[:, None] + byte_range(nbytes)


def _bind_load(ins, nbytes, signed):
    vdst, vaddr, saddr = ins.operands[:3]
    offset = mod_int(ins, "offset")
    ndw = (nbytes + 3) // 4
    regs, d = reg_keys(vdst), vdst.index

    def fn(m, w):
        lanes = np.flatnonzero(w.exec_mask())
        idx = _offsets(m, w, ins, vaddr, saddr, offset, lanes, nbytes)
        buf, f = _buffer(m, w), regfile(w, vdst)

        def apply():
            f[d:d + ndw, lanes] = bytes_to_dwords(buf[lanes[:, None], idx], signed).T
        m.issue(w, AsyncOp(w, VM, regs, apply, w.pc, ins))
    return fn


def _bind_store(ins, nbytes):
    vaddr, vdata, saddr = ins.operands[:3]
    offset = mod_int(ins, "offset")
    ndw = (nbytes + 3) // 4

    def fn(m, w):
        lanes = np.flatnonzero(w.exec_mask())
        idx = _offsets(m, w, ins, vaddr, saddr, offset, lanes, nbytes)
        data = lanes_to_bytes(regfile(w, vdata)[vdata.index:vdata.index + ndw], lanes, nbytes)
        buf = _buffer(m, w)

        def apply():
            buf[lanes[:, None], idx] = data
        m.issue(w, AsyncOp(w, VM, (), apply, w.pc, ins))
    return fn


for _sfx, (_nb, _sg) in LOADS.items():
    binder("scratch_load_" + _sfx)(lambda ins, nb=_nb, sg=_sg: _bind_load(ins, nb, sg))
for _sfx, _nb in STORES.items():
    binder("scratch_store_" + _sfx)(lambda ins, nb=_nb: _bind_store(ins, nb))
