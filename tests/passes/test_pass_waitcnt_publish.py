"""Delayed LDS-DMA publication (``Node.publish_after``): which ``s_barrier`` waits vmcnt for which
LDS-DMA, in straight-line code and across the loop back-edge, and the verifier rejecting a
missing wait at the publishing barrier (cdna-facts sections 4 and 6)."""
import pytest
from passkit import OFFEN, buf_load, make_stream, new_kernel, text, waits_before

from asmgen.ir import IRError
from asmgen.passes.verify import VerifyError, verify
from asmgen.passes.waitcnt import check_program, insert_waitcnts, make_waitcnt
from isa.instr import Instr
from isa.operands import Imm, Special, s, v


def _dma(addr, srd):
    return Instr("buffer_load_dword", (addr, srd, Imm(0)), OFFEN + (("lds", True),))


def _regs(k):
    return k.vreg("v"), k.vreg("s", 4)


def _waits_before_each(nodes, op: str) -> list[str]:
    """The s_waitcnt text right before every ``op`` instruction ('' = none)."""
    t = text(nodes)
    return [t[i - 1] if i and t[i - 1].startswith("s_waitcnt") else ""
            for i, x in enumerate(t) if x.startswith(op)]


def _repro_loop(publish_after: int | None):
    """The attention helper's minimal loop: s_mov m0; DMA (buf_w); ds_read (buf_r); s_barrier."""
    k = new_kernel()
    addr, srd = _regs(k)
    m0b, y = k.vreg("s"), k.vreg("v")
    attrs = {"lds_write": "buf_w"}
    if publish_after is not None:
        attrs["publish_after"] = publish_after
    body = [Instr("s_mov_b32", (Special("m0"), m0b)), (_dma(addr, srd), attrs),
            (Instr("ds_read_b32", (y, addr)), {"lds_read": "buf_r"}), Instr("s_barrier")]
    return make_stream(k, [], body, [Instr("s_barrier")])


def test_publish_after_1_is_todays_wait():
    for pa in (None, 1):
        st = _repro_loop(pa)
        insert_waitcnts(st)
        assert waits_before(st.body, "s_barrier") == "s_waitcnt vmcnt(0) lgkmcnt(0)"
        assert "LDS-DMA published by s_barrier" in st.body[[x.instr.op for x in st.body]
                                                          .index("s_barrier") - 1].comment
        assert check_program(st) == []


def test_publish_after_2_waits_for_the_previous_iterations_dma_across_the_back_edge():
    """The barrier of iteration i publishes the DMA of iteration i - 1 (one younger VMEM op:
    this iteration's DMA), and the epilogue's barrier the last iteration's DMA."""
    st = _repro_loop(2)
    insert_waitcnts(st)
    assert waits_before(st.body, "s_barrier") == "s_waitcnt vmcnt(1) lgkmcnt(0)"
    assert waits_before(st.epilogue, "s_barrier") == "s_waitcnt vmcnt(0)"
    assert check_program(st) == []


def test_publish_after_2_moves_the_wait_to_the_second_barrier():
    k = new_kernel()
    addr, srd = _regs(k)
    x, y = k.vreg("v"), k.vreg("v")
    st = make_stream(k, [(_dma(addr, srd), {"lds_write": "A", "publish_after": 2}),
                         buf_load(x, addr, srd), Instr("s_barrier"),
                         buf_load(y, addr, srd), Instr("s_barrier")])
    insert_waitcnts(st)
    assert _waits_before_each(st.prologue, "s_barrier") == ["", "s_waitcnt vmcnt(2)"]
    assert check_program(st) == []


def test_older_dma_due_earlier_is_waited_for_and_younger_one_later():
    """DMA a (publish_after 1) then b (2): the first barrier waits for a only (b is younger,
    vmcnt(1)); the second for b."""
    k = new_kernel()
    addr, srd = _regs(k)
    st = make_stream(k, [(_dma(addr, srd), {"lds_write": "A"}),
                         (_dma(addr, srd), {"lds_write": "B", "publish_after": 2}),
                         Instr("s_barrier"), Instr("s_barrier")])
    insert_waitcnts(st)
    assert _waits_before_each(st.prologue, "s_barrier") == ["s_waitcnt vmcnt(1)",
                                                            "s_waitcnt vmcnt(0)"]


def test_publish_after_3_counts_barriers_over_two_back_edges():
    """One barrier per iteration, publish_after 3: the barrier of iteration i waits for the DMA
    of iteration i - 2 (two younger DMAs in flight)."""
    st = _repro_loop(3)
    insert_waitcnts(st)
    assert waits_before(st.body, "s_barrier") == "s_waitcnt vmcnt(2) lgkmcnt(0)"
    assert check_program(st) == []


