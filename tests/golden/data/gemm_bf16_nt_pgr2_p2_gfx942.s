.amdgcn_target "amdgcn-amd-amdhsa--gfx942"
.amdhsa_code_object_version 5
.text
.p2align 8
.globl gemm_NT_bf16_bf16_128x128x32_w2x2_mfma32x32x8_p2_va8_vb8_pgr2
.type gemm_NT_bf16_bf16_128x128x32_w2x2_mfma32x32x8_p2_va8_vb8_pgr2,@function
gemm_NT_bf16_bf16_128x128x32_w2x2_mfma32x32x8_p2_va8_vb8_pgr2:
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
  v_mov_b32 v5, 0x80000000
  v_lshl_add_u32 v6, v0, 1, s3
  v_cmp_gt_u32 vcc, s24, v2
  v_mad_u32_u24 v0, v4, s7, v3
  s_nop 0
  v_cndmask_b32 v7, v5, v6, vcc
  v_lshl_add_u32 v6, v0, 1, s3
  v_cmp_gt_u32 vcc, s24, v4
  s_mov_b32 s3, s6
  s_nop 0
  v_cndmask_b32 v0, v5, v6, vcc
  v_cmp_gt_i32_e64 s[26:27], s3, v3
  s_mov_b32 s15, 0x20000
  s_mov_b32 s28, 64
  s_mul_i32 s29, s2, s8
  v_cndmask_b32_e64 v4, v5, v7, s[26:27]
  v_cndmask_b32_e64 v6, v5, v0, s[26:27]
  s_lshl_b32 s29, s29, 1
  buffer_load_dwordx4 v[8:11], v4, s[12:15], 0 offen
  buffer_load_dwordx4 v[12:15], v6, s[12:15], 0 offen
  s_add_u32 s12, s12, s28
  s_addc_u32 s13, s13, 0
  s_sub_i32 s14, s14, s28
  s_max_i32 s14, s14, 0
  s_sub_i32 s3, s3, 32
  v_cmp_gt_i32_e64 s[26:27], s3, v3
  s_nop 1
  v_cndmask_b32_e64 v4, v5, v7, s[26:27]
  v_cndmask_b32_e64 v6, v5, v0, s[26:27]
  v_and_b32 v16, 3, v1
  buffer_load_dwordx4 v[18:21], v4, s[12:15], 0 offen
  buffer_load_dwordx4 v[22:25], v6, s[12:15], 0 offen
  s_add_u32 s12, s12, s28
  v_lshrrev_b32 v4, 2, v1
  v_lshlrev_b32 v6, 3, v16
  s_addc_u32 s13, s13, 0
  s_sub_i32 s14, s14, s28
  v_mad_u32_u24 v16, v4, s8, v6
  v_add_u32 v17, 64, v4
  s_max_i32 s14, s14, 0
  s_sub_i32 s3, s3, 32
  v_lshl_add_u32 v26, v16, 1, s29
  v_cmp_gt_u32 vcc, s25, v4
  v_mad_u32_u24 v16, v17, s8, v6
  v_cmp_gt_i32_e64 s[26:27], s3, v3
  v_cndmask_b32 v27, v5, v26, vcc
  v_lshl_add_u32 v26, v16, 1, s29
  v_cmp_gt_u32 vcc, s25, v17
  s_mov_b32 s29, s6
  v_cndmask_b32_e64 v16, v5, v7, s[26:27]
  v_cndmask_b32_e64 v17, v5, v0, s[26:27]
  v_cndmask_b32 v28, v5, v26, vcc
  buffer_load_dwordx4 v[30:33], v16, s[12:15], 0 offen
  buffer_load_dwordx4 v[34:37], v17, s[12:15], 0 offen
  s_add_u32 s12, s12, s28
  v_cmp_gt_i32_e64 s[26:27], s29, v6
  s_mov_b32 s19, 0x20000
  s_mov_b32 s30, 64
  s_addc_u32 s13, s13, 0
  s_sub_i32 s14, s14, s28
  v_cndmask_b32_e64 v16, v5, v27, s[26:27]
  v_cndmask_b32_e64 v17, v5, v28, s[26:27]
  s_max_i32 s14, s14, 0
  s_sub_i32 s3, s3, 32
  buffer_load_dwordx4 v[38:41], v16, s[16:19], 0 offen
  buffer_load_dwordx4 v[42:45], v17, s[16:19], 0 offen
  s_add_u32 s16, s16, s30
  s_addc_u32 s17, s17, 0
  s_sub_i32 s18, s18, s30
  s_max_i32 s18, s18, 0
  s_sub_i32 s29, s29, 32
  v_cmp_gt_i32_e64 s[26:27], s29, v6
  s_nop 1
  v_cndmask_b32_e64 v16, v5, v27, s[26:27]
  v_cndmask_b32_e64 v17, v5, v28, s[26:27]
  buffer_load_dwordx4 v[46:49], v16, s[16:19], 0 offen
  buffer_load_dwordx4 v[50:53], v17, s[16:19], 0 offen
  s_add_u32 s16, s16, s30
  s_addc_u32 s17, s17, 0
  s_sub_i32 s18, s18, s30
  v_lshrrev_b32 v16, 6, v1
  s_max_i32 s18, s18, 0
  s_sub_i32 s29, s29, 32
  v_and_b32 v17, 63, v1
  v_lshrrev_b32 v1, 1, v16
  v_cmp_gt_i32_e64 s[26:27], s29, v6
  v_mul_u32_u24 v26, 0x50, v4
  v_and_b32 v4, 1, v16
  v_and_b32 v16, 31, v17
  v_mul_u32_u24 v29, 64, v1
  v_cndmask_b32_e64 v54, v5, v27, s[26:27]
  v_cndmask_b32_e64 v55, v5, v28, s[26:27]
  v_mul_u32_u24 v56, 0x50, v2
  v_lshl_add_u32 v26, v6, 1, v26
  v_and_b32 v2, 31, v17
  v_mul_u32_u24 v57, 64, v4
  v_add_u32 v16, v29, v16
  buffer_load_dwordx4 v[58:61], v54, s[16:19], 0 offen
  buffer_load_dwordx4 v[62:65], v55, s[16:19], 0 offen
  s_add_u32 s16, s16, s30
  v_lshl_add_u32 v56, v3, 1, v56
  v_add_u32 v29, 0x2800, v26
  s_mov_b32 s26, 0
  s_mov_b32 s27, 0x5000
  v_add_u32 v2, v57, v2
  v_lshrrev_b32 v26, 5, v17
  v_mul_u32_u24 v54, 0x50, v16
  s_addc_u32 s17, s17, 0
  s_sub_i32 s18, s18, s30
  v_add_u32 v16, s26, v56
  v_add_u32 v55, s27, v56
  v_add_u32 v57, s26, v29
  v_add_u32 v66, s27, v29
  s_mov_b32 s23, 0x20000
  v_lshrrev_b32 v67, 5, v17
  v_mul_u32_u24 v68, 0x50, v2
  v_lshl_add_u32 v54, v26, 3, v54
  s_max_i32 s18, s18, 0
  s_sub_i32 s29, s29, 32
  s_add_u32 s31, s6, 31
  s_waitcnt vmcnt(11)
  ds_write_b128 v16, v[8:11]
  s_waitcnt vmcnt(10)
  ds_write_b128 v16, v[12:15] offset:5120
  s_waitcnt vmcnt(9)
  ds_write_b128 v55, v[18:21]
  s_waitcnt vmcnt(8)
  ds_write_b128 v55, v[22:25] offset:5120
  s_waitcnt vmcnt(5)
  ds_write_b128 v57, v[38:41]
  s_waitcnt vmcnt(4)
  ds_write_b128 v57, v[42:45] offset:5120
  s_waitcnt vmcnt(3)
  ds_write_b128 v66, v[46:49]
  s_waitcnt vmcnt(2)
  ds_write_b128 v66, v[50:53] offset:5120
  s_mov_b32 s32, s20
  s_mov_b32 s33, s21
  s_mov_b32 s35, s23
  s_mul_i32 s34, s22, s0
  v_lshl_add_u32 v68, v67, 3, v68
  v_add_u32 v2, 0x2800, v54
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
  s_mov_b32 s0, 0xa000
  s_waitcnt lgkmcnt(0)
  s_barrier
  s_lshr_b32 s31, s31, 5
