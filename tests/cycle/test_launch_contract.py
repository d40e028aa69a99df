"""Launch contracts (``asmgen.launch/1``) of foreign code objects: an OpenCL MFMA GEMM compiled
here with clang-22 is described once with typed arguments and once with raw kernarg bytes; both
must pack the same kernarg segment, run on the emulator to NumPy's result, and go through
``asmgen profile --json`` (bound breakdown, uncertainty) and ``asmgen check --no-reference``."""
from __future__ import annotations

import json
import shutil
import subprocess

import numpy as np
import pytest

from asmgen.profiling import launch as lc

CLANG, LLD = shutil.which("clang-22"), shutil.which("ld.lld-22")
pytestmark = pytest.mark.skipif(not (CLANG and LLD), reason="clang-22 / ld.lld-22 not installed")

# C[M,N] (f32) = A[M,K] @ B[K,N] (f16); 4 waves per 32x32 tile, 16x16x16 MFMA per K step of 16
SOURCE = r"""
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
typedef half half4_t __attribute__((ext_vector_type(4)));
typedef float float4_t __attribute__((ext_vector_type(4)));
__kernel void mfma_gemm(__global const half* A, __global const half* B, __global float* C,
                        int M, int N, int K) {
  uint t = __builtin_amdgcn_workitem_id_x();
  uint w = t / 64, l = t % 64;
  uint row0 = __builtin_amdgcn_workgroup_id_y() * 32 + (w / 2) * 16;
  uint col0 = __builtin_amdgcn_workgroup_id_x() * 32 + (w % 2) * 16;
  uint kq = 4 * (l / 16);
  float4_t acc = {0.0f, 0.0f, 0.0f, 0.0f};
  for (int k0 = 0; k0 < K; k0 += 16) {
    half4_t a, b;
    for (int j = 0; j < 4; ++j) {
      a[j] = A[(row0 + l % 16) * K + k0 + kq + j];
      b[j] = B[(k0 + kq + j) * N + col0 + l % 16];
    }
    acc = __builtin_amdgcn_mfma_f32_16x16x16f16(a, b, acc, 0, 0, 0);
  }
  for (int r = 0; r < 4; ++r) C[(row0 + kq + r) * N + col0 + l % 16] = acc[r];
}
"""
BASE = {"format": lc.FORMAT, "hsaco": "k.hsaco", "kernel": "mfma_gemm", "arch": "gfx942",
        "block": [256, 1, 1], "grid": ["N // 32", "M // 32", 1],
        "dims": {"M": 1024, "N": 1024, "K": 2048},
        "buffers": [{"name": "A", "dtype": "f16", "shape": ["M", "K"]},
                    {"name": "B", "dtype": "f16", "shape": ["K", "N"]},
                    {"name": "C", "dtype": "f32", "shape": ["M", "N"], "init": "zeros"}],
        "flops": "2 * M * N * K", "loop": {"dim": "K", "per_trip": 16},
        "profile": {"dims": {"M": 32, "N": 32}, "trips": 6},
        "check": {"dims": {"M": 64, "N": 64, "K": 48}},
        "tiles": {"tile": [32, 32, 16], "order": "n_fastest"}}
TYPED = {**BASE, "args": [{"buffer": "A"}, {"buffer": "B"}, {"buffer": "C"},
                          {"dtype": "i32", "value": "M"}, {"dtype": "i32", "value": "N"},
                          {"dtype": "i32", "value": "K"}]}
