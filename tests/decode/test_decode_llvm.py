"""Decoder vs llvm-objdump-22 on hand-written instruction forms and on clang-compiled OpenCL
kernels (gfx942 and gfx950), the round trip decode -> isa.asm_format text -> llvm-mc -> same
bytes, plus the decoder's error, label and table contracts."""
from __future__ import annotations

import struct
from pathlib import Path

import pytest
from decode_llvm_util import (
    assemble,
    compare,
    compile_cl,
    elf_text,
    have_llvm,
    objdump,
    reassemble_mismatches,
)

from isa.decode import decode, label_index, label_name, mnemonics, opcode_table, waitcnt_fields
from isa.errors import DecodeError
from isa.operands import Imm, Label, Reg, Special

DATA = Path(__file__).parent / "data"
ARCHES = ("gfx942", "gfx950")
needs_llvm = pytest.mark.skipif(not have_llvm(), reason="LLVM 22 tools not installed")

KERNELS = r"""
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
typedef half half4v __attribute__((ext_vector_type(4)));
typedef float float4v __attribute__((ext_vector_type(4)));
#define TID __builtin_amdgcn_workitem_id_x()
#define GID __builtin_amdgcn_workgroup_id_x()

__kernel void vadd(__global float* c, __global const float* a, __global const float* b, int n) {
  int i = GID * 256 + TID;
  if (i < n) c[i] = a[i] + b[i];
}

__kernel void lds_reduce(__global float* out, __global const float* in) {
  __local float buf[256];
  unsigned t = TID;
  buf[t] = in[GID * 256 + t];
  __builtin_amdgcn_s_barrier();
  for (unsigned s = 128; s > 0; s >>= 1) {
    if (t < s) buf[t] += buf[t + s];
    __builtin_amdgcn_s_barrier();
  }
  if (t == 0) out[GID] = buf[0];
}

__kernel void matmul(__global float* C, __global const float* A, __global const float* B, int N) {
  __local float As[16][17];
  __local float Bs[16][17];
  int tx = TID % 16, ty = TID / 16;
  int row = (GID / (N / 16)) * 16 + ty, col = (GID % (N / 16)) * 16 + tx;
  float acc = 0.0f;
  for (int k0 = 0; k0 < N; k0 += 16) {
    As[ty][tx] = A[row * N + k0 + tx];
    Bs[ty][tx] = B[(k0 + ty) * N + col];
    __builtin_amdgcn_s_barrier();
    for (int k = 0; k < 16; k++) acc = fma(As[ty][k], Bs[k][tx], acc);
    __builtin_amdgcn_s_barrier();
  }
  C[row * N + col] = acc;
}

__kernel void softish(__global float* y, __global const float* x, int n, float scale) {
  int i = GID * 64 + TID;
  float m = -1e30f, s = 0.0f;
  for (int j = 0; j < n; j++) {
    float v = x[i * n + j] * scale;
    float mn = fmax(m, v);
    s = s * __builtin_amdgcn_exp2f((m - mn) * 1.442695f)
        + __builtin_amdgcn_exp2f((v - mn) * 1.442695f);
    m = mn;
  }
  y[i] = m + __builtin_amdgcn_logf(s) * 0.6931472f + __builtin_amdgcn_rsqf(s) + sqrt(s);
}

__kernel void ints(__global int* y, __global const int* x, __global uint* cnt, int d, long big) {
  int i = GID * 64 + TID;
  int v = x[i];
  y[i] = v / d + (v % 7) + (int)(big >> (v & 31)) + __builtin_popcount(v)
         + (int)(((ulong)v * (ulong)big) >> 33);
  if (v > 100) atomic_add(cnt, 1u);
  double dd = (double)v * 1.5 + (double)d;
  y[i + 64] = (int)dd + (int)(half)(float)v;
}

__kernel void mfma(__global float4v* out, __global const half4v* a, __global const half4v* b) {
  int t = TID;
  float4v acc = 0;
  for (int k = 0; k < 4; k++)
    acc = __builtin_amdgcn_mfma_f32_16x16x16f16(a[t + 64 * k], b[t + 64 * k], acc, 0, 0, 0);
  out[t] = acc;
}

__kernel void bytes(__global uchar* y, __global const ushort* x, __global const char* z) {
  int i = GID * 64 + TID;
  y[i] = (uchar)(x[i] >> 3) + z[i];
  y[i + 1000] = __builtin_amdgcn_readfirstlane(i)
                + __builtin_amdgcn_mbcnt_hi(~0u, __builtin_amdgcn_mbcnt_lo(~0u, 0u));
}
"""


