"""The assembly text parser: operands, modifiers, special syntax, objdump lines, errors, printing back."""
from __future__ import annotations

import pytest
from llvm_text import assemble

from isa.asm_format import format_instr
from isa.asm_parse import hwreg_imm, parse_line, parse_program, swizzle_offset
from isa.errors import AsmParseError, UnknownInstruction
from isa.instr import Instr
from isa.operands import Imm, Label, Special, a, s, v
from isa.waitcnt_enc import waitcnt_imm

CASES = [
    ("v_add_u32_e32 v0, v1, v2", Instr("v_add_u32", (v(0), v(1), v(2)), (), "e32")),
    ("v_mfma_f32_32x32x8_f16 a[0:15], v[0:1], v[2:3], a[0:15] cbsz:1 abid:1 blgp:2",
     Instr("v_mfma_f32_32x32x8_f16", (a(0, 16), v(0, 2), v(2, 2), a(0, 16)),
           (("cbsz", 1), ("abid", 1), ("blgp", 2)))),
    ("v_mfma_f32_32x32x8f16 v[0:15], v[0:1], v[2:3], 0",
     Instr("v_mfma_f32_32x32x8_f16", (v(0, 16), v(0, 2), v(2, 2), Imm(0)))),
    ("buffer_load_dword v0, v1, s[4:7], 0 offen offset:16 sc0 nt",
     Instr("buffer_load_dword", (v(0), v(1), s(4, 4), Imm(0)),
           (("offen", True), ("offset", 16), ("sc0", True), ("nt", True)))),
    ("buffer_load_dword v1, s[0:3], s4 offen lds",
     Instr("buffer_load_dword", (v(1), s(0, 4), s(4)), (("offen", True), ("lds", True)))),
    ("global_load_dword v0, v[2:3], off offset:-4096",
     Instr("global_load_dword", (v(0), v(2, 2), Special("off")), (("offset", -4096),))),
    ("ds_read2_b32 v[0:1], v2 offset0:1 offset1:2",
     Instr("ds_read2_b32", (v(0, 2), v(2)), (("offset0", 1), ("offset1", 2)))),
    ("s_waitcnt vmcnt(1) lgkmcnt(0)", Instr("s_waitcnt", (Imm(waitcnt_imm(vmcnt=1, lgkmcnt=0)),))),
    ("v_pk_fma_f16 v0, v1, v2, v3 op_sel:[0,1,0] neg_lo:[1,0,0]",
     Instr("v_pk_fma_f16", (v(0), v(1), v(2), v(3)), (("op_sel", (0, 1, 0)), ("neg_lo", (1, 0, 0))))),
    ("v_mov_b32_dpp v0, v1 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf bound_ctrl:1",
     Instr("v_mov_b32", (v(0), v(1)), (("quad_perm", (1, 0, 3, 2)), ("row_mask", 15), ("bank_mask", 15),
                                       ("bound_ctrl", 1)), "dpp")),
    ("v_add_f32_dpp v0, v1, v2 row_bcast:15 row_mask:0xa bank_mask:0xf",
     Instr("v_add_f32", (v(0), v(1), v(2)), (("row_bcast", 15), ("row_mask", 10), ("bank_mask", 15)), "dpp")),
    ("v_mov_b32_sdwa v0, v1 dst_sel:WORD_1 dst_unused:UNUSED_PRESERVE src0_sel:BYTE_0",
     Instr("v_mov_b32", (v(0), v(1)), (("dst_sel", "WORD_1"), ("dst_unused", "UNUSED_PRESERVE"),
                                       ("src0_sel", "BYTE_0")), "sdwa")),
    ("v_add_f32_e64 v0, -v1, |v2| clamp",
     Instr("v_add_f32", (v(0), v(1), v(2)), (("clamp", True), ("neg", (1,)), ("abs", (2,))), "e64")),
    ("v_fma_f32 v0, -|v1|, s2, 1.0",
     Instr("v_fma_f32", (v(0), v(1), s(2), Imm(1.0)), (("neg", (1,)), ("abs", (1,))))),
    ("v_cndmask_b32_e32 v0, -4.0, v2, vcc", Instr("v_cndmask_b32", (v(0), Imm(-4.0), v(2), Special("vcc")), (),
                                                   "e32")),
    ("s_mov_b32 s0, 0xffff1234", Instr("s_mov_b32", (s(0), Imm(0xFFFF1234)))),
    ("s_mov_b32 m0, -1", Instr("s_mov_b32", (Special("m0"), Imm(-1)))),
    ("s_and_saveexec_b64 s[2:3], vcc", Instr("s_and_saveexec_b64", (s(2, 2), Special("vcc")))),
    ("s_cbranch_scc1 .LBB0_2", Instr("s_cbranch_scc1", (Label(".LBB0_2"),))),
    ("s_getreg_b32 s0, hwreg(HW_REG_MODE, 0, 4)", Instr("s_getreg_b32", (s(0), Imm(0x1801)))),
    ("ds_swizzle_b32 v0, v1 offset:swizzle(SWAP,16)", Instr("ds_swizzle_b32", (v(0), v(1)), (("offset", 0x401F),))),
    ("s_add_u32 s0, s0, lit(0x0)", Instr("s_add_u32", (s(0), s(0), Imm(0)), (("lit", (2,)),))),
    ("s_endpgm", Instr("s_endpgm")),
    ("v_cmp_class_f32_e64 s[26:27], neg(-3), s42",
     Instr("v_cmp_class_f32", (s(26, 2), Imm(-3), s(42)), (("neg", (1,)),), "e64")),
    ("v_cmpx_u_f32_e64 s[62:63], |45|, s17 clamp",
     Instr("v_cmpx_u_f32", (s(62, 2), Imm(45), s(17)), (("clamp", True), ("abs", (1,))), "e64")),
    ("v_add_f32_e64 v0, -|v1|, -|-2.0|",
     Instr("v_add_f32", (v(0), v(1), Imm(-2.0)), (("neg", (1, 2)), ("abs", (1, 2))), "e64")),
]


