.amdgcn_target "amdgcn-amd-amdhsa--gfx942"
.amdhsa_code_object_version 5
.text
.p2align 8
.globl attn_fwd_gfx942_f16_d128_k8_causal_g2_attn_basic
.type attn_fwd_gfx942_f16_d128_k8_causal_g2_attn_basic,@function
attn_fwd_gfx942_f16_d128_k8_causal_g2_attn_basic:
  s_load_dwordx4 s[8:11], s[0:1], 40
  s_load_dwordx2 s[12:13], s[0:1], 0
  s_load_dwordx2 s[16:17], s[0:1], 24
  s_waitcnt lgkmcnt(0)
  v_cvt_f32_u32 v1, s9
  v_rcp_f32 v2, v1
  s_load_dwordx2 s[20:21], s[0:1], 32
  s_load_dwordx2 s[6:7], s[0:1], 56
  s_mul_i32 s5, s3, s10
  v_cvt_f32_u32 v1, s5
  s_load_dwordx2 s[24:25], s[0:1], 8
  v_add_f32 v3, 0.5, v1
  v_mul_f32 v1, v3, v2
  s_mul_i32 s5, s4, s9
  s_load_dwordx2 s[28:29], s[0:1], 16
  s_lshl_b32 s0, s2, 5
  v_cvt_u32_f32 v2, v1
  s_add_u32 s5, s5, s3
  v_readfirstlane_b32 s1, v2
  s_mul_i32 s2, s4, s10
  s_mul_i32 s3, s5, s11
  s_add_u32 s2, s2, s1
  s_add_u32 s3, s3, s0
  s_sub_i32 s1, s11, s0
  s_mul_i32 s4, s3, 0x100
  s_max_i32 s1, s1, 0
  s_mul_hi_u32 s5, s3, 0x100
  s_add_u32 s12, s12, s4
  s_addc_u32 s13, s13, s5
  s_mul_i32 s4, s3, 0x100
  s_and_b32 s13, s13, 0xffff
  s_mul_hi_u32 s5, s3, 0x100
  s_add_u32 s16, s16, s4
  s_addc_u32 s17, s17, s5
  s_mul_i32 s4, s3, 4
  s_waitcnt lgkmcnt(0)
  s_mul_i32 s5, s2, s6
  s_and_b32 s17, s17, 0xffff
  s_mul_hi_u32 s2, s3, 4
  s_add_u32 s20, s20, s4
  s_addc_u32 s21, s21, s2
  s_mul_i32 s2, s5, 0x100
  s_and_b32 s21, s21, 0xffff
  s_mul_hi_u32 s3, s5, 0x100
  s_add_u32 s24, s24, s2
  s_addc_u32 s25, s25, s3
  s_mul_i32 s2, s5, 0x100
  s_and_b32 s25, s25, 0xffff
  s_mul_hi_u32 s3, s5, 0x100
  s_add_u32 s28, s28, s2
  s_addc_u32 s29, s29, s3
  s_and_b32 s29, s29, 0xffff
  s_sub_i32 s2, s6, s11
  s_add_i32 s2, s2, s0
  s_add_i32 s2, s2, 1
  s_add_u32 s3, s0, 32
  s_min_i32 s3, s3, s11
  v_and_b32 v1, 63, v0
  s_add_i32 s3, s3, s6
  v_lshrrev_b32 v0, 5, v1
  s_sub_i32 s3, s3, s11
  v_and_b32 v2, 31, v1
  v_lshlrev_b32 v3, 2, v0
  s_mov_b32 s0, 0x80
  s_min_i32 s3, s3, s6
  v_mad_u32_u24 v4, v2, s0, v3
  v_add_u32 v5, 64, v1
  s_add_i32 s0, s3, 31
  s_mul_i32 s26, s6, 0x100
  s_mov_b32 s27, 0x20000
  v_lshlrev_b32 v6, 1, v4
  v_lshrrev_b32 v4, 3, v1
  v_lshrrev_b32 v7, 3, v5
  s_ashr_i32 s0, s0, 5
  s_mov_b32 s3, 0x2000
  v_and_b32 v8, 7, v1
  v_lshlrev_b32 v9, 4, v4
  s_mov_b32 s4, 0x400
  v_and_b32 v10, 7, v5
  v_lshlrev_b32 v5, 4, v7
  s_max_i32 s0, s0, 1
  buffer_load_dwordx2 v[12:13], v6, s[24:27], 0 offen
  buffer_load_dwordx2 v[14:15], v6, s[24:27], 0 offen offset:16
  buffer_load_dwordx2 v[16:17], v6, s[24:27], 0 offen offset:32
  buffer_load_dwordx2 v[18:19], v6, s[24:27], 0 offen offset:48
  buffer_load_dwordx2 v[20:21], v6, s[24:27], 0 offen offset:64
  buffer_load_dwordx2 v[22:23], v6, s[24:27], 0 offen offset:80
  buffer_load_dwordx2 v[24:25], v6, s[24:27], 0 offen offset:96
  buffer_load_dwordx2 v[26:27], v6, s[24:27], 0 offen offset:112
  buffer_load_dwordx2 v[28:29], v6, s[24:27], 0 offen offset:128
  buffer_load_dwordx2 v[30:31], v6, s[24:27], 0 offen offset:144
  buffer_load_dwordx2 v[32:33], v6, s[24:27], 0 offen offset:160
  buffer_load_dwordx2 v[34:35], v6, s[24:27], 0 offen offset:176
  buffer_load_dwordx2 v[36:37], v6, s[24:27], 0 offen offset:192
  buffer_load_dwordx2 v[38:39], v6, s[24:27], 0 offen offset:208
  buffer_load_dwordx2 v[40:41], v6, s[24:27], 0 offen offset:224
  buffer_load_dwordx2 v[42:43], v6, s[24:27], 0 offen offset:240
  s_add_u32 s24, s24, s3
  s_mul_i32 s30, s6, 0x100
  s_mov_b32 s31, 0x20000
  v_lshrrev_b32 v11, 1, v8
  v_mad_u32_u24 v44, v8, s4, v9
  v_lshrrev_b32 v9, 1, v10
  v_mad_u32_u24 v45, v10, s4, v5
  s_addc_u32 s25, s25, 0
  s_sub_i32 s26, s26, s3
  v_and_b32 v5, 1, v8
  v_lshlrev_b32 v8, 3, v11
  v_and_b32 v11, 1, v10
  v_lshlrev_b32 v10, 3, v9
  v_add_u32 v9, s2, v2
  buffer_load_dwordx4 v[48:51], v44, s[28:31], 0 offen
  buffer_load_dwordx4 v[52:55], v44, s[28:31], 0 offen offset:256
  buffer_load_dwordx4 v[56:59], v44, s[28:31], 0 offen offset:512
  buffer_load_dwordx4 v[60:63], v44, s[28:31], 0 offen offset:768
  buffer_load_dwordx4 v[64:67], v45, s[28:31], 0 offen
  buffer_load_dwordx4 v[68:71], v45, s[28:31], 0 offen offset:256
  buffer_load_dwordx4 v[72:75], v45, s[28:31], 0 offen offset:512
  buffer_load_dwordx4 v[76:79], v45, s[28:31], 0 offen offset:768
  s_max_i32 s26, s26, 0
  s_add_u32 s28, s28, s3
  s_mul_i32 s14, s1, 0x100
  s_mov_b32 s15, 0x20000
  v_xor_b32 v46, 32, v1
  v_lshl_add_u32 v1, v5, 5, v8
  s_mov_b32 s2, 0x280
  v_lshl_add_u32 v5, v11, 5, v10
  v_lshlrev_b32 v8, 5, v0
  s_mov_b32 s4, 0x50
  v_min_i32 v10, s6, v9
  v_mov_b32 v9, s7
  s_addc_u32 s29, s29, 0
  s_sub_i32 s30, s30, s3
  s_mul_i32 s18, s1, 0x100
  s_mov_b32 s19, 0x20000
  s_mul_i32 s22, s1, 4
  s_mov_b32 s23, 0x20000
  v_lshlrev_b32 v11, 2, v46
  v_mad_u32_u24 v46, v4, s2, v1
  v_mad_u32_u24 v1, v7, s2, v5
  v_mad_u32_u24 v4, v2, s4, v8
  v_sub_u32 v5, v10, v3
  s_mov_b32 s1, 0
  buffer_load_dwordx2 v[80:81], v6, s[12:15], 0 offen
  buffer_load_dwordx2 v[82:83], v6, s[12:15], 0 offen offset:16
  buffer_load_dwordx2 v[84:85], v6, s[12:15], 0 offen offset:32
  buffer_load_dwordx2 v[86:87], v6, s[12:15], 0 offen offset:48
  buffer_load_dwordx2 v[88:89], v6, s[12:15], 0 offen offset:64
  buffer_load_dwordx2 v[90:91], v6, s[12:15], 0 offen offset:80
  buffer_load_dwordx2 v[92:93], v6, s[12:15], 0 offen offset:96
  buffer_load_dwordx2 v[94:95], v6, s[12:15], 0 offen offset:112
  buffer_load_dwordx2 v[96:97], v6, s[12:15], 0 offen offset:128
  buffer_load_dwordx2 v[98:99], v6, s[12:15], 0 offen offset:144
  buffer_load_dwordx2 v[100:101], v6, s[12:15], 0 offen offset:160
  buffer_load_dwordx2 v[102:103], v6, s[12:15], 0 offen offset:176
  buffer_load_dwordx2 v[104:105], v6, s[12:15], 0 offen offset:192
  buffer_load_dwordx2 v[106:107], v6, s[12:15], 0 offen offset:208
  buffer_load_dwordx2 v[108:109], v6, s[12:15], 0 offen offset:224
  buffer_load_dwordx2 v[110:111], v6, s[12:15], 0 offen offset:240
  v_mov_b32 v3, 0xff800000
  v_mov_b32 v7, 0xff800000
  v_mov_b32 v8, 0
  v_mov_b32 v112, 0
  v_mov_b32 v113, 0
  v_mov_b32 v114, 0
  v_mov_b32 v115, 0
  v_mov_b32 v116, 0
  v_mov_b32 v117, 0
  v_mov_b32 v118, 0
  v_mov_b32 v119, 0
  v_mov_b32 v120, 0
  v_mov_b32 v121, 0
  v_mov_b32 v122, 0
  v_mov_b32 v123, 0
  v_mov_b32 v124, 0
  v_mov_b32 v125, 0
  v_mov_b32 v126, 0
  v_mov_b32 v127, 0
  v_mov_b32 v128, 0
  v_mov_b32 v129, 0
  v_mov_b32 v130, 0
  v_mov_b32 v131, 0
  v_mov_b32 v132, 0
  v_mov_b32 v133, 0
  v_mov_b32 v134, 0
  v_mov_b32 v135, 0
  v_mov_b32 v136, 0
  v_mov_b32 v137, 0
  v_mov_b32 v138, 0
  v_mov_b32 v139, 0
  v_mov_b32 v140, 0
  v_mov_b32 v141, 0
  v_mov_b32 v142, 0
  v_mov_b32 v143, 0
  v_mov_b32 v144, 0
  v_mov_b32 v145, 0
  v_mov_b32 v146, 0
  v_mov_b32 v147, 0
  v_mov_b32 v148, 0
  v_mov_b32 v149, 0
  v_mov_b32 v150, 0
  v_mov_b32 v151, 0
  v_mov_b32 v152, 0
  v_mov_b32 v153, 0
  v_mov_b32 v154, 0
  v_mov_b32 v155, 0
  v_mov_b32 v156, 0
  v_mov_b32 v157, 0
  v_mov_b32 v158, 0
  v_mov_b32 v159, 0
  v_mov_b32 v160, 0
  v_mov_b32 v161, 0
  v_mov_b32 v162, 0
  v_mov_b32 v163, 0
  v_mov_b32 v164, 0
  v_mov_b32 v165, 0
  v_mov_b32 v166, 0
  v_mov_b32 v167, 0
  v_mov_b32 v168, 0
  v_mov_b32 v169, 0
  v_mov_b32 v170, 0
  v_mov_b32 v171, 0
  v_mov_b32 v172, 0
  v_mov_b32 v173, 0
  v_mov_b32 v174, 0
  v_mov_b32 v175, 0
  v_mul_f32 v10, 0x3fb8aa3b, v9
  s_max_i32 s30, s30, 0
  s_mov_b32 s2, 0x5040100
  s_mov_b32 s4, 0x7060302