loop_k:
  v_add_u32 v8, s26, v68
  v_add_u32 v9, s26, v2
  s_setprio 1
  v_cmp_gt_i32_e64 s[36:37], s3, v3
  s_nop 1
  v_cndmask_b32_e64 v10, v5, v7, s[36:37]
  v_cndmask_b32_e64 v11, v5, v0, s[36:37]
  v_cmp_gt_i32_e64 s[36:37], s29, v6
  s_nop 1
  v_cndmask_b32_e64 v12, v5, v27, s[36:37]
  v_cndmask_b32_e64 v13, v5, v28, s[36:37]
  s_mov_b32 s36, s26
  s_mov_b32 s26, s27
  s_mov_b32 s27, s0
  v_add_u32 v14, s0, v56
  ds_read_b64 v[18:19], v8
  ds_read_b64 v[20:21], v8 offset:2560
  s_waitcnt vmcnt(3)
  ds_write_b128 v14, v[30:33]
  ds_read_b64 v[22:23], v9
  ds_read_b64 v[24:25], v9 offset:2560
  s_waitcnt lgkmcnt(1)
  v_mfma_f32_32x32x8_bf16 a[0:15], v[18:19], v[22:23], a[0:15]
  buffer_load_dwordx4 v[30:33], v10, s[12:15], 0 offen
  s_waitcnt lgkmcnt(0)
  v_mfma_f32_32x32x8_bf16 a[16:31], v[18:19], v[24:25], a[16:31]
  s_waitcnt vmcnt(3)
  ds_write_b128 v14, v[34:37] offset:5120
  v_mfma_f32_32x32x8_bf16 a[32:47], v[20:21], v[22:23], a[32:47]
  ds_read_b64 v[14:15], v8 offset:16
  ds_read_b64 v[18:19], v8 offset:2576
  v_mfma_f32_32x32x8_bf16 a[48:63], v[20:21], v[24:25], a[48:63]
  buffer_load_dwordx4 v[34:37], v11, s[12:15], 0 offen
  s_add_u32 s12, s12, s28
  s_addc_u32 s13, s13, 0
  s_sub_i32 s14, s14, s28
  s_max_i32 s14, s14, 0
  s_sub_i32 s3, s3, 32
  v_add_u32 v10, s0, v29
  s_mov_b32 s0, s36
  ds_read_b64 v[20:21], v9 offset:16
  ds_read_b64 v[22:23], v9 offset:2576
  s_waitcnt lgkmcnt(1)
  v_mfma_f32_32x32x8_bf16 a[0:15], v[14:15], v[20:21], a[0:15]
  s_waitcnt lgkmcnt(0)
  v_mfma_f32_32x32x8_bf16 a[16:31], v[14:15], v[22:23], a[16:31]
  s_waitcnt vmcnt(3)
  ds_write_b128 v10, v[58:61]
  v_mfma_f32_32x32x8_bf16 a[32:47], v[18:19], v[20:21], a[32:47]
  ds_read_b64 v[14:15], v8 offset:32
  ds_read_b64 v[20:21], v8 offset:2592
  v_mfma_f32_32x32x8_bf16 a[48:63], v[18:19], v[22:23], a[48:63]
  buffer_load_dwordx4 v[58:61], v12, s[16:19], 0 offen
  s_waitcnt vmcnt(3)
  ds_write_b128 v10, v[62:65] offset:5120
  ds_read_b64 v[10:11], v9 offset:32
  ds_read_b64 v[18:19], v9 offset:2592
  s_waitcnt lgkmcnt(1)
  v_mfma_f32_32x32x8_bf16 a[0:15], v[14:15], v[10:11], a[0:15]
  buffer_load_dwordx4 v[62:65], v13, s[16:19], 0 offen
  s_waitcnt lgkmcnt(0)
  v_mfma_f32_32x32x8_bf16 a[16:31], v[14:15], v[18:19], a[16:31]
  s_add_u32 s16, s16, s30
  s_addc_u32 s17, s17, 0
  s_sub_i32 s18, s18, s30
  s_max_i32 s18, s18, 0
  s_sub_i32 s29, s29, 32
  v_mfma_f32_32x32x8_bf16 a[32:47], v[20:21], v[10:11], a[32:47]
  ds_read_b64 v[10:11], v8 offset:48
  ds_read_b64 v[12:13], v8 offset:2608
  v_mfma_f32_32x32x8_bf16 a[48:63], v[20:21], v[18:19], a[48:63]
  ds_read_b64 v[14:15], v9 offset:48
  ds_read_b64 v[18:19], v9 offset:2608
  s_waitcnt lgkmcnt(1)
  v_mfma_f32_32x32x8_bf16 a[0:15], v[10:11], v[14:15], a[0:15]
  s_waitcnt lgkmcnt(0)
  s_barrier
  v_mfma_f32_32x32x8_bf16 a[16:31], v[10:11], v[18:19], a[16:31]
  v_mfma_f32_32x32x8_bf16 a[32:47], v[12:13], v[14:15], a[32:47]
  v_mfma_f32_32x32x8_bf16 a[48:63], v[12:13], v[18:19], a[48:63]
  s_setprio 0
  s_sub_u32 s31, s31, 1
  s_cmp_lg_u32 s31, 0
  s_cbranch_scc1 loop_k
  v_lshrrev_b32 v0, 5, v17
  v_mul_u32_u24 v2, 64, v4
  v_lshl_add_u32 v3, v0, 2, v2
  v_and_b32 v0, 31, v17
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
  v_cndmask_b32_e64 v3, v5, v0, s[2:3]
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
  v_add_u32 v6, s2, v3
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
  v_cndmask_b32_e64 v20, v5, v3, s[28:29]
  v_cndmask_b32_e64 v21, v5, v0, s[30:31]
  v_cndmask_b32_e64 v0, v5, v6, s[36:37]
  v_cndmask_b32_e64 v6, v5, v7, s[38:39]
  v_cndmask_b32_e64 v7, v5, v8, s[2:3]
  v_cndmask_b32_e64 v8, v5, v9, s[40:41]
  v_cndmask_b32_e64 v9, v5, v10, s[12:13]
  v_cndmask_b32_e64 v10, v5, v11, s[42:43]
  v_cndmask_b32_e64 v11, v5, v12, s[14:15]
  v_cndmask_b32_e64 v12, v5, v13, s[44:45]
  v_cndmask_b32_e64 v13, v5, v14, s[16:17]
  v_cndmask_b32_e64 v14, v5, v15, s[46:47]
  v_cndmask_b32_e64 v15, v5, v16, s[18:19]
  v_cndmask_b32_e64 v16, v5, v17, s[48:49]
  v_cndmask_b32_e64 v17, v5, v18, s[24:25]
  v_cndmask_b32_e64 v18, v5, v19, s[50:51]
  buffer_load_ushort v19, v20, s[32:35], 0 offen
  buffer_load_ushort v22, v21, s[32:35], 0 offen
  buffer_load_ushort v23, v0, s[32:35], 0 offen
  buffer_load_ushort v24, v6, s[32:35], 0 offen
  buffer_load_ushort v25, v7, s[32:35], 0 offen
  buffer_load_ushort v26, v8, s[32:35], 0 offen
  buffer_load_ushort v27, v9, s[32:35], 0 offen
  buffer_load_ushort v28, v10, s[32:35], 0 offen
  buffer_load_ushort v29, v11, s[32:35], 0 offen
  buffer_load_ushort v38, v12, s[32:35], 0 offen
  buffer_load_ushort v39, v13, s[32:35], 0 offen
  buffer_load_ushort v40, v14, s[32:35], 0 offen
  buffer_load_ushort v41, v15, s[32:35], 0 offen
  buffer_load_ushort v42, v16, s[32:35], 0 offen
  buffer_load_ushort v43, v17, s[32:35], 0 offen
  buffer_load_ushort v44, v18, s[32:35], 0 offen
  v_accvgpr_read_b32 v45, a0
  v_accvgpr_read_b32 v46, a1
  v_accvgpr_read_b32 v47, a2
  v_accvgpr_read_b32 v48, a3
  v_accvgpr_read_b32 v49, a4
  v_accvgpr_read_b32 v50, a5
  v_accvgpr_read_b32 v51, a6
  v_accvgpr_read_b32 v52, a7
  v_accvgpr_read_b32 v53, a8
  v_accvgpr_read_b32 v54, a9
  v_accvgpr_read_b32 v55, a10
  v_accvgpr_read_b32 v56, a11
  v_accvgpr_read_b32 v57, a12
  v_accvgpr_read_b32 v66, a13
  v_accvgpr_read_b32 v67, a14
  v_accvgpr_read_b32 v68, a15
  v_mul_f32 v69, s10, v45
  s_waitcnt vmcnt(15)
  v_lshlrev_b32 v30, 16, v19
  v_mul_f32 v19, s10, v46
  s_waitcnt vmcnt(14)
  v_lshlrev_b32 v31, 16, v22
  v_mul_f32 v22, s10, v47
  s_waitcnt vmcnt(13)
  v_lshlrev_b32 v32, 16, v23
  v_mul_f32 v23, s10, v48
  s_waitcnt vmcnt(12)
  v_lshlrev_b32 v33, 16, v24
  v_mul_f32 v24, s10, v49
  s_waitcnt vmcnt(11)
  v_lshlrev_b32 v34, 16, v25
  v_mul_f32 v25, s10, v50
  s_waitcnt vmcnt(10)
  v_lshlrev_b32 v35, 16, v26
  v_mul_f32 v26, s10, v51
  s_waitcnt vmcnt(9)
  v_lshlrev_b32 v36, 16, v27
  v_mul_f32 v27, s10, v52
  s_waitcnt vmcnt(8)
  v_lshlrev_b32 v37, 16, v28
  v_mul_f32 v28, s10, v53
  s_waitcnt vmcnt(7)
  v_lshlrev_b32 v45, 16, v29
  v_mul_f32 v29, s10, v54
  s_waitcnt vmcnt(6)
  v_lshlrev_b32 v46, 16, v38
  v_mul_f32 v38, s10, v55
  s_waitcnt vmcnt(5)
  v_lshlrev_b32 v47, 16, v39
  v_mul_f32 v39, s10, v56
  s_waitcnt vmcnt(4)
  v_lshlrev_b32 v48, 16, v40
  v_mul_f32 v40, s10, v57
  s_waitcnt vmcnt(3)
  v_lshlrev_b32 v49, 16, v41
  v_mul_f32 v41, s10, v66
  s_waitcnt vmcnt(2)
  v_lshlrev_b32 v50, 16, v42
  v_mul_f32 v42, s10, v67
  s_waitcnt vmcnt(1)
  v_lshlrev_b32 v51, 16, v43
  v_mul_f32 v43, s10, v68
  s_waitcnt vmcnt(0)
  v_lshlrev_b32 v52, 16, v44
  v_fma_f32 v44, s11, v30, v69
  v_fma_f32 v30, s11, v31, v19
  v_fma_f32 v19, s11, v32, v22
  v_fma_f32 v22, s11, v33, v23
  v_fma_f32 v23, s11, v34, v24
  v_fma_f32 v24, s11, v35, v25
  v_fma_f32 v25, s11, v36, v26
  v_fma_f32 v26, s11, v37, v27
  v_fma_f32 v27, s11, v45, v28
  v_fma_f32 v28, s11, v46, v29
  v_fma_f32 v29, s11, v47, v38
  v_fma_f32 v31, s11, v48, v39
  v_fma_f32 v32, s11, v49, v40
  v_fma_f32 v33, s11, v50, v41
  v_fma_f32 v34, s11, v51, v42
  v_fma_f32 v35, s11, v52, v43
  s_mov_b32 s1, 0x7fff
  v_cmp_lt_i32_e64 s[2:3], 32, v2
  v_add_u32 v2, 64, v1
  v_bfe_u32 v1, v44, 16, 1
  v_bfe_u32 v36, v30, 16, 1
  v_bfe_u32 v37, v19, 16, 1
  v_bfe_u32 v38, v22, 16, 1
  v_bfe_u32 v39, v23, 16, 1
  v_bfe_u32 v40, v24, 16, 1
  v_bfe_u32 v41, v25, 16, 1
  v_bfe_u32 v42, v26, 16, 1
  v_bfe_u32 v43, v27, 16, 1
  v_bfe_u32 v45, v28, 16, 1
  v_bfe_u32 v46, v29, 16, 1
  v_bfe_u32 v47, v31, 16, 1
  v_bfe_u32 v48, v32, 16, 1
  v_bfe_u32 v49, v33, 16, 1
  v_bfe_u32 v50, v34, 16, 1
  v_bfe_u32 v51, v35, 16, 1
  v_mov_b32 v52, 0x7fc00000
  v_cndmask_b32_e64 v53, v5, v2, s[2:3]
  v_add3_u32 v2, v44, v1, s1
  v_cmp_u_f32_e64 s[2:3], v44, v44
  v_add3_u32 v1, v30, v36, s1
  v_cmp_u_f32_e64 s[12:13], v30, v30
  v_add3_u32 v30, v19, v37, s1
  v_cmp_u_f32_e64 s[14:15], v19, v19
  v_add3_u32 v19, v22, v38, s1
  v_cmp_u_f32_e64 s[16:17], v22, v22
  v_add3_u32 v22, v23, v39, s1
  v_cmp_u_f32_e64 s[18:19], v23, v23
  v_add3_u32 v23, v24, v40, s1
  v_cmp_u_f32_e64 s[24:25], v24, v24
  v_add3_u32 v24, v25, v41, s1
  v_cmp_u_f32_e64 s[26:27], v25, v25
  v_add3_u32 v25, v26, v42, s1
  v_cmp_u_f32_e64 s[28:29], v26, v26
  v_add3_u32 v26, v27, v43, s1
  v_cmp_u_f32_e64 s[30:31], v27, v27
  v_add3_u32 v27, v28, v45, s1
  v_cmp_u_f32_e64 s[36:37], v28, v28
  v_add3_u32 v28, v29, v46, s1
  v_cmp_u_f32_e64 s[38:39], v29, v29
  v_add3_u32 v29, v31, v47, s1
  v_cmp_u_f32_e64 s[40:41], v31, v31
  v_add3_u32 v31, v32, v48, s1
  v_cmp_u_f32_e64 s[42:43], v32, v32
  v_add3_u32 v32, v33, v49, s1
  v_cmp_u_f32_e64 s[44:45], v33, v33
  v_add3_u32 v33, v34, v50, s1
  v_cmp_u_f32_e64 s[46:47], v34, v34
  v_add3_u32 v34, v35, v51, s1
  v_cmp_u_f32_e64 s[48:49], v35, v35
  s_mul_i32 s50, s0, 1
  s_mul_i32 s51, s0, 2
  s_mul_i32 s52, s0, 3
  s_mul_i32 s53, s0, 8
  s_mul_i32 s54, s0, 9
  s_mul_i32 s55, s0, 10
  s_mul_i32 s56, s0, 11
  s_mul_i32 s57, s0, 16
  s_mul_i32 s58, s0, 17
  s_mul_i32 s59, s0, 18
  s_mul_i32 s60, s0, 19
  s_mul_i32 s61, s0, 24
  s_mul_i32 s62, s0, 25
  s_mul_i32 s63, s0, 26
  s_mul_i32 s64, s0, 27
  v_cndmask_b32_e64 v35, v2, v52, s[2:3]
  v_cndmask_b32_e64 v2, v1, v52, s[12:13]
  v_cndmask_b32_e64 v1, v30, v52, s[14:15]
  v_cndmask_b32_e64 v30, v19, v52, s[16:17]
  v_cndmask_b32_e64 v19, v22, v52, s[18:19]
  v_cndmask_b32_e64 v22, v23, v52, s[24:25]
  v_cndmask_b32_e64 v23, v24, v52, s[26:27]
  v_cndmask_b32_e64 v24, v25, v52, s[28:29]
  v_cndmask_b32_e64 v25, v26, v52, s[30:31]
  v_cndmask_b32_e64 v26, v27, v52, s[36:37]
  v_cndmask_b32_e64 v27, v28, v52, s[38:39]
  v_cndmask_b32_e64 v28, v29, v52, s[40:41]
  v_cndmask_b32_e64 v29, v31, v52, s[42:43]
  v_cndmask_b32_e64 v31, v32, v52, s[44:45]
  v_cndmask_b32_e64 v32, v33, v52, s[46:47]
  v_cndmask_b32_e64 v33, v34, v52, s[48:49]
  v_cmp_lt_i32_e64 s[2:3], 0, v4
  v_cmp_lt_i32_e64 s[12:13], 1, v4
  v_add_u32 v34, s50, v53
  v_cmp_lt_i32_e64 s[14:15], 2, v4
  v_add_u32 v36, s51, v53
  v_cmp_lt_i32_e64 s[16:17], 3, v4
  v_add_u32 v37, s52, v53
  v_cmp_lt_i32_e64 s[18:19], 8, v4
  v_add_u32 v38, s53, v53
  v_cmp_lt_i32_e64 s[24:25], 9, v4
  v_add_u32 v39, s54, v53
  v_cmp_lt_i32_e64 s[26:27], 10, v4
  v_add_u32 v40, s55, v53
  v_cmp_lt_i32_e64 s[28:29], 11, v4
  v_add_u32 v41, s56, v53
  v_cmp_lt_i32_e64 s[30:31], 16, v4
  v_add_u32 v42, s57, v53
  v_cmp_lt_i32_e64 s[36:37], 17, v4
  v_add_u32 v43, s58, v53
  v_cmp_lt_i32_e64 s[38:39], 18, v4
  v_add_u32 v44, s59, v53
  v_cmp_lt_i32_e64 s[40:41], 19, v4
  v_add_u32 v45, s60, v53
  v_cmp_lt_i32_e64 s[42:43], 24, v4
  v_add_u32 v46, s61, v53
  v_cmp_lt_i32_e64 s[44:45], 25, v4
  v_add_u32 v47, s62, v53
  v_cmp_lt_i32_e64 s[46:47], 26, v4
  v_add_u32 v48, s63, v53
  v_cmp_lt_i32_e64 s[48:49], 27, v4
  v_add_u32 v49, s64, v53
  v_lshrrev_b32 v50, 16, v35
  v_lshrrev_b32 v35, 16, v2
  v_lshrrev_b32 v2, 16, v1
  v_lshrrev_b32 v1, 16, v30
  v_lshrrev_b32 v30, 16, v19
  v_lshrrev_b32 v19, 16, v22
  v_lshrrev_b32 v22, 16, v23
  v_lshrrev_b32 v23, 16, v24
  v_lshrrev_b32 v24, 16, v25
  v_lshrrev_b32 v25, 16, v26
  v_lshrrev_b32 v26, 16, v27
  v_lshrrev_b32 v27, 16, v28
  v_lshrrev_b32 v28, 16, v29
  v_lshrrev_b32 v29, 16, v31
  v_lshrrev_b32 v31, 16, v32
  v_lshrrev_b32 v32, 16, v33
  v_cndmask_b32_e64 v33, v5, v53, s[2:3]
  v_cndmask_b32_e64 v51, v5, v34, s[12:13]
  v_cndmask_b32_e64 v34, v5, v36, s[14:15]
  v_cndmask_b32_e64 v36, v5, v37, s[16:17]
  v_cndmask_b32_e64 v37, v5, v38, s[18:19]
  v_cndmask_b32_e64 v38, v5, v39, s[24:25]
  v_cndmask_b32_e64 v39, v5, v40, s[26:27]
  v_cndmask_b32_e64 v40, v5, v41, s[28:29]
  v_cndmask_b32_e64 v41, v5, v42, s[30:31]
  v_cndmask_b32_e64 v42, v5, v43, s[36:37]
  v_cndmask_b32_e64 v43, v5, v44, s[38:39]
  v_cndmask_b32_e64 v44, v5, v45, s[40:41]
  v_cndmask_b32_e64 v45, v5, v46, s[42:43]
  v_cndmask_b32_e64 v46, v5, v47, s[44:45]
  v_cndmask_b32_e64 v47, v5, v48, s[46:47]
  v_cndmask_b32_e64 v48, v5, v49, s[48:49]
  buffer_store_short v50, v20, s[20:23], 0 offen
  buffer_store_short v35, v21, s[20:23], 0 offen
  buffer_store_short v2, v0, s[20:23], 0 offen
  buffer_store_short v1, v6, s[20:23], 0 offen
  buffer_store_short v30, v7, s[20:23], 0 offen
  buffer_store_short v19, v8, s[20:23], 0 offen
  buffer_store_short v22, v9, s[20:23], 0 offen
  buffer_store_short v23, v10, s[20:23], 0 offen
  buffer_store_short v24, v11, s[20:23], 0 offen
  buffer_store_short v25, v12, s[20:23], 0 offen
  buffer_store_short v26, v13, s[20:23], 0 offen
  buffer_store_short v27, v14, s[20:23], 0 offen
  buffer_store_short v28, v15, s[20:23], 0 offen
  buffer_store_short v29, v16, s[20:23], 0 offen
  buffer_store_short v31, v17, s[20:23], 0 offen
  buffer_store_short v32, v18, s[20:23], 0 offen
  buffer_load_ushort v0, v33, s[32:35], 0 offen
  buffer_load_ushort v1, v51, s[32:35], 0 offen
  buffer_load_ushort v2, v34, s[32:35], 0 offen
  buffer_load_ushort v6, v36, s[32:35], 0 offen
  buffer_load_ushort v7, v37, s[32:35], 0 offen
  buffer_load_ushort v8, v38, s[32:35], 0 offen
  buffer_load_ushort v9, v39, s[32:35], 0 offen
  buffer_load_ushort v10, v40, s[32:35], 0 offen
  buffer_load_ushort v11, v41, s[32:35], 0 offen
  buffer_load_ushort v12, v42, s[32:35], 0 offen
  buffer_load_ushort v13, v43, s[32:35], 0 offen
  buffer_load_ushort v14, v44, s[32:35], 0 offen
  buffer_load_ushort v15, v45, s[32:35], 0 offen
  buffer_load_ushort v16, v46, s[32:35], 0 offen
  buffer_load_ushort v17, v47, s[32:35], 0 offen
  buffer_load_ushort v18, v48, s[32:35], 0 offen
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
  v_accvgpr_read_b32 v35, a30
  v_accvgpr_read_b32 v49, a31
  v_mul_f32 v50, s10, v19
  s_waitcnt vmcnt(15)
  v_lshlrev_b32 v19, 16, v0
  v_mul_f32 v0, s10, v20
  s_waitcnt vmcnt(14)
  v_lshlrev_b32 v20, 16, v1
  v_mul_f32 v1, s10, v21
  s_waitcnt vmcnt(13)
  v_lshlrev_b32 v21, 16, v2
  v_mul_f32 v2, s10, v22
  s_waitcnt vmcnt(12)
  v_lshlrev_b32 v22, 16, v6
  v_mul_f32 v6, s10, v23
  s_waitcnt vmcnt(11)
  v_lshlrev_b32 v23, 16, v7
  v_mul_f32 v7, s10, v24
  s_waitcnt vmcnt(10)
  v_lshlrev_b32 v24, 16, v8
  v_mul_f32 v8, s10, v25
  s_waitcnt vmcnt(9)
  v_lshlrev_b32 v25, 16, v9
  v_mul_f32 v9, s10, v26
  s_waitcnt vmcnt(8)
  v_lshlrev_b32 v26, 16, v10
  v_mul_f32 v10, s10, v27
  s_waitcnt vmcnt(7)
  v_lshlrev_b32 v27, 16, v11
  v_mul_f32 v11, s10, v28
  s_waitcnt vmcnt(6)
  v_lshlrev_b32 v28, 16, v12
  v_mul_f32 v12, s10, v29
  s_waitcnt vmcnt(5)
  v_lshlrev_b32 v29, 16, v13
  v_mul_f32 v13, s10, v30
  s_waitcnt vmcnt(4)
  v_lshlrev_b32 v30, 16, v14
  v_mul_f32 v14, s10, v31
  s_waitcnt vmcnt(3)
  v_lshlrev_b32 v31, 16, v15
  v_mul_f32 v15, s10, v32
  s_waitcnt vmcnt(2)
  v_lshlrev_b32 v32, 16, v16
  v_mul_f32 v16, s10, v35
  s_waitcnt vmcnt(1)
  v_lshlrev_b32 v35, 16, v17
  v_mul_f32 v17, s10, v49
  s_waitcnt vmcnt(0)
  v_lshlrev_b32 v49, 16, v18
  v_fma_f32 v18, s11, v19, v50
  v_fma_f32 v19, s11, v20, v0
  v_fma_f32 v0, s11, v21, v1
  v_fma_f32 v1, s11, v22, v2
  v_fma_f32 v2, s11, v23, v6
  v_fma_f32 v6, s11, v24, v7
  v_fma_f32 v7, s11, v25, v8
  v_fma_f32 v8, s11, v26, v9
  v_fma_f32 v9, s11, v27, v10
  v_fma_f32 v10, s11, v28, v11
  v_fma_f32 v11, s11, v29, v12
  v_fma_f32 v12, s11, v30, v13
  v_fma_f32 v13, s11, v31, v14
  v_fma_f32 v14, s11, v32, v15
  v_fma_f32 v15, s11, v35, v16
  v_fma_f32 v16, s11, v49, v17
  v_bfe_u32 v17, v18, 16, 1
  v_bfe_u32 v20, v19, 16, 1
  v_bfe_u32 v21, v0, 16, 1
  v_bfe_u32 v22, v1, 16, 1
  v_bfe_u32 v23, v2, 16, 1
  v_bfe_u32 v24, v6, 16, 1
  v_bfe_u32 v25, v7, 16, 1
  v_bfe_u32 v26, v8, 16, 1
  v_bfe_u32 v27, v9, 16, 1
  v_bfe_u32 v28, v10, 16, 1
  v_bfe_u32 v29, v11, 16, 1
  v_bfe_u32 v30, v12, 16, 1
  v_bfe_u32 v31, v13, 16, 1
  v_bfe_u32 v32, v14, 16, 1
  v_bfe_u32 v35, v15, 16, 1
  v_bfe_u32 v49, v16, 16, 1
  v_add3_u32 v50, v18, v17, s1
  v_cmp_u_f32_e64 s[2:3], v18, v18
  v_add3_u32 v17, v19, v20, s1
  v_cmp_u_f32_e64 s[12:13], v19, v19
  v_add3_u32 v18, v0, v21, s1
  v_cmp_u_f32_e64 s[14:15], v0, v0
  v_add3_u32 v0, v1, v22, s1
  v_cmp_u_f32_e64 s[16:17], v1, v1
  v_add3_u32 v1, v2, v23, s1
  v_cmp_u_f32_e64 s[18:19], v2, v2
  v_add3_u32 v2, v6, v24, s1
  v_cmp_u_f32_e64 s[24:25], v6, v6
  v_add3_u32 v6, v7, v25, s1
  v_cmp_u_f32_e64 s[26:27], v7, v7
  v_add3_u32 v7, v8, v26, s1
  v_cmp_u_f32_e64 s[28:29], v8, v8
  v_add3_u32 v8, v9, v27, s1
  v_cmp_u_f32_e64 s[30:31], v9, v9
  v_add3_u32 v9, v10, v28, s1
  v_cmp_u_f32_e64 s[36:37], v10, v10
  v_add3_u32 v10, v11, v29, s1
  v_cmp_u_f32_e64 s[38:39], v11, v11
  v_add3_u32 v11, v12, v30, s1
  v_cmp_u_f32_e64 s[40:41], v12, v12
  v_add3_u32 v12, v13, v31, s1
  v_cmp_u_f32_e64 s[42:43], v13, v13
  v_add3_u32 v13, v14, v32, s1
  v_cmp_u_f32_e64 s[44:45], v14, v14
  v_add3_u32 v14, v15, v35, s1
  v_cmp_u_f32_e64 s[46:47], v15, v15
  v_add3_u32 v15, v16, v49, s1
  v_cmp_u_f32_e64 s[48:49], v16, v16
  s_mul_i32 s50, s0, 32
  s_mul_i32 s51, s0, 33
  s_mul_i32 s52, s0, 34
  s_mul_i32 s53, s0, 35
  s_mul_i32 s54, s0, 40
  s_mul_i32 s55, s0, 41
  s_mul_i32 s56, s0, 42
  s_mul_i32 s57, s0, 43
  s_mul_i32 s58, s0, 48
  s_mul_i32 s59, s0, 49
  s_mul_i32 s60, s0, 50
  s_mul_i32 s61, s0, 51
  s_mul_i32 s62, s0, 56
  s_mul_i32 s63, s0, 57
  s_mul_i32 s64, s0, 58
  s_mul_i32 s65, s0, 59
  v_cndmask_b32_e64 v16, v50, v52, s[2:3]
  v_cndmask_b32_e64 v19, v17, v52, s[12:13]
  v_cndmask_b32_e64 v17, v18, v52, s[14:15]
  v_cndmask_b32_e64 v18, v0, v52, s[16:17]
  v_cndmask_b32_e64 v0, v1, v52, s[18:19]
  v_cndmask_b32_e64 v1, v2, v52, s[24:25]
  v_cndmask_b32_e64 v2, v6, v52, s[26:27]
  v_cndmask_b32_e64 v6, v7, v52, s[28:29]
  v_cndmask_b32_e64 v7, v8, v52, s[30:31]
  v_cndmask_b32_e64 v8, v9, v52, s[36:37]
  v_cndmask_b32_e64 v9, v10, v52, s[38:39]
  v_cndmask_b32_e64 v10, v11, v52, s[40:41]
  v_cndmask_b32_e64 v11, v12, v52, s[42:43]
  v_cndmask_b32_e64 v12, v13, v52, s[44:45]
  v_cndmask_b32_e64 v13, v14, v52, s[46:47]
  v_cndmask_b32_e64 v14, v15, v52, s[48:49]
  v_cmp_lt_i32_e64 s[2:3], 32, v4
  v_add_u32 v15, s50, v3
  v_cmp_lt_i32_e64 s[12:13], 33, v4
  v_add_u32 v20, s51, v3
  v_cmp_lt_i32_e64 s[14:15], 34, v4
  v_add_u32 v21, s52, v3
  v_cmp_lt_i32_e64 s[16:17], 35, v4
  v_add_u32 v22, s53, v3
  v_cmp_lt_i32_e64 s[18:19], 40, v4
  v_add_u32 v23, s54, v3
  v_cmp_lt_i32_e64 s[24:25], 41, v4
  v_add_u32 v24, s55, v3
  v_cmp_lt_i32_e64 s[26:27], 42, v4
  v_add_u32 v25, s56, v3
  v_cmp_lt_i32_e64 s[28:29], 43, v4
  v_add_u32 v26, s57, v3
  v_cmp_lt_i32_e64 s[30:31], 48, v4
  v_add_u32 v27, s58, v3
  v_cmp_lt_i32_e64 s[36:37], 49, v4
  v_add_u32 v28, s59, v3
  v_cmp_lt_i32_e64 s[38:39], 50, v4
  v_add_u32 v29, s60, v3
  v_cmp_lt_i32_e64 s[40:41], 51, v4
  v_add_u32 v30, s61, v3
  v_cmp_lt_i32_e64 s[42:43], 56, v4
  v_add_u32 v31, s62, v3
  v_cmp_lt_i32_e64 s[44:45], 57, v4
  v_add_u32 v32, s63, v3
  v_cmp_lt_i32_e64 s[46:47], 58, v4
  v_add_u32 v35, s64, v3
  v_cmp_lt_i32_e64 s[48:49], 59, v4
  v_add_u32 v49, s65, v3
  v_lshrrev_b32 v3, 16, v16
  v_lshrrev_b32 v16, 16, v19
  v_lshrrev_b32 v19, 16, v17
  v_lshrrev_b32 v17, 16, v18
  v_lshrrev_b32 v18, 16, v0
  v_lshrrev_b32 v0, 16, v1
  v_lshrrev_b32 v1, 16, v2
  v_lshrrev_b32 v2, 16, v6
  v_lshrrev_b32 v6, 16, v7
  v_lshrrev_b32 v7, 16, v8
  v_lshrrev_b32 v8, 16, v9
  v_lshrrev_b32 v9, 16, v10
  v_lshrrev_b32 v10, 16, v11
  v_lshrrev_b32 v11, 16, v12
  v_lshrrev_b32 v12, 16, v13
  v_lshrrev_b32 v13, 16, v14
  v_cndmask_b32_e64 v14, v5, v15, s[2:3]
  v_cndmask_b32_e64 v15, v5, v20, s[12:13]
  v_cndmask_b32_e64 v20, v5, v21, s[14:15]
  v_cndmask_b32_e64 v21, v5, v22, s[16:17]
  v_cndmask_b32_e64 v22, v5, v23, s[18:19]
  v_cndmask_b32_e64 v23, v5, v24, s[24:25]
  v_cndmask_b32_e64 v24, v5, v25, s[26:27]
  v_cndmask_b32_e64 v25, v5, v26, s[28:29]
  v_cndmask_b32_e64 v26, v5, v27, s[30:31]
  v_cndmask_b32_e64 v27, v5, v28, s[36:37]
  v_cndmask_b32_e64 v28, v5, v29, s[38:39]
  v_cndmask_b32_e64 v29, v5, v30, s[40:41]
  v_cndmask_b32_e64 v30, v5, v31, s[42:43]
  v_cndmask_b32_e64 v31, v5, v32, s[44:45]
  v_cndmask_b32_e64 v32, v5, v35, s[46:47]
  v_cndmask_b32_e64 v35, v5, v49, s[48:49]
  buffer_store_short v3, v33, s[20:23], 0 offen
  buffer_store_short v16, v51, s[20:23], 0 offen
  buffer_store_short v19, v34, s[20:23], 0 offen
  buffer_store_short v17, v36, s[20:23], 0 offen
  buffer_store_short v18, v37, s[20:23], 0 offen
  buffer_store_short v0, v38, s[20:23], 0 offen
  buffer_store_short v1, v39, s[20:23], 0 offen
  buffer_store_short v2, v40, s[20:23], 0 offen
  buffer_store_short v6, v41, s[20:23], 0 offen
  buffer_store_short v7, v42, s[20:23], 0 offen
  buffer_store_short v8, v43, s[20:23], 0 offen
  buffer_store_short v9, v44, s[20:23], 0 offen
  buffer_store_short v10, v45, s[20:23], 0 offen
  buffer_store_short v11, v46, s[20:23], 0 offen
  buffer_store_short v12, v47, s[20:23], 0 offen
  buffer_store_short v13, v48, s[20:23], 0 offen
  buffer_load_ushort v0, v14, s[32:35], 0 offen
  buffer_load_ushort v1, v15, s[32:35], 0 offen
  buffer_load_ushort v2, v20, s[32:35], 0 offen
  buffer_load_ushort v3, v21, s[32:35], 0 offen
  buffer_load_ushort v6, v22, s[32:35], 0 offen
  buffer_load_ushort v7, v23, s[32:35], 0 offen
  buffer_load_ushort v8, v24, s[32:35], 0 offen
  buffer_load_ushort v9, v25, s[32:35], 0 offen
  buffer_load_ushort v10, v26, s[32:35], 0 offen
  buffer_load_ushort v11, v27, s[32:35], 0 offen
  buffer_load_ushort v12, v28, s[32:35], 0 offen
  buffer_load_ushort v13, v29, s[32:35], 0 offen
  buffer_load_ushort v16, v30, s[32:35], 0 offen
  buffer_load_ushort v17, v31, s[32:35], 0 offen
  buffer_load_ushort v18, v32, s[32:35], 0 offen
  buffer_load_ushort v19, v35, s[32:35], 0 offen
  v_accvgpr_read_b32 v33, a32
  v_accvgpr_read_b32 v34, a33
  v_accvgpr_read_b32 v36, a34
  v_accvgpr_read_b32 v37, a35
  v_accvgpr_read_b32 v38, a36
  v_accvgpr_read_b32 v39, a37
  v_accvgpr_read_b32 v40, a38
  v_accvgpr_read_b32 v41, a39
  v_accvgpr_read_b32 v42, a40
  v_accvgpr_read_b32 v43, a41
  v_accvgpr_read_b32 v44, a42
  v_accvgpr_read_b32 v45, a43
  v_accvgpr_read_b32 v46, a44
  v_accvgpr_read_b32 v47, a45
  v_accvgpr_read_b32 v48, a46
  v_accvgpr_read_b32 v49, a47
  v_mul_f32 v50, s10, v33
  s_waitcnt vmcnt(15)
  v_lshlrev_b32 v33, 16, v0
  v_mul_f32 v0, s10, v34
  s_waitcnt vmcnt(14)
  v_lshlrev_b32 v34, 16, v1
  v_mul_f32 v1, s10, v36
  s_waitcnt vmcnt(13)
  v_lshlrev_b32 v36, 16, v2
  v_mul_f32 v2, s10, v37
  s_waitcnt vmcnt(12)
  v_lshlrev_b32 v37, 16, v3
  v_mul_f32 v3, s10, v38
  s_waitcnt vmcnt(11)
  v_lshlrev_b32 v38, 16, v6
  v_mul_f32 v6, s10, v39
  s_waitcnt vmcnt(10)
  v_lshlrev_b32 v39, 16, v7
  v_mul_f32 v7, s10, v40
  s_waitcnt vmcnt(9)
  v_lshlrev_b32 v40, 16, v8
  v_mul_f32 v8, s10, v41
  s_waitcnt vmcnt(8)
  v_lshlrev_b32 v41, 16, v9
  v_mul_f32 v9, s10, v42
  s_waitcnt vmcnt(7)
  v_lshlrev_b32 v42, 16, v10
  v_mul_f32 v10, s10, v43
  s_waitcnt vmcnt(6)
  v_lshlrev_b32 v43, 16, v11
  v_mul_f32 v11, s10, v44
  s_waitcnt vmcnt(5)
  v_lshlrev_b32 v44, 16, v12
  v_mul_f32 v12, s10, v45
  s_waitcnt vmcnt(4)
  v_lshlrev_b32 v45, 16, v13
  v_mul_f32 v13, s10, v46
  s_waitcnt vmcnt(3)
  v_lshlrev_b32 v46, 16, v16
  v_mul_f32 v16, s10, v47
  s_waitcnt vmcnt(2)
  v_lshlrev_b32 v47, 16, v17
  v_mul_f32 v17, s10, v48
  s_waitcnt vmcnt(1)
  v_lshlrev_b32 v48, 16, v18
  v_mul_f32 v18, s10, v49
  s_waitcnt vmcnt(0)
  v_lshlrev_b32 v49, 16, v19
  v_fma_f32 v19, s11, v33, v50
  v_fma_f32 v33, s11, v34, v0
  v_fma_f32 v0, s11, v36, v1
  v_fma_f32 v1, s11, v37, v2
  v_fma_f32 v2, s11, v38, v3
  v_fma_f32 v3, s11, v39, v6
  v_fma_f32 v6, s11, v40, v7
  v_fma_f32 v7, s11, v41, v8
  v_fma_f32 v8, s11, v42, v9
  v_fma_f32 v9, s11, v43, v10
  v_fma_f32 v10, s11, v44, v11
  v_fma_f32 v11, s11, v45, v12
  v_fma_f32 v12, s11, v46, v13
  v_fma_f32 v13, s11, v47, v16
  v_fma_f32 v16, s11, v48, v17
  v_fma_f32 v17, s11, v49, v18
  v_bfe_u32 v18, v19, 16, 1
  v_bfe_u32 v34, v33, 16, 1
  v_bfe_u32 v36, v0, 16, 1
  v_bfe_u32 v37, v1, 16, 1
  v_bfe_u32 v38, v2, 16, 1
  v_bfe_u32 v39, v3, 16, 1
  v_bfe_u32 v40, v6, 16, 1
  v_bfe_u32 v41, v7, 16, 1
  v_bfe_u32 v42, v8, 16, 1
  v_bfe_u32 v43, v9, 16, 1
  v_bfe_u32 v44, v10, 16, 1
  v_bfe_u32 v45, v11, 16, 1
  v_bfe_u32 v46, v12, 16, 1
  v_bfe_u32 v47, v13, 16, 1
  v_bfe_u32 v48, v16, 16, 1
  v_bfe_u32 v49, v17, 16, 1
  v_add3_u32 v50, v19, v18, s1
  v_cmp_u_f32_e64 s[2:3], v19, v19
  v_add3_u32 v18, v33, v34, s1
  v_cmp_u_f32_e64 s[12:13], v33, v33
  v_add3_u32 v19, v0, v36, s1
  v_cmp_u_f32_e64 s[14:15], v0, v0
  v_add3_u32 v0, v1, v37, s1
  v_cmp_u_f32_e64 s[16:17], v1, v1
  v_add3_u32 v1, v2, v38, s1
  v_cmp_u_f32_e64 s[18:19], v2, v2
  v_add3_u32 v2, v3, v39, s1
  v_cmp_u_f32_e64 s[24:25], v3, v3
  v_add3_u32 v3, v6, v40, s1
  v_cmp_u_f32_e64 s[26:27], v6, v6
  v_add3_u32 v6, v7, v41, s1
  v_cmp_u_f32_e64 s[28:29], v7, v7
  v_add3_u32 v7, v8, v42, s1
  v_cmp_u_f32_e64 s[30:31], v8, v8
  v_add3_u32 v8, v9, v43, s1
  v_cmp_u_f32_e64 s[36:37], v9, v9
  v_add3_u32 v9, v10, v44, s1
  v_cmp_u_f32_e64 s[38:39], v10, v10
  v_add3_u32 v10, v11, v45, s1
  v_cmp_u_f32_e64 s[40:41], v11, v11
  v_add3_u32 v11, v12, v46, s1
  v_cmp_u_f32_e64 s[42:43], v12, v12
  v_add3_u32 v12, v13, v47, s1
  v_cmp_u_f32_e64 s[44:45], v13, v13
  v_add3_u32 v13, v16, v48, s1
  v_cmp_u_f32_e64 s[46:47], v16, v16
  v_add3_u32 v16, v17, v49, s1
  v_cmp_u_f32_e64 s[48:49], v17, v17
  s_mul_i32 s50, s0, 32
  s_mul_i32 s51, s0, 33
  s_mul_i32 s52, s0, 34
  s_mul_i32 s53, s0, 35
  s_mul_i32 s54, s0, 40
  s_mul_i32 s55, s0, 41
  s_mul_i32 s56, s0, 42
  s_mul_i32 s57, s0, 43
  s_mul_i32 s58, s0, 48
  s_mul_i32 s59, s0, 49
  s_mul_i32 s60, s0, 50
  s_mul_i32 s61, s0, 51
  s_mul_i32 s62, s0, 56
  s_mul_i32 s63, s0, 57
  s_mul_i32 s64, s0, 58
  s_mul_i32 s65, s0, 59
  v_cndmask_b32_e64 v17, v50, v52, s[2:3]
  v_cndmask_b32_e64 v33, v18, v52, s[12:13]
  v_cndmask_b32_e64 v18, v19, v52, s[14:15]
  v_cndmask_b32_e64 v19, v0, v52, s[16:17]
  v_cndmask_b32_e64 v0, v1, v52, s[18:19]
  v_cndmask_b32_e64 v1, v2, v52, s[24:25]
  v_cndmask_b32_e64 v2, v3, v52, s[26:27]
  v_cndmask_b32_e64 v3, v6, v52, s[28:29]
  v_cndmask_b32_e64 v6, v7, v52, s[30:31]
  v_cndmask_b32_e64 v7, v8, v52, s[36:37]
  v_cndmask_b32_e64 v8, v9, v52, s[38:39]
  v_cndmask_b32_e64 v9, v10, v52, s[40:41]
  v_cndmask_b32_e64 v10, v11, v52, s[42:43]
  v_cndmask_b32_e64 v11, v12, v52, s[44:45]
  v_cndmask_b32_e64 v12, v13, v52, s[46:47]
  v_cndmask_b32_e64 v13, v16, v52, s[48:49]
  v_cmp_lt_i32_e64 s[2:3], 32, v4
  v_add_u32 v16, s50, v53
  v_cmp_lt_i32_e64 s[12:13], 33, v4
  v_add_u32 v34, s51, v53
  v_cmp_lt_i32_e64 s[14:15], 34, v4
  v_add_u32 v36, s52, v53
  v_cmp_lt_i32_e64 s[16:17], 35, v4
  v_add_u32 v37, s53, v53
  v_cmp_lt_i32_e64 s[18:19], 40, v4
  v_add_u32 v38, s54, v53
  v_cmp_lt_i32_e64 s[24:25], 41, v4
  v_add_u32 v39, s55, v53
  v_cmp_lt_i32_e64 s[26:27], 42, v4
  v_add_u32 v40, s56, v53
  v_cmp_lt_i32_e64 s[28:29], 43, v4
  v_add_u32 v41, s57, v53
  v_cmp_lt_i32_e64 s[30:31], 48, v4
  v_add_u32 v42, s58, v53
  v_cmp_lt_i32_e64 s[36:37], 49, v4
  v_add_u32 v43, s59, v53
  v_cmp_lt_i32_e64 s[38:39], 50, v4
  v_add_u32 v44, s60, v53
  v_cmp_lt_i32_e64 s[40:41], 51, v4
  v_add_u32 v45, s61, v53
  v_cmp_lt_i32_e64 s[42:43], 56, v4
  v_add_u32 v46, s62, v53
  v_cmp_lt_i32_e64 s[44:45], 57, v4
  v_add_u32 v47, s63, v53
  v_cmp_lt_i32_e64 s[46:47], 58, v4
  v_add_u32 v48, s64, v53
  v_cmp_lt_i32_e64 s[48:49], 59, v4
  v_add_u32 v4, s65, v53
  v_lshrrev_b32 v49, 16, v17
  v_lshrrev_b32 v17, 16, v33
  v_lshrrev_b32 v33, 16, v18
  v_lshrrev_b32 v18, 16, v19
  v_lshrrev_b32 v19, 16, v0
  v_lshrrev_b32 v0, 16, v1
  v_lshrrev_b32 v1, 16, v2
  v_lshrrev_b32 v2, 16, v3
  v_lshrrev_b32 v3, 16, v6
  v_lshrrev_b32 v6, 16, v7
  v_lshrrev_b32 v7, 16, v8
  v_lshrrev_b32 v8, 16, v9
  v_lshrrev_b32 v9, 16, v10
  v_lshrrev_b32 v10, 16, v11
  v_lshrrev_b32 v11, 16, v12
  v_lshrrev_b32 v12, 16, v13
  v_cndmask_b32_e64 v13, v5, v16, s[2:3]
  v_cndmask_b32_e64 v16, v5, v34, s[12:13]
  v_cndmask_b32_e64 v34, v5, v36, s[14:15]
  v_cndmask_b32_e64 v36, v5, v37, s[16:17]
  v_cndmask_b32_e64 v37, v5, v38, s[18:19]
  v_cndmask_b32_e64 v38, v5, v39, s[24:25]
  v_cndmask_b32_e64 v39, v5, v40, s[26:27]
  v_cndmask_b32_e64 v40, v5, v41, s[28:29]
  v_cndmask_b32_e64 v41, v5, v42, s[30:31]
  v_cndmask_b32_e64 v42, v5, v43, s[36:37]
  v_cndmask_b32_e64 v43, v5, v44, s[38:39]
  v_cndmask_b32_e64 v44, v5, v45, s[40:41]
  v_cndmask_b32_e64 v45, v5, v46, s[42:43]
  v_cndmask_b32_e64 v46, v5, v47, s[44:45]
  v_cndmask_b32_e64 v47, v5, v48, s[46:47]
  v_cndmask_b32_e64 v48, v5, v4, s[48:49]
  buffer_store_short v49, v14, s[20:23], 0 offen
  buffer_store_short v17, v15, s[20:23], 0 offen
  buffer_store_short v33, v20, s[20:23], 0 offen
  buffer_store_short v18, v21, s[20:23], 0 offen
  buffer_store_short v19, v22, s[20:23], 0 offen
  buffer_store_short v0, v23, s[20:23], 0 offen
  buffer_store_short v1, v24, s[20:23], 0 offen
  buffer_store_short v2, v25, s[20:23], 0 offen
  buffer_store_short v3, v26, s[20:23], 0 offen
  buffer_store_short v6, v27, s[20:23], 0 offen
  buffer_store_short v7, v28, s[20:23], 0 offen
  buffer_store_short v8, v29, s[20:23], 0 offen
  buffer_store_short v9, v30, s[20:23], 0 offen
  buffer_store_short v10, v31, s[20:23], 0 offen
  buffer_store_short v11, v32, s[20:23], 0 offen
  buffer_store_short v12, v35, s[20:23], 0 offen
  buffer_load_ushort v0, v13, s[32:35], 0 offen
  buffer_load_ushort v1, v16, s[32:35], 0 offen
  buffer_load_ushort v2, v34, s[32:35], 0 offen
  buffer_load_ushort v3, v36, s[32:35], 0 offen
  buffer_load_ushort v4, v37, s[32:35], 0 offen
  buffer_load_ushort v5, v38, s[32:35], 0 offen
  buffer_load_ushort v6, v39, s[32:35], 0 offen
  buffer_load_ushort v7, v40, s[32:35], 0 offen
  buffer_load_ushort v8, v41, s[32:35], 0 offen
  buffer_load_ushort v9, v42, s[32:35], 0 offen
  buffer_load_ushort v10, v43, s[32:35], 0 offen
  buffer_load_ushort v11, v44, s[32:35], 0 offen
  buffer_load_ushort v12, v45, s[32:35], 0 offen
  buffer_load_ushort v14, v46, s[32:35], 0 offen
  buffer_load_ushort v15, v47, s[32:35], 0 offen
  buffer_load_ushort v17, v48, s[32:35], 0 offen
  v_accvgpr_read_b32 v18, a48
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
  v_mul_f32 v35, s10, v18
  s_waitcnt vmcnt(15)
  v_lshlrev_b32 v18, 16, v0
  v_mul_f32 v0, s10, v19
  s_waitcnt vmcnt(14)
  v_lshlrev_b32 v19, 16, v1
  v_mul_f32 v1, s10, v20
  s_waitcnt vmcnt(13)
  v_lshlrev_b32 v20, 16, v2
  v_mul_f32 v2, s10, v21
  s_waitcnt vmcnt(12)
  v_lshlrev_b32 v21, 16, v3
  v_mul_f32 v3, s10, v22
  s_waitcnt vmcnt(11)
  v_lshlrev_b32 v22, 16, v4
  v_mul_f32 v4, s10, v23
  s_waitcnt vmcnt(10)
  v_lshlrev_b32 v23, 16, v5
  v_mul_f32 v5, s10, v24
  s_waitcnt vmcnt(9)
  v_lshlrev_b32 v24, 16, v6
  v_mul_f32 v6, s10, v25
  s_waitcnt vmcnt(8)
  v_lshlrev_b32 v25, 16, v7
  v_mul_f32 v7, s10, v26
  s_waitcnt vmcnt(7)
  v_lshlrev_b32 v26, 16, v8
  v_mul_f32 v8, s10, v27
  s_waitcnt vmcnt(6)
  v_lshlrev_b32 v27, 16, v9
  v_mul_f32 v9, s10, v28
  s_waitcnt vmcnt(5)
  v_lshlrev_b32 v28, 16, v10
  v_mul_f32 v10, s10, v29
  s_waitcnt vmcnt(4)
  v_lshlrev_b32 v29, 16, v11
  v_mul_f32 v11, s10, v30
  s_waitcnt vmcnt(3)
  v_lshlrev_b32 v30, 16, v12
  v_mul_f32 v12, s10, v31
  s_waitcnt vmcnt(2)
  v_lshlrev_b32 v31, 16, v14
  v_mul_f32 v14, s10, v32
  s_waitcnt vmcnt(1)
  v_lshlrev_b32 v32, 16, v15
  v_mul_f32 v15, s10, v33
  s_waitcnt vmcnt(0)
  v_lshlrev_b32 v33, 16, v17
  v_fma_f32 v17, s11, v18, v35
  v_fma_f32 v18, s11, v19, v0
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
  v_fma_f32 v12, s11, v32, v14
  v_fma_f32 v14, s11, v33, v15
  v_bfe_u32 v15, v17, 16, 1
  v_bfe_u32 v19, v18, 16, 1
  v_bfe_u32 v20, v0, 16, 1
  v_bfe_u32 v21, v1, 16, 1
  v_bfe_u32 v22, v2, 16, 1
  v_bfe_u32 v23, v3, 16, 1
  v_bfe_u32 v24, v4, 16, 1
  v_bfe_u32 v25, v5, 16, 1
  v_bfe_u32 v26, v6, 16, 1
  v_bfe_u32 v27, v7, 16, 1
  v_bfe_u32 v28, v8, 16, 1
  v_bfe_u32 v29, v9, 16, 1
  v_bfe_u32 v30, v10, 16, 1
  v_bfe_u32 v31, v11, 16, 1
  v_bfe_u32 v32, v12, 16, 1
  v_bfe_u32 v33, v14, 16, 1
  v_add3_u32 v35, v17, v15, s1
  v_cmp_u_f32_e64 s[2:3], v17, v17
  v_add3_u32 v15, v18, v19, s1
  v_cmp_u_f32_e64 s[4:5], v18, v18
  v_add3_u32 v17, v0, v20, s1
  v_cmp_u_f32_e64 s[6:7], v0, v0
  v_add3_u32 v0, v1, v21, s1
  v_cmp_u_f32_e64 s[8:9], v1, v1
  v_add3_u32 v1, v2, v22, s1
  v_cmp_u_f32_e64 s[10:11], v2, v2
  v_add3_u32 v2, v3, v23, s1
  v_cmp_u_f32_e64 s[12:13], v3, v3
  v_add3_u32 v3, v4, v24, s1
  v_cmp_u_f32_e64 s[14:15], v4, v4
  v_add3_u32 v4, v5, v25, s1
  v_cmp_u_f32_e64 s[16:17], v5, v5
  v_add3_u32 v5, v6, v26, s1
  v_cmp_u_f32_e64 s[18:19], v6, v6
  v_add3_u32 v6, v7, v27, s1
  v_cmp_u_f32_e64 s[24:25], v7, v7
  v_add3_u32 v7, v8, v28, s1
  v_cmp_u_f32_e64 s[26:27], v8, v8
  v_add3_u32 v8, v9, v29, s1
  v_cmp_u_f32_e64 s[28:29], v9, v9
  v_add3_u32 v9, v10, v30, s1
  v_cmp_u_f32_e64 s[30:31], v10, v10
  v_add3_u32 v10, v11, v31, s1
  v_cmp_u_f32_e64 s[32:33], v11, v11
  v_add3_u32 v11, v12, v32, s1
  v_cmp_u_f32_e64 s[34:35], v12, v12
  v_add3_u32 v12, v14, v33, s1
  v_cmp_u_f32_e64 s[0:1], v14, v14
  v_cndmask_b32_e64 v14, v35, v52, s[2:3]
  v_cndmask_b32_e64 v18, v15, v52, s[4:5]
  v_cndmask_b32_e64 v15, v17, v52, s[6:7]
  v_cndmask_b32_e64 v17, v0, v52, s[8:9]
  v_cndmask_b32_e64 v0, v1, v52, s[10:11]
  v_cndmask_b32_e64 v1, v2, v52, s[12:13]
  v_cndmask_b32_e64 v2, v3, v52, s[14:15]
  v_cndmask_b32_e64 v3, v4, v52, s[16:17]
  v_cndmask_b32_e64 v4, v5, v52, s[18:19]
  v_cndmask_b32_e64 v5, v6, v52, s[24:25]
  v_cndmask_b32_e64 v6, v7, v52, s[26:27]
  v_cndmask_b32_e64 v7, v8, v52, s[28:29]
  v_cndmask_b32_e64 v8, v9, v52, s[30:31]
  v_cndmask_b32_e64 v9, v10, v52, s[32:33]
  v_cndmask_b32_e64 v10, v11, v52, s[34:35]
  v_cndmask_b32_e64 v11, v12, v52, s[0:1]
  v_lshrrev_b32 v12, 16, v14
  v_lshrrev_b32 v14, 16, v18
  v_lshrrev_b32 v18, 16, v15
  v_lshrrev_b32 v15, 16, v17
  v_lshrrev_b32 v17, 16, v0
  v_lshrrev_b32 v0, 16, v1
  v_lshrrev_b32 v1, 16, v2
  v_lshrrev_b32 v2, 16, v3
  v_lshrrev_b32 v3, 16, v4
  v_lshrrev_b32 v4, 16, v5
  v_lshrrev_b32 v5, 16, v6
  v_lshrrev_b32 v6, 16, v7
  v_lshrrev_b32 v7, 16, v8
  v_lshrrev_b32 v8, 16, v9
  v_lshrrev_b32 v9, 16, v10
  v_lshrrev_b32 v10, 16, v11
  buffer_store_short v12, v13, s[20:23], 0 offen
  buffer_store_short v14, v16, s[20:23], 0 offen
  buffer_store_short v18, v34, s[20:23], 0 offen
  buffer_store_short v15, v36, s[20:23], 0 offen
  buffer_store_short v17, v37, s[20:23], 0 offen
  buffer_store_short v0, v38, s[20:23], 0 offen
  buffer_store_short v1, v39, s[20:23], 0 offen
  buffer_store_short v2, v40, s[20:23], 0 offen
  buffer_store_short v3, v41, s[20:23], 0 offen
  buffer_store_short v4, v42, s[20:23], 0 offen
  buffer_store_short v5, v43, s[20:23], 0 offen
  buffer_store_short v6, v44, s[20:23], 0 offen
  buffer_store_short v7, v45, s[20:23], 0 offen
  buffer_store_short v8, v46, s[20:23], 0 offen
  buffer_store_short v9, v47, s[20:23], 0 offen
  buffer_store_short v10, v48, s[20:23], 0 offen
  s_endpgm
