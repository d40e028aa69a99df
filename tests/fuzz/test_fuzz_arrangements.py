"""The fuzz recipe draws random legal orders over the split GEMM loops too (``interleave``,
``pingpong``), chosen from the schedule seed among the arrangements a config allows, and those
kernels pass on the emulator; swizzled LDS and the K-multiple contract are drawn as well."""
import pytest

from asmgen.errors import ConfigError
from asmgen.fuzz.cases import FuzzCase, case_config, run_case
from asmgen.kinds.gemm.fuzz import fuzz_arrangement
from asmgen.kinds.gemm.config import GemmConfig
from schedules import get_recipe


def _cfg(**kw):
    base = dict(m=64, n=96, k=64, dtype="bf16", layout="NT", tile=(64, 64, 32), waves=(2, 2))
    return GemmConfig(**(base | kw))


def test_arrangement_follows_the_seed_and_the_config():
    four, eight = _cfg(), _cfg(tile=(64, 128, 32), waves=(2, 4))
    assert {fuzz_arrangement(four, s) for s in range(0, 64, 8)} == {"default", "interleave"}
    assert {fuzz_arrangement(eight, s) for s in range(0, 96, 8)} == {"default", "interleave",
                                                                     "pingpong"}
    assert {fuzz_arrangement(_cfg(prefetch=2), s) for s in range(0, 64, 8)} == {"default"}
    assert {fuzz_arrangement(_cfg(staging=2), s) for s in range(0, 64, 8)} == {"default"}
    # fragment register sets do not change the pick; a split loop drops them
    assert {fuzz_arrangement(_cfg(frag_buffers=2), s) for s in range(0, 64, 8)} == {
        "default", "interleave"}
    fb2 = _cfg(frag_buffers=2)
    split = next(s for s in range(0, 64, 8) if fuzz_arrangement(fb2, s) == "interleave")
    plain = next(s for s in range(0, 64, 8) if fuzz_arrangement(fb2, s) == "default")
    assert case_config(FuzzCase(fb2, split, 0)).frag_buffers == 0
    assert case_config(FuzzCase(fb2, plain, 0)).frag_buffers == 2


def test_the_strategy_draws_frag_buffers_where_legal():
    """``gemm_configs`` draws the fragment register sets (0, 1, 2 = ck_v4's, 3); every case keeps
    them on the default loop and drops them on a split loop (which carries one set), and a
    fuzzed ck_v4-shaped case (two sets) passes on the emulator."""
    from hypothesis import HealthCheck, given, settings

    from asmgen.kinds.gemm.fuzz import gemm_configs
    seen, arrangements = set(), set()

    @settings(max_examples=150, deadline=None, derandomize=True, database=None,
              suppress_health_check=list(HealthCheck))
    @given(cfg=gemm_configs(small=True))
    def draw(cfg):
        seen.add(cfg.frag_buffers)
        for s in (0, 8, 16):
            c = case_config(FuzzCase(cfg, s, 0))
            assert c.frag_buffers == (cfg.frag_buffers if c.arrangement == "default" else 0)
            arrangements.add(c.arrangement)

    draw()
    assert seen == {0, 1, 2, 3} and {"default", "interleave"} <= arrangements
    cfg = _cfg(frag_buffers=2, tile=(64, 64, 64), k=128)
    out = run_case(FuzzCase(cfg, 5, emu_seed=1))
    assert out.kind == "pass", f"{out.kind} {out.message[:400]}"


@pytest.mark.parametrize("cfg_kw, arrangement", [
    (dict(), "interleave"),
    (dict(lds_swizzle=True, k_multiple=32, m=100, n=70, k=96), "interleave"),
    (dict(tile=(64, 128, 32), waves=(2, 4), direct_to_lds=True, n=200), "pingpong"),
])
def test_fuzzed_split_loops_pass(cfg_kw, arrangement):
    cfg = _cfg(**cfg_kw)
    seed = next(s for s in range(0, 4096) if fuzz_arrangement(cfg, s) == arrangement)
    case = FuzzCase(cfg, seed, emu_seed=seed % 5)
    assert case_config(case).arrangement == arrangement
    out = run_case(case)
    assert out.kind == "pass", f"{case.describe()}: {out.kind} {out.message[:400]}"


def test_bad_arrangements_are_config_errors():
    """The arrangement is the config's (the fuzz recipe only orders): an unknown one, or a split
    loop with prefetch 2, is a ConfigError naming the value."""
    with pytest.raises(ConfigError, match="arrangement 'zigzag' is not one of"):
        _cfg(arrangement="zigzag")
    with pytest.raises(ConfigError, match="prefetch must be 1, got 2"):
        _cfg(arrangement="pingpong", prefetch=2)
    with pytest.raises(ConfigError, match="recipe fuzz has no parameter arrangement"):
        get_recipe("fuzz", arrangement="pingpong")
