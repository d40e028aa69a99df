"""Assembling through both toolchain kinds: code object v5, plain target id, errors quoting the .s line."""
import pytest

from asmgen.errors import AssembleError
from isa.codeobj import CodeObject

ARCHES = ["gfx942", "gfx950"]


def _kernel(arch: str, body: str = "  s_endpgm", name: str = "k") -> str:
    return f""".amdgcn_target "amdgcn-amd-amdhsa--{arch}"
.amdhsa_code_object_version 5
.text
.p2align 8
.globl {name}
.type {name},@function
{name}:
{body}
.L{name}_end:
.size {name}, .L{name}_end-{name}
.rodata
.p2align 6
.amdhsa_kernel {name}
  .amdhsa_next_free_vgpr 8
  .amdhsa_next_free_sgpr 8
  .amdhsa_accum_offset 8
  .amdhsa_user_sgpr_kernarg_segment_ptr 1
  .amdhsa_user_sgpr_count 2
.end_amdhsa_kernel
"""


@pytest.mark.parametrize("arch", ARCHES)
def test_assembles_code_object_v5_for_plain_target(toolchain, arch):
    hsaco = toolchain.assemble(_kernel(arch), arch)
    co = CodeObject.from_bytes(hsaco)
    assert co.arch == arch
    assert co.code_object_version == 5        # .amdhsa_code_object_version 5 honoured (LLVM 22 default: 6)
    assert co.xnack == "any" and co.sramecc == "any"
    k = co.kernel("k")
    assert k.code == bytes.fromhex("000081bf")   # s_endpgm
    assert k.descriptor.accum_offset == 8


@pytest.mark.parametrize("arch", ARCHES)
def test_error_quotes_the_offending_line(toolchain, arch):
    text = _kernel(arch, "  s_nop 0\n  v_add_f32 v1, v2\n  s_endpgm")
    with pytest.raises(AssembleError) as ei:
        toolchain.assemble(text, arch)
    err = ei.value
    assert err.line_no == 9
    assert err.line.strip() == "v_add_f32 v1, v2"
    assert "too few operands" in err.llvm_message
    assert "line 9" in str(err) and "v_add_f32 v1, v2" in str(err)
    assert err.stage == "assemble"


def test_error_for_arch_specific_instruction(toolchain):
    # v_mfma_f32_32x32x4_xf32 exists on gfx942 only (cdna-facts section 10).
    body = "  v_mfma_f32_32x32x4_xf32 v[0:15], v[16:17], v[18:19], v[0:15]\n  s_endpgm"
    toolchain.assemble(_kernel("gfx942", body), "gfx942")
    with pytest.raises(AssembleError) as ei:
        toolchain.assemble(_kernel("gfx950", body), "gfx950")
    assert "v_mfma_f32_32x32x4_xf32" in ei.value.line


def test_both_kinds_give_the_same_code_and_descriptor(monkeypatch):
    from asmgen.errors import ToolchainNotFound
    from asmgen.toolchain import clear_cache, find_toolchain
    monkeypatch.delenv("ASMGEN_TOOLCHAIN", raising=False)
    clear_cache()
    try:
        llvm, zig = find_toolchain("llvm"), find_toolchain("zig")
    except ToolchainNotFound as exc:
        pytest.skip(str(exc))
    text = _kernel("gfx942", "  s_load_dwordx2 s[4:5], s[0:1], 0x0\n  s_waitcnt lgkmcnt(0)\n  s_endpgm")
    a = CodeObject.from_bytes(llvm.assemble(text, "gfx942")).kernel("k")
    b = CodeObject.from_bytes(zig.assemble(text, "gfx942")).kernel("k")
    assert a.code == b.code
    assert a.descriptor.raw == b.descriptor.raw


def test_objdump_disassembles_when_available(toolchain):
    hsaco = toolchain.assemble(_kernel("gfx942", "  s_nop 3\n  s_endpgm"), "gfx942")
    text = toolchain.objdump(hsaco, "gfx942")
    if toolchain.objdump_path is None:
        assert text is None
    else:
        assert "s_nop 3" in text and "s_endpgm" in text


def test_assemble_object_is_relocatable_elf(toolchain):
    obj = toolchain.assemble_object(_kernel("gfx942"), "gfx942")
    assert obj[:4] == b"\x7fELF"
    assert int.from_bytes(obj[16:18], "little") == 1   # ET_REL
