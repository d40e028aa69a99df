"""LDS instructions (DS format): ds_read*/ds_write* (b8..b128, read2/write2, st64), LDS atomics
(incl. ds_cmpst_b32 compare-store and ds_wrxchg_rtn_b32),
and the LDS-crossbar lane ops ds_swizzle_b32 / ds_bpermute_b32 / ds_permute_b32.

All count in lgkmcnt and land in issue order per wave (cdna-facts section 4). Addresses and store
data are read at issue; reads take LDS bytes when they land (isa.emu.pending). Address = VGPR +
offset (16-bit unsigned); read2/write2 use offset0/offset1 in units of the element size (x64 for
st64). Reads beyond the workgroup's LDS allocation return 0 and writes there are dropped (AMD
ISA guide section 3.6.1; isa.emu.lds ``clamp``); out-of-range atomics and elements partly out of range
are LdsOutOfBoundsError (the guide leaves them undefined). Inactive lanes do nothing.
The gfx950 transpose reads ds_read_*_tr_* live in isa.emu.mem_lds_tr (imported at the end of
this module so they register with it). Not implemented: addtid.
"""
from __future__ import annotations

import re

import numpy as np

from .lds import dwords_of
from .mem_common import byte_range, bytes_to_dwords, mod_int, regfile
from .operand_io import GroupUnsupported, group_mode
from .pending import LDS, AsyncOp
from .registry import RW_SETS, binder
from .regkeys import reg_keys

READS = {"ds_read_b32": (4, False), "ds_read_b64": (8, False), "ds_read_b96": (12, False),
         "ds_read_b128": (16, False), "ds_read_u8": (1, False), "ds_read_i8": (1, True),
         "ds_read_u16": (2, False), "ds_read_i16": (2, True)}
WRITES = {"ds_write_b8": 1, "ds_write_b16": 2, "ds_write_b32": 4, "ds_write_b64": 8,
          "ds_write_b96": 12, "ds_write_b128": 16}
READ2 = {"ds_read2_b32": (4, 1), "ds_read2_b64": (8, 1), "ds_read2st64_b32": (4, 64),
         "ds_read2st64_b64": (8, 64)}
WRITE2 = {"ds_write2_b32": (4, 1), "ds_write2_b64": (8, 1), "ds_write2st64_b32": (4, 64),
          "ds_write2st64_b64": (8, 64)}

M32 = 0xFFFFFFFF


def _atomic_fn(name: str):
    """old, value -> new for ds_<name> (ints are the raw 32/64-bit patterns; CDNA3 ISA DS_*)."""
    bits = 64 if name.endswith("64") else 32
    mask = (1 << bits) - 1
    if name.startswith("add_f"):
        ft, ut = (np.float64, np.uint64) if bits == 64 else (np.float32, np.uint32)

        def f(old, v):
            x = np.array([old, v], ut).view(ft)
            return int(np.array([x[0] + x[1]], ft).view(ut)[0])
        return f
    sgn = lambda x: x - (1 << bits) if x >> (bits - 1) else x
    op, kind = name[:-4], name[-3]
    if op in ("min", "max") and kind == "i":
        return (lambda o, v: o if sgn(o) <= sgn(v) else v) if op == "min" else \
            (lambda o, v: o if sgn(o) >= sgn(v) else v)
    return {"add": lambda o, v: (o + v) & mask, "sub": lambda o, v: (o - v) & mask,
            "min": min, "max": max, "and": lambda o, v: o & v, "or": lambda o, v: o | v,
            "xor": lambda o, v: o ^ v, "inc": lambda o, v: 0 if o >= v else o + 1,
            "dec": lambda o, v: v if (o == 0 or o > v) else o - 1, "wrxchg": lambda o, v: v}[op]


ATOMICS = ("add_u32", "sub_u32", "min_i32", "max_i32", "min_u32", "max_u32", "and_b32", "or_b32",
           "xor_b32", "add_f32", "inc_u32", "dec_u32", "wrxchg_b32")
# 64-bit forms (one qword in two VGPRs; ds_add_f64 is gfx90a+); the spec table lacks them
ATOMICS64 = ("add_u64", "sub_u64", "min_i64", "max_i64", "min_u64", "max_u64", "and_b64", "or_b64",
             "xor_b64", "inc_u64", "dec_u64", "wrxchg_b64", "add_f64")


