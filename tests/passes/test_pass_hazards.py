"""Hazard s_nop insertion: tiny streams on physical registers -> the exact s_nop expected
(cdna-facts section 3; rules from isa.hazards)."""
import pytest
from passkit import OFFEN, make_stream, new_kernel, text

from asmgen.passes.hazards import check_hazards, insert_nops
from isa.instr import Instr
from isa.operands import Imm, Special, a, s, v

MFMA8 = Instr("v_mfma_f32_32x32x8_f16", (a(0, 16), v(0, 2), v(2, 2), a(0, 16)))     # XDL, 8 passes
MFMA16_F32 = Instr("v_mfma_f32_32x32x2_f32", (a(0, 16), v(0), v(1), a(0, 16)))     # non-XDL, 16 passes
ACC_READ = Instr("v_accvgpr_read_b32", (v(8), a(0)))


def _nops(nodes) -> list[str]:
    return [t for t in text(nodes) if t.startswith("s_nop")]


@pytest.mark.parametrize("arch, nop", [("gfx942", "s_nop 10"), ("gfx950", "s_nop 11")])
def test_xdl_result_read_by_valu(arch, nop):
    k = new_kernel(arch)
    st = make_stream(k, [MFMA8, ACC_READ])
    insert_nops(st)
    assert text(st.prologue) == [str(MFMA8), nop, str(ACC_READ)]
    assert check_hazards(st) == []


def test_elapsed_instructions_count_as_wait_states():
    k = new_kernel()
    fill = [Instr("s_mov_b32", (s(10 + i), Imm(i))) for i in range(5)]
    st = make_stream(k, [MFMA8, *fill, ACC_READ])
    insert_nops(st)
    assert _nops(st.prologue) == ["s_nop 5"]        # 11 - 5 elapsed


def test_long_gap_is_split_into_nops_of_at_most_16_states():
    k = new_kernel()
    st = make_stream(k, [MFMA16_F32, ACC_READ])      # non-XDL 16 passes: P + 2 = 18 states
    insert_nops(st)
    assert _nops(st.prologue) == ["s_nop 15", "s_nop 1"]


def test_valu_write_then_mfma_read():
    k = new_kernel()
    mov = Instr("v_mov_b32", (v(2), Imm(0)))
    st = make_stream(k, [mov, MFMA8])
    insert_nops(st)
    assert text(st.prologue) == [str(mov), "s_nop 1", str(MFMA8)]


def test_accumulate_chain_needs_nothing_and_unrelated_pairs_are_free():
    k = new_kernel()
    other = Instr("v_add_u32", (v(20), v(21), v(22)))
    st = make_stream(k, [MFMA8, MFMA8, other])
    insert_nops(st)
    assert _nops(st.prologue) == []


def test_valu_exec_write_before_mfma_relates_through_exec():
    k = new_kernel()
    cmpx = Instr("v_cmpx_lt_u32", (Special("vcc"), v(30), v(31)))
    st = make_stream(k, [cmpx, MFMA8])
    insert_nops(st)
    assert _nops(st.prologue) == ["s_nop 3"]


def test_m0_write_before_lds_dma():
    k = new_kernel()
    dma = Instr("buffer_load_dword", (v(1), s(4, 4), Imm(0)), OFFEN + (("lds", True),))
    st = make_stream(k, [Instr("s_mov_b32", (Special("m0"), s(8))), dma])
    insert_nops(st)
    assert _nops(st.prologue) == ["s_nop 0"]


def test_loop_back_edge_tail_is_checked_at_the_head():
    k = new_kernel()
    cnt = s(40)
    st = make_stream(k, [Instr("s_mov_b32", (cnt, Imm(4)))], body=[ACC_READ, MFMA8], counter=cnt)
    insert_nops(st)
    # back-edge: MFMA, s_sub, s_cmp, s_cbranch (3 states) then the read: 11 - 3 = 8 states
    assert text(st.body)[0] == "s_nop 7"
    assert check_hazards(st) == []


def test_epilogue_sees_the_loop_tail():
    k = new_kernel()
    cnt = s(40)
    st = make_stream(k, [Instr("s_mov_b32", (cnt, Imm(4)))], body=[MFMA8], epilogue=[ACC_READ],
                     counter=cnt)
    insert_nops(st)
    assert text(st.epilogue)[0] == "s_nop 7"


def test_check_reports_a_missing_nop():
    k = new_kernel()
    st = make_stream(k, [MFMA8, ACC_READ])
    problems = check_hazards(st)
    assert len(problems) == 1 and "11 wait state" in problems[0]
