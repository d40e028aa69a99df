.amdgcn_target "amdgcn-amd-amdhsa--gfx950"
.amdhsa_code_object_version 5
.text
.p2align 8
.globl gemm_NT_f16_f16_64x64x32_w2x2_mfma32x32x16_p1_va2_vb2_dma_fb2_ck_v4
.type gemm_NT_f16_f16_64x64x32_w2x2_mfma32x32x16_p1_va2_vb2_dma_fb2_ck_v4,@function
gemm_NT_f16_f16_64x64x32_w2x2_mfma32x32x16_p1_va2_vb2_dma_fb2_ck_v4:
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
  s_lshl_b32 s1, s2, 6
  v_and_b32 v0, 15, v1
  s_lshl_b32 s2, s3, 6
  v_lshrrev_b32 v2, 6, v1
  v_lshrrev_b32 v3, 4, v1
  v_lshlrev_b32 v4, 1, v0
  s_mul_i32 s3, s1, s7
  s_sub_u32 s24, s4, s1
  s_sub_u32 s25, s5, s2
  s_lshl_b32 s3, s3, 1
  v_mad_u32_u24 v0, v3, s7, v4
  v_add_u32 v5, 16, v3
  v_readfirstlane_b32 s26, v2
  s_mul_i32 s27, s2, s8
  v_readfirstlane_b32 s28, v2
  v_mov_b32 v6, 0x80000000
  v_lshl_add_u32 v7, v0, 1, s3
  v_cmp_gt_u32 vcc, s24, v3
  v_mad_u32_u24 v0, v5, s7, v4
  v_add_u32 v8, 32, v3
  s_lshl_b32 s29, s26, 8
  s_lshl_b32 s27, s27, 1
  s_lshl_b32 s26, s28, 8
  s_mov_b32 s28, s6
  s_mov_b32 s30, 0
  v_cndmask_b32 v9, v6, v7, vcc
  v_lshl_add_u32 v7, v0, 1, s3
  v_cmp_gt_u32 vcc, s24, v5
  v_mad_u32_u24 v0, v8, s7, v4
  v_add_u32 v5, 48, v3
  s_add_u32 s26, s26, 0x1000
  s_add_u32 s31, s30, s29
  v_cmp_gt_i32_e64 s[32:33], s28, v4
  s_mov_b32 s15, 0x20000
  v_cndmask_b32 v10, v6, v7, vcc
  v_lshl_add_u32 v7, v0, 1, s3
  v_cmp_gt_u32 vcc, s24, v8
  v_mad_u32_u24 v0, v5, s7, v4
  v_cndmask_b32_e64 v8, v6, v9, s[32:33]
  s_add_u32 m0, s31, 0
  v_cndmask_b32 v11, v6, v7, vcc
  v_lshl_add_u32 v7, v0, 1, s3
  v_cmp_gt_u32 vcc, s24, v5
  buffer_load_dword v8, s[12:15], 0 offen lds
  v_cndmask_b32_e64 v0, v6, v10, s[32:33]
  s_add_u32 m0, s31, 0x400
  v_cndmask_b32 v5, v6, v7, vcc
  v_and_b32 v7, 15, v1
  buffer_load_dword v0, s[12:15], 0 offen lds
  v_cndmask_b32_e64 v0, v6, v11, s[32:33]
  s_add_u32 m0, s31, 0x800
  s_mov_b32 s3, 64
  v_lshrrev_b32 v8, 4, v1
  v_lshlrev_b32 v12, 1, v7
  buffer_load_dword v0, s[12:15], 0 offen lds
  v_cndmask_b32_e64 v0, v6, v5, s[32:33]
  s_add_u32 m0, s31, 0xc00
  v_mad_u32_u24 v7, v8, s8, v12
  v_add_u32 v13, 16, v8
  buffer_load_dword v0, s[12:15], 0 offen lds
  s_add_u32 s12, s12, s3
  v_lshl_add_u32 v0, v7, 1, s27
  v_cmp_gt_u32 vcc, s25, v8
  v_mad_u32_u24 v7, v13, s8, v12
  v_add_u32 v14, 32, v8
  s_mov_b32 s31, s6
  s_addc_u32 s13, s13, 0
  s_sub_i32 s14, s14, s3
  v_cndmask_b32 v15, v6, v0, vcc
  v_lshl_add_u32 v0, v7, 1, s27
  v_cmp_gt_u32 vcc, s25, v13
  v_mad_u32_u24 v7, v14, s8, v12
  v_add_u32 v13, 48, v8
  s_max_i32 s14, s14, 0
  s_sub_i32 s28, s28, 32
  s_add_u32 s32, s30, s26
  v_cmp_gt_i32_e64 s[34:35], s31, v12
  s_mov_b32 s19, 0x20000
  v_cndmask_b32 v16, v6, v0, vcc
  v_lshl_add_u32 v0, v7, 1, s27
  v_cmp_gt_u32 vcc, s25, v14
  v_mad_u32_u24 v7, v13, s8, v12
  v_cndmask_b32_e64 v14, v6, v15, s[34:35]
  s_add_u32 m0, s32, 0
  v_cndmask_b32 v17, v6, v0, vcc
  v_lshl_add_u32 v0, v7, 1, s27
  v_cmp_gt_u32 vcc, s25, v13
  buffer_load_dword v14, s[16:19], 0 offen lds
  v_cndmask_b32_e64 v7, v6, v16, s[34:35]
  s_add_u32 m0, s32, 0x400
  v_and_b32 v13, 63, v1
  v_lshrrev_b32 v1, 1, v2
  v_cndmask_b32 v14, v6, v0, vcc
  buffer_load_dword v7, s[16:19], 0 offen lds
  v_cndmask_b32_e64 v0, v6, v17, s[34:35]
  s_add_u32 m0, s32, 0x800
  v_and_b32 v7, 1, v2
  s_mov_b32 s27, 64
  v_and_b32 v2, 31, v13
  v_mul_u32_u24 v18, 32, v1
  buffer_load_dword v0, s[16:19], 0 offen lds
  v_cndmask_b32_e64 v0, v6, v14, s[34:35]
  s_add_u32 m0, s32, 0xc00
  v_and_b32 v19, 31, v13
  v_mul_u32_u24 v20, 32, v7
  v_add_u32 v2, v18, v2
  buffer_load_dword v0, s[16:19], 0 offen lds
  s_add_u32 s16, s16, s27
  v_mul_u32_u24 v0, 64, v8
  v_add_u32 v19, v20, v19
  v_lshrrev_b32 v8, 5, v13
  v_mul_u32_u24 v18, 64, v2
  s_addc_u32 s17, s17, 0
  s_sub_i32 s18, s18, s27
  s_mov_b32 s23, 0x20000
  v_mul_u32_u24 v2, 64, v3
  v_lshl_add_u32 v0, v12, 1, v0
  v_lshrrev_b32 v3, 5, v13
  v_mul_u32_u24 v20, 64, v19
  v_lshl_add_u32 v18, v8, 4, v18
  s_max_i32 s18, s18, 0
  s_sub_i32 s31, s31, 32
  s_add_u32 s32, s6, 31
  s_mov_b32 s36, s20
  s_mov_b32 s37, s21
  s_mov_b32 s39, s23
  s_mul_i32 s38, s22, s0
  v_lshl_add_u32 v2, v4, 1, v2
  v_add_u32 v2, 0x1000, v0
  v_lshl_add_u32 v20, v3, 4, v20
  v_add_u32 v0, 0x1000, v18
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
  s_mov_b32 s0, 0x2000
  s_waitcnt vmcnt(0)
  s_barrier
  s_lshr_b32 s32, s32, 5
