"""The judge's hazard view (isa.hazards view "emu", docs/hazard-audit.md): it accepts what AMD
documents and no less, reports the open MFMA-shadow case as its own kind, and lets a user allow
violations per rule (counted, never silent)."""
from __future__ import annotations

import numpy as np
import pytest
from core_util import run

from isa.emu import Emulator
from isa.emu.errors import HazardError, LaunchError, MfmaShadowHazardError

# hipBLASLt's custom MT256x256x64 bf16 gfx942 kernel: a VCC written by v_cmp, read as a carry-in
# straight after. AMD rocRoller VALUWriteSGPRVCC: "if VCC/SGPRs are read as carry, 0 NOPs are
# required"; LLVM's recognizer asks 2 (the generator's view).
CARRY = """
      v_cmp_ne_u32_e64 vcc, v9, 0
      v_addc_co_u32_e64 v6, vcc, v6, 0, vcc
      s_endpgm"""


def test_carry_in_needs_no_wait_state_and_adds_the_carry():
    m = run(CARRY, vgprs={9: np.arange(64) % 2, 6: np.full(64, 7)})
    assert (m.waves[0].vgpr[6] == 7 + np.arange(64) % 2).all()


def test_sgpr_pair_carry_in_also_needs_none():
    run("""
      v_cmp_gt_u32_e64 s[4:5], v9, 3
      v_addc_co_u32_e64 v6, s[6:7], v6, 0, s[4:5]
      s_endpgm""", vgprs={9: np.arange(64), 6: 0})


def test_vcc_as_constant_needs_one_sgpr_needs_two():
    # RR VALUWriteSGPRVCC (94x): v_cmp write VCC -> v_* read as constant 1; SGPR 2
    run("""
      v_cmp_gt_u32 vcc, 5, v9
      s_nop 0
      v_cndmask_b32 v1, v2, v3, vcc
      s_endpgm""", vgprs={9: np.arange(64)})
    with pytest.raises(HazardError, match="needs 1 wait states"):
        run("""
      v_cmp_gt_u32 vcc, 5, v9
      v_cndmask_b32 v1, v2, v3, vcc
      s_endpgm""", vgprs={9: np.arange(64)})
    with pytest.raises(HazardError, match="valu_sgpr_valu.*needs 2|needs 2.*valu_sgpr_valu"):
        run("""
      v_cmp_gt_u32_e64 s[4:5], 5, v9
      s_nop 0
      v_cndmask_b32_e64 v1, v2, v3, s[4:5]
      s_endpgm""", vgprs={9: np.arange(64)})


def test_carry_op_reading_vcc_as_a_plain_source_still_needs_its_state():
    with pytest.raises(HazardError, match="valu_vcc_carry_op_src"):
        run("""
      v_cmp_gt_u32 vcc, 5, v9
      v_addc_co_u32_e64 v6, s[6:7], vcc_lo, v6, s[8:9]
      s_endpgm""", vgprs={9: np.arange(64)}, sgprs={8: [0, 0]})


# XDL 16x16x16 bf16 (8 passes on gfx942: P+3 = 11 states before a VALU reads its result); two
# 8-pass MFMAs in between count 2 instructions, 16 if each counts its passes.
SHADOW = """
      v_mfma_f32_16x16x16_bf16 v[0:3], v[10:11], v[12:13], 0
      v_mfma_f32_16x16x16_bf16 v[4:7], v[10:11], v[12:13], 0
      v_mfma_f32_16x16x16_bf16 v[20:23], v[10:11], v[12:13], 0
      {nops}
      v_add_f32 v30, v0, v0
      s_endpgm"""


def test_mfma_shadow_is_its_own_kind_and_not_allowed_by_default():
    with pytest.raises(MfmaShadowHazardError, match="xdl_write_valu_reads.*mfma_shadow") as e:
        run(SHADOW.format(nops=""))
    assert e.value.rules == ("xdl_write_valu_reads",)
    with pytest.raises(HazardError) as e:      # also a HazardError (catch-all callers)
        run(SHADOW.format(nops=""))
    assert isinstance(e.value, MfmaShadowHazardError)


def test_allowed_rule_runs_on_and_is_counted():
    emu = Emulator(allow_hazards={"xdl_write_valu_reads"})
    run(SHADOW.format(nops=""), emu=emu)
    assert emu.allowed_hazards == {("xdl_write_valu_reads", "mfma_shadow"): 1}