.Lgemm_NT_bf16_bf16_128x128x32_w2x2_mfma32x32x8_p2_va8_vb8_pgr2_end:
.size gemm_NT_bf16_bf16_128x128x32_w2x2_mfma32x32x8_p2_va8_vb8_pgr2, .Lgemm_NT_bf16_bf16_128x128x32_w2x2_mfma32x32x8_p2_va8_vb8_pgr2_end-gemm_NT_bf16_bf16_128x128x32_w2x2_mfma32x32x8_p2_va8_vb8_pgr2
.rodata
.p2align 6
.amdhsa_kernel gemm_NT_bf16_bf16_128x128x32_w2x2_mfma32x32x8_p2_va8_vb8_pgr2
  .amdhsa_group_segment_fixed_size 61440
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
  .amdhsa_next_free_sgpr 66
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
  - .name: gemm_NT_bf16_bf16_128x128x32_w2x2_mfma32x32x8_p2_va8_vb8_pgr2
    .symbol: gemm_NT_bf16_bf16_128x128x32_w2x2_mfma32x32x8_p2_va8_vb8_pgr2.kd
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
    .group_segment_fixed_size: 61440
    .private_segment_fixed_size: 0
    .wavefront_size: 64
    .sgpr_count: 72
    .vgpr_count: 136
    .agpr_count: 64
    .max_flat_workgroup_size: 256
...
.end_amdgpu_metadata
