"""MUBUF instructions: buffer_load_* / buffer_store_* through a 128-bit buffer resource (V#),
including LDS DMA (``lds`` modifier: global -> LDS at M0).

V# decoding, the address and the range check of every descriptor form (raw with any stride,
structured, swizzled, add_tid) are in isa.emu.buffer_addr. Out-of-range loads return 0, stores
are dropped (CK masks lanes with voffset 0x80000000). In-range addresses must fall inside an
allocation (GlobalOutOfBoundsError otherwise). LDS DMA (section 6): LDS address = M0 + inst_offset
+ lane_id * 4 (<= 4 B) or lane_id * 16 (x3/x4, gfx950); the loaded bytes are written there.
"""
from __future__ import annotations

import bisect

import numpy as np

from ..operands import Imm, Reg
from . import buffer_addr
from .errors import EmulatorError, GlobalOutOfBoundsError
from .global_sync import check_read, sync_of
from .lds import dwords_of
from .mem_common import byte_range, bytes_to_dwords, is_off, lanes_to_bytes, mod_int, regfile
from .operand_io import group_mode
from .mem_ops import ATOMIC_OPS, ATOMIC_OPS64, F64_ATOMICS, LOADS, STORES
from .pending import VM, AsyncOp
from .registry import RW_SETS, binder
from .regkeys import reg_keys

LANES64 = np.arange(64, dtype=np.int64)
decode_srd = buffer_addr.decode_srd


