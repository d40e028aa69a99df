// gfx950-only instruction forms (decoder test vs llvm-objdump-22 --mcpu=gfx950).
.text
  v_permlane16_swap_b32 v1, v2
  v_permlane32_swap_b32 v1, v2
  v_permlane32_swap_b32_e64 v1, v2 bound_ctrl:1 fi:1
  ds_read_b64_tr_b16 v[0:1], v2
  ds_read_b64_tr_b8 v[0:1], v2 offset:8
  ds_read_b64_tr_b4 v[0:1], v2
  ds_read_b96_tr_b6 v[0:2], v4
  buffer_load_dwordx4 v2, s[4:7], 0 offen lds
  buffer_load_dwordx3 off, s[4:7], s1 lds
  global_load_lds_dwordx4 v[2:3], off
  global_load_lds_dwordx3 v2, s[4:5] offset:16
  v_cvt_pk_bf16_f32 v1, v2, v3
  v_cvt_scalef32_pk_f32_fp8 v[0:1], v2, v3
  v_cvt_scalef32_f32_fp8 v1, v2, v3
  v_cvt_scalef32_pk_fp8_f32 v1, v2, v3, v4
  v_bitop3_b32 v1, v2, v3, v4 bitop3:0x4f
  v_prng_b32 v1, v2
  v_mfma_f32_32x32x16_f16 a[0:15], v[0:3], v[4:7], a[0:15]
  v_mfma_f32_16x16x32_f16 a[0:3], v[0:3], v[4:7], a[0:3]
  v_mfma_f32_32x32x16_bf16 v[0:15], v[16:19], v[20:23], v[0:15]
  v_mfma_f32_16x16x32_bf16 a[0:3], v[0:3], v[4:7], a[0:3]
  v_mfma_i32_32x32x32_i8 a[0:15], v[0:3], v[4:7], a[0:15]
  v_mfma_i32_16x16x64_i8 a[0:3], v[0:3], v[4:7], a[0:3]
  v_mfma_f32_16x16x128_f8f6f4 a[0:3], v[0:7], v[8:15], a[0:3]
  v_mfma_f32_16x16x128_f8f6f4 a[0:3], v[0:3], v[8:11], a[0:3] cbsz:4 blgp:4
  v_mfma_f32_32x32x64_f8f6f4 a[0:15], v[0:5], v[8:15], a[0:15] cbsz:2
  v_mfma_f32_32x32x8_f16 a[0:15], v[0:1], v[2:3], a[0:15]
  v_dot2_f32_bf16 v1, v2, v3, v4
  s_endpgm
  v_mfma_scale_f32_16x16x128_f8f6f4 a[0:3], v[0:7], v[8:15], a[0:3], v16, v17 op_sel:[1,0,0] op_sel_hi:[0,1,0]
  v_mfma_scale_f32_16x16x128_f8f6f4 a[0:3], v[0:7], v[8:15], a[0:3], v16, v17
  v_mfma_scale_f32_32x32x64_f8f6f4 v[0:15], v[16:23], v[24:29], v[0:15], v16, v17 cbsz:1 blgp:2
  v_mfma_ld_scale_b32 v16, v17 op_sel_hi:[0,1]
  s_nop 0
