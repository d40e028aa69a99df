"""Instruction pairs for the hazard tests: assembly for our rules, MIR for LLVM's recognizer.

Each case: name, producer and consumer in LLVM assembly, the same two in MIR (for
``llc -run-pass post-RA-hazard-rec``), and the expected wait states (gfx942, gfx950) from
cdna-facts section 3 (or, where the facts table is silent, from LLVM 22, marked ``llvm``).
"""
from __future__ import annotations

from dataclasses import dataclass

A4 = "$agpr0_agpr1_agpr2_agpr3"
A16 = "_".join(f"$agpr{i}" if i == 0 else f"agpr{i}" for i in range(16))
V4 = "$vgpr0_vgpr1_vgpr2_vgpr3"
TAIL = "0, 0, 0, implicit $mode, implicit $exec"


@dataclass(frozen=True)
class Case:
    name: str
    producer: str
    consumer: str
    mir_producer: str
    mir_consumer: str
    expect: tuple[int, int]   # (gfx942, gfx950)
    origin: str = "facts"


def mfma(name_asm: str, name_mir: str, dst: str, srcc: str, dst_mir: str, srcc_mir: str,
         ab_asm=("v[10:11]", "v[12:13]"), ab_mir=("$vgpr10_vgpr11", "$vgpr12_vgpr13")):
    return (f"{name_asm} {dst}, {ab_asm[0]}, {ab_asm[1]}, {srcc}",
            f"{dst_mir} = {name_mir}_e64 {ab_mir[0]}, {ab_mir[1]}, {srcc_mir}, {TAIL}")


F1 = ("v[10]", "v[12]")
F1_MIR = ("$vgpr10", "$vgpr12")
X4 = mfma("v_mfma_f32_16x16x16_f16", "V_MFMA_F32_16X16X16F16", "a[0:3]", "a[0:3]", A4, A4)       # 4 passes
X8 = mfma("v_mfma_f32_32x32x8_f16", "V_MFMA_F32_32X32X8F16", "a[0:15]", "a[0:15]", A16, A16)    # 8 passes
X2 = mfma("v_mfma_f32_4x4x4_16b_f16", "V_MFMA_F32_4X4X4F16", "a[0:3]", "a[0:3]", A4, A4)        # 2 passes
X16 = mfma("v_mfma_f32_32x32x4_2b_f16", "V_MFMA_F32_32X32X4F16", "a[0:31]", "a[0:31]",
           "_".join(f"$agpr{i}" if i == 0 else f"agpr{i}" for i in range(32)),
           "_".join(f"$agpr{i}" if i == 0 else f"agpr{i}" for i in range(32)))                   # 16 passes
N8 = mfma("v_mfma_f32_16x16x4_f32", "V_MFMA_F32_16X16X4F32", "a[0:3]", "a[0:3]", A4, A4, F1, F1_MIR)
N16 = mfma("v_mfma_f32_32x32x2_f32", "V_MFMA_F32_32X32X2F32", "a[0:15]", "a[0:15]", A16, A16, F1, F1_MIR)
N2 = mfma("v_mfma_f32_4x4x1_16b_f32", "V_MFMA_F32_4X4X1F32", "a[0:3]", "a[0:3]", A4, A4, F1, F1_MIR)
# consumers
C_SAME = mfma("v_mfma_f32_16x16x16_f16", "V_MFMA_F32_16X16X16F16", "a[0:3]", "a[0:3]", A4, A4,
              ("v[20:21]", "v[22:23]"), ("$vgpr20_vgpr21", "$vgpr22_vgpr23"))
X2_SAME = mfma("v_mfma_f32_4x4x4_16b_f16", "V_MFMA_F32_4X4X4F16", "a[0:3]", "a[0:3]", A4, A4,
               ("v[20:21]", "v[22:23]"), ("$vgpr20_vgpr21", "$vgpr22_vgpr23"))
C_OVL = mfma("v_mfma_f32_16x16x16_f16", "V_MFMA_F32_16X16X16F16", "a[4:7]", "a[2:5]",
             "$agpr4_agpr5_agpr6_agpr7", "$agpr2_agpr3_agpr4_agpr5",
             ("v[20:21]", "v[22:23]"), ("$vgpr20_vgpr21", "$vgpr22_vgpr23"))
