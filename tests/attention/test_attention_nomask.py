"""The ``seqlen_k_multiple`` contract: a non-causal kernel promised whole key blocks drops the
per-element key mask (no compare/select in the loop) and stays correct on the emulator; the
promise is checked at launch, and causal kernels keep their mask (on the diagonal blocks)."""
import pytest
from attn_util import kernel, run_case

from asmgen.errors import ConfigError, KernargError
from asmgen.kinds.attention.config import AttentionConfig


def _loop(asm: str) -> str:
    """The KV loop's fall-through body: from the ``loop_kv:`` label to the latch (branching
    loops, kvloop) or to its backward branch (one body)."""
    body = asm.split("loop_kv:")[1].split("loop_kv_latch:")[0]
    return body.split("s_cbranch_scc1 loop_kv\n")[0]


@pytest.mark.parametrize("seed", (0, 1))
@pytest.mark.parametrize("arch, waves, d", [("gfx942", 4, 128), ("gfx950", 2, 64),
                                            ("gfx950", 1, 128)])
def test_unmasked_kernel_matches_reference(arch, waves, d, seed):
    cfg = AttentionConfig(batch=1, heads=2, kv_heads=1, seqlen_q=100, seqlen_k=96, head_dim=d,
                          dtype="bf16", arch=arch, waves=waves, seqlen_k_multiple=32)
    assert not cfg.key_mask and cfg.name.endswith("_nomask")
    assert "v_mfma" in _loop(kernel(cfg).asm) and "v_cmp_lt_i32" not in _loop(kernel(cfg).asm)
    ok, msg, _ = run_case(cfg, seed)
    assert ok, msg
    ok, msg, _ = run_case(cfg, seed, seqlen_k=64, seqlen_q=33)    # other whole-block lengths
    assert ok, msg


def test_masked_kernel_keeps_the_mask():
    masked = AttentionConfig(seqlen_k=96, seqlen_k_multiple=16, head_dim=64)
    causal = AttentionConfig(seqlen_k=96, seqlen_k_multiple=32, head_dim=64, causal=True)
    assert masked.key_mask and causal.key_mask
    asm = kernel(causal).asm
    # causal: the diagonal key blocks take the triangle or the masked copy of the body
    # (asmgen.kinds.attention.kvloop), after the loop's latch; the fall-through body is unmasked
    mask = asm.split("loop_kv_mask:")[1].split("s_branch loop_kv_latch")[0]
    assert "v_cmp_lt_i32" in mask
    assert "v_mfma" in _loop(asm) and "v_cmp_lt_i32" not in _loop(asm)


def test_promise_is_checked_at_launch():
    cfg = AttentionConfig(seqlen_q=64, seqlen_k=96, head_dim=64, seqlen_k_multiple=32)
    with pytest.raises(KernargError, match="seqlen_k = 80 is not a multiple of 32"):
        run_case(cfg, 0, seqlen_k=80)


@pytest.mark.parametrize("m, match", [(3, "not a power of two"), (64, "does not divide")])
def test_bad_multiple(m, match):
    with pytest.raises(ConfigError, match=match):
        AttentionConfig(seqlen_k=96, seqlen_k_multiple=m)


@pytest.mark.parametrize("seed", (0, 1))
@pytest.mark.parametrize("arch, waves, d, schedule", [("gfx942", 1, 64, "attn_interleave"),
                                                      ("gfx950", 4, 128, "attn_prio_interleave")])
def test_key_mask_only_on_the_last_partial_block(arch, waves, d, schedule, seed):
    """Without a length promise the non-causal loop branches per key block (kvloop): the
    fall-through body has no mask, the per-element mask sits in the cold ``loop_kv_diag`` arm,
    and the kernel matches the reference whether the last block is partial (the mask runs once,
    after whole blocks: one key short of whole, or one key), the only block, or whole (the mask
    never runs). Several waves: the masked arm has no closing barrier, race-free."""
    cfg = AttentionConfig(batch=1, heads=2, kv_heads=1, seqlen_q=70, seqlen_k=127, head_dim=d,
                          dtype="bf16", arch=arch, waves=waves)
    assert cfg.key_mask
    asm = kernel(cfg, schedule).asm
    assert "v_mfma" in _loop(asm) and "v_cmp_lt_i32" not in _loop(asm)
    masked = asm.split("loop_kv_diag:")[1].split("s_branch loop_kv_latch")[0]
    assert "v_cmp_lt_i32" in masked
    # several waves: the masked arm (the last block only) closes with no s_barrier, the
    # unmasked body with one (kinds.attention.pipe: nothing after the last trip reads LDS); the
    # emulator's LDS race detector checks every run below
    assert ("s_barrier" in _loop(asm)) == (waves > 1) and "s_barrier" not in masked
    for sk in (127, 33, 20, 96):
        ok, msg, _ = run_case(cfg, seed, schedule, seqlen_k=sk)
        assert ok, f"seqlen_k={sk}: {msg}"


@pytest.mark.parametrize("seed", (0, 1))
@pytest.mark.parametrize("arch, kv_buffers", [("gfx942", 2), ("gfx950", 3)])
def test_masked_arm_needs_no_closing_barrier(arch, kv_buffers, seed):
    """The non-causal multi-wave loop's masked arm runs on the last key block only; its closing
    s_barrier guarded no later LDS access (deleting it survived the mutation proof), so it is
    gone: the kernel (4 waves, D128, 100 x 130, the mutation run's case) matches the reference
    with the emulator's race detector on."""
    cfg = AttentionConfig(batch=1, heads=2, kv_heads=1, seqlen_q=100, seqlen_k=130, head_dim=128,
                          dtype="bf16", arch=arch, waves=4, kv_buffers=kv_buffers)
    prog = kernel(cfg, "attn_prio_interleave").compiled.stream
    ops = {b.name: [n.instr.op for n in b.nodes] for b in prog.blocks}
    assert "s_barrier" in ops["loop"] and "s_barrier" not in ops["loop_kv_diag"]
    ok, msg, _ = run_case(cfg, seed, "attn_prio_interleave")
    assert ok, msg


def test_two_body_kv_loop_is_one_loop_and_entered_from_outside():
    """The non-causal multi-wave kernel without a length promise: its masked arm after the latch
    jumps back to it. One loop (head .. latch, the arm included); the blocks entering it lie
    outside it (the fake loop the arm made once put the hot body among them, so a loop-entry
    wait could land at the end of the body, every trip)."""
    from asmgen.ir.cfg import predecessors
    from asmgen.passes.waitcnt import _block_extras
    cfg = AttentionConfig(batch=1, heads=2, kv_heads=1, seqlen_q=100, seqlen_k=130, head_dim=128,
                          dtype="bf16", arch="gfx942", waves=4)
    prog = kernel(cfg, "attn_prio_interleave").compiled.stream
    names = [b.name for b in prog.blocks]
    ((h, latch, body),) = prog.loops()
    assert (names[h], names[latch]) == ("loop_kv_head", "loop_kv_latch")
    assert {names[b] for b in body} == {"loop_kv_head", "loop", "loop_kv_latch", "loop_kv_diag"}
    succ, pred = prog.cfg()
    assert pred == predecessors(succ)
    extras = _block_extras(prog, succ, pred)
    entering = [names[b] for b, x in enumerate(extras) if x is not None and x[1]]
    assert entering and all(names.index(n) not in body for n in entering), entering
