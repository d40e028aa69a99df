.amdgcn_target "amdgcn-amd-amdhsa--gfx942"
.amdhsa_code_object_version 5
.text
.p2align 8
.globl gemm_NT_f16_f16_128x128x32_w2x2_mfma32x32x8_p1_va8_vb8_fb2_ck_v4
.type gemm_NT_f16_f16_128x128x32_w2x2_mfma32x32x8_p1_va8_vb8_fb2_ck_v4,@function
gemm_NT_f16_f16_128x128x32_w2x2_mfma32x32x8_p1_va8_vb8_fb2_ck_v4:
  s_load_dwordx8 s[4:11], s[0:1], 24
  s_load_dwordx2 s[12:13], s[0:1], 0
  s_load_dwordx2 s[16:17], s[0:1], 8
  s_load_dwordx2 s[20:21], s[0:1], 16
  s_waitcnt lgkmcnt(0)
  s_mul_i32 s0, s4, s7
  s_mul_i32 s1, s5, s8
  s_mul_i32 s24, s4, s9
  s_and_b32 s13, s13, 0xffff
  s_lshl_b32 s14, s0, 1
  s_and_b32 s17, s17, 0xffff
  s_lshl_b32 s18, s1, 1
  s_and_b32 s21, s21, 0xffff
  s_lshl_b32 s22, s24, 1
  s_and_b32 s0, s11, 0x7fffffff
  v_and_b32 v1, 0x3ff, v0
  s_min_u32 s0, s0, 1
  s_lshl_b32 s1, s2, 7
  v_and_b32 v0, 3, v1
  s_lshl_b32 s2, s3, 7
  v_lshrrev_b32 v2, 2, v1
  v_lshlrev_b32 v3, 3, v0
  s_mul_i32 s3, s1, s7
  s_sub_u32 s24, s4, s1
  s_sub_u32 s25, s5, s2
  s_lshl_b32 s3, s3, 1
  v_mad_u32_u24 v0, v2, s7, v3
  v_add_u32 v4, 64, v2
  v_and_b32 v5, 3, v1
  v_mov_b32 v6, 0x80000000
  v_lshl_add_u32 v7, v0, 1, s3
  v_cmp_gt_u32 vcc, s24, v2
  v_mad_u32_u24 v0, v4, s7, v3
  v_lshrrev_b32 v8, 2, v1
  v_lshlrev_b32 v9, 3, v5
  s_mul_i32 s26, s2, s8
  v_cndmask_b32 v5, v6, v7, vcc
  v_lshl_add_u32 v7, v0, 1, s3
  v_cmp_gt_u32 vcc, s24, v4
  s_lshl_b32 s26, s26, 1
  v_mad_u32_u24 v0, v8, s8, v9
  v_add_u32 v4, 64, v8
  v_cndmask_b32 v10, v6, v7, vcc
  v_lshl_add_u32 v7, v0, 1, s26
  v_cmp_gt_u32 vcc, s25, v8
  v_mad_u32_u24 v0, v4, s8, v9
  s_nop 0
  v_cndmask_b32 v11, v6, v7, vcc
  v_lshl_add_u32 v7, v0, 1, s26
  v_cmp_gt_u32 vcc, s25, v4
  s_mov_b32 s3, s6
  s_mov_b32 s26, s6
  v_cndmask_b32 v0, v6, v7, vcc
  v_cmp_gt_i32_e64 s[28:29], s3, v3
  v_cmp_gt_i32_e64 s[30:31], s26, v9
  s_mov_b32 s15, 0x20000
  s_mov_b32 s19, 0x20000
  v_cndmask_b32_e64 v4, v6, v5, s[28:29]
  v_cndmask_b32_e64 v7, v6, v10, s[28:29]
  v_cndmask_b32_e64 v12, v6, v11, s[30:31]
  v_cndmask_b32_e64 v13, v6, v0, s[30:31]
  buffer_load_dwordx4 v[14:17], v4, s[12:15], 0 offen
  buffer_load_dwordx4 v[18:21], v7, s[12:15], 0 offen
  buffer_load_dwordx4 v[22:25], v12, s[16:19], 0 offen
  buffer_load_dwordx4 v[26:29], v13, s[16:19], 0 offen
  s_mov_b32 s27, 64
  s_add_u32 s12, s12, s27
  s_addc_u32 s13, s13, 0
  s_sub_i32 s14, s14, s27
  s_max_i32 s14, s14, 0
  s_sub_i32 s3, s3, 32
  v_cmp_gt_i32_e64 s[28:29], s3, v3
  s_nop 1
  v_cndmask_b32_e64 v4, v6, v5, s[28:29]
  v_cndmask_b32_e64 v7, v6, v10, s[28:29]
  buffer_load_dwordx4 v[30:33], v4, s[12:15], 0 offen
  buffer_load_dwordx4 v[34:37], v7, s[12:15], 0 offen
  s_add_u32 s12, s12, s27
  s_mov_b32 s28, 64
  s_addc_u32 s13, s13, 0
  s_sub_i32 s14, s14, s27
  s_max_i32 s14, s14, 0
  s_sub_i32 s3, s3, 32
  s_add_u32 s16, s16, s28
  s_addc_u32 s17, s17, 0
  s_sub_i32 s18, s18, s28
  v_lshrrev_b32 v4, 6, v1
  s_max_i32 s18, s18, 0
  s_sub_i32 s26, s26, 32
  v_and_b32 v7, 63, v1
  v_lshrrev_b32 v1, 1, v4
  v_cmp_gt_i32_e64 s[30:31], s26, v9
  v_mul_u32_u24 v12, 0x50, v8
  v_and_b32 v8, 1, v4
  v_and_b32 v4, 31, v7
  v_mul_u32_u24 v13, 64, v1
  v_cndmask_b32_e64 v38, v6, v11, s[30:31]
  v_cndmask_b32_e64 v39, v6, v0, s[30:31]
  v_mul_u32_u24 v40, 0x50, v2
  v_lshl_add_u32 v12, v9, 1, v12
  v_and_b32 v2, 31, v7
  v_mul_u32_u24 v41, 64, v8
  v_add_u32 v4, v13, v4
  buffer_load_dwordx4 v[42:45], v38, s[16:19], 0 offen
  buffer_load_dwordx4 v[46:49], v39, s[16:19], 0 offen
  s_add_u32 s16, s16, s28
  v_lshl_add_u32 v40, v3, 1, v40
  v_add_u32 v13, 0x2800, v12
  s_mov_b32 s29, 0
  v_add_u32 v2, v41, v2
  v_lshrrev_b32 v12, 5, v7
  v_mul_u32_u24 v38, 0x50, v4
  s_addc_u32 s17, s17, 0
  s_sub_i32 s18, s18, s28
  v_add_u32 v4, s29, v40
  v_add_u32 v39, s29, v13
  s_mov_b32 s23, 0x20000
  v_lshrrev_b32 v41, 5, v7
  v_mul_u32_u24 v50, 0x50, v2
  v_lshl_add_u32 v38, v12, 3, v38
  s_max_i32 s18, s18, 0
  s_sub_i32 s26, s26, 32
  s_add_u32 s30, s6, 31
  s_waitcnt vmcnt(7)
  ds_write_b128 v4, v[14:17]
  s_waitcnt vmcnt(6)
  ds_write_b128 v4, v[18:21] offset:5120
  s_waitcnt vmcnt(5)
  ds_write_b128 v39, v[22:25]
  s_waitcnt vmcnt(4)
  ds_write_b128 v39, v[26:29] offset:5120
  s_mov_b32 s32, s20
  s_mov_b32 s33, s21
  s_mov_b32 s35, s23
  s_mul_i32 s34, s22, s0
  v_lshl_add_u32 v50, v41, 3, v50
  v_add_u32 v2, 0x2800, v38
  v_accvgpr_write_b32 a0, 0
  v_accvgpr_write_b32 a1, 0
  v_accvgpr_write_b32 a2, 0
  v_accvgpr_write_b32 a3, 0
  v_accvgpr_write_b32 a4, 0
  v_accvgpr_write_b32 a5, 0
  v_accvgpr_write_b32 a6, 0
  v_accvgpr_write_b32 a7, 0
  v_accvgpr_write_b32 a8, 0
  v_accvgpr_write_b32 a9, 0
  v_accvgpr_write_b32 a10, 0
  v_accvgpr_write_b32 a11, 0
  v_accvgpr_write_b32 a12, 0
  v_accvgpr_write_b32 a13, 0
  v_accvgpr_write_b32 a14, 0
  v_accvgpr_write_b32 a15, 0
  v_accvgpr_write_b32 a16, 0
  v_accvgpr_write_b32 a17, 0
  v_accvgpr_write_b32 a18, 0
  v_accvgpr_write_b32 a19, 0
  v_accvgpr_write_b32 a20, 0
  v_accvgpr_write_b32 a21, 0
  v_accvgpr_write_b32 a22, 0
  v_accvgpr_write_b32 a23, 0
  v_accvgpr_write_b32 a24, 0
  v_accvgpr_write_b32 a25, 0
  v_accvgpr_write_b32 a26, 0
  v_accvgpr_write_b32 a27, 0
  v_accvgpr_write_b32 a28, 0
  v_accvgpr_write_b32 a29, 0
  v_accvgpr_write_b32 a30, 0
  v_accvgpr_write_b32 a31, 0
  v_accvgpr_write_b32 a32, 0
  v_accvgpr_write_b32 a33, 0
  v_accvgpr_write_b32 a34, 0
  v_accvgpr_write_b32 a35, 0
  v_accvgpr_write_b32 a36, 0
  v_accvgpr_write_b32 a37, 0
  v_accvgpr_write_b32 a38, 0
  v_accvgpr_write_b32 a39, 0
  v_accvgpr_write_b32 a40, 0
  v_accvgpr_write_b32 a41, 0
  v_accvgpr_write_b32 a42, 0
  v_accvgpr_write_b32 a43, 0
  v_accvgpr_write_b32 a44, 0
  v_accvgpr_write_b32 a45, 0
  v_accvgpr_write_b32 a46, 0
  v_accvgpr_write_b32 a47, 0
  v_accvgpr_write_b32 a48, 0
  v_accvgpr_write_b32 a49, 0
  v_accvgpr_write_b32 a50, 0
  v_accvgpr_write_b32 a51, 0
  v_accvgpr_write_b32 a52, 0
  v_accvgpr_write_b32 a53, 0
  v_accvgpr_write_b32 a54, 0
  v_accvgpr_write_b32 a55, 0
  v_accvgpr_write_b32 a56, 0
  v_accvgpr_write_b32 a57, 0
  v_accvgpr_write_b32 a58, 0
  v_accvgpr_write_b32 a59, 0
  v_accvgpr_write_b32 a60, 0
  v_accvgpr_write_b32 a61, 0
  v_accvgpr_write_b32 a62, 0
  v_accvgpr_write_b32 a63, 0
  s_mov_b32 s0, 0x5000
  s_waitcnt lgkmcnt(0)
  s_barrier
  s_lshr_b32 s30, s30, 5
