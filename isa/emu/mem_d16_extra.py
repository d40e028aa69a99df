"""D16 loads/stores of the BUFFER, FLAT and SCRATCH families, the packed-bf16 VMEM atomics,
buffer format loads/stores (conversion-free formats only) and scratch_load_lds_* (scratch -> LDS
DMA). The global_* d16 forms and global_load_lds_* live in isa.emu.mem_global; this module reuses their conventions and the address code of mem_buffer,
mem_flat and mem_scratch.

D16 (CDNA3 ISA "D16" loads; gfx9 d16-preserves-unused-bits, which LLVM relies on): a load puts the
loaded 8/16 bits, zero- (ubyte, short) or sign-extended (sbyte) to 16 bits, into bits 15:0
(``_d16``) or 31:16 (``_d16_hi``) of vdst and keeps the other half; the merge happens when the data
lands (isa.emu.machine treats the tied vdst accordingly). ``*_store_{byte,short}_d16_hi`` store
bits 23:16 / 31:16 of the data VGPR. Buffer out-of-range lanes load 0 (merged) and drop stores,
as for the other buffer ops. FLAT lanes in the LDS aperture use LDS and take part in the race
detector (mem_flat's model).

Packed bf16 atomic add (global/flat/buffer_atomic_pk_add_bf16): two independent bf16 adds; only
exactly representable results are produced (isa.emu.mem_ds_extra.pk_add_bf16), any rounding case
is refused since the ISA guide does not state the adder's rounding.

buffer_load/store_format_{x,xy,xyz,xyzw}: only the conversion-free 32-bit UINT/SINT formats (see
the section at the end); the d16 format forms are refused.

scratch_load_lds_{dword,ubyte,sbyte,ushort,sshort}: the scratch address of each lane as for
scratch loads; the bytes go to LDS at M0[17:0] + inst_offset + lane_id * 4, the same LDS-address
rule the emulator uses for global_load_lds_* (cdna-facts section 6). The loaded sub-dword value is
written as its raw bytes (as global_load_lds_* does). Registered in each
mnemonic's format registry (isa.emu.registry); isa.emu.catalog imports this module.
"""
from __future__ import annotations

import numpy as np

from . import mem_buffer, mem_flat, mem_global, mem_scratch
from .errors import EmulatorError
from .lds import dwords_of
from .mem_common import byte_range, bytes_to_dwords, lanes_to_bytes, mod_int, regfile
from .mem_ds_extra import pk_add_bf16
from .pending import VM, AsyncOp
from .registry import RW_SETS, binder
from .regkeys import reg_keys

D16_LOADS = {"ubyte_d16": (1, False, False), "ubyte_d16_hi": (1, False, True),
             "sbyte_d16": (1, True, False), "sbyte_d16_hi": (1, True, True),
             "short_d16": (2, False, False), "short_d16_hi": (2, False, True)}
D16_STORES = {"byte_d16_hi": 1, "short_d16_hi": 2}
_LO_KEEP, _HI_KEEP = np.uint32(0xFFFF0000), np.uint32(0x0000FFFF)


def _merge(f, d, lanes, raw: np.ndarray, signed: bool, hi: bool) -> None:
    """Merge uint8[n, nb] loaded bytes into one half of register row ``d`` for ``lanes``."""
    v = bytes_to_dwords(raw, signed)[:, 0] & np.uint32(0xFFFF)
    if hi:
        f[d, lanes] = (f[d, lanes] & _HI_KEEP) | (v << np.uint32(16))
    else:
        f[d, lanes] = (f[d, lanes] & _LO_KEEP) | v


# ---------------------------------------------------------------------------------------------
# BUFFER
# ---------------------------------------------------------------------------------------------
def _bind_buffer_load_d16(ins, nb, signed, hi):
    if ins.has("lds"):
        raise ValueError(f"'{ins}': a d16 load with the lds modifier is not a valid form")
    vdst, vaddr, srsrc, soffset = ins.operands[:4]
    sh = mem_buffer._Shape(ins, vaddr, srsrc, soffset, nb)
    regs, d = reg_keys(vdst), vdst.index

    def fn(m, w):
        lanes = w.exec_lanes()
        addr, in_range = mem_buffer._addresses(w, sh, lanes)
        where = mem_buffer._locate(m, w, addr, in_range, nb, "buffer load")
        f, mem, n = regfile(w, vdst), m.mem, len(addr)

        def apply():
            _merge(f, d, lanes, mem_buffer._gather(mem, where, n, nb), signed, hi)
        m.issue(w, AsyncOp(w, VM, regs, apply, w.pc, ins))
    return fn


