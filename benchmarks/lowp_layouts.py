"""Print asmgen's 8-bit or MX GEMM in each of the four layouts (issue 15, "layouts: all four stay
legal") under the calibrated cycle model, 8192^3 fp8 by default (``--dtype mxfp4``: the MX E2M1
GEMM, gfx950), with the ratio of each layout to NT (both operands K-contiguous, the fast path)
in the same run.

NT's A is MxK and B NxK (BLAS's "TN"); in NN, TN and TT at least one operand is MN-contiguous
and is loaded 4 K rows at a time and byte-transposed in registers before its LDS write
(``kinds.gemm.memops._pack_bytes``; mxfp4: 8 K rows, nibble-transposed, ``_pack_nibbles``). Each row runs the public CLI without tuning flags
(``python -m asmgen gemm ... -o DIR`` then ``python -m asmgen profile DIR/<kernel>.json --json``)
in a subprocess from the repository root, so it measures the default configuration a user gets
(``kinds.gemm.defaults``). ``TF`` is at the device's peak clock, ``TF@sust`` at the
power-limited one (``isa.cycle.power``); ``x NT`` is the ratio of TF@sust to the NT row of the same
arch and dtype (the model's error largely cancels in it). The model's own error (MODEL_ERROR,
``isa.cycle.params``: median / worst relative error on held-out published figures) is printed per
arch. The model charges VMEM by bytes, not by how the lanes' addresses coalesce: the transposed
operands' 4-byte loads cost it nothing extra, which real hardware may not agree with. A row that
does not build or profile is printed as FAILED with its error.

    python benchmarks/lowp_layouts.py [--arch gfx942 gfx950] [--size 8192]
                                      [--dtype fp8|bf8|i8|mxfp8|mxfp4]
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHARES = ("mfma", "issue", "lds", "vmem", "l2", "waits")

LAYOUTS = ("NT", "NN", "TN", "TT")
DTYPES = {"fp8": {"gfx942": "fp8_e4m3fnuz", "gfx950": "fp8_e4m3"},
          "bf8": {"gfx942": "bf8_e5m2fnuz", "gfx950": "bf8_e5m2"},
          "i8": {"gfx942": "i8", "gfx950": "i8"},
          # MX (gfx950 only): an MN-contiguous mxfp8 operand is byte-transposed like fp8, an
          # mxfp4 one (E2M1 pairs packed along M / N) nibble-transposed (memops._pack_nibbles)
          "mxfp8": {"gfx950": "mxfp8"}, "mxfp4": {"gfx950": "mxfp4"}}


def _run(args: list[str]) -> str:
    r = subprocess.run([sys.executable, "-m", "asmgen", *args], cwd=ROOT, capture_output=True,
                       text=True)
    if r.returncode:
        raise RuntimeError((r.stderr or r.stdout).strip().splitlines()[-1])
    return r.stdout


def profile(arch: str, dtype: str, layout: str, size: int) -> dict:
    """``asmgen gemm`` (no tuning flag) then ``asmgen profile --json`` of its kernel."""
    with tempfile.TemporaryDirectory() as tmp:
        _run(["gemm", "--arch", arch, "--m", str(size), "--n", str(size), "--k", str(size),
              "--dtype", dtype, "--layout", layout, "-o", tmp])
        (contract,) = Path(tmp).glob("*.json")
        return json.loads(_run(["profile", str(contract), "--json"]))


def main(argv=None) -> int:
    a = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    a.add_argument("--arch", nargs="+", default=["gfx942", "gfx950"])
    a.add_argument("--size", type=int, default=8192)
    a.add_argument("--dtype", default="fp8", choices=tuple(DTYPES))
    ns = a.parse_args(argv)
    print(f"{'arch':7} {'layout':6} {'TF':>6} {'TF@sust':>12} {'x NT':>5} {'busy':>5} "
          f"{'bound':>6}  " + " ".join(f"{s:>5}" for s in SHARES) + "  kernel")
    for arch in ns.arch:
        dtype = DTYPES[ns.dtype].get(arch)
        if dtype is None:
            print(f"# {arch}: no {ns.dtype} (MX types are gfx950's)")
            continue
        nt = None
        for layout in LAYOUTS:
            try:
                d = profile(arch, dtype, layout, ns.size)
            except RuntimeError as exc:
                print(f"{arch:7} {layout:6} FAILED: {exc}")
                continue
            if layout == "NT":
                nt = d["tflops_sustained"]
                unc = d.get("uncertainty") or {}
                print(f"# {arch} {d['device']} {dtype} {ns.size}^3: MODEL_ERROR median "
                      f"{unc.get('median')}, worst {unc.get('worst')} ({unc.get('run')})")
            ratio = d["tflops_sustained"] / nt if nt else float("nan")
            b = d["bound"]
            print(f"{arch:7} {layout:6} {d['tflops']:6.0f} {d['tflops_sustained']:6.0f}"
                  f"@{d['sustained_clock_mhz']:<5.0f} {ratio:5.2f} {d['mfma_busy']:5.3f} "
                  f"{b['bound']:>6}  " + " ".join(f"{b['shares'].get(s, 0):5.2f}" for s in SHARES)
                  + f"  {d['kernel']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
