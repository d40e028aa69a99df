"""The K LDS-DMA annotation of the multi-buffered attention loop (``publish_after = kv_buffers -
1``): the loop barrier of a 3-buffer kernel no longer waits for the DMA just issued, the kernels
still match the reference on the emulator, and a too large annotation is caught by the
emulator's LDS race / pending-read checks (cdna-facts sections 4 and 6)."""
from __future__ import annotations

import copy

import numpy as np
import pytest
from attn_util import ir_loop_blocks, run_case, steady_body

from asmgen.api import EmuRunner
from asmgen.api import compile_attention, get_attention_recipe
from asmgen.kinds.attention.config import AttentionConfig
from asmgen.kinds.attention.reference import attention_random_inputs
from isa.emu.errors import LdsRaceError, PendingReadError
from isa.waitcnt_enc import decode

C = AttentionConfig


def _is_dma(n) -> bool:
    return bool(dict(n.instr.mods).get("lds"))


def _compile(cfg, schedule="attn_basic", body_publish_after=None):
    """Compile; with ``body_publish_after`` every K DMA of the loop body gets that annotation."""
    import asmgen.kinds.attention.template as ta
    orig = ta.build_attention

    def build(c):
        k = orig(c)
        for n in (n for b in ir_loop_blocks(k) for n in b.nodes):
            if _is_dma(n):
                n.publish_after = body_publish_after
        return k
    if body_publish_after is not None:
        ta.build_attention = build
    try:
        return compile_attention(cfg, get_attention_recipe(schedule))
    finally:
        ta.build_attention = orig


def _barrier_vmcnt(kern) -> int:
    body = steady_body(kern)
    i = [n.instr.op for n in body].index("s_barrier")
    prev = body[i - 1].instr
    return decode(prev.operands[0].value).vmcnt if prev.op == "s_waitcnt" else 63


def _run(kern, cfg, seed):
    inp = attention_random_inputs(cfg, seed)
    b, h, sq, d = cfg.batch, cfg.heads, cfg.seqlen_q, cfg.head_dim
    outs = {"O": np.zeros((b, h, sq, d), inp["Q"].dtype), "LSE": np.zeros((b, h, sq), np.float32)}
    return EmuRunner(copy.deepcopy(kern.meta), kern.hsaco, seed=seed)(**inp, **outs)


@pytest.mark.parametrize("arch", ["gfx942", "gfx950"])
def test_three_buffers_annotate_and_relax_the_loop_barrier(arch):
    """Body K DMAs carry publish_after 2; the loop barrier's vmcnt is larger (fewer ops waited
    for) than with the annotation forced to 1, and the body DMAs it leaves in flight are exactly
    this iteration's."""
    cfg = C(waves=4, kv_buffers=3, seqlen_q=128, seqlen_k=160, arch=arch)
    kern = compile_attention(cfg, get_attention_recipe("attn_basic"))
    body = steady_body(kern)
    dmas = [n for n in body if _is_dma(n)]
    assert dmas and {n.publish_after for n in dmas} == {2}
    strict = _compile(cfg, body_publish_after=1)
    relaxed, old = _barrier_vmcnt(kern), _barrier_vmcnt(strict)
    assert relaxed > old
    i = [n.instr.op for n in body].index("s_barrier")
    first = min(x for x, n in enumerate(body[:i]) if _is_dma(n))
    vmem_from_first = sum(1 for n in body[first:i] if n.instr.op.startswith("buffer_"))
    assert relaxed >= vmem_from_first        # vmcnt(N) leaves the N youngest in flight


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("cfg,sched", [
    (C(waves=4, kv_buffers=3, seqlen_q=128, seqlen_k=200), "attn_basic"),
    (C(waves=4, kv_buffers=3, seqlen_q=100, seqlen_k=170, head_dim=128, arch="gfx950"),
     "attn_prio_interleave"),
    (C(waves=2, kv_buffers=3, seqlen_q=64, seqlen_k=33, causal=True), "attn_prio"),
], ids=["gfx942_w4", "gfx950_w4_d128", "gfx942_w2_causal"])
def test_three_buffer_kernels_match_reference(cfg, sched, seed):
    ok, msg, _ = run_case(cfg, seed, sched)
    assert ok, msg


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("arch", ["gfx942", "gfx950"])
def test_too_large_publish_after_is_caught_by_the_emulator(arch, seed):
    """2 buffers, publish_after 2 (one more than the truth): the loop barrier after which the
    other waves read block i + 1 leaves its DMA in flight -> race / pending read. (With 3
    buffers publish_after 3 is not observable: the V ds_writes of iteration i + 1 wait vmcnt for
    the V rows loaded after the K DMA of iteration i, which retires that DMA in order before the
    barrier that publishes it.)"""
    cfg = C(waves=4, kv_buffers=2, seqlen_q=128, seqlen_k=256, arch=arch)
    bad = _compile(cfg, body_publish_after=2)
    assert _barrier_vmcnt(bad) > _barrier_vmcnt(_compile(cfg))
    with pytest.raises((LdsRaceError, PendingReadError)):
        _run(bad, cfg, seed)
