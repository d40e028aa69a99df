"""The mutation proof over proof kernel A (nested loops): the sites ``asmgen.fuzz.mutate_sites``
finds in its final text (waits, hazard nops, in-flight reuse, dependent swaps; chosen statically
by ``asmgen.fuzz.predict``), each mutant re-assembled and run on the emulator; every one must be
killed (the predicted emulator error, or a wrong result where any error is accepted). The
kernel is not a GEMM/attention contract, so this test is its runner (``run_mutant`` dispatches
on the contract's kind)."""
from __future__ import annotations

import random

import numpy as np
import pytest
from persistent_gemm import NAME, assemble, problem, run

from asmgen.fuzz.mutate import ANY, CORRECTNESS_CLASSES
from asmgen.fuzz.mutate_sites import Program, all_sites
from asmgen.target import target_of
from asmgen.toolchain import find_toolchain


def _outcome(tc, asm: str, arch: str) -> str:
    from isa.emu.errors import EmulatorError
    a, b = problem(2, 2, 4, seed=3)
    try:
        got = run(tc.assemble(asm, arch), a, b, 4, 2, seed=1, arch=arch)
    except EmulatorError as exc:
        return type(exc).__name__
    want = a.astype(np.float32) @ b.astype(np.float32)
    return "survived" if np.allclose(got, want, rtol=2e-3, atol=2e-3) else "Mismatch"


@pytest.mark.parametrize("arch", ["gfx942", "gfx950"])
def test_mutants_of_the_nested_loop_kernel_are_killed(arch):
    tc = find_toolchain()
    _, asm = assemble(arch, 1)
    assert _outcome(tc, asm, arch) == "survived"          # baseline
    prog = Program.from_asm(asm, target_of(arch), NAME)
    assert len(prog.loop_ranges()) == 2                   # both loops seen by the sites
    found = all_sites(prog, 1)
    rng = random.Random(0)
    tried = []
    for cls in CORRECTNESS_CLASSES:
        cands = found.get(cls, [])
        for m in rng.sample(cands, min(3, len(cands))):
            got = _outcome(tc, m.apply(prog), arch)
            tried.append((cls, m.description, m.expected, got))
    classes = {t[0] for t in tried}
    assert {"delete_waitcnt", "shorten_nop"} <= classes, tried
    bad = [t for t in tried if t[3] == "survived" or (ANY not in t[2] and t[3] not in t[2])]
    assert not bad, bad
    assert len(tried) >= 8, tried
