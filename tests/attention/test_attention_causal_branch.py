"""Causal attention masks only the diagonal key blocks (``asmgen.kinds.attention.kvloop``): an
off-diagonal loop over the unmasked body alone (no per-trip test, its trip count computed once),
then a diagonal loop that branches per key block between the triangle, the per-element mask and,
with several waves, the skip (``test_attention_causal_skip``). The off-diagonal loop must be the
non-causal kernel's loop (the same config without the key mask, ``seqlen_k_multiple`` 32): the
same instructions in the same order, waits, hazard nops and loop control included. Compared on the
stream before register allocation (virtual registers equal up to a bijective renaming of their
roots: the two kernels number their registers differently) and on the final stream (the same
mnemonics, modifiers and immediates: waits and s_nop counts; physical registers differ, as the
two kernels' prologues and epilogues allocate differently)."""
from __future__ import annotations

import pytest
from attn_util import kernel

from asmgen.api import get_recipe
from asmgen.ir import VReg
from asmgen.kinds import registry
from asmgen.kinds.attention.config import AttentionConfig
from asmgen.passes.manager import compile_kernel
from isa.operands import Reg

CASES = [("gfx942", 1, 128, "attn_basic"), ("gfx942", 1, 64, "attn_interleave"),
         ("gfx950", 1, 128, "attn_prio"), ("gfx942", 4, 128, "attn_basic"),
         ("gfx950", 2, 64, "attn_prio_interleave")]


def _block(kern, name):
    return [n.instr for n in next(b for b in kern.compiled.stream.blocks if b.name == name).nodes]


def _virtual(cfg, sched):
    """Every block's instructions after waitcnt insertion, before register allocation."""
    seen = {}

    def dump(stage, prog):
        if stage == "waitcnt":
            seen.update({b.name: [n.instr for n in b.nodes] for b in prog.blocks})
    recipe = get_recipe(sched)
    if hasattr(recipe, "bind"):      # as asmgen.driver.compile does
        recipe = recipe.bind(cfg)
    compile_kernel(registry.of_config(cfg).build(cfg, recipe), recipe, dump=dump)
    return seen


def _same_up_to_renaming(xs, ys) -> str:
    """'' when ``xs`` and ``ys`` are equal but for a bijective renaming of virtual register
    roots (physical registers must be equal), else the first difference."""
    fwd, back = {}, {}
    if len(xs) != len(ys):
        return f"{len(xs)} vs {len(ys)} instructions"
    for i, (x, y) in enumerate(zip(xs, ys)):
        if (x.op, x.mods, x.encoding, len(x.operands)) != (y.op, y.mods, y.encoding, len(y.operands)):
            return f"[{i}] {x} vs {y}"
        for a, b in zip(x.operands, y.operands):
            if isinstance(a, VReg) and isinstance(b, VReg):
                same = (a.file, a.offset, a.count) == (b.file, b.offset, b.count)
                if not same or fwd.setdefault(a.id, b.id) != b.id or back.setdefault(b.id, a.id) != a.id:
                    return f"[{i}] {x} vs {y}: {a} / {b} renamed inconsistently"
            elif a != b:
                return f"[{i}] {x} vs {y}"
    return ""


def _shape(instrs):
    """What the final stream must share: mnemonics, modifiers and immediates (not registers)."""
    return [(i.op, i.mods, tuple(o for o in i.operands if not isinstance(o, Reg))) for i in instrs]


