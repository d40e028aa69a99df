"""Natural loops are closed by back edges whose target dominates their source (``asmgen.ir.cfg``):
a cold arm placed after a loop's latch that jumps back to it (the two-body KV loop of
``kinds.attention.kvloop``) is part of that loop, not a loop of its own; so no block of the loop
counts as entering a loop (where the waitcnt pass puts its loop-entry SMEM and VMEM waits; the
attention kernel's case: ``tests/attention/test_attention_nomask.py``)."""
from __future__ import annotations

from asmgen.ir.cfg import dominators, natural_loops

# prologue, head (-> cold), body, latch (-> head), exit (-> end), cold (-> latch), end, epilogue
COLD_ARM = [[1], [2, 5], [3], [4, 1], [6], [3], [7], []]


def test_dominators_of_the_cold_arm_shape():
    dom = dominators(COLD_ARM)
    assert dom[0] == {0} and dom[3] == {0, 1, 3} and dom[5] == {0, 1, 5}
    assert dom[6] == {0, 1, 3, 4, 6}      # the loop's only exit is the latch's


def test_a_cold_arm_jumping_back_to_the_latch_is_no_loop():
    assert natural_loops(COLD_ARM) == [(1, 3, frozenset({1, 2, 3, 5}))]


def test_self_loop_and_nested_loops():
    assert natural_loops([[1], [1, 2], []]) == [(1, 1, frozenset({1}))]
    # outer 1..3 around inner 2 (the persistent-GEMM shape)
    loops = natural_loops([[1], [2], [2, 3], [4, 1], []])
    assert sorted(loops) == [(1, 3, frozenset({1, 2, 3})), (2, 2, frozenset({2}))]