C_NX_OVL = mfma("v_mfma_f32_16x16x4_f32", "V_MFMA_F32_16X16X4F32", "a[4:7]", "a[2:5]",
                "$agpr4_agpr5_agpr6_agpr7", "$agpr2_agpr3_agpr4_agpr5", ("v20", "v22"), ("$vgpr20", "$vgpr22"))
C_SRCA = mfma("v_mfma_f32_16x16x16_f16", "V_MFMA_F32_16X16X16F16", "a[4:7]", "a[4:7]",
              "$agpr4_agpr5_agpr6_agpr7", "$agpr4_agpr5_agpr6_agpr7", ("a[2:3]", "v[22:23]"),
              ("$agpr2_agpr3", "$vgpr22_vgpr23"))
ACC_READ = ("v_accvgpr_read_b32 v4, a1", "$vgpr4 = V_ACCVGPR_READ_B32_e64 $agpr1, implicit $exec")
ACC_WRITE_A1 = ("v_accvgpr_write_b32 a1, v4", "$agpr1 = V_ACCVGPR_WRITE_B32_e64 $vgpr4, implicit $exec")
VADD_V10 = ("v_add_u32_e32 v10, v1, v2", "$vgpr10 = V_ADD_U32_e32 $vgpr1, $vgpr2, implicit $exec")
VADD_RD_V1 = ("v_add_u32_e32 v30, v1, v2", "$vgpr30 = V_ADD_U32_e32 $vgpr1, $vgpr2, implicit $exec")
VADD_RD_V0 = ("v_add_u32_e32 v3, v0, v4", "$vgpr3 = V_ADD_U32_e32 $vgpr0, $vgpr4, implicit $exec")
PK_FP8_HI = "$vgpr0 = V_CVT_PK_FP8_F32_e64 8, $vgpr1, 0, $vgpr2, $vgpr0, 0, implicit $mode, implicit $exec"
VADD_WR_V1 = ("v_add_u32_e32 v1, v5, v6", "$vgpr1 = V_ADD_U32_e32 $vgpr5, $vgpr6, implicit $exec")
CMP_S0 = ("v_cmp_eq_u32_e64 s[0:1], v0, v1", "$sgpr0_sgpr1 = V_CMP_EQ_U32_e64 $vgpr0, $vgpr1, implicit $exec")
CMP_VCC = ("v_cmp_eq_u32_e32 vcc, v0, v1", "V_CMP_EQ_U32_e32 $vgpr0, $vgpr1, implicit-def $vcc, implicit $exec")
CMPX = ("v_cmpx_eq_u32_e64 s[0:1], v0, v1",
        "$sgpr0_sgpr1 = V_CMPX_EQ_U32_e64 $vgpr0, $vgpr1, implicit-def $exec, implicit $exec")
EXP_V0 = ("v_exp_f32_e32 v0, v1", "$vgpr0 = V_EXP_F32_e32 $vgpr1, implicit $mode, implicit $exec")
ADDF_V0 = ("v_add_f32_e32 v2, v0, v1", "$vgpr2 = V_ADD_F32_e32 $vgpr0, $vgpr1, implicit $mode, implicit $exec")
MOV_V0 = ("v_mov_b32_e32 v0, v1", "$vgpr0 = V_MOV_B32_e32 $vgpr1, implicit $exec")
BUF_LOAD_S0 = ("buffer_load_dword v5, v1, s[4:7], s0 offen",
               "$vgpr5 = BUFFER_LOAD_DWORD_OFFEN $vgpr1, $sgpr4_sgpr5_sgpr6_sgpr7, $sgpr0, 0, 0, 0, implicit $exec")
GLOBAL_LOAD_A1 = ("global_load_dword v5, v[0:1], off",
                  "$vgpr5 = GLOBAL_LOAD_DWORD $vgpr0_vgpr1, 0, 0, implicit $exec")
GLOBAL_STORE_A1 = ("global_store_dword v[10:11], a1, off",
                   "GLOBAL_STORE_DWORD $vgpr10_vgpr11, $agpr1, 0, 0, implicit $exec")
DS_WRITE_A1 = ("ds_write_b32 v10, a1", "DS_WRITE_B32_gfx9 $vgpr10, $agpr1, 0, 0, implicit $exec")

