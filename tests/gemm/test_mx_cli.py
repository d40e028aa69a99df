"""``asmgen gemm --dtype mxfp8`` (gfx950): the contract carries the E8M0 block scales
``scale_a`` [M, K/32] / ``scale_b`` [N, K/32] as uint8 buffers, ``asmgen check`` runs the kernel on
the emulator against the reference with its block scales, the untuned default configuration
builds, and the dtype on gfx942 is exit 2 naming the arch."""
import json

from asmgen.cli import main


def test_mxfp8_cli_contract_and_check(tmp_path, capsys):
    rc = main(["gemm", "--arch", "gfx950", "--m", "40", "--n", "17", "--k", "256", "--dtype",
               "mxfp8", "--layout", "NT", "--tile", "32x32x128", "--waves", "1x1", "--mfma",
               "16x16x128", "--out-dtype", "bf16", "-o", str(tmp_path)])
    assert rc == 0
    (path,) = tmp_path.glob("*.json")
    meta = json.loads(path.read_text())
    args = {a["name"]: a for a in meta["args"]}
    assert args["A"]["dtype"] == "fp8_e4m3"
    assert [args[n]["dtype"] for n in ("scale_a", "scale_b")] == ["u8", "u8"]
    assert [list(args[n]["dims"]) for n in ("scale_a", "scale_b")] == [["M", "K/32"], ["N", "K/32"]]
    assert main(["check", str(path), "--seed", "1"]) == 0


def test_mxfp8_default_configuration_builds(tmp_path, capsys):
    rc = main(["gemm", "--arch", "gfx950", "--m", "64", "--n", "64", "--k", "256", "--dtype",
               "mxfp8", "--layout", "NT", "-o", str(tmp_path)])
    assert rc == 0
    assert "mfma=16x16x128" in capsys.readouterr().out
    (s,) = tmp_path.glob("*.s")
    assert "v_mfma_scale_f32_16x16x128_f8f6f4" in s.read_text()


def test_mxfp8_on_gfx942_is_exit_2(tmp_path, capsys):
    rc = main(["gemm", "--arch", "gfx942", "--m", "64", "--n", "64", "--k", "256", "--dtype",
               "mxfp8", "--layout", "NT", "-o", str(tmp_path)])
    assert rc == 2
    assert "gfx942" in capsys.readouterr().err


def test_mxfp4_cli_contract_and_check(tmp_path, capsys):
    rc = main(["gemm", "--arch", "gfx950", "--m", "33", "--n", "40", "--k", "256", "--dtype",
               "mxfp4", "--layout", "NT", "--tile", "32x32x128", "--waves", "1x1", "--mfma",
               "32x32x64", "-o", str(tmp_path)])
    assert rc == 0
    (path,) = tmp_path.glob("*.json")
    args = {a["name"]: a for a in json.loads(path.read_text())["args"]}
    assert [args["A"]["dtype"], list(args["A"]["dims"]), args["A"]["ld"]] == ["u8", ["M", "K/2"], "lda/2"]
    assert main(["check", str(path), "--seed", "0"]) == 0


def test_mxfp4_default_configuration(tmp_path, capsys):
    rc = main(["gemm", "--arch", "gfx950", "--m", "64", "--n", "64", "--k", "256", "--dtype",
               "mxfp4", "--layout", "NT", "-o", str(tmp_path)])
    assert rc == 0
    (s,) = tmp_path.glob("*.s")
    assert "v_mfma_scale_f32_16x16x128_f8f6f4" in s.read_text() and "cbsz:4 blgp:4" in s.read_text()
