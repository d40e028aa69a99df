"""Scale vectors and device-pointer scales of 8-bit GEMMs (issue 15): ``scale_a`` per row of A
(per token, f32 over M) or per tensor (argument or pointer), ``scale_b`` per column (per channel,
f32 over N) or per tensor; applied in the epilogue. Every kernel is assembled by LLVM and run on
the emulator against the reference, both arches, two emulator seeds x two input seeds (the odd
one has beta = 0); replacing a vector by its mean must fail the comparison (the kernel reads each
entry). The contract names the vectors' shapes and the launch check refuses other ones."""
import functools

import numpy as np
import pytest

from asmgen import load
from asmgen.api import gemm
from asmgen.cli import main
from asmgen.errors import ConfigError
from asmgen.kinds.gemm.contract import gemm_args
from asmgen.kinds.gemm.reference import compare, gemm_random_inputs
from asmgen.runtime.launch import LaunchError

SMALL = (("tile", (32, 32, 32)), ("waves", (1, 1)))
CASES = [
    # arch, dtype, out, recipe, (m, n, k), scale_a, scale_b, extra
    ("gfx942", "fp8_e4m3fnuz", "f32", "pgr1", (33, 17, 40), "row", "col", ()),
    ("gfx942", "i8", "bf16", "pgr2", (17, 40, 72), "row", "tensor", ()),
    ("gfx942", "bf8_e5m2fnuz", "f16", "pgr1", (40, 33, 37), "ptr", "ptr", (("bias", True),)),
    ("gfx950", "fp8_e4m3", "bf16", "pgr2", (33, 17, 40), "tensor", "col", ()),
    ("gfx950", "bf8_e5m2", "fp8_e4m3", "pgr1", (1, 40, 72), "row", "col", ()),
    ("gfx950", "i8", "f32", "pgr1", (40, 40, 96), "ptr", "col",
     (("tile", (64, 64, 64)), ("waves", (2, 2)))),
]


@functools.cache
def _kernel(arch, dtype, out, recipe, mnk, sa, sb, extra):
    kw = dict(SMALL + extra)
    return gemm(*mnk, dtype=dtype, arch=arch, layout="NT", out_dtype=out, schedule=recipe,
                scale_a_mode=sa, scale_b_mode=sb, **kw)


def _compare(kern, got, inp, **override):
    v = {**inp, **override}
    return compare(kern.config, got, v["A"], v["B"], v["C"], v["alpha"], v["beta"], v.get("bias"),
                   v["scale_a"], v["scale_b"])


@pytest.mark.parametrize("case", CASES, ids=lambda c: "-".join(map(str, c[:4] + c[5:7])))
@pytest.mark.parametrize("seeds", [(0, 0), (1, 1)])
def test_scale_modes_on_the_emulator(case, seeds):
    kern = _kernel(*case)
    assert kern.hsaco, "LLVM produced no code object"
    inp = gemm_random_inputs(kern.config, seeds[1])
    got = load(kern, seed=seeds[0])(**inp)
    ok, msg = _compare(kern, got, inp)
    assert ok, f"{kern.name} seeds {seeds}: {msg}"
    for name in ("scale_a", "scale_b"):
        s = np.asarray(inp[name])
        if s.size > 1:          # a vector: each entry matters
            flat = np.full_like(s, s.mean())
            assert not _compare(kern, got, inp, **{name: flat})[0], f"{name} entries unused"
        else:                   # a tensor scale (argument or pointer) reaches the result
            assert not _compare(kern, got, inp, **{name: np.float32(2.0) * s})[0]


def test_contract_shapes_and_launch_check():
    kern = _kernel(*CASES[0])
    args = {a.name: a for a in gemm_args(kern.config)}
    assert (args["scale_a"].kind, args["scale_a"].dims) == ("buffer", ("M",))
    assert (args["scale_b"].kind, args["scale_b"].dims) == ("buffer", ("N",))
    ptr = {a.name: a for a in gemm_args(_kernel(*CASES[2]).config)}
    assert (ptr["scale_a"].kind, ptr["scale_a"].dims) == ("buffer", (1,))
    inp = gemm_random_inputs(kern.config, 0)
    with pytest.raises(LaunchError, match=r"argument scale_a: an array of shape \(17,\); the kernel "
                                          r"needs shape \(M\) = \(33,\)"):
        load(kern)(**{**inp, "scale_a": inp["scale_a"][:17]})
    with pytest.raises(LaunchError, match="argument scale_b"):
        load(kern)(**{**inp, "scale_b": np.float32(1.0)})
    with pytest.raises(ConfigError, match="scale_a_mode"):
        gemm(64, 64, 64, dtype="fp8_e4m3fnuz", layout="NT", scale_a_mode="col", assemble=False)
    with pytest.raises(ConfigError, match="scaled kernel"):
        gemm(64, 64, 64, dtype="f16", scale_b_mode="col", assemble=False)


def test_tensor_modes_keep_the_two_scalar_arguments():
    kern = gemm(64, 64, 64, dtype="fp8_e4m3fnuz", layout="NT", assemble=False)
    names = [(a.name, a.kind) for a in gemm_args(kern.config)]
    assert names[-2:] == [("scale_a", "scalar"), ("scale_b", "scalar")]


def test_cli_scale_vectors_and_check(tmp_path, capsys):
    rc = main(["gemm", "--arch", "gfx950", "--m", "40", "--n", "17", "--k", "72", "--dtype",
               "fp8_e4m3", "--layout", "NT", "--tile", "32x32x32", "--waves", "1x1",
               "--scale-a", "row", "--scale-b", "col", "-o", str(tmp_path)])
    assert rc == 0
    (path,) = tmp_path.glob("*.json")
    assert main(["check", str(path), "--seed", "0"]) == 0