loop_k:
  v_add_u32 v4, s29, v50
  v_add_u32 v12, s29, v2
  ds_read_b64 v[14:15], v4
  ds_read_b64 v[16:17], v4 offset:2560
  ds_read_b64 v[18:19], v12
  ds_read_b64 v[20:21], v12 offset:2560
  ds_read_b64 v[22:23], v4 offset:16
  ds_read_b64 v[24:25], v4 offset:2576
  ds_read_b64 v[26:27], v12 offset:16
  ds_read_b64 v[28:29], v12 offset:2576
  s_setprio 1
  s_waitcnt lgkmcnt(5)
  v_mfma_f32_32x32x8_f16 a[0:15], v[14:15], v[18:19], a[0:15]
  s_waitcnt lgkmcnt(4)
  v_mfma_f32_32x32x8_f16 a[16:31], v[14:15], v[20:21], a[16:31]
  ds_read_b64 v[14:15], v4 offset:32
  v_mfma_f32_32x32x8_f16 a[32:47], v[16:17], v[18:19], a[32:47]
  ds_read_b64 v[18:19], v12 offset:32
  v_mfma_f32_32x32x8_f16 a[48:63], v[16:17], v[20:21], a[48:63]
  ds_read_b64 v[16:17], v4 offset:2592
  ds_read_b64 v[20:21], v12 offset:2592
  s_waitcnt lgkmcnt(5)
  v_mfma_f32_32x32x8_f16 a[0:15], v[22:23], v[26:27], a[0:15]
  s_waitcnt lgkmcnt(4)
  v_mfma_f32_32x32x8_f16 a[16:31], v[22:23], v[28:29], a[16:31]
  ds_read_b64 v[22:23], v4 offset:48
  v_mfma_f32_32x32x8_f16 a[32:47], v[24:25], v[26:27], a[32:47]
  ds_read_b64 v[26:27], v12 offset:48
  v_mfma_f32_32x32x8_f16 a[48:63], v[24:25], v[28:29], a[48:63]
  ds_read_b64 v[24:25], v4 offset:2608
  ds_read_b64 v[28:29], v12 offset:2608
  s_waitcnt lgkmcnt(6)
  v_mfma_f32_32x32x8_f16 a[0:15], v[14:15], v[18:19], a[0:15]
  s_waitcnt lgkmcnt(4)
  v_mfma_f32_32x32x8_f16 a[16:31], v[14:15], v[20:21], a[16:31]
  v_mfma_f32_32x32x8_f16 a[32:47], v[16:17], v[18:19], a[32:47]
  v_mfma_f32_32x32x8_f16 a[48:63], v[16:17], v[20:21], a[48:63]
  s_waitcnt lgkmcnt(2)
  v_mfma_f32_32x32x8_f16 a[0:15], v[22:23], v[26:27], a[0:15]
  s_waitcnt lgkmcnt(0)
  v_mfma_f32_32x32x8_f16 a[16:31], v[22:23], v[28:29], a[16:31]
  v_mfma_f32_32x32x8_f16 a[32:47], v[24:25], v[26:27], a[32:47]
  v_mfma_f32_32x32x8_f16 a[48:63], v[24:25], v[28:29], a[48:63]
  v_add_u32 v4, s0, v40
  s_waitcnt vmcnt(3)
  ds_write_b128 v4, v[30:33]
  s_waitcnt vmcnt(2)
  ds_write_b128 v4, v[34:37] offset:5120
  v_add_u32 v4, s0, v13
  s_waitcnt vmcnt(1)
  ds_write_b128 v4, v[42:45]
  s_waitcnt vmcnt(0)
  ds_write_b128 v4, v[46:49] offset:5120
  v_cmp_gt_i32_e64 s[36:37], s3, v3
  s_nop 1
  v_cndmask_b32_e64 v4, v6, v5, s[36:37]
  buffer_load_dwordx4 v[30:33], v4, s[12:15], 0 offen
  v_cndmask_b32_e64 v4, v6, v10, s[36:37]
  buffer_load_dwordx4 v[34:37], v4, s[12:15], 0 offen
  v_cmp_gt_i32_e64 s[36:37], s26, v9
  s_nop 1
  v_cndmask_b32_e64 v4, v6, v11, s[36:37]
  buffer_load_dwordx4 v[42:45], v4, s[16:19], 0 offen
  v_cndmask_b32_e64 v4, v6, v0, s[36:37]
  buffer_load_dwordx4 v[46:49], v4, s[16:19], 0 offen
  s_add_u32 s12, s12, s27
  s_addc_u32 s13, s13, 0
  s_sub_i32 s14, s14, s27
  s_max_i32 s14, s14, 0
  s_sub_i32 s3, s3, 32
  s_add_u32 s16, s16, s28
  s_addc_u32 s17, s17, 0
  s_sub_i32 s18, s18, s28
  s_max_i32 s18, s18, 0
  s_sub_i32 s26, s26, 32
  s_mov_b32 s31, s29
  s_mov_b32 s29, s0
  s_mov_b32 s0, s31
  s_waitcnt lgkmcnt(0)
  s_barrier
  s_setprio 0
  s_sub_u32 s30, s30, 1
  s_cmp_lg_u32 s30, 0
  s_cbranch_scc1 loop_k
  v_lshrrev_b32 v0, 5, v7
  v_mul_u32_u24 v2, 64, v8
  v_lshl_add_u32 v3, v0, 2, v2
  v_and_b32 v0, 31, v7
  v_mul_u32_u24 v2, 64, v1
  s_mul_i32 s0, s1, s9
  v_add_u32 v0, v2, v0
  s_add_u32 s0, s0, s2
  v_mul_lo_u32 v1, s9, v3
  s_lshl_b32 s0, s0, 1
  v_add_u32 v1, v0, v1
  v_sub_u32 v2, s25, v0
  v_lshl_add_u32 v1, v1, 1, s0
  s_lshl_b32 s0, s9, 1
  v_cmp_lt_i32_e64 s[2:3], 0, v2
  v_mov_b32 v0, v1
  v_sub_u32 v4, s24, v3
  v_cndmask_b32_e64 v3, v6, v0, s[2:3]
  s_mul_i32 s1, s0, 1
  s_mul_i32 s2, s0, 2
  s_mul_i32 s3, s0, 3
  s_mul_i32 s12, s0, 8
  s_mul_i32 s13, s0, 9
  s_mul_i32 s14, s0, 10
  s_mul_i32 s15, s0, 11
  s_mul_i32 s16, s0, 16
  s_mul_i32 s17, s0, 17
  s_mul_i32 s18, s0, 18
  s_mul_i32 s19, s0, 19
  s_mul_i32 s24, s0, 24
  s_mul_i32 s25, s0, 25
  s_mul_i32 s26, s0, 26
  s_mul_i32 s27, s0, 27
  v_cmp_lt_i32_e64 s[28:29], 0, v4
  v_cmp_lt_i32_e64 s[30:31], 1, v4
  v_add_u32 v0, s1, v3
  v_cmp_lt_i32_e64 s[36:37], 2, v4
  v_add_u32 v5, s2, v3
  v_cmp_lt_i32_e64 s[38:39], 3, v4
  v_add_u32 v7, s3, v3
  v_cmp_lt_i32_e64 s[2:3], 8, v4
  v_add_u32 v8, s12, v3
  v_cmp_lt_i32_e64 s[40:41], 9, v4
  v_add_u32 v9, s13, v3
  v_cmp_lt_i32_e64 s[12:13], 10, v4
  v_add_u32 v10, s14, v3
  v_cmp_lt_i32_e64 s[42:43], 11, v4
  v_add_u32 v11, s15, v3
  v_cmp_lt_i32_e64 s[14:15], 16, v4
  v_add_u32 v12, s16, v3
  v_cmp_lt_i32_e64 s[44:45], 17, v4
  v_add_u32 v13, s17, v3
  v_cmp_lt_i32_e64 s[16:17], 18, v4
  v_add_u32 v14, s18, v3
  v_cmp_lt_i32_e64 s[46:47], 19, v4
  v_add_u32 v15, s19, v3
  v_cmp_lt_i32_e64 s[18:19], 24, v4
  v_add_u32 v16, s24, v3
  v_cmp_lt_i32_e64 s[48:49], 25, v4
  v_add_u32 v17, s25, v3
  v_cmp_lt_i32_e64 s[24:25], 26, v4
  v_add_u32 v18, s26, v3
  v_cmp_lt_i32_e64 s[50:51], 27, v4
  v_add_u32 v19, s27, v3
  v_cndmask_b32_e64 v20, v6, v3, s[28:29]
  v_cndmask_b32_e64 v21, v6, v0, s[30:31]
  v_cndmask_b32_e64 v0, v6, v5, s[36:37]
  v_cndmask_b32_e64 v5, v6, v7, s[38:39]
  v_cndmask_b32_e64 v7, v6, v8, s[2:3]
  v_cndmask_b32_e64 v8, v6, v9, s[40:41]
  v_cndmask_b32_e64 v9, v6, v10, s[12:13]
  v_cndmask_b32_e64 v10, v6, v11, s[42:43]
  v_cndmask_b32_e64 v11, v6, v12, s[14:15]
  v_cndmask_b32_e64 v12, v6, v13, s[44:45]
  v_cndmask_b32_e64 v13, v6, v14, s[16:17]
  v_cndmask_b32_e64 v14, v6, v15, s[46:47]
  v_cndmask_b32_e64 v15, v6, v16, s[18:19]
  v_cndmask_b32_e64 v16, v6, v17, s[48:49]
  v_cndmask_b32_e64 v17, v6, v18, s[24:25]
  v_cndmask_b32_e64 v18, v6, v19, s[50:51]
  buffer_load_ushort v19, v20, s[32:35], 0 offen
  buffer_load_ushort v22, v21, s[32:35], 0 offen
  buffer_load_ushort v23, v0, s[32:35], 0 offen
  buffer_load_ushort v24, v5, s[32:35], 0 offen
  buffer_load_ushort v25, v7, s[32:35], 0 offen
  buffer_load_ushort v26, v8, s[32:35], 0 offen
  buffer_load_ushort v27, v9, s[32:35], 0 offen
  buffer_load_ushort v28, v10, s[32:35], 0 offen
  buffer_load_ushort v29, v11, s[32:35], 0 offen
  buffer_load_ushort v38, v12, s[32:35], 0 offen
  buffer_load_ushort v39, v13, s[32:35], 0 offen
  buffer_load_ushort v40, v14, s[32:35], 0 offen
  buffer_load_ushort v41, v15, s[32:35], 0 offen
  buffer_load_ushort v50, v16, s[32:35], 0 offen
  buffer_load_ushort v51, v17, s[32:35], 0 offen
  buffer_load_ushort v52, v18, s[32:35], 0 offen
  v_cmp_lt_i32_e64 s[2:3], 32, v2
  v_add_u32 v2, 64, v1
  v_accvgpr_read_b32 v1, a0
  v_accvgpr_read_b32 v53, a1
  v_accvgpr_read_b32 v54, a2
  v_accvgpr_read_b32 v55, a3
  v_accvgpr_read_b32 v56, a4
  v_accvgpr_read_b32 v57, a5
  v_accvgpr_read_b32 v58, a6
  v_accvgpr_read_b32 v59, a7
  v_accvgpr_read_b32 v60, a8
  v_accvgpr_read_b32 v61, a9
  v_accvgpr_read_b32 v62, a10
  v_accvgpr_read_b32 v63, a11
  v_accvgpr_read_b32 v64, a12
  v_accvgpr_read_b32 v65, a13
  v_accvgpr_read_b32 v66, a14
  v_accvgpr_read_b32 v67, a15
  v_cndmask_b32_e64 v68, v6, v2, s[2:3]
  v_mul_f32 v2, s10, v1
  s_waitcnt vmcnt(15)
  v_cvt_f32_f16 v1, v19
  v_mul_f32 v19, s10, v53
  s_waitcnt vmcnt(14)
  v_cvt_f32_f16 v30, v22
  v_mul_f32 v22, s10, v54
  s_waitcnt vmcnt(13)
  v_cvt_f32_f16 v31, v23
  v_mul_f32 v23, s10, v55
  s_waitcnt vmcnt(12)
  v_cvt_f32_f16 v32, v24
  v_mul_f32 v24, s10, v56
  s_waitcnt vmcnt(11)
  v_cvt_f32_f16 v33, v25
  v_mul_f32 v25, s10, v57
  s_waitcnt vmcnt(10)
  v_cvt_f32_f16 v34, v26
  v_mul_f32 v26, s10, v58
  s_waitcnt vmcnt(9)
  v_cvt_f32_f16 v35, v27
  v_mul_f32 v27, s10, v59
  s_waitcnt vmcnt(8)
  v_cvt_f32_f16 v36, v28
  v_mul_f32 v28, s10, v60
  s_waitcnt vmcnt(7)
  v_cvt_f32_f16 v37, v29
  v_mul_f32 v29, s10, v61
  s_waitcnt vmcnt(6)
  v_cvt_f32_f16 v42, v38
  v_mul_f32 v38, s10, v62
  s_waitcnt vmcnt(5)
  v_cvt_f32_f16 v43, v39
  v_mul_f32 v39, s10, v63
  s_waitcnt vmcnt(4)
  v_cvt_f32_f16 v44, v40
  v_mul_f32 v40, s10, v64
  s_waitcnt vmcnt(3)
  v_cvt_f32_f16 v45, v41
  v_mul_f32 v41, s10, v65
  s_waitcnt vmcnt(2)
  v_cvt_f32_f16 v46, v50
  v_mul_f32 v47, s10, v66
  s_waitcnt vmcnt(1)
  v_cvt_f32_f16 v48, v51
  v_mul_f32 v49, s10, v67
  s_waitcnt vmcnt(0)
  v_cvt_f32_f16 v50, v52
  s_mul_i32 s1, s0, 1
  s_mul_i32 s2, s0, 2
  s_mul_i32 s3, s0, 3
  s_mul_i32 s12, s0, 8
  s_mul_i32 s13, s0, 9
  s_mul_i32 s14, s0, 10
  s_mul_i32 s15, s0, 11
  s_mul_i32 s16, s0, 16
  s_mul_i32 s17, s0, 17
  s_mul_i32 s18, s0, 18
  s_mul_i32 s19, s0, 19
  s_mul_i32 s24, s0, 24
  s_mul_i32 s25, s0, 25
  s_mul_i32 s26, s0, 26
  s_mul_i32 s27, s0, 27
  v_fma_f32 v51, s11, v1, v2
  v_fma_f32 v1, s11, v30, v19
  v_fma_f32 v2, s11, v31, v22
  v_fma_f32 v19, s11, v32, v23
  v_fma_f32 v22, s11, v33, v24
  v_fma_f32 v23, s11, v34, v25
  v_fma_f32 v24, s11, v35, v26
  v_fma_f32 v25, s11, v36, v27
  v_fma_f32 v26, s11, v37, v28
  v_fma_f32 v27, s11, v42, v29
  v_fma_f32 v28, s11, v43, v38
  v_fma_f32 v29, s11, v44, v39
  v_fma_f32 v30, s11, v45, v40
  v_fma_f32 v31, s11, v46, v41
  v_fma_f32 v32, s11, v48, v47
  v_fma_f32 v33, s11, v50, v49
  v_cmp_lt_i32_e64 s[28:29], 0, v4
  v_cmp_lt_i32_e64 s[30:31], 1, v4
  v_add_u32 v34, s1, v68
  v_cmp_lt_i32_e64 s[36:37], 2, v4
  v_add_u32 v35, s2, v68
  v_cmp_lt_i32_e64 s[38:39], 3, v4
  v_add_u32 v36, s3, v68
  v_cmp_lt_i32_e64 s[2:3], 8, v4
  v_add_u32 v37, s12, v68
  v_cmp_lt_i32_e64 s[40:41], 9, v4
  v_add_u32 v38, s13, v68
  v_cmp_lt_i32_e64 s[12:13], 10, v4
  v_add_u32 v39, s14, v68
  v_cmp_lt_i32_e64 s[42:43], 11, v4
  v_add_u32 v40, s15, v68
  v_cmp_lt_i32_e64 s[14:15], 16, v4
  v_add_u32 v41, s16, v68
  v_cmp_lt_i32_e64 s[44:45], 17, v4
  v_add_u32 v42, s17, v68
  v_cmp_lt_i32_e64 s[16:17], 18, v4
  v_add_u32 v43, s18, v68
  v_cmp_lt_i32_e64 s[46:47], 19, v4
  v_add_u32 v44, s19, v68
  v_cmp_lt_i32_e64 s[18:19], 24, v4
  v_add_u32 v45, s24, v68
  v_cmp_lt_i32_e64 s[48:49], 25, v4
  v_add_u32 v46, s25, v68
  v_cmp_lt_i32_e64 s[24:25], 26, v4
  v_add_u32 v47, s26, v68
  v_cmp_lt_i32_e64 s[50:51], 27, v4
  v_add_u32 v48, s27, v68
  v_cvt_f16_f32 v49, v51
  v_cvt_f16_f32 v50, v1
  v_cvt_f16_f32 v1, v2
  v_cvt_f16_f32 v2, v19
  v_cvt_f16_f32 v19, v22
  v_cvt_f16_f32 v22, v23
  v_cvt_f16_f32 v23, v24
  v_cvt_f16_f32 v24, v25
  v_cvt_f16_f32 v25, v26
  v_cvt_f16_f32 v26, v27
  v_cvt_f16_f32 v27, v28
  v_cvt_f16_f32 v28, v29
  v_cvt_f16_f32 v29, v30
  v_cvt_f16_f32 v30, v31
  v_cvt_f16_f32 v31, v32
  v_cvt_f16_f32 v32, v33
  v_cndmask_b32_e64 v33, v6, v68, s[28:29]
  v_cndmask_b32_e64 v51, v6, v34, s[30:31]
  v_cndmask_b32_e64 v34, v6, v35, s[36:37]
  v_cndmask_b32_e64 v35, v6, v36, s[38:39]
  v_cndmask_b32_e64 v36, v6, v37, s[2:3]
  v_cndmask_b32_e64 v37, v6, v38, s[40:41]
  v_cndmask_b32_e64 v38, v6, v39, s[12:13]
  v_cndmask_b32_e64 v39, v6, v40, s[42:43]
  v_cndmask_b32_e64 v40, v6, v41, s[14:15]
  v_cndmask_b32_e64 v41, v6, v42, s[44:45]
  v_cndmask_b32_e64 v42, v6, v43, s[16:17]
  v_cndmask_b32_e64 v43, v6, v44, s[46:47]
  v_cndmask_b32_e64 v44, v6, v45, s[18:19]
  v_cndmask_b32_e64 v45, v6, v46, s[48:49]
  v_cndmask_b32_e64 v46, v6, v47, s[24:25]
  v_cndmask_b32_e64 v47, v6, v48, s[50:51]
  buffer_store_short v49, v20, s[20:23], 0 offen
  buffer_store_short v50, v21, s[20:23], 0 offen
  buffer_store_short v1, v0, s[20:23], 0 offen
  buffer_store_short v2, v5, s[20:23], 0 offen
  buffer_store_short v19, v7, s[20:23], 0 offen
  buffer_store_short v22, v8, s[20:23], 0 offen
  buffer_store_short v23, v9, s[20:23], 0 offen
  buffer_store_short v24, v10, s[20:23], 0 offen
  buffer_store_short v25, v11, s[20:23], 0 offen
  buffer_store_short v26, v12, s[20:23], 0 offen
  buffer_store_short v27, v13, s[20:23], 0 offen
  buffer_store_short v28, v14, s[20:23], 0 offen
  buffer_store_short v29, v15, s[20:23], 0 offen
  buffer_store_short v30, v16, s[20:23], 0 offen
  buffer_store_short v31, v17, s[20:23], 0 offen
  buffer_store_short v32, v18, s[20:23], 0 offen
  buffer_load_ushort v0, v33, s[32:35], 0 offen
  buffer_load_ushort v1, v51, s[32:35], 0 offen
  buffer_load_ushort v2, v34, s[32:35], 0 offen
  buffer_load_ushort v5, v35, s[32:35], 0 offen
  buffer_load_ushort v7, v36, s[32:35], 0 offen
  buffer_load_ushort v8, v37, s[32:35], 0 offen
  buffer_load_ushort v9, v38, s[32:35], 0 offen
  buffer_load_ushort v10, v39, s[32:35], 0 offen
  buffer_load_ushort v11, v40, s[32:35], 0 offen
  buffer_load_ushort v12, v41, s[32:35], 0 offen
  buffer_load_ushort v13, v42, s[32:35], 0 offen
  buffer_load_ushort v14, v43, s[32:35], 0 offen
  buffer_load_ushort v15, v44, s[32:35], 0 offen
  buffer_load_ushort v16, v45, s[32:35], 0 offen
  buffer_load_ushort v17, v46, s[32:35], 0 offen
  buffer_load_ushort v18, v47, s[32:35], 0 offen
  v_accvgpr_read_b32 v19, a16
  v_accvgpr_read_b32 v20, a17
  v_accvgpr_read_b32 v21, a18
  v_accvgpr_read_b32 v22, a19
  v_accvgpr_read_b32 v23, a20
  v_accvgpr_read_b32 v24, a21
  v_accvgpr_read_b32 v25, a22
  v_accvgpr_read_b32 v26, a23
  v_accvgpr_read_b32 v27, a24
  v_accvgpr_read_b32 v28, a25
  v_accvgpr_read_b32 v29, a26
  v_accvgpr_read_b32 v30, a27
  v_accvgpr_read_b32 v31, a28
  v_accvgpr_read_b32 v32, a29
  v_accvgpr_read_b32 v48, a30
  v_accvgpr_read_b32 v49, a31
  v_mul_f32 v50, s10, v19
  s_waitcnt vmcnt(15)
  v_cvt_f32_f16 v19, v0
  v_mul_f32 v0, s10, v20
  s_waitcnt vmcnt(14)
  v_cvt_f32_f16 v20, v1
  v_mul_f32 v1, s10, v21
  s_waitcnt vmcnt(13)
  v_cvt_f32_f16 v21, v2
  v_mul_f32 v2, s10, v22
  s_waitcnt vmcnt(12)
  v_cvt_f32_f16 v22, v5
  v_mul_f32 v5, s10, v23
  s_waitcnt vmcnt(11)
  v_cvt_f32_f16 v23, v7
  v_mul_f32 v7, s10, v24
  s_waitcnt vmcnt(10)
  v_cvt_f32_f16 v24, v8
  v_mul_f32 v8, s10, v25
  s_waitcnt vmcnt(9)
  v_cvt_f32_f16 v25, v9
  v_mul_f32 v9, s10, v26
  s_waitcnt vmcnt(8)
  v_cvt_f32_f16 v26, v10
  v_mul_f32 v10, s10, v27
  s_waitcnt vmcnt(7)
  v_cvt_f32_f16 v27, v11
  v_mul_f32 v11, s10, v28
  s_waitcnt vmcnt(6)
  v_cvt_f32_f16 v28, v12
  v_mul_f32 v12, s10, v29
  s_waitcnt vmcnt(5)
  v_cvt_f32_f16 v29, v13
  v_mul_f32 v13, s10, v30
  s_waitcnt vmcnt(4)
  v_cvt_f32_f16 v30, v14
  v_mul_f32 v14, s10, v31
  s_waitcnt vmcnt(3)
  v_cvt_f32_f16 v31, v15
  v_mul_f32 v15, s10, v32
  s_waitcnt vmcnt(2)
  v_cvt_f32_f16 v32, v16
  v_mul_f32 v16, s10, v48
  s_waitcnt vmcnt(1)
  v_cvt_f32_f16 v48, v17
  v_mul_f32 v17, s10, v49
  s_waitcnt vmcnt(0)
  v_cvt_f32_f16 v49, v18
  s_mul_i32 s1, s0, 32
  s_mul_i32 s2, s0, 33
  s_mul_i32 s3, s0, 34
  s_mul_i32 s12, s0, 35
  s_mul_i32 s13, s0, 40
  s_mul_i32 s14, s0, 41
  s_mul_i32 s15, s0, 42
  s_mul_i32 s16, s0, 43
  s_mul_i32 s17, s0, 48
  s_mul_i32 s18, s0, 49
  s_mul_i32 s19, s0, 50
  s_mul_i32 s24, s0, 51
  s_mul_i32 s25, s0, 56
  s_mul_i32 s26, s0, 57
  s_mul_i32 s27, s0, 58
  s_mul_i32 s28, s0, 59
  v_fma_f32 v18, s11, v19, v50
  v_fma_f32 v19, s11, v20, v0
  v_fma_f32 v0, s11, v21, v1
  v_fma_f32 v1, s11, v22, v2
  v_fma_f32 v2, s11, v23, v5
  v_fma_f32 v5, s11, v24, v7
  v_fma_f32 v7, s11, v25, v8
  v_fma_f32 v8, s11, v26, v9
  v_fma_f32 v9, s11, v27, v10
  v_fma_f32 v10, s11, v28, v11
  v_fma_f32 v11, s11, v29, v12
  v_fma_f32 v12, s11, v30, v13
  v_fma_f32 v13, s11, v31, v14
  v_fma_f32 v14, s11, v32, v15
  v_fma_f32 v15, s11, v48, v16
  v_fma_f32 v16, s11, v49, v17
  v_cmp_lt_i32_e64 s[30:31], 32, v4
  v_add_u32 v17, s1, v3
  v_cmp_lt_i32_e64 s[36:37], 33, v4
  v_add_u32 v20, s2, v3
  v_cmp_lt_i32_e64 s[38:39], 34, v4
  v_add_u32 v21, s3, v3
  v_cmp_lt_i32_e64 s[2:3], 35, v4
  v_add_u32 v22, s12, v3
  v_cmp_lt_i32_e64 s[40:41], 40, v4
  v_add_u32 v23, s13, v3
  v_cmp_lt_i32_e64 s[12:13], 41, v4
  v_add_u32 v24, s14, v3
  v_cmp_lt_i32_e64 s[42:43], 42, v4
  v_add_u32 v25, s15, v3
  v_cmp_lt_i32_e64 s[14:15], 43, v4
  v_add_u32 v26, s16, v3
  v_cmp_lt_i32_e64 s[44:45], 48, v4
  v_add_u32 v27, s17, v3
  v_cmp_lt_i32_e64 s[16:17], 49, v4
  v_add_u32 v28, s18, v3
  v_cmp_lt_i32_e64 s[46:47], 50, v4
  v_add_u32 v29, s19, v3
  v_cmp_lt_i32_e64 s[18:19], 51, v4
  v_add_u32 v30, s24, v3
  v_cmp_lt_i32_e64 s[48:49], 56, v4
  v_add_u32 v31, s25, v3
  v_cmp_lt_i32_e64 s[24:25], 57, v4
  v_add_u32 v32, s26, v3
  v_cmp_lt_i32_e64 s[50:51], 58, v4
  v_add_u32 v48, s27, v3
  v_cmp_lt_i32_e64 s[26:27], 59, v4
  v_add_u32 v49, s28, v3
  v_cvt_f16_f32 v3, v18
  v_cvt_f16_f32 v18, v19
  v_cvt_f16_f32 v19, v0
  v_cvt_f16_f32 v0, v1
  v_cvt_f16_f32 v1, v2
  v_cvt_f16_f32 v2, v5
  v_cvt_f16_f32 v5, v7
  v_cvt_f16_f32 v7, v8
  v_cvt_f16_f32 v8, v9
  v_cvt_f16_f32 v9, v10
  v_cvt_f16_f32 v10, v11
  v_cvt_f16_f32 v11, v12
  v_cvt_f16_f32 v12, v13
  v_cvt_f16_f32 v13, v14
  v_cvt_f16_f32 v14, v15
  v_cvt_f16_f32 v15, v16
  v_cndmask_b32_e64 v16, v6, v17, s[30:31]
  v_cndmask_b32_e64 v17, v6, v20, s[36:37]
  v_cndmask_b32_e64 v20, v6, v21, s[38:39]
  v_cndmask_b32_e64 v21, v6, v22, s[2:3]
  v_cndmask_b32_e64 v22, v6, v23, s[40:41]
  v_cndmask_b32_e64 v23, v6, v24, s[12:13]
  v_cndmask_b32_e64 v24, v6, v25, s[42:43]
  v_cndmask_b32_e64 v25, v6, v26, s[14:15]
  v_cndmask_b32_e64 v26, v6, v27, s[44:45]
  v_cndmask_b32_e64 v27, v6, v28, s[16:17]
  v_cndmask_b32_e64 v28, v6, v29, s[46:47]
  v_cndmask_b32_e64 v29, v6, v30, s[18:19]
  v_cndmask_b32_e64 v30, v6, v31, s[48:49]
  v_cndmask_b32_e64 v31, v6, v32, s[24:25]
  v_cndmask_b32_e64 v32, v6, v48, s[50:51]
  v_cndmask_b32_e64 v48, v6, v49, s[26:27]
  buffer_store_short v3, v33, s[20:23], 0 offen
  buffer_store_short v18, v51, s[20:23], 0 offen
  buffer_store_short v19, v34, s[20:23], 0 offen
  buffer_store_short v0, v35, s[20:23], 0 offen
  buffer_store_short v1, v36, s[20:23], 0 offen
  buffer_store_short v2, v37, s[20:23], 0 offen
  buffer_store_short v5, v38, s[20:23], 0 offen
  buffer_store_short v7, v39, s[20:23], 0 offen
  buffer_store_short v8, v40, s[20:23], 0 offen
  buffer_store_short v9, v41, s[20:23], 0 offen
  buffer_store_short v10, v42, s[20:23], 0 offen
  buffer_store_short v11, v43, s[20:23], 0 offen
  buffer_store_short v12, v44, s[20:23], 0 offen
  buffer_store_short v13, v45, s[20:23], 0 offen
  buffer_store_short v14, v46, s[20:23], 0 offen
  buffer_store_short v15, v47, s[20:23], 0 offen
  buffer_load_ushort v0, v16, s[32:35], 0 offen
  buffer_load_ushort v1, v17, s[32:35], 0 offen
  buffer_load_ushort v2, v20, s[32:35], 0 offen
  buffer_load_ushort v3, v21, s[32:35], 0 offen
  buffer_load_ushort v5, v22, s[32:35], 0 offen
  buffer_load_ushort v7, v23, s[32:35], 0 offen
  buffer_load_ushort v8, v24, s[32:35], 0 offen
  buffer_load_ushort v9, v25, s[32:35], 0 offen
  buffer_load_ushort v10, v26, s[32:35], 0 offen
  buffer_load_ushort v11, v27, s[32:35], 0 offen
  buffer_load_ushort v12, v28, s[32:35], 0 offen
  buffer_load_ushort v13, v29, s[32:35], 0 offen
  buffer_load_ushort v14, v30, s[32:35], 0 offen
  buffer_load_ushort v15, v31, s[32:35], 0 offen
  buffer_load_ushort v18, v32, s[32:35], 0 offen
  buffer_load_ushort v19, v48, s[32:35], 0 offen
  v_accvgpr_read_b32 v33, a32
  v_accvgpr_read_b32 v34, a33
  v_accvgpr_read_b32 v35, a34
  v_accvgpr_read_b32 v36, a35
  v_accvgpr_read_b32 v37, a36
  v_accvgpr_read_b32 v38, a37
  v_accvgpr_read_b32 v39, a38
  v_accvgpr_read_b32 v40, a39
  v_accvgpr_read_b32 v41, a40
  v_accvgpr_read_b32 v42, a41
  v_accvgpr_read_b32 v43, a42
  v_accvgpr_read_b32 v44, a43
  v_accvgpr_read_b32 v45, a44
  v_accvgpr_read_b32 v46, a45
  v_accvgpr_read_b32 v47, a46
  v_accvgpr_read_b32 v49, a47
  v_mul_f32 v50, s10, v33
  s_waitcnt vmcnt(15)
  v_cvt_f32_f16 v33, v0
  v_mul_f32 v0, s10, v34
  s_waitcnt vmcnt(14)
  v_cvt_f32_f16 v34, v1
  v_mul_f32 v1, s10, v35
  s_waitcnt vmcnt(13)
  v_cvt_f32_f16 v35, v2
  v_mul_f32 v2, s10, v36
  s_waitcnt vmcnt(12)
  v_cvt_f32_f16 v36, v3
  v_mul_f32 v3, s10, v37
  s_waitcnt vmcnt(11)
  v_cvt_f32_f16 v37, v5
  v_mul_f32 v5, s10, v38
  s_waitcnt vmcnt(10)
  v_cvt_f32_f16 v38, v7
  v_mul_f32 v7, s10, v39
  s_waitcnt vmcnt(9)
  v_cvt_f32_f16 v39, v8
  v_mul_f32 v8, s10, v40
  s_waitcnt vmcnt(8)
  v_cvt_f32_f16 v40, v9
  v_mul_f32 v9, s10, v41
  s_waitcnt vmcnt(7)
  v_cvt_f32_f16 v41, v10
  v_mul_f32 v10, s10, v42
  s_waitcnt vmcnt(6)
  v_cvt_f32_f16 v42, v11
  v_mul_f32 v11, s10, v43
  s_waitcnt vmcnt(5)
  v_cvt_f32_f16 v43, v12
  v_mul_f32 v12, s10, v44
  s_waitcnt vmcnt(4)
  v_cvt_f32_f16 v44, v13
  v_mul_f32 v13, s10, v45
  s_waitcnt vmcnt(3)
  v_cvt_f32_f16 v45, v14
  v_mul_f32 v14, s10, v46
  s_waitcnt vmcnt(2)
  v_cvt_f32_f16 v46, v15
  v_mul_f32 v15, s10, v47
  s_waitcnt vmcnt(1)
  v_cvt_f32_f16 v47, v18
  v_mul_f32 v18, s10, v49
  s_waitcnt vmcnt(0)
  v_cvt_f32_f16 v49, v19
  s_mul_i32 s1, s0, 32
  s_mul_i32 s2, s0, 33
  s_mul_i32 s3, s0, 34
  s_mul_i32 s12, s0, 35
  s_mul_i32 s13, s0, 40
  s_mul_i32 s14, s0, 41
  s_mul_i32 s15, s0, 42
  s_mul_i32 s16, s0, 43
  s_mul_i32 s17, s0, 48
  s_mul_i32 s18, s0, 49
  s_mul_i32 s19, s0, 50
  s_mul_i32 s24, s0, 51
  s_mul_i32 s25, s0, 56
  s_mul_i32 s26, s0, 57
  s_mul_i32 s27, s0, 58
  s_mul_i32 s28, s0, 59
  v_fma_f32 v19, s11, v33, v50
  v_fma_f32 v33, s11, v34, v0
  v_fma_f32 v0, s11, v35, v1
  v_fma_f32 v1, s11, v36, v2
  v_fma_f32 v2, s11, v37, v3
  v_fma_f32 v3, s11, v38, v5
  v_fma_f32 v5, s11, v39, v7
  v_fma_f32 v7, s11, v40, v8
  v_fma_f32 v8, s11, v41, v9
  v_fma_f32 v9, s11, v42, v10
  v_fma_f32 v10, s11, v43, v11
  v_fma_f32 v11, s11, v44, v12
  v_fma_f32 v12, s11, v45, v13
  v_fma_f32 v13, s11, v46, v14
  v_fma_f32 v14, s11, v47, v15
  v_fma_f32 v15, s11, v49, v18
  v_cmp_lt_i32_e64 s[30:31], 32, v4
  v_add_u32 v18, s1, v68
  v_cmp_lt_i32_e64 s[0:1], 33, v4
  v_add_u32 v34, s2, v68
  v_cmp_lt_i32_e64 s[36:37], 34, v4
  v_add_u32 v35, s3, v68
  v_cmp_lt_i32_e64 s[2:3], 35, v4
  v_add_u32 v36, s12, v68
  v_cmp_lt_i32_e64 s[38:39], 40, v4
  v_add_u32 v37, s13, v68
  v_cmp_lt_i32_e64 s[12:13], 41, v4
  v_add_u32 v38, s14, v68
  v_cmp_lt_i32_e64 s[40:41], 42, v4
  v_add_u32 v39, s15, v68
  v_cmp_lt_i32_e64 s[14:15], 43, v4
  v_add_u32 v40, s16, v68
  v_cmp_lt_i32_e64 s[42:43], 48, v4
  v_add_u32 v41, s17, v68
  v_cmp_lt_i32_e64 s[16:17], 49, v4
  v_add_u32 v42, s18, v68
  v_cmp_lt_i32_e64 s[44:45], 50, v4
  v_add_u32 v43, s19, v68
  v_cmp_lt_i32_e64 s[18:19], 51, v4
  v_add_u32 v44, s24, v68
  v_cmp_lt_i32_e64 s[46:47], 56, v4
  v_add_u32 v45, s25, v68
  v_cmp_lt_i32_e64 s[24:25], 57, v4
  v_add_u32 v46, s26, v68
  v_cmp_lt_i32_e64 s[48:49], 58, v4
  v_add_u32 v47, s27, v68
  v_cmp_lt_i32_e64 s[26:27], 59, v4
  v_add_u32 v4, s28, v68
  v_cvt_f16_f32 v49, v19
  v_cvt_f16_f32 v19, v33
  v_cvt_f16_f32 v33, v0
  v_cvt_f16_f32 v0, v1
  v_cvt_f16_f32 v1, v2
  v_cvt_f16_f32 v2, v3
  v_cvt_f16_f32 v3, v5
  v_cvt_f16_f32 v5, v7
  v_cvt_f16_f32 v7, v8
  v_cvt_f16_f32 v8, v9
  v_cvt_f16_f32 v9, v10
  v_cvt_f16_f32 v10, v11
  v_cvt_f16_f32 v11, v12
  v_cvt_f16_f32 v12, v13
  v_cvt_f16_f32 v13, v14
  v_cvt_f16_f32 v14, v15
  v_cndmask_b32_e64 v15, v6, v18, s[30:31]
  v_cndmask_b32_e64 v18, v6, v34, s[0:1]
  v_cndmask_b32_e64 v34, v6, v35, s[36:37]
  v_cndmask_b32_e64 v35, v6, v36, s[2:3]
  v_cndmask_b32_e64 v36, v6, v37, s[38:39]
  v_cndmask_b32_e64 v37, v6, v38, s[12:13]
  v_cndmask_b32_e64 v38, v6, v39, s[40:41]
  v_cndmask_b32_e64 v39, v6, v40, s[14:15]
  v_cndmask_b32_e64 v40, v6, v41, s[42:43]
  v_cndmask_b32_e64 v41, v6, v42, s[16:17]
  v_cndmask_b32_e64 v42, v6, v43, s[44:45]
  v_cndmask_b32_e64 v43, v6, v44, s[18:19]
  v_cndmask_b32_e64 v44, v6, v45, s[46:47]
  v_cndmask_b32_e64 v45, v6, v46, s[24:25]
  v_cndmask_b32_e64 v46, v6, v47, s[48:49]
  v_cndmask_b32_e64 v47, v6, v4, s[26:27]
  buffer_store_short v49, v16, s[20:23], 0 offen
  buffer_store_short v19, v17, s[20:23], 0 offen
  buffer_store_short v33, v20, s[20:23], 0 offen
  buffer_store_short v0, v21, s[20:23], 0 offen
  buffer_store_short v1, v22, s[20:23], 0 offen
  buffer_store_short v2, v23, s[20:23], 0 offen
  buffer_store_short v3, v24, s[20:23], 0 offen
  buffer_store_short v5, v25, s[20:23], 0 offen
  buffer_store_short v7, v26, s[20:23], 0 offen
  buffer_store_short v8, v27, s[20:23], 0 offen
  buffer_store_short v9, v28, s[20:23], 0 offen
  buffer_store_short v10, v29, s[20:23], 0 offen
  buffer_store_short v11, v30, s[20:23], 0 offen
  buffer_store_short v12, v31, s[20:23], 0 offen
  buffer_store_short v13, v32, s[20:23], 0 offen
  buffer_store_short v14, v48, s[20:23], 0 offen
  buffer_load_ushort v0, v15, s[32:35], 0 offen
  buffer_load_ushort v1, v18, s[32:35], 0 offen
  buffer_load_ushort v2, v34, s[32:35], 0 offen
  buffer_load_ushort v3, v35, s[32:35], 0 offen
  buffer_load_ushort v4, v36, s[32:35], 0 offen
  buffer_load_ushort v5, v37, s[32:35], 0 offen
  buffer_load_ushort v6, v38, s[32:35], 0 offen
  buffer_load_ushort v7, v39, s[32:35], 0 offen
  buffer_load_ushort v8, v40, s[32:35], 0 offen
  buffer_load_ushort v9, v41, s[32:35], 0 offen
  buffer_load_ushort v10, v42, s[32:35], 0 offen
  buffer_load_ushort v11, v43, s[32:35], 0 offen
  buffer_load_ushort v12, v44, s[32:35], 0 offen
  buffer_load_ushort v13, v45, s[32:35], 0 offen
  buffer_load_ushort v14, v46, s[32:35], 0 offen
  buffer_load_ushort v16, v47, s[32:35], 0 offen
  v_accvgpr_read_b32 v17, a48
  v_accvgpr_read_b32 v19, a49
  v_accvgpr_read_b32 v20, a50
  v_accvgpr_read_b32 v21, a51
  v_accvgpr_read_b32 v22, a52
  v_accvgpr_read_b32 v23, a53
  v_accvgpr_read_b32 v24, a54
  v_accvgpr_read_b32 v25, a55
  v_accvgpr_read_b32 v26, a56
  v_accvgpr_read_b32 v27, a57
  v_accvgpr_read_b32 v28, a58
  v_accvgpr_read_b32 v29, a59
  v_accvgpr_read_b32 v30, a60
  v_accvgpr_read_b32 v31, a61
  v_accvgpr_read_b32 v32, a62
  v_accvgpr_read_b32 v33, a63
  v_mul_f32 v48, s10, v17
  s_waitcnt vmcnt(15)
  v_cvt_f32_f16 v17, v0
  v_mul_f32 v0, s10, v19
  s_waitcnt vmcnt(14)
  v_cvt_f32_f16 v19, v1
  v_mul_f32 v1, s10, v20
  s_waitcnt vmcnt(13)
  v_cvt_f32_f16 v20, v2
  v_mul_f32 v2, s10, v21
  s_waitcnt vmcnt(12)
  v_cvt_f32_f16 v21, v3
  v_mul_f32 v3, s10, v22
  s_waitcnt vmcnt(11)
  v_cvt_f32_f16 v22, v4
  v_mul_f32 v4, s10, v23
  s_waitcnt vmcnt(10)
  v_cvt_f32_f16 v23, v5
  v_mul_f32 v5, s10, v24
  s_waitcnt vmcnt(9)
  v_cvt_f32_f16 v24, v6
  v_mul_f32 v6, s10, v25
  s_waitcnt vmcnt(8)
  v_cvt_f32_f16 v25, v7
  v_mul_f32 v7, s10, v26
  s_waitcnt vmcnt(7)
  v_cvt_f32_f16 v26, v8
  v_mul_f32 v8, s10, v27
  s_waitcnt vmcnt(6)
  v_cvt_f32_f16 v27, v9
  v_mul_f32 v9, s10, v28
  s_waitcnt vmcnt(5)
  v_cvt_f32_f16 v28, v10
  v_mul_f32 v10, s10, v29
  s_waitcnt vmcnt(4)
  v_cvt_f32_f16 v29, v11
  v_mul_f32 v11, s10, v30
  s_waitcnt vmcnt(3)
  v_cvt_f32_f16 v30, v12
  v_mul_f32 v12, s10, v31
  s_waitcnt vmcnt(2)
  v_cvt_f32_f16 v31, v13
  v_mul_f32 v13, s10, v32
  s_waitcnt vmcnt(1)
  v_cvt_f32_f16 v32, v14
  v_mul_f32 v14, s10, v33
  s_waitcnt vmcnt(0)
  v_cvt_f32_f16 v33, v16
  v_fma_f32 v16, s11, v17, v48
  v_fma_f32 v17, s11, v19, v0
  v_fma_f32 v0, s11, v20, v1
  v_fma_f32 v1, s11, v21, v2
  v_fma_f32 v2, s11, v22, v3
  v_fma_f32 v3, s11, v23, v4
  v_fma_f32 v4, s11, v24, v5
  v_fma_f32 v5, s11, v25, v6
  v_fma_f32 v6, s11, v26, v7
  v_fma_f32 v7, s11, v27, v8
  v_fma_f32 v8, s11, v28, v9
  v_fma_f32 v9, s11, v29, v10
  v_fma_f32 v10, s11, v30, v11
  v_fma_f32 v11, s11, v31, v12
  v_fma_f32 v12, s11, v32, v13
  v_fma_f32 v13, s11, v33, v14
  v_cvt_f16_f32 v14, v16
  v_cvt_f16_f32 v16, v17
  v_cvt_f16_f32 v17, v0
  v_cvt_f16_f32 v0, v1
  v_cvt_f16_f32 v1, v2
  v_cvt_f16_f32 v2, v3
  v_cvt_f16_f32 v3, v4
  v_cvt_f16_f32 v4, v5
  v_cvt_f16_f32 v5, v6
  v_cvt_f16_f32 v6, v7
  v_cvt_f16_f32 v7, v8
  v_cvt_f16_f32 v8, v9
  v_cvt_f16_f32 v9, v10
  v_cvt_f16_f32 v10, v11
  v_cvt_f16_f32 v11, v12
  v_cvt_f16_f32 v12, v13
  buffer_store_short v14, v15, s[20:23], 0 offen
  buffer_store_short v16, v18, s[20:23], 0 offen
  buffer_store_short v17, v34, s[20:23], 0 offen
  buffer_store_short v0, v35, s[20:23], 0 offen
  buffer_store_short v1, v36, s[20:23], 0 offen
  buffer_store_short v2, v37, s[20:23], 0 offen
  buffer_store_short v3, v38, s[20:23], 0 offen
  buffer_store_short v4, v39, s[20:23], 0 offen
  buffer_store_short v5, v40, s[20:23], 0 offen
  buffer_store_short v6, v41, s[20:23], 0 offen
  buffer_store_short v7, v42, s[20:23], 0 offen
  buffer_store_short v8, v43, s[20:23], 0 offen
  buffer_store_short v9, v44, s[20:23], 0 offen
  buffer_store_short v10, v45, s[20:23], 0 offen
  buffer_store_short v11, v46, s[20:23], 0 offen
  buffer_store_short v12, v47, s[20:23], 0 offen
  s_endpgm
