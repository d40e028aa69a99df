"""The pipeline shape belongs to ``GemmConfig`` (prefetch, staging, arrangement, frag_buffers);
recipes only order. A recipe's ``defaults`` fill the fields a caller leaves out, its
``requires`` are checked against the config: a mismatch is a ConfigError naming both values."""
import pytest

from asmgen.api import gemm
from asmgen.errors import ConfigError
from asmgen.kinds.gemm.config import GemmConfig

BASE = dict(tile=(64, 64, 32), waves=(2, 2), assemble=False)


def test_recipe_defaults_fill_the_config():
    assert gemm(64, 64, 64, schedule="pgr2", **BASE).config.prefetch == 2
    assert gemm(64, 64, 64, schedule="pgr2", prefetch=1, **BASE).config.prefetch == 1
    assert gemm(64, 64, 64, schedule="ck_v4", **BASE).config.frag_buffers == 2
    assert gemm(64, 64, 64, schedule="interleave", **BASE).config.arrangement == "interleave"
    assert gemm(64, 64, 64, schedule="pgr1", **BASE).config.frag_buffers == 0


@pytest.mark.parametrize("schedule, kw, needle", [
    ("ck_v4", {"frag_buffers": 1},
     "recipe ck_v4 requires frag_buffers=2, but the config has frag_buffers=1"),
    ("interleave", {"arrangement": "default"},
     "recipe interleave requires arrangement='interleave', but the config has "
     "arrangement='default'"),
    ("pingpong", {"arrangement": "interleave", "waves": (2, 4), "tile": (64, 128, 32)},
     "recipe pingpong requires arrangement='pingpong', but the config has "
     "arrangement='interleave'"),
])
def test_recipe_requirement_mismatch_names_both(schedule, kw, needle):
    with pytest.raises(ConfigError, match=needle):
        gemm(64, 128, 64, schedule=schedule, **(BASE | kw))


@pytest.mark.parametrize("kw, needle", [
    ({"frag_buffers": 9}, "frag_buffers=9 is not 0"),
    ({"frag_buffers": True}, "frag_buffers=True is not 0"),
    ({"frag_buffers": 2, "arrangement": "interleave"}, "frag_buffers=2 applies to the default"),
    ({"arrangement": "zigzag"}, "arrangement 'zigzag' is not one of"),
    ({"arrangement": "interleave", "staging": 2}, "staging must be 1, got 2"),
])
def test_bad_shapes_are_config_errors(kw, needle):
    with pytest.raises(ConfigError, match=needle):
        GemmConfig(m=64, n=64, k=64, **kw)


def test_frag_buffers_bound_the_live_fragments():
    """frag_buffers=n: K-step s + n reads into step s's registers, so its reads follow (DAG WAR)
    every MFMA of step s, in any schedule; with 0 every K-step has its own registers."""
    from asmgen.kinds.gemm.template import build_gemm
    cfg = GemmConfig(m=64, n=64, k=64, tile=(64, 64, 32), waves=(2, 2), frag_buffers=2)
    body = build_gemm(cfg).loop.body.nodes
    reads = [n for n in body if n.instr.op.startswith("ds_read")]
    dests = {n.instr.operands[0].id for n in reads}
    per_step = len(reads) // 4                   # 4 K-steps of 32x32x8 in DepthU 32
    assert len(dests) == 2 * per_step            # two register sets
    free = GemmConfig(m=64, n=64, k=64, tile=(64, 64, 32), waves=(2, 2))
    reads0 = [n for n in build_gemm(free).loop.body.nodes if n.instr.op.startswith("ds_read")]
    assert len({n.instr.operands[0].id for n in reads0}) == len(reads0)


def test_ck_v4_takes_no_order_parameter_and_a_stale_one_is_a_typed_error():
    """ck_v4's order is fixed by its two fragment register sets; the ``ds_reads_per_mfma`` knob,
    which had stopped changing it, is gone, and asking for it (or any parameter a recipe does
    not take) is a ConfigError naming it and the parameters the recipe has."""
    from asmgen.recipes import UnknownRecipeParameter, get
    assert get("ck_v4").params == {}
    assert gemm(64, 64, 64, schedule="ck_v4", **BASE).meta["schedule_params"] == {}
    with pytest.raises(UnknownRecipeParameter, match=r"recipe ck_v4 has no parameter "
                                                     r"ds_reads_per_mfma; its parameters: seed"):
        gemm(64, 64, 64, schedule="ck_v4", schedule_params={"ds_reads_per_mfma": 2}, **BASE)
    with pytest.raises(UnknownRecipeParameter, match=r"recipe pgr2 has no parameters a, b; its "
                                                     r"parameters: lr_per_mfma, gr_per_mfma"):
        get("pgr2", b=1, a=2)
    assert issubclass(UnknownRecipeParameter, ConfigError)
