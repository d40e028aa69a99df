"""Cross-lane VALU semantics: v_readfirstlane_b32, v_readlane_b32, v_writelane_b32, v_mbcnt_lo/hi_u32_b32,
v_permlane16_swap_b32 / v_permlane32_swap_b32 (gfx950), and v_nop.

- v_readfirstlane_b32: the lowest active lane, lane 0 when EXEC is 0 (ISA guide).
- v_readlane/v_writelane: lane select = low 6 bits of the SGPR/constant; v_writelane writes that lane
  whatever EXEC holds (ISA guide: "ignores EXEC").
- v_mbcnt_lo: popcount(S0 & ((1 << lane) - 1)) for lanes 0..31, popcount(S0) above; v_mbcnt_hi:
  popcount(S0 & ((1 << (lane - 32)) - 1)) for lanes 32..63, 0 below; both add S1.
- v_permlane16_swap_b32 vdst, vsrc: odd rows of vdst are exchanged with even rows of vsrc (row = 16
  lanes): vdst[16..31] <-> vsrc[0..15], vdst[48..63] <-> vsrc[32..47]. v_permlane32_swap_b32: rows 2-3 of
  vdst <-> rows 0-1 of vsrc (LLVM AMDGPU intrinsic docs). Each written lane honours EXEC.
"""
from __future__ import annotations

import numpy as np

from .dpp import plain_reader, reject_mods
from .operand_io import AluOperandError, alu, ops, scalar_getter, scalar_setter, vector_getter, vector_setter

LANES = np.arange(64)
U32 = np.uint32


@alu("v_readfirstlane_b32")
def _readfirstlane(ins):
    d, s = ops(ins, 2)
    reject_mods(ins)
    get, put = vector_getter(s), scalar_setter(d)

    def run(m, w):
        ex = w.exec
        lane = (ex & -ex).bit_length() - 1 if ex else 0
        put(w, int(get(w)[lane]))
    return run


@alu("v_readlane_b32")
def _readlane(ins):
    d, s, lane = ops(ins, 3)
    get, put, gl = vector_getter(s), scalar_setter(d), scalar_getter(lane)
    return lambda m, w: put(w, int(get(w)[gl(w) & 63]))


@alu("v_writelane_b32")
def _writelane(ins):
    d, s, lane = ops(ins, 3)
    gs, gl = scalar_getter(s), scalar_getter(lane)
    if getattr(d, "file", None) != "v":
        raise AluOperandError(f"{ins}: v_writelane_b32 destination {d} must be a VGPR")
    idx = d.index

    def run(m, w):
        w.vgpr[idx, gl(w) & 63] = gs(w)
    return run


# prefix masks: bits of a 32-bit mask below each lane
_BELOW_LO = np.array([(1 << min(lane, 32)) - 1 for lane in range(64)], dtype=np.uint64)
_BELOW_HI = np.array([0 if lane < 32 else (1 << (lane - 32)) - 1 for lane in range(64)], dtype=np.uint64)


def _bind_mbcnt(table):
    def bind(ins):
        d = ops(ins, 3)[0]
        reject_mods(ins)
        gm = scalar_getter(ins.operands[1])
        gb = plain_reader(ins, 2, 1, "u32")
        put = vector_setter(d)

        def run(m, w):
            cnt = np.bitwise_count(table & np.uint64(gm(w))).astype(U32)
            put(w, cnt + gb(w), w.exec_mask())
        return run
    return bind


alu("v_mbcnt_lo_u32_b32")(_bind_mbcnt(_BELOW_LO))
alu("v_mbcnt_hi_u32_b32")(_bind_mbcnt(_BELOW_HI))


def _bind_permlane_swap(pairs_dst: np.ndarray, pairs_src: np.ndarray):
    """vdst lanes ``pairs_dst`` exchange with vsrc lanes ``pairs_src``."""
    def bind(ins):
        d, s = ops(ins, 2)
        reject_mods(ins)
        gd, gs = vector_getter(d), vector_getter(s)
        pd, ps = vector_setter(d), vector_setter(s)

        def run(m, w):
            a, b = gd(w).copy(), gs(w).copy()
            na, nb = a.copy(), b.copy()
            na[pairs_dst] = b[pairs_src]
            nb[pairs_src] = a[pairs_dst]
            ex = w.exec_mask()
            pd(w, na, ex)
            ps(w, nb, ex)
        return run
    return bind


_ROW = np.arange(16)
alu("v_permlane16_swap_b32")(_bind_permlane_swap(np.concatenate([_ROW + 16, _ROW + 48]),
                                                 np.concatenate([_ROW, _ROW + 32])))
alu("v_permlane32_swap_b32")(_bind_permlane_swap(np.arange(32, 64), np.arange(0, 32)))


@alu("v_nop")
def _vnop(ins):
    return lambda m, w: None
