"""s_waitcnt insertion: tiny streams -> the exact vmcnt/lgkmcnt expected (cdna-facts section 4)."""
from passkit import OFFEN, buf_load, make_stream, new_kernel, text, waits_before

from asmgen.passes.waitcnt import check_program, insert_waitcnts
from isa.instr import Instr
from isa.operands import Imm


def _regs(k):
    return k.vreg("v"), k.vreg("s", 4), k.vreg("s", 2)


def test_vmcnt_in_order():
    k = new_kernel()
    addr, srd, _ = _regs(k)
    x, y = k.vreg("v"), k.vreg("v")
    st = make_stream(k, [buf_load(x, addr, srd), buf_load(y, addr, srd),
                         Instr("v_add_u32", (addr, x, addr)), Instr("v_add_u32", (addr, y, addr))])
    insert_waitcnts(st)
    t = text(st.prologue)
    assert t[2] == "s_waitcnt vmcnt(1)" and t[3].startswith("v_add_u32")
    assert t[4] == "s_waitcnt vmcnt(0)"
    assert check_program(st) == []


def test_stores_count_in_vmcnt():
    k = new_kernel()
    addr, srd, _ = _regs(k)
    x, d = k.vreg("v"), k.vreg("v")
    st = make_stream(k, [buf_load(x, addr, srd),
                         Instr("buffer_store_dword", (d, addr, srd, Imm(0)), OFFEN),
                         Instr("v_mov_b32", (d, x))])
    insert_waitcnts(st)
    assert waits_before(st.prologue, "v_mov_b32") == "s_waitcnt vmcnt(1)"


def test_lgkm_lds_only_partial_and_smem_forces_zero():
    k = new_kernel()
    addr, srd, kp = _regs(k)
    x, y = k.vreg("v"), k.vreg("v")
    st = make_stream(k, [Instr("ds_read_b32", (x, addr)), Instr("ds_read_b32", (y, addr)),
                         Instr("v_mov_b32", (addr, x))])
    insert_waitcnts(st)
    assert waits_before(st.prologue, "v_mov_b32") == "s_waitcnt lgkmcnt(1)"

    k = new_kernel()
    addr, srd, kp = _regs(k)
    x, y = k.vreg("v"), k.vreg("v")
    st = make_stream(k, [Instr("ds_read_b32", (x, addr)), Instr("s_load_dwordx4", (srd, kp, Imm(0))),
                         Instr("ds_read_b32", (y, addr)), Instr("v_mov_b32", (addr, x))])
    insert_waitcnts(st)
    assert waits_before(st.prologue, "v_mov_b32") == "s_waitcnt lgkmcnt(0)"


def test_war_against_pending_load():
    k = new_kernel()
    addr, srd, _ = _regs(k)
    x, y = k.vreg("v"), k.vreg("v")
    st = make_stream(k, [buf_load(x, addr, srd), buf_load(y, addr, srd), Instr("v_mov_b32", (x, Imm(1)))])
    insert_waitcnts(st)
    assert waits_before(st.prologue, "v_mov_b32") == "s_waitcnt vmcnt(1)"


def test_lds_dma_region_needs_vmcnt_before_ds_read():
    k = new_kernel()
    addr, srd, _ = _regs(k)
    x, y, z = k.vreg("v"), k.vreg("v"), k.vreg("v")
    dma = Instr("buffer_load_dword", (addr, srd, Imm(0)), OFFEN + (("lds", True),))
    st = make_stream(k, [(dma, {"lds_write": "A"}), buf_load(x, addr, srd),
                         (Instr("ds_read_b32", (y, addr)), {"lds_read": "B"}),
                         (Instr("ds_read_b32", (z, addr)), {"lds_read": "A"})])
    insert_waitcnts(st)
    t = text(st.prologue)
    assert t[2].startswith("ds_read_b32")                # region B: no wait
    assert t[3] == "s_waitcnt vmcnt(1)" and t[4].startswith("ds_read_b32")


def test_barrier_publishes_lds_writes_and_dma():
    k = new_kernel()
    addr, srd, _ = _regs(k)
    x, d = k.vreg("v"), k.vreg("v")
    dma = Instr("buffer_load_dword", (addr, srd, Imm(0)), OFFEN + (("lds", True),))
    st = make_stream(k, [(Instr("ds_write_b32", (addr, d)), {"lds_write": "A"}),
                         (dma, {"lds_write": "B"}), buf_load(x, addr, srd), Instr("s_barrier")])
    insert_waitcnts(st)
    assert waits_before(st.prologue, "s_barrier") == "s_waitcnt vmcnt(1) lgkmcnt(0)"