def _bind_buffer_store_hi(ins, nb):
    vdata, vaddr, srsrc, soffset = ins.operands[:4]
    sh = mem_buffer._Shape(ins, vaddr, srsrc, soffset, nb)

    def fn(m, w):
        lanes = w.exec_lanes()
        addr, in_range = mem_buffer._addresses(w, sh, lanes)
        loc, rows, _, _ = mem_buffer._locate(m, w, addr, in_range, nb, "buffer store")
        data = lanes_to_bytes(regfile(w, vdata)[vdata.index:vdata.index + 1] >> np.uint32(16), lanes, nb)
        if rows is not None:        # one piece per in-range lane (a sub-dword access is one piece)
            data = data[rows]
        mem = m.mem
        m.claim_global_writes(w, loc, nb)

        def apply():
            if loc is not None:
                mem.scatter(loc, data)
        m.issue(w, AsyncOp(w, VM, (), apply, w.pc, ins))
    return fn


# ---------------------------------------------------------------------------------------------
# FLAT (generic pointers: global or the LDS aperture)
# ---------------------------------------------------------------------------------------------
def _bind_flat_load_d16(ins, nb, signed, hi):
    vdst, vaddr = ins.operands[:2]
    offset = mod_int(ins, "offset")
    regs, d = reg_keys(vdst), vdst.index

    def fn(m, w):
        lanes = np.flatnonzero(w.exec_mask())
        addr = mem_global._addr(w, vaddr, None, offset, lanes)
        lds, idx, ldw = mem_flat._split(m, w, ins, addr, lanes, nb)
        gl, ll = lanes[~lds], lanes[lds]
        gloc = mem_global._locate(m, w, addr[~lds], nb, ins.op) if len(gl) else None
        f, mem, data = regfile(w, vdst), m.mem, m.lds.buf

        def apply():
            if len(gl):
                _merge(f, d, gl, mem.gather(gloc, len(gl), nb), signed, hi)
            if len(ll):
                _merge(f, d, ll, data[idx], signed, hi)
        kw = {"lds_dw": ldw, "lds_write": False} if len(ll) else {}
        m.issue(w, AsyncOp(w, VM, regs, apply, w.pc, ins, **kw))
    return fn


def _bind_flat_store_hi(ins, nb):
    vaddr, vdata = ins.operands[:2]
    offset = mod_int(ins, "offset")

    def fn(m, w):
        lanes = np.flatnonzero(w.exec_mask())
        addr = mem_global._addr(w, vaddr, None, offset, lanes)
        lds, idx, ldw = mem_flat._split(m, w, ins, addr, lanes, nb, write=True)
        payload = lanes_to_bytes(regfile(w, vdata)[vdata.index:vdata.index + 1] >> np.uint32(16),
                                 lanes, nb)
        gpay, lpay = payload[~lds], payload[lds]
        gloc = mem_global._locate(m, w, addr[~lds], nb, ins.op) if (~lds).any() else None
        if gloc is not None:
            m.claim_global_writes(w, gloc, nb)
        mem, data = m.mem, m.lds.buf

        def apply():
            if gloc is not None:
                mem.scatter(gloc, gpay)
            if len(lpay):
                data[idx] = lpay
        kw = {"lds_dw": ldw, "lds_write": True} if lds.any() else {}
        m.issue(w, AsyncOp(w, VM, (), apply, w.pc, ins, **kw))
    return fn


# ---------------------------------------------------------------------------------------------
# SCRATCH
# ---------------------------------------------------------------------------------------------
def _bind_scratch_load_d16(ins, nb, signed, hi):
    vdst, vaddr, saddr = ins.operands[:3]
    offset = mod_int(ins, "offset")
    regs, d = reg_keys(vdst), vdst.index

    def fn(m, w):
        lanes = np.flatnonzero(w.exec_mask())
        idx = mem_scratch._offsets(m, w, ins, vaddr, saddr, offset, lanes, nb)
        buf, f = mem_scratch._buffer(m, w), regfile(w, vdst)

        def apply():
            _merge(f, d, lanes, buf[lanes[:, None], idx], signed, hi)
        m.issue(w, AsyncOp(w, VM, regs, apply, w.pc, ins))
    return fn