class _Shape:
    """Static part of a MUBUF access: modifiers and per-dword range-check offsets."""

    def __init__(self, ins, vaddr, srsrc, soffset, nbytes: int) -> None:
        self.offen, self.idxen = ins.has("offen"), ins.has("idxen")
        if (self.offen or self.idxen) and not isinstance(vaddr, Reg):
            raise EmulatorError(f"'{ins}': offen/idxen need a VGPR address, got {vaddr}")
        self.ins = ins
        self.vaddr, self.srsrc, self.soffset = vaddr, srsrc, soffset
        self.inst_off = mod_int(ins, "offset")
        self.nbytes = nbytes
        ndw = max(1, (nbytes + 3) // 4)
        # end of each dword of the access relative to the lane offset (per-dword range check)
        self.dw_end = 4 * np.arange(ndw) + np.minimum(4, nbytes - 4 * np.arange(ndw))
        # ``_fast_where``: offen without idxen, soffset an SGPR or a constant
        self.v_off = vaddr.index if self.offen and not self.idxen else None
        self.s_off = None
        if isinstance(soffset, Reg) and soffset.file == "s":
            self.s_off = soffset.index
        elif isinstance(soffset, Imm) or is_off(soffset):
            self.s_const = 0 if is_off(soffset) else soffset.bits32()
            self.s_off = -1


def _addresses(w, sh: _Shape, lanes):
    """(uint64 addresses, bool[n, n_dwords] in-range or None when every dword is in range);
    every descriptor form, isa.emu.buffer_addr."""
    try:
        return buffer_addr.addresses(w, sh, lanes)
    except EmulatorError as e:
        if e.pc is not None:
            raise
        raise EmulatorError(f"'{sh.ins}': {e.what}") from None


def _fast_where(m, w, sh: _Shape, lanes):
    """The common access's location without the general path's uint64 addresses: a raw V# (no
    add_tid, no swizzle), ``offen`` without ``idxen``, each lane's access wholly in range or
    wholly out of it (its first dword at or past num_records, as CK masks lanes with offset
    0x80000000), the in-range lanes inside one allocation. Returns (uint8 buffer, int64 byte
    offsets, allocation index, in-range lanes, out-of-range lanes or None), or None otherwise
    (the caller takes the general path, which also raises every error). The same bytes
    ``_locate`` finds: the address is base + soffset + VGPR offset + inst_offset and the
    per-dword range check (isa.emu.buffer_addr, raw form) keeps all or none of such a lane."""
    r = sh.v_off
    if r is None or sh.s_off is None:
        return None
    try:
        srd = decode_srd(w, sh.srsrc)
    except EmulatorError:
        return None                 # the general path raises it with the instruction named
    if srd.add_tid or srd.swizzle:
        return None
    v = w.vgpr[r] if isinstance(lanes, slice) else w.vgpr[r][lanes]
    if not v.size:
        return None
    out = None
    nr = srd.num_records
    vmax = int(v.max())
    if vmax + sh.inst_off + sh.nbytes > nr:
        o = v.astype(np.int64) + sh.inst_off
        gone = o + sh.dw_end[0] > nr          # first dword out: every dword out
        keep = ~gone
        if np.count_nonzero(keep & (o + sh.nbytes > nr)):
            return None                       # a lane partly in range: per-dword (general path)
        all_lanes = LANES64[lanes]
        lanes, out = all_lanes[keep], all_lanes[gone]
        v = v[keep]
        if not v.size:              # every lane out of range: nothing touches memory
            return (m.mem.bufs[0], v.astype(np.int64), 0, lanes, out) if m.mem.bufs else None
        vmax = int(v.max())
    soff = sh.s_const if sh.s_off < 0 else int(w.sgpr[sh.s_off])
    c = srd.base + soff + sh.inst_off
    mem = m.mem
    # every lane's address is >= c (offsets are unsigned): the allocation holding c holds them
    # all when it holds the highest one; else the lowest lane decides
    i = bisect.bisect_right(mem.bases, c) - 1
    if i < 0 or c + vmax + sh.nbytes > mem.ends[i]:
        i = bisect.bisect_right(mem.bases, c + int(v.min())) - 1
        if i < 0 or c + vmax + sh.nbytes > mem.ends[i]:
            return None
    off = v.astype(np.int64)
    off += c - mem.bases[i]
    return mem.bufs[i], off, i, lanes, out


def _dword_index(m, loc, nbytes: int):
    """(uint32 view, int64 [n, dwords] indices) of a ``_fast_where`` location whose lanes are all
    dword-aligned and a whole number of dwords, or (uint16 view, int64 [n, 1]) for 2-byte lanes
    all 2-byte aligned; else None (the byte gather / scatter)."""
    off = loc[1]
    if nbytes == 2:
        buf16 = m.mem.bufs16[loc[2]]
        if buf16 is None or (off & 1).any():
            return None
        return buf16, (off >> 1)[:, None]
    buf32 = m.mem.bufs32[loc[2]]
    if nbytes & 3 or buf32 is None or (off & 3).any():
        return None
    dw = off >> 2
    return buf32, (dw[:, None] + _DWORDS[nbytes >> 2]) if nbytes > 4 else dw[:, None]


_DWORDS = {k: np.arange(k, dtype=np.int64) for k in range(1, 5)}


def _locate(m, w, addr, in_range, nbytes, what):
    """Where a MUBUF access's bytes are: (location, rows, cols, piece size). With ``rows`` None
    every lane's ``nbytes`` at ``addr`` are in range and ``location`` covers them; otherwise the
    in-range dwords only (the guide range-checks Dword-x{2,3,4} per component, buffer_addr), one
    piece per (lane row ``rows[j]``, byte column ``cols[j]``) of ``min(4, nbytes)`` bytes: an
    out-of-range dword never touches memory, so only the in-range ones must lie in an allocation
    (a 16-byte load whose first dwords end exactly at the allocation's end is fine)."""
    try:
        if in_range is None:
            out = m.mem.locate(addr, nbytes, what), None, None, nbytes
        else:
            rows, k = np.nonzero(in_range)
            size = min(4, nbytes)
            cols = 4 * k
            loc = m.mem.locate(addr[rows] + cols.astype(np.uint64), size, what) if rows.size else None
            out = loc, rows, cols, size
    except GlobalOutOfBoundsError as e:
        raise m.error(GlobalOutOfBoundsError, e.what, w) from None
    if what == "buffer load":     # a read of another workgroup's write must be ordered after it
        check_read(m, w, out[0], out[3])
    return out


def _gather(mem, where, n, nbytes):
    """uint8[n, nbytes]: loaded bytes, 0 for out-of-range dwords (they never touch memory)."""
    loc, rows, cols, size = where
    if rows is None:
        return mem.gather(loc, n, nbytes)
    out = np.zeros((n, nbytes), np.uint8)
    if rows.size:
        out[rows[:, None], cols[:, None] + byte_range(size)] = mem.gather(loc, len(rows), size)
    return out


def _bind_load(ins, nbytes, signed):
    lds = ins.has("lds")
    if lds:
        vaddr, srsrc, soffset = ins.operands[:3]
        vdst = None
    else:
        vdst, vaddr, srsrc, soffset = ins.operands[:4]
    sh = _Shape(ins, vaddr, srsrc, soffset, nbytes)
    ndw = (nbytes + 3) // 4
    regs = () if lds else reg_keys(vdst)
    lds_stride = 16 if nbytes > 4 else 4

    acquire = bool(ins.has("sc1")) and not lds    # agent-scope "load atomic" (isa.emu.global_sync)

    def fn(m, w):
        lanes = w.exec_lanes()
        if lds:
            base = (w.m0 & 0x3FFFF) + sh.inst_off
            idx = (base + LANES64[lanes] * lds_stride)[:, None] + byte_range(nbytes)
            keep = m.lds.dma_lanes(idx)
            if not keep.all():      # lanes whose LDS address is out of range are masked off (ISA 3.11)
                lanes, idx = LANES64[lanes][keep], idx[keep]
        loc = None if lds else _fast_where(m, w, sh, lanes)
        dwi = gone = None
        if loc is not None:
            lanes, gone = loc[3], loc[4]     # in-range lanes; out-of-range ones read 0
            where = (loc[:2], None, None, nbytes)
            n = len(loc[1])
            dwi = _dword_index(m, loc, nbytes)
            check_read(m, w, loc[:2], nbytes)        # as ``_locate`` does for the general path
        else:
            addr, in_range = _addresses(w, sh, lanes)
            where = _locate(m, w, addr, in_range, nbytes, "buffer load")
            n = len(addr)
        mem = m.mem
        if lds:
            lds_data = m.lds.buf

            def apply():
                lds_data[idx] = _gather(mem, where, n, nbytes)
            op = AsyncOp(w, VM, (), apply, w.pc, ins, lds_dw=dwords_of(idx), lds_write=True, dma=True)
            m.lds.dma_issue(m, w, op)
            m.issue(w, op)
            return
        f = regfile(w, vdst)
        d = vdst.index
        sync = sync_of(m) if acquire and where[0] is not None and n else None
        seen = sync.read(m, w, where[0], nbytes if where[1] is None else where[3]) if sync else None

        if dwi is not None:
            buf32, idx = dwi            # uint32 dwords, or uint16 halves (zero/sign-extended)
            ext = np.int16 if signed else None

            def apply():
                if seen is not None:
                    seen()
                if gone is not None:
                    f[d:d + ndw, gone] = 0
                got = buf32[idx].T
                if ext is not None:
                    got = got.view(ext).astype(np.int32).view(np.uint32)
                f[d:d + ndw, lanes] = got
        else:
            def apply():
                if seen is not None:
                    seen()
                if gone is not None:
                    f[d:d + ndw, gone] = 0
                f[d:d + ndw, lanes] = bytes_to_dwords(_gather(mem, where, n, nbytes), signed).T
        m.issue(w, AsyncOp(w, VM, regs, apply, w.pc, ins))
    if group_mode():
        if lds:
            from .mem_buffer_group import group_load_lds
            return group_load_lds(ins, fn, sh, lds_stride)
        from .mem_buffer_group import group_load
        return group_load(ins, fn, sh, vdst, regs, signed)
    return fn


def _bind_store(ins, nbytes):
    vdata, vaddr, srsrc, soffset = ins.operands[:4]
    sh = _Shape(ins, vaddr, srsrc, soffset, nbytes)
    ndw = (nbytes + 3) // 4

    def fn(m, w):
        lanes = w.exec_lanes()
        fast = _fast_where(m, w, sh, lanes)
        if fast is not None:
            lanes = fast[3]              # out-of-range lanes write nothing
            dwi = _dword_index(m, fast, nbytes)
            loc = fast[:2] if fast[4] is None or len(lanes) else None
            if dwi is not None:       # whole aligned dwords (or halves): the rows, copied at issue
                buf32, idx = dwi
                data32 = np.array(regfile(w, vdata)[vdata.index:vdata.index + ndw, lanes].T,
                                  dtype=buf32.dtype, order="C", copy=True)   # short: low 16 bits
                m.claim_global_writes(w, loc, nbytes)

                def apply32():
                    buf32[idx] = data32
                m.issue(w, AsyncOp(w, VM, (), apply32, w.pc, ins))
                return
            rows, size = None, nbytes
        else:
            addr, in_range = _addresses(w, sh, lanes)
            loc, rows, cols, size = _locate(m, w, addr, in_range, nbytes, "buffer store")
        data = lanes_to_bytes(regfile(w, vdata)[vdata.index:vdata.index + ndw], lanes, nbytes)
        if rows is not None:       # the in-range dwords only; out-of-range writes are dropped
            data = data[rows[:, None], cols[:, None] + byte_range(size)]
        mem = m.mem
        m.claim_global_writes(w, loc, size)

        def apply():
            if loc is not None:
                mem.scatter(loc, data)
        m.issue(w, AsyncOp(w, VM, (), apply, w.pc, ins))
    if group_mode():
        from .mem_buffer_group import group_store
        return group_store(ins, fn, sh, vdata)
    return fn


for _sfx, (_nb, _sg) in LOADS.items():
    binder("buffer_load_" + _sfx, group=True)(lambda ins, nb=_nb, sg=_sg: _bind_load(ins, nb, sg))
for _sfx, _nb in STORES.items():
    binder("buffer_store_" + _sfx, group=True)(lambda ins, nb=_nb: _bind_store(ins, nb))


def _bind_atomic(ins, name):
    """buffer_atomic_<op> vdata, vaddr, srsrc, soffset: per lane in lane order; with ``sc0`` the
    pre-op value returns into vdata (its first dword, or two for 64-bit forms). 32-bit, _x2 / f64
    (64-bit) and cmpswap forms; cmpswap data is {src, cmp} as for FLAT (see isa.emu.mem_global).

    Range checking (CDNA4 ISA 9.1.5.1 "Range Checking", the CDNA3 guide's same section): "When
    an address is out of range, reads return zero, and writes and atomics are dropped", and note
    3, "Load/store-format-* instruction and atomics are range-checked 'all or nothing' - either
    entirely in or out": unlike Dword-x{2,3,4} loads and stores (checked per component), a lane's
    atomic is checked once, by the guide's test of its address (raw: InstOffset + vgpr_offset >=
    NumRecords; structured: index >= NumRecords). An in-range lane performs the whole 4- or
    8-byte atomic (a 64-bit atomic that starts below NumRecords and ends past it included: its
    bytes must then lie in an allocation), an out-of-range one touches no memory and returns 0."""
    vdata, vaddr, srsrc, soffset = ins.operands[:4]
    rtn = ins.has("sc0")
    wide = name.endswith("_x2") or name in F64_ATOMICS
    base = name.removesuffix("_x2")
    cas = base == "cmpswap"
    fn_op = None if cas else (ATOMIC_OPS64 if wide else ATOMIC_OPS)[base]
    nbytes = 8 if wide else 4
    ndw, ut = nbytes // 4, (np.uint64 if wide else np.uint32)
    regs = reg_keys(vdata)[:ndw] if rtn else ()
    sh = _Shape(ins, vaddr, srsrc, soffset, nbytes)
    # one component ending 1 byte after the lane's offset: buffer_addr's raw check becomes the
    # guide's "offset >= NumRecords" of the whole lane (all or nothing, see above)
    sh.dw_end = np.ones(1, np.int64)

    def fn(m, w):
        lanes = np.flatnonzero(w.exec_mask())
        addr, in_range = _addresses(w, sh, lanes)
        ok = np.ones(len(addr), bool) if in_range is None else in_range[:, 0]
        seen = None
        if ok.any():
            loc = _locate(m, w, addr[ok], None, nbytes, "buffer atomic")[0]
            sync = sync_of(m)
            if sync is not None and rtn:      # a synchronising read (isa.emu.global_sync)
                seen = sync.read(m, w, loc, nbytes)
            m.claim_global_writes(w, loc, nbytes)
        rows = regfile(w, vdata)[vdata.index:vdata.index + (2 * ndw if cas else ndw), lanes]
        vals = np.ascontiguousarray(rows.T).view(ut)
        mem = m.mem

        def apply():
            if seen is not None:
                seen()
            old = np.zeros(len(lanes), ut)
            for j in np.flatnonzero(ok):
                buf, off = mem.find(int(addr[j]), nbytes, ins.op)
                cur = buf[off:off + nbytes].view(ut)
                old[j] = cur[0]
                if cas:
                    if int(cur[0]) == int(vals[j, 1]):
                        cur[0] = vals[j, 0]
                else:
                    cur[0] = fn_op(int(cur[0]), int(vals[j, 0]))
            if rtn:
                back = old.view(np.uint32).reshape(-1, ndw).T
                regfile(w, vdata)[vdata.index:vdata.index + ndw, lanes] = back
        m.issue(w, AsyncOp(w, VM, regs, apply, w.pc, ins))
    return fn


def _atomic_rw(ins):
    """Register keys of buffer atomics the spec table lacks (_x2 / f64): all register operands are
    read; with sc0 the first dwords of vdata are written."""
    keys = [k for op in ins.operands for k in reg_keys(op)]
    ndw = 2 if ins.op.endswith(("_x2", "_f64")) else 1
    return keys, list(reg_keys(ins.operands[0])[:ndw]) if ins.has("sc0") else []


_BUF_ATOMICS = ("add", "sub", "smin", "umin", "smax", "umax", "and", "or", "xor", "inc", "dec", "swap")
for _name in (*_BUF_ATOMICS, "add_f32", "pk_add_f16", "cmpswap", "add_f64", "min_f64", "max_f64",
              *(n + "_x2" for n in (*_BUF_ATOMICS, "cmpswap"))):
    binder("buffer_atomic_" + _name)(lambda ins, n=_name: _bind_atomic(ins, n))
    if _name.endswith(("_x2", "_f64")):
        RW_SETS["buffer_atomic_" + _name] = _atomic_rw


@binder("buffer_wbl2", "buffer_inv")
def bind_cache_op(ins):
    """L2 write-back / L1 invalidate (memory-model fences): no data to move in the emulator, but
    they are VMEM ops that count in vmcnt (LLVM waits vmcnt(0) after them), so they queue."""
    writeback = ins.op == "buffer_wbl2" and bool(ins.has("sc1"))    # agent scope (global_sync)

    def fn(m, w):
        sync = sync_of(m) if writeback else None
        if sync is not None:
            sync.writeback(m, w)
        m.issue(w, AsyncOp(w, VM, (), None, w.pc, ins))
    return fn