CASES: list[Case] = [
    # XDL result read by SrcA/B, VALU, VMEM/DS, or overwritten by VALU: P+3 (gfx950 P+4, 2-pass 5)
    Case("xdl4_valu_read", X4[0], ACC_READ[0], X4[1], ACC_READ[1], (7, 8)),
    Case("xdl8_valu_read", X8[0], ACC_READ[0], X8[1], ACC_READ[1], (11, 12)),
    Case("xdl2_valu_read", X2[0], ACC_READ[0], X2[1], ACC_READ[1], (5, 5)),
    Case("xdl16_valu_read", X16[0], ACC_READ[0], X16[1], ACC_READ[1], (19, 20)),
    Case("xdl4_srca", X4[0], C_SRCA[0], X4[1], C_SRCA[1], (7, 8)),
    Case("xdl4_global_store_data", X4[0], GLOBAL_STORE_A1[0], X4[1], GLOBAL_STORE_A1[1], (7, 8)),
    Case("xdl4_ds_write_data", X4[0], DS_WRITE_A1[0], X4[1], DS_WRITE_A1[1], (7, 8)),
    Case("xdl4_valu_waw", X4[0], ACC_WRITE_A1[0], X4[1], ACC_WRITE_A1[1], (7, 8)),
    # accumulate chains
    Case("xdl4_srcc_same", X4[0], C_SAME[0], X4[1], C_SAME[1], (0, 0)),
    Case("xdl2_srcc_same", X2[0], X2_SAME[0], X2[1], X2_SAME[1], (2, 2)),
    # the same SrcC range read by an MFMA of other passes is no exact case in the guides ("the two
    # V_MFMA must be the same number passes"): the overlapped row, 3 (gfx950 4); LLVM 2
    Case("xdl2_xdl4_srcc_same_range", X2[0], C_SAME[0], X2[1], C_SAME[1], (3, 4), "isa"),
    # generator's view (LLVM, RR): 2 after any 2-pass MFMA; the judge asks 0 for the XDL consumer
    # (CDNA3 case 107, tests/emu/test_hazard_views.py)
    Case("nonxdl2_xdl_srcc_same", N2[0], X2[0], N2[1], X2[1], (2, 2)),
    Case("nonxdl2_nonxdl_srcc_same", N2[0], N2[0], N2[1], N2[1], (2, 2)),
    Case("xdl4_srcc_overlap", X4[0], C_OVL[0], X4[1], C_OVL[1], (5, 6)),
    Case("xdl8_srcc_overlap", X8[0], C_OVL[0], X8[1], C_OVL[1], (9, 10)),
    Case("xdl2_srcc_overlap", X2[0], C_OVL[0], X2[1], C_OVL[1], (3, 4), "llvm"),
    Case("xdl4_nonxdl_srcc_overlap", X4[0], C_NX_OVL[0], X4[1], C_NX_OVL[1], (5, 6)),
    Case("xdl2_nonxdl_srcc_overlap", X2[0], C_NX_OVL[0], X2[1], C_NX_OVL[1], (3, 3)),
    # non-XDL (f32) MFMA results: P+2
    Case("nonxdl8_valu_read", N8[0], ACC_READ[0], N8[1], ACC_READ[1], (10, 10)),
    Case("nonxdl16_valu_read", N16[0], ACC_READ[0], N16[1], ACC_READ[1], (18, 18)),
    Case("nonxdl2_valu_read", N2[0], ACC_READ[0], N2[1], ACC_READ[1], (4, 4)),
    # LLVM asks 0 here; AMD rocRoller (XDLWrite94x: "v_mfma_*f32 write -> v_mfma* read SrcC
    # overlapped: P") asks P, which both views follow (the generator may not be weaker than the judge)
    Case("nonxdl8_xdl_srcc_overlap", N8[0], C_OVL[0], N8[1], C_OVL[1], (8, 8), "rocroller"),
    Case("nonxdl8_nonxdl_srcc_overlap", N8[0], C_NX_OVL[0], N8[1], C_NX_OVL[1], (8, 8), "llvm"),
    # SrcC read, then VALU overwrites it (WAR): P-1
    Case("xdl4_srcc_war", X4[0].replace("a[0:3], v", "a[8:11], v"), ACC_WRITE_A1[0], X4[1].replace(f"{A4} =", "$agpr8_agpr9_agpr10_agpr11 ="),
         ACC_WRITE_A1[1], (3, 3)),
    Case("xdl8_srcc_war", X8[0].replace("a[0:15], v", "a[16:31], v"), ACC_WRITE_A1[0],
         X8[1].replace(f"{A16} =", "_".join(f"$agpr{i}" if i == 16 else f"agpr{i}" for i in range(16, 32)) +
                       " ="), ACC_WRITE_A1[1], (7, 7)),
    # VALU results into MFMA
    Case("valu_vgpr_mfma_srca", VADD_V10[0], X4[0], VADD_V10[1], X4[1], (2, 2)),
    Case("accwrite_mfma_srcc", ACC_WRITE_A1[0], X4[0], ACC_WRITE_A1[1], X4[1], (2, 2)),
    Case("valu_exec_mfma", CMPX[0], X4[0], CMPX[1], X4[1], (4, 4)),
    Case("salu_exec_mfma", "s_mov_b64 exec, s[0:1]", X4[0], "$exec = S_MOV_B64 $sgpr0_sgpr1", X4[1], (0, 0)),
    # SGPRs written by VALU
    Case("valu_sgpr_vmem", ("v_readfirstlane_b32 s0, v1"), BUF_LOAD_S0[0],
         "$sgpr0 = V_READFIRSTLANE_B32 $vgpr1, implicit $exec", BUF_LOAD_S0[1], (5, 5)),
    Case("salu_sgpr_vmem", "s_mov_b32 s0, s1", BUF_LOAD_S0[0], "$sgpr0 = S_MOV_B32 $sgpr1", BUF_LOAD_S0[1],
         (0, 0)),
    Case("valu_sgpr_valu", CMP_S0[0], "v_cndmask_b32_e64 v0, v1, v2, s[0:1]", CMP_S0[1],
         "$vgpr0 = V_CNDMASK_B32_e64 0, $vgpr1, 0, $vgpr2, $sgpr0_sgpr1, implicit $exec", (2, 2)),
    Case("valu_vcc_cndmask", CMP_VCC[0], "v_cndmask_b32_e32 v0, v1, v2, vcc", CMP_VCC[1],
         "$vgpr0 = V_CNDMASK_B32_e32 $vgpr1, $vgpr2, implicit $vcc, implicit $exec", (2, 2)),
    Case("valu_sgpr_lane_select", "v_readfirstlane_b32 s0, v1", "v_readlane_b32 s2, v3, s0",
         "$sgpr0 = V_READFIRSTLANE_B32 $vgpr1, implicit $exec", "$sgpr2 = V_READLANE_B32 $vgpr3, $sgpr0",
         (4, 4)),
    Case("valu_exec_writelane", CMPX[0], "v_writelane_b32 v3, s4, 0", CMPX[1],
         "$vgpr3 = V_WRITELANE_B32 $sgpr4, 0, $vgpr3", (4, 4)),
    # v_readfirstlane is in the 4-state EXEC rule in LLVM too (llc-22 inserts S_NOP 3, and S_NOP 2
    # after an intervening s_mov_b64 exec: the SALU write does not end the VALU hazard), as in
    # rocRoller VCMPXWrite94x; hipBLASLt's MT256x224x64 kernels give 2 (docs/hazard-audit.md)
    Case("valu_exec_readfirstlane", CMPX[0], "v_readfirstlane_b32 s2, v3", CMPX[1],
         "$sgpr2 = V_READFIRSTLANE_B32 $vgpr3, implicit $exec", (4, 4)),
    Case("valu_vgpr_readlane", MOV_V0[0], "v_readlane_b32 s2, v0, 1", MOV_V0[1],
         "$sgpr2 = V_READLANE_B32 $vgpr0, 1", (1, 1)),
    Case("valu_vgpr_readfirstlane", MOV_V0[0], "v_readfirstlane_b32 s2, v0", MOV_V0[1],
         "$sgpr2 = V_READFIRSTLANE_B32 $vgpr0, implicit $exec", (1, 1)),
    Case("valu_vcc_div_fmas", CMP_VCC[0], "v_div_fmas_f32 v0, v1, v2, v3", CMP_VCC[1],
         "$vgpr0 = V_DIV_FMAS_F32_e64 0, $vgpr1, 0, $vgpr2, 0, $vgpr3, 0, 0, implicit $mode, implicit $vcc, "
         "implicit $exec", (4, 4)),
    # forwarding
    Case("trans_use", EXP_V0[0], ADDF_V0[0], EXP_V0[1], ADDF_V0[1], (1, 1)),
    Case("trans_trans", EXP_V0[0], "v_exp_f32_e32 v2, v0", EXP_V0[1],
         "$vgpr2 = V_EXP_F32_e32 $vgpr0, implicit $mode, implicit $exec", (0, 0)),
    Case("valu_vgpr_valu", MOV_V0[0], ADDF_V0[0], MOV_V0[1], ADDF_V0[1], (0, 0)),
    Case("valu_vgpr_dpp", MOV_V0[0], "v_mov_b32_dpp v2, v0 row_shr:1 row_mask:0xf bank_mask:0xf", MOV_V0[1],
         "$vgpr2 = V_MOV_B32_dpp $vgpr2, $vgpr0, 273, 15, 15, 0, implicit $exec", (2, 2)),
    Case("valu_exec_dpp", CMPX[0], "v_mov_b32_dpp v2, v5 row_shr:1 row_mask:0xf bank_mask:0xf", CMPX[1],
         "$vgpr2 = V_MOV_B32_dpp $vgpr2, $vgpr5, 273, 15, 15, 0, implicit $exec", (5, 5)),
    Case("partial_dst_fp8", "v_cvt_pk_fp8_f32 v0, v1, v2 op_sel:[0,0,1]", VADD_RD_V0[0], PK_FP8_HI, VADD_RD_V0[1],
         (1, 1)),
    Case("partial_dst_fp8_waw", "v_cvt_pk_fp8_f32 v0, v1, v2 op_sel:[0,0,1]", "v_add_u32_e32 v0, v5, v4",
         PK_FP8_HI, "$vgpr0 = V_ADD_U32_e32 $vgpr5, $vgpr4, implicit $exec", (1, 1)),
    Case("fp8_lo_half", "v_cvt_pk_fp8_f32 v0, v1, v2", VADD_RD_V0[0], PK_FP8_HI.replace(" 8, $vgpr1", " 0, $vgpr1"),
         VADD_RD_V0[1], (0, 0), "llvm"),
    Case("fp8_sr_byte2", "v_cvt_sr_fp8_f32 v0, v1, v2 op_sel:[0,0,1,0]", VADD_RD_V0[0],
         "$vgpr0 = V_CVT_SR_FP8_F32_e64 0, $vgpr1, 0, $vgpr2, 4, $vgpr0, 0, implicit $mode, implicit $exec",
         VADD_RD_V0[1], (1, 1)),
    Case("fp8_sr_byte0", "v_cvt_sr_fp8_f32 v0, v1, v2", VADD_RD_V0[0],
         "$vgpr0 = V_CVT_SR_FP8_F32_e64 0, $vgpr1, 0, $vgpr2, 0, $vgpr0, 0, implicit $mode, implicit $exec",
         VADD_RD_V0[1], (0, 0), "llvm"),
    Case("sdwa_word1", "v_mov_b32_sdwa v0, v1 dst_sel:WORD_1 dst_unused:UNUSED_PRESERVE src0_sel:DWORD",
         VADD_RD_V0[0], "$vgpr0 = V_MOV_B32_sdwa 0, $vgpr1, 0, 5, 2, 6, implicit $exec, implicit $vgpr0(tied-def 0)",
         VADD_RD_V0[1], (1, 1)),
    # memory and scalar
    Case("wide_store_valu_war", "global_store_dwordx4 v[10:11], v[0:3], off", VADD_WR_V1[0],
         f"GLOBAL_STORE_DWORDX4 $vgpr10_vgpr11, {V4}, 0, 0, implicit $exec", VADD_WR_V1[1], (2, 2)),
    Case("narrow_store_valu_war", "global_store_dwordx2 v[10:11], v[0:1], off", VADD_WR_V1[0],
         "GLOBAL_STORE_DWORDX2 $vgpr10_vgpr11, $vgpr0_vgpr1, 0, 0, implicit $exec", VADD_WR_V1[1], (0, 0)),
    Case("salu_m0_lds_dma", "s_mov_b32 m0, s0", "buffer_load_dword v1, s[4:7], s2 offen lds",
         "$m0 = S_MOV_B32 $sgpr0",
         "BUFFER_LOAD_DWORD_LDS_OFFEN $vgpr1, $sgpr4_sgpr5_sgpr6_sgpr7, $sgpr2, 0, 0, 0, implicit $exec, "
         "implicit $m0", (1, 1)),
    Case("salu_m0_global_lds", "s_mov_b32 m0, s0", "global_load_lds_dword v[0:1], off",
         "$m0 = S_MOV_B32 $sgpr0", "GLOBAL_LOAD_LDS_DWORD $vgpr0_vgpr1, 0, 0, implicit $exec, implicit $m0",
         (1, 1)),
    Case("setreg_getreg", "s_setreg_b32 hwreg(HW_REG_MODE, 0, 2), s0", "s_getreg_b32 s1, hwreg(HW_REG_MODE, 0, 2)",
         "S_SETREG_B32 $sgpr0, 2049, implicit-def $mode, implicit $mode",
         "$sgpr1 = S_GETREG_B32 2049, implicit $mode", (2, 2)),
    Case("setreg_getreg_other", "s_setreg_b32 hwreg(HW_REG_MODE, 0, 2), s0",
         "s_getreg_b32 s1, hwreg(HW_REG_STATUS, 0, 2)", "S_SETREG_B32 $sgpr0, 2049, implicit-def $mode, implicit $mode",
         "$sgpr1 = S_GETREG_B32 2050, implicit $mode", (0, 0), "llvm"),
    Case("valu_read_vmem_addr", MOV_V0[0], GLOBAL_LOAD_A1[0], MOV_V0[1], GLOBAL_LOAD_A1[1], (0, 0)),
]


