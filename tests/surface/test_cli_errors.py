"""One error discipline in the CLI (issue 13 points 3, 4, 5, 8): every user mistake is one line on
stderr naming the value and the rule, exit 2; exit 1 only for a kernel that ran and mismatched;
no traceback unless --debug; Ctrl-C exits 130 quietly."""
from __future__ import annotations

import json
import shutil

import pytest

from asmgen.cli import main

GEMM = ["gemm", "--m", "32", "--n", "32", "--k", "16", "--tile", "32x32x16", "--waves", "1x1"]


def _run(capsys, argv):
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def _bad(capsys, argv, match):
    code, out, err = _run(capsys, argv)
    assert code == 2, (code, out, err)
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    assert match in err, err
    return err


@pytest.fixture(scope="module")
def kdir(tmp_path_factory):
    d = tmp_path_factory.mktemp("k")
    assert main([*GEMM, "-o", str(d)]) == 0
    return d


def _contract(kdir):
    return next(kdir.glob("*.json"))


def _copy(kdir, tmp_path):
    src = _contract(kdir)
    for ext in (".json", ".hsaco", ".s"):
        shutil.copy(src.with_suffix(ext), tmp_path / src.with_suffix(ext).name)
    return tmp_path / src.name


# -- files -----------------------------------------------------------------------------------------
def test_unwritable_output(capsys):
    _bad(capsys, [*GEMM, "-o", "/proc/asmgen-no"], "cannot create the folder")


def test_output_is_a_file(capsys, tmp_path):
    f = tmp_path / "f"
    f.write_text("x")
    _bad(capsys, [*GEMM, "-o", str(f)], "is a file, not a folder")


def test_check_a_directory(capsys, kdir):
    _bad(capsys, ["check", str(kdir)], "is a folder; give DIR/<kernel>.json (it holds gemm_")


@pytest.mark.parametrize("opt", ["--trace", "--svg"])
def test_bad_trace_svg_path_refused_before_work(capsys, kdir, opt, tmp_path):
    _bad(capsys, ["profile", str(_contract(kdir)), opt, "/nonexistent-dir/t.out"],
         "the folder '/nonexistent-dir' does not exist")
    _bad(capsys, ["profile", str(_contract(kdir)), opt, str(tmp_path)], "is a folder, not a file")


