"""Liveness and linear-scan register allocation: alignment, precolouring, loops, in-flight loads,
budget errors; and the whole pipeline on random kernels (hypothesis)."""
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from passkit import OFFEN, make_stream, new_kernel

from asmgen.ir import KernelIR
from asmgen.kinds.gemm.tags import GEMM_TAGS
from asmgen.passes.liveness import compute_liveness
from asmgen.passes.manager import compile_kernel
from asmgen.passes.regalloc import RegisterBudgetError, allocate, check_no_overlap
from asmgen.passes.waitcnt import insert_waitcnts
from asmgen.target import target_of
from isa.instr import Instr
from isa.operands import Imm, s, v


def test_disjoint_lifetimes_share_and_tuples_are_aligned():
    k = new_kernel()
    a1, b2, c4 = k.vreg("v"), k.vreg("v", 2), k.vreg("v", 4)
    srd = k.vreg("s", 4)
    out = k.vreg("v")
    st_ = make_stream(k, [
        Instr("v_mov_b32", (a1, Imm(1))),
        Instr("v_mov_b32", (b2.sub(0), a1)), Instr("v_mov_b32", (b2.sub(1), a1)),
        Instr("s_mov_b32", (srd.sub(0), Imm(0))), Instr("s_mov_b32", (srd.sub(1), Imm(0))),
        Instr("s_mov_b32", (srd.sub(2), Imm(0))), Instr("s_mov_b32", (srd.sub(3), Imm(0))),
        Instr("buffer_load_dwordx4", (c4, b2.sub(0), srd, Imm(0)), OFFEN),
        Instr("v_add_u32", (out, c4.sub(3), c4.sub(0))),
        Instr("buffer_store_dword", (out, b2.sub(1), srd, Imm(0)), OFFEN)])
    insert_waitcnts(st_)
    alloc = allocate(st_)
    r = alloc.regs
    assert r[a1.id].index == 0                       # first value at v0
    assert r[b2.id].index % 2 == 0 and not r[b2.id].overlaps(r[a1.id])
    assert r[srd.id].index % 4 == 0
    assert r[c4.id].index % 2 == 0 and not r[c4.id].overlaps(r[b2.id])
    assert check_no_overlap(compute_liveness(st_), r) == []
    assert all("%" not in str(n.instr) for n in st_.prologue)


def test_precoloured_registers_are_kept_and_avoided():
    k = new_kernel()
    tid = k.precolored("v", v(0), "tid")
    kp = k.precolored("s", s(0, 2), "kernarg")
    x, srd = k.vreg("v"), k.vreg("s", 4)
    st_ = make_stream(k, [Instr("s_load_dwordx4", (srd, kp, Imm(0))),
                          Instr("v_add_u32", (x, tid, tid)),
                          Instr("buffer_store_dword", (x, tid, srd, Imm(0)), OFFEN)])
    insert_waitcnts(st_)
    alloc = allocate(st_)
    assert alloc.regs[tid.id] == v(0) and alloc.regs[kp.id] == s(0, 2)
    assert alloc.regs[x.id] != v(0)
    # the kernarg pointer dies at the s_load; the SRD may reuse s[0:3]? no: it is written by the
    # same instruction that last reads s[0:1], and reads and writes share a position
    assert not alloc.regs[srd.id].overlaps(s(0, 2))


def test_loop_carried_value_spans_the_whole_loop():
    k = new_kernel()
    acc, t = k.vreg("v"), k.vreg("v")
    st_ = make_stream(k, [Instr("v_mov_b32", (acc, Imm(0)))],
                      body=[Instr("v_mov_b32", (t, Imm(1))), Instr("v_add_u32", (acc, acc, t)),
                            Instr("v_mov_b32", (k.vreg("v"), Imm(2)))],
                      epilogue=[Instr("v_mov_b32", (k.vreg("v"), acc))])
    live = compute_liveness(st_)
    body_start = live.section_starts["loop"]
    body_end = live.section_starts["epilogue"] - 1
    ia = live.intervals[acc.id]
    assert ia.start == 0 and ia.end > body_end
    it = live.intervals[t.id]
    assert body_start <= it.start and it.end < body_end