.Lgemm_NT_f16_f16_128x128x32_w2x2_mfma32x32x8_p1_va8_vb8_fb2_ck_v4_end:
.size gemm_NT_f16_f16_128x128x32_w2x2_mfma32x32x8_p1_va8_vb8_fb2_ck_v4, .Lgemm_NT_f16_f16_128x128x32_w2x2_mfma32x32x8_p1_va8_vb8_fb2_ck_v4_end-gemm_NT_f16_f16_128x128x32_w2x2_mfma32x32x8_p1_va8_vb8_fb2_ck_v4
.rodata
.p2align 6
.amdhsa_kernel gemm_NT_f16_f16_128x128x32_w2x2_mfma32x32x8_p1_va8_vb8_fb2_ck_v4
  .amdhsa_group_segment_fixed_size 40960
  .amdhsa_private_segment_fixed_size 0
  .amdhsa_kernarg_size 56
  .amdhsa_user_sgpr_count 2
  .amdhsa_user_sgpr_dispatch_ptr 0
  .amdhsa_user_sgpr_queue_ptr 0
  .amdhsa_user_sgpr_kernarg_segment_ptr 1
  .amdhsa_user_sgpr_dispatch_id 0
  .amdhsa_user_sgpr_private_segment_size 0
  .amdhsa_system_sgpr_workgroup_id_x 1
  .amdhsa_system_sgpr_workgroup_id_y 1
  .amdhsa_system_sgpr_workgroup_id_z 0
  .amdhsa_system_sgpr_workgroup_info 0
  .amdhsa_system_vgpr_workitem_id 0
  .amdhsa_next_free_vgpr 136
  .amdhsa_next_free_sgpr 52
  .amdhsa_accum_offset 72
  .amdhsa_reserve_vcc 1
  .amdhsa_float_round_mode_32 0
  .amdhsa_float_round_mode_16_64 0
  .amdhsa_float_denorm_mode_32 3
  .amdhsa_float_denorm_mode_16_64 3
  .amdhsa_dx10_clamp 1
  .amdhsa_ieee_mode 1
