"""ds_read_b* / ds_write_b* (one element, dword sizes) for a group of waves at one pc (isa.emu.pool):
the lane addresses, the bounds and alignment test and the dword indices of every member in one
NumPy operation over [n_members, 64]; then per member, in wave-slot order, exactly what the
per-wave handler (isa.emu.mem_lds) does after that: the LDS-DMA pending test and the issue of its
own AsyncOp on its own workgroup's LDS (lgkm queue, landing), the race detector recording a
workgroup's run of members in one test (isa.emu.lds ``touch_reads`` / ``touch_writes``, equal to
one ``touch`` per member in order). A member with a
partial EXEC, an address at or past the allocation's limit (clamped, isa.emu.lds) or an unaligned
one sends the whole group through the per-wave handler (same results, same errors, same order). With a trace on, members step per wave (the trace
annotates each wave's record with its bank conflicts).
"""
from __future__ import annotations

from .pending import LDS, AsyncOp


def _ordered(g) -> list:
    """Members in the order of their rows in ``g.V[g.sel]`` (wave slots ascending)."""
    return sorted(g.members, key=lambda w: w.wg_slot)


def _per_wave(fn, members) -> None:
    for w in members:
        fn(w.mach, w)


def _issue_members(members, dws, make_op, write: bool) -> None:
    """Each member issues its own op (``make_op(k, w, dw)``) on its own workgroup's LDS; the race
    detector records a workgroup's run of members in one test (Lds.touch_reads / touch_writes)
    after they issued. With an LDS-DMA in flight each op is recorded at its issue, as per wave,
    so the DMA test of the next member comes after it (the same first error)."""
    ops: list = []
    start = 0
    for k, w in enumerate(members):
        mm = w.mach
        lds = mm.lds
        dw = dws[k]
        op = make_op(k, w, dw)
        if lds.dma_owner is not None:       # the same for all members of mm (none issue a DMA)
            lds.check_dma_pending(mm, w, dw, write=write)
            mm.issue(w, op)
            start = k + 1
            continue
        mm.issue(w, op, touch=False)
        ops.append(op)
        if k + 1 == len(members) or members[k + 1].mach is not mm:
            if lds.multi:
                touch = lds.touch_writes if write else lds.touch_reads
                touch(mm, ops, dws[start:k + 1])
            ops = []
            start = k + 1


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

        def make_op(k, w, dw):
            f = w.vgpr if file_v else w.agpr
            u32 = w.mach.lds.buf32

            def apply(f=f, u32=u32, dw=dw):
                f[d:d + n, :] = u32[dw].reshape(-1, n).T
            return AsyncOp(w, LDS, regs, apply, w.pc, ins, lds_dw=dw)
        _issue_members(members, dws, make_op, False)
    gfn.trace_per_wave = True
    return gfn


def group_write(ins, fn, r: int, off, acc, s: int, ndw: int, vdata):
    """Group form of a plain dword-sized ds_write (``fn``: its per-wave handler)."""
    span = acc.span
    dw_offs = acc.dw_offs
    single = acc.single
    file_v = vdata.file == "v"

    def gfn(m, g):
        members = _ordered(g)
        if not g.full_exec():
            return _per_wave(fn, members)
        addr = g.V[g.sel, r] + off
        limit = members[0].mach.lds.limit
        if int(addr.max()) + span > limit or (addr & 3).any():
            return _per_wave(fn, members)
        base = addr >> 2
        rows = (g.V if file_v else g.A)[g.sel, s:s + ndw]       # [n_members, ndw, 64]
        if single:
            dws = base + dw_offs[0]       # int64 (dw_offs is): fancy indexing takes intp fastest
            vals = rows[:, 0].copy()
        else:
            dws = (base[:, :, None] + dw_offs).reshape(len(members), -1)
            vals = rows.transpose(0, 2, 1).reshape(len(members), -1).copy()

        def make_op(k, w, dw):
            u32 = w.mach.lds.buf32

            def apply(u32=u32, dw=dw, v=vals[k]):
                u32[dw] = v
            return AsyncOp(w, LDS, (), apply, w.pc, ins, lds_dw=dw, lds_write=True)
        _issue_members(members, dws, make_op, True)
    gfn.trace_per_wave = True
    return gfn
