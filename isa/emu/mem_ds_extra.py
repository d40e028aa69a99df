"""LDS (DS) instructions beyond isa.emu.mem_lds: the rarer read-modify-write atomics (rsub, mskor,
wrap, float min/max, float compare-store, packed f16/bf16 add), the two-address exchanges
(ds_wrxchg2[st64]_rtn_b32/b64), the lane-id addressed ds_read/write_addtid_b32, and ds_nop.

Every LDS access goes through the same machinery as mem_lds: bounds check at issue, one AsyncOp in
lgkmcnt carrying the touched dwords (``lds_dw``) so the LDS race detector and the LDS-DMA pending
checks see it, RMW ops flagged ``lds_write="atomic"``, lanes applied in lane order when the op lands.

Sources (cited per family below): AMD "Vega"/CDNA3 ISA DS opcode descriptions (pseudocode
``tmp = MEM[ADDR]; MEM[ADDR] = f(tmp, DATA, DATA2); RETURN_DATA = tmp``), LLVM DSInstructions.td
for operand lists (gfx9: ds_min/max_f32 take ONE data operand, D25837), and AMDGPUUsage.

Refused (documents do not pin them down; EmulatorError names the reason):
  * float min/max/compare-store on NaN, on denormal operands (compare under a flush mode is not
    documented) and on +0 vs -0 (which zero wins is not documented);
  * ds_pk_add_bf16 whose exact sum is not a normal/zero bf16 (rounding of the bf16 atomic adder
    is not documented), or with NaN/inf/denormal halves;
  * ds_wrxchg2* with offset0 == offset1 (overlapping elements); ds_*_addtid with M0 >= 2^16 or
    an unaligned M0 + offset;
  * ds_condxchg32_rtn_b64, ds_append, ds_consume (not bound here: UnknownInstructionError).
Registered in the DS registry (isa.emu.registry); isa.emu.catalog imports this module.
"""
from __future__ import annotations

from fractions import Fraction

import numpy as np

from .errors import EmulatorError
from .lds import dwords_of
from .mem_common import byte_range, mod_int, regfile
from .mem_lds import _check, _lanes_addr, _qwords, ds_rw_keys
from .pending import LDS, AsyncOp
from .registry import RW_SETS, binder
from .regkeys import reg_keys

M32 = 0xFFFFFFFF
M64 = (1 << 64) - 1


# ---------------------------------------------------------------------------------------------
# float helpers: classify raw patterns
# ---------------------------------------------------------------------------------------------
def _fclass(x: int, bits: int) -> tuple[str, float]:
    """('nan'|'inf'|'denorm'|'zero'|'normal', value) of a raw f32/f64/f16/bf16 pattern."""
    if bits == 64:
        f = float(np.array([x], np.uint64).view(np.float64)[0])
        ebits, mbits = 11, 52
    elif bits == 32:
        f = float(np.array([x], np.uint32).view(np.float32)[0])
        ebits, mbits = 8, 23
    elif bits == 16:
        f = float(np.array([x], np.uint16).view(np.float16)[0])
        ebits, mbits = 5, 10
    else:   # bf16: the high half of an f32
        f = float(np.array([x << 16], np.uint32).view(np.float32)[0])
        ebits, mbits = 8, 7
    e = (x >> mbits) & ((1 << ebits) - 1)
    mant = x & ((1 << mbits) - 1)
    if e == (1 << ebits) - 1:
        return ("nan" if mant else "inf"), f
    if e == 0:
        return ("denorm" if mant else "zero"), f
    return "normal", f


def _ordered(name: str, a: int, b: int, bits: int) -> tuple[float, float]:
    """Values of two float patterns a float compare may use; refuses the undocumented cases."""
    ca, fa = _fclass(a, bits)
    cb, fb = _fclass(b, bits)
    if "nan" in (ca, cb) or "denorm" in (ca, cb):
        raise EmulatorError(f"{name} on f{bits} patterns {a:#x} / {b:#x}: NaN and denormal handling of "
                            "the LDS float compare is not documented; refused")
    if ca == cb == "zero" and a != b:
        raise EmulatorError(f"{name} on +0 / -0 ({a:#x} / {b:#x}): which zero the LDS unit keeps is "
                            "not documented; refused")
    return fa, fb


# ---------------------------------------------------------------------------------------------
# RMW op functions: (old, d0, d1) -> new (raw patterns as Python ints)
# ---------------------------------------------------------------------------------------------
def _rsub(bits):
    # ISA DS_RSUB_U32/U64: MEM[ADDR] = DATA - MEM[ADDR] (reverse subtract), modulo 2^bits
    mask = (1 << bits) - 1
    return lambda o, d0, d1: (d0 - o) & mask


