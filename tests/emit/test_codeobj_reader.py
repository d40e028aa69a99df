"""isa.codeobj and isa.msgpack_lite: ELF parsing, kernel descriptor bits, metadata note, errors."""
import shutil
import struct
import subprocess

import pytest

from isa.codeobj import CodeObject, KernelDescriptor
from isa.errors import CodeObjectError
from isa.msgpack_lite import unpackb


# --- msgpack -----------------------------------------------------------------------------------
@pytest.mark.parametrize("data,value", [
    (b"\x00", 0), (b"\x7f", 127), (b"\xff", -1), (b"\xe0", -32),
    (b"\xcc\xc8", 200), (b"\xcd\x01\x00", 256), (b"\xce\x00\x01\x00\x00", 65536),
    (b"\xcf" + (1 << 40).to_bytes(8, "big"), 1 << 40),
    (b"\xd0\x80", -128), (b"\xd1\xff\x00", -256), (b"\xd2\xff\xff\xff\xfe", -2),
    (b"\xd3" + (-(1 << 40)).to_bytes(8, "big", signed=True), -(1 << 40)),
    (b"\xc0", None), (b"\xc2", False), (b"\xc3", True),
    (b"\xca" + struct.pack(">f", 1.5), 1.5), (b"\xcb" + struct.pack(">d", -2.25), -2.25),
    (b"\xa3abc", "abc"), (b"\xd9\x03xyz", "xyz"), (b"\xda\x00\x01q", "q"),
    (b"\xc4\x02\x01\x02", b"\x01\x02"),
    (b"\x93\x01\xa1a\xc0", [1, "a", None]),
    (b"\xdc\x00\x02\x01\x02", [1, 2]),
    (b"\x82\xa1a\x01\xa1b\x92\x02\x03", {"a": 1, "b": [2, 3]}),
    (b"\xde\x00\x01\xa1k\xc3", {"k": True}),
    (b"\xd4\x05\x09", (5, b"\x09")),
])
def test_msgpack_values(data, value):
    assert unpackb(data) == value


@pytest.mark.parametrize("data", [b"", b"\xcd\x01", b"\xa3ab", b"\x92\x01", b"\xc1", b"\x01\x02"])
def test_msgpack_malformed(data):
    with pytest.raises(CodeObjectError):
        unpackb(data)


# --- descriptor bits ---------------------------------------------------------------------------
def _kd(rsrc1=0, rsrc2=0, rsrc3=0, kcp=0, preload=0, group=0, private=0, kernarg=0, entry=0):
    return struct.pack("<IIIIq20sIIIHHI", group, private, kernarg, 0, entry, b"\0" * 20, rsrc3, rsrc1,
                       rsrc2, kcp, preload, 0)


def test_descriptor_fields_decode():
    rsrc1 = 5 | (3 << 6) | (3 << 16) | (2 << 18) | (1 << 21) | (1 << 23)
    rsrc2 = 1 | (9 << 1) | (1 << 7) | (1 << 9) | (2 << 11) | (7 << 15)
    rsrc3 = 15 | (1 << 16)
    kcp = (1 << 1) | (1 << 3) | (1 << 11)
    preload = 3 | (5 << 7)
    d = KernelDescriptor.decode(_kd(rsrc1, rsrc2, rsrc3, kcp, preload, 1024, 16, 28, -256), "gfx942")
    assert (d.group_segment_fixed_size, d.private_segment_fixed_size, d.kernarg_size) == (1024, 16, 28)
    assert d.kernel_code_entry_byte_offset == -256
    assert d.granulated_workitem_vgpr_count == 5 and d.granulated_wavefront_sgpr_count == 3
    assert d.float_denorm_mode_32 == 3 and d.float_denorm_mode_16_64 == 2
    assert d.enable_dx10_clamp and d.enable_ieee_mode and not d.fp16_ovfl
    assert d.enable_private_segment and d.user_sgpr_count == 9
    assert d.enable_sgpr_workgroup_id == (True, False, True)
    assert d.enable_vgpr_workitem_id == 2 and d.granulated_lds_size == 7
    assert d.accum_offset == 64 and d.tg_split
    assert d.enable_sgpr_dispatch_ptr and d.enable_sgpr_kernarg_segment_ptr and d.uses_dynamic_stack
    assert not d.enable_sgpr_queue_ptr and not d.enable_sgpr_private_segment_buffer
    assert d.kernarg_preload_spec_length == 3 and d.kernarg_preload_spec_offset == 5
    assert d.vgpr_alloc == 48 and d.arch_vgpr_budget == 48 and d.agpr_budget == 0
    assert d.sgpr_alloc == 32
    assert d.user_sgpr_layout() == {"dispatch_ptr": 0, "kernarg_segment_ptr": 2, "kernarg_preload": 4}
    assert d.system_sgpr_layout() == {"workgroup_id_x": 9, "workgroup_id_z": 10}