RAW = {**BASE, "kernarg": {"size": 40, "fields": [
    {"offset": 0, "buffer": "A"}, {"offset": 8, "buffer": "B"}, {"offset": 16, "buffer": "C"},
    {"offset": 24, "dtype": "i32", "value": "M"}, {"offset": 28, "dtype": "i32", "value": "N"},
    {"offset": 32, "dtype": "i32", "value": "K"}]}}


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    d = tmp_path_factory.mktemp("launch")
    (d / "k.cl").write_text(SOURCE)
    subprocess.run([CLANG, "-target", "amdgcn-amd-amdhsa", "-mcpu=gfx942", "-nogpulib", "-O3",
                    "-Wno-everything", "-x", "cl", "-c", "-o", str(d / "k.o"), str(d / "k.cl")],
                   check=True, capture_output=True)
    subprocess.run([LLD, "-shared", str(d / "k.o"), "-o", str(d / "k.hsaco")], check=True,
                   capture_output=True)
    (d / "typed.json").write_text(json.dumps(TYPED))
    (d / "raw.json").write_text(json.dumps(RAW))
    return d


def test_expressions():
    assert lc.evaluate("(M + 255) // 256 * 2", {"M": 300}, "x") == 4
    assert lc.evaluate(7, {}, "x") == 7
    with pytest.raises(lc.LaunchContractError, match="'Q' is not among dims"):
        lc.evaluate("Q * 2", {"M": 1}, "grid")
    with pytest.raises(lc.LaunchContractError, match="other than"):
        lc.evaluate("__import__('os')", {}, "grid")


def test_typed_and_raw_pack_the_same_kernargs(folder):
    meta_t, code = lc.read(folder / "typed.json")
    meta_r, _ = lc.read(folder / "raw.json")
    addr = {"A": 0x1000, "B": 0x2000, "C": 0x3000}
    dims = {"M": 64, "N": 96, "K": 48}
    typed = lc.kernargs(meta_t, code, dims, addr)
    raw = lc.kernargs(meta_r, code, dims, addr)
    assert typed[:36] == raw[:36]
    assert int.from_bytes(raw[8:16], "little") == 0x2000
    assert int.from_bytes(raw[28:32], "little") == 96


def test_runs_to_numpy(folder):
    meta, code = lc.read(folder / "raw.json")
    dims = {"M": 64, "N": 64, "K": 48}
    _, bufs = lc.run(meta, code, dims, seed=2)
    a, b = bufs["A"].astype(np.float64), bufs["B"].astype(np.float64)
    tol = (48 + 2) * np.finfo(np.float32).eps * (np.abs(a) @ np.abs(b))
    assert np.all(np.abs(bufs["C"] - a @ b) <= tol)


def test_bad_contracts_are_typed_errors(folder):
    bad = {**TYPED, "kernarg": RAW["kernarg"]}
    (folder / "bad.json").write_text(json.dumps(bad))
    with pytest.raises(lc.LaunchContractError, match="exactly one of"):
        lc.read(folder / "bad.json")
    (folder / "nocode.json").write_text(json.dumps({**TYPED, "hsaco": "missing.hsaco"}))
    with pytest.raises(lc.LaunchContractError, match="does not exist"):
        lc.read(folder / "nocode.json")


def test_cli_profile_json_and_check(folder, capsys):
    from asmgen.cli import main
    assert main(["profile", str(folder / "typed.json"), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["kind"] == "foreign" and out["problem"]["n_wg"] == 32 * 32
    assert out["problem"]["loop_trips"] == 2048 // 16
    b = out["bound"]
    assert set(b["shares"]) == {"mfma", "issue", "lds", "vmem", "l2", "mall", "hbm", "waits",
                                "barrier"}
    assert b["bound"] == max(b["shares"], key=b["shares"].get)
    # every K step loads its fragments from memory and waits for them: latency bound, not MFMA
    assert b["shares"]["mfma"] < 0.5 and b["bound"] != "mfma"
    assert "uncertainty" in out and 0 < out["tflops"] < out["perf"]["peak_tflops"]
    assert main(["check", str(folder / "raw.json"), "--no-reference"]) == 0
    assert "RAN mfma_gemm" in capsys.readouterr().out
    assert main(["check", str(folder / "raw.json")]) == 2     # a foreign kernel has no reference
    assert "--no-reference" in capsys.readouterr().err
