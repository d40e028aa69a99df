"""Runs the lit + FileCheck structural tests of this folder (``lit tests/lit``) from pytest, so
``python -m pytest -q`` runs them and fails when any of them fails (lit's output in the
message). Each ``.test`` file states one recipe's promise about its loop as CHECK lines."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent


def test_lit_structural_tests(tmp_path):
    pytest.importorskip("lit", reason="the dev extras install lit and filecheck")
    files = sorted(p.name for p in HERE.glob("*.test"))
    assert {"ck_v4.test", "pgr.test", "pingpong.test", "interleave.test",
            "attention.test"} <= set(files)
    env = dict(os.environ, ASMGEN_CACHE_DIR=str(tmp_path / "cache"))
    res = subprocess.run([sys.executable, "-c", "import lit.main; lit.main.main()", "-v",
                          "--no-progress-bar", str(HERE)],
                         capture_output=True, text=True, env=env, timeout=900, check=False)
    out = res.stdout + res.stderr
    assert res.returncode == 0, f"lit failed:\n{out[-8000:]}"
    assert f"Passed: {len(files)}" in out, out[-2000:]
