"""Findings of the schedule fuzzer and the mutation proof, kept as regression tests.

1. Counter saturation (fixed in ``asmgen.passes.waitcnt`` after the fuzzer found it). The pass
   assumed a wave never has more than 15 LDS/SMEM (63 VMEM) operations outstanding, so an op with
   15 (63) younger ones was treated as complete without any wait (an ``lb >= ub - max`` rule).
   LLVM's SIInsertWaitcnts makes that assumption for expcnt only (``setScoreUB``) and otherwise
   waits with ``min(needed, max - 1)``; cdna-facts section 4 states no issue stall at the counter
   maximum and the emulator models none. Random schedules that bunch 16+ ds_reads / 64+
   buffer_loads hit it (``asmgen fuzz gemm --seed 1``; 7 of 262 cases of the first campaign).
2. Emulator gap: registers the descriptor does not initialise read as zero (fixed since: the
   launch now fills them with seeded garbage, ``isa.emu.launch.poison_wave``).
"""
from __future__ import annotations

from asmgen.fuzz.cases import run_case
from asmgen.fuzz.predict import register_violations
from asmgen.fuzz.strategies import FuzzCase
from asmgen.ir import KernelIR
from asmgen.kinds.gemm.config import GemmConfig
from asmgen.kinds.gemm.tags import GEMM_TAGS
from asmgen.passes.manager import compile_kernel
from asmgen.target import target_of
from isa.instr import Instr
from isa.operands import v


class ProgramOrder:
    """A recipe keeping program order (so the 16 reads stay ahead of their consumers)."""

    def priority(self, node):
        return -node.id


def test_sixteen_ds_reads_then_use_of_the_first_gets_a_wait():
    """Minimal: 16 ds_reads (the first one's result is consumed after 15 younger LDS ops)."""
    k = KernelIR(target_of("gfx942"), name="sat16", tags=GEMM_TAGS)
    tid = k.precolored("v", v(0), "tid")
    p = k.prologue
    dst = [k.vreg("v", 1, name=f"d{i}") for i in range(16)]
    for i, d in enumerate(dst):
        p.add(Instr("ds_read_b32", (d, tid), (("offset", 4 * i),)), tags={"lr_a"}, lds_read="A")
    acc = k.vreg("v", 1, name="acc")
    p.add(Instr("v_add_u32", (acc, dst[0], dst[0])))      # needs only the oldest ds_read
    for d in dst[1:]:
        p.add(Instr("v_add_u32", (acc, acc, d)))
    p.add(Instr("ds_write_b32", (tid, acc)), lds_write="B")
    k.lds_bytes = 4096
    instrs = [n.instr for _, nodes in compile_kernel(k, ProgramOrder()).stream.sections()
              for n in nodes]
    bad = [vi for vi in register_violations(instrs, k.target) if vi.error.startswith("Pending")]
    assert not bad, f"{bad[0].error} at [{bad[0].index}] {instrs[bad[0].index]}: {bad[0].detail}"


def test_fuzz_reproducer_lgkm_saturation_gfx950():
    """The shrunk fuzz reproducer (PendingReadError on an MFMA operand, 16 lgkm ops in flight)."""
    cfg = GemmConfig(m=22, n=1, k=1, dtype="bf16", arch="gfx950", layout="TN", out_dtype="bf16",
                     tile=(32, 32, 64), waves=(2, 1), mfma=(16, 16, 16), prefetch=1)
    out = run_case(FuzzCase(cfg, 15143248, 36289259))
    assert out.kind == "pass", f"{out.kind}: {out.message[:600]}"


def test_emulator_rejects_kernel_reading_a_never_written_sgpr():
    """Emulator gap (found by the mutation proof: ``swap_dependent`` of ``s_mov_b32 s30, 0`` and
    its reader survived). Registers the kernel descriptor does not initialise hold stale data at
    wave launch on hardware; a zero-filled register file let a kernel that forgets to zero a
    register (here: its first write ``s_mov_b32 sN, <constant>`` deleted) pass on the emulator."""
    from asmgen.api import gemm
    from asmgen.fuzz.mutate import SURVIVED, Mutant, Program, run_mutant
    from asmgen.passes.effects import effects
    kern = gemm(m=64, n=64, k=128, schedule="pgr1")
    prog = Program.from_asm(kern.asm, kern.config.target, kern.name)
    seen = set()
    site = None
    for i, ins in enumerate(prog.instrs):
        e = effects(prog.target, ins)
        if (ins.op == "s_mov_b32" and str(ins.operands[1])[0].isdigit()
                and not set(e.writes) & seen and ins.operands[0].index >= 16):
            site = i
            break
        seen |= set(e.reads) | set(e.writes)
    assert site is not None, "no constant first write of an SGPR in the kernel"
    m = Mutant("drop_init", site, f"delete [{site}] {prog.instrs[site]}", [("del", site, "")], ())
    r = run_mutant(kern, prog, m, seed=0)
    assert r.outcome != SURVIVED, (f"the emulator accepted a kernel reading an uninitialised "
                                   f"register ({m.description})")