loop_kv:
  s_waitcnt vmcnt(22)
  v_perm_b32 v176, v52, v48, s2
  s_waitcnt vmcnt(20)
  v_perm_b32 v177, v60, v56, s2
  ds_write_b64 v46, v[176:177]
  v_perm_b32 v176, v52, v48, s4
  v_perm_b32 v177, v60, v56, s4
  ds_write_b64 v46, v[176:177] offset:80
  v_perm_b32 v176, v53, v49, s2
  v_perm_b32 v177, v61, v57, s2
  ds_write_b64 v46, v[176:177] offset:160
  v_perm_b32 v176, v53, v49, s4
  v_perm_b32 v177, v61, v57, s4
  ds_write_b64 v46, v[176:177] offset:240
  v_perm_b32 v176, v54, v50, s2
  v_perm_b32 v177, v62, v58, s2
  ds_write_b64 v46, v[176:177] offset:320
  v_perm_b32 v176, v54, v50, s4
  v_perm_b32 v177, v62, v58, s4
  ds_write_b64 v46, v[176:177] offset:400
  v_perm_b32 v176, v55, v51, s2
  v_perm_b32 v177, v63, v59, s2
  ds_write_b64 v46, v[176:177] offset:480
  v_perm_b32 v176, v55, v51, s4
  buffer_load_dwordx4 v[48:51], v44, s[28:31], 0 offen
  buffer_load_dwordx4 v[52:55], v44, s[28:31], 0 offen offset:256
  v_perm_b32 v177, v63, v59, s4
  buffer_load_dwordx4 v[56:59], v44, s[28:31], 0 offen offset:512
  buffer_load_dwordx4 v[60:63], v44, s[28:31], 0 offen offset:768
  ds_write_b64 v46, v[176:177] offset:560
  s_waitcnt vmcnt(22)
  v_perm_b32 v176, v68, v64, s2
  s_waitcnt vmcnt(20)
  v_perm_b32 v177, v76, v72, s2
  ds_write_b64 v1, v[176:177]
  v_perm_b32 v176, v68, v64, s4
  v_perm_b32 v177, v76, v72, s4
  ds_write_b64 v1, v[176:177] offset:80
  v_perm_b32 v176, v69, v65, s2
  v_perm_b32 v177, v77, v73, s2
  ds_write_b64 v1, v[176:177] offset:160
  v_perm_b32 v176, v69, v65, s4
  v_perm_b32 v177, v77, v73, s4
  ds_write_b64 v1, v[176:177] offset:240
  v_perm_b32 v176, v70, v66, s2
  v_perm_b32 v177, v78, v74, s2
  ds_write_b64 v1, v[176:177] offset:320
  v_perm_b32 v176, v70, v66, s4
  v_perm_b32 v177, v78, v74, s4
  ds_write_b64 v1, v[176:177] offset:400
  v_perm_b32 v176, v71, v67, s2
  v_perm_b32 v177, v79, v75, s2
  ds_write_b64 v1, v[176:177] offset:480
  v_perm_b32 v176, v71, v67, s4
  buffer_load_dwordx4 v[64:67], v45, s[28:31], 0 offen
  buffer_load_dwordx4 v[68:71], v45, s[28:31], 0 offen offset:256
  v_perm_b32 v177, v79, v75, s4
  buffer_load_dwordx4 v[72:75], v45, s[28:31], 0 offen offset:512
  buffer_load_dwordx4 v[76:79], v45, s[28:31], 0 offen offset:768
  ds_write_b64 v1, v[176:177] offset:560
  s_setprio 1
  s_waitcnt vmcnt(23)
  v_mfma_f32_32x32x8_f16 v[176:191], v[12:13], v[80:81], 0
  buffer_load_dwordx2 v[12:13], v6, s[24:27], 0 offen
  s_waitcnt vmcnt(23)
  v_mfma_f32_32x32x8_f16 v[176:191], v[14:15], v[82:83], v[176:191]
  buffer_load_dwordx2 v[14:15], v6, s[24:27], 0 offen offset:16
  s_waitcnt vmcnt(23)
  v_mfma_f32_32x32x8_f16 v[176:191], v[16:17], v[84:85], v[176:191]
  buffer_load_dwordx2 v[16:17], v6, s[24:27], 0 offen offset:32
  s_waitcnt vmcnt(23)
  v_mfma_f32_32x32x8_f16 v[176:191], v[18:19], v[86:87], v[176:191]
  buffer_load_dwordx2 v[18:19], v6, s[24:27], 0 offen offset:48
  s_waitcnt vmcnt(23)
  v_mfma_f32_32x32x8_f16 v[176:191], v[20:21], v[88:89], v[176:191]
  buffer_load_dwordx2 v[20:21], v6, s[24:27], 0 offen offset:64
  s_waitcnt vmcnt(23)
  v_mfma_f32_32x32x8_f16 v[176:191], v[22:23], v[90:91], v[176:191]
  buffer_load_dwordx2 v[22:23], v6, s[24:27], 0 offen offset:80
  s_waitcnt vmcnt(23)
  v_mfma_f32_32x32x8_f16 v[176:191], v[24:25], v[92:93], v[176:191]
  buffer_load_dwordx2 v[24:25], v6, s[24:27], 0 offen offset:96
  s_waitcnt vmcnt(23)
  v_mfma_f32_32x32x8_f16 v[176:191], v[26:27], v[94:95], v[176:191]
  buffer_load_dwordx2 v[26:27], v6, s[24:27], 0 offen offset:112
  s_waitcnt vmcnt(23)
  v_mfma_f32_32x32x8_f16 v[176:191], v[28:29], v[96:97], v[176:191]
  buffer_load_dwordx2 v[28:29], v6, s[24:27], 0 offen offset:128
  s_waitcnt vmcnt(23)
  v_mfma_f32_32x32x8_f16 v[176:191], v[30:31], v[98:99], v[176:191]
  buffer_load_dwordx2 v[30:31], v6, s[24:27], 0 offen offset:144
  s_waitcnt vmcnt(23)
  v_mfma_f32_32x32x8_f16 v[176:191], v[32:33], v[100:101], v[176:191]
  buffer_load_dwordx2 v[32:33], v6, s[24:27], 0 offen offset:160
  s_waitcnt vmcnt(23)
  v_mfma_f32_32x32x8_f16 v[176:191], v[34:35], v[102:103], v[176:191]
  buffer_load_dwordx2 v[34:35], v6, s[24:27], 0 offen offset:176
  s_waitcnt vmcnt(23)
  v_mfma_f32_32x32x8_f16 v[176:191], v[36:37], v[104:105], v[176:191]
  buffer_load_dwordx2 v[36:37], v6, s[24:27], 0 offen offset:192
  s_waitcnt vmcnt(23)
  v_mfma_f32_32x32x8_f16 v[176:191], v[38:39], v[106:107], v[176:191]
  buffer_load_dwordx2 v[38:39], v6, s[24:27], 0 offen offset:208
  s_waitcnt vmcnt(23)
  v_mfma_f32_32x32x8_f16 v[176:191], v[40:41], v[108:109], v[176:191]
  buffer_load_dwordx2 v[40:41], v6, s[24:27], 0 offen offset:224
  s_waitcnt vmcnt(23)
  v_mfma_f32_32x32x8_f16 v[176:191], v[42:43], v[110:111], v[176:191]
  buffer_load_dwordx2 v[42:43], v6, s[24:27], 0 offen offset:240
  s_add_u32 s24, s24, s3
  s_addc_u32 s25, s25, 0
  s_sub_i32 s26, s26, s3
  s_max_i32 s26, s26, 0
  s_add_u32 s28, s28, s3
  s_addc_u32 s29, s29, 0
  s_sub_i32 s30, s30, s3
  s_max_i32 s30, s30, 0
  v_subrev_u32 v9, s1, v5
  v_cmp_lt_i32 vcc, 0, v9
  s_nop 1
  v_cndmask_b32 v47, v3, v176, vcc
  v_cmp_lt_i32 vcc, 1, v9
  s_nop 1
  v_cndmask_b32 v192, v3, v177, vcc
  v_cmp_lt_i32 vcc, 2, v9
  s_nop 1
  v_cndmask_b32 v193, v3, v178, vcc
  v_cmp_lt_i32 vcc, 3, v9
  s_nop 1
  v_cndmask_b32 v194, v3, v179, vcc
  v_cmp_lt_i32 vcc, 8, v9
  s_nop 1
  v_cndmask_b32 v195, v3, v180, vcc
  v_cmp_lt_i32 vcc, 9, v9
  s_nop 1
  v_cndmask_b32 v196, v3, v181, vcc
  v_cmp_lt_i32 vcc, 10, v9
  s_nop 1
  v_cndmask_b32 v197, v3, v182, vcc
  v_cmp_lt_i32 vcc, 11, v9
  s_nop 1
  v_cndmask_b32 v198, v3, v183, vcc
  v_cmp_lt_i32 vcc, 16, v9
  s_nop 1
  v_cndmask_b32 v199, v3, v184, vcc
  v_cmp_lt_i32 vcc, 17, v9
  s_nop 1
  v_cndmask_b32 v200, v3, v185, vcc
  v_cmp_lt_i32 vcc, 18, v9
  s_nop 1
  v_cndmask_b32 v201, v3, v186, vcc
  v_cmp_lt_i32 vcc, 19, v9
  s_nop 1
  v_cndmask_b32 v202, v3, v187, vcc
  v_cmp_lt_i32 vcc, 24, v9
  s_nop 1
  v_cndmask_b32 v203, v3, v188, vcc
  v_cmp_lt_i32 vcc, 25, v9
  s_nop 1
  v_cndmask_b32 v204, v3, v189, vcc
  v_cmp_lt_i32 vcc, 26, v9
  s_nop 1
  v_cndmask_b32 v205, v3, v190, vcc
  v_cmp_lt_i32 vcc, 27, v9
  s_nop 1
  v_cndmask_b32 v9, v3, v191, vcc
  v_max_f32 v176, v47, v192
  v_max_f32 v177, v193, v194
  v_max_f32 v178, v195, v196
  v_max_f32 v179, v197, v198
  v_max_f32 v180, v199, v200
  v_max_f32 v181, v201, v202
  v_max_f32 v182, v203, v204
  v_max_f32 v183, v205, v9
  v_max_f32 v184, v176, v177
  v_max_f32 v176, v178, v179
  v_max_f32 v177, v180, v181
  v_max_f32 v178, v182, v183
  v_max_f32 v179, v184, v176
  v_max_f32 v176, v177, v178
  v_max_f32 v177, v179, v176
  ds_bpermute_b32 v176, v11, v177
  s_waitcnt lgkmcnt(0)
  v_max_f32 v178, v176, v177
  v_mul_f32 v176, v10, v178
  v_max_f32 v177, v7, v176
  v_cmp_neq_f32 vcc, v3, v177
  s_nop 1
  v_cndmask_b32 v176, 0, v177, vcc
  v_sub_f32 v178, v7, v176
  v_exp_f32 v180, v178
  v_mov_b32 v7, v177
  v_mul_f32 v177, -1.0, v176
  v_fma_f32 v176, v47, v10, v177
  v_exp_f32 v47, v176
  v_fma_f32 v176, v192, v10, v177
  v_exp_f32 v178, v176
  v_fma_f32 v176, v193, v10, v177
  v_exp_f32 v179, v176
  v_fma_f32 v176, v194, v10, v177
  v_exp_f32 v182, v176
  v_fma_f32 v176, v195, v10, v177
  v_exp_f32 v183, v176
  v_fma_f32 v176, v196, v10, v177
  v_exp_f32 v184, v176
  v_fma_f32 v176, v197, v10, v177
  v_exp_f32 v185, v176
  v_fma_f32 v176, v198, v10, v177
  v_exp_f32 v186, v176
  v_fma_f32 v176, v199, v10, v177
  v_exp_f32 v187, v176
  v_fma_f32 v176, v200, v10, v177
  v_exp_f32 v188, v176
  v_fma_f32 v176, v201, v10, v177
  v_exp_f32 v189, v176
  v_fma_f32 v176, v202, v10, v177
  v_exp_f32 v190, v176
  v_fma_f32 v176, v203, v10, v177
  v_exp_f32 v191, v176
  v_fma_f32 v176, v204, v10, v177
  v_exp_f32 v192, v176
  v_fma_f32 v176, v205, v10, v177
  v_exp_f32 v193, v176
  v_fma_f32 v176, v9, v10, v177
  v_exp_f32 v9, v176
  v_mul_f32 v176, v8, v180
  v_add_f32 v177, v47, v176
  v_add_f32 v176, v178, v177
  v_add_f32 v177, v179, v176
  v_add_f32 v176, v182, v177
  v_add_f32 v177, v183, v176
  v_add_f32 v176, v184, v177
  v_add_f32 v177, v185, v176
  v_add_f32 v176, v186, v177
  v_add_f32 v177, v187, v176
  v_add_f32 v176, v188, v177
  v_add_f32 v177, v189, v176
  v_add_f32 v176, v190, v177
  v_add_f32 v177, v191, v176
  v_add_f32 v176, v192, v177
  v_add_f32 v177, v193, v176
  v_add_f32 v8, v9, v177
  v_mov_b32 v181, v180
  v_pk_mul_f32 v[112:113], v[180:181], v[112:113]
  v_pk_mul_f32 v[114:115], v[180:181], v[114:115]
  v_pk_mul_f32 v[116:117], v[180:181], v[116:117]
  v_pk_mul_f32 v[118:119], v[180:181], v[118:119]
  v_pk_mul_f32 v[120:121], v[180:181], v[120:121]
  v_pk_mul_f32 v[122:123], v[180:181], v[122:123]
  v_pk_mul_f32 v[124:125], v[180:181], v[124:125]
  v_pk_mul_f32 v[126:127], v[180:181], v[126:127]
  v_pk_mul_f32 v[128:129], v[180:181], v[128:129]
  v_pk_mul_f32 v[130:131], v[180:181], v[130:131]
  v_pk_mul_f32 v[132:133], v[180:181], v[132:133]
  v_pk_mul_f32 v[134:135], v[180:181], v[134:135]
  v_pk_mul_f32 v[136:137], v[180:181], v[136:137]
  v_pk_mul_f32 v[138:139], v[180:181], v[138:139]
  v_pk_mul_f32 v[140:141], v[180:181], v[140:141]
  v_pk_mul_f32 v[142:143], v[180:181], v[142:143]
  v_pk_mul_f32 v[144:145], v[180:181], v[144:145]
  v_pk_mul_f32 v[146:147], v[180:181], v[146:147]
  v_pk_mul_f32 v[148:149], v[180:181], v[148:149]
  v_pk_mul_f32 v[150:151], v[180:181], v[150:151]
  v_pk_mul_f32 v[152:153], v[180:181], v[152:153]
  v_pk_mul_f32 v[154:155], v[180:181], v[154:155]
  v_pk_mul_f32 v[156:157], v[180:181], v[156:157]
  v_pk_mul_f32 v[158:159], v[180:181], v[158:159]
  v_pk_mul_f32 v[160:161], v[180:181], v[160:161]
  v_pk_mul_f32 v[162:163], v[180:181], v[162:163]
  v_pk_mul_f32 v[164:165], v[180:181], v[164:165]
  v_pk_mul_f32 v[166:167], v[180:181], v[166:167]
  v_pk_mul_f32 v[168:169], v[180:181], v[168:169]
  v_pk_mul_f32 v[170:171], v[180:181], v[170:171]
  v_pk_mul_f32 v[172:173], v[180:181], v[172:173]
  v_pk_mul_f32 v[174:175], v[180:181], v[174:175]
  v_cvt_f16_f32 v176, v47
  v_cvt_f16_f32 v47, v178
  v_pack_b32_f16 v180, v176, v47
  v_cvt_f16_f32 v47, v179
  v_cvt_f16_f32 v176, v182
  v_pack_b32_f16 v181, v47, v176
  v_cvt_f16_f32 v47, v183
  v_cvt_f16_f32 v176, v184
  v_pack_b32_f16 v178, v47, v176
  v_cvt_f16_f32 v47, v185
  v_cvt_f16_f32 v176, v186
  v_pack_b32_f16 v179, v47, v176
  v_cvt_f16_f32 v47, v187
  v_cvt_f16_f32 v176, v188
  v_pack_b32_f16 v182, v47, v176
  v_cvt_f16_f32 v47, v189
  v_cvt_f16_f32 v176, v190
  v_pack_b32_f16 v183, v47, v176
  v_cvt_f16_f32 v47, v191
  v_cvt_f16_f32 v176, v192
  v_pack_b32_f16 v184, v47, v176
  v_cvt_f16_f32 v47, v193
  v_cvt_f16_f32 v176, v9
  v_pack_b32_f16 v185, v47, v176
  ds_read_b128 v[188:191], v4
  ds_read_b128 v[192:195], v4 offset:16
  ds_read_b128 v[196:199], v4 offset:2560
  ds_read_b128 v[200:203], v4 offset:2576
  ds_read_b128 v[204:207], v4 offset:5120
  ds_read_b128 v[208:211], v4 offset:5136
  ds_read_b128 v[212:215], v4 offset:7680
  ds_read_b128 v[216:219], v4 offset:7696
  s_waitcnt lgkmcnt(7)
  v_mfma_f32_32x32x8_f16 v[112:127], v[188:189], v[180:181], v[112:127]
  s_waitcnt lgkmcnt(5)
  v_mfma_f32_32x32x8_f16 v[128:143], v[196:197], v[180:181], v[128:143]
  s_waitcnt lgkmcnt(3)
  v_mfma_f32_32x32x8_f16 v[144:159], v[204:205], v[180:181], v[144:159]
  s_waitcnt lgkmcnt(1)
  v_mfma_f32_32x32x8_f16 v[160:175], v[212:213], v[180:181], v[160:175]
  v_mfma_f32_32x32x8_f16 v[112:127], v[190:191], v[178:179], v[112:127]
  v_mfma_f32_32x32x8_f16 v[128:143], v[198:199], v[178:179], v[128:143]
  v_mfma_f32_32x32x8_f16 v[144:159], v[206:207], v[178:179], v[144:159]
  v_mfma_f32_32x32x8_f16 v[160:175], v[214:215], v[178:179], v[160:175]
  v_mfma_f32_32x32x8_f16 v[112:127], v[192:193], v[182:183], v[112:127]
  v_mfma_f32_32x32x8_f16 v[128:143], v[200:201], v[182:183], v[128:143]
  v_mfma_f32_32x32x8_f16 v[144:159], v[208:209], v[182:183], v[144:159]
  s_waitcnt lgkmcnt(0)
  v_mfma_f32_32x32x8_f16 v[160:175], v[216:217], v[182:183], v[160:175]
  v_mfma_f32_32x32x8_f16 v[112:127], v[194:195], v[184:185], v[112:127]
  v_mfma_f32_32x32x8_f16 v[128:143], v[202:203], v[184:185], v[128:143]
  v_mfma_f32_32x32x8_f16 v[144:159], v[210:211], v[184:185], v[144:159]
  v_mfma_f32_32x32x8_f16 v[160:175], v[218:219], v[184:185], v[160:175]
  s_add_u32 s1, s1, 32
  s_setprio 0
  s_sub_u32 s0, s0, 1
  s_cmp_lg_u32 s0, 0
  s_cbranch_scc1 loop_kv
  ds_bpermute_b32 v1, v11, v8
  s_waitcnt lgkmcnt(0)
  v_add_f32 v4, v1, v8
  v_rcp_f32 v1, v4
  v_mov_b32 v5, 0x80000000
  v_lshlrev_b32 v8, 2, v2
  v_cmp_eq_u32 vcc, 0, v0
  v_log_f32 v0, v4
  s_nop 0
  v_cndmask_b32 v2, v5, v8, vcc
  v_cmp_lt_f32 vcc, 0, v4
  s_nop 1
  v_cndmask_b32 v4, 0, v1, vcc
  v_cmp_neq_f32 vcc, v3, v7
  s_nop 1
  v_cndmask_b32 v1, 0, v7, vcc
  v_mul_f32 v3, v4, v112
  v_mul_f32 v5, v4, v113
  v_mul_f32 v7, v4, v114
  v_mul_f32 v8, v4, v115
  v_mul_f32 v9, v4, v116
  v_mul_f32 v10, v4, v117
  v_mul_f32 v11, v4, v118
  v_mul_f32 v44, v4, v119
  v_mul_f32 v45, v4, v120
  v_mul_f32 v46, v4, v121
  v_mul_f32 v47, v4, v122
  v_mul_f32 v80, v4, v123
  v_mul_f32 v81, v4, v124
  v_mul_f32 v82, v4, v125
  v_mul_f32 v83, v4, v126
  v_mul_f32 v84, v4, v127
  v_mul_f32 v85, v4, v128
  v_mul_f32 v86, v4, v129
  v_mul_f32 v87, v4, v130
  v_mul_f32 v88, v4, v131
  v_mul_f32 v89, v4, v132
  v_mul_f32 v90, v4, v133
  v_mul_f32 v91, v4, v134
  v_mul_f32 v92, v4, v135
  v_mul_f32 v93, v4, v136
  v_mul_f32 v94, v4, v137
  v_mul_f32 v95, v4, v138
  v_mul_f32 v96, v4, v139
  v_mul_f32 v97, v4, v140
  v_mul_f32 v98, v4, v141
  v_mul_f32 v99, v4, v142
  v_mul_f32 v100, v4, v143
  v_mul_f32 v101, v4, v144
  v_mul_f32 v102, v4, v145
  v_mul_f32 v103, v4, v146
  v_mul_f32 v104, v4, v147
  v_mul_f32 v105, v4, v148
  v_mul_f32 v106, v4, v149
  v_mul_f32 v107, v4, v150
  v_mul_f32 v108, v4, v151
  v_mul_f32 v109, v4, v152
  v_mul_f32 v110, v4, v153
  v_mul_f32 v111, v4, v154
  v_mul_f32 v112, v4, v155
  v_mul_f32 v113, v4, v156
  v_mul_f32 v114, v4, v157
  v_mul_f32 v115, v4, v158
  v_mul_f32 v116, v4, v159
  v_mul_f32 v117, v4, v160
  v_mul_f32 v118, v4, v161
  v_mul_f32 v119, v4, v162
  v_mul_f32 v120, v4, v163
  v_mul_f32 v121, v4, v164
  v_mul_f32 v122, v4, v165
  v_mul_f32 v123, v4, v166
  v_mul_f32 v124, v4, v167
  v_mul_f32 v125, v4, v168
  v_mul_f32 v126, v4, v169
  v_mul_f32 v127, v4, v170
  v_mul_f32 v128, v4, v171
  v_mul_f32 v129, v4, v172
  v_mul_f32 v130, v4, v173
  v_mul_f32 v131, v4, v174
  v_mul_f32 v132, v4, v175
  v_add_f32 v4, v1, v0
  v_cvt_f16_f32 v0, v3
  v_cvt_f16_f32 v1, v5
  v_cvt_f16_f32 v3, v7
  v_cvt_f16_f32 v5, v8
  v_cvt_f16_f32 v7, v9
  v_cvt_f16_f32 v8, v10
  v_cvt_f16_f32 v9, v11
  v_cvt_f16_f32 v10, v44
  v_cvt_f16_f32 v11, v45
  v_cvt_f16_f32 v44, v46
  v_cvt_f16_f32 v45, v47
  v_cvt_f16_f32 v46, v80
  v_cvt_f16_f32 v47, v81
  v_cvt_f16_f32 v80, v82
  v_cvt_f16_f32 v81, v83
  v_cvt_f16_f32 v82, v84
  v_cvt_f16_f32 v83, v85
  v_cvt_f16_f32 v84, v86
  v_cvt_f16_f32 v85, v87
  v_cvt_f16_f32 v86, v88
  v_cvt_f16_f32 v87, v89
  v_cvt_f16_f32 v88, v90
  v_cvt_f16_f32 v89, v91
  v_cvt_f16_f32 v90, v92
  v_cvt_f16_f32 v91, v93
  v_cvt_f16_f32 v92, v94
  v_cvt_f16_f32 v93, v95
  v_cvt_f16_f32 v94, v96
  v_cvt_f16_f32 v95, v97
  v_cvt_f16_f32 v96, v98
  v_cvt_f16_f32 v97, v99
  v_cvt_f16_f32 v98, v100
  v_cvt_f16_f32 v99, v101
  v_cvt_f16_f32 v100, v102
  v_cvt_f16_f32 v101, v103
  v_cvt_f16_f32 v102, v104
  v_cvt_f16_f32 v103, v105
  v_cvt_f16_f32 v104, v106
  v_cvt_f16_f32 v105, v107
  v_cvt_f16_f32 v106, v108
  v_cvt_f16_f32 v107, v109
  v_cvt_f16_f32 v108, v110
  v_cvt_f16_f32 v109, v111
  v_cvt_f16_f32 v110, v112
  v_cvt_f16_f32 v111, v113
  v_cvt_f16_f32 v112, v114
  v_cvt_f16_f32 v113, v115
  v_cvt_f16_f32 v114, v116
  v_cvt_f16_f32 v115, v117
  v_cvt_f16_f32 v116, v118
  v_cvt_f16_f32 v117, v119
  v_cvt_f16_f32 v118, v120
  v_cvt_f16_f32 v119, v121
  v_cvt_f16_f32 v120, v122
  v_cvt_f16_f32 v121, v123
  v_cvt_f16_f32 v122, v124
  v_cvt_f16_f32 v123, v125
  v_cvt_f16_f32 v124, v126
  v_cvt_f16_f32 v125, v127
  v_cvt_f16_f32 v126, v128
  v_cvt_f16_f32 v127, v129
  v_cvt_f16_f32 v128, v130
  v_cvt_f16_f32 v129, v131
  v_cvt_f16_f32 v130, v132
  v_mul_f32 v131, 0x3f317218, v4
  v_pack_b32_f16 v132, v0, v1
  v_pack_b32_f16 v133, v3, v5
  v_pack_b32_f16 v0, v7, v8
  v_pack_b32_f16 v1, v9, v10
  v_pack_b32_f16 v4, v11, v44
  v_pack_b32_f16 v5, v45, v46
  v_pack_b32_f16 v8, v47, v80
  v_pack_b32_f16 v9, v81, v82
  v_pack_b32_f16 v10, v83, v84
  v_pack_b32_f16 v11, v85, v86
  v_pack_b32_f16 v44, v87, v88
  v_pack_b32_f16 v45, v89, v90
  v_pack_b32_f16 v46, v91, v92
  v_pack_b32_f16 v47, v93, v94
  v_pack_b32_f16 v80, v95, v96
  v_pack_b32_f16 v81, v97, v98
  v_pack_b32_f16 v82, v99, v100
  v_pack_b32_f16 v83, v101, v102
  v_pack_b32_f16 v84, v103, v104
  v_pack_b32_f16 v85, v105, v106
  v_pack_b32_f16 v86, v107, v108
  v_pack_b32_f16 v87, v109, v110
  v_pack_b32_f16 v88, v111, v112
  v_pack_b32_f16 v89, v113, v114
  v_pack_b32_f16 v90, v115, v116
  v_pack_b32_f16 v91, v117, v118
  v_pack_b32_f16 v92, v119, v120
  v_pack_b32_f16 v93, v121, v122
  v_pack_b32_f16 v94, v123, v124
  v_pack_b32_f16 v95, v125, v126
  v_pack_b32_f16 v96, v127, v128
  v_pack_b32_f16 v97, v129, v130
  buffer_store_dword v131, v2, s[20:23], 0 offen
  buffer_store_dwordx2 v[132:133], v6, s[16:19], 0 offen
  buffer_store_dwordx2 v[0:1], v6, s[16:19], 0 offen offset:16
  buffer_store_dwordx2 v[4:5], v6, s[16:19], 0 offen offset:32
  buffer_store_dwordx2 v[8:9], v6, s[16:19], 0 offen offset:48
  buffer_store_dwordx2 v[10:11], v6, s[16:19], 0 offen offset:64
  buffer_store_dwordx2 v[44:45], v6, s[16:19], 0 offen offset:80
  buffer_store_dwordx2 v[46:47], v6, s[16:19], 0 offen offset:96
  buffer_store_dwordx2 v[80:81], v6, s[16:19], 0 offen offset:112
  buffer_store_dwordx2 v[82:83], v6, s[16:19], 0 offen offset:128
  buffer_store_dwordx2 v[84:85], v6, s[16:19], 0 offen offset:144
  buffer_store_dwordx2 v[86:87], v6, s[16:19], 0 offen offset:160
  buffer_store_dwordx2 v[88:89], v6, s[16:19], 0 offen offset:176
  buffer_store_dwordx2 v[90:91], v6, s[16:19], 0 offen offset:192
  buffer_store_dwordx2 v[92:93], v6, s[16:19], 0 offen offset:208
  buffer_store_dwordx2 v[94:95], v6, s[16:19], 0 offen offset:224
  buffer_store_dwordx2 v[96:97], v6, s[16:19], 0 offen offset:240
  s_endpgm
