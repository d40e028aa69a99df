"""The spec tables as data: lookups, errors, variants, and facts that must hold for every entry."""
from __future__ import annotations

import pytest

from isa import cdna4
from isa.access import accesses, locations
from isa.errors import UnknownInstruction
from isa.instr import Instr
from isa.operands import Imm, Reg, Special, s, v
from isa.spec import FORMATS, KIND_LETTERS, PIPES
from isa.tables import canonical_instr, get_spec, spec_for, spec_table

ARCHES = ("gfx942", "gfx950")


def test_table_sizes_and_caching():
    for arch in ARCHES:
        t = spec_table(arch)
        assert len(t) > 800
        assert spec_table(arch) is t
    assert len(spec_table("gfx950")) > len(spec_table("gfx942"))


def test_unknown_arch_and_mnemonic_errors_name_them():
    with pytest.raises(UnknownInstruction, match="gfx90a"):
        spec_table("gfx90a")
    with pytest.raises(UnknownInstruction, match=r"'v_frobnicate'.*gfx942"):
        get_spec("gfx942", "v_frobnicate")
    with pytest.raises(UnknownInstruction, match=r"v_mfma_f32_16x16x32_f16.*exists on gfx950"):
        get_spec("gfx942", "v_mfma_f32_16x16x32_f16")
    with pytest.raises(UnknownInstruction, match=r"xf32.*exists on gfx942"):
        get_spec("gfx950", "v_mfma_f32_32x32x4_xf32")


@pytest.mark.parametrize("arch", ARCHES)
def test_every_spec_is_well_formed(arch):
    for key, sp in spec_table(arch).items():
        assert key.split(" ")[0] == sp.name
        assert arch in sp.archs
        assert sp.fmt in FORMATS, sp.name
        assert sp.pipe in PIPES, sp.name
        for o in sp.operands:
            assert o.kinds and set(o.kinds) <= set(KIND_LETTERS), (sp.name, o)
            assert o.role in ("dst", "src", "dst_src"), (sp.name, o)
            if o.width >= 2 and set(o.kinds) & set("va"):
                assert o.align >= 2, (sp.name, o)  # gfx90a+ VGPR tuples are even-aligned
        if sp.fmt in ("MUBUF", "GLOBAL", "FLAT", "SCRATCH"):
            assert sp.counter == "vm", sp.name
        if sp.fmt in ("DS", "SMEM"):
            assert sp.counter == "lgkm", sp.name
        if sp.fmt.startswith("SOP") or sp.fmt.startswith("VOP"):
            assert sp.counter is None, sp.name


@pytest.mark.parametrize("arch", ARCHES)
def test_mfma_specs_carry_shape_passes_and_cycles(arch):
    mfmas = [sp for sp in spec_table(arch).values() if sp.has("mfma")]
    assert len(mfmas) >= 30
    for sp in mfmas:
        sh = sp.mfma
        assert sh is not None and sp.fmt == "MAI" and sp.pipe == "mfma"
        assert sp.passes_on(arch) in (2, 4, 8, 16) and sp.cycles == 4 * sp.passes
        assert sp.has("xdl") == sh.xdl == (sh.in_type not in ("f32", "f64"))
        dst, srca, srcb, srcc = sp.operands[:4]
        assert (dst.width, srca.width, srcb.width, srcc.width) == (sh.cd_regs, sh.a_regs, sh.a_regs, sh.cd_regs)
        assert dst.role == "dst" and srcc.role == "src" and "i" in srcc.kinds
    # cdna-facts 2.1
    assert get_spec(arch, "v_mfma_f32_32x32x8_f16").passes == 8
    assert get_spec(arch, "v_mfma_f32_16x16x16_bf16").passes == 4
    assert get_spec(arch, "v_mfma_f32_32x32x2_f32").passes == 16
    assert not get_spec(arch, "v_mfma_f32_16x16x4_f32").has("xdl")


def test_gfx950_differences():
    added = {sp.name for sp in cdna4.added()}
    for name in ("v_mfma_f32_16x16x32_bf16", "v_mfma_f32_32x32x16_f16", "v_mfma_i32_16x16x64_i8",
                 "v_mfma_f32_16x16x128_f8f6f4", "ds_read_b64_tr_b16", "ds_read_b96_tr_b6",
                 "v_permlane32_swap_b32", "v_cvt_pk_bf16_f32", "global_load_lds_dwordx4", "buffer_load_dwordx4"):
        assert name in added, name
    assert {sp.name for sp in cdna4.removed()} == {"v_mfma_f32_32x32x4_xf32", "v_mfma_f32_16x16x8_xf32"}
    # buffer_load_dwordx4 itself is on both; only its LDS-DMA form is gfx950-only
    assert "buffer_load_dwordx4" in spec_table("gfx942")
    assert "buffer_load_dwordx4 lds" not in spec_table("gfx942")


