"""Scalar memory writes: s_store_dword{,x2,x4}, s_buffer_store_dword{,x2,x4}, s_atomic_* and
s_buffer_atomic_* (32-bit and _x2), and the scalar-cache ops s_dcache_discard{,_x2},
s_dcache_wb_vol, s_dcache_inv_vol.

Sources: CDNA3 ISA guide, SMEM chapter and opcode table (the CDNA4 guide keeps the same SMEM
stores/atomics; GCN5 SMEM text: "UINT32 P = *VM; *VM = op; SDATA = (GLC) ? P : SDATA", cmpswap
"*VM == SDATA[1] ? SDATA[0] : *VM", discard "one (two) 64-byte dirty lines, LGKM +1"). Address as for the scalar loads (isa.emu.mem_smem): sbase pair + offset (SGPR or
immediate, plus ``offset:``), the two low bits ignored; the s_buffer_* forms use base /
num_records (bytes, raw V# with stride 0 only: cdna-facts section 5) of the V# in s[sbase:sbase+3];
as for s_buffer_load (isa.emu.mem_smem) the range rule is applied per dword: dwords at or beyond
num_records are not written. Store data is read at issue, memory is written when the op lands;
every op counts in lgkmcnt (SMEM, may complete out of order: isa.emu.pending). Atomics with ``glc`` return
the pre-op value into sdata (LLVM's *_RTN SMEM atomics set glc); S_ATOMIC_CMPSWAP: src = DATA[0],
cmp = DATA[1], as for the FLAT form. The emulator keeps no scalar cache: stores go to memory, so
the write-back / invalidate ops move nothing (an SMEM op in lgkmcnt only). s_dcache_discard drops
dirty lines *without* writing them back; after a scalar store of this wave that could lose data on
hardware, which the emulator cannot reproduce, so it is refused then.
"""
from __future__ import annotations

import numpy as np

from .errors import EmulatorError, GlobalOutOfBoundsError
from .global_sync import sync_of
from .mem_ops import ATOMIC_OPS, ATOMIC_OPS64
from .mem_smem import smem_offset
from .pending import SMEM, AsyncOp
from .registry import RW_SETS, handler
from .regkeys import reg_keys

STORE_WIDTHS = {"dword": 1, "dwordx2": 2, "dwordx4": 4}
ATOMIC_BASES = ("swap", "cmpswap", "add", "sub", "smin", "umin", "smax", "umax", "and", "or",
                "xor", "inc", "dec")


