"""DPP semantics (isa.emu.dpp) against NumPy lane maps: quad_perm, row_shl/shr/ror 1..15, wave_shl/shr/
rol/ror, row_mirror, row_half_mirror, row_bcast:15/31, row_newbcast; row_mask/bank_mask disable writes;
bound_ctrl writes 0 for out-of-range or EXEC-disabled source lanes, otherwise those lanes keep their
value; DPP on src0 of a VOP2 with modifiers."""
from __future__ import annotations

import numpy as np
import pytest

from isa.emu.catalog import execute
from isa.emu.state import Wave

FULL = (1 << 64) - 1
L = np.arange(64)


def lanes(mask):
    return np.array([(mask >> i) & 1 for i in range(64)], bool)


def wave(exec_mask=FULL):
    w = Wave(0)
    w.vgpr[1] = 1000 + L
    w.vgpr[2] = 7
    w.vgpr[0] = 0xDEAD
    w.set_exec(exec_mask)
    return w


def expect(src, valid, bound_zero, exec_mask=FULL, enable=None):
    """Reference v_mov_b32_dpp v0, v1 result for a source-lane map."""
    act = lanes(exec_mask)
    enable = np.ones(64, bool) if enable is None else enable
    src = np.where(valid, src, 0) % 64
    ok = valid & act[src]
    val = np.where(ok, 1000 + src, 0)
    write = act & enable & (ok | bound_zero)
    return np.where(write, val, 0xDEAD)


CTRLS = [("quad_perm:[3,2,1,0]", (L & ~3) | (3 - (L & 3)), np.ones(64, bool)),
         ("quad_perm:[0,0,0,0]", L & ~3, np.ones(64, bool)),
         ("row_mirror", (L & ~15) | (15 - (L & 15)), np.ones(64, bool)),
         ("row_half_mirror", (L & ~7) | (7 - (L & 7)), np.ones(64, bool)),
         ("wave_shl:1", L + 1, L < 63), ("wave_shr:1", L - 1, L > 0),
         ("wave_rol:1", (L + 1) % 64, np.ones(64, bool)), ("wave_ror:1", (L - 1) % 64, np.ones(64, bool)),
         ("row_bcast:15", (L & ~15) - 1, L >= 16), ("row_bcast:31", np.full(64, 31), L >= 32),
         ("row_newbcast:5", (L & ~15) | 5, np.ones(64, bool))]
CTRLS += [(f"row_shl:{n}", L + n, (L & 15) + n < 16) for n in (1, 4, 15)]
CTRLS += [(f"row_shr:{n}", L - n, (L & 15) >= n) for n in (1, 3, 15)]
CTRLS += [(f"row_ror:{n}", (L & ~15) | ((L - n) & 15), np.ones(64, bool)) for n in (1, 8, 15)]


@pytest.mark.parametrize("ctrl,src,valid", CTRLS, ids=[c[0] for c in CTRLS])
@pytest.mark.parametrize("bound", [False, True])
def test_lane_maps(ctrl, src, valid, bound):
    for exec_mask in (FULL, 0xFFFF_0000_FF00_F0F7):
        w = wave(exec_mask)
        text = f"v_mov_b32_dpp v0, v1 {ctrl} row_mask:0xf bank_mask:0xf" + (" bound_ctrl:0" if bound else "")
        execute(w, text, arch="gfx942")
        assert np.array_equal(w.vgpr[0], expect(src, valid, bound, exec_mask)), (text, hex(exec_mask))


def test_row_and_bank_masks():
    w = wave()
    execute(w, "v_mov_b32_dpp v0, v1 quad_perm:[0,1,2,3] row_mask:0xa bank_mask:0x5")
    enable = (((0xA >> (L // 16)) & 1) & ((0x5 >> ((L // 4) & 3)) & 1)).astype(bool)
    assert np.array_equal(w.vgpr[0], expect(L, np.ones(64, bool), False, enable=enable))


def test_vop2_dpp_with_modifiers():
    w = wave()
    w.vgpr[3] = np.arange(64, dtype=np.float32).view(np.uint32)
    w.vgpr[4] = np.full(64, 0.5, np.float32).view(np.uint32)
    execute(w, "v_add_f32_dpp v0, -v3, v4 row_shr:1 row_mask:0xf bank_mask:0xf bound_ctrl:0")
    src = np.where((L & 15) >= 1, L - 1, -1)
    ref = np.where(src >= 0, -src.astype(np.float32), np.float32(-0.0)) + np.float32(0.5)
    assert np.array_equal(w.vgpr[0].view(np.float32), ref.astype(np.float32))


def test_scan_step_as_llvm_emits_it():
    """A reduction step: v_add_u32_dpp with row_shr:1 without bound_ctrl keeps lane 0 of each row."""
    w = wave()
    w.vgpr[5] = L + 1
    w.vgpr[0] = w.vgpr[5]
    execute(w, "v_add_u32_dpp v0, v5, v5 row_shr:1 row_mask:0xf bank_mask:0xf")
    ref = np.where((L & 15) >= 1, L + (L + 1), L + 1)
    assert np.array_equal(w.vgpr[0], ref)
