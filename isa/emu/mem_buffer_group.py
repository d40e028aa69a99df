"""buffer_load_* / buffer_store_* (not LDS-DMA, not atomic) for a group of waves at one pc
(isa.emu.pool): the common access of isa.emu.mem_buffer ``_fast_where`` (raw V#, ``offen``
without ``idxen``, soffset an SGPR or a constant, each lane wholly in range or wholly out of it)
located for every member in one NumPy operation over [n_members, 64], and issued as one batched
record (isa.emu.pending ``Record``: each member's own op in its own vm queue, one landing) whose
landing moves every member's data with one gather / scatter.

The address and range check are the per-wave ones (isa.emu.buffer_addr, raw form; CDNA3 ISA
guide, "Buffer Instructions": base + soffset + VGPR offset + inst_offset, out of range when
offset + size > num_records, soffset not part of the check): an out-of-range lane of a load reads
0, of a store writes nothing. Every other case goes through the per-wave handler, member after
member in wave-slot order (the same results, the same errors in the same order): a partial EXEC,
members whose V# differ, a V# with add_tid or swizzle or one that does not decode, a lane partly
in range, addresses outside one allocation (GlobalOutOfBoundsError then comes from the per-wave
path), offsets not aligned to the access (the byte path). The plain-read check and the write
claims of isa.emu.global_sync run per member, in member order, before the record issues (each
member's claim reads only its own wave's queue; each claim comes right before its member's op
issues, as per wave). Acquire loads (``sc1``) are not bound for groups. LDS-DMA loads
(``group_load_lds``) write the loaded dwords to each member's own LDS when the record lands.
"""
from __future__ import annotations

import bisect

import numpy as np

from . import buffer_addr
from .errors import EmulatorError
from .global_sync import check_read, sync_of
from .operand_io import GroupUnsupported
from .pending import VM, AsyncOp, Record

_DWORDS = {k: np.arange(k, dtype=np.int64) for k in range(1, 5)}


def _ordered(g) -> list:
    """Members in the order of their rows in ``g.V[g.sel]`` (wave slots ascending)."""
    return sorted(g.members, key=lambda w: w.wg_slot)


def _per_wave(fn, members) -> None:
    for w in members:
        fn(w.mach, w)


NOWHERE = (None, None, None, None, None)


def _where(m, g, members, sh):
    """The members' access as one location: (uint8 buffer, int64 [n, 64] byte offsets, the
    buffer's uint32 / uint16 view, int64 [n, 64, k] element indices, bool [n, 64] in-range lanes
    or None when all are); ``NOWHERE`` when no lane is in range (a V# with num_records 0, as
    prefetches past the end use); or None (the per-wave path)."""
    if not g.full_exec():
        return None
    S = g.S[g.sel]
    q = sh.srsrc.index
    rsrc = S[:, q:q + 4]
    if (rsrc != rsrc[0]).any():
        return None
    try:
        srd = buffer_addr.decode_srd(members[0], sh.srsrc)
    except EmulatorError:
        return None
    if srd.add_tid or srd.swizzle:
        return None
    v = g.V[g.sel, sh.v_off].astype(np.int64)        # [n, 64] VGPR offsets
    nbytes = sh.nbytes
    nr = srd.num_records
    keep = None
    vmax = int(v.max())
    if vmax + sh.inst_off + nbytes > nr:
        o = v + sh.inst_off
        gone = o + int(sh.dw_end[0]) > nr         # first dword out: every dword out
        keep = ~gone
        if (keep & (o + nbytes > nr)).any():
            return None                           # a lane partly in range
        if not keep.any():
            return NOWHERE                        # every lane out of range: no memory touched
        live = v[keep]
        vmin, vmax = int(live.min()), int(live.max())
    else:
        vmin = int(v.min())
    if sh.s_off < 0:
        soff = np.full((len(members), 1), sh.s_const, np.int64)
        s_lo = s_hi = sh.s_const
    else:
        col = S[:, sh.s_off]
        soff = col[:, None].astype(np.int64)
        s_lo, s_hi = int(col.min()), int(col.max())
    c = srd.base + sh.inst_off
    # every in-range lane's address lies in [c + s_lo + vmin, c + s_hi + vmax + nbytes): one
    # allocation holding that span holds them all (else the per-wave path locates each wave)
    mem = m.mem
    i = bisect.bisect_right(mem.bases, c + s_lo + vmin) - 1
    if i < 0 or c + s_hi + vmax + nbytes > mem.ends[i]:
        return None
    off = v + (soff + (c - mem.bases[i]))             # [n, 64] byte offsets in allocation i
    if keep is not None:
        off[~keep] = 0                            # never touched: masked at landing / dropped
    if nbytes == 2:
        buf = mem.bufs16[i]
        if buf is None or (off & 1).any():
            return None
        idx = (off >> 1)[:, :, None]
    else:
        buf = mem.bufs32[i]
        if nbytes & 3 or buf is None or (off & 3).any():
            return None
        idx = (off >> 2)[:, :, None]
        if nbytes > 4:
            idx = idx + _DWORDS[nbytes >> 2]
    return mem.bufs[i], off, buf, idx, keep