.Lattn_fwd_gfx942_f16_d128_k8_causal_g2_attn_basic_end:
.size attn_fwd_gfx942_f16_d128_k8_causal_g2_attn_basic, .Lattn_fwd_gfx942_f16_d128_k8_causal_g2_attn_basic_end-attn_fwd_gfx942_f16_d128_k8_causal_g2_attn_basic
.rodata
.p2align 6
.amdhsa_kernel attn_fwd_gfx942_f16_d128_k8_causal_g2_attn_basic
  .amdhsa_group_segment_fixed_size 10240
  .amdhsa_private_segment_fixed_size 0
  .amdhsa_kernarg_size 64
  .amdhsa_user_sgpr_count 2
  .amdhsa_user_sgpr_dispatch_ptr 0
  .amdhsa_user_sgpr_queue_ptr 0
  .amdhsa_user_sgpr_kernarg_segment_ptr 1
  .amdhsa_user_sgpr_dispatch_id 0
  .amdhsa_user_sgpr_private_segment_size 0
  .amdhsa_system_sgpr_workgroup_id_x 1
  .amdhsa_system_sgpr_workgroup_id_y 1
  .amdhsa_system_sgpr_workgroup_id_z 1
  .amdhsa_system_sgpr_workgroup_info 0
  .amdhsa_system_vgpr_workitem_id 0
  .amdhsa_next_free_vgpr 220
  .amdhsa_next_free_sgpr 32
  .amdhsa_accum_offset 220
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
  - .name: attn_fwd_gfx942_f16_d128_k8_causal_g2_attn_basic
    .symbol: attn_fwd_gfx942_f16_d128_k8_causal_g2_attn_basic.kd
    .args:
      - .name: Q
        .offset: 0
        .size: 8
        .value_kind: global_buffer
        .address_space: global
        .actual_access: read_only
      - .name: K
        .offset: 8
        .size: 8
        .value_kind: global_buffer
        .address_space: global
        .actual_access: read_only
      - .name: V
        .offset: 16
        .size: 8
        .value_kind: global_buffer
        .address_space: global
        .actual_access: read_only
      - .name: O
        .offset: 24
        .size: 8
        .value_kind: global_buffer
        .address_space: global
        .actual_access: write_only
      - .name: LSE
        .offset: 32
        .size: 8
        .value_kind: global_buffer
        .address_space: global
        .actual_access: write_only
      - .name: batch
        .offset: 40
        .size: 4
        .value_kind: by_value
      - .name: heads
        .offset: 44
        .size: 4
        .value_kind: by_value
      - .name: kv_heads
        .offset: 48
        .size: 4
        .value_kind: by_value
      - .name: seqlen_q
        .offset: 52
        .size: 4
        .value_kind: by_value
      - .name: seqlen_k
        .offset: 56
        .size: 4
        .value_kind: by_value
      - .name: scale
        .offset: 60
        .size: 4
        .value_kind: by_value
    .kernarg_segment_size: 64
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 10240
    .private_segment_fixed_size: 0
    .wavefront_size: 64
    .sgpr_count: 38
    .vgpr_count: 220
    .agpr_count: 0
    .max_flat_workgroup_size: 64
...
.end_amdgpu_metadata
