"""Recipes name declared tags: a bare string (a typo cannot be caught otherwise) is refused when the
recipe is made, a typo'd member fails at import, and a recipe naming a tag the kernel's kind does
not declare is a SchedError naming the recipe, the tag and the kind at its first use."""
import pytest

from asmgen import recipes
from asmgen.api import attention, gemm
from asmgen.driver import compile
from asmgen.kinds import registry
from asmgen.kinds.attention.tags import ATTN_TAGS, AttnTag
from asmgen.kinds.common.tags import CommonTag
from asmgen.kinds.gemm.tags import GEMM_TAGS, GemmTag
from asmgen.passes.manager import tag_counts
from asmgen.sched.groups import SchedError, SchedGroup, check_recipe_tags, recipe_tags
from schedules.common import BlockRecipe, GemmRecipe

SMALL = {"m": 64, "n": 64, "k": 64, "tile": (64, 64, 32)}


def test_a_bare_string_tag_is_refused_when_the_recipe_is_made():
    with pytest.raises(SchedError, match=r"SchedGroup mask: tag 'lr_c' is a bare str; name a "
                                         r"declared tag"):
        SchedGroup({"lr_c"}, 2)
    with pytest.raises(SchedError, match=r"rank table: tag 'lr_aa' is a bare str"):
        BlockRecipe(ranks=(("lr_aa", 4), (CommonTag.MFMA, 3)))
    with pytest.raises(AttributeError, match="LR_C"):
        GemmTag.LR_C                                                       # noqa: B018


def test_a_registered_recipe_with_a_typo_fails_on_first_lookup():
    @recipes.register("typo_test_recipe")
    def typo() -> GemmRecipe:
        return GemmRecipe("typo_test_recipe", BlockRecipe(ranks=(("lr_a ", 4),)))
    try:
        with pytest.raises(SchedError, match=r"tag 'lr_a ' is a bare str"):
            recipes.get("typo_test_recipe")
    finally:
        recipes._REGISTRY.pop("typo_test_recipe")


def test_a_tag_the_kind_does_not_declare_is_an_error_at_first_use():
    """A GEMM recipe ranking an attention tag: declared, but not by the kernel's kind."""
    loop = BlockRecipe(ranks=((GemmTag.LR_A, 4), (AttnTag.GR_K, 3)),
                       groups=(SchedGroup({CommonTag.MFMA}, 1),))
    bad = GemmRecipe("mixed", loop)
    kind = registry.get("gemm")
    cfg = kind.make_config(None, **SMALL)
    with pytest.raises(SchedError, match=r"recipe mixed, block loop: the recipe names tag 'gr_k' "
                                         r"that kind gemm does not declare \(its tags: "):
        compile(kind, cfg, bad, assemble=False)
    # the same recipe without the foreign tag compiles
    ok = GemmRecipe("fine", BlockRecipe(ranks=((GemmTag.LR_A, 4),),
                                        groups=(SchedGroup({CommonTag.MFMA}, 1),)))
    assert compile(kind, cfg, ok, assemble=False).asm


def test_every_named_recipe_names_only_its_kinds_tags():
    """Each recipe of a kind, on that kind's kernels: what it names is declared by the kind
    (checked directly, besides the pass manager's own check while compiling)."""
    cases = [(name, GEMM_TAGS, gemm(**SMALL, schedule=name, assemble=False))
             for name in ("pgr1", "pgr2", "ck_v4", "fuzz", "shuffle")]
    cases += [(name, ATTN_TAGS, attention(head_dim=64, waves=w, kv_buffers=w, schedule=name,
                                          assemble=False, cache=False))
              for name in ("attn_basic", "attn_interleave", "attn_prio", "attn_prio_interleave")
              for w in (1, 2)]
    for name, vocab, kern in cases:
        rec = recipes.get(name)
        rec = rec.bind(kern.config) if hasattr(rec, "bind") else rec
        for b in kern.compiled.stream.kernel.blocks():
            br = rec.for_block(b.role, tag_counts(b))
            check_recipe_tags(br, vocab, name)
            assert all(t in vocab for t in recipe_tags(br))


def test_the_fuzz_recipe_names_only_tags_its_block_carries():
    kern = gemm(**SMALL, schedule="fuzz", schedule_params={"seed": 7}, assemble=False)
    rec = recipes.get("fuzz", seed=7)
    for b in kern.compiled.stream.kernel.blocks():
        counts = tag_counts(b)
        named = recipe_tags(rec.for_block(b.role, counts))
        assert named <= set(counts), (b.name, named - set(counts))