def _member_loc(buf8, off, keep, k):
    """Member ``k``'s location as isa.emu.global_sync takes it: (uint8 buffer, byte offsets)."""
    return buf8, (off[k] if keep is None else off[k][keep[k]])


def _issue(m, members, regs, apply, ins, claim=None, nbytes=0) -> None:
    """One record for the members' ops (isa.emu.pending ``Record``), each member's global write
    claim (``claim[k]``: its location) right before its own op issues, as per wave."""
    rec = Record(m, VM, apply, 1 + int(m._rnd() * m.latency[VM]))
    pc = members[0].pc
    if claim is not None:
        sync = sync_of(m)
        if sync is None or sync.write_plain_group([(w.mach, w, claim[k]) for k, w in
                                                    enumerate(members)], ins, nbytes):
            claim = None        # no race checking, or every member's write recorded at once
    for k, w in enumerate(members):
        if claim is not None:
            w.mach.claim_global_writes(w, claim[k], nbytes)
        rec.add(w, AsyncOp(w, VM, regs, None, pc, ins))
    rec.push()


def group_load(ins, fn, sh, vdst, regs, signed: bool):
    """Group form of a plain buffer load (``fn``: its per-wave handler)."""
    if sh.v_off is None or sh.s_off is None or ins.has("sc1"):
        raise GroupUnsupported(f"'{ins}': not the common buffer access for a group")
    d = vdst.index
    ndw = (sh.nbytes + 3) // 4
    file_v = vdst.file == "v"
    nbytes = sh.nbytes

    def gfn(m, g):
        members = _ordered(g)
        loc = _where(m, g, members, sh)
        if loc is None:
            return _per_wave(fn, members)
        buf8, off, buf, idx, keep = loc
        f = g.V if file_v else g.A
        sel = g.sel
        if buf8 is None:                             # out-of-range lanes read 0
            def zero():
                f[sel, d:d + ndw] = 0
            return _issue(m, members, regs, zero, ins)
        sync = sync_of(m)
        if sync is not None and sync.checks_reads:
            for k, w in enumerate(members):
                check_read(w.mach, w, _member_loc(buf8, off, keep, k), nbytes)
        gone = None if keep is None else ~keep

        def apply():
            got = buf[idx]                           # [n, 64, ndw] (uint16 halves: [n, 64, 1])
            if signed:
                got = got.view(np.int16).astype(np.int32).view(np.uint32)
            if gone is not None:
                got[gone] = 0
            f[sel, d:d + ndw] = got.transpose(0, 2, 1)
        _issue(m, members, regs, apply, ins)
    return gfn


