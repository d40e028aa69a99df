"""The verifier's independent in-flight queue simulation (asmgen.passes.wait_sim)."""
import pytest
from passkit import buf_load, make_stream, new_kernel

from asmgen.passes import verify as verify_mod
from asmgen.passes.wait_sim import simulate_waits
from asmgen.passes.waitcnt import insert_waitcnts, make_waitcnt
from isa.instr import Instr
from isa.operands import Imm, a, v


def _reads_then_use(k, n=20):
    addr = k.vreg("v")
    xs = [k.vreg("v") for _ in range(n)]
    return [Instr("ds_read_b32", (x, addr)) for x in xs] + [Instr("v_mov_b32", (addr, xs[0]))]


def test_first_of_20_ds_reads_used_without_a_wait_is_reported():
    k = new_kernel()
    st = make_stream(k, _reads_then_use(k))
    problems = simulate_waits(st)
    assert len(problems) == 1 and problems[0].startswith("prologue[20] v_mov_b32"), problems


@pytest.mark.parametrize("lgkm, ok", [(15, False), (14, True), (0, True)])
def test_field_maximum_waits_for_nothing(lgkm, ok):
    k = new_kernel()
    items = _reads_then_use(k)
    st = make_stream(k, items[:-1] + [make_waitcnt(None, lgkm), items[-1]])
    assert (simulate_waits(st) == []) is ok


def test_partial_lgkmcnt_retires_nothing_while_smem_is_in_flight():
    k = new_kernel()
    addr, x, srd, kp = k.vreg("v"), k.vreg("v"), k.vreg("s", 4), k.vreg("s", 2)
    body = [Instr("ds_read_b32", (x, addr)), Instr("s_load_dwordx4", (srd, kp, Imm(0))),
            Instr("ds_read_b32", (k.vreg("v"), addr))]
    bad = make_stream(k, body + [make_waitcnt(None, 1), Instr("v_mov_b32", (addr, x))])
    assert len(simulate_waits(bad)) == 1
    k = new_kernel()
    addr, x, srd, kp = k.vreg("v"), k.vreg("v"), k.vreg("s", 4), k.vreg("s", 2)
    body = [Instr("ds_read_b32", (x, addr)), Instr("s_load_dwordx4", (srd, kp, Imm(0))),
            Instr("ds_read_b32", (k.vreg("v"), addr))]
    good = make_stream(k, body + [make_waitcnt(None, 0), Instr("v_mov_b32", (addr, x))])
    assert simulate_waits(good) == []


def test_load_in_flight_across_the_back_edge():
    # the body reads x, then reloads it: the next iteration's read needs a wait at the loop head
    k = new_kernel()
    addr, srd, x = k.vreg("v"), k.vreg("s", 4), k.vreg("v")
    body = [Instr("v_add_u32", (addr, x, addr)), buf_load(x, addr, srd)]
    st = make_stream(k, [buf_load(x, addr, srd), make_waitcnt(0, None)], body)
    problems = simulate_waits(st)
    assert len(problems) == 1 and problems[0].startswith("loop[0] v_add_u32"), problems
    insert_waitcnts(st)
    assert simulate_waits(st) == []


def test_store_only_loop_reaches_a_fixpoint():
    k = new_kernel()
    addr, srd, d = k.vreg("v"), k.vreg("s", 4), k.vreg("v")
    st = make_stream(k, [Instr("v_mov_b32", (d, Imm(0)))],
                     [Instr("buffer_store_dword", (d, addr, srd, Imm(0)), (("offen", True),))])
    assert simulate_waits(st) == []


def test_verifier_catches_a_missing_wait_even_if_the_bracket_analysis_is_fooled(monkeypatch):
    k = new_kernel("gfx950")
    reads = [Instr("ds_read_b128", (v(8 + 4 * i, 4), v(1))) for i in range(20)]
    mfma = Instr("v_mfma_f32_32x32x16_bf16", (a(0, 16), v(8, 4), v(12, 4), a(0, 16)))
    st = make_stream(k, reads + [mfma])
    monkeypatch.setattr(verify_mod, "check_program", lambda prog: [])
    with pytest.raises(verify_mod.VerifyError, match="queue simulation"):
        verify_mod.verify(st)