def _check(obj: bytes, arch: str, min_count: int) -> list:
    code = elf_text(obj)
    decoded = decode(code, arch)
    assert sum(d.size for d in decoded) == len(code)
    rows = objdump(obj, arch)
    bad = compare(decoded, rows)
    assert not bad, f"{len(bad)} mismatches:\n" + "\n".join(bad[:40])
    assert len(decoded) >= min_count
    # Our Instr, printed by isa.asm_format, must assemble back to the very same words.
    bad = reassemble_mismatches(decoded, arch)
    assert not bad, f"{len(bad)} round-trip failures:\n" + "\n".join(bad[:40])
    return decoded


@needs_llvm
@pytest.mark.parametrize("arch", ARCHES)
def test_instruction_forms_match_llvm_objdump(arch):
    src = (DATA / "forms_common.s").read_text()
    if arch == "gfx950":
        src += (DATA / "forms_gfx950.s").read_text()
    decoded = _check(assemble(src, arch), arch, 390)
    ops = {d.instr.op for d in decoded}
    assert {"v_mfma_f32_32x32x8_f16", "buffer_load_dword", "ds_read2_b32", "s_waitcnt"} <= ops
    if arch == "gfx950":
        assert {"v_permlane32_swap_b32", "ds_read_b64_tr_b16",
                "v_mfma_scale_f32_16x16x128_f8f6f4"} <= ops


@needs_llvm
@pytest.mark.parametrize("arch", ARCHES)
def test_compiled_opencl_kernels_match_llvm_objdump(arch):
    decoded = _check(compile_cl(KERNELS, arch), arch, 500)
    ops = {d.instr.op for d in decoded}
    assert {"ds_write_b32", "s_barrier", "v_exp_f32", "v_mfma_f32_16x16x16_f16",
            "s_cbranch_scc1", "global_load_dword"} <= ops
    labels = label_index(decoded)
    assert labels, "kernels with loops have branch targets"
    for d in decoded:
        for o in d.instr.operands:
            if isinstance(o, Label):
                assert decoded[labels[o.name]].offset == int(o.name.removeprefix("L_"), 0)


def test_operands_and_modifiers_as_data():
    # v_add_f32_e64 v1, -|v2|, v3 clamp mul:2 ; v_mad_u64_u32 v[0:1], s[2:3], v4, v5, v[6:7]
    code = bytes.fromhex("018101d102070228") + \
        bytes.fromhex("0002e8d1040b1a04")
    d0, d1 = decode(code, "gfx942")
    assert d0.instr.op == "v_add_f32" and d0.instr.encoding == "e64" and d0.size == 8
    assert d0.instr.operands == (Reg("v", 1), Reg("v", 2), Reg("v", 3))
    assert d0.instr.mod("neg") == (1,) and d0.instr.mod("abs") == (1,)
    assert d0.instr.has("clamp") and d0.instr.mod("mul") == 2 and d0.srcs == (1, 2)
    assert d1.instr.operands == (Reg("v", 0, 2), Reg("s", 2, 2), Reg("v", 4), Reg("v", 5),
                                 Reg("v", 6, 2))
    assert d1.offset == 8 and d1.instr.encoding == ""


def test_literal_and_specials():
    # v_mov_b32_e32 v1, 0x3f800001 ; s_mov_b64 exec, vcc ; s_add_u32 s0, s0, lit(0x0)
    code = struct.pack("<8I", 0x7E0202FF, 0x3F800001, 0xBEFE016A, 0x8000FF00, 0, 0xBF8CC07F,
                       0xBF800000, 0xBF810000)
    ds = decode(code, "gfx942")
    assert [d.size for d in ds] == [8, 4, 8, 4, 4, 4]
    assert ds[0].instr.operands[1] == Imm(0x3F800001)
    assert ds[1].instr.operands == (Special("exec"), Special("vcc"))
    assert ds[2].instr.operands[2] == Imm(0) and ds[2].instr.mod("lit") == (2,)
    assert ds[3].instr.operands == (Imm(0xC07F),)
    assert waitcnt_fields(0xC07F) == {"vmcnt": 63, "expcnt": 7, "lgkmcnt": 0}
    assert waitcnt_fields(0x0F70) == {"vmcnt": 0, "expcnt": 7, "lgkmcnt": 15}