def _bind_scratch_store_hi(ins, nb):
    vaddr, vdata, saddr = ins.operands[:3]
    offset = mod_int(ins, "offset")

    def fn(m, w):
        lanes = np.flatnonzero(w.exec_mask())
        idx = mem_scratch._offsets(m, w, ins, vaddr, saddr, offset, lanes, nb)
        data = lanes_to_bytes(regfile(w, vdata)[vdata.index:vdata.index + 1] >> np.uint32(16), lanes, nb)
        buf = mem_scratch._buffer(m, w)

        def apply():
            buf[lanes[:, None], idx] = data
        m.issue(w, AsyncOp(w, VM, (), apply, w.pc, ins))
    return fn


def _bind_scratch_lds(ins, nb):
    """scratch_load_lds_* vaddr, saddr: scratch bytes -> LDS (see the module docstring)."""
    vaddr, saddr = ins.operands[:2]
    offset = mod_int(ins, "offset")

    def fn(m, w):
        lanes = np.flatnonzero(w.exec_mask())
        idx = ((w.m0 & 0x3FFFF) + offset + lanes.astype(np.int64) * 4)[:, None] + byte_range(nb)
        keep = m.lds.dma_lanes(idx)
        if not keep.all():          # lanes whose LDS address is out of range are masked off (ISA 3.11)
            lanes, idx = lanes[keep], idx[keep]
        src = mem_scratch._offsets(m, w, ins, vaddr, saddr, offset, lanes, nb)
        buf, lds_data = mem_scratch._buffer(m, w), m.lds.buf

        def apply():
            lds_data[idx] = buf[lanes[:, None], src]
        op = AsyncOp(w, VM, (), apply, w.pc, ins, lds_dw=dwords_of(idx), lds_write=True, dma=True)
        m.lds.dma_issue(m, w, op)
        m.issue(w, op)
    return fn


def _load_rw(ins):
    """d16 loads: vdst is written (and its kept half read: the machine merges at landing);
    every other register operand is read."""
    ops = list(ins.operands)
    dst = list(reg_keys(ops[0]))
    return dst + [k for op in ops[1:] for k in reg_keys(op)], dst


def _reads_only(ins):
    return [k for op in ins.operands for k in reg_keys(op)], []


for _sfx, (_nb, _sg, _hi) in D16_LOADS.items():
    binder("buffer_load_" + _sfx)(lambda ins, nb=_nb, sg=_sg, hi=_hi: _bind_buffer_load_d16(ins, nb, sg, hi))
    binder("flat_load_" + _sfx)(lambda ins, nb=_nb, sg=_sg, hi=_hi: _bind_flat_load_d16(ins, nb, sg, hi))
    binder("scratch_load_" + _sfx)(
        lambda ins, nb=_nb, sg=_sg, hi=_hi: _bind_scratch_load_d16(ins, nb, sg, hi))
    for _fam in ("buffer", "flat", "scratch"):
        RW_SETS[f"{_fam}_load_{_sfx}"] = _load_rw
for _sfx, _nb in D16_STORES.items():
    binder("buffer_store_" + _sfx)(lambda ins, nb=_nb: _bind_buffer_store_hi(ins, nb))
    binder("flat_store_" + _sfx)(lambda ins, nb=_nb: _bind_flat_store_hi(ins, nb))
    binder("scratch_store_" + _sfx)(lambda ins, nb=_nb: _bind_scratch_store_hi(ins, nb))
    for _fam in ("buffer", "flat", "scratch"):
        RW_SETS[f"{_fam}_store_{_sfx}"] = _reads_only
for _sfx, _nb in (("dword", 4), ("ubyte", 1), ("sbyte", 1), ("ushort", 2), ("sshort", 2)):
    binder("scratch_load_lds_" + _sfx)(lambda ins, nb=_nb: _bind_scratch_lds(ins, nb))
    RW_SETS["scratch_load_lds_" + _sfx] = _reads_only