def _mskor(o, d0, d1):
    # ISA DS_MSKOR_B32/B64: MEM[ADDR] = (MEM[ADDR] & ~DATA) | DATA2
    return (o & ~d0) | d1


def _wrap(o, d0, d1):
    # ISA DS_WRAP_RTN_B32: MEM[ADDR] = (tmp >= DATA) ? tmp - DATA : tmp + DATA2 (unsigned, mod 2^32)
    return (o - d0) & M32 if o >= d0 else (o + d1) & M32


def _fminmax(is_min: bool, bits: int):
    # ISA DS_MIN_F32/DS_MAX_F32 (and _F64): MEM[ADDR] = (DATA < tmp) ? DATA : tmp (min),
    # (DATA > tmp) ? DATA : tmp (max); one data operand on gfx9+ (LLVM D25837)
    name = f"ds_{'min' if is_min else 'max'}_f{bits}"

    def f(o, d0, d1):
        fo, fd = _ordered(name, o, d0, bits)
        return d0 if (fd < fo if is_min else fd > fo) else o
    return f


def _fcmpst(bits: int):
    # ISA DS_CMPST_F32/F64: floating-point compare: MEM = (tmp == DATA) ? DATA2 : tmp (cmp in DATA,
    # new value in DATA2, the reverse of FLAT cmpswap; same operand order as ds_cmpst_b32)
    name = f"ds_cmpst_f{bits}"

    def f(o, d0, d1):
        fo, fc = _ordered(name, o, d0, bits)
        return d1 if fo == fc else o
    return f


def _pk_add_f16(o, d0, d1):
    # ISA DS_PK_ADD_F16: two independent f16 adds (low and high half); IEEE round to nearest even
    # with f16 denormals kept (AMDGPUUsage: FLOAT_DENORM_MODE_16_64 defaults to 3, no flush), the
    # same arithmetic as isa.emu.mem_global's global_atomic_pk_add_f16
    # (the f64 sum of two f16 values is exact, so the one rounding is the cast back to f16)
    x = np.array([o, d0], np.uint32).view(np.float16).astype(np.float64).reshape(2, 2).sum(0)
    return int(x.astype(np.float16).view(np.uint32)[0])


def _bf16_half(a: int, b: int, name: str) -> int:
    ca, fa = _fclass(a, 0)
    cb, fb = _fclass(b, 0)
    if {ca, cb} - {"zero", "normal"}:
        raise EmulatorError(f"{name}: bf16 halves {a:#06x} + {b:#06x} include NaN/inf/denormal; the "
                            "bf16 atomic adder's handling is not documented; refused")
    s = Fraction(fa) + Fraction(fb)
    if s == 0:
        # exact zero: IEEE round-to-nearest gives +0 unless both addends are -0
        return 0x8000 if (a == 0x8000 and b == 0x8000) else 0
    bits = int(np.array([float(s)], np.float32).view(np.uint32)[0])
    out = bits >> 16
    if (bits & 0xFFFF) or Fraction(_fclass(out, 0)[1]) != s or _fclass(out, 0)[0] != "normal":
        raise EmulatorError(f"{name}: bf16 {fa!r} + {fb!r} = {float(s)!r} is not exactly representable "
                            "as a normal bf16; the rounding of the bf16 atomic add is not documented; "
                            "refused")
    return out


def pk_add_bf16(o: int, d: int, name: str = "pk_add_bf16") -> int:
    """Two independent bf16 adds (ISA *_PK_ADD_BF16): only exactly representable results."""
    lo = _bf16_half(o & 0xFFFF, d & 0xFFFF, name)
    hi = _bf16_half(o >> 16, d >> 16, name)
    return lo | (hi << 16)


# name -> (bytes, data operands, fn)
RMW = {
    "rsub_u32": (4, 1, _rsub(32)), "rsub_u64": (8, 1, _rsub(64)),
    "mskor_b32": (4, 2, _mskor), "mskor_b64": (8, 2, _mskor),
    "min_f32": (4, 1, _fminmax(True, 32)), "max_f32": (4, 1, _fminmax(False, 32)),
    "min_f64": (8, 1, _fminmax(True, 64)), "max_f64": (8, 1, _fminmax(False, 64)),
    "cmpst_f32": (4, 2, _fcmpst(32)), "cmpst_f64": (8, 2, _fcmpst(64)),
    "pk_add_f16": (4, 1, _pk_add_f16),
    "pk_add_bf16": (4, 1, lambda o, d0, d1: pk_add_bf16(o, d0, "ds_pk_add_bf16")),
}