def test_descriptor_agpr_budget_and_pre_gfx90a():
    d = KernelDescriptor.decode(_kd(rsrc1=31, rsrc3=(128 // 4) - 1), "gfx950")
    assert d.vgpr_alloc == 256 and d.accum_offset == 128
    # unified file: the ArchVGPR budget is the whole allocation, accum_offset places a0 (gfx90a+)
    assert d.arch_vgpr_budget == 256 and d.agpr_budget == 128
    old = KernelDescriptor.decode(_kd(rsrc1=3, rsrc3=7), "gfx906")
    assert old.accum_offset is None and old.vgpr_alloc == 16 and old.agpr_budget == 0


def test_descriptor_wrong_size():
    with pytest.raises(CodeObjectError, match="64 bytes"):
        KernelDescriptor.decode(b"\0" * 63, "gfx942")


# --- ELF errors --------------------------------------------------------------------------------
def test_not_elf():
    with pytest.raises(CodeObjectError, match="not an ELF"):
        CodeObject.from_bytes(b"hello world" * 10)


def test_wrong_machine():
    hdr = bytearray(b"\x7fELF\x02\x01\x01" + b"\0" * 57)
    struct.pack_into("<H", hdr, 18, 62)   # EM_X86_64
    with pytest.raises(CodeObjectError, match="EM_AMDGPU"):
        CodeObject.from_bytes(bytes(hdr))


def test_truncated_file(toolchain):
    from asmgen.emit import emit_kernel
    from asmgen.program import KernelResources
    from isa.instr import Instr
    res = KernelResources("t", "gfx942", vgprs=1, sgprs=3)
    hsaco = toolchain.assemble(emit_kernel([Instr("s_endpgm")], res), "gfx942")
    CodeObject.from_bytes(hsaco)
    with pytest.raises(CodeObjectError):
        CodeObject.from_bytes(hsaco[: len(hsaco) // 2])


def test_kernel_lookup_errors(toolchain):
    from asmgen.emit import emit_kernel
    from asmgen.program import KernelResources
    from isa.instr import Instr
    res = KernelResources("only", "gfx942", vgprs=1, sgprs=3)
    co = CodeObject.from_bytes(toolchain.assemble(emit_kernel([Instr("s_endpgm")], res), "gfx942"))
    assert co.kernel().name == "only"
    with pytest.raises(CodeObjectError, match="no kernel 'other'"):
        co.kernel("other")


# --- a code object LLVM compiled (not ours) ------------------------------------------------------
CL_SOURCE = """
kernel void axpy(global float* y, global const float* x, float a, int n) {
  int i = __builtin_amdgcn_workgroup_id_x() * 64 + __builtin_amdgcn_workitem_id_x();
  if (i < n) y[i] += a * x[i];
}
kernel void fill(global int* p) { p[__builtin_amdgcn_workitem_id_x()] = 7; }
"""


def test_reads_clang_compiled_opencl(tmp_path):
    clang, lld = shutil.which("clang-22"), shutil.which("ld.lld-22")
    if clang is None or lld is None:
        pytest.skip("clang-22 / ld.lld-22 not installed")
    src = tmp_path / "k.cl"
    src.write_text(CL_SOURCE)
    subprocess.run([clang, "-x", "cl", "-cl-std=CL2.0", "-target", "amdgcn-amd-amdhsa", "-mcpu=gfx942",
                    "-nogpulib", "-O2", "-c", str(src), "-o", str(tmp_path / "k.o")], check=True)
    subprocess.run([lld, "-shared", str(tmp_path / "k.o"), "-o", str(tmp_path / "k.hsaco")], check=True)
    co = CodeObject.from_bytes((tmp_path / "k.hsaco").read_bytes())
    assert co.arch == "gfx942"
    assert sorted(co.kernels) == ["axpy", "fill"]    # the __clang_ocl_kern_imp_* functions are not kernels
    for k in co.kernels.values():
        assert k.code[-4:] == bytes.fromhex("000081bf")      # each kernel body ends in s_endpgm
        assert k.descriptor.kernarg_size == k.kernarg_segment_size
        assert k.descriptor.enable_sgpr_kernarg_segment_ptr
        assert co.address_to_offset(k.code_address) == k.code_offset
    axpy = co.kernels["axpy"]
    assert [a[".offset"] for a in axpy.args] == [0, 8, 16, 20]
    assert [a[".value_kind"] for a in axpy.args] == ["global_buffer", "global_buffer", "by_value", "by_value"]
    assert axpy.descriptor.system_sgpr_layout()["workgroup_id_x"] == axpy.descriptor.user_sgpr_count