def test_in_flight_load_destination_lives_until_its_wait():
    k = new_kernel()
    addr, srd = k.vreg("v"), k.vreg("s", 4)
    dead, y = k.vreg("v"), k.vreg("v")
    st_ = make_stream(k, [Instr("v_mov_b32", (addr, Imm(0))),
                          Instr("buffer_load_dword", (dead, addr, srd, Imm(0)), OFFEN),  # never read
                          Instr("buffer_load_dword", (y, addr, srd, Imm(0)), OFFEN),
                          Instr("v_mov_b32", (k.vreg("v"), Imm(5))),
                          Instr("v_add_u32", (addr, y, y))])
    insert_waitcnts(st_)
    live = compute_liveness(st_)
    wait_pos = next(i for i, n in enumerate(st_.prologue) if n.instr.op == "s_waitcnt")
    assert live.intervals[dead.id].end >= wait_pos       # retired by the vmcnt(0) for y
    alloc = allocate(st_, live=live)
    assert check_no_overlap(live, alloc.regs) == []


def test_budget_error_names_file_need_and_limit():
    k = new_kernel()
    xs = [k.vreg("v", 4) for _ in range(5)]
    st_ = make_stream(k, [Instr("v_mov_b32", (x.sub(i), Imm(i))) for x in xs for i in range(4)]
                      + [Instr("v_add_u32", (x.sub(0), x.sub(1), x.sub(2))) for x in xs])
    with pytest.raises(RegisterBudgetError) as ei:
        allocate(st_, limits={"v": 16})
    e = ei.value
    assert e.file == "v" and e.limit == 16 and e.need == 20
    assert "VGPR" in str(e) and "20" in str(e) and "16" in str(e)


def _random_kernel(rng: random.Random, n_pro: int, n_body: int, n_epi: int) -> KernelIR:
    k = KernelIR(target_of("gfx942"), "rand", tags=GEMM_TAGS)
    tid = k.precolored("v", v(0), "tid")
    kp = k.precolored("s", s(0, 2), "kernarg")
    srd = k.vreg("s", 4)
    cnt = k.vreg("s")
    vs = [k.vreg("v") for _ in range(8)]
    pairs = [k.vreg("v", 2) for _ in range(3)]
    accs = [k.vreg("a", 4) for _ in range(2)]
    p = k.prologue
    p.add(Instr("s_load_dwordx4", (srd, kp, Imm(0))))
    p.add(Instr("s_mov_b32", (cnt, Imm(3))))
    for x in vs:
        p.add(Instr("v_add_u32", (x, tid, tid)))
    for x in pairs:
        p.add(Instr("v_mov_b32", (x.sub(0), tid)))
        p.add(Instr("v_mov_b32", (x.sub(1), tid)))
    for acc in accs:
        for i in range(4):
            p.add(Instr("v_accvgpr_write_b32", (acc.sub(i), Imm(0))))

    def fill(b, n):
        for _ in range(n):
            c = rng.randrange(9)
            x, y = rng.choice(vs), rng.choice(vs)
            reg = rng.choice("AB")
            if c == 0:
                b.add(Instr("v_add_u32", (x, y, rng.choice(vs))), {"addr"})
            elif c == 1:
                b.add(Instr("ds_read_b32", (x, y)), {"lr_a"}, lds_read=reg)
            elif c == 2:
                b.add(Instr("ds_write_b32", (y, x)), {"lw_a"}, lds_write=reg)
            elif c == 3:
                b.add(Instr("buffer_load_dword", (x, y, srd, Imm(0)), OFFEN), {"gr_a"})
            elif c == 4:
                acc = rng.choice(accs)
                b.add(Instr("v_mfma_f32_16x16x16_f16", (acc, rng.choice(pairs), rng.choice(pairs), acc)),
                      {"mfma"})
            elif c == 5:
                b.add(Instr("s_barrier"), {"barrier"})
            elif c == 6:
                b.add(Instr("ds_read_b64", (rng.choice(pairs), y)), {"lr_a"}, lds_read=reg)
            elif c == 7:
                b.add(Instr("v_accvgpr_read_b32", (x, rng.choice(accs).sub(rng.randrange(4)))), {"addr"})
            else:
                b.add(Instr("buffer_store_dword", (x, y, srd, Imm(0)), OFFEN), {"store"})

    fill(p, n_pro)
    fill(k.make_loop(cnt, "L"), n_body)
    fill(k.epilogue, n_epi)
    for x in vs:
        k.epilogue.add(Instr("buffer_store_dword", (x, tid, srd, Imm(0)), OFFEN))
    return k


