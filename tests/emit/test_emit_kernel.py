"""Emitter: .s structure, determinism, resource validation, and a round trip through LLVM/zig back
into isa.codeobj checking that the descriptor and metadata say what was asked."""
import pytest

from asmgen.emit import descriptor_directives, emit_kernel, kernel_metadata
from asmgen.errors import EmitError, ResourceError
from asmgen.program import KernelResources, Program
from isa.codeobj import CodeObject
from isa.instr import Instr
from isa.operands import Imm, Label, s, v

ARGS = [{"name": "A", "kind": "buffer", "dtype": "f32", "io": "in"},
        {"name": "n", "kind": "scalar", "dtype": "u32"},
        {"name": "C", "kind": "buffer", "dtype": "f32", "io": "out"}]


def _body():
    return [Instr("s_mov_b32", (s(8), Imm(0))), ".Lloop",
            Instr("s_add_u32", (s(8), s(8), Imm(1))),
            Instr("s_cmp_lt_u32", (s(8), Imm(4))),
            Instr("s_cbranch_scc1", (Label(".Lloop"),)),
            Instr("v_mov_b32", (v(3), Imm(1.0))),
            Instr("s_waitcnt", (Imm(0xC07F),)),
            Instr("s_endpgm")]


def test_structure_and_order():
    res = KernelResources("k1", "gfx942", vgprs=4, sgprs=9, args=ARGS)
    text = emit_kernel(_body(), res)
    lines = text.splitlines()
    assert lines[0] == '.amdgcn_target "amdgcn-amd-amdhsa--gfx942"'
    assert lines[1] == ".amdhsa_code_object_version 5"
    order = [".text", ".p2align 8", ".globl k1", ".type k1,@function", "k1:", ".Lloop:",
             ".size k1, .Lk1_end-k1", ".rodata", ".p2align 6", ".amdhsa_kernel k1", ".end_amdhsa_kernel",
             ".amdgpu_metadata", "amdhsa.version: [1, 2]", "amdhsa.target: amdgcn-amd-amdhsa--gfx942",
             ".end_amdgpu_metadata"]
    idx = [lines.index(x) for x in order]
    assert idx == sorted(idx)
    assert "  s_waitcnt lgkmcnt(0)" in lines
    assert "  s_cbranch_scc1 .Lloop" in lines


def test_deterministic():
    res = KernelResources("k1", "gfx950", vgprs=4, sgprs=9, args=ARGS, agprs=8)
    assert emit_kernel(_body(), res) == emit_kernel(list(_body()), KernelResources(
        "k1", "gfx950", vgprs=4, sgprs=9, args=ARGS, agprs=8))


def test_register_directives():
    res = KernelResources("k", "gfx942", vgprs=10, agprs=20, sgprs=30)
    d = dict(descriptor_directives(res))
    assert d["accum_offset"] == 12 and d["next_free_vgpr"] == 32 and d["next_free_sgpr"] == 30
    assert res.granulated_vgpr_count == 3
    no_agpr = dict(descriptor_directives(KernelResources("k", "gfx942", vgprs=10, sgprs=3)))
    assert no_agpr["accum_offset"] == 12 and no_agpr["next_free_vgpr"] == 10
    assert d["float_denorm_mode_32"] == 3 and d["float_denorm_mode_16_64"] == 3


def test_metadata_values():
    res = KernelResources("k", "gfx942", vgprs=10, agprs=4, sgprs=20, lds_bytes=4096, args=ARGS,
                          max_flat_workgroup_size=512)
    md = kernel_metadata(res)
    assert md[".symbol"] == "k.kd" and md[".kernarg_segment_size"] == 24
    assert md[".group_segment_fixed_size"] == 4096 and md[".max_flat_workgroup_size"] == 512
    assert md[".sgpr_count"] == 26 and md[".vgpr_count"] == 16 and md[".agpr_count"] == 4
    assert md[".args"][1] == {".name": "n", ".offset": 8, ".size": 4, ".value_kind": "by_value"}
    assert md[".args"][2][".actual_access"] == "write_only"