def _agprs(start: int, n: int) -> str:
    return "$" + "_".join(f"agpr{i}" for i in range(start, start + n)) if n > 1 else f"$agpr{start}"


def _vgprs(start: int, n: int) -> str:
    return "$" + "_".join(f"vgpr{i}" for i in range(start, start + n)) if n > 1 else f"$vgpr{start}"


D16 = ("v_mfma_f64_16x16x4_f64 a[0:7], v[40:41], v[42:43], a[0:7]",
       f"{_agprs(0, 8)} = V_MFMA_F64_16X16X4F64_e64 $vgpr40_vgpr41, $vgpr42_vgpr43, {_agprs(0, 8)}, {TAIL}")
D4 = ("v_mfma_f64_4x4x4_4b_f64 a[0:1], v[40:41], v[42:43], a[0:1]",
      f"{_agprs(0, 2)} = V_MFMA_F64_4X4X4F64_e64 $vgpr40_vgpr41, $vgpr42_vgpr43, {_agprs(0, 2)}, {TAIL}")
D16_OVL = ("v_mfma_f64_16x16x4_f64 a[100:107], v[50:51], v[52:53], a[2:9]",
           f"{_agprs(100, 8)} = V_MFMA_F64_16X16X4F64_e64 $vgpr50_vgpr51, $vgpr52_vgpr53, {_agprs(2, 8)}, {TAIL}")
