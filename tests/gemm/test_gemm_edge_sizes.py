"""Sizes just past and just short of a tile multiple (255, 257) with K not a multiple of DepthU, on
the emulator against NumPy, two emulator seeds each: edges are masked by buffer out-of-range
reads and dropped stores, not by a second kernel."""
import pytest

from asmgen.api import gemm, load
from asmgen.kinds.gemm.reference import compare, gemm_random_inputs

CASES = [
    ((257, 255, 100), dict(arch="gfx942", dtype="f16", layout="NN", schedule="pgr2", prefetch=2,
                           tile=(128, 128, 32), waves=(2, 2))),
    ((255, 257, 70), dict(arch="gfx950", dtype="bf16", layout="TT", schedule="ck_v4",
                          tile=(128, 128, 64), waves=(2, 2))),
]


@pytest.mark.parametrize("emu_seed", (0, 1))
@pytest.mark.parametrize("mnk, opts", CASES, ids=lambda c: "x".join(map(str, c)) if isinstance(c, tuple)
                         else f"{c['arch']}-{c['dtype']}-{c['layout']}-{c['schedule']}")
def test_unaligned_sizes(mnk, opts, emu_seed):
    kern = gemm(*mnk, **opts)
    inp = gemm_random_inputs(kern.config, emu_seed)
    out = load(kern, seed=emu_seed)(**inp)
    ok, msg = compare(kern.config, out, inp["A"], inp["B"], inp["C"], inp["alpha"], inp["beta"],
                      inp.get("bias"))
    assert ok, f"{kern.name} seed {emu_seed}: {msg}"
