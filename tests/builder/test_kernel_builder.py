"""KernelBuilder rejects bad instructions with a BuildError naming the operand and the rule.

Half the tests use a tiny local spec table (independent of isa.tables), half the real gfx942/gfx950
tables; everything the builder accepts is checked to assemble with LLVM."""
import pytest

from asmgen.builder import KernelBuilder, validate
from asmgen.emit import emit_kernel
from asmgen.errors import BuildError
from isa.instr import Instr
from isa.operands import Imm, Label, a, s, v
from isa.spec import InstrSpec, MfmaShape, OperandSpec

# --- a tiny local table --------------------------------------------------------------------------
TINY = {
    "v_add_f32": InstrSpec("v_add_f32", "VOP2", (OperandSpec("vdst", "dst", "v"),
                                                 OperandSpec("src0", "src", "vsilx"),
                                                 OperandSpec("src1", "src", "vsix")), "valu",
                           mods=frozenset({"clamp"})),
    "global_load_dwordx2": InstrSpec(
        "global_load_dwordx2", "GLOBAL",
        (OperandSpec("vdst", "dst", "va", 2, align=2), OperandSpec("vaddr", "src", "v", 2, align=2),
         OperandSpec("saddr", "src", "os", 2, align=2)), "vmem", mods=frozenset({"offset", "nt"})),
    "buffer_load_dword": InstrSpec(
        "buffer_load_dword", "MUBUF",
        (OperandSpec("vdata", "dst", "va"), OperandSpec("vaddr", "src", "vo"),
         OperandSpec("srsrc", "src", "s", 4, align=4), OperandSpec("soffset", "src", "isx")), "vmem",
        mods=frozenset({"offen", "offset"})),
    "ds_read_b32": InstrSpec("ds_read_b32", "DS", (OperandSpec("vdst", "dst", "va"),
                                                   OperandSpec("vaddr", "src", "v")), "lds",
                             mods=frozenset({"offset"})),
    "v_mfma_f32_4x4": InstrSpec(
        "v_mfma_f32_4x4", "MAI",
        (OperandSpec("vdst", "dst", "av", 4, align=2), OperandSpec("src0", "src", "va", 2, align=2),
         OperandSpec("src1", "src", "va", 2, align=2), OperandSpec("src2", "src", "avi", 4, align=2)),
        "mfma", flags=frozenset({"mfma"}), mfma=MfmaShape(4, 4, 4, 16, "f16", "f32", 2, 4)),
    "v_only950": InstrSpec("v_only950", "VOP1", (OperandSpec("vdst", "dst", "v"),), "valu",
                           archs=frozenset({"gfx950"})),
    "s_branch": InstrSpec("s_branch", "SOPP", (OperandSpec("label", "src", "bi"),), "branch"),
    "s_waitcnt": InstrSpec("s_waitcnt", "SOPP", (OperandSpec("simm16", "src", "i"),), "salu"),
}


def tiny(**kw):
    return KernelBuilder("gfx942", specs=TINY, **kw)


def _rule(fn):
    with pytest.raises(BuildError) as ei:
        fn()
    return ei.value


def test_accepts_valid_and_tracks_usage():
    b = tiny()
    b.emit("v_add_f32", v(3), v(1), 1.0)
    b.emit("global_load_dwordx2", v(4, 2), v(8, 2), "off", offset=-4096)
    b.emit("v_mfma_f32_4x4", a(0, 4), v(0, 2), v(2, 2), a(0, 4))
    b.emit("v_mfma_f32_4x4", v(12, 4), a(4, 2), v(2, 2), 0)
    b.label(".Lend")
    b.emit("s_branch", ".Lend")
    b.emit("s_waitcnt", 0xC07F)
    assert b.used("v") == 16 and b.used("a") == 6 and b.used("s") == 0
    assert len(b.program()) == 7


@pytest.mark.parametrize("fn,operand,rule", [
    (lambda b: b.emit("global_load_dwordx2", v(1, 2), v(8, 2), "off"), "vdst", "register alignment"),
    (lambda b: b.emit("buffer_load_dword", v(1), v(2), s(2, 4), 0), "srsrc", "register alignment"),
    (lambda b: b.emit("buffer_load_dword", v(1), v(2), s(4, 4), 0, offen=True, offset=4096),
     "offset", "MUBUF offset range"),
    (lambda b: b.emit("global_load_dwordx2", v(0, 2), v(8, 2), "off", offset=4096), "offset",
     "GLOBAL offset range"),
    (lambda b: b.emit("global_load_dwordx2", v(0, 2), v(8, 2), "off", offset=-4097), "offset",
     "GLOBAL offset range"),
    (lambda b: b.emit("ds_read_b32", v(0), v(1), offset=65536), "offset", "DS offset range"),
    (lambda b: b.emit("v_mfma_f32_4x4", a(0, 4), v(0, 2), v(2, 2), v(4, 4)), "src2",
     "MFMA C and D in one file"),
    (lambda b: b.emit("v_add_f32", a(0), v(1), v(2)), "vdst", "operand kind"),
    (lambda b: b.emit("v_add_f32", v(0), v(1), 0x1234), "src1", "operand kind"),
    (lambda b: b.emit("v_add_f32", v(0, 2), v(1), v(2)), "vdst", "operand width"),
    (lambda b: b.emit("v_add_f32", v(0), v(1)), None, "operand count"),
    (lambda b: b.emit("v_add_f32", v(0), v(1), v(2), offset=4), "offset", "modifier accepted"),
    (lambda b: b.emit("v_only950", v(0)), None, "instruction exists on the arch"),
    (lambda b: b.emit("v_nonexistent", v(0)), None, "instruction exists on the arch"),
    (lambda b: b.emit("s_waitcnt", 70000), "simm16", "immediate range"),
    (lambda b: b.emit("v_add_f32", v(0), v(1), 1 << 40), None, "operand value"),
])
def test_rejections_name_operand_and_rule(fn, operand, rule):
    err = _rule(lambda: fn(tiny()))
    assert err.rule == rule
    if operand is not None:
        assert err.operand == operand
        assert operand in str(err)
    assert rule in str(err)