def _lanes_addr(w, vaddr, offset: int):
    """(lanes, uint32 addresses of the active lanes); lanes is slice(None) when all are active.
    The DS address is the 32-bit sum VGPR + offset (it wraps: LLVM folds negative bases into it)."""
    lanes = w.exec_lanes()
    return lanes, w.vgpr[vaddr.index][lanes] + np.uint32(offset)


NO_OOB_RULE = " (the ISA guide defines out-of-range LDS reads and writes, not atomics)"


def _check(m, w, addr: np.ndarray, span: int, what: str) -> None:
    """Bounds of accesses [addr, addr + span) whose out-of-range behaviour is undefined (atomics)."""
    if addr.size and int(addr.max()) + span > m.lds.limit:
        m.lds.check_bounds(m, w, addr[:, None].astype(np.int64) + np.arange(span), what, NO_OOB_RULE)


def _out_of_range(m, addr: np.ndarray, span: int) -> bool:
    return bool(addr.size) and int(addr.max()) + span > m.lds.limit


def _clamped(m, w, addr: np.ndarray, acc, what: str, write: bool):
    """(byte indices with out-of-range bytes redirected, dwords in range) of an access that reaches
    past the allocation (isa.emu.lds ``clamp``)."""
    idx = addr.astype(np.int64)[:, None] + acc.byte_offs
    mapped, ok = m.lds.clamp(m, w, idx, acc.size, what, write)
    return mapped, idx[ok] >> 2


def _trace_banks(m, addr: np.ndarray, nbytes: int) -> None:
    if m.trace is not None and m.trace:
        m.trace[-1]["lds_bank_conflicts"] = bank_conflict_cycles(m.arch, addr, nbytes)