.end_amdhsa_kernel
.amdgpu_metadata
---
amdhsa.version: [1, 2]
amdhsa.target: amdgcn-amd-amdhsa--gfx942
amdhsa.kernels:
  - .name: gemm_NT_f16_f16_128x128x32_w2x2_mfma32x32x8_p1_va8_vb8_fb2_ck_v4
    .symbol: gemm_NT_f16_f16_128x128x32_w2x2_mfma32x32x8_p1_va8_vb8_fb2_ck_v4.kd
    .args:
      - .name: A
        .offset: 0
        .size: 8
        .value_kind: global_buffer
        .address_space: global
        .actual_access: read_only
      - .name: B
        .offset: 8
        .size: 8
        .value_kind: global_buffer
        .address_space: global
        .actual_access: read_only
      - .name: C
        .offset: 16
        .size: 8
        .value_kind: global_buffer
        .address_space: global
        .actual_access: read_write
      - .name: M
        .offset: 24
        .size: 4
        .value_kind: by_value
      - .name: N
        .offset: 28
        .size: 4
        .value_kind: by_value
      - .name: K
        .offset: 32
        .size: 4
        .value_kind: by_value
      - .name: lda
        .offset: 36
        .size: 4
        .value_kind: by_value
      - .name: ldb
        .offset: 40
        .size: 4
        .value_kind: by_value
      - .name: ldc
        .offset: 44
        .size: 4
        .value_kind: by_value
      - .name: alpha
        .offset: 48
        .size: 4
        .value_kind: by_value
      - .name: beta
        .offset: 52
        .size: 4
        .value_kind: by_value
    .kernarg_segment_size: 56
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 40960
    .private_segment_fixed_size: 0
    .wavefront_size: 64
    .sgpr_count: 58
    .vgpr_count: 136
    .agpr_count: 64
    .max_flat_workgroup_size: 256
...
.end_amdgpu_metadata
