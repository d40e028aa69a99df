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
    with pytest.raises(TypeError):
        get_recipe("fuzz", arrangement="pingpong")
