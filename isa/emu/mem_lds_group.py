"""ds_read_b* / ds_write_b* and ds_read2* / ds_write2* (dword-sized elements) for a group of waves at one pc (isa.emu.pool):
the lane addresses, the bounds and alignment test and the dword indices of every member in one
NumPy operation over [n_members, 64]; then per member, in wave-slot order, exactly what the
per-wave handler (isa.emu.mem_lds) does after that: the LDS-DMA pending test and the issue of its
own AsyncOp on its own workgroup's LDS (lgkm queue, landing), the race detector recording a
workgroup's run of members in one test (isa.emu.lds ``touch_reads`` / ``touch_writes``, equal to
one ``touch`` per member in order); the members' ops land as one record (isa.emu.pending
``Record``), one gather or scatter per workgroup run. A member with a
partial EXEC, an address at or past the allocation's limit (clamped, isa.emu.lds) or an unaligned
one sends the whole group through the per-wave handler (same results, same errors, same order). With a trace on, members step per wave (the trace
annotates each wave's record with its bank conflicts).
"""
from __future__ import annotations

import numpy as np

from . import lds_pool
from .pending import LDS, AsyncOp, Record


def _ordered(g) -> list:
    """Members in the order of their rows in ``g.V[g.sel]`` (wave slots ascending)."""
    return sorted(g.members, key=lambda w: w.wg_slot)


def _per_wave(fn, members) -> None:
    for w in members:
        fn(w.mach, w)


def _issue_members(m, members, dws, make_op, write: bool, apply_run) -> None:
    """Each member issues its own op (``make_op(w, dw)``, no apply of its own) on its own
    workgroup's LDS, as a part of one record (isa.emu.pending ``Record``) that lands every
    member's memory side at once (``apply_run(run_members, rows)`` per workgroup run: the members
    of one workgroup, in order, and their rows of ``dws``). The race detector records the
    members after they issued, every workgroup's run in one test (isa.emu.lds_pool, equal to
    Lds.touch_reads / touch_writes per run in order).
    With an LDS-DMA in flight in a workgroup its members issue and are recorded one by one, as
    per wave (each with its own op and apply), so the DMA test of the next member comes after the
    previous member's record (the same first error)."""
    runs: list = []
    touches: list = []
    rec = Record(m, LDS, None, 1 + int(m._rnd() * m.latency[LDS]))
    ops: list = []
    start = 0
    for k, w in enumerate(members):
        mm = w.mach
        lds = mm.lds
        dw = dws[k]
        op = make_op(w, dw)
        if lds.dma_owner is not None:       # the same for all members of mm (none issue a DMA)
            lds.check_dma_pending(mm, w, dw, write=write)
            one = [w]
            op.apply = lambda one=one, k=k: apply_run(one, dws[k:k + 1])
            mm.issue(w, op)
            start = k + 1
            continue
        rec.add(w, op)
        ops.append(op)
        if k + 1 == len(members) or members[k + 1].mach is not mm:
            if lds.multi:
                touches.append((mm, ops, dws[start:k + 1]))
            runs.append((members[start:k + 1], start, k + 1))
            ops = []
            start = k + 1
    if touches:       # every workgroup's run in one test (isa.emu.lds_pool), in member order
        (lds_pool.touch_writes if write else lds_pool.touch_reads)(touches)
    if runs:
        def apply():
            for run, a, b in runs:
                apply_run(run, dws[a:b])
        rec.apply = apply
        rec.push()


def group_read(ins, fn, r: int, off, acc, regs, vdst):
    """Group form of a plain dword-sized ds_read (``fn``: its per-wave handler)."""
    file_v = vdst.file == "v"
    d, n = vdst.index, acc.nreg
    span = acc.span
    dw_offs = acc.dw_offs
    single = acc.single

    def gfn(m, g):
        members = _ordered(g)
        if not g.full_exec():
            return _per_wave(fn, members)
        addr = g.V[g.sel, r] + off                 # uint32 [n_members, 64], as per wave
        limit = members[0].mach.lds.limit         # one launch: every workgroup's LDS is as big
        if int(addr.max()) + span > limit or (addr & 3).any():
            return _per_wave(fn, members)
        base = addr >> 2
        if single:
            dws = base + dw_offs[0]       # int64 (dw_offs is): fancy indexing takes intp fastest
        else:
            dws = (base[:, :, None] + dw_offs).reshape(len(members), -1)

        def make_op(w, dw):
            return AsyncOp(w, LDS, regs, None, w.pc, ins, lds_dw=dw)

        def apply_run(run, rows):
            u32 = run[0].mach.lds.buf32
            slots = [w.wg_slot for w in run]
            F[slots, d:d + n] = u32[rows].reshape(len(run), -1, n).transpose(0, 2, 1)
        F = g.V if file_v else g.A
        _issue_members(m, members, dws, make_op, False, apply_run)
    gfn.trace_per_wave = True
    return gfn


def group_write(ins, fn, r: int, off, acc, srcs):
    """Group form of a plain dword-sized ds_write or ds_write2 (``fn``: its per-wave handler);
    ``srcs``: the data registers, (first VGPR/AGPR, count) per element run, in element order."""
    span = acc.span
    dw_offs = acc.dw_offs
    single = acc.single
    srcs = [(reg.file == "v", reg.index, k) for reg, k in srcs]

    def gfn(m, g):
        members = _ordered(g)
        if not g.full_exec():
            return _per_wave(fn, members)
        addr = g.V[g.sel, r] + off
        limit = members[0].mach.lds.limit
        if int(addr.max()) + span > limit or (addr & 3).any():
            return _per_wave(fn, members)
        base = addr >> 2
        parts = [(g.V if file_v else g.A)[g.sel, s:s + k] for file_v, s, k in srcs]
        rows = parts[0] if len(parts) == 1 else np.concatenate(parts, axis=1)   # [n, nreg, 64]
        if single:
            dws = base + dw_offs[0]       # int64 (dw_offs is): fancy indexing takes intp fastest
            vals = rows[:, 0].copy()
        else:
            dws = (base[:, :, None] + dw_offs).reshape(len(members), -1)
            vals = rows.transpose(0, 2, 1).reshape(len(members), -1).copy()

        def make_op(w, dw):
            return AsyncOp(w, LDS, (), None, w.pc, ins, lds_dw=dw, lds_write=True)
        order = {id(w): k for k, w in enumerate(members)}

        def apply_run(run, rows):
            k = order[id(run[0])]
            run[0].mach.lds.buf32[rows] = vals[k:k + len(run)]
        _issue_members(m, members, dws, make_op, True, apply_run)
    gfn.trace_per_wave = True
    return gfn
