"""The KV loop's control flow: one body, or a branch per key block between bodies.

Non-causal with whole key blocks promised (``seqlen_k_multiple`` 32): ``make_loop`` over one
unmasked body. Non-causal otherwise: the two-body form below (no ``diag_kb``, no ``wave_end``),
``full_max`` = seqlen_k - 32, so every block but a last partial one runs the unmasked body and
the steady state is the promised-length loop. Causal: most key blocks lie wholly below the diagonal, where every key is visible to every row
of the wave; only the diagonal blocks (and a last block ending past seqlen_k) need a mask. The
loop tests each block and branches (the prefill layout; decode and non-causal attention pass no
``diag_kb`` and keep the two-body form, its masked body at ``loop_kv_diag``)::

    loop_kv:          s_cmp_gt_i32 kbase, full_max ; s_cbranch_scc1 loop_kv_diag
    (loop)            the unmasked body: exactly the body of the non-causal kernel without a key
                      mask (``seqlen_k_multiple`` 32), scheduled on its own
    loop_kv_latch:    the loop control (back to loop_kv)
                      s_branch loop_kv_end      (once, at the loop's exit)
    loop_kv_diag:     (several waves) s_cmp_ge_i32 kbase, wave_end ; s_cbranch_scc1 loop_kv_skip
    loop_kv_tri_test: s_cmp_lg_u32 kbase, diag_kb ; s_cbranch_scc1 loop_kv_mask
                      (one wave: this test is loop_kv_diag itself)
    loop_kv_tri:      the triangle body ; s_branch loop_kv_latch
    loop_kv_mask:     the per-element masked body ; s_branch loop_kv_latch
    loop_kv_skip:     (several waves) the skip body ; s_branch loop_kv_latch
    loop_kv_end:

``full_max`` = min(seqlen_k, lim0) - 32, with lim0 the key limit of the wave's first row
(``q0 + 1 + seqlen_k - seqlen_q``, the smallest of its rows): block ``kbase`` .. + 31 is fully
visible iff ``kbase <= full_max``. The cold bodies sit after the latch, so the unmasked path
costs one compare and one branch not taken. Every body holds the same ``s_barrier``s
(multi-wave loops), so waves that take different paths still meet.

* Triangle: ``diag_kb`` = q0 + seqlen_k - seqlen_q (-1 for a wave with rows past seqlen_q):
  when a block starts there, the wave's 32 rows sit on its 32 keys and the visible keys form
  the same triangle whatever the lengths, so 16 constant lane masks (``template.tri_masks``)
  set the QK product's initial value to -inf above it (``softmax.tri_init``): no compare, no
  per-lane limit, no guard. Taken when seqlen_k - seqlen_q is a multiple of 32 (seqlen_q =
  seqlen_k among them).
* Mask: the per-element mask; it starts by computing the per-lane key limit
  (``AttnBuild.mask_limit``), so nothing of the mask is live across the other bodies.
* Skip (``waves`` > 1, shared K/V blocks): every wave runs the workgroup's trip count (its last
  row decides) to meet at each barrier, so the first waves reach key blocks wholly above their
  own rows. ``wave_end`` = min(q0 + 32, seqlen_q) + seqlen_k - seqlen_q, one past the last key
  of the wave's last row: block ``kbase`` has no visible key for any row of the wave iff
  ``kbase >= wave_end`` (and then ``kbase > full_max`` too). The skip body keeps the wave's
  share of the K/V loads, the block advance and the barrier, without MFMA or softmax: the
  softmax state stays as a fully masked block leaves it (m unchanged, alpha = 1, p = 0).
"""
from __future__ import annotations

from collections.abc import Callable

from isa.instr import Instr

from ...ir import Block, VReg


def kv_loop(ab, trips: VReg, kb: VReg, full_max: VReg | None,
            emit: Callable[..., None], wave_end: VReg | None = None,
            diag_kb: VReg | None = None, tri: list[VReg] | None = None) -> None:
    """Build the KV loop; ``emit(block, masked)`` appends one body to ``block``; with
    ``diag_kb`` and ``tri`` ``emit(block, True, tri=tri)`` the triangle body, with
    ``wave_end`` (several waves) ``emit(block, True, skip=True)`` the skip body."""
    k = ab.k
    if full_max is None:    # non-causal with whole key blocks promised: one unmasked body
        with k.do_loop(trips, "loop_kv", name="loop") as body:    # (= make_loop; emit may
            emit(body, False)                                    # split the body in blocks)
        return
    with k.do_loop(trips, "loop_kv", name="loop_kv_head") as head:
        diag = k.block("loop_kv_diag", cold=True, label="loop_kv_diag")
        k.branch(head, "s_cbranch_scc1", diag, Instr("s_cmp_gt_i32", (kb, full_max)))
        emit(k.block("loop"), False)
        latch = k.block("loop_kv_latch", label="loop_kv_latch")
        if wave_end is None and diag_kb is None:
            ab.mask_limit(diag)
            emit(diag, True)
            k.jump(diag, latch)
            return
        test = diag
        if wave_end is not None and diag_kb is not None:
            test = k.block("loop_kv_tri_test", cold=True, label="loop_kv_tri_test")
        tri_b = k.block("loop_kv_tri", cold=True, label="loop_kv_tri") if diag_kb is not None else None
        mask = k.block("loop_kv_mask", cold=True, label="loop_kv_mask")
        skip = k.block("loop_kv_skip", cold=True, label="loop_kv_skip") if wave_end is not None else None
        if skip is not None:
            k.branch(diag, "s_cbranch_scc1", skip, Instr("s_cmp_ge_i32", (kb, wave_end)))
        if tri_b is not None:
            assert tri is not None
            k.branch(test, "s_cbranch_scc1", mask, Instr("s_cmp_lg_u32", (kb, diag_kb)))
            emit(tri_b, True, tri=tri)
            k.jump(tri_b, latch)
        ab.mask_limit(mask)
        emit(mask, True)
        k.jump(mask, latch)
        if skip is not None:
            emit(skip, True, skip=True)
            k.jump(skip, latch)
