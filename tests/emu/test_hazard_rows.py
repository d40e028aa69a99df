"""Rows of AMD's required-wait-state tables added in session 7 (docs/hazard-audit.md, "Rows of the
guides' tables"): each on the judge, a violating pair (HazardError naming the rule) and the same
pair with enough wait states between (runs)."""
from __future__ import annotations

import numpy as np
import pytest
from core_util import run

from isa.emu import Emulator
from isa.emu.errors import HazardError

# CDNA3 ISA Table 11 case 8: a wide store's data VGPRs written by a non-VALU op (here a load
# returning into them): 1; case 9 with an MFMA (a VALU op) as the writer: 2
STORE = """
      v_lshlrev_b32 v12, 4, v5
      v_mov_b32 v13, s1
      v_add_co_u32 v10, vcc, s0, v12
      v_addc_co_u32 v11, vcc, v13, 0, vcc
      v_mov_b32 v0, 1
      v_mov_b32 v1, 2
      v_mov_b32 v2, 3
      v_mov_b32 v3, 4
      s_nop 4
      global_store_dwordx4 v[10:11], v[0:3], off
      {nops}
      {writer}
      s_waitcnt vmcnt(0)
      s_nop 7
      s_nop 7
      s_endpgm"""
LOAD = "global_load_dwordx4 v[0:3], v[10:11], off"
MFMA = "v_mfma_f32_16x16x16_f16 v[0:3], v[20:21], v[22:23], 0"


def _store(writer: str, nops: str):
    emu = Emulator()
    buf = np.zeros(4 * 64, np.uint32)
    addr = emu.alloc(buf)
    run(STORE.format(writer=writer, nops=nops), emu=emu, vgprs={5: np.arange(64)},
        sgprs={0: addr & 0xFFFFFFFF, 1: addr >> 32})
    return buf


def test_load_into_wide_store_data_needs_one_wait_state():
    with pytest.raises(HazardError, match="wide_store_data_mem_war"):
        _store(LOAD, "")
    assert (_store(LOAD, "s_nop 0").reshape(64, 4) == [1, 2, 3, 4]).all()


def test_mfma_writing_wide_store_data_needs_two():
    with pytest.raises(HazardError, match="wide_store_data_mfma_war"):
        _store(MFMA, "s_nop 0")
    assert (_store(MFMA, "s_nop 1").reshape(64, 4) == [1, 2, 3, 4]).all()


# CDNA4 ISA Table 11: V_CMPX -> V_PERMLANE*: 4 (gfx950)
PERM = """
      v_cmpx_gt_u32_e64 s[0:1], 40, v9
      {nops}
      v_permlane32_swap_b32 v0, v2
      s_endpgm"""


def test_cmpx_then_permlane_swap_needs_four_on_gfx950():
    with pytest.raises(HazardError, match="valu_exec_permlane_swap"):
        run(PERM.format(nops="s_nop 2"), emu=Emulator(arch="gfx950"), vgprs={9: np.arange(64), 0: 0, 2: 0})
    run(PERM.format(nops="s_nop 3"), emu=Emulator(arch="gfx950"), vgprs={9: np.arange(64), 0: 0, 2: 0})


# CDNA3/CDNA4 ISA Table 11 case 17: SALU writes M0 -> S_MOVREL: 1
def test_salu_m0_then_movrels_needs_one():
    text = """
      s_mov_b32 m0, 2
      {nops}
      s_movrels_b32 s20, s10
      s_endpgm"""
    with pytest.raises(HazardError, match="salu_m0_movrel"):
        run(text.format(nops=""), sgprs={10: [7, 8, 9]})
    m = run(text.format(nops="s_nop 0"), sgprs={10: [7, 8, 9]})
    assert m.waves[0].sgpr[20] == 9                  # s[10 + M0]