def bank_conflict_cycles(arch: str, addr: np.ndarray, nbytes: int) -> int:
    """Extra LDS cycles from bank conflicts (cdna-facts section 7): lanes go in phases (32 lanes
    for <= 4 B, 16 for 8 B, 8 for 16 B); in a phase, distinct dwords on one bank serialize and
    equal dwords broadcast. The CK lane grouping of ds_read_b128 is approximated by consecutive
    lanes."""
    nbanks = 64 if arch == "gfx950" else 32
    per_phase = 32 if nbytes <= 4 else (16 if nbytes <= 8 else 8)
    ndw = max(1, (nbytes + 3) // 4)
    extra = 0
    for s in range(0, len(addr), per_phase):
        dws = np.unique(((addr[s:s + per_phase] // 4)[:, None] + np.arange(ndw)).reshape(-1))
        if dws.size:
            extra += int(np.bincount(dws % nbanks).max()) - 1
    return extra


class _Access:
    """Static shape of a DS access: elements of ``size`` bytes at byte offsets ``offs`` from the
    lane address (1 element for ds_read/ds_write, 2 for read2/write2)."""

    def __init__(self, offs: tuple[int, ...], size: int) -> None:
        self.size = size
        self.span = max(offs) + size
        self.nreg = len(offs) * ((size + 3) // 4)
        self.dword_ok = size % 4 == 0 and all(o % 4 == 0 for o in offs)
        self.dw_offs = np.concatenate([o // 4 + np.arange(size // 4) for o in offs]) if self.dword_ok \
            else None
        self.single = self.dword_ok and self.nreg == 1
        self.byte_offs = np.concatenate([o + np.arange(size) for o in offs])

    def locate(self, addr: np.ndarray):
        """(dword indices, byte indices or None when dword aligned) of lane addresses ``addr``."""
        if self.dword_ok and not (addr & 3).any():
            base = addr >> 2
            if self.single:
                # + an int64 even when it is 0: int64 (intp) indices index 4x faster than uint32
                return base + self.dw_offs[0], None
            return (base[:, None] + self.dw_offs).ravel(), None
        idx = addr[:, None] + self.byte_offs
        return dwords_of(idx), idx


def _read_op(m, w, ins, regs, vdst, lanes, addr, acc: _Access, signed=False, what=""):
    lds = m.lds
    if _out_of_range(m, addr, acc.span):
        idx, dw = _clamped(m, w, addr, acc, what, False)
    else:
        dw, idx = acc.locate(addr)
    f = regfile(w, vdst)
    d, n = vdst.index, acc.nreg
    if idx is None:
        u32 = lds.buf32

        def apply():
            f[d:d + n, lanes] = u32[dw].reshape(-1, n).T
    else:
        data = lds.buf

        def apply():
            f[d:d + n, lanes] = bytes_to_dwords(data[idx], signed).T
    if lds.dma_owner is not None:
        lds.check_dma_pending(m, w, dw)
    m.issue(w, AsyncOp(w, LDS, regs, apply, w.pc, ins, lds_dw=dw))


def _write_op(m, w, ins, lanes, addr, acc: _Access, rows: np.ndarray, what=""):
    """rows: uint32[acc.nreg (or 1 for sub-dword), 64] data registers, element after element."""
    lds = m.lds
    if _out_of_range(m, addr, acc.span):
        idx, dw = _clamped(m, w, addr, acc, what, True)
    else:
        dw, idx = acc.locate(addr)
    if idx is None:
        vals = rows[0][lanes].copy() if acc.nreg == 1 else rows[:, lanes].T.ravel()
        u32 = lds.buf32

        def apply():
            u32[dw] = vals
    else:
        data = np.array(rows[:, lanes].T, dtype=np.uint32, order="C", copy=True).view(np.uint8)
        if acc.size < 4:
            data = data[:, :acc.size]
        buf = lds.buf

        def apply():
            buf[idx] = data
    if lds.dma_owner is not None:
        lds.check_dma_pending(m, w, dw, write=True)
    m.issue(w, AsyncOp(w, LDS, (), apply, w.pc, ins, lds_dw=dw, lds_write=True))


@binder(*READS, group=True)
def bind_read(ins):
    vdst, vaddr = ins.operands[0], ins.operands[1]
    nbytes, signed = READS[ins.op]
    off = np.uint32(mod_int(ins, "offset"))
    acc = _Access((0,), nbytes)
    regs, r = reg_keys(vdst), vaddr.index
    what = f"read of {nbytes} bytes"

    def fn(m, w):
        lanes = w.exec_lanes()
        addr = w.vgpr[r][lanes] + off
        _read_op(m, w, ins, regs, vdst, lanes, addr, acc, signed, what)
        if m.trace is not None:
            _trace_banks(m, addr, nbytes)
    if group_mode():
        if not acc.dword_ok:
            raise GroupUnsupported(f"'{ins}': sub-dword LDS read for a group")
        from .mem_lds_group import group_read
        return group_read(ins, fn, r, off, acc, regs, vdst)
    return fn


# d16 forms (gfx9 d16-preserves-unused-bits; LLVM uses the loads only with sramecc off): loads put
# the (zero/sign-extended to 16 bits) value into one half of vdst and keep the other half, merged
# when the data lands; the _d16_hi stores write bits 31:16 (b16) or 23:16 (b8) of the data VGPR.
D16_READS = {"ds_read_u8_d16": (1, False, False), "ds_read_u8_d16_hi": (1, False, True),
             "ds_read_i8_d16": (1, True, False), "ds_read_i8_d16_hi": (1, True, True),
             "ds_read_u16_d16": (2, False, False), "ds_read_u16_d16_hi": (2, False, True)}
D16_WRITES = {"ds_write_b8_d16_hi": 1, "ds_write_b16_d16_hi": 2}


@binder(*D16_READS)
def bind_read_d16(ins):
    vdst, vaddr = ins.operands[0], ins.operands[1]
    nbytes, signed, hi = D16_READS[ins.op]
    off = np.uint32(mod_int(ins, "offset"))
    regs, d, r = reg_keys(vdst), vdst.index, vaddr.index
    keep, shift = np.uint32(0x0000FFFF if hi else 0xFFFF0000), np.uint32(16 if hi else 0)

    def fn(m, w):
        lanes = w.exec_lanes()
        addr = w.vgpr[r][lanes] + off
        idx = addr.astype(np.int64)[:, None] + byte_range(nbytes)
        dw = dwords_of(idx)
        if _out_of_range(m, addr, nbytes):
            mapped, ok = m.lds.clamp(m, w, idx, nbytes, f"read of {nbytes} bytes", False)
            idx, dw = mapped, idx[ok] >> 2
        f, data = regfile(w, vdst), m.lds.buf

        def apply():
            v = bytes_to_dwords(data[idx], signed)[:, 0] & np.uint32(0xFFFF)
            f[d, lanes] = (f[d, lanes] & keep) | (v << shift)
        if m.lds.dma_owner is not None:
            m.lds.check_dma_pending(m, w, dw)
        m.issue(w, AsyncOp(w, LDS, regs, apply, w.pc, ins, lds_dw=dw))
    return fn


@binder(*D16_WRITES)
def bind_write_d16_hi(ins):
    vaddr, vdata = ins.operands[0], ins.operands[1]
    nbytes = D16_WRITES[ins.op]
    off = np.uint32(mod_int(ins, "offset"))
    acc = _Access((0,), nbytes)

    def fn(m, w):
        lanes = w.exec_lanes()
        addr = w.vgpr[vaddr.index][lanes] + off
        rows = regfile(w, vdata)[vdata.index:vdata.index + 1] >> np.uint32(16)
        _write_op(m, w, ins, lanes, addr, acc, rows, f"write of {nbytes} bytes")
    return fn


@binder(*READ2, group=True)
def bind_read2(ins):
    vdst, vaddr = ins.operands[0], ins.operands[1]
    size, scale = READ2[ins.op]
    acc = _Access((mod_int(ins, "offset0") * size * scale, mod_int(ins, "offset1") * size * scale), size)
    regs, r = reg_keys(vdst), vaddr.index
    what = f"read2 of 2x{size} bytes"

    def fn(m, w):
        lanes = w.exec_lanes()
        addr = w.vgpr[r][lanes]
        _read_op(m, w, ins, regs, vdst, lanes, addr, acc, what=what)
        if m.trace is not None:
            _trace_banks(m, addr + np.uint32(acc.byte_offs[0]), size)
    if group_mode():
        if not acc.dword_ok:
            raise GroupUnsupported(f"'{ins}': LDS read2 not in dwords for a group")
        from .mem_lds_group import group_read
        return group_read(ins, fn, r, np.uint32(0), acc, regs, vdst)
    return fn


@binder(*WRITES, group=True)
def bind_write(ins):
    vaddr, vdata = ins.operands[0], ins.operands[1]
    nbytes = WRITES[ins.op]
    off = np.uint32(mod_int(ins, "offset"))
    acc = _Access((0,), nbytes)
    s, ndw, r = vdata.index, (nbytes + 3) // 4, vaddr.index
    what = f"write of {nbytes} bytes"

    def fn(m, w):
        lanes = w.exec_lanes()
        addr = w.vgpr[r][lanes] + off
        _write_op(m, w, ins, lanes, addr, acc, regfile(w, vdata)[s:s + ndw], what)
        if m.trace is not None:
            _trace_banks(m, addr, nbytes)
    if group_mode():
        if not acc.dword_ok:
            raise GroupUnsupported(f"'{ins}': sub-dword LDS write for a group")
        from .mem_lds_group import group_write
        return group_write(ins, fn, r, off, acc, [(vdata, ndw)])
    return fn


@binder(*WRITE2, group=True)
def bind_write2(ins):
    vaddr, d0, d1 = ins.operands[0], ins.operands[1], ins.operands[2]
    size, scale = WRITE2[ins.op]
    acc = _Access((mod_int(ins, "offset0") * size * scale, mod_int(ins, "offset1") * size * scale), size)
    ndw, r = size // 4, vaddr.index
    what = f"write2 of 2x{size} bytes"

    def fn(m, w):
        lanes = w.exec_lanes()
        addr = w.vgpr[r][lanes]
        rows = np.concatenate([regfile(w, d0)[d0.index:d0.index + ndw],
                               regfile(w, d1)[d1.index:d1.index + ndw]])
        _write_op(m, w, ins, lanes, addr, acc, rows, what)
        if m.trace is not None:
            _trace_banks(m, addr + np.uint32(acc.byte_offs[0]), size)
    if group_mode():
        if not acc.dword_ok:
            raise GroupUnsupported(f"'{ins}': LDS write2 not in dwords for a group")
        from .mem_lds_group import group_write
        return group_write(ins, fn, r, np.uint32(0), acc, [(d0, ndw), (d1, ndw)])
    return fn


def _bind_atomic(name: str, rtn: bool):
    op_fn = _atomic_fn(name)
    nb = 8 if name.endswith("64") else 4
    ut = np.uint64 if nb == 8 else np.uint32

    def bind(ins):
        if rtn:
            vdst, vaddr, vdata = ins.operands[:3]
            regs = reg_keys(vdst)
        else:
            vaddr, vdata = ins.operands[:2]
            vdst, regs = None, ()
        offset = mod_int(ins, "offset")

        def fn(m, w):
            lanes, addr = _lanes_addr(w, vaddr, offset)
            _check(m, w, addr, nb, f"atomic of {nb} bytes")
            vals = _qwords(regfile(w, vdata), vdata.index, lanes, nb)
            buf = m.lds.buf

            def apply():
                old = np.empty(len(addr), ut)
                for j in range(len(addr)):   # lanes in order: duplicates accumulate
                    a = int(addr[j])
                    cur = buf[a:a + nb].view(ut)
                    old[j] = cur[0]
                    cur[0] = op_fn(int(cur[0]), int(vals[j]))
                if vdst is not None:
                    rows = old.view(np.uint32).reshape(-1, nb // 4).T
                    regfile(w, vdst)[vdst.index:vdst.index + nb // 4, lanes] = rows
            dw = dwords_of(addr[:, None] + byte_range(nb))
            m.issue(w, AsyncOp(w, LDS, regs, apply, w.pc, ins, lds_dw=dw, lds_write="atomic"))
        return fn
    return bind


def _qwords(f, index: int, lanes, nb: int) -> np.ndarray:
    """The active lanes' 4- or 8-byte values of register(s) ``index`` (copied at issue)."""
    if nb == 4:
        return f[index][lanes].copy()
    return np.ascontiguousarray(f[index:index + 2, lanes].T).view(np.uint64)[:, 0].copy()


for _n in ATOMICS + ATOMICS64:
    binder("ds_" + _n)(_bind_atomic(_n, False))
    binder("ds_" + _n.replace("_", "_rtn_", 1))(_bind_atomic(_n, True))


def _bind_cmpst(rtn: bool, nb: int):
    """ds_cmpst[_rtn]_b32/_b64 vdst?, vaddr, data0, data1: compare-and-store with the compare value
    in DATA0 and the new value in DATA1 (GCN3/CDNA3 ISA DS_CMPST_B32: cmp = DATA, src = DATA2;
    LLVM test atomic_cmp_swap_local.ll: ds_cmpst_rtn_b32 result, ptr, cmp, swap) - the reverse
    of FLAT_ATOMIC_CMPSWAP's {src, cmp} tuple. Returns the old value with _rtn."""
    ut = np.uint64 if nb == 8 else np.uint32

    def bind(ins):
        ops = list(ins.operands)
        vdst = ops.pop(0) if rtn else None
        vaddr, d_cmp, d_new = ops[:3]
        regs = reg_keys(vdst) if rtn else ()
        offset = mod_int(ins, "offset")

        def fn(m, w):
            lanes, addr = _lanes_addr(w, vaddr, offset)
            _check(m, w, addr, nb, f"compare-store of {nb} bytes")
            cmp = _qwords(regfile(w, d_cmp), d_cmp.index, lanes, nb)
            new = _qwords(regfile(w, d_new), d_new.index, lanes, nb)
            buf = m.lds.buf

            def apply():
                old = np.empty(len(addr), ut)
                for j in range(len(addr)):   # lanes in order
                    cur = buf[int(addr[j]):int(addr[j]) + nb].view(ut)
                    old[j] = cur[0]
                    if cur[0] == cmp[j]:
                        cur[0] = new[j]
                if vdst is not None:
                    rows = old.view(np.uint32).reshape(-1, nb // 4).T
                    regfile(w, vdst)[vdst.index:vdst.index + nb // 4, lanes] = rows
            dw = dwords_of(addr[:, None] + byte_range(nb))
            m.issue(w, AsyncOp(w, LDS, regs, apply, w.pc, ins, lds_dw=dw, lds_write="atomic"))
        return fn
    return bind


def ds_rw_keys(ins):
    """Register keys of DS atomics the spec table lacks: a _rtn form writes its first operand,
    every other register operand is read."""
    ops = list(ins.operands)
    writes = list(reg_keys(ops.pop(0))) if "_rtn_" in ins.op else []
    return [k for op in ops for k in reg_keys(op)], writes


for _nb in (4, 8):
    _sfx = "b32" if _nb == 4 else "b64"
    binder("ds_cmpst_" + _sfx)(_bind_cmpst(False, _nb))
    binder("ds_cmpst_rtn_" + _sfx)(_bind_cmpst(True, _nb))
for _n in ("cmpst_b32", "cmpst_b64", "wrxchg_b32") + ATOMICS64:
    RW_SETS["ds_" + _n] = RW_SETS["ds_" + _n.replace("_", "_rtn_", 1)] = ds_rw_keys


# ------------------------------------------------------------------------------------------------
# Cross-lane ops through the LDS crossbar (no LDS memory; lgkmcnt). AMD GCN3/CDNA3 ISA guide:
# an inactive source lane reads as 0; only active lanes are written.
# ------------------------------------------------------------------------------------------------
def _lane_result(m, w, ins, vdst, result: np.ndarray) -> None:
    lanes = np.flatnonzero(w.exec_mask())
    vals = result[lanes]

    def apply():
        regfile(w, vdst)[vdst.index, lanes] = vals
    m.issue(w, AsyncOp(w, LDS, reg_keys(vdst), apply, w.pc, ins))


@binder("ds_bpermute_b32")
def bind_bpermute(ins):
    vdst, vaddr, vdata = ins.operands[:3]
    offset = mod_int(ins, "offset")

    def fn(m, w):
        act = w.exec_mask()
        src = np.where(act, regfile(w, vdata)[vdata.index], 0).astype(np.uint32)
        sel = ((w.vgpr[vaddr.index].astype(np.int64) + offset) >> 2) & 63
        _lane_result(m, w, ins, vdst, src[sel])
    return fn


@binder("ds_permute_b32")
def bind_permute(ins):
    vdst, vaddr, vdata = ins.operands[:3]
    offset = mod_int(ins, "offset")

    def fn(m, w):
        act = w.exec_mask()
        out = np.zeros(64, np.uint32)
        lanes = np.flatnonzero(act)
        sel = ((w.vgpr[vaddr.index][lanes].astype(np.int64) + offset) >> 2) & 63
        out[sel] = regfile(w, vdata)[vdata.index][lanes]
        _lane_result(m, w, ins, vdst, out)
    return fn


def swizzle_source_lanes(pattern: int) -> np.ndarray:
    """Source lane of every lane for ds_swizzle_b32 offset ``pattern`` (CDNA3 ISA, DS_SWIZZLE_B32):
    bit 15 set = quad-permute mode (2-bit selects per lane within each group of 4); else bit-mask
    mode within groups of 32: src = ((lane & and_mask) | or_mask) ^ xor_mask, masks in bits
    4:0, 9:5, 14:10."""
    lane = np.arange(64)
    if pattern & 0x8000:
        sel = np.array([(pattern >> (2 * (i % 4))) & 3 for i in range(64)])
        return (lane & ~3) + sel
    and_m, or_m, xor_m = pattern & 31, (pattern >> 5) & 31, (pattern >> 10) & 31
    return (lane & 32) | ((((lane & 31) & and_m) | or_m) ^ xor_m)


def _swizzle_pattern(val) -> int:
    if isinstance(val, int):
        return val
    text = str(val).replace(" ", "")
    mt = re.fullmatch(r"swizzle\((\w+)(?:,(.*))?\)", text)
    if not mt:
        raise ValueError(f"unknown ds_swizzle offset {val!r}")
    kind, args = mt.group(1), [a for a in (mt.group(2) or "").split(",") if a]
    if kind == "QUAD_PERM":
        p = [int(a) for a in args]
        return 0x8000 | p[0] | p[1] << 2 | p[2] << 4 | p[3] << 6
    if kind == "SWAP":
        return 31 | (int(args[0]) << 10)
    if kind == "REVERSE":
        return 31 | ((int(args[0]) - 1) << 10)
    if kind == "BROADCAST":
        size, lane = int(args[0]), int(args[1])
        return ((~(size - 1)) & 31) | (lane << 5)
    if kind == "BITMASK_PERM":
        mask = args[0].strip('"')
        and_m = or_m = xor_m = 0
        for i, c in enumerate(mask):
            bit = 1 << (4 - i)
            if c in "01":
                and_m |= 0
                or_m |= bit if c == "1" else 0
            elif c == "p":
                and_m |= bit
            elif c == "i":
                and_m |= bit
                xor_m |= bit
        return and_m | or_m << 5 | xor_m << 10
    raise ValueError(f"unknown ds_swizzle mode {kind!r}")


@binder("ds_swizzle_b32")
def bind_swizzle(ins):
    vdst, vaddr = ins.operands[:2]
    src_lane = swizzle_source_lanes(_swizzle_pattern(ins.mod("offset", 0)))

    def fn(m, w):
        act = w.exec_mask()
        src = np.where(act, w.vgpr[vaddr.index], 0).astype(np.uint32)
        _lane_result(m, w, ins, vdst, src[src_lane])
    return fn