loop_k:
  v_add_u32 v2, s30, v20
  v_add_u32 v3, s30, v0
  ds_read_b128 v[22:25], v2
  ds_read_b128 v[26:29], v3
  ds_read_b128 v[30:33], v2 offset:32
  ds_read_b128 v[34:37], v3 offset:32
  s_setprio 1
  s_waitcnt lgkmcnt(2)
  v_mfma_f32_32x32x16_f16 a[0:15], v[22:25], v[26:29], a[0:15]
  s_waitcnt lgkmcnt(0)
  v_mfma_f32_32x32x16_f16 a[0:15], v[30:33], v[34:37], a[0:15]
  s_add_u32 s33, s0, s29
  v_cmp_gt_i32_e64 s[34:35], s28, v4
  s_nop 1
  v_cndmask_b32_e64 v2, v6, v9, s[34:35]
  s_add_u32 m0, s33, 0
  s_nop 0
  buffer_load_dword v2, s[12:15], 0 offen lds
  v_cndmask_b32_e64 v2, v6, v10, s[34:35]
  s_add_u32 m0, s33, 0x400
  s_nop 0
  buffer_load_dword v2, s[12:15], 0 offen lds
  v_cndmask_b32_e64 v2, v6, v11, s[34:35]
  s_add_u32 m0, s33, 0x800
  s_nop 0
  buffer_load_dword v2, s[12:15], 0 offen lds
  v_cndmask_b32_e64 v2, v6, v5, s[34:35]
  s_add_u32 m0, s33, 0xc00
  s_nop 0
  buffer_load_dword v2, s[12:15], 0 offen lds
  s_add_u32 s33, s0, s26
  v_cmp_gt_i32_e64 s[34:35], s31, v12
  s_nop 1
  v_cndmask_b32_e64 v2, v6, v15, s[34:35]
  s_add_u32 m0, s33, 0
  s_nop 0
  buffer_load_dword v2, s[16:19], 0 offen lds
  v_cndmask_b32_e64 v2, v6, v16, s[34:35]
  s_add_u32 m0, s33, 0x400
  s_nop 0
  buffer_load_dword v2, s[16:19], 0 offen lds
  v_cndmask_b32_e64 v2, v6, v17, s[34:35]
  s_add_u32 m0, s33, 0x800
  s_nop 0
  buffer_load_dword v2, s[16:19], 0 offen lds
  v_cndmask_b32_e64 v2, v6, v14, s[34:35]
  s_add_u32 m0, s33, 0xc00
  s_nop 0
  buffer_load_dword v2, s[16:19], 0 offen lds
  s_add_u32 s12, s12, s3
  s_addc_u32 s13, s13, 0
  s_sub_i32 s14, s14, s3
  s_max_i32 s14, s14, 0
  s_sub_i32 s28, s28, 32
  s_add_u32 s16, s16, s27
  s_addc_u32 s17, s17, 0
  s_sub_i32 s18, s18, s27
  s_max_i32 s18, s18, 0
  s_sub_i32 s31, s31, 32
  s_mov_b32 s33, s30
  s_mov_b32 s30, s0
  s_mov_b32 s0, s33
  s_waitcnt vmcnt(0)
  s_barrier
  s_setprio 0
  s_sub_u32 s32, s32, 1
  s_cmp_lg_u32 s32, 0
  s_cbranch_scc1 loop_k
  v_lshrrev_b32 v0, 5, v13
  v_mul_u32_u24 v2, 32, v7
  v_lshl_add_u32 v3, v0, 2, v2
  v_and_b32 v0, 31, v13
  v_mul_u32_u24 v2, 32, v1
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
  v_sub_u32 v1, s24, v3
  v_cndmask_b32_e64 v2, v6, v0, s[2:3]
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
  v_cmp_lt_i32_e64 s[28:29], 0, v1
  v_cmp_lt_i32_e64 s[30:31], 1, v1
  v_add_u32 v0, s1, v2
  v_cmp_lt_i32_e64 s[0:1], 2, v1
  v_add_u32 v3, s2, v2
  v_cmp_lt_i32_e64 s[32:33], 3, v1
  v_add_u32 v4, s3, v2
  v_cmp_lt_i32_e64 s[2:3], 8, v1
  v_add_u32 v5, s12, v2
  v_cmp_lt_i32_e64 s[34:35], 9, v1
  v_add_u32 v7, s13, v2
  v_cmp_lt_i32_e64 s[12:13], 10, v1
  v_add_u32 v8, s14, v2
  v_cmp_lt_i32_e64 s[40:41], 11, v1
  v_add_u32 v9, s15, v2
  v_cmp_lt_i32_e64 s[14:15], 16, v1
  v_add_u32 v10, s16, v2
  v_cmp_lt_i32_e64 s[42:43], 17, v1
  v_add_u32 v11, s17, v2
  v_cmp_lt_i32_e64 s[16:17], 18, v1
  v_add_u32 v12, s18, v2
  v_cmp_lt_i32_e64 s[44:45], 19, v1
  v_add_u32 v13, s19, v2
  v_cmp_lt_i32_e64 s[18:19], 24, v1
  v_add_u32 v14, s24, v2
  v_cmp_lt_i32_e64 s[46:47], 25, v1
  v_add_u32 v15, s25, v2
  v_cmp_lt_i32_e64 s[24:25], 26, v1
  v_add_u32 v16, s26, v2
  v_cmp_lt_i32_e64 s[48:49], 27, v1
  v_add_u32 v1, s27, v2
  v_cndmask_b32_e64 v17, v6, v2, s[28:29]
  v_cndmask_b32_e64 v2, v6, v0, s[30:31]
  v_cndmask_b32_e64 v0, v6, v3, s[0:1]
  v_cndmask_b32_e64 v3, v6, v4, s[32:33]
  v_cndmask_b32_e64 v4, v6, v5, s[2:3]
  v_cndmask_b32_e64 v5, v6, v7, s[34:35]
  v_cndmask_b32_e64 v7, v6, v8, s[12:13]
  v_cndmask_b32_e64 v8, v6, v9, s[40:41]
  v_cndmask_b32_e64 v9, v6, v10, s[14:15]
  v_cndmask_b32_e64 v10, v6, v11, s[42:43]
  v_cndmask_b32_e64 v11, v6, v12, s[16:17]
  v_cndmask_b32_e64 v12, v6, v13, s[44:45]
  v_cndmask_b32_e64 v13, v6, v14, s[18:19]
  v_cndmask_b32_e64 v14, v6, v15, s[46:47]
  v_cndmask_b32_e64 v15, v6, v16, s[24:25]
  v_cndmask_b32_e64 v16, v6, v1, s[48:49]
  buffer_load_ushort v1, v17, s[36:39], 0 offen
  buffer_load_ushort v6, v2, s[36:39], 0 offen
  buffer_load_ushort v18, v0, s[36:39], 0 offen
  buffer_load_ushort v19, v3, s[36:39], 0 offen
  buffer_load_ushort v20, v4, s[36:39], 0 offen
  buffer_load_ushort v21, v5, s[36:39], 0 offen
  buffer_load_ushort v22, v7, s[36:39], 0 offen
  buffer_load_ushort v23, v8, s[36:39], 0 offen
  buffer_load_ushort v24, v9, s[36:39], 0 offen
  buffer_load_ushort v25, v10, s[36:39], 0 offen
  buffer_load_ushort v26, v11, s[36:39], 0 offen
  buffer_load_ushort v27, v12, s[36:39], 0 offen
  buffer_load_ushort v28, v13, s[36:39], 0 offen
  buffer_load_ushort v29, v14, s[36:39], 0 offen
  buffer_load_ushort v30, v15, s[36:39], 0 offen
  buffer_load_ushort v31, v16, s[36:39], 0 offen
  v_accvgpr_read_b32 v32, a0
  v_accvgpr_read_b32 v33, a1
  v_accvgpr_read_b32 v34, a2
  v_accvgpr_read_b32 v35, a3
  v_accvgpr_read_b32 v36, a4
  v_accvgpr_read_b32 v37, a5
  v_accvgpr_read_b32 v38, a6
  v_accvgpr_read_b32 v39, a7
  v_accvgpr_read_b32 v40, a8
  v_accvgpr_read_b32 v41, a9
  v_accvgpr_read_b32 v42, a10
  v_accvgpr_read_b32 v43, a11
  v_accvgpr_read_b32 v44, a12
  v_accvgpr_read_b32 v45, a13
  v_accvgpr_read_b32 v46, a14
  v_accvgpr_read_b32 v47, a15
  v_mul_f32 v48, s10, v32
  s_waitcnt vmcnt(15)
  v_cvt_f32_f16 v32, v1
  v_mul_f32 v1, s10, v33
  s_waitcnt vmcnt(14)
  v_cvt_f32_f16 v33, v6
  v_mul_f32 v6, s10, v34
  s_waitcnt vmcnt(13)
  v_cvt_f32_f16 v34, v18
  v_mul_f32 v18, s10, v35
  s_waitcnt vmcnt(12)
  v_cvt_f32_f16 v35, v19
  v_mul_f32 v19, s10, v36
  s_waitcnt vmcnt(11)
  v_cvt_f32_f16 v36, v20
  v_mul_f32 v20, s10, v37
  s_waitcnt vmcnt(10)
  v_cvt_f32_f16 v37, v21
  v_mul_f32 v21, s10, v38
  s_waitcnt vmcnt(9)
  v_cvt_f32_f16 v38, v22
  v_mul_f32 v22, s10, v39
  s_waitcnt vmcnt(8)
  v_cvt_f32_f16 v39, v23
  v_mul_f32 v23, s10, v40
  s_waitcnt vmcnt(7)
  v_cvt_f32_f16 v40, v24
  v_mul_f32 v24, s10, v41
  s_waitcnt vmcnt(6)
  v_cvt_f32_f16 v41, v25
  v_mul_f32 v25, s10, v42
  s_waitcnt vmcnt(5)
  v_cvt_f32_f16 v42, v26
  v_mul_f32 v26, s10, v43
  s_waitcnt vmcnt(4)
  v_cvt_f32_f16 v43, v27
  v_mul_f32 v27, s10, v44
  s_waitcnt vmcnt(3)
  v_cvt_f32_f16 v44, v28
  v_mul_f32 v28, s10, v45
  s_waitcnt vmcnt(2)
  v_cvt_f32_f16 v45, v29
  v_mul_f32 v29, s10, v46
  s_waitcnt vmcnt(1)
  v_cvt_f32_f16 v46, v30
  v_mul_f32 v30, s10, v47
  s_waitcnt vmcnt(0)
  v_cvt_f32_f16 v47, v31
  v_fma_f32 v31, s11, v32, v48
  v_fma_f32 v32, s11, v33, v1
  v_fma_f32 v1, s11, v34, v6
  v_fma_f32 v6, s11, v35, v18
  v_fma_f32 v18, s11, v36, v19
  v_fma_f32 v19, s11, v37, v20
  v_fma_f32 v20, s11, v38, v21
  v_fma_f32 v21, s11, v39, v22
  v_fma_f32 v22, s11, v40, v23
  v_fma_f32 v23, s11, v41, v24
  v_fma_f32 v24, s11, v42, v25
  v_fma_f32 v25, s11, v43, v26
  v_fma_f32 v26, s11, v44, v27
  v_fma_f32 v27, s11, v45, v28
  v_fma_f32 v28, s11, v46, v29
  v_fma_f32 v29, s11, v47, v30
  v_cvt_f16_f32 v30, v31
  v_cvt_f16_f32 v31, v32
  v_cvt_f16_f32 v32, v1
  v_cvt_f16_f32 v1, v6
  v_cvt_f16_f32 v6, v18
  v_cvt_f16_f32 v18, v19
  v_cvt_f16_f32 v19, v20
  v_cvt_f16_f32 v20, v21
  v_cvt_f16_f32 v21, v22
  v_cvt_f16_f32 v22, v23
  v_cvt_f16_f32 v23, v24
  v_cvt_f16_f32 v24, v25
  v_cvt_f16_f32 v25, v26
  v_cvt_f16_f32 v26, v27
  v_cvt_f16_f32 v27, v28
  v_cvt_f16_f32 v28, v29
  buffer_store_short v30, v17, s[20:23], 0 offen
  buffer_store_short v31, v2, s[20:23], 0 offen
  buffer_store_short v32, v0, s[20:23], 0 offen
  buffer_store_short v1, v3, s[20:23], 0 offen
  buffer_store_short v6, v4, s[20:23], 0 offen
  buffer_store_short v18, v5, s[20:23], 0 offen
  buffer_store_short v19, v7, s[20:23], 0 offen
  buffer_store_short v20, v8, s[20:23], 0 offen
  buffer_store_short v21, v9, s[20:23], 0 offen
  buffer_store_short v22, v10, s[20:23], 0 offen
  buffer_store_short v23, v11, s[20:23], 0 offen
  buffer_store_short v24, v12, s[20:23], 0 offen
  buffer_store_short v25, v13, s[20:23], 0 offen
  buffer_store_short v26, v14, s[20:23], 0 offen
  buffer_store_short v27, v15, s[20:23], 0 offen
  buffer_store_short v28, v16, s[20:23], 0 offen
  s_endpgm
