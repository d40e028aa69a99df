#pragma OPENCL EXTENSION cl_khr_fp16 : enable
#define GID() (__builtin_amdgcn_workgroup_id_x() * 256 + __builtin_amdgcn_workitem_id_x())
__kernel void vadd(__global const float* a, __global const float* b, __global float* c, int n) {
  int i = GID(); if (i < n) c[i] = a[i] + b[i];
}
__kernel void reduce(__global const float* a, __global float* out, __local float* tmp, int n) {
  int l = __builtin_amdgcn_workitem_id_x(); int g = GID();
  tmp[l] = g < n ? a[g] : 0.0f;
  __builtin_amdgcn_s_barrier();
  for (int s = 128; s > 0; s >>= 1) { if (l < s) tmp[l] += tmp[l+s]; __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup"); __builtin_amdgcn_s_barrier(); __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup"); }
  if (l == 0) out[__builtin_amdgcn_workgroup_id_x()] = tmp[0];
}
__kernel void math(__global float* a, __global int* b, __global half* h, __global double* d, __global uint* u) {
  int i = GID();
  float x = a[i];
  a[i] = __builtin_expf(x) + __builtin_logf(x) + __builtin_sqrtf(x) + x / a[i+1] + __builtin_fminf(x, 1.0f) + __builtin_floorf(x) + __builtin_fmaf(x, x, 2.0f) + __builtin_ldexpf(x, b[i]) + __builtin_exp2f(x*0.3f) + __builtin_log2f(x+1.0f) + __builtin_truncf(x) + __builtin_rintf(x)+ __builtin_copysignf(x, a[i+4]);
  b[i] = b[i] / b[i+1] + b[i] % 7 + (int)x + __builtin_abs(b[i]) + __builtin_clz(b[i]) + __builtin_popcount(b[i]) + (int)(((long)b[i] * b[i+2]) >> 32) + __builtin_ctz(b[i+3]);
  h[i] = h[i] * h[i+1] + (half)x;
  d[i] = d[i] * d[i+1] + __builtin_sqrt(d[i]) + d[i] / d[i+2];
  u[i] = u[i] / u[i+1] + (u[i] >> 3) + (ulong)u[i] * u[i+2] / 3;
  __opencl_atomic_fetch_add((volatile __global atomic_int*)&b[0], 1, memory_order_relaxed, memory_scope_device);
  __opencl_atomic_fetch_max((volatile __global atomic_uint*)&u[1], u[i], memory_order_relaxed, memory_scope_device);
  int old = __opencl_atomic_fetch_add((volatile __global atomic_int*)&b[2], 5, memory_order_seq_cst, memory_scope_device);
  b[i+5] = old;
}
__kernel void shuf(__global const uchar* c, __global ushort* s, __global long* l, __global float4* f4, __global char* ch, __global int* q) {
  int i = GID();
  s[i] = c[i] + c[i+1] * 3 + s[i+2];
  l[i] = l[i] * l[i+1] + (l[i] >> 5) + (l[i] / 10);
  f4[i] = f4[i] * f4[i+1] + (float4)(1.0f, 2.0f, 3.0f, 4.0f);
  ch[i] = ch[i] > 0 ? ch[i] : -ch[i];
  int v = q[i];
  q[i] = __builtin_amdgcn_ds_bpermute(((i+1)&63)*4, v) + __builtin_amdgcn_readfirstlane(v) + __builtin_amdgcn_mov_dpp(v, 0x111, 0xf, 0xf, 0) + __builtin_amdgcn_ds_swizzle(v, 0x401f) + __builtin_amdgcn_readlane(v, 3);
  q[i+64] = __builtin_amdgcn_mbcnt_hi(~0u, __builtin_amdgcn_mbcnt_lo(~0u, 0u));
}
__kernel void priv(__global int* q, int n) {
  int arr[64];
  int i = GID();
  for (int k = 0; k < 64; k++) arr[k] = q[k*n + i];
  q[i] = arr[q[i] & 63] + arr[(q[i] >> 6) & 63];
}
__kernel void lds2(__global float2* a, __local float2* t, __global half2* h2) {
  int l = __builtin_amdgcn_workitem_id_x();
  t[l] = a[l]; __builtin_amdgcn_s_barrier();
  a[l] = t[l ^ 1] + t[(l + 7) & 255];
  h2[l] = h2[l] * h2[l+1] + h2[l+2];
}
