"""The ``pingpong`` recipe (8-wave ping-pong, ``asmgen.kinds.gemm.pingpong``): NumPy-exact on
the emulator for several sizes (non-multiples of the tile too), layouts, both arches, staged and
LDS-DMA loads, two emulator seeds each; every unconditional barrier is needed (deleting one is an
LDS race), the conditional one makes the two wave groups alternate (the cycle model loses the
overlap without it); bad wave counts and knobs are ConfigErrors naming the value."""
import functools

import pytest

from asmgen.api import EmuRunner, Kernel, gemm, load
from asmgen.errors import ConfigError
from asmgen.kinds.gemm.reference import compare, gemm_random_inputs

P942 = {"tile": (64, 128, 32), "waves": (2, 4), "schedule": "pingpong"}
P950 = {"arch": "gfx950", "tile": (64, 128, 64), "waves": (2, 4), "schedule": "pingpong"}
CASES = [
    ((64, 128, 96), dict(P942, layout="NT")),
    ((100, 130, 70), dict(P942, dtype="bf16")),                       # NN, ragged M, N, K
    ((33, 17, 40), dict(P942, layout="TT", waves=(4, 2), tile=(128, 64, 32))),
    ((100, 130, 70), dict(P942, layout="NT", lds_pad=0, direct_to_lds=True)),
    ((100, 130, 70), dict(P942, layout="NT", lds_pad=0, lds_swizzle=True)),
    ((64, 128, 64), dict(P942, layout="TN", mfma=(16, 16, 16), schedule_params={"seed": 3})),
    ((64, 128, 200), dict(P950, layout="NT", dtype="bf16")),
    ((70, 100, 130), dict(P950, layout="NT", lds_pad=0, direct_to_lds=True)),
]


def _frozen(opts: dict) -> tuple:
    return tuple(sorted((k, tuple(sorted(v.items())) if isinstance(v, dict) else v)
                        for k, v in opts.items()))


@functools.cache
def _kernel(mnk, frozen):
    opts = {k: dict(v) if k == "schedule_params" else v for k, v in frozen}
    return gemm(*mnk, **opts)


def _check(kern, out, inp):
    return compare(kern.config, out, inp["A"], inp["B"], inp["C"], inp["alpha"], inp["beta"])


@pytest.mark.parametrize("emu_seed", [0, 1])
@pytest.mark.parametrize("mnk,opts", CASES, ids=[f"{m}x{n}x{k}-{i}" for i, ((m, n, k), _) in
                                                 enumerate(CASES)])
def test_pingpong_matches_numpy(mnk, opts, emu_seed):
    kern = _kernel(mnk, _frozen(opts))
    assert kern.resources["waves_per_simd"] >= 2     # 8 waves must fit two per SIMD
    inp = gemm_random_inputs(kern.config, emu_seed)
    ok, msg = _check(kern, load(kern, seed=emu_seed)(**inp), inp)
    assert ok, msg


def _lines(kern) -> list[str]:
    return kern.asm.splitlines()


def test_structure_two_phases_and_conditional_barriers():
    kern = _kernel((64, 128, 96), _frozen(CASES[0][1]))
    lines = [ln.strip() for ln in _lines(kern)]
    loop = lines[lines.index("loop_k:"):lines.index("s_cbranch_scc1 loop_k")]
    ops = [ln.split()[0] for ln in loop[1:] if ln]
    # compute phase: setprio 1, the MFMAs only, setprio 0, barrier; then no MFMA until the end
    assert ops[0] == "s_setprio" and loop[1] == "s_setprio 1"
    lo = loop.index("s_setprio 0")
    assert all(op.startswith("v_mfma") or op in ("s_nop", "s_waitcnt") for op in ops[1:lo - 1])
    assert ops[lo] == "s_barrier" and ops.count("s_barrier") == 2
    assert not any(op.startswith("v_mfma") for op in ops[lo:])
    assert any(op.startswith("ds_read") for op in ops[lo:]) and ops[-3] == "s_barrier"
    # waves 4..7 take an extra barrier before the loop, waves 0..3 one after it
    pre = lines.index("s_cbranch_scc0 cond_barrier_skip0")
    assert lines[pre + 1:pre + 4] == ["s_barrier", "cond_barrier_skip0:", "loop_k:"]
    assert any(ln.startswith("s_cmp_ge_u32") and ln.endswith(", 4") for ln in lines[pre - 4:pre])
    post = lines.index("s_cbranch_scc0 cond_barrier_skip1")
    assert lines[post - 1].startswith("s_cmp_lt_u32") and lines[post - 1].endswith(", 4")
    assert lines[post - 2] == "s_cbranch_scc1 loop_k"


def _without(kern, index: int, count: int = 1) -> Kernel:
    from asmgen.toolchain import find_toolchain
    lines = _lines(kern)
    asm = "\n".join(lines[:index] + lines[index + count:]) + "\n"
    return Kernel(kern.name, asm, find_toolchain().assemble(asm, kern.config.arch), kern.meta,
                  kern.config)


