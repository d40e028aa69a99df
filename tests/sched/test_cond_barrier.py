"""Conditional s_barrier (``KernelIR.add_conditional_barrier``): placement around scheduling,
emission as a branch over the barrier, waits placed before the branch, and on the emulator the
skipping waves really skip it (their LDS reads then race with the other group's writes)."""
import pytest

from asmgen.emit import emit_kernel
from asmgen.ir import IRError, KernelIR
from asmgen.kinds.gemm.tags import GEMM_TAGS
from asmgen.passes.manager import compile_kernel
from asmgen.program import KernelResources
from asmgen.target import target_of
from isa.instr import Instr
from isa.operands import Imm, v


def _kernel(threshold: int) -> KernelIR:
    """Each wave writes its id to LDS dword ``wave``; waves with id >= ``threshold`` take a
    barrier; then every wave reads the dword of wave ``wave ^ 4``."""
    k = KernelIR(target_of("gfx942"), "cond_bar", tags=GEMM_TAGS)
    tid = k.precolored("v", v(0), "tid")
    p = k.prologue
    wave, addr, wsg = k.vreg("v"), k.vreg("v"), k.vreg("s")
    p.add(Instr("v_lshrrev_b32", (wave, Imm(6), tid)))
    p.add(Instr("v_lshlrev_b32", (addr, Imm(2), wave)))
    p.add(Instr("ds_write_b32", (addr, wave)), lds_write="R")
    p.add(Instr("v_readfirstlane_b32", (wsg, wave)))
    k.add_conditional_barrier("prologue_end", Instr("s_cmp_ge_u32", (wsg, Imm(threshold))))
    e = k.epilogue
    other, addr2, got = k.vreg("v"), k.vreg("v"), k.vreg("v")
    e.add(Instr("v_xor_b32", (other, Imm(4), wave)))
    e.add(Instr("v_lshlrev_b32", (addr2, Imm(2), other)))
    e.add(Instr("ds_read_b32", (got, addr2)), lds_read="R")
    e.add(Instr("v_add_u32", (got, got, other)))     # use the value (a wait before it)
    k.lds_bytes = 64
    return k


def _compile(threshold: int):
    k = _kernel(threshold)
    c = compile_kernel(k)
    used = c.allocation.used
    res = KernelResources(name="cond_bar", arch="gfx942", vgprs=max(used.get("v", 0), 1),
                          sgprs=max(used.get("s", 0), 4), lds_bytes=64, max_flat_workgroup_size=512)
    return c, emit_kernel(c.items(), res)


def test_emitted_as_branch_over_barrier_with_waits_first():
    c, asm = _compile(4)
    items = [it if isinstance(it, str) else str(it) for it in c.items()]
    i = next(j for j, t in enumerate(items) if t.startswith("s_cbranch_scc0"))
    # the wait that publishes the ds_write runs on both paths: before the branch
    assert items[i - 1].startswith("s_waitcnt"), items[i - 3:i + 3]
    assert items[i - 2].startswith("s_cmp_ge_u32")
    assert items[i] == "s_cbranch_scc0 cond_barrier_skip0"
    assert items[i + 1] == "s_barrier" and items[i + 2] == "cond_barrier_skip0"
    lines = [ln.strip() for ln in asm.splitlines()]
    j = lines.index("s_cbranch_scc0 cond_barrier_skip0")
    assert lines[j - 1] == "s_waitcnt lgkmcnt(0)"
    assert lines[j + 1:j + 3] == ["s_barrier", "cond_barrier_skip0:"]


def test_conditional_barrier_is_a_branch_around_a_barrier_block():
    from asmgen.passes.manager import lower
    k = _kernel(4)
    k.add_conditional_barrier("epilogue_start", Instr("s_cmp_lt_u32", (k.vreg("s"), Imm(4))))
    prog = lower(k)
    names = [b.name for b in prog.blocks]
    assert names == ["prologue", "cond_barrier0", "cond_skip0", "cond_test1", "cond_barrier1",
                     "cond_skip1", "epilogue"]
    by = {b.name: b for b in prog.blocks}
    # the compare and the branch end the (scheduled) prologue, unscheduled, in this order
    assert [n.instr.op for n in by["prologue"].nodes[-2:]] == ["s_cmp_ge_u32", "s_cbranch_scc0"]
    assert [n.instr.op for n in by["cond_test1"].nodes] == ["s_cmp_lt_u32", "s_cbranch_scc0"]
    for i in (0, 1):
        bar = by[f"cond_barrier{i}"]
        assert [n.instr.op for n in bar.nodes] == ["s_barrier"] and bar.hoist_waits
        assert "cond_barrier" in bar.nodes[0].tags and not by[f"cond_skip{i}"].nodes
    succ, _ = prog.cfg()
    ix = names.index
    assert succ[ix("prologue")] == [ix("cond_barrier0"), ix("cond_skip0")]
    assert succ[ix("cond_barrier0")] == [ix("cond_skip0")]
    assert succ[ix("cond_test1")] == [ix("cond_barrier1"), ix("cond_skip1")]


def test_bad_place_and_compare_rejected():
    k = KernelIR(target_of("gfx942"), "x", tags=GEMM_TAGS)
    with pytest.raises(IRError, match="loop_head"):
        k.add_conditional_barrier("loop_head", Instr("s_cmp_ge_u32", (k.vreg("s"), Imm(4))))
    with pytest.raises(IRError, match="s_cmp"):
        k.add_conditional_barrier("prologue_end", Instr("s_mov_b32", (k.vreg("s"), Imm(4))))


@pytest.mark.parametrize("seed", [0, 1])
def test_emulator_skipping_waves_race_taking_waves_do_not(seed):
    from asmgen.toolchain import find_toolchain
    from isa.emu import Emulator
    from isa.emu.errors import LdsRaceError
    tc = find_toolchain()
    # every wave takes the barrier (id >= 0): the reads of the other waves' dwords are published
    _, asm = _compile(0)
    Emulator(arch="gfx942", seed=seed).launch(tc.assemble(asm, "gfx942"), kernel="cond_bar",
                                               grid=(1, 1, 1), block=(512, 1, 1), kernargs=b"")
    # only waves 4..7 take it: waves 0..3 read dwords 4..7 in the epoch they were written
    _, asm = _compile(4)
    with pytest.raises(LdsRaceError):
        Emulator(arch="gfx942", seed=seed).launch(tc.assemble(asm, "gfx942"), kernel="cond_bar",
                                                   grid=(1, 1, 1), block=(512, 1, 1), kernargs=b"")