def value_flow_errors(target, sections, regs) -> list[str]:
    """Independent of liveness: run the virtual stream (loop body three times) over the
    physical registers; every read of a virtual unit must find that unit's own last write there
    (a load's write counts from its issue, so a clobber while it is in flight is caught too)."""
    from asmgen.passes.effects import effects
    pro, body, epi = sections
    order = [("prologue", pro)] + ([("loop", body)] * 3 if body else []) + [("epilogue", epi)]
    owner, errs = {}, []

    def phys(u):
        return (u[0], regs[u[1]].index + u[2])

    for name, instrs in order:
        for i, ins in enumerate(instrs):
            e = effects(target, ins)
            for u in e.reg_reads:
                if u[1] != -1 and owner.get(phys(u), u) != u:
                    errs.append(f"{name}[{i}] {ins}: {u} clobbered by {owner[phys(u)]}")
            for u in e.reg_writes:
                if u[1] != -1:
                    owner[phys(u)] = u
    return errs


class _Fuzz:
    def __init__(self, seed):
        self.seed = seed

    def priority(self, node):
        return 0


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(0, 12), st.integers(1, 25), st.integers(0, 12))
def test_random_kernels_compile_verify_and_never_share_live_registers(seed, n_pro, n_body, n_epi):
    rng = random.Random(seed)
    k = _random_kernel(rng, n_pro, n_body, n_epi)
    snap = {}

    def dump(stage, prog):
        if stage == "waitcnt":
            snap["live"] = compute_liveness(prog)
            snap["virt"] = [[n.instr for n in nodes] if nodes is not None else None
                            for nodes in (prog.prologue, prog.body, prog.epilogue)]

    c = compile_kernel(k, _Fuzz(seed), dump=dump)      # raises VerifyError if anything is missing
    assert check_no_overlap(snap["live"], c.allocation.regs) == []
    assert value_flow_errors(k.target, snap["virt"], c.allocation.regs) == []
    assert c.allocation.regs[0] == v(0)


def test_acc_to_agpr_moves_mfma_accumulators_only():
    k = new_kernel()
    acc, a_op, b_op = k.vreg("v", 4), k.vreg("v", 2), k.vreg("v", 2)
    addr, srd = k.vreg("v"), k.vreg("s", 4)
    st_ = make_stream(k, [Instr("v_mov_b32", (a_op.sub(0), Imm(0))), Instr("v_mov_b32", (a_op.sub(1), Imm(0))),
                          Instr("v_mov_b32", (b_op.sub(0), Imm(0))), Instr("v_mov_b32", (b_op.sub(1), Imm(0))),
                          Instr("v_mov_b32", (addr, Imm(0))),
                          Instr("v_mfma_f32_16x16x16_f16", (acc, a_op, b_op, Imm(0))),
                          Instr("buffer_store_dwordx4", (acc, addr, srd, Imm(0)), OFFEN)])
    insert_waitcnts(st_)
    regs = allocate(st_, acc_to_agpr=True).regs
    assert regs[acc.id].file == "a" and regs[a_op.id].file == "v" and regs[addr.id].file == "v"
    assert str(st_.prologue[-2].instr).startswith("v_mfma_f32_16x16x16_f16 a[0:3], v[")
