"""Verifier on physical registers: re-run the waitcnt and hazard analyses, raise on anything missing.

Register allocation may map two virtual registers to one physical range, which can create a
dependence through a load still in flight or a hazard the pre-allocation stream did not have
(style-anchors.md, "Register allocation can reuse a register that a load in flight still
writes"). This pass repeats both analyses without inserting anything, checks waits a second time
with an independent simulation of the in-flight queues (``asmgen.passes.wait_sim``: a bug in the
score-bracket arithmetic would fool the analysis that shares it) and checks that no virtual
register is left; every finding is reported in one ``VerifyError``.
"""
from __future__ import annotations

from ..errors import AsmgenError
from ..ir import Stream, VReg
from .hazards import check_hazards
from .wait_sim import simulate_waits
from .waitcnt import check_program


class VerifyError(AsmgenError):
    """The final stream misses a wait, a hazard s_nop or still has virtual registers."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = problems
        head = f"{len(problems)} problem(s) in the final instruction stream:"
        super().__init__("\n  ".join([head] + problems[:50]))


def verify(prog: Stream, hazard_rule=None) -> None:
    problems = []
    for name, nodes in prog.sections():
        for i, n in enumerate(nodes):
            if any(isinstance(o, VReg) for o in n.instr.operands):
                problems.append(f"{name}[{i}] {n.instr}: virtual register left after allocation")
    if problems:
        raise VerifyError(problems)
    problems += ["waitcnt: " + m for m in check_program(prog)]
    if not problems:     # the independent queue simulation (a second opinion, see wait_sim)
        problems += ["waitcnt (queue simulation): " + m for m in simulate_waits(prog)]
    problems += ["hazard: " + m for m in check_hazards(prog, hazard_rule)]
    if problems:
        raise VerifyError(problems)
