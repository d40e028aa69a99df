"""The ``interleave`` recipe (4 waves, MFMAs as the timeline, operands carried in registers,
``asmgen.kinds.gemm.pingpong``): NumPy-exact on the emulator for several sizes, layouts, both
arches, staged / LDS-DMA / swizzled loads and two emulator seeds; its loop spreads the ds_reads
of the next tile and the memory work of later tiles between the MFMAs; its one barrier per
iteration is needed; bad parameters are ConfigErrors naming the value."""
import functools

import pytest

from asmgen.api import EmuRunner, Kernel, gemm, load
from asmgen.errors import ConfigError
from asmgen.kinds.gemm.reference import compare, gemm_random_inputs

I942 = {"tile": (64, 64, 32), "waves": (2, 2), "schedule": "interleave"}
I950 = {"arch": "gfx950", "tile": (64, 64, 64), "waves": (2, 2), "schedule": "interleave"}
CASES = [
    ((100, 64, 100), dict(I942, layout="NT")),
    ((17, 33, 40), dict(I942, layout="TN", mfma=(16, 16, 16))),
    ((64, 64, 32), dict(I942, dtype="bf16", layout="TT")),                   # one K-tile
    ((100, 70, 130), dict(I942, layout="NT", lds_pad=0, direct_to_lds=True)),
    ((70, 64, 200), dict(I950, layout="NT", lds_pad=0, lds_swizzle=True)),
    ((40, 40, 72), dict(I950, dtype="bf16", schedule_params={"seed": 7, "lr_per_mfma": 1})),
]


def _frozen(opts: dict) -> tuple:
    return tuple(sorted((k, tuple(sorted(v.items())) if isinstance(v, dict) else v)
                        for k, v in opts.items()))


@functools.cache
def _kernel(mnk, frozen):
    return gemm(*mnk, **{k: dict(v) if k == "schedule_params" else v for k, v in frozen})


def _check(kern, out, inp):
    return compare(kern.config, out, inp["A"], inp["B"], inp["C"], inp["alpha"], inp["beta"])


@pytest.mark.parametrize("emu_seed", [0, 1])
@pytest.mark.parametrize("mnk,opts", CASES, ids=[f"{m}x{n}x{k}-{i}" for i, ((m, n, k), _) in
                                                 enumerate(CASES)])
def test_interleave_matches_numpy(mnk, opts, emu_seed):
    kern = _kernel(mnk, _frozen(opts))
    inp = gemm_random_inputs(kern.config, emu_seed)
    ok, msg = _check(kern, load(kern, seed=emu_seed)(**inp), inp)
    assert ok, msg


def _loop(kern) -> list[str]:
    lines = [ln.strip() for ln in kern.asm.splitlines()]
    return lines[lines.index("loop_k:") + 1:lines.index("s_cbranch_scc1 loop_k")]


def test_loop_interleaves_memory_ops_between_mfmas():
    kern = gemm(256, 256, 256, dtype="bf16", tile=(256, 256, 32), waves=(2, 2), layout="NT",
                schedule="interleave", lds_pad=0, lds_swizzle=True, assemble=False)
    ops = [ln.split()[0] for ln in _loop(kern)]
    mf = [i for i, op in enumerate(ops) if op.startswith("v_mfma")]
    assert len(mf) == 4 * 4 * 4                       # 4x4 blocks of 32x32, 4 K-steps
    inside = ops[mf[0]:mf[-1]]
    for kind in ("ds_read", "ds_write", "buffer_load"):
        n_all = sum(op.startswith(kind) for op in ops)
        n_in = sum(op.startswith(kind) for op in inside)
        assert n_all and n_in >= 0.75 * n_all, (kind, n_in, n_all)
    assert ops[0] == "s_setprio" and ops.count("s_barrier") == 1 and "s_barrier" in ops[-4:]
    assert "cond_barrier_skip0" not in kern.asm


def test_deleting_the_loop_barrier_is_an_lds_race():
    from asmgen.toolchain import find_toolchain
    from isa.emu.errors import EmulatorError
    kern = _kernel(CASES[0][0], _frozen(CASES[0][1]))
    lines = kern.asm.splitlines()
    bar = max(i for i, ln in enumerate(lines) if ln.strip() == "s_barrier")
    asm = "\n".join(lines[:bar] + lines[bar + 1:]) + "\n"
    cut = Kernel(kern.name, asm, find_toolchain().assemble(asm, "gfx942"), kern.meta)
    failed = 0
    for seed in (0, 1):
        inp = gemm_random_inputs(kern.config, seed)
        try:
            failed += not _check(kern, EmuRunner(cut.meta, cut.hsaco, seed)(**inp), inp)[0]
        except EmulatorError:
            failed += 1
    assert failed == 2


@pytest.mark.parametrize("params,needle", [
    ({"lr_per_mfma": 0}, "lr_per_mfma=0"),
    ({"mem_per_mfma": 17}, "mem_per_mfma=17"),
    ({"seed": "x"}, "seed='x'"),
])
def test_bad_parameters(params, needle):
    from schedules import get_recipe
    with pytest.raises(ConfigError, match=needle):
        get_recipe("interleave", **params)


def test_recipe_knobs():
    from schedules import get_recipe
    r = get_recipe("interleave")
    assert r.requires == r.defaults == {"arrangement": "interleave"}
    assert r.params == {"lr_per_mfma": 2, "mem_per_mfma": 4}
