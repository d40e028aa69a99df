"""The KV loop's control flow: one body, a branch per key block between two bodies, or (causal)
an off-diagonal loop followed by a loop over the diagonal blocks.

Non-causal with whole key blocks promised (``seqlen_k_multiple`` 32): ``make_loop`` over one
unmasked body. Non-causal otherwise (and decode): the two-body form below, ``full_max`` =
seqlen_k - 32, so every block but a last partial one runs the unmasked body and the steady
state is the promised-length loop; its masked body sits after the latch, at ``loop_kv_diag``::

    loop_kv:          s_cmp_gt_i32 kbase, full_max ; s_cbranch_scc1 loop_kv_diag
    (loop)            the unmasked body
    loop_kv_latch:    the loop control (back to loop_kv)
                      s_branch loop_kv_end      (once, at the loop's exit)
    loop_kv_diag:     the per-element masked body ; s_branch loop_kv_latch
    loop_kv_end:

Causal: most key blocks lie wholly below the diagonal, where every key is visible to every row
of the wave, and they come first: blocks 0 .. ``n_full`` - 1 with ``n_full`` = min(seqlen_k,
lim0) >> 5 (lim0 = ``q0 + 1 + seqlen_k - seqlen_q``, the key limit of the wave's first row, the
smallest of its rows; clamped at 0), i.e. the blocks ``kbase <= full_max`` = min(seqlen_k, lim0)
- 32. So the loop is split in two, each bound computed once in the prologue: an off-diagonal
loop of ``n_full`` trips over the unmasked body alone (exactly the non-causal kernel's loop
without a key mask, ``seqlen_k_multiple`` 32: no per-trip test), then a diagonal loop of
``trips - n_full`` trips (``trips``: the workgroup's trip count, its last row decides) that
tests each block::

                      s_cmp_eq_u32 n_full, 0 ; s_cbranch_scc1 loop_kv_full_end
    loop_kv:          (loop) the unmasked body, the loop control (back to loop_kv)
    loop_kv_full_end: s_cmp_eq_u32 n_diag, 0 ; s_cbranch_scc1 loop_kv_end
    loop_kv_diag:     (several waves) s_cmp_ge_i32 kbase, wave_end ; s_cbranch_scc1 loop_kv_skip
    loop_kv_tri_test: s_cmp_lg_u32 kbase, diag_kb ; s_cbranch_scc1 loop_kv_mask
                      (one wave: this test is loop_kv_diag itself)
    loop_kv_tri:      the triangle body ; s_branch loop_kv_latch
    loop_kv_mask:     the per-element masked body ; s_branch loop_kv_latch (one wave: falls)
    loop_kv_skip:     (several waves) the skip body
    loop_kv_latch:    the loop control (back to loop_kv_diag)
    loop_kv_end:

n_full <= trips: the workgroup's last row sees at least the keys its wave's first row sees
(``template``: trips = ceil(min(e, seqlen_k) / 32), e >= lim0 for a wave with a row before
seqlen_q, and e = seqlen_k for one without). Every branch of the diagonal loop is forward, so
no cold body jumps back to the latch (``Stream.loops`` finds the two loops and no others).
Every body holds the same ``s_barrier``s (multi-wave loops), so waves that take different paths
or split their trips differently between the two loops still meet.

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
from isa.operands import Imm

from ...ir import Block, VReg
from .config import BLOCK_K


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
    if diag_kb is not None:     # causal: the off-diagonal loop, then the diagonal one
        _split_loop(ab, trips, kb, full_max, emit, wave_end, diag_kb, tri)
        return
    with k.do_loop(trips, "loop_kv", name="loop_kv_head") as head:
        diag = k.block("loop_kv_diag", cold=True, label="loop_kv_diag")
        k.branch(head, "s_cbranch_scc1", diag, Instr("s_cmp_gt_i32", (kb, full_max)))
        emit(k.block("loop"), False)
        latch = k.block("loop_kv_latch", label="loop_kv_latch")
        assert wave_end is None, "several waves' skip body: causal only"
        ab.mask_limit(diag)
        emit(diag, True)
        k.jump(diag, latch)


def _split_loop(ab, trips: VReg, kb: VReg, full_max: VReg, emit: Callable[..., None],
                wave_end: VReg | None, diag_kb: VReg, tri: list[VReg] | None) -> None:
    """The causal form (module docstring): ``n_full`` unmasked trips, then ``trips - n_full``
    tested ones; ``trips`` becomes the diagonal loop's counter."""
    k, p = ab.k, ab.k.prologue
    tags = ("addr",)
    n_full = ab.sreg(name="kv_full")
    p.add(Instr("s_add_i32", (n_full, full_max, Imm(BLOCK_K))), tags)   # min(seqlen_k, lim0)
    p.add(Instr("s_max_i32", (n_full, n_full, Imm(0))), tags)
    p.add(Instr("s_lshr_b32", (n_full, n_full, Imm(BLOCK_K.bit_length() - 1))), tags)
    p.add(Instr("s_sub_u32", (trips, trips, n_full)), tags)
    guard = k.block("loop_kv_full_test")
    with k.do_loop(n_full, "loop_kv", name="loop") as body:
        emit(body, False)
    mid = k.block("loop_kv_full_end", label="loop_kv_full_end")
    k.branch(guard, "s_cbranch_scc1", mid, Instr("s_cmp_eq_u32", (n_full, Imm(0))))
    with k.do_loop(trips, "loop_kv_diag", name="loop_kv_diag") as head:
        test = head
        if wave_end is not None:
            test = k.block("loop_kv_tri_test", label="loop_kv_tri_test")
        tri_b = k.block("loop_kv_tri", label="loop_kv_tri")
        emit(tri_b, True, tri=tri)
        mask = k.block("loop_kv_mask", label="loop_kv_mask")
        ab.mask_limit(mask)
        emit(mask, True)
        skip = None
        if wave_end is not None:
            skip = k.block("loop_kv_skip", label="loop_kv_skip")
            emit(skip, True, skip=True)
        latch = k.block("loop_kv_latch", label="loop_kv_latch")
    end = k.block("loop_kv_end", label="loop_kv_end")
    k.branch(mid, "s_cbranch_scc1", end, Instr("s_cmp_eq_u32", (trips, Imm(0))))
    if skip is not None:
        k.branch(head, "s_cbranch_scc1", skip, Instr("s_cmp_ge_i32", (kb, wave_end)))
        k.jump(mask, latch)
    k.branch(test, "s_cbranch_scc1", mask, Instr("s_cmp_lg_u32", (kb, diag_kb)))
    k.jump(tri_b, latch)
