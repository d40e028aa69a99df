"""``asmgen gemm`` / ``asmgen check`` and the schedule registry."""
import json

import pytest

from asmgen.cli import main
from asmgen.errors import ConfigError
from schedules import UnknownRecipe, get_recipe, recipe_names


@pytest.fixture(scope="module")
def contract(tmp_path_factory):
    out = tmp_path_factory.mktemp("k")
    rc = main(["gemm", "--arch", "gfx942", "--m", "40", "--n", "33", "--k", "20", "--dtype", "f16",
               "--layout", "NT", "--schedule", "pgr2", "--tile", "32x32x16", "--waves", "1x1",
               "-o", str(out)])
    assert rc == 0
    (path,) = out.glob("*.json")
    return path


def test_gemm_writes_three_files(contract):
    stem = contract.with_suffix("")
    assert stem.with_suffix(".s").read_text().startswith(".amdgcn_target")
    assert stem.with_suffix(".hsaco").read_bytes()[:4] == b"\x7fELF"
    meta = json.loads(contract.read_text())
    assert meta["grid"] == [2, 2, 1] and meta["block"] == [64, 1, 1]
    assert [a["name"] for a in meta["args"]] == ["A", "B", "C", "M", "N", "K", "lda", "ldb", "ldc",
                                                 "alpha", "beta"]
    assert meta["args"][1]["shape"] == [33, 20]          # B is NxK for layout T
    assert meta["kernarg_size"] == 56 and meta["schedule"] == "pgr2"
    assert meta["config"]["layout"] == "NT" and meta["config"]["prefetch"] == 2
    assert set(meta["resources"]) == {"vgpr", "agpr", "sgpr", "lds", "waves_per_simd"}
    assert "LLVM" in meta["toolchain"] or "clang" in meta["toolchain"]


@pytest.mark.parametrize("seed", [0, 1])
def test_check_matches(contract, seed, capsys):
    assert main(["check", str(contract), "--seed", str(seed)]) == 0
    assert capsys.readouterr().out.startswith("OK")


def test_check_reports_mismatch(contract, tmp_path, capsys):
    meta = json.loads(contract.read_text())
    meta["config"]["activation"] = "silu"           # the reference now differs from the code
    bad = tmp_path / contract.name
    bad.write_text(json.dumps(meta))
    bad.with_suffix(".hsaco").write_bytes(contract.with_suffix(".hsaco").read_bytes())
    assert main(["check", str(bad)]) == 1
    assert "MISMATCH" in capsys.readouterr().out


def test_check_bad_input(tmp_path, capsys):
    assert main(["check", str(tmp_path / "missing.json")]) == 2
    (tmp_path / "x.json").write_text("{not json")
    assert main(["check", str(tmp_path / "x.json")]) == 2
    (tmp_path / "y.json").write_text(json.dumps({"kernel": "k", "config": {"kind": "conv"}}))
    assert main(["check", str(tmp_path / "y.json")]) == 2
    assert "no checker" in capsys.readouterr().err


def test_gemm_bad_config_exit_2(tmp_path, capsys):
    assert main(["gemm", "--m", "64", "--n", "64", "--k", "64", "--tile", "48x64x32",
                 "-o", str(tmp_path)]) == 2
    assert "tile M = 48 must be a power of two" in capsys.readouterr().err


def test_recipe_registry():
    assert {"pgr1", "pgr2", "ck_v4"} <= set(recipe_names())
    with pytest.raises(UnknownRecipe, match="valid schedules: .*ck_v4.*pgr1.*pgr2"):
        get_recipe("pgr9")
    assert get_recipe("pgr1").defaults == {} and get_recipe("pgr2").defaults == {"prefetch": 2}
    assert get_recipe("pgr2", lr_per_mfma=4).params["lr_per_mfma"] == 4
    with pytest.raises(ConfigError, match="lr_per_mfma=0 is outside 1..64"):
        get_recipe("pgr2", lr_per_mfma=0)
    with pytest.raises(ConfigError, match="recipe pgr2 has no parameter prefetch"):
        get_recipe("pgr2", prefetch=3)    # the pipeline shape is the config's, not a recipe's
    r = get_recipe("ck_v4")
    assert r.for_block("loop").groups and r.for_block("prologue") is None


def test_recipes_order_the_loop_differently():
    """pgr1 issues the global reads before the first MFMA; pgr2 interleaves MFMAs among them."""
    from asmgen.kinds.gemm.config import GemmConfig
    from asmgen.kinds.gemm.template import build_gemm
    from asmgen.passes.manager import lower

    def body(schedule, prefetch):
        cfg = GemmConfig(m=64, n=64, k=64, tile=(64, 64, 32), waves=(2, 2), prefetch=prefetch)
        prog = lower(build_gemm(cfg), get_recipe(schedule))
        return [n for n in prog.body if {"mfma", "gr_a", "gr_b"} & n.tags]

    def first_mfma_pos(nodes):
        return next(i for i, n in enumerate(nodes) if "mfma" in n.tags)

    b1, b2 = body("pgr1", 2), body("pgr2", 2)
    def loads(nodes):
        return [i for i, n in enumerate(nodes) if n.instr.op.startswith("buffer_load")]

    assert max(loads(b1)) < first_mfma_pos(b1)
    assert max(loads(b2)) > first_mfma_pos(b2)


def test_api_save_load_roundtrip_and_default_output(tmp_path):
    """Kernel.save writes the contract; load(json) runs it; C may be omitted when beta = 0."""
    import numpy as np

    from asmgen.api import gemm, load
    from asmgen.kinds.gemm.reference import compare, gemm_random_inputs
    kern = gemm(20, 24, 16, tile=(32, 32, 16), waves=(1, 1), out_dtype="f32")
    path = kern.save(tmp_path)
    run = load(str(path))
    inp = gemm_random_inputs(kern.config, 1)          # odd seed: beta = 0
    out = run(A=inp["A"], B=inp["B"], alpha=inp["alpha"], beta=0.0)
    assert out.shape == (20, 24) and out.dtype == np.float32
    ok, msg = compare(kern.config, out, inp["A"], inp["B"], np.zeros((20, 24), np.float32),
                      inp["alpha"], 0.0)
    assert ok, msg
    from asmgen.errors import ConfigError, KernargError
    with pytest.raises(KernargError, match="argument A: not given"):
        run(B=inp["B"])
    with pytest.raises(KernargError, match="unknown arguments \\['Z'\\]"):
        run(A=inp["A"], B=inp["B"], Z=1)
    with pytest.raises(ConfigError, match="backend 'cuda' is not one of"):
        load(kern, backend="cuda")
