"""The KV loop's control flow: one body, or (causal) a branch per key block between two bodies.

Non-causal: ``make_loop`` over one body, masked per element when ``AttentionConfig.key_mask``.
Causal: most key blocks lie wholly below the diagonal, where every key is visible to every row
of the wave; only the diagonal blocks (and a last block ending past seqlen_k) need the
per-element mask. The loop tests each block and branches::

    loop_kv:        s_cmp_gt_i32 kbase, full_max ; s_cbranch_scc1 loop_kv_diag
    (loop)          the unmasked body: exactly the body of the non-causal kernel without a key
                    mask (``seqlen_k_multiple`` 32), scheduled on its own
    loop_kv_latch:  the loop control (back to loop_kv)
                    s_branch loop_kv_end      (once, at the loop's exit)
    loop_kv_diag:   the masked body ; s_branch loop_kv_latch
    loop_kv_end:

The masked body starts by computing the per-lane key limit (``AttnBuild.mask_limit``), so
nothing of the mask is live across the unmasked body. ``full_max`` = min(seqlen_k, lim0) - 32, with lim0 the key limit of the wave's first row
(``q0 + 1 + seqlen_k - seqlen_q``, the smallest of its rows): block ``kbase`` .. + 31 is fully
visible iff ``kbase <= full_max``. The masked body sits after the latch (a cold block), so the
unmasked path costs one compare and one branch not taken. Both bodies hold the same
``s_barrier``s (multi-wave loops), so waves that take different paths still meet.
"""
from __future__ import annotations

from collections.abc import Callable

from isa.instr import Instr

from ...ir import Block, VReg


def kv_loop(ab, trips: VReg, kb: VReg, full_max: VReg | None,
            emit: Callable[[Block, bool], None]) -> None:
    """Build the KV loop; ``emit(block, masked)`` appends one body to ``block``."""
    cfg, k = ab.cfg, ab.k
    if not cfg.causal:
        emit(k.make_loop(trips, label="loop_kv"), cfg.key_mask)
        return
    assert full_max is not None
    with k.do_loop(trips, "loop_kv", name="loop_kv_head") as head:
        diag = k.block("loop_kv_diag", cold=True, label="loop_kv_diag")
        k.branch(head, "s_cbranch_scc1", diag, Instr("s_cmp_gt_i32", (kb, full_max)))
        emit(k.block("loop"), False)
        latch = k.block("loop_kv_latch", label="loop_kv_latch")
        ab.mask_limit(diag)
        emit(diag, True)
        k.jump(diag, latch)