def test_branch_labels_name_byte_offsets():
    # 0: s_nop 0 ; 4: s_cbranch_scc0 -2 (-> 0) ; 8: s_branch 0 (-> 0xc) ; 0xc: s_endpgm
    code = struct.pack("<4I", 0xBF800000, 0xBF84FFFE, 0xBF820000, 0xBF810000)
    ds = decode(code, "gfx942")
    assert ds[1].instr.operands == (Label("L_0x0"),) and ds[2].instr.operands == (Label("L_0xc"),)
    assert label_index(ds) == {"L_0x0": 0, "L_0xc": 3}
    assert label_name(0x40) == "L_0x40"
    with pytest.raises(DecodeError, match="0x10"):
        label_index(decode(struct.pack("<I", 0xBF820003), "gfx942"))


@pytest.mark.parametrize("words, where, what", [
    ([0xBF800000, 0xFFFFFFFF], "0x4", "0xffffffff"),          # no known format
    ([0xBF800000, 0xBF800000, 0xF0000000, 0], "0x8", "0xf0000000"),  # MIMG: not decoded
    ([0xBF800000, 0x7E00FE00], "0x4", "0x7e00fe00"),          # VOP1 opcode 127: none on gfx942
    ([0xD1010000], "0x0", "0xd1010000"),                      # 8-byte VOP3 cut after 4 bytes
    ([0x7E0202FF], "0x0", "0x7e0202ff"),                      # literal missing at the end
])
def test_unknown_encoding_names_offset_and_word(words, where, what):
    with pytest.raises(DecodeError) as exc:
        decode(struct.pack(f"<{len(words)}I", *words), "gfx942")
    msg = str(exc.value)
    assert f"byte offset {where}" in msg and what in msg


def test_trailing_bytes_and_bad_arch():
    with pytest.raises(DecodeError, match="trailing"):
        decode(b"\x00\x00\x80\xbf\x00", "gfx942")
    with pytest.raises(Exception, match="gfx90a"):
        decode(b"", "gfx90a")


def test_tables_cover_both_arches():
    for arch in ARCHES:
        names = mnemonics(arch)
        assert len(opcode_table(arch)) > 2000 and len(names) > 1000
        assert {"v_mfma_f32_32x32x8_f16", "global_load_dword", "s_waitcnt", "ds_bpermute_b32",
                "buffer_load_dwordx4", "v_pk_fma_f32", "v_accvgpr_read_b32"} <= names
    assert "v_permlane32_swap_b32" in mnemonics("gfx950")
    assert "v_permlane32_swap_b32" not in mnemonics("gfx942")
    assert "v_mfma_f32_32x32x4_xf32" in mnemonics("gfx942")
    assert "v_mfma_f32_32x32x4_xf32" not in mnemonics("gfx950")


# Spec mnemonics the decoder cannot produce as a single table entry, with the reason.
SPEC_NOT_IN_TABLE = {
    # gfx950: a v_mfma_ld_scale_b32 + f8f6f4 MFMA pair, fused by decode() (see _fuse_scale)
    "v_mfma_scale_f32_16x16x128_f8f6f4", "v_mfma_scale_f32_32x32x64_f8f6f4",
}


@pytest.mark.parametrize("arch", ARCHES)
def test_every_spec_mnemonic_decodes(arch):
    from isa import tables
    spec = tables.spec_table(arch)
    names = mnemonics(arch)
    missing = sorted({k.split()[0] for k in spec} - names - SPEC_NOT_IN_TABLE)
    assert not missing, f"spec mnemonics the decoder does not know on {arch}: {missing}"
    # Where the spec records an opcode, our table has that mnemonic at that opcode.
    by_name: dict[str, set[int]] = {}
    for (fmt, op, _), e in opcode_table(arch).items():
        by_name.setdefault(e["name"], set()).add(op)
    checked = 0
    for s in spec.values():
        for a, opc in s.opcode:
            if a == arch and s.name in by_name:
                checked += 1
                assert opc in by_name[s.name], f"{s.name}: spec opcode {opc}, table {by_name[s.name]}"
    assert checked > 0 or not any(s.opcode for s in spec.values())
