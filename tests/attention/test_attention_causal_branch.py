"""Causal attention masks only the diagonal key blocks (``asmgen.kinds.attention.kvloop``): the
loop branches per key block between an unmasked body and cold ones (the triangle, the per-element
mask, with several waves the skip: ``test_attention_causal_skip``). The unmasked body must be
the non-causal kernel's loop body (the same config without the key mask, ``seqlen_k_multiple``
32): the same instructions in the same order, waits and hazard nops included. Compared on the
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
    assert _shape(full) == _shape(body[:-3])
    vfull = _virtual(AttentionConfig(causal=True, **kw), sched)["loop"]
    vbody = _virtual(AttentionConfig(seqlen_k_multiple=32, **kw), sched)["loop"][:-3]
    why = _same_up_to_renaming(vfull, vbody)
    assert not why, why
    assert "v_cmp_lt_i32" not in [i.op for i in full]            # no mask on interior blocks
    mask = _block(causal, "loop_kv_mask")
    assert [i.op for i in mask].count("v_cmp_lt_i32") == 16 and mask[-1].op == "s_branch"
    head = _block(causal, "loop_kv_head")
    assert [str(i).split()[0] for i in head] == ["s_cmp_gt_i32", "s_cbranch_scc1"]
    assert str(head[-1]) == "s_cbranch_scc1 loop_kv_diag"
    # the cold path: (several waves) skip the blocks wholly above the wave's rows, then the
    # triangle block (the wave's diagonal) or the per-element mask
    diag = [str(i) for i in _block(causal, "loop_kv_diag")]
    tri_test = [str(i) for i in _block(causal, "loop_kv_tri_test" if waves > 1 else "loop_kv_diag")]
    assert tri_test[0].startswith("s_cmp_lg_u32") and tri_test[1] == "s_cbranch_scc1 loop_kv_mask"
    if waves > 1:
        assert diag[0].startswith("s_cmp_ge_i32") and diag[1] == "s_cbranch_scc1 loop_kv_skip"
    # layout: the unmasked body falls through to the latch; the others are after the loop
    names = [b.name for b in causal.compiled.stream.blocks]
    i = names.index("loop_kv_head")
    cold = (["loop_kv_diag", "loop_kv_tri_test", "loop_kv_tri", "loop_kv_mask", "loop_kv_skip"]
            if waves > 1 else ["loop_kv_diag", "loop_kv_tri", "loop_kv_mask"])
    assert names[i:i + 4 + len(cold)] == ["loop_kv_head", "loop", "loop_kv_latch",
                                          "loop_kv_exit"] + cold
