"""``asmgen gemm --dtype`` for 8-bit floats: the contract carries scale_a/scale_b, ``asmgen check``
runs the kernel on the emulator against the reference with its scales, and a dtype the arch lacks
is exit 2 naming the arch."""
import json

from asmgen.cli import main


def test_fp8_cli_contract_and_check(tmp_path, capsys):
    rc = main(["gemm", "--arch", "gfx950", "--m", "40", "--n", "17", "--k", "72", "--dtype",
               "fp8_e4m3", "--layout", "NT", "--tile", "32x32x32", "--waves", "1x1",
               "--out-dtype", "bf16", "-o", str(tmp_path)])
    assert rc == 0
    (path,) = tmp_path.glob("*.json")
    meta = json.loads(path.read_text())
    names = [a["name"] for a in meta["args"]]
    assert names[-2:] == ["scale_a", "scale_b"] and meta["args"][0]["dtype"] == "fp8_e4m3"
    assert main(["check", str(path), "--seed", "0"]) == 0


def test_fp8_dtype_the_arch_lacks_is_exit_2(tmp_path, capsys):
    rc = main(["gemm", "--arch", "gfx942", "--m", "32", "--n", "32", "--k", "32", "--dtype",
               "fp8_e4m3", "--layout", "NT", "-o", str(tmp_path)])
    assert rc == 2
    err = capsys.readouterr().err
    assert "gfx942" in err and "fp8_e4m3fnuz" in err


def test_mixed_fp8_with_fp8_output_cli_contract_and_check(tmp_path, capsys):
    """--dtype-b (fp8 x bf8) and a saturating fp8 --out-dtype through the CLI; check runs it."""
    rc = main(["gemm", "--arch", "gfx942", "--m", "33", "--n", "17", "--k", "40", "--dtype",
               "bf8_e5m2fnuz", "--dtype-b", "fp8_e4m3fnuz", "--out-dtype", "fp8_e4m3fnuz",
               "--layout", "NT", "--tile", "32x32x32", "--waves", "1x1", "-o", str(tmp_path)])
    assert rc == 0
    (path,) = tmp_path.glob("*.json")
    meta = json.loads(path.read_text())
    dt = {a["name"]: a.get("dtype") for a in meta["args"]}
    assert (dt["A"], dt["B"], dt["C"]) == ("bf8_e5m2fnuz", "fp8_e4m3fnuz", "fp8_e4m3fnuz")
    assert main(["check", str(path), "--seed", "1"]) == 0


def test_mixed_pair_without_mfma_is_exit_2(tmp_path, capsys):
    rc = main(["gemm", "--arch", "gfx950", "--m", "32", "--n", "32", "--k", "32", "--dtype",
               "fp8_e4m3", "--dtype-b", "bf8_e5m2fnuz", "--layout", "NT", "-o", str(tmp_path)])
    assert rc == 2
    assert "bf8_e5m2fnuz" in capsys.readouterr().err