D4_SAME = ("v_mfma_f64_4x4x4_4b_f64 a[0:1], v[50:51], v[52:53], a[0:1]",
           f"{_agprs(0, 2)} = V_MFMA_F64_4X4X4F64_e64 $vgpr50_vgpr51, $vgpr52_vgpr53, {_agprs(0, 2)}, {TAIL}")


def f8f6f4(dst_a: int, a_regs: int, b_regs: int, cbsz: int, blgp: int, fa: str, fb: str) -> tuple[str, str]:
    mods = "".join(f" {k}:{v}" for k, v in (("cbsz", cbsz), ("blgp", blgp)) if v)
    mir = (f"{A4} = V_MFMA_F32_16X16X128_F8F6F4_{fa}_{fb}_e64 {_vgprs(10, a_regs)}, {_vgprs(20, b_regs)}, "
           f"{A4}, {cbsz}, {blgp}, implicit $mode, implicit $exec")
    return (f"v_mfma_f32_16x16x128_f8f6f4 a[0:3], v[10:{9 + a_regs}], v[20:{19 + b_regs}], a[0:3]{mods}", mir)


CASES += [
    Case("dgemm16_valu_read", D16[0], ACC_READ[0], D16[1], ACC_READ[1], (11, 19), "llvm"),
    # gfx950: CDNA4 ISA Table 38 asks 19 for the WAW, LLVM 11
    Case("dgemm16_valu_waw", D16[0], ACC_WRITE_A1[0], D16[1], ACC_WRITE_A1[1], (11, 19), "isa"),
    Case("dgemm16_store", D16[0], GLOBAL_STORE_A1[0], D16[1], GLOBAL_STORE_A1[1], (18, 18), "llvm"),
    Case("dgemm16_srcc_overlap", D16[0], D16_OVL[0], D16[1], D16_OVL[1], (9, 17), "llvm"),
    Case("dgemm4_valu_read", D4[0], ACC_READ[0], D4[1], ACC_READ[1], (6, 6), "llvm"),
    Case("dgemm4_srcc_same", D4[0], D4_SAME[0], D4[1], D4_SAME[1], (4, 4), "llvm"),
    Case("dgemm4_store", D4[0], GLOBAL_STORE_A1[0], D4[1], GLOBAL_STORE_A1[1], (9, 9), "llvm"),
    Case("nonxdl8_srcc_war", N8[0].replace("a[0:3], v", "a[8:11], v"), ACC_WRITE_A1[0],
         N8[1].replace(f"{A4} =", "$agpr8_agpr9_agpr10_agpr11 ="), ACC_WRITE_A1[1], (0, 0), "llvm"),
    Case("xdl4_srcab_war", X4[0].replace("a[0:3], v", "a[8:11], v"), "v_add_u32_e32 v10, v1, v2",
         X4[1].replace(f"{A4} =", "$agpr8_agpr9_agpr10_agpr11 ="), VADD_V10[1], (0, 0)),
]