def test_more_ops_in_flight_than_the_counter_field_still_waits():
    # lgkmcnt is 4 bits, but issuing 20 ds_reads does not complete the oldest ones: reading the
    # 5th result needs lgkmcnt(15), clamped to 14 (15 is the "no wait" encoding; LLVM waits for
    # max - 1 too); that wait also covers the 6th
    k = new_kernel()
    addr = k.vreg("v")
    xs = [k.vreg("v") for _ in range(20)]
    st = make_stream(k, [Instr("ds_read_b32", (x, addr)) for x in xs]
                     + [Instr("v_mov_b32", (addr, xs[4])), Instr("v_mov_b32", (addr, xs[5]))])
    insert_waitcnts(st)
    t = text(st.prologue)
    assert t[20] == "s_waitcnt lgkmcnt(14)"
    assert t[21].startswith("v_mov_b32") and t[22].startswith("v_mov_b32")


def test_consumer_of_the_first_of_20_ds_reads_waits_and_verifier_catches_a_missing_wait():
    # regression: a gfx950 GEMM issued 32 ds_read_b128 then an MFMA reading the first one with no
    # s_waitcnt (the pass assumed the 17th read retired the 1st)
    for arch in ("gfx942", "gfx950"):
        k = new_kernel(arch)
        addr = k.vreg("v")
        xs = [k.vreg("v", 4) for _ in range(20)]
        acc = k.vreg("a", 16)
        reads = [Instr("ds_read_b128", (x, addr)) for x in xs]
        mfma = Instr("v_mfma_f32_32x32x8_f16", (acc, xs[0].sub(0, 2), xs[1].sub(0, 2), acc))
        bare = make_stream(k, reads + [mfma])
        problems = check_program(bare)
        assert len(problems) == 1 and "lgkmcnt(14)" in problems[0], problems
        insert_waitcnts(bare)
        t = text(bare.prologue)
        assert t[20] == "s_waitcnt lgkmcnt(14)", t[18:]
        assert t[21].startswith("v_mfma")
        assert check_program(bare) == []


def test_vmcnt_beyond_63_loads_in_flight_waits():
    k = new_kernel()
    srd = k.vreg("s", 4)
    addr = k.vreg("v")
    xs = [k.vreg("v") for _ in range(70)]
    loads = [Instr("buffer_load_dword", (x, addr, srd, Imm(0)), (("offen", True),)) for x in xs]
    st = make_stream(k, loads + [Instr("v_mov_b32", (addr, xs[0]))])
    insert_waitcnts(st)
    t = text(st.prologue)
    assert t[70] == "s_waitcnt vmcnt(62)"
    assert check_program(st) == []


def test_loop_fixpoint_joins_prologue_and_back_edge():
    k = new_kernel()
    addr, srd, _ = _regs(k)
    x, z = k.vreg("v"), k.vreg("v")
    # prologue: load x then z (x needs vmcnt(1) at loop entry); body: use x, then reload x last
    # (the back-edge needs vmcnt(0)): the join is vmcnt(0)
    st = make_stream(k, [buf_load(x, addr, srd), buf_load(z, addr, srd)],
                     body=[Instr("v_add_u32", (addr, x, addr)), buf_load(x, addr, srd)],
                     epilogue=[Instr("v_mov_b32", (addr, z))])
    insert_waitcnts(st)
    assert text(st.body)[0] == "s_waitcnt vmcnt(0)"
    assert check_program(st) == []


def test_loop_fixpoint_keeps_partial_wait_when_both_paths_agree():
    k = new_kernel()
    addr, srd, _ = _regs(k)
    x, z = k.vreg("v"), k.vreg("v")
    st = make_stream(k, [buf_load(x, addr, srd), buf_load(z, addr, srd)],
                     body=[Instr("v_add_u32", (addr, x, addr)), buf_load(x, addr, srd),
                           buf_load(z, addr, srd)])
    insert_waitcnts(st)
    assert text(st.body)[0] == "s_waitcnt vmcnt(1)"
    # the load of x in the body must wait for the in-flight z of the previous iteration? no: only x
    assert waits_before(st.body, "buffer_load_dword") == ""
    assert check_program(st) == []


