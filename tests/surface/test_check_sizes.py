"""``asmgen check --size NAME=VALUE`` (and --m/--n/--k, --batch/--heads/--seqlen-q/--seqlen-k):
a kernel is checked at smaller runtime sizes its contract allows, says which it used, and a size
the kernel does not support (baked) is bad input."""
from __future__ import annotations

from asmgen.cli import main


def test_gemm_at_smaller_sizes(tmp_path, capsys):
    assert main(["gemm", "--m", "96", "--n", "64", "--k", "64", "--tile", "32x32x16", "--waves",
                 "1x1", "-o", str(tmp_path)]) == 0
    c = next(tmp_path.glob("*.json"))
    capsys.readouterr()
    assert main(["check", str(c), "--m", "40", "--n", "24", "--size", "K=32"]) == 0
    out = capsys.readouterr().out
    assert "checking at runtime sizes K=32, M=40, N=24" in out and "OK" in out
    assert main(["check", str(c), "--size", "Q=3"]) == 2
    assert "--size Q: not a size of kind 'gemm'" in capsys.readouterr().err


def test_baked_kernel_refuses_other_sizes(tmp_path, capsys):
    assert main(["gemm", "--m", "32", "--n", "32", "--k", "16", "--tile", "32x32x16", "--waves",
                 "1x1", "--bake-sizes", "-o", str(tmp_path)]) == 0
    c = next(tmp_path.glob("*.json"))
    capsys.readouterr()
    assert main(["check", str(c), "--m", "64"]) == 2
    assert "M = 64; the kernel needs M = 32 (baked" in capsys.readouterr().err


def test_attention_at_other_sizes(tmp_path, capsys):
    assert main(["attention", "--batch", "1", "--heads", "2", "--kv-heads", "1", "--seqlen-q",
                 "64", "--seqlen-k", "64", "--head-dim", "64", "-o", str(tmp_path)]) == 0
    c = next(tmp_path.glob("*.json"))
    capsys.readouterr()
    assert main(["check", str(c), "--batch", "2", "--seqlen-q", "40", "--seqlen-k", "32"]) == 0
    out = capsys.readouterr().out
    assert "seqlen_q=40" in out and "OK" in out