@pytest.mark.parametrize("arch, waves, d, sched", CASES)
def test_unmasked_body_is_the_non_causal_body(arch, waves, d, sched):
    kw = {"batch": 1, "heads": 2, "kv_heads": 1, "seqlen_q": 256, "seqlen_k": 256, "head_dim": d,
          "dtype": "bf16", "arch": arch, "waves": waves}
    causal = kernel(AttentionConfig(causal=True, **kw), sched)
    plain = kernel(AttentionConfig(seqlen_k_multiple=32, **kw), sched)
    full = _block(causal, "loop")
    body = _block(plain, "loop")
    assert [i.op for i in body[-3:]] == ["s_sub_u32", "s_cmp_lg_u32", "s_cbranch_scc1"]
    assert str(full[-1]) == "s_cbranch_scc1 loop_kv"      # its own back edge: no test per trip
    assert _shape(full) == _shape(body)
    vfull = _virtual(AttentionConfig(causal=True, **kw), sched)["loop"]
    vbody = _virtual(AttentionConfig(seqlen_k_multiple=32, **kw), sched)["loop"]
    why = _same_up_to_renaming(vfull, vbody)
    assert not why, why
    assert "v_cmp_lt_i32" not in [i.op for i in full]            # no mask on interior blocks
    assert not [i for i in full if i.op.startswith("s_cmp") and i.op != "s_cmp_lg_u32"]
    mask = _block(causal, "loop_kv_mask")
    assert [i.op for i in mask].count("v_cmp_lt_i32") == 16
    assert (mask[-1].op == "s_branch") == (waves > 1)     # one wave: falls through to the latch
    # the off-diagonal loop is skipped when it has no trip, the diagonal one likewise
    guard = [str(i) for i in _block(causal, "loop_kv_full_test")]
    assert guard[-1] == "s_cbranch_scc1 loop_kv_full_end" and guard[0].startswith("s_cmp_eq_u32")
    mid = [str(i) for i in _block(causal, "loop_kv_full_end")]
    assert mid[-1] == "s_cbranch_scc1 loop_kv_end" and mid[0].startswith("s_cmp_eq_u32")
    # the diagonal loop: (several waves) skip the blocks wholly above the wave's rows, then the
    # triangle block (the wave's diagonal) or the per-element mask
    diag = [str(i) for i in _block(causal, "loop_kv_diag")]
    tri_test = [str(i) for i in _block(causal, "loop_kv_tri_test" if waves > 1 else "loop_kv_diag")]
    assert tri_test[0].startswith("s_cmp_lg_u32") and tri_test[1] == "s_cbranch_scc1 loop_kv_mask"
    if waves > 1:
        assert diag[0].startswith("s_cmp_ge_i32") and diag[1] == "s_cbranch_scc1 loop_kv_skip"
    assert str(_block(causal, "loop_kv_tri")[-1]) == "s_branch loop_kv_latch"
    latch = [str(i) for i in _block(causal, "loop_kv_latch")]
    assert latch[-1] == "s_cbranch_scc1 loop_kv_diag"
    names = [b.name for b in causal.compiled.stream.blocks]
    i = names.index("loop_kv_full_test")
    diag_loop = (["loop_kv_diag", "loop_kv_tri_test", "loop_kv_tri", "loop_kv_mask", "loop_kv_skip"]
                 if waves > 1 else ["loop_kv_diag", "loop_kv_tri", "loop_kv_mask"])
    loop = names[i + 1:names.index("loop_kv_full_end")]      # the unmasked body's blocks
    assert loop[0] == "loop" and all(n.startswith("loop") for n in loop)
    j = i + 1 + len(loop)
    assert names[j:j + 3 + len(diag_loop)] == (["loop_kv_full_end"] + diag_loop
                                               + ["loop_kv_latch", "loop_kv_end"])


@pytest.mark.parametrize("arch, waves, d, sched", CASES[::2])
def test_two_loops_and_no_fake_ones(arch, waves, d, sched):
    """``Stream.loops`` finds exactly the off-diagonal and the diagonal loop: every branch of the
    diagonal loop's bodies is forward (no cold body jumps back to a latch)."""
    kw = {"batch": 1, "heads": 2, "kv_heads": 1, "seqlen_q": 256, "seqlen_k": 256, "head_dim": d,
          "dtype": "bf16", "arch": arch, "waves": waves}
    prog = kernel(AttentionConfig(causal=True, **kw), sched).compiled.stream
    names = [b.name for b in prog.blocks]
    heads = sorted(names[h] for h, _, _ in prog.loops())
    assert heads == ["loop", "loop_kv_diag"], heads
