// Instruction forms that gfx942 and gfx950 both accept (decoder test vs llvm-objdump-22).
.text
start:
  s_mov_b32 s1, s2
  s_mov_b32 s1, 0x12345678
  s_mov_b32 s1, -5
  s_mov_b32 s1, 0.5
  s_mov_b64 s[2:3], exec
  s_mov_b64 exec, s[4:5]
  s_mov_b32 m0, s3
  s_mov_b32 vcc_lo, 1
  s_movk_i32 s5, 0x1234
  s_movk_i32 s5, 0xfff0
  s_add_u32 s0, s1, s2
  s_addc_u32 s1, s1, 0
  s_sub_i32 s3, s4, 64
  s_mul_i32 s3, s4, 0x100
  s_lshl_b32 s3, s4, 2
  s_lshl_b64 s[2:3], s[4:5], 3
  s_lshr_b32 s3, s4, 5
  s_ashr_i32 s3, s4, 31
  s_and_b32 s3, s4, 0xffff
  s_or_b64 s[2:3], s[4:5], vcc
  s_xor_b64 exec, exec, s[6:7]
  s_andn2_b64 exec, exec, vcc
  s_and_saveexec_b64 s[10:11], vcc
  s_or_saveexec_b64 s[10:11], -1
  s_cselect_b32 s1, s2, s3
  s_cselect_b64 s[2:3], -1, 0
  s_bfe_u32 s1, s2, 0x80008
  s_min_u32 s1, s2, s3
  s_max_i32 s1, s2, -1
  s_mul_hi_u32 s1, s2, s3
  s_lshl1_add_u32 s1, s2, s3
  s_lshl4_add_u32 s1, s2, s3
  s_ff1_i32_b32 s1, s2
  s_bcnt1_i32_b64 s1, s[2:3]
  s_not_b32 s1, s2
  s_getpc_b64 s[4:5]
  s_setpc_b64 s[4:5]
  s_swappc_b64 s[30:31], s[4:5]
  s_cmp_eq_u32 s1, 0
  s_cmp_lg_u32 s1, s2
  s_cmp_lt_i32 s1, 0x1000
  s_cmp_eq_u64 s[2:3], 0
  s_bitcmp1_b32 s1, 3
  s_cmpk_eq_u32 s1, 0x10
  s_addk_i32 s1, 0x20
  s_mulk_i32 s1, 3
  s_getreg_b32 s1, hwreg(HW_REG_MODE, 0, 4)
  s_setreg_b32 hwreg(HW_REG_MODE, 4, 4), s2
  s_setreg_imm32_b32 hwreg(HW_REG_MODE, 0, 4), 0x1234
  s_waitcnt vmcnt(0) lgkmcnt(0)
  s_waitcnt vmcnt(3)
  s_waitcnt lgkmcnt(2)
  s_waitcnt vmcnt(63) expcnt(7) lgkmcnt(15)
  s_waitcnt 0
  s_barrier
  s_nop 0
  s_nop 7
  s_setprio 3
  s_setprio 0
  s_sleep 1
  s_sendmsg sendmsg(MSG_INTERRUPT)
  s_trap 2
  s_icache_inv
  s_dcache_wb
  s_memtime s[4:5]
  s_memrealtime s[4:5]
  s_branch start
  s_cbranch_scc0 start
  s_cbranch_scc1 fwd
  s_cbranch_vccz fwd
  s_cbranch_vccnz start
  s_cbranch_execz fwd
  s_cbranch_execnz start