def test_budget():
    b = tiny(max_vgprs=8, max_agprs=4)
    b.emit("v_add_f32", v(7), v(1), v(2))
    err = _rule(lambda: b.emit("v_add_f32", v(8), v(1), v(2)))
    assert err.rule == "register budget" and "v8" in str(err) and "8 VGPRs" in str(err)
    err = _rule(lambda: b.emit("v_mfma_f32_4x4", a(2, 4), v(0, 2), v(2, 2), a(2, 4)))
    assert err.rule == "register budget" and err.operand == "vdst"


def test_undefined_branch_target_and_duplicate_label():
    b = tiny()
    b.emit("s_branch", Label(".Lnowhere"))
    assert _rule(b.program).rule == "labels defined"
    b.label(".La")
    assert _rule(lambda: b.label(".La")).rule == "unique labels"


def test_validate_function_directly():
    validate(Instr("v_add_f32", (v(0), v(1), Imm(2))), TINY["v_add_f32"], "gfx942")
    with pytest.raises(BuildError):
        validate(Instr("v_only950", (v(0),)), TINY["v_only950"], "gfx942")


def test_resources_from_usage():
    b = tiny()
    b.emit("v_mfma_f32_4x4", a(0, 4), v(0, 2), v(10, 2), a(0, 4))
    res = b.resources("k", args=[{"name": "A", "kind": "buffer"}])
    assert (res.vgprs, res.agprs, res.sgprs) == (12, 4, 3)   # s0:1 kernarg ptr + s2 workgroup id x


# --- the real tables -------------------------------------------------------------------------------
def real(arch="gfx942"):
    return KernelBuilder(arch)


@pytest.mark.parametrize("arch", ["gfx942", "gfx950"])
def test_real_table_valid_stream_assembles(arch, toolchain):
    b = real(arch)
    b.emit("s_load_dwordx4", s(4, 4), s(0, 2), 0)
    b.emit("s_waitcnt", 0xC07F)
    b.emit("v_mov_b32", v(0), 0)
    b.emit("buffer_load_dword", v(1), v(0), s(4, 4), 0, offen=True, offset=4095)
    b.emit("global_load_dwordx2", v(2, 2), v(4, 2), "off", offset=-4096)
    b.emit("ds_read_b32", v(6), v(0), offset=65535)
    b.emit("v_mfma_f32_32x32x8_f16", a(0, 16), v(8, 2), v(10, 2), a(0, 16))
    b.emit("v_mfma_f32_32x32x8_f16", v(16, 16), v(8, 2), v(10, 2), 0)
    b.label(".Lend")
    b.emit("s_endpgm")
    res = b.resources("k", lds_bytes=65536)
    co_text = emit_kernel(b.program(), res)
    toolchain.assemble(co_text, arch)   # raises AssembleError if the builder let through bad text


def test_real_table_rejections():
    b = real()
    assert _rule(lambda: b.emit("global_load_dwordx2", v(1, 2), v(2, 2), "off")).rule == "register alignment"
    assert _rule(lambda: b.emit("buffer_load_dword", v(1), v(2), s(4, 4), 0, offen=True,
                                offset=4100)).rule == "MUBUF offset range"
    assert _rule(lambda: b.emit("v_mfma_f32_32x32x8_f16", a(0, 16), v(0, 2), v(2, 2),
                                v(16, 16))).rule == "MFMA C and D in one file"
    assert _rule(lambda: b.emit("v_add_f32", a(1), v(2), v(3))).operand == "vdst"
    assert _rule(lambda: b.emit("s_mov_b32", s(0), "vcc")).rule == "operand width"
    assert _rule(lambda: b.emit("v_add_f32", v(1), v(2), v(3), glc=True)).rule == "modifier accepted"
    assert _rule(lambda: b.emit("not_an_instruction")).rule == "instruction exists on the arch"
    # xf32 MFMAs exist on gfx942 only (cdna-facts section 10)
    KernelBuilder("gfx942").emit("v_mfma_f32_32x32x4_xf32", v(0, 16), v(16, 2), v(18, 2), v(0, 16))
    err = _rule(lambda: KernelBuilder("gfx950").emit("v_mfma_f32_32x32x4_xf32", v(0, 16), v(16, 2),
                                                     v(18, 2), v(0, 16)))
    assert err.rule == "instruction exists on the arch"


def test_encoding_suffix_is_split():
    b = real()
    instr = b.emit("v_add_f32_e64", v(0), v(1), s(2))
    assert instr.op == "v_add_f32" and instr.encoding == "e64"
    assert str(instr) == "v_add_f32_e64 v0, v1, s2"