def pair(name: str, prod: tuple[str, str], cons: tuple[str, str], expect: tuple[int, int]) -> Case:
    return Case(name, prod[0], cons[0], prod[1], cons[1], expect)


F8F6F4_CASES = [  # gfx950 only (gfx942 entry unused): passes depend on operand formats (cdna-facts 2.1)
    pair("f8f6f4_fp8_valu_read", f8f6f4(0, 8, 8, 0, 0, "f8", "f8"), ACC_READ, (0, 12)),
    pair("f8f6f4_fp4_valu_read", f8f6f4(0, 4, 4, 4, 4, "f4", "f4"), ACC_READ, (0, 8)),
    pair("f8f6f4_fp6_valu_read", f8f6f4(0, 6, 6, 2, 2, "f6", "f6"), ACC_READ, (0, 8)),
    pair("f8f6f4_fp8_fp4_valu_read", f8f6f4(0, 8, 4, 0, 4, "f8", "f4"), ACC_READ, (0, 12)),
]

DOT = ("v_dot2_f32_f16 v10, v1, v2, v3",
       "$vgpr10 = V_DOT2_F32_F16 8, $vgpr1, 8, $vgpr2, 8, $vgpr3, 0, 0, 0, 0, 0, implicit $mode, implicit $exec")


def _dot(dst: int, s0: int, s1: int, s2: int) -> tuple[str, str]:
    mir = (f"$vgpr{dst} = V_DOT2_F32_F16 8, $vgpr{s0}, 8, $vgpr{s1}, 8, $vgpr{s2}, 0, 0, 0, 0, 0, "
           "implicit $mode, implicit $exec")
    return (f"v_dot2_f32_f16 v{dst}, v{s0}, v{s1}, v{s2}", mir)