fwd:
  s_load_dword s1, s[2:3], 0x10
  s_load_dwordx2 s[4:5], s[2:3], 0x0
  s_load_dwordx4 s[4:7], s[2:3], 0x20
  s_load_dwordx8 s[8:15], s[2:3], 0x40
  s_load_dwordx16 s[16:31], s[2:3], 0x80
  s_load_dword s1, s[2:3], s5
  s_load_dword s1, s[2:3], s5 offset:0x10
  s_load_dword s1, s[2:3], 0x10 glc
  s_load_dword s1, s[2:3], -0x10
  s_buffer_load_dword s1, s[4:7], 0x4
  s_buffer_load_dwordx4 s[8:11], s[4:7], s2
  s_store_dword s1, s[2:3], 0x10
  v_mov_b32 v1, v2
  v_mov_b32 v1, s2
  v_mov_b32 v1, 0x3f800001
  v_mov_b32 v1, -1.0
  v_mov_b32 v1, 0.15915494
  v_mov_b32 v255, 64
  v_mov_b32_e64 v1, v2
  v_mov_b64 v[0:1], v[2:3]
  v_mov_b64 v[0:1], s[2:3]
  v_readfirstlane_b32 s1, v2
  v_readlane_b32 s1, v2, s3
  v_readlane_b32 s1, v2, 7
  v_writelane_b32 v1, s2, 3
  v_writelane_b32 v1, s2, m0
  v_add_f32 v1, v2, v3
  v_add_f32 v1, s2, v3
  v_add_f32 v1, 1.0, v3
  v_add_f32 v1, 0x40490fdb, v3
  v_add_f32_e64 v1, v2, v3
  v_add_f32_e64 v1, -v2, |v3|
  v_add_f32_e64 v1, -|v2|, v3 clamp
  v_add_f32_e64 v1, v2, v3 mul:2
  v_add_f32_e64 v1, v2, v3 mul:4
  v_add_f32_e64 v1, v2, v3 div:2
  v_add_f32_e64 v1, s2, 0.5
  v_sub_f32 v1, v2, v3
  v_subrev_f32 v1, v2, v3
  v_mul_f32 v1, v2, v3
  v_mul_f32_e64 v1, v2, -4.0
  v_fma_f32 v1, v2, v3, v4
  v_fma_f32 v1, -v2, v3, |v4|
  v_fmac_f32 v1, v2, v3
  v_fmac_f32 v1, 0x3e800000, v3
  v_fmaak_f32 v1, v2, v3, 0x1234
  v_fmamk_f32 v1, v2, 0x1234, v3
  v_max_f32 v1, v2, v3
  v_min_f32 v1, v2, v3
  v_max3_f32 v1, v2, v3, v4
  v_med3_f32 v1, v2, v3, v4
  v_add_u32 v1, v2, v3
  v_add_u32_e64 v1, v2, v3 clamp
  v_sub_u32 v1, v2, v3
  v_subrev_u32 v1, v2, v3
  v_add_co_u32 v1, vcc, v2, v3
  v_add_co_u32_e64 v1, s[4:5], v2, v3
  v_addc_co_u32 v1, vcc, v2, v3, vcc
  v_addc_co_u32_e64 v1, s[4:5], v2, v3, s[6:7]
  v_sub_co_u32 v1, vcc, v2, v3
  v_subb_co_u32 v1, vcc, v2, v3, vcc
  v_add3_u32 v1, v2, v3, v4
  v_lshl_add_u32 v1, v2, 4, v3
  v_add_lshl_u32 v1, v2, v3, 2
  v_lshl_or_b32 v1, v2, 8, v3
  v_and_or_b32 v1, v2, 63, v3
  v_or3_b32 v1, v2, v3, v4
  v_xad_u32 v1, v2, v3, v4
  v_lshl_add_u64 v[0:1], v[2:3], 2, v[4:5]
  v_lshl_add_u64 v[0:1], v[2:3], 2, s[4:5]
  v_mad_u64_u32 v[0:1], s[2:3], v4, v5, v[6:7]
  v_mad_i64_i32 v[0:1], vcc, v4, v5, v[6:7]
  v_mad_u32_u24 v1, v2, v3, v4
  v_mul_lo_u32 v1, v2, v3
  v_mul_hi_u32 v1, v2, v3
  v_mul_u32_u24 v1, v2, v3
  v_mul_hi_i32_i24 v1, v2, v3
  v_lshlrev_b32 v1, 2, v3
  v_lshrrev_b32 v1, v2, v3
  v_ashrrev_i32 v1, 31, v3
  v_lshlrev_b64 v[0:1], 3, v[2:3]
  v_lshrrev_b64 v[0:1], v2, v[2:3]
  v_and_b32 v1, 0x3ff, v0
  v_or_b32 v1, v2, v3
  v_xor_b32 v1, s2, v3
  v_not_b32 v1, v2
  v_bfe_u32 v1, v0, 10, 10
  v_bfe_i32 v1, v2, v3, 8
  v_bfi_b32 v1, v2, v3, v4
  v_perm_b32 v1, v2, v3, s5
  v_alignbit_b32 v1, v2, v3, 16
  v_alignbyte_b32 v1, v2, v3, 1
  v_bcnt_u32_b32 v1, v2, 0
  v_mbcnt_lo_u32_b32 v1, -1, 0
  v_mbcnt_hi_u32_b32 v1, -1, v1
  v_ffbh_u32 v1, v2
  v_bfrev_b32 v1, v2
  v_cndmask_b32 v1, v2, v3, vcc
  v_cndmask_b32_e64 v1, v2, v3, s[4:5]
  v_cndmask_b32_e64 v1, 0, 1.0, s[4:5]
  v_cndmask_b32_e64 v1, -v2, v3, vcc
  v_cmp_eq_u32 vcc, v1, v2
  v_cmp_eq_u32 vcc, s1, v2
  v_cmp_gt_i32 vcc, 0x100, v2
  v_cmp_eq_u32_e64 s[2:3], v1, v2
  v_cmp_lt_u32_e64 vcc, s1, 5
  v_cmp_ne_u64 vcc, v[0:1], v[2:3]
  v_cmp_lt_f32 vcc, v1, v2
  v_cmp_lt_f32_e64 s[4:5], -v1, |v2|
  v_cmp_class_f32 vcc, v1, v2
  v_cmp_u_f32 vcc, v1, v1
  v_cmp_eq_f64 vcc, v[0:1], v[2:3]
  v_cmpx_eq_u32 vcc, v1, v2
  v_cmpx_eq_u32_e64 s[2:3], v1, v2
  v_cvt_f32_u32 v1, v2
  v_cvt_f32_i32 v1, v2
  v_cvt_u32_f32 v1, v2
  v_cvt_i32_f32 v1, v2
  v_cvt_f16_f32 v1, v2
  v_cvt_f32_f16 v1, v2
  v_cvt_f64_f32 v[0:1], v2
  v_cvt_f32_f64 v1, v[2:3]
  v_cvt_pkrtz_f16_f32 v1, v2, v3
  v_cvt_pk_u8_f32 v1, v2, 0, v3
  v_cvt_f32_ubyte0 v1, v2
  v_exp_f32 v1, v2
  v_log_f32 v1, v2
  v_rcp_f32 v1, v2
  v_rsq_f32 v1, v2
  v_sqrt_f32 v1, v2
  v_sin_f32 v1, v2
  v_cos_f32 v1, v2
  v_rcp_f64 v[0:1], v[2:3]
  v_exp_f16 v1, v2
  v_rndne_f32 v1, v2
  v_floor_f32 v1, v2
  v_fract_f32 v1, v2
  v_frexp_mant_f32 v1, v2
  v_ldexp_f32 v1, v2, v3
  v_div_scale_f32 v1, vcc, v2, v2, v3
  v_div_fmas_f32 v1, v2, v3, v4
  v_div_fixup_f32 v1, v2, v3, v4
  v_fma_f64 v[0:1], v[2:3], v[4:5], v[6:7]
  v_add_f64 v[0:1], v[2:3], -v[4:5]
  v_mul_f64 v[0:1], 2.0, v[4:5]
  v_max_f64 v[0:1], v[2:3], v[4:5]
  v_add_f16 v1, v2, v3
  v_add_f16 v1, 0x3c01, v2
  v_fma_f16 v1, v2, v3, v4
  v_fma_f16 v1, v2, v3, v4 op_sel:[1,0,0,1]
  v_fma_mix_f32 v1, v2, v3, v4 op_sel_hi:[1,1,0]
  v_fma_mixlo_f16 v1, v2, v3, v4 op_sel:[1,0,0] op_sel_hi:[1,1,1]
  v_pack_b32_f16 v1, v2, v3
  v_pack_b32_f16 v1, v2, v3 op_sel:[1,1,0]
  v_pk_add_f16 v1, v2, v3
  v_pk_add_f16 v1, v2, v3 op_sel:[1,0] op_sel_hi:[0,1]
  v_pk_fma_f16 v1, v2, v3, v4 neg_lo:[1,0,0] neg_hi:[0,0,1]
  v_pk_mul_f16 v1, v2, 0.5
  v_pk_fma_f32 v[0:1], v[2:3], v[4:5], v[6:7]
  v_pk_fma_f32 v[0:1], v[2:3], v[4:5], v[6:7] op_sel_hi:[0,1,1]
  v_pk_mul_f32 v[0:1], v[2:3], v[4:5]
  v_pk_add_f32 v[0:1], v[2:3], v[4:5] op_sel:[1,0]
  v_pk_mov_b32 v[0:1], v[2:3], v[4:5] op_sel:[0,1]
  v_pk_add_u16 v1, v2, v3
  v_pk_lshlrev_b16 v1, 1, v3
  v_pk_max_i16 v1, v2, v3 clamp
  v_dot2_f32_f16 v1, v2, v3, v4
  v_dot2c_f32_f16 v1, v2, v3
  v_dot4_i32_i8 v1, v2, v3, v4
  v_sat_pk_u8_i16 v1, v2
  v_cvt_pknorm_i16_f32 v1, v2, v3
  v_accvgpr_read_b32 v1, a2
  v_accvgpr_write_b32 a1, v2
  v_accvgpr_write_b32 a1, 0
  v_accvgpr_mov_b32 a1, a2
  v_mfma_f32_32x32x8_f16 a[0:15], v[0:1], v[2:3], a[0:15]
  v_mfma_f32_32x32x8_f16 a[0:15], v[0:1], v[2:3], a[0:15] cbsz:1 abid:1 blgp:2
  v_mfma_f32_16x16x16_f16 v[0:3], a[0:1], a[2:3], 0
  v_mfma_f32_16x16x16_f16 v[4:7], v[0:1], v[2:3], v[4:7]
  v_mfma_f32_32x32x8_bf16 v[0:15], v[16:17], v[18:19], v[0:15]
  v_mfma_f32_16x16x16_bf16 a[4:7], v[0:1], v[2:3], a[4:7]
  v_mfma_f32_32x32x16_fp8_fp8 a[0:15], v[0:1], v[2:3], a[0:15]
  v_mfma_f32_16x16x32_fp8_fp8 a[0:3], v[0:1], v[2:3], a[0:3]
  v_mfma_f32_16x16x32_bf8_fp8 a[0:3], v[0:1], v[2:3], a[0:3]
  v_mfma_f32_32x32x16_bf8_bf8 v[0:15], v[16:17], v[18:19], v[0:15]
  v_mfma_i32_32x32x16_i8 a[0:15], v[0:1], v[2:3], a[0:15]
  v_mfma_i32_16x16x32_i8 a[0:3], v[0:1], v[2:3], a[0:3]
  v_mfma_f32_32x32x2_f32 a[0:15], v1, v2, a[0:15]
  v_mfma_f32_16x16x4_f32 a[0:3], v1, v2, a[0:3]
  v_mfma_f32_4x4x1_16b_f32 a[0:3], v1, v2, a[0:3]
  v_mfma_f64_16x16x4_f64 v[0:7], v[8:9], v[10:11], v[0:7]
  v_smfmac_f32_16x16x32_f16 v[0:3], v[4:5], v[6:9], v10
  v_mov_b32_dpp v1, v2 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf
  v_mov_b32_dpp v1, v2 row_shl:1 row_mask:0xf bank_mask:0xf
  v_mov_b32_dpp v1, v2 row_shr:15 row_mask:0xa bank_mask:0x5 bound_ctrl:0
  v_mov_b32_dpp v1, v2 row_ror:4 row_mask:0xf bank_mask:0xf
  v_mov_b32_dpp v1, v2 wave_shl:1 row_mask:0xf bank_mask:0xf
  v_mov_b32_dpp v1, v2 wave_shr:1 row_mask:0xf bank_mask:0xf
  v_mov_b32_dpp v1, v2 wave_rol:1 row_mask:0xf bank_mask:0xf
  v_mov_b32_dpp v1, v2 wave_ror:1 row_mask:0xf bank_mask:0xf
  v_mov_b32_dpp v1, v2 row_mirror row_mask:0xf bank_mask:0xf
  v_mov_b32_dpp v1, v2 row_half_mirror row_mask:0xf bank_mask:0xf
  v_mov_b32_dpp v1, v2 row_bcast:15 row_mask:0xa bank_mask:0xf
  v_mov_b32_dpp v1, v2 row_bcast:31 row_mask:0xc bank_mask:0xf
  v_add_f32_dpp v1, -v2, |v3| row_shr:1 row_mask:0xf bank_mask:0xf bound_ctrl:0
  v_add_u32_dpp v1, v2, v3 quad_perm:[0,0,0,0] row_mask:0xf bank_mask:0xf
  v_max_f32_dpp v1, v2, v3 row_bcast:31 row_mask:0xc bank_mask:0xf
  v_cndmask_b32_dpp v1, v2, v3, vcc quad_perm:[3,2,1,0] row_mask:0xf bank_mask:0xf
  v_mov_b64_dpp v[0:1], v[2:3] row_newbcast:1 row_mask:0xf bank_mask:0xf
  v_mov_b32_sdwa v1, v2 dst_sel:WORD_1 dst_unused:UNUSED_PRESERVE src0_sel:WORD_0
  v_mov_b32_sdwa v1, s2 dst_sel:BYTE_0 dst_unused:UNUSED_PAD src0_sel:DWORD
  v_add_f32_sdwa v1, v2, v3 dst_sel:WORD_1 dst_unused:UNUSED_PAD src0_sel:BYTE_0 src1_sel:DWORD
  v_add_f32_sdwa v1, -v2, |v3| clamp dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1 src1_sel:WORD_0
  v_add_u32_sdwa v1, sext(v2), v3 dst_sel:WORD_1 dst_unused:UNUSED_SEXT src0_sel:BYTE_0 src1_sel:DWORD
  v_cvt_f32_f16_sdwa v1, v2 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1
  v_cmp_eq_f32_sdwa vcc, v1, v2 src0_sel:WORD_0 src1_sel:DWORD
  v_cmp_eq_f32_sdwa s[2:3], v1, v2 src0_sel:WORD_1 src1_sel:BYTE_2
  v_nop
  v_swap_b32 v1, v2
  ds_read_b32 v1, v2
  ds_read_b32 v1, v2 offset:16
  ds_read_b64 v[2:3], v4 offset:65535
  ds_read_b128 v[4:7], v8 offset:1024
  ds_read_u8 v1, v2
  ds_read_u16 v1, v2 offset:2
  ds_read_i8 v1, v2
  ds_read_u16_d16_hi v1, v2
  ds_read2_b32 v[4:5], v2 offset0:1 offset1:2
  ds_read2_b64 v[4:7], v2 offset1:255
  ds_read2st64_b32 v[4:5], v2 offset0:1 offset1:2
  ds_write_b32 v2, v5
  ds_write_b32 v2, v5 offset:4
  ds_write_b64 v2, v[4:5] offset:8
  ds_write_b128 v2, v[4:7]
  ds_write_b8 v2, v5
  ds_write_b16 v2, v5 offset:6
  ds_write_b16_d16_hi v2, v5
  ds_write2_b32 v2, v3, v4 offset0:4 offset1:8
  ds_write2_b64 v2, v[4:5], v[6:7] offset0:1
  ds_write2st64_b64 v2, v[4:5], v[6:7] offset1:1
  ds_add_u32 v2, v3
  ds_add_rtn_u32 v1, v2, v3 offset:4
  ds_add_f32 v2, v3
  ds_max_u32 v2, v3
  ds_cmpst_rtn_b32 v1, v2, v3, v4
  ds_swizzle_b32 v1, v2 offset:swizzle(SWAP,16)
  ds_swizzle_b32 v1, v2 offset:swizzle(QUAD_PERM,0,1,2,3)
  ds_swizzle_b32 v1, v2 offset:swizzle(BITMASK_PERM,"01pi0")
  ds_swizzle_b32 v1, v2 offset:0xffff
  ds_bpermute_b32 v1, v2, v3
  ds_bpermute_b32 v1, v2, v3 offset:4
  ds_permute_b32 v1, v2, v3
  ds_read_b32 a1, v2
  ds_write_b32 v2, a5
  ds_read_b64 a[2:3], v4
  buffer_load_dword v1, off, s[4:7], s1
  buffer_load_dword v1, off, s[4:7], 0
  buffer_load_dword v1, v2, s[4:7], s1 offen offset:4095
  buffer_load_dword v1, v2, s[4:7], 0 idxen
  buffer_load_dword v1, v[2:3], s[4:7], s1 idxen offen
  buffer_load_dword v1, off, s[4:7], s1 sc0
  buffer_load_dword v1, off, s[4:7], s1 sc1
  buffer_load_dword v1, off, s[4:7], s1 nt
  buffer_load_dword v1, off, s[4:7], s1 sc0 sc1 nt
  buffer_load_dwordx2 v[2:3], v1, s[8:11], 0 offen
  buffer_load_dwordx3 v[4:6], v1, s[8:11], 0 offen
  buffer_load_dwordx4 v[4:7], v1, s[8:11], s2 offen offset:16
  buffer_load_ubyte v1, v2, s[4:7], 0 offen
  buffer_load_ushort v1, v2, s[4:7], 0 offen
  buffer_load_short_d16 v1, v2, s[4:7], 0 offen
  buffer_load_short_d16_hi v1, v2, s[4:7], 0 offen
  buffer_load_dword a1, off, s[4:7], s1
  buffer_load_dwordx4 a[0:3], v1, s[8:11], 0 offen
  buffer_load_dword off, s[4:7], s1 lds
  buffer_load_dword v2, s[4:7], s1 offen lds
  buffer_load_ubyte v2, s[4:7], 0 offen offset:12 lds
  buffer_store_dword v1, v2, s[4:7], 0 offen
  buffer_store_dwordx2 v[2:3], v1, s[8:11], s3 offen offset:8
  buffer_store_dwordx4 v[4:7], v1, s[8:11], 0 offen sc0 sc1
  buffer_store_short v1, v2, s[4:7], 0 offen
  buffer_store_byte v1, v2, s[4:7], 0 offen
  buffer_store_dword a1, v2, s[4:7], 0 offen
  buffer_atomic_add v1, off, s[4:7], s1
  buffer_atomic_add v1, off, s[4:7], s1 sc0
  buffer_atomic_cmpswap v[2:3], v1, s[4:7], 0 offen sc0
  buffer_atomic_add_f32 v1, v2, s[4:7], 0 offen
  buffer_wbl2 sc1
  buffer_inv sc1
  global_load_dword v1, v[2:3], off
  global_load_dword v1, v2, s[4:5] offset:-16
  global_load_dword v1, v2, s[4:5] offset:4095
  global_load_dword v1, v[2:3], off offset:-4096
  global_load_dwordx2 v[4:5], v[2:3], off
  global_load_dwordx4 v[4:7], v2, s[4:5] sc0 sc1 nt
  global_load_ubyte v1, v[2:3], off
  global_load_sbyte v1, v[2:3], off
  global_load_ushort v1, v[2:3], off
  global_load_short_d16_hi v1, v[2:3], off
  global_load_dword a1, v2, s[4:5] sc0 sc1 nt
  global_store_dword v[2:3], v1, off
  global_store_dwordx4 v2, v[4:7], s[4:5] offset:64
  global_store_short v[2:3], v1, off
  global_store_dword v[2:3], a1, off nt
  global_atomic_add v[2:3], v3, off
  global_atomic_add v1, v[2:3], v3, off sc0
  global_atomic_add_f32 v[2:3], v3, off
  global_atomic_cmpswap v1, v[2:3], v[4:5], off sc0
  global_atomic_add_x2 v[2:3], v[4:5], off
  global_atomic_pk_add_f16 v[2:3], v3, off
  global_load_lds_dword v2, s[4:5] offset:16
  global_load_lds_dword v[2:3], off
  global_load_lds_ubyte v[2:3], off offset:4
  flat_load_dword v1, v[2:3]
  flat_load_dword v1, v[2:3] offset:4095
  flat_load_dwordx4 v[4:7], v[2:3] sc0
  flat_store_dword v[2:3], v1 offset:16
  flat_atomic_add v1, v[2:3], v3 sc0
  flat_atomic_add v[2:3], v3
  scratch_load_dword v1, v2, off
  scratch_load_dword v1, off, s3
  scratch_load_dword v1, off, s3 offset:-8
  scratch_load_dword v1, v2, s3 offset:16
  scratch_load_dword v1, off, off offset:-4096
  scratch_store_dword v2, v1, off
  scratch_store_dwordx2 off, v[2:3], s4 offset:8
  s_endpgm