def test_trans_ops_are_16_cycles_on_the_trans_pipe():
    t = spec_table("gfx942")
    for name in ("v_exp_f32", "v_log_f32", "v_rcp_f32", "v_rsq_f32", "v_sqrt_f32", "v_sin_f32"):
        assert t[name].has("trans") and t[name].cycles == 16 and t[name].pipe == "trans"
    assert not t["v_add_f32"].has("trans") and t["v_add_f32"].cycles == 4


def test_lds_dma_and_returning_atomic_variants():
    arch = "gfx942"
    dma = Instr("buffer_load_dword", (v(1), s(4, 4), Imm(0)), (("offen", True), ("lds", True)))
    sp = spec_for(arch, dma)
    assert sp.has("lds_dma") and "m0" in sp.implicit_reads and [o.name for o in sp.operands] == [
        "vaddr", "srsrc", "soffset"]
    plain = Instr("buffer_load_dword", (v(0), v(1), s(4, 4), Imm(0)), (("offen", True),))
    assert not spec_for(arch, plain).has("lds_dma")
    rtn = Instr("global_atomic_add", (v(1), v(2, 2), v(0), Special("off")), (("sc0", True),))
    sp = spec_for(arch, rtn)
    assert sp.operands[0].name == "vdst" and sp.has("rtn")
    _, writes = accesses(sp, rtn)
    assert ("v", 1) in set().union(*(w.locs for w in writes))


def test_implicit_registers():
    t = spec_table("gfx942")
    assert "scc" in t["s_add_u32"].implicit_writes
    assert "scc" in t["s_addc_u32"].implicit_reads
    assert "scc" in t["s_cselect_b32"].implicit_reads and not t["s_cselect_b32"].implicit_writes
    assert set(t["s_and_saveexec_b64"].implicit_writes) == {"exec", "scc"}
    assert "exec" in t["v_cmpx_eq_u32"].implicit_writes and "exec" not in t["v_cmp_eq_u32"].implicit_writes
    assert "vcc" in t["v_div_fmas_f32"].implicit_reads
    assert "vcc" in t["s_cbranch_vccz"].implicit_reads


def test_access_sets_of_a_vopc_and_mubuf_atomic():
    arch = "gfx942"
    cmp_ = Instr("v_cmp_eq_u32", (Special("vcc"), v(0), v(1)))
    _, writes = accesses(spec_for(arch, cmp_), cmp_)
    assert set().union(*(w.locs for w in writes)) == {("s", 106), ("s", 107)}
    assert locations(Special("exec")) == {("exec", 0), ("exec", 1)}
    atom = Instr("buffer_atomic_add", (v(5), v(1), s(4, 4), Imm(0)), (("offen", True), ("sc0", True)))
    _, writes = accesses(spec_for(arch, atom), atom)
    assert ("v", 5) in set().union(*(w.locs for w in writes))
    with pytest.raises(Exception, match="takes 3 operands"):
        bad = Instr("v_add_u32", (v(0), v(1)))
        accesses(spec_for(arch, bad), bad)


@pytest.mark.parametrize("arch", ARCHES)
def test_canonical_instr_registers_are_aligned(arch):
    for sp in spec_table(arch).values():
        ins = canonical_instr(sp, arch)
        assert len(ins.operands) == len(sp.operands)
        for o, op in zip(sp.operands, ins.operands):
            if isinstance(op, Reg):
                assert op.count == o.width and op.index % o.align == 0, (sp.name, o, op)


def test_canonical_instr_rejects_missing_arch():
    with pytest.raises(UnknownInstruction, match="gfx942"):
        canonical_instr(get_spec("gfx950", "v_mfma_f32_16x16x32_f16"), "gfx942")


def test_legacy_alias_lookup():
    assert get_spec("gfx942", "v_mfma_f32_32x32x8f16").name == "v_mfma_f32_32x32x8_f16"
    assert get_spec("gfx950", "v_mfma_f32_16x16x16bf16_1k").name == "v_mfma_f32_16x16x16_bf16"