# -- code objects and contracts --------------------------------------------------------------------
@pytest.mark.parametrize("damage, match", [
    (lambda b: b"", "the code object is empty"),
    (lambda b: b[: len(b) // 2], "sha256 is not the one the contract records"),
    (lambda b: b[:300] + bytes([b[300] ^ 0x10]) + b[301:], "sha256 is not the one the contract"),
])
def test_damaged_code_object(capsys, kdir, tmp_path, damage, match):
    c = _copy(kdir, tmp_path)
    h = c.with_suffix(".hsaco")
    h.write_bytes(damage(h.read_bytes()))
    _bad(capsys, ["check", str(c)], match)


def test_truncated_code_object_without_checksum(capsys, kdir, tmp_path):
    c = _copy(kdir, tmp_path)
    meta = json.loads(c.read_text())
    del meta["hsaco_sha256"]
    c.write_text(json.dumps(meta))
    h = c.with_suffix(".hsaco")
    h.write_bytes(h.read_bytes()[:100])
    _bad(capsys, ["check", str(c)], "the code object is not a readable AMDGPU ELF")


def _edit(kdir, tmp_path, fn):
    c = _copy(kdir, tmp_path)
    meta = json.loads(c.read_text())
    meta = fn(meta)
    c.write_text(json.dumps(meta))
    return c


@pytest.mark.parametrize("cmd", ["check", "profile"])
@pytest.mark.parametrize("fn, match", [
    (lambda m: dict(m, args={a["name"]: a for a in m["args"]}), "'args' is dict, not a list"),
    (lambda m: None, "the contract is null, not a JSON object"),
    (lambda m: dict(m, args=[dict(a, dtype="f8") if a["name"] == "A" else a for a in m["args"]]),
     "argument A: dtype 'f8' is not one of"),
    (lambda m: dict(m, block=[0, 1, 1]), "block [0, 1, 1] is not three integers >= 1"),
    (lambda m: dict(m, config=dict(m["config"], dtype="bf16", arch="gfx950")),
     "config.arch 'gfx950' is not the contract's arch 'gfx942'"),
    (lambda m: dict(m, config=dict(m["config"], dtype="bf16")),
     "argument A has dtype 'f16' but the config"),
    (lambda m: dict(m, arch="gfx950", config=dict(m["config"], arch="gfx950")),
     "the code object is for gfx942, the contract says gfx950"),
    (lambda m: dict(m, kernel="nope"), "the code object has no kernel 'nope'"),
])
def test_bad_contracts(capsys, kdir, tmp_path, cmd, fn, match):
    _bad(capsys, [cmd, str(_edit(kdir, tmp_path, fn))], match)


def test_attention_contract_with_head_dim_changed(capsys, tmp_path):
    assert main(["attention", "--batch", "1", "--heads", "1", "--seqlen-q", "32", "--seqlen-k",
                 "32", "--head-dim", "64", "-o", str(tmp_path)]) == 0
    capsys.readouterr()
    c = next(tmp_path.glob("*.json"))
    meta = json.loads(c.read_text())
    meta["config"]["head_dim"] = 128
    c.write_text(json.dumps(meta))
    _bad(capsys, ["check", str(c)], "argument Q has shape")


# -- exit codes ------------------------------------------------------------------------------------
def test_fuzz_empty_budget(capsys):
    _bad(capsys, ["fuzz", "gemm", "--budget", "0"], "--budget 0.0 must be more than 0 seconds")
    _bad(capsys, ["fuzz", "gemm", "--examples", "0"], "--examples 0 must be at least 1")


@pytest.mark.parametrize("clock", ["0", "-5", "nan", "inf"])
def test_profile_clock_refused(capsys, kdir, clock):
    _bad(capsys, ["profile", str(_contract(kdir)), "--clock-mhz", clock], "--clock-mhz")


def test_profile_backwards_loop_refused(capsys, kdir):
    _bad(capsys, ["profile", str(_contract(kdir)), "--loop", "5:1"],
         "--loop 5:1: the head pc 5 must be below the branch pc 1")


def test_gemm_refuses_a_recipe_of_another_kind(capsys, tmp_path):
    _bad(capsys, [*GEMM, "--schedule", "attn_basic", "-o", str(tmp_path)],
         "schedule 'attn_basic' is a recipe of kind attention, not gemm")


def test_gemm_help_has_text_and_defaults(capsys):
    with pytest.raises(SystemExit) as e:
        main(["gemm", "--help"])
    assert e.value.code == 0
    out = capsys.readouterr().out
    for text in ("rows of C", "(default: gfx942)", "(default: f16)", "(default: NN)",
                 "(default: the input dtype)"):
        assert text in out, text


def test_check_help_says_exit_codes(capsys):
    with pytest.raises(SystemExit):
        main(["check", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "exit 0: the kernel matched" in out and "1: it ran and mismatched" in out
    assert "2: bad input" in out


def test_check_mismatch_is_exit_1(capsys, kdir, monkeypatch):
    from asmgen.kinds import registry
    kind = registry.get("gemm")
    monkeypatch.setattr(type(kind), "compare", lambda self, cfg, out, inp: (False, "forced"))
    code, out, err = _run(capsys, ["check", str(_contract(kdir))])
    assert code == 1 and "MISMATCH" in out and "forced" in out


def test_ctrl_c_is_130_and_quiet(capsys, monkeypatch):
    import asmgen.cli.generate as gen

    def boom(args):
        raise KeyboardInterrupt
    monkeypatch.setattr(gen, "cmd_generate", boom)
    code, out, err = _run(capsys, [*GEMM, "-o", "/tmp/x-never"])
    assert code == 130 and "Traceback" not in err


def test_internal_error_traceback_only_with_debug(capsys, monkeypatch):
    import asmgen.cli.generate as gen

    def boom(args):
        raise RuntimeError("a bug")
    monkeypatch.setattr(gen, "cmd_generate", boom)
    code, out, err = _run(capsys, [*GEMM, "-o", "/tmp/x-never"])
    assert code == 3 and "Traceback" not in err and "internal error: RuntimeError: a bug" in err
    code, out, err = _run(capsys, ["--debug", *GEMM, "-o", "/tmp/x-never"])
    assert code == 3 and "Traceback" in err