def _address(m, w, ins, sbase, buffered: bool, nbytes: int) -> tuple[int, int]:
    """(byte address, dwords inside the buffer range) of a scalar write of ``nbytes``."""
    off = smem_offset(w, ins)
    if buffered:
        s = w.sgpr[sbase.index:sbase.index + 4]
        stride = (int(s[1]) >> 16) & 0x3FFF
        if stride:
            # cdna-facts section 5: num_records is in bytes for raw (stride 0) buffers only; the
            # range rule of a strided V# for a scalar write is not documented: refuse
            raise m.error(EmulatorError, f"{ins.op}: V# stride {stride} != 0; the range check of a "
                          "strided buffer for scalar writes is not modelled", w)
        base = int(s[0]) | ((int(s[1]) & 0xFFFF) << 32)
        num_records = int(s[2])
        n_in = max(0, min(nbytes // 4, (num_records - (off & ~3) + 3) // 4))
    else:
        base = int(w.sgpr[sbase.index]) | (int(w.sgpr[sbase.index + 1]) << 32)
        n_in = nbytes // 4
    return (base + off) & ~3, n_in


def _find(m, w, addr: int, nbytes: int, what: str):
    try:
        return m.mem.find(addr, nbytes, what)
    except GlobalOutOfBoundsError as e:
        raise m.error(GlobalOutOfBoundsError, e.what, w) from None


def _stored(m) -> set:
    """Wave ids of this workgroup that issued a scalar store (for s_dcache_discard)."""
    return m.__dict__.setdefault("_emu_scalar_stored", set())


def _store(ndw: int, buffered: bool):
    def run(m, w, ins):
        sdata, sbase = ins.operands[:2]
        addr, n_in = _address(m, w, ins, sbase, buffered, 4 * ndw)
        data = np.array(w.sgpr[sdata.index:sdata.index + n_in], np.uint32)   # read at issue
        _stored(m).add(w.wave_id)
        if n_in == 0:     # s_buffer_store wholly beyond num_records: nothing is written
            m.issue(w, AsyncOp(w, SMEM, (), None, w.pc, ins))
            return
        buf, off = _find(m, w, addr, 4 * n_in, ins.op)
        m.claim_global_writes(w, (buf, np.array([off], np.int64)), 4 * n_in)

        def apply():
            buf[off:off + 4 * n_in] = data.view(np.uint8)
        m.issue(w, AsyncOp(w, SMEM, (), apply, w.pc, ins))
    return run


def _atomic(name: str, buffered: bool):
    wide = name.endswith("_x2")
    base = name.removesuffix("_x2")
    cas = base == "cmpswap"
    nbytes = 8 if wide else 4
    ndw = nbytes // 4
    dtype = np.uint64 if wide else np.uint32
    fn_op = None if cas else (ATOMIC_OPS64 if wide else ATOMIC_OPS)[base]

    def run(m, w, ins):
        sdata, sbase = ins.operands[:2]
        rtn = bool(ins.has("glc"))
        addr, n_in = _address(m, w, ins, sbase, buffered, nbytes)
        if n_in * 4 < nbytes:
            raise m.error(EmulatorError, f"{ins.op} at offset beyond num_records of the V#: what a "
                          "scalar buffer atomic does out of range is not documented; not modelled", w)
        vals = np.array(w.sgpr[sdata.index:sdata.index + (2 * ndw if cas else ndw)],
                        np.uint32).view(dtype)
        buf, off = _find(m, w, addr, nbytes, ins.op)
        sync = sync_of(m) if rtn else None      # returning: a synchronising read (global_sync)
        seen = sync.read(m, w, (buf, np.array([off], np.int64)), nbytes) if sync is not None else None
        m.claim_global_writes(w, (buf, np.array([off], np.int64)), nbytes)
        d = sdata.index

        def apply():
            if seen is not None:
                seen()
            cur = buf[off:off + nbytes].view(dtype)
            old = int(cur[0])
            if cas:
                if old == int(vals[1]):
                    cur[0] = vals[0]
            else:
                cur[0] = fn_op(old, int(vals[0]))
            if rtn:
                for k in range(ndw):
                    w.sgpr[d + k] = (old >> (32 * k)) & 0xFFFFFFFF
        regs = tuple(range(d, d + ndw)) if rtn else ()
        m.issue(w, AsyncOp(w, SMEM, regs, apply, w.pc, ins))
    return run


def _store_rw(ins):
    """Every register operand is read; nothing is written."""
    return [k for op in ins.operands for k in reg_keys(op)], []


def _atomic_rw(ins):
    """All register operands read; with glc the returned value's dwords of sdata are written."""
    reads = [k for op in ins.operands for k in reg_keys(op)]
    if not ins.has("glc"):
        return reads, []
    sdata = ins.operands[0]
    n = 2 if ins.op.endswith("_x2") else 1
    return reads, list(range(sdata.index, sdata.index + n))


for _sfx, _n in STORE_WIDTHS.items():
    handler("s_store_" + _sfx)(_store(_n, False))
    handler("s_buffer_store_" + _sfx)(_store(_n, True))
    RW_SETS["s_store_" + _sfx] = RW_SETS["s_buffer_store_" + _sfx] = _store_rw
for _b in ATOMIC_BASES:
    for _name in (_b, _b + "_x2"):
        handler("s_atomic_" + _name)(_atomic(_name, False))
        handler("s_buffer_atomic_" + _name)(_atomic(_name, True))
        RW_SETS["s_atomic_" + _name] = RW_SETS["s_buffer_atomic_" + _name] = _atomic_rw


@handler("s_dcache_wb_vol", "s_dcache_inv_vol")
def _dcache_vol(m, w, ins):
    """Write back / invalidate the volatile scalar-cache lines: no data moves in the emulator (no
    scalar cache is kept); an SMEM op counted in lgkmcnt."""
    m.issue(w, AsyncOp(w, SMEM, (), None, w.pc, ins))


@handler("s_dcache_discard", "s_dcache_discard_x2")
def _dcache_discard(m, w, ins):
    """Discard (no write-back) the scalar-cache line(s) at sbase + offset. Without a prior scalar
    store there is no dirty data, so it only counts in lgkmcnt; after one it is refused."""
    if w.wave_id in _stored(m):
        raise m.error(EmulatorError, f"{ins.op} after a scalar store of this wave: discarding dirty "
                      "scalar-cache lines (data lost without write-back) is not modelled", w)
    m.issue(w, AsyncOp(w, SMEM, (), None, w.pc, ins))


RW_SETS["s_dcache_discard"] = RW_SETS["s_dcache_discard_x2"] = _store_rw
RW_SETS["s_dcache_wb_vol"] = RW_SETS["s_dcache_inv_vol"] = lambda ins: ([], [])
