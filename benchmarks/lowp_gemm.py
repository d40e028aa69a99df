"""Print asmgen's 8-bit GEMMs (issue 15) under the calibrated cycle model, 8192^3 layout NT (A MxK,
B NxK: BLAS's "TN"), beside the bf16 kernel of the same configuration in the same run and the
published figures of other libraries: gfx942 fp8 and i8, gfx950 fp8.

Each row runs the public CLI (``python -m asmgen gemm ... -o DIR`` then ``python -m asmgen profile
DIR/<kernel>.json --json``) in a subprocess from the repository root, so it measures what a user
gets. ``TF`` is at the device's peak clock, ``TF@sust`` at its power-limited clock
(``isa.cycle.power``: the kernel's MFMA duty over its own type's peak rate, weighted by the type); ``x bf16`` is the ratio to the bf16 row of the same arch and
configuration (the model's error largely cancels in it); the model's own error (``uncertainty``:
median / worst relative error on the held-out calibration figures) is printed per arch. A row
that does not build or profile is printed as FAILED with its error; no number is made up.

Published figures (not run here; measured on hardware, each at the clock it ran at):
* MI355X (gfx950) fp8 8192^3: HipKittens 3327 TFLOP/s, hipBLASLt 3233 (HazyResearch/HipKittens
  ``analysis/fp8_gemm/mi350x/mi355x_fp8_gemm.json``, cdna-facts section 9.4).
* MI300X (gfx942) fp8 8192^3: hipblaslt-bench ``-r f8_r -m 8192 -n 8192 -k 8192`` 907 TFLOP/s, a
  user's report with the GPU "fixed to 1005Mhz" (ROCm/hipBLASLt#1721, hipBLASLt 402603df); no
  AMD-published MI300X fp8 GEMM figure was found in the sources searched.

    python benchmarks/lowp_gemm.py [--arch gfx942 gfx950] [--size 8192]
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PINGPONG = ["--waves", "2x4", "--schedule", "pingpong", "--direct-to-lds", "--lds-swizzle",
            "--prefetch", "1"]
# (arch, label, dtype, extra flags); "default" rows are ``asmgen gemm`` with no tuning flag
ROWS = [
    ("gfx942", "bf16 default", "bf16", []),
    ("gfx942", "fp8 default", "fp8_e4m3fnuz", []),
    ("gfx942", "fp8 DepthU 64", "fp8_e4m3fnuz", ["--tile", "256x256x64", *PINGPONG]),
    ("gfx942", "fp8 -> fp8 out", "fp8_e4m3fnuz", ["--out-dtype", "fp8_e4m3fnuz"]),
    ("gfx942", "fp8 row/col scales", "fp8_e4m3fnuz", ["--scale-a", "row", "--scale-b", "col"]),
    ("gfx942", "i8 -> bf16 default", "i8", ["--out-dtype", "bf16"]),
    ("gfx942", "i8 -> bf16 DepthU 64", "i8", ["--out-dtype", "bf16", "--tile", "256x256x64",
                                             *PINGPONG]),
    ("gfx942", "i8 -> i32 default", "i8", []),
    ("gfx950", "bf16 default", "bf16", []),
    ("gfx950", "fp8 default", "fp8_e4m3", []),
    ("gfx950", "fp8 x bf8", "fp8_e4m3", ["--dtype-b", "bf8_e5m2"]),
    ("gfx950", "fp8 -> fp8 out", "fp8_e4m3", ["--out-dtype", "fp8_e4m3"]),
    ("gfx950", "fp8 row/col scales", "fp8_e4m3", ["--scale-a", "row", "--scale-b", "col"]),
    ("gfx950", "i8 -> i32 default", "i8", []),
]
SHARES = ("mfma", "issue", "lds", "vmem", "l2", "waits")


def _run(args: list[str]) -> str:
    r = subprocess.run([sys.executable, "-m", "asmgen", *args], cwd=ROOT, capture_output=True,
                       text=True)
    if r.returncode:
        raise RuntimeError((r.stderr or r.stdout).strip().splitlines()[-1])
    return r.stdout


def profile(arch: str, dtype: str, flags: list[str], size: int) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        _run(["gemm", "--arch", arch, "--m", str(size), "--n", str(size), "--k", str(size),
              "--dtype", dtype, "--layout", "NT", *flags, "-o", tmp])
        (contract,) = Path(tmp).glob("*.json")
        return json.loads(_run(["profile", str(contract), "--json"]))


def main(argv=None) -> int:
    a = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    a.add_argument("--arch", nargs="+", default=["gfx942", "gfx950"])
    a.add_argument("--size", type=int, default=8192)
    ns = a.parse_args(argv)
    print(f"{'arch':7} {'row':20} {'TF':>6} {'TF@sust':>12} {'x bf16':>6} {'busy':>5} "
          f"{'bound':>6}  " + " ".join(f"{s:>5}" for s in SHARES) + "  kernel")
    bf16 = {}
    for arch, label, dtype, flags in ROWS:
        if arch not in ns.arch:
            continue
        try:
            d = profile(arch, dtype, flags, ns.size)
        except RuntimeError as exc:
            print(f"{arch:7} {label:20} FAILED: {exc}")
            continue
        if dtype == "bf16":
            bf16[arch] = d["tflops_sustained"]
            unc = d.get("uncertainty") or {}
            print(f"# {arch} {d['device']}: model error median {unc.get('median')}, worst "
                  f"{unc.get('worst')} ({unc.get('run')})")
        ratio = d["tflops_sustained"] / bf16[arch] if arch in bf16 else float("nan")
        b = d["bound"]
        print(f"{arch:7} {label:20} {d['tflops']:6.0f} {d['tflops_sustained']:6.0f}@{d['sustained_clock_mhz']:<5.0f} "
              f"{ratio:6.2f} {d['mfma_busy']:5.3f} {b['bound']:>6}  "
              + " ".join(f"{b['shares'].get(s, 0):5.2f}" for s in SHARES) + f"  {d['kernel']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