def test_same_wave_ds_read_of_the_region_in_between_still_waits():
    k = new_kernel()
    addr, srd = _regs(k)
    y = k.vreg("v")
    st = make_stream(k, [(_dma(addr, srd), {"lds_write": "A", "publish_after": 2}),
                         Instr("s_barrier"),
                         (Instr("ds_read_b32", (y, addr)), {"lds_read": "A"}),
                         Instr("s_barrier")])
    insert_waitcnts(st)
    assert _waits_before_each(st.prologue, "s_barrier") == ["", "s_waitcnt lgkmcnt(0)"]
    assert waits_before(st.prologue, "ds_read_b32") == "s_waitcnt vmcnt(0)"
    # and in a loop: the ds_read of the region this iteration's DMA writes waits for it
    k = new_kernel()
    addr, srd = _regs(k)
    y = k.vreg("v")
    st = make_stream(k, [], [(_dma(addr, srd), {"lds_write": "A", "publish_after": 2}),
                             (Instr("ds_read_b32", (y, addr)), {"lds_read": "A"}),
                             Instr("s_barrier")])
    insert_waitcnts(st)
    assert waits_before(st.body, "ds_read_b32") == "s_waitcnt vmcnt(0)"


def _physical_stream():
    """The repro loop on physical registers (no m0 write, so no hazard s_nop is needed)."""
    k = new_kernel()
    body = [(_dma(v(1), s(4, 4)), {"lds_write": "buf_w", "publish_after": 2}),
            (Instr("ds_read_b32", (v(2), v(1))), {"lds_read": "buf_r"}), Instr("s_barrier")]
    return make_stream(k, [], body, [Instr("s_barrier")], counter=s(10))


def test_verifier_accepts_delayed_wait_and_rejects_it_missing():
    st = _physical_stream()
    insert_waitcnts(st)
    verify(st)
    # weaken the barrier's wait to lgkmcnt only: the DMA of the previous iteration is unwaited
    i = [x.instr.op for x in st.body].index("s_barrier")
    assert text(st.body)[i - 1] == "s_waitcnt vmcnt(1) lgkmcnt(0)"
    st.body[i - 1].instr = make_waitcnt(None, 0)
    problems = check_program(st)
    assert len(problems) == 1 and "LDS-DMA published by s_barrier" in problems[0]
    assert "vmcnt(1)" in problems[0]
    with pytest.raises(VerifyError, match="LDS-DMA published by s_barrier"):
        verify(st)


def test_verifier_rejects_a_wait_one_barrier_too_late():
    """publish_after 1 annotated, but the stream waits only at the second barrier."""
    k = new_kernel()
    st = make_stream(k, [(_dma(v(1), s(4, 4)), {"lds_write": "A"}), Instr("s_barrier"),
                         make_waitcnt(0, None), Instr("s_barrier")])
    problems = check_program(st)
    assert len(problems) == 1 and problems[0].startswith("prologue[1] s_barrier")


@pytest.mark.parametrize("bad", [0, -1, 1.5, "2"])
def test_block_add_rejects_a_bad_publish_after(bad):
    k = new_kernel()
    with pytest.raises(IRError, match="publish_after"):
        k.prologue.add(_dma(v(1), s(4, 4)), lds_write="A", publish_after=bad)


def test_block_add_rejects_publish_after_on_a_non_dma_op():
    k = new_kernel()
    with pytest.raises(IRError, match="only LDS-DMA"):
        k.prologue.add(buf_load(v(2), v(1), s(4, 4)), publish_after=2)
    n = k.prologue.add(_dma(v(1), s(4, 4)), lds_write="A", publish_after=2)
    assert n.publish_after == 2


def test_lds_dma_still_in_flight_is_drained_before_s_endpgm():
    """A delayed publication can leave an LDS-DMA past the last barrier: the wave must not end
    with it in flight (it would write LDS the workgroup no longer owns)."""
    k = new_kernel()
    addr, srd = _regs(k)
    st = make_stream(k, [(_dma(addr, srd), {"lds_write": "A", "publish_after": 2}),
                         Instr("s_barrier")])          # make_stream appends s_endpgm
    insert_waitcnts(st)
    assert _waits_before_each(st.prologue, "s_barrier") == [""]
    assert _waits_before_each(st.epilogue, "s_endpgm") == ["s_waitcnt vmcnt(0)"]
    assert check_program(st) == []