.Lgemm_NT_f16_f16_64x64x32_w2x2_mfma32x32x16_p1_va2_vb2_dma_fb2_ck_v4_end:
.size gemm_NT_f16_f16_64x64x32_w2x2_mfma32x32x16_p1_va2_vb2_dma_fb2_ck_v4, .Lgemm_NT_f16_f16_64x64x32_w2x2_mfma32x32x16_p1_va2_vb2_dma_fb2_ck_v4_end-gemm_NT_f16_f16_64x64x32_w2x2_mfma32x32x16_p1_va2_vb2_dma_fb2_ck_v4
.rodata
.p2align 6
.amdhsa_kernel gemm_NT_f16_f16_64x64x32_w2x2_mfma32x32x16_p1_va2_vb2_dma_fb2_ck_v4
  .amdhsa_group_segment_fixed_size 16384
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
  .amdhsa_next_free_vgpr 68
  .amdhsa_next_free_sgpr 50
  .amdhsa_accum_offset 52
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
amdhsa.target: amdgcn-amd-amdhsa--gfx950
amdhsa.kernels:
  - .name: gemm_NT_f16_f16_64x64x32_w2x2_mfma32x32x16_p1_va2_vb2_dma_fb2_ck_v4
    .symbol: gemm_NT_f16_f16_64x64x32_w2x2_mfma32x32x16_p1_va2_vb2_dma_fb2_ck_v4.kd
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
    .group_segment_fixed_size: 16384
    .private_segment_fixed_size: 0
    .wavefront_size: 64
    .sgpr_count: 56
    .vgpr_count: 68
    .agpr_count: 16
    .max_flat_workgroup_size: 256
...
.end_amdgpu_metadata