@pytest.mark.parametrize("text,want", CASES, ids=[c[0].split()[0] + str(i) for i, c in enumerate(CASES)])
def test_parse_line(text, want):
    got = parse_line(text, "gfx942")
    assert got == want


def test_printed_cases_assemble_like_the_input(llvm_mc):
    texts = [t for t, _ in CASES if "LBB" not in t]
    printed = [format_instr(parse_line(t)) for t in texts]
    enc_in, err_in = assemble(llvm_mc, "gfx942", texts)
    enc_out, err_out = assemble(llvm_mc, "gfx942", printed)
    assert not err_in and not err_out, (err_in, {printed[i]: m for i, m in err_out.items()})
    assert enc_in == enc_out


def test_lines_without_instructions():
    for text in ("", "   ", "// comment", "; comment", "label:", ".LBB0_1:", "  .p2align 8",
                 "k.o:\tfile format elf64-amdgpu", "Disassembly of section .text:",
                 "0000000000001000 <kernel>:"):
        assert parse_line(text) is None, text


def test_objdump_line():
    line = "\ts_load_dwordx2 s[0:1], s[4:5], 0x10               // 000000001000: C0060002 00000010"
    assert parse_line(line) == Instr("s_load_dwordx2", (s(0, 2), s(4, 2), Imm(16)))
    line = "\ts_cbranch_execz 22                      // 00000000001C: BF880016 <vadd+0x78>"
    assert parse_line(line) == Instr("s_cbranch_execz", (Imm(22),))


def test_label_before_instruction_and_program():
    text = "k:\n  s_mov_b32 s0, 0\n.L1: v_mov_b32 v0, s0\n  s_cbranch_scc0 .L1 ; loop\n  s_endpgm\n"
    instrs, labels = parse_program(text, "gfx942")
    assert [i.op for i in instrs] == ["s_mov_b32", "v_mov_b32", "s_cbranch_scc0", "s_endpgm"]
    assert labels == {"k": 0, ".L1": 1}
    with pytest.raises(AsmParseError, match="line 2.*twice"):
        parse_program("a:\na:\n")


def test_errors_name_the_bad_text():
    with pytest.raises(UnknownInstruction, match="v_bogus"):
        parse_line("v_bogus v0, v1", "gfx942")
    with pytest.raises(UnknownInstruction, match="exists on gfx950"):
        parse_line("v_permlane16_swap_b32 v0, v1", "gfx942")
    with pytest.raises(AsmParseError, match="v\\[3:2\\]"):
        parse_line("v_mov_b64 v[0:1], v[3:2]")
    with pytest.raises(AsmParseError, match="v300"):
        parse_line("v_mov_b32 v0, v300")
    with pytest.raises(AsmParseError, match="HW_REG_NOPE"):
        parse_line("s_getreg_b32 s0, hwreg(HW_REG_NOPE)")
    with pytest.raises(AsmParseError, match="@@"):
        parse_line("v_mov_b32 v0, @@")
    with pytest.raises(AsmParseError, match="s_waitcnt"):
        parse_line("s_waitcnt vmcnt(0) bogus")
    with pytest.raises(AsmParseError, match=r"takes 3 operands \(vdst, src0, src1\) on gfx942, got 2"):
        parse_line("v_add_u32 v0, v1", "gfx942")
    with pytest.raises(AsmParseError, match="needs an operand"):
        parse_line("s_waitcnt")
    with pytest.raises(AsmParseError, match="swizzle"):
        swizzle_offset("swizzle(FFT,3)")


def test_swizzle_and_hwreg_match_llvm(llvm_mc):
    macros = ['swizzle(QUAD_PERM,3,2,1,0)', 'swizzle(BITMASK_PERM,"01pi0")', 'swizzle(BROADCAST,8,3)',
              'swizzle(SWAP,4)', 'swizzle(REVERSE,32)', 'swizzle(BROADCAST,32,31)']
    ours = [f"ds_swizzle_b32 v0, v1 offset:{swizzle_offset(m)}" for m in macros]
    theirs = [f"ds_swizzle_b32 v0, v1 offset:{m}" for m in macros]
    regs = ["hwreg(HW_REG_MODE)", "hwreg(HW_REG_STATUS, 3, 5)", "hwreg(HW_REG_XCC_ID)", "hwreg(HW_REG_HW_ID, 0, 32)"]
    ours += [f"s_getreg_b32 s0, {hwreg_imm(r)}" for r in regs]
    theirs += [f"s_getreg_b32 s0, {r}" for r in regs]
    enc_o, err_o = assemble(llvm_mc, "gfx942", ours)
    enc_t, err_t = assemble(llvm_mc, "gfx942", theirs)
    assert not err_o and not err_t
    assert enc_o == enc_t


def test_format_instr_prints_waitcnt_and_source_modifiers():
    assert format_instr(Instr("s_waitcnt", (Imm(0x0F70),))) == "s_waitcnt vmcnt(0)"
    ins = Instr("v_add_f32", (v(0), v(1), v(2)), (("neg", (1,)), ("abs", (1, 2))), "e64")
    assert format_instr(ins) == "v_add_f32_e64 v0, -|v1|, |v2|"
    assert format_instr(Instr("v_add_u32", (v(0), v(1), v(2)))) == str(Instr("v_add_u32", (v(0), v(1), v(2))))