X4_SRCC_V10 = mfma("v_mfma_f32_16x16x16_f16", "V_MFMA_F32_16X16X16F16_vgprcd", "v[20:23]", "v[10:13]",
                   "$vgpr20_vgpr21_vgpr22_vgpr23", "$vgpr10_vgpr11_vgpr12_vgpr13",
                   ("v[30:31]", "v[32:33]"), ("$vgpr30_vgpr31", "$vgpr32_vgpr33"))
PERM16 = ("v_permlane16_swap_b32 v0, v2",
          "$vgpr0, $vgpr2 = V_PERMLANE16_SWAP_B32_e64 $vgpr0, $vgpr2, 0, 0, implicit $exec")
CASES += [
    # AMD's ISA guides ask 3 (CDNA3 Table 37, CDNA4 Table 38: DLops -> any other opcode), LLVM 1
    Case("dot_mfma_srca", DOT[0], X4[0], DOT[1], X4[1], (3, 3), "isa"),
    Case("dot_mfma_srcc", DOT[0], X4_SRCC_V10[0], DOT[1], X4_SRCC_V10[1], (3, 3), "isa"),
    pair("dot_valu_read", DOT, ("v_add_u32_e32 v3, v10, v5",
                                "$vgpr3 = V_ADD_U32_e32 $vgpr10, $vgpr5, implicit $exec"), (3, 3)),
    pair("dot_valu_waw", DOT, ("v_add_u32_e32 v10, v4, v5",
                               "$vgpr10 = V_ADD_U32_e32 $vgpr4, $vgpr5, implicit $exec"), (3, 3)),
    pair("dot_dot_srcb", DOT, _dot(11, 4, 10, 6), (3, 3)),
    pair("dot_dot_srcc", DOT, _dot(11, 4, 5, 10), (1, 1)),
    pair("dot_dot_waw", DOT, _dot(10, 4, 5, 6), (1, 1)),
    pair("dot_dot_unrelated", DOT, _dot(11, 4, 5, 6), (0, 0)),
    pair("valu_dot_srca", VADD_V10, _dot(11, 10, 5, 6), (0, 0)),
]
PERMLANE_CASES = [  # gfx950 only
    pair("cmpx_permlane", CMPX, PERM16, (0, 4)),
    pair("valu_permlane_vdst", MOV_V0, PERM16, (0, 2)),
    pair("valu_permlane_src0", ("v_mov_b32_e32 v2, v1", "$vgpr2 = V_MOV_B32_e32 $vgpr1, implicit $exec"), PERM16,
         (0, 2)),
    pair("accread_permlane", ("v_accvgpr_read_b32 v0, a1", "$vgpr0 = V_ACCVGPR_READ_B32_e64 $agpr1, implicit $exec"),
         PERM16, (0, 2)),
    pair("valu_permlane_unrelated", ("v_mov_b32_e32 v7, v1", "$vgpr7 = V_MOV_B32_e32 $vgpr1, implicit $exec"),
         PERM16, (0, 0)),
]