def group_store(ins, fn, sh, vdata):
    """Group form of a plain buffer store (``fn``: its per-wave handler)."""
    if sh.v_off is None or sh.s_off is None:
        raise GroupUnsupported(f"'{ins}': not the common buffer access for a group")
    s = vdata.index
    ndw = (sh.nbytes + 3) // 4
    file_v = vdata.file == "v"
    nbytes = sh.nbytes

    def gfn(m, g):
        members = _ordered(g)
        loc = _where(m, g, members, sh)
        if loc is None:
            return _per_wave(fn, members)
        buf8, off, buf, idx, keep = loc
        if buf8 is None:                             # out-of-range lanes write nothing
            return _issue(m, members, (), None, ins)
        rows = (g.V if file_v else g.A)[g.sel, s:s + ndw]          # [n, ndw, 64]
        data = rows.transpose(0, 2, 1).astype(buf.dtype)           # a copy (short: low 16 bits)
        if keep is not None:
            idx, data = idx[keep], data[keep]                       # out-of-range lanes write nothing

        def apply():
            buf[idx] = data
        claim = [_member_loc(buf8, off, keep, k) for k in range(len(members))]
        _issue(m, members, (), apply, ins, claim, nbytes)
    return gfn


def group_load_lds(ins, fn, sh, lds_stride: int):
    """Group form of an LDS-DMA buffer load (``buffer_load_dword(x3, x4) ... lds``; ``fn``: its
    per-wave handler): LDS address M0[17:0] + inst_offset + lane * ``lds_stride`` (CDNA3 ISA
    guide, "Buffer to LDS" / cdna-facts section 6), the loaded dwords written there when the
    record lands. Per member, in member order, what the per-wave handler does: the plain-read
    check, the LDS-DMA test against its own uncovered ds ops (Lds.dma_issue), the issue of its
    op and its race-detector record. A member whose LDS lanes reach past the allocation (masked
    off per lane, isa.emu.lds) or whose M0 is not dword-aligned sends the group per wave."""
    if sh.v_off is None or sh.s_off is None or sh.nbytes & 3:
        raise GroupUnsupported(f"'{ins}': not the common LDS-DMA access for a group")
    ndw = sh.nbytes // 4
    lane_dw = (np.arange(64, dtype=np.int64) * (lds_stride // 4))[:, None] + _DWORDS[ndw]   # [64, ndw]
    span = 4 * int(lane_dw.max()) + 4

    def gfn(m, g):
        members = _ordered(g)
        base = [(w.m0 & 0x3FFFF) + sh.inst_off for w in members]
        lds0 = members[0].mach.lds            # one launch: every workgroup's LDS is as big
        if any(b & 3 or b + span > lds0.limit for b in base):
            return _per_wave(fn, members)
        loc = _where(m, g, members, sh)
        if loc is None:
            return _per_wave(fn, members)
        buf8, off, buf, idx, keep = loc
        sync = sync_of(m)
        plain = buf8 is not None and sync is not None and sync.checks_reads
        rec = Record(m, VM, None, 1 + int(m._rnd() * m.latency[VM]))
        pc = members[0].pc
        dws = []
        for k, w in enumerate(members):
            mm = w.mach
            if plain:
                check_read(mm, w, _member_loc(buf8, off, keep, k), sh.nbytes)
            dw = (lane_dw + (base[k] >> 2)).ravel()
            op = AsyncOp(w, VM, (), None, pc, ins, lds_dw=dw, lds_write=True, dma=True)
            mm.lds.dma_issue(mm, w, op)
            rec.add(w, op)
            if mm.lds.multi:
                mm.lds.touch(mm, op)
            dws.append((mm.lds.buf32, dw))
        gone = None if keep is None else ~keep

        def apply():
            if buf8 is None:                  # no lane in range: zeros land in LDS
                for u32, dw in dws:
                    u32[dw] = 0
                return
            got = buf[idx]                    # [n, 64, ndw] uint32
            if gone is not None:
                got[gone] = 0
            for k, (u32, dw) in enumerate(dws):
                u32[dw] = got[k].ravel()
        rec.apply = apply
        rec.push()
    return gfn