def test_insert_is_idempotent_and_check_reports_missing():
    k = new_kernel()
    addr, srd, _ = _regs(k)
    x = k.vreg("v")
    st = make_stream(k, [buf_load(x, addr, srd), Instr("v_mov_b32", (addr, x))])
    problems = check_program(st)
    assert len(problems) == 1 and "vmcnt(0)" in problems[0]
    insert_waitcnts(st)
    once = text(st.prologue)
    insert_waitcnts(st)
    assert text(st.prologue) == once


def test_smem_results_used_in_the_loop_are_waited_for_before_it():
    k = new_kernel()
    addr, srd, kp = _regs(k)
    x, y = k.vreg("v"), k.vreg("v")
    st = make_stream(k, [Instr("s_load_dwordx4", (srd, kp, Imm(0))), Instr("v_mov_b32", (addr, Imm(0)))],
                     body=[Instr("ds_read_b32", (y, addr)), buf_load(x, addr, srd),
                           Instr("v_add_u32", (addr, x, y))])
    insert_waitcnts(st)
    assert text(st.prologue)[-1] == "s_waitcnt lgkmcnt(0)"
    assert waits_before(st.body, "buffer_load_dword") == ""
    assert waits_before(st.body, "v_add_u32") == "s_waitcnt vmcnt(0) lgkmcnt(0)"
    assert check_program(st) == []


def test_lds_dma_waits_for_ds_ops_on_its_region():
    k = new_kernel()
    addr, srd, _ = _regs(k)
    x, y = k.vreg("v"), k.vreg("v")
    dma = Instr("buffer_load_dword", (addr, srd, Imm(0)), OFFEN + (("lds", True),))
    st = make_stream(k, [(Instr("ds_read_b32", (x, addr)), {"lds_read": "A"}),
                         (Instr("ds_read_b32", (y, addr)), {"lds_read": "B"}),
                         (dma, {"lds_write": "A"}), (dma, {"lds_write": "C"})])
    insert_waitcnts(st)
    t = text(st.prologue)
    assert t[2] == "s_waitcnt lgkmcnt(1)" and t[3].startswith("buffer_load_dword")   # region A
    assert t[4].startswith("buffer_load_dword")                                       # region C


def test_verifier_rejects_the_first_of_20_ds_reads_consumed_without_a_wait():
    from asmgen.passes.verify import VerifyError, verify
    from isa.operands import a, v
    k = new_kernel("gfx950")
    reads = [Instr("ds_read_b128", (v(8 + 4 * i, 4), v(1))) for i in range(20)]
    mfma = Instr("v_mfma_f32_32x32x16_bf16", (a(0, 16), v(8, 4), v(12, 4), a(0, 16)))
    bare = make_stream(k, reads + [mfma])
    try:
        verify(bare)
    except VerifyError as exc:
        assert len(exc.problems) == 1 and "lgkmcnt(14)" in exc.problems[0], exc.problems
    else:
        raise AssertionError("verify accepted an MFMA reading a ds_read result still in flight")
    insert_waitcnts(bare)
    verify(bare)


def _vm_before_loop_stream(flag: bool):
    """Prologue loads q then z (q is read by the loop, z only after it); the body loads y every
    trip and reads it after q: the back edge brings y's load in flight to the loop head."""
    k = new_kernel()
    k.wait_vm_before_loops = flag
    addr, srd, _ = _regs(k)
    q, y, z = k.vreg("v"), k.vreg("v"), k.vreg("v")
    st = make_stream(k, [buf_load(q, addr, srd), buf_load(z, addr, srd)],
                     body=[Instr("v_add_u32", (addr, q, addr)), buf_load(y, addr, srd),
                           Instr("v_add_u32", (addr, y, addr))],
                     epilogue=[Instr("v_mov_b32", (addr, z))])
    insert_waitcnts(st)
    return st


def test_vm_results_used_in_the_loop_are_waited_for_before_it_when_asked():
    """``KernelIR.wait_vm_before_loops``: q (the youngest VMEM result the loop uses is q, one
    load older than z) is waited for at the loop's entry, vmcnt(1), so the body's read of q
    needs no wait; without the flag the join at the head waits in the body on every trip."""
    st = _vm_before_loop_stream(True)
    assert text(st.prologue)[-1] == "s_waitcnt vmcnt(1)"
    assert text(st.body)[0].startswith("v_add_u32")
    assert check_program(st) == []
    st0 = _vm_before_loop_stream(False)
    assert text(st0.body)[0].startswith("s_waitcnt vmcnt(")
    assert not text(st0.prologue)[-1].startswith("s_waitcnt")
    assert check_program(st0) == []