# CDNA3/CDNA4 ISA Table 11 cases 8 and 9: a wide store's data VGPRs written right after it
WIDE_STORE = ("global_store_dwordx4 v[10:11], v[0:3], off",
              f"GLOBAL_STORE_DWORDX4 $vgpr10_vgpr11, {V4}, 0, 0, implicit $exec")
CASES += [
    Case("wide_store_load_war", WIDE_STORE[0], "global_load_dwordx4 v[0:3], v[20:21], off", WIDE_STORE[1],
         f"{V4} = GLOBAL_LOAD_DWORDX4 $vgpr20_vgpr21, 0, 0, implicit $exec", (1, 1), "isa"),   # LLVM 0
    pair("wide_store_mfma_war", WIDE_STORE,
         mfma("v_mfma_f32_16x16x16_f16", "V_MFMA_F32_16X16X16F16_vgprcd", "v[0:3]", "v[40:43]", V4,
              "$vgpr40_vgpr41_vgpr42_vgpr43", ("v[30:31]", "v[32:33]"), ("$vgpr30_vgpr31", "$vgpr32_vgpr33")),
         (2, 2)),
]

# CDNA3/CDNA4 ISA Table 11 case 17: SALU writes M0 -> S_MOVREL: 1
CASES.append(pair("salu_m0_movrels", ("s_mov_b32 m0, 2", "$m0 = S_MOV_B32 2"),
                  ("s_movrels_b32 s0, s10", "$sgpr0 = S_MOVRELS_B32 $sgpr10, implicit $m0"), (1, 1)))