# packed bf16 atomic add: the FLAT/GLOBAL/BUFFER atomic binders look their op up by name
mem_global.ATOMIC_OPS.setdefault("pk_add_bf16", lambda o, v: pk_add_bf16(o, v, "atomic pk_add_bf16"))
binder("global_atomic_pk_add_bf16")(lambda ins: mem_global._bind_atomic(ins, "pk_add_bf16", False))
binder("flat_atomic_pk_add_bf16")(lambda ins: mem_global._bind_atomic(ins, "pk_add_bf16", True))
binder("buffer_atomic_pk_add_bf16")(lambda ins: mem_buffer._bind_atomic(ins, "pk_add_bf16"))
RW_SETS["global_atomic_pk_add_bf16"] = RW_SETS["flat_atomic_pk_add_bf16"] = mem_global._atomic_rw
RW_SETS["buffer_atomic_pk_add_bf16"] = mem_buffer._atomic_rw


# ---------------------------------------------------------------------------------------------
# buffer_load/store_format_{x,xy,xyz,xyzw}: only the conversion-free case. V# dword3 (gfx9
# SQ_BUF_RSRC_WORD3): DST_SEL_X/Y/Z/W bits 2:0/5:3/8:6/11:9 (4..7 = X..W), NUM_FORMAT 14:12,
# DATA_FORMAT 18:15 (BUF_DATA_FORMAT_32 = 4, 32_32 = 11, 32_32_32 = 13, 32_32_32_32 = 14;
# BUF_NUM_FORMAT_UINT = 4, SINT = 5). With a 32-bit-per-component integer format whose component
# count equals the instruction's, identity DST_SEL, the access moves the dwords unchanged (the
# same bytes as buffer_load/store_dwordxN). Everything else (normalized/scaled/float formats,
# packed formats, fewer/more components than the format has, swizzled DST_SEL, the d16 format
# forms) needs the format converter or the default fill, which the documents the emulator follows
# do not pin down: refused at execution with EmulatorError.
# ---------------------------------------------------------------------------------------------
_FMT32 = {1: 4, 2: 11, 3: 13, 4: 14}
_IDENTITY_SEL = 4 | 5 << 3 | 6 << 6 | 7 << 9


def _check_format(m, w, ins, srsrc, ncomp: int) -> None:
    d3 = int(w.sgpr[srsrc.index + 3])
    dfmt, nfmt, sel = (d3 >> 15) & 0xF, (d3 >> 12) & 7, d3 & 0xFFF
    if dfmt != _FMT32[ncomp] or nfmt not in (4, 5) or sel != _IDENTITY_SEL:
        raise m.error(EmulatorError, f"{ins.op} with V# dword3 {d3:#x} (data format {dfmt}, num format "
                      f"{nfmt}, dst_sel {sel:#o}): only a {ncomp}x32-bit UINT/SINT format with identity "
                      "DST_SEL is modelled (no conversion); refused", w)


def _bind_format(ins, ncomp: int, store: bool):
    if ins.has("lds"):
        raise ValueError(f"'{ins}': format loads into LDS are not modelled")
    inner = (mem_buffer._bind_store(ins, 4 * ncomp) if store
             else mem_buffer._bind_load(ins, 4 * ncomp, False))
    srsrc = ins.operands[2]

    def fn(m, w):
        _check_format(m, w, ins, srsrc, ncomp)
        inner(m, w)
    return fn


def _refuse_format(ins):
    def fn(m, w):
        raise m.error(EmulatorError, f"{ins.op}: the d16 format forms convert to 16-bit components; "
                      "that conversion is not modelled; refused", w)
    return fn


for _k, _sfx in enumerate(("x", "xy", "xyz", "xyzw"), 1):
    binder("buffer_load_format_" + _sfx)(lambda ins, n=_k: _bind_format(ins, n, False))
    binder("buffer_store_format_" + _sfx)(lambda ins, n=_k: _bind_format(ins, n, True))
    RW_SETS["buffer_store_format_" + _sfx] = _reads_only
    for _d in ("d16_", "d16_hi_"):
        binder(f"buffer_load_format_{_d}{_sfx}")(_refuse_format)
        binder(f"buffer_store_format_{_d}{_sfx}")(_refuse_format)
