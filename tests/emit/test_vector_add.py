"""Hand-built vector add (examples/vector_add.py) through builder + emitter + both toolchains, read back
with isa.codeobj and checked against what was asked; run on the emulator once it can decode."""
import importlib.util
import json
from pathlib import Path

import pytest

from isa.codeobj import CodeObject

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "vector_add.py"


@pytest.fixture(scope="module")
def va():
    spec = importlib.util.spec_from_file_location("vector_add_example", EXAMPLE)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.parametrize("arch", ["gfx942", "gfx950"])
def test_vector_add_code_object(va, toolchain, arch):
    asm, res = va.build_vector_add(arch)
    assert (res.vgprs, res.agprs, res.sgprs) == (4, 0, 17)
    hsaco = toolchain.assemble(asm, arch)
    co = CodeObject.from_bytes(hsaco)
    assert co.arch == arch and co.code_object_version == 5
    k = co.kernel("vector_add")
    d = k.descriptor
    # 4 VGPRs -> granule ceil(4/8)-1 = 0; 17 SGPRs + 6 (VCC, FLAT_SCRATCH, XNACK) -> ceil(23/8)-1 = 2
    assert d.granulated_workitem_vgpr_count == 0 == res.granulated_vgpr_count
    assert d.granulated_wavefront_sgpr_count == 2 == res.granulated_sgpr_count
    assert d.accum_offset == 4 and d.agpr_budget == 4   # granule 8: the 4 spare registers are AGPRs
    assert d.group_segment_fixed_size == 0
    assert d.kernarg_size == 28
    assert d.user_sgpr_count == 2 and d.enable_sgpr_kernarg_segment_ptr
    assert not (d.enable_sgpr_dispatch_ptr or d.enable_sgpr_queue_ptr or d.enable_sgpr_dispatch_id)
    assert d.enable_sgpr_workgroup_id == (True, False, False)
    assert d.system_sgpr_layout() == {"workgroup_id_x": 2}
    assert d.enable_vgpr_workitem_id == 0
    md = k.metadata
    assert md[".kernarg_segment_size"] == 28 and md[".max_flat_workgroup_size"] == 256
    assert [(a[".name"], a[".offset"], a[".size"], a[".value_kind"]) for a in md[".args"]] == [
        ("A", 0, 8, "global_buffer"), ("B", 8, 8, "global_buffer"), ("C", 16, 8, "global_buffer"),
        ("n", 24, 4, "by_value")]
    assert k.code[-4:] == bytes.fromhex("000081bf")
    assert len(k.code) == 120


def test_vector_add_disassembly(va, toolchain):
    asm, _ = va.build_vector_add("gfx942")
    text = toolchain.objdump(toolchain.assemble(asm, "gfx942"), "gfx942")
    if text is None:
        pytest.skip("no llvm-objdump")
    for needle in ("s_load_dwordx2 s[4:5], s[0:1], 0x0", "s_mov_b32 s7, 0x20000",
                   "buffer_load_dword v2, v1, s[4:7], 0 offen", "v_add_f32_e32 v2, v2, v3",
                   "buffer_store_dword v2, v1, s[12:15], 0 offen", "s_endpgm"):
        assert needle in text, needle


def test_vector_add_main_writes_contract(va, tmp_path):
    assert va.main(["-o", str(tmp_path), "--n", "1000"]) == 0
    meta = json.loads((tmp_path / "vector_add.json").read_text())
    assert meta["kernel"] == "vector_add" and meta["grid"] == [4, 1, 1] and meta["block"] == [256, 1, 1]
    assert meta["kernarg_size"] == 28
    assert [a["name"] for a in meta["args"]] == ["A", "B", "C", "n"]
    assert meta["args"][3]["value"] == 1000
    assert "LLVM" in meta["toolchain"] or "clang" in meta["toolchain"]
    co = CodeObject.from_bytes((tmp_path / "vector_add.hsaco").read_bytes())
    assert "vector_add" in co.kernels
    assert (tmp_path / "vector_add.s").read_text().startswith('.amdgcn_target "amdgcn-amd-amdhsa--gfx942"')


@pytest.mark.parametrize("arch,n", [("gfx942", 1000), ("gfx942", 256), ("gfx950", 1)])
def test_vector_add_on_emulator(va, arch, n):
    """n = 1000 leaves 24 lanes of the last workgroup past the end: the SRD range check must mask them."""
    from asmgen.toolchain import find_toolchain
    asm, _ = va.build_vector_add(arch)
    assert va.run_on_emulator(find_toolchain().assemble(asm, arch), arch, n)