@pytest.mark.parametrize("kw,match", [
    (dict(accum_offset=6), "4..256"),
    (dict(vgprs=20, accum_offset=16), "below the 20"),
    (dict(agprs=256, vgprs=256, accum_offset=256, sgprs=3), None),
    (dict(lds_bytes=65537), "lds_bytes"),
    (dict(user_sgprs=("private_segment_buffer", "kernarg_segment_ptr")), "architected flat scratch"),
    (dict(user_sgprs=(), args=ARGS), "lacks kernarg_segment_ptr"),
    (dict(sgprs=2), "does not cover"),
    (dict(workitem_id_dims=4), "workitem_id_dims"),
    (dict(wavefront_size=32), "wave64"),
    (dict(name="bad-name"), "C identifier"),
    (dict(arch="gfx90a"), "arch"),
    (dict(vgprs=257), "vgprs"),
])
def test_resource_validation(kw, match):
    base = dict(name="k", arch="gfx942", vgprs=8, sgprs=8)
    base.update(kw)
    if match is None:
        assert KernelResources(**base).next_free_vgpr == 512
        return
    with pytest.raises(ResourceError, match=match):
        KernelResources(**base)


def test_gfx950_lds_limit_is_160k():
    assert KernelResources("k", "gfx950", vgprs=1, sgprs=3, lds_bytes=163840).lds_bytes == 163840


def test_program_rejects_bad_items():
    with pytest.raises(EmitError, match="twice"):
        Program([".La", ".La"])
    with pytest.raises(EmitError, match="neither"):
        Program([42])
    with pytest.raises(EmitError, match="not a valid"):
        Program(["has space"])


def test_user_sgpr_layout_in_hardware_order():
    res = KernelResources("k", "gfx942", vgprs=1, sgprs=16,
                          user_sgprs=("kernarg_segment_ptr", "dispatch_ptr"), workgroup_ids=(1, 0, 1))
    assert res.user_sgpr_layout() == {"dispatch_ptr": 0, "kernarg_segment_ptr": 2}
    assert res.workgroup_id_sgpr("x") == 4 and res.workgroup_id_sgpr("z") == 5
    with pytest.raises(ResourceError, match="not enabled"):
        res.workgroup_id_sgpr("y")


CASES = [
    dict(name="c0", vgprs=1, sgprs=3),
    dict(name="c1", vgprs=37, agprs=64, sgprs=40, lds_bytes=8192, args=ARGS, workgroup_ids=(1, 1, 0),
         workitem_id_dims=2, max_flat_workgroup_size=512),
    dict(name="c2", vgprs=128, agprs=128, sgprs=102, lds_bytes=65536, args=ARGS,
         user_sgprs=("dispatch_ptr", "queue_ptr", "kernarg_segment_ptr", "dispatch_id"),
         workgroup_ids=(1, 1, 1), workitem_id_dims=3),
    dict(name="c3", vgprs=256, accum_offset=256, sgprs=17, args=ARGS[:1]),
]


@pytest.mark.parametrize("arch", ["gfx942", "gfx950"])
@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_round_trip_through_code_object(toolchain, arch, case):
    res = KernelResources(arch=arch, **case)
    co = CodeObject.from_bytes(toolchain.assemble(emit_kernel(_body(), res), arch))
    assert co.arch == arch and co.code_object_version == 5
    k = co.kernel(res.name)
    d = k.descriptor
    assert d.granulated_workitem_vgpr_count == res.granulated_vgpr_count
    assert d.granulated_wavefront_sgpr_count == res.granulated_sgpr_count
    assert d.accum_offset == res.accum_offset
    assert d.agpr_budget >= res.agprs and d.arch_vgpr_budget >= res.vgprs
    assert d.group_segment_fixed_size == res.lds_bytes
    assert d.kernarg_size == res.kernarg_size
    assert d.user_sgpr_count == res.user_sgpr_count
    assert d.enable_sgpr_workgroup_id == res.workgroup_ids
    assert d.enable_vgpr_workitem_id == res.workitem_id_dims - 1
    assert d.float_denorm_mode_32 == 3 and d.float_denorm_mode_16_64 == 3
    assert d.enable_ieee_mode and d.enable_dx10_clamp      # accepted on gfx950 too (llvm-mc 22)
    assert d.private_segment_fixed_size == 0 and not d.enable_private_segment
    assert d.user_sgpr_layout() == res.user_sgpr_layout()
    for axis, on in zip("xyz", res.workgroup_ids, strict=True):
        if on:
            assert d.system_sgpr_layout()[f"workgroup_id_{axis}"] == res.workgroup_id_sgpr(axis)
    assert k.metadata == kernel_metadata(res)
    assert co.metadata["amdhsa.version"] == [1, 2]
    assert co.target == f"amdgcn-amd-amdhsa--{arch}"
    assert k.code[-4:] == bytes.fromhex("000081bf")