def _bind_rmw(name: str, rtn: bool):
    nb, ndata, op_fn = RMW.get(name, (4, 2, _wrap))
    ut = np.uint64 if nb == 8 else np.uint32

    def bind(ins):
        ops = list(ins.operands)
        vdst = ops.pop(0) if rtn else None
        vaddr, datas = ops[0], ops[1:1 + ndata]
        if len(datas) != ndata:
            raise ValueError(f"'{ins}': {ins.op} takes {ndata} data operand(s)")
        regs = reg_keys(vdst) if rtn else ()
        offset = mod_int(ins, "offset")

        def fn(m, w):
            lanes, addr = _lanes_addr(w, vaddr, offset)
            _check(m, w, addr, nb, f"{ins.op} of {nb} bytes")
            vals = [_qwords(regfile(w, d), d.index, lanes, nb) for d in datas]
            buf = m.lds.buf

            def apply():
                old = np.empty(len(addr), ut)
                for j in range(len(addr)):     # lanes in order: same-address lanes chain
                    cur = buf[int(addr[j]):int(addr[j]) + nb].view(ut)
                    old[j] = cur[0]
                    d1 = int(vals[1][j]) if ndata == 2 else 0
                    cur[0] = op_fn(int(cur[0]), int(vals[0][j]), d1)
                if vdst is not None:
                    rows = old.view(np.uint32).reshape(-1, nb // 4).T
                    regfile(w, vdst)[vdst.index:vdst.index + nb // 4, lanes] = rows
            dw = dwords_of(addr[:, None] + byte_range(nb))
            m.issue(w, AsyncOp(w, LDS, regs, apply, w.pc, ins, lds_dw=dw, lds_write="atomic"))
        return fn
    return bind


def _rtn_name(name: str) -> str:
    """'pk_add_f16' -> 'pk_add_rtn_f16' (LLVM puts _rtn before the type suffix)."""
    k = name.rfind("_")
    return name[:k] + "_rtn" + name[k:]


for _n in RMW:
    binder("ds_" + _n)(_bind_rmw(_n, False))
    binder("ds_" + _rtn_name(_n))(_bind_rmw(_n, True))
    RW_SETS["ds_" + _n] = RW_SETS["ds_" + _rtn_name(_n)] = ds_rw_keys
binder("ds_wrap_rtn_b32")(_bind_rmw("wrap_rtn_b32", True))
RW_SETS["ds_wrap_rtn_b32"] = ds_rw_keys


# ---------------------------------------------------------------------------------------------
# ds_wrxchg2[st64]_rtn_b32/b64 vdst(2 elems), vaddr, data0, data1 offset0 offset1
# ISA DS_WRXCHG2_RTN_B32: write-exchange of two separate dwords at ADDR + offset0*4 and
# ADDR + offset1*4 (B64: *8; ST64: offsets additionally *64), returning both old values in vdst
# (element 0 then element 1), as ds_write2/ds_read2 address their elements.
# ---------------------------------------------------------------------------------------------
def _bind_wrxchg2(size: int, scale: int):
    ut = np.uint64 if size == 8 else np.uint32
    ndw = size // 4

    def bind(ins):
        vdst, vaddr, d0, d1 = ins.operands[:4]
        o0 = mod_int(ins, "offset0") * size * scale
        o1 = mod_int(ins, "offset1") * size * scale
        if abs(o0 - o1) < size:
            raise ValueError(f"'{ins}': the two exchanged elements overlap (offset0 == offset1); "
                                "which write wins is not documented")
        regs = reg_keys(vdst)

        def fn(m, w):
            lanes, addr = _lanes_addr(w, vaddr, 0)
            _check(m, w, addr, max(o0, o1) + size, f"{ins.op} of 2x{size} bytes")
            v0 = _qwords(regfile(w, d0), d0.index, lanes, size)
            v1 = _qwords(regfile(w, d1), d1.index, lanes, size)
            a0 = addr.astype(np.int64) + o0
            a1 = addr.astype(np.int64) + o1
            buf = m.lds.buf

            def apply():
                old = np.empty((len(addr), 2), ut)
                for j in range(len(addr)):
                    for k, (a, v) in enumerate(((a0, v0), (a1, v1))):
                        cur = buf[int(a[j]):int(a[j]) + size].view(ut)
                        old[j, k] = cur[0]
                        cur[0] = v[j]
                rows = old.view(np.uint32).reshape(len(addr), 2 * ndw).T
                regfile(w, vdst)[vdst.index:vdst.index + 2 * ndw, lanes] = rows
            idx = np.concatenate([a0[:, None] + byte_range(size), a1[:, None] + byte_range(size)], 1)
            m.issue(w, AsyncOp(w, LDS, regs, apply, w.pc, ins, lds_dw=dwords_of(idx),
                               lds_write="atomic"))
        return fn
    return bind


for _sz, _nm in ((4, "b32"), (8, "b64")):
    for _sc, _st in ((1, ""), (64, "st64")):
        _mn = f"ds_wrxchg2{_st}_rtn_{_nm}"
        binder(_mn)(_bind_wrxchg2(_sz, _sc))
        RW_SETS[_mn] = ds_rw_keys


# ---------------------------------------------------------------------------------------------
# ds_read_addtid_b32 vdst / ds_write_addtid_b32 vdata: no address VGPR; CDNA ISA:
# address = LDS_BASE + OFFSET + M0.OFFSET + TID*4 (TID = lane id). The M0 field is bits 15:0 in
# the RDNA/CDNA DS tables ("M0: unsigned byte offset[15:0], used by the ADDTID instructions");
# a wider M0 is refused rather than guessing which bits count.
# ---------------------------------------------------------------------------------------------
def _addtid_addr(m, w, ins, offset: int):
    if w.m0 >> 16:
        raise m.error(EmulatorError, f"{ins.op} with M0 = {w.m0:#x}: only M0[15:0] is documented as "
                      "the ADDTID byte offset; M0 >= 2^16 refused", w)
    lanes = np.flatnonzero(w.exec_mask())
    addr = (np.int64(w.m0 & 0xFFFF) + offset + lanes.astype(np.int64) * 4)
    return lanes, addr


def _addtid_clamp(m, w, ins, addr, write: bool):
    """(dwords the lanes access, with out-of-range ones sent to the zero / sink dword; dwords in
    range) - out-of-range reads return 0, writes are dropped (ISA 3.6.1, isa.emu.lds)."""
    idx, ok = m.lds.clamp(m, w, addr[:, None] + byte_range(4), 4, f"{ins.op} of 4 bytes", write)
    return idx[:, 0] >> 2, (addr >> 2) if ok is None else (addr[ok[:, 0]] >> 2)


def bind_read_addtid(ins):
    vdst = ins.operands[0]
    offset = mod_int(ins, "offset")
    regs = reg_keys(vdst)

    def fn(m, w):
        lanes, addr = _addtid_addr(m, w, ins, offset)
        src, dw = _addtid_clamp(m, w, ins, addr, False)
        if m.lds.dma_owner is not None:
            m.lds.check_dma_pending(m, w, dw)
        f, u32 = regfile(w, vdst), m.lds.buf32

        def apply():
            f[vdst.index, lanes] = u32[src]
        m.issue(w, AsyncOp(w, LDS, regs, apply, w.pc, ins, lds_dw=dw))
    return fn


def bind_write_addtid(ins):
    vdata = ins.operands[0]
    offset = mod_int(ins, "offset")
    if offset & 3:
        raise ValueError(f"'{ins}': offset {offset} is not dword aligned")

    def fn(m, w):
        lanes, addr = _addtid_addr(m, w, ins, offset)
        dst, dw = _addtid_clamp(m, w, ins, addr, True)
        vals = regfile(w, vdata)[vdata.index][lanes].copy()
        if m.lds.dma_owner is not None:
            m.lds.check_dma_pending(m, w, dw, write=True)
        u32 = m.lds.buf32

        def apply():
            u32[dst] = vals
        m.issue(w, AsyncOp(w, LDS, (), apply, w.pc, ins, lds_dw=dw, lds_write=True))
    return fn


@binder("ds_read_addtid_b32", "ds_write_addtid_b32")
def _bind_addtid_checked(ins):
    """Both addtid forms: dword-aligned M0 + offset is required (the read path uses dword
    indices); an unaligned base is refused."""
    inner = bind_read_addtid(ins) if ins.op.startswith("ds_read") else bind_write_addtid(ins)
    offset = mod_int(ins, "offset")

    def fn(m, w):
        if (w.m0 + offset) & 3:
            raise m.error(EmulatorError, f"{ins.op}: M0 + offset = {(w.m0 & 0xFFFF) + offset} is not "
                          "dword aligned; unaligned ADDTID access is not modelled", w)
        inner(m, w)
    return fn


RW_SETS["ds_read_addtid_b32"] = lambda ins: ([], list(reg_keys(ins.operands[0])))
RW_SETS["ds_write_addtid_b32"] = lambda ins: (list(reg_keys(ins.operands[0])), [])


@binder("ds_nop")
def bind_ds_nop(ins):
    """ISA DS_NOP: does nothing (no LDS access, no register written). It is still a DS
    instruction; it is modelled as an LDS-queue op without data so it counts in lgkmcnt like the
    other DS ops (an assumption that only affects waits, never data)."""
    def fn(m, w):
        m.issue(w, AsyncOp(w, LDS, (), None, w.pc, ins))
    return fn


RW_SETS["ds_nop"] = lambda ins: ([], [])