def test_too_few_even_with_the_shadow_is_a_plain_hazard_error():
    # one instruction after a lone MFMA: no MFMA in between to count
    text = """
      v_mfma_f32_16x16x16_bf16 v[0:3], v[10:11], v[12:13], 0
      s_nop 1
      v_add_f32 v30, v0, v0
      s_endpgm"""
    with pytest.raises(HazardError) as e:
        run(text)
    assert not isinstance(e.value, MfmaShadowHazardError)
    emu = Emulator(allow_hazards=["xdl_write_valu_reads"])
    run(text, emu=emu)
    assert emu.allowed_hazards == {("xdl_write_valu_reads", "hazard"): 1}


def test_enough_instructions_is_no_violation():
    run(SHADOW.format(nops="s_nop 8"))      # 2 MFMAs + 9 = 11


def test_unknown_rule_name_is_a_typed_error():
    with pytest.raises(LaunchError, match="unknown hazard rule.*'xdl_write_valu_read'"):
        Emulator(allow_hazards={"xdl_write_valu_read"})


# 2-pass f32 MFMA (SGEMM) result accumulated by the next MFMA through the identical SrcC.
# CDNA3 ISA Table 37 case 107: SGEMM -> XDL reading SrcC exactly the same as the 1st vDst: 0;
# SGEMM -> SGEMM (CDNA4 Table 38) and XDL -> XDL (case 102) 2-pass: 2 (docs/hazard-audit.md).
SGEMM2 = "v_mfma_f32_4x4x1_16b_f32 v[0:3], v10, v11, 0"
XDL2_ACC = "v_mfma_f32_4x4x4_16b_f16 v[0:3], v[12:13], v[14:15], v[0:3]"
SGEMM2_ACC = "v_mfma_f32_4x4x1_16b_f32 v[0:3], v10, v11, v[0:3]"
ONES = {10: np.full(64, 0x3F800000), 11: np.full(64, 0x40000000),      # f32 1.0, 2.0
        12: np.full(64, 0x3C003C00), 13: np.full(64, 0x3C003C00),      # f16 pairs of 1.0
        14: np.full(64, 0x3C003C00), 15: np.full(64, 0x3C003C00)}


def _acc(first: str, second: str, nops: str = "") -> np.ndarray:
    m = run(f"\n{first}\n{nops}\n{second}\ns_nop 7\ns_nop 7\ns_endpgm", vgprs=dict(ONES))
    return m.waves[0].vgpr[0:4].view(np.float32)


def test_sgemm_2pass_to_xdl_same_srcc_needs_no_wait_state():
    got = _acc(SGEMM2, XDL2_ACC)
    # 1*2 from the f32 MFMA (K = 1), plus K = 4 products of 1.0 from the f16 one
    assert (got == 6.0).all()
    assert (got == _acc(SGEMM2, XDL2_ACC, "s_nop 1")).all()


def test_two_pass_same_srcc_still_needs_two_after_xdl_or_for_an_sgemm_consumer():
    with pytest.raises(HazardError, match="nonxdl_write_nonxdl_srcc_same"):
        _acc(SGEMM2, SGEMM2_ACC)
    with pytest.raises(HazardError, match="xdl_2pass_write_srcc_same"):
        _acc("v_mfma_f32_4x4x4_16b_f16 v[0:3], v[12:13], v[14:15], 0", XDL2_ACC, "s_nop 0")
    assert (_acc(SGEMM2, SGEMM2_ACC, "s_nop 1") == 4.0).all()


def test_same_srcc_range_of_an_mfma_with_other_passes_is_an_overlapped_read():
    # CDNA3 Table 37 case 102: the exact-SrcC row needs "the two V_MFMA ... the same number
    # passes"; a 2-pass XDL result read as SrcC by a 4-pass XDL is case 103's overlapped row: 3
    first = "v_mfma_f32_4x4x4_16b_f16 v[0:3], v[12:13], v[14:15], 0"
    second = "v_mfma_f32_16x16x16_f16 v[4:7], v[12:13], v[14:15], v[0:3]"
    with pytest.raises(HazardError, match="xdl_write_xdl_srcc_overlap"):
        _acc(first, second, "s_nop 1")
    _acc(first, second, "s_nop 2")