@pytest.mark.parametrize("which", ["prologue", "mid", "end"])
def test_deleting_a_barrier_is_an_lds_race(which):
    from isa.emu.errors import EmulatorError
    kern = _kernel((100, 130, 70), _frozen(CASES[1][1]))
    lines = [ln.strip() for ln in _lines(kern)]
    bars = [i for i, ln in enumerate(lines) if ln == "s_barrier" and "cond_barrier" not in
            lines[i - 1]]
    assert len(bars) == 3          # prologue, mid-loop (after setprio 0), end of the body
    cut = _without(kern, bars[("prologue", "mid", "end").index(which)])
    failed = 0
    for seed in (0, 1):
        inp = gemm_random_inputs(kern.config, seed)
        try:
            ok, _ = _check(kern, EmuRunner(cut.meta, cut.hsaco, seed)(**inp), inp)
            failed += not ok
        except EmulatorError:
            failed += 1
    assert failed == 2


def test_conditional_barrier_makes_the_groups_alternate():
    """Without group 1's extra barrier every wave is in the same phase: still correct (the
    kernel stays race-free), but the MFMA pipes idle during the memory phase."""
    from asmgen.cli.profile import profile
    kern = gemm(4096, 4096, 4096, dtype="bf16", tile=(128, 256, 32), waves=(2, 4), layout="NT",
                schedule="pingpong", lds_pad=0, lds_swizzle=True)
    lines = [ln.strip() for ln in _lines(kern)]
    flat = _without(kern, lines.index("s_cbranch_scc0 cond_barrier_skip0"), 2)
    pp, same = profile(kern, iters=3), profile(flat, iters=3)
    assert pp["mfma_busy"] > 0.9, pp["mfma_busy"]
    assert same["mfma_busy"] < 0.75 * pp["mfma_busy"], (same["mfma_busy"], pp["mfma_busy"])
    assert same["cycles_per_iter"] > 1.3 * pp["cycles_per_iter"]


def test_offset_kernel_without_conditional_barrier_still_correct():
    kern = _kernel((64, 128, 96), _frozen(CASES[0][1]))
    lines = [ln.strip() for ln in _lines(kern)]
    flat = _without(kern, lines.index("s_cbranch_scc0 cond_barrier_skip0"), 2)
    inp = gemm_random_inputs(kern.config, 1)
    ok, msg = _check(kern, EmuRunner(flat.meta, flat.hsaco, 1)(**inp), inp)
    assert ok, msg


@pytest.mark.parametrize("opts,needle", [
    ({"waves": (2, 2)}, "2x2 = 4"),
    ({"waves": (4, 4), "tile": (128, 128, 32)}, "4x4 = 16"),
    ({"waves": (2, 4), "prefetch": 2}, "prefetch must be 1, got 2"),
    ({"waves": (2, 4), "staging": 2}, "staging must be 1, got 2"),
])
def test_bad_knobs_are_config_errors(opts, needle):
    base = {"tile": (64, 128, 32), "schedule": "pingpong", "assemble": False}
    with pytest.raises(ConfigError, match=needle.replace("(", r"\(")):
        gemm(64, 128, 64, **(base | opts))


def test_recipe_seed_checked():
    from schedules import get_recipe
    with pytest.raises(ConfigError, match="seed=-1"):
        get_recipe("pingpong", seed=-1)
    r = get_recipe("pingpong", seed=5)
    assert r.requires == {"arrangement": "pingpong"} and r.params == {"seed": 5}


def test_unknown_arrangement_is_a_config_error():
    from asmgen.kinds.gemm.config import GemmConfig
    from asmgen.kinds.gemm.template import build_gemm
    with pytest.raises(ConfigError, match="'zigzag'"):
        build_gemm(GemmConfig(m=64, n=64, k=64, arrangement="zigzag"))


def test_workgroup_that_cannot_be_resident_is_refused():
    """8 waves need 2 per SIMD: a pingpong kernel whose registers allow only 1 could never launch
    (gfx950 256x256x64 staged through VGPRs), so compilation refuses it, naming the counts."""
    from asmgen.api import gemm
    from asmgen.errors import ResourceError
    with pytest.raises(ResourceError, match=r"8 waves per workgroup need 2 waves per SIMD, but "
                                            r"\d+ VGPRs \+ 128 AGPRs per lane allow 1"):
        gemm(2048, 2048, 2048, dtype="bf16", arch="gfx950", layout="NT", tile=(256, 256, 64),
             waves=(2, 4), schedule="pingpong", assemble=False)


def test_kernel_name_carries_the_schedule():
    from asmgen.api import gemm
    opts = dict(dtype="bf16", layout="NT", tile=(64, 64, 32), assemble=False)
    a = gemm(256, 256, 256, schedule="pgr1", **opts)
    b = gemm(256, 256, 256, schedule="interleave", **opts)
    assert a.name == a.config.name + "_pgr1" and b.name == b.config.name + "_interleave"
    assert a.meta["kernel"] == a.name and f".amdhsa_kernel {b.name}" in b.asm
