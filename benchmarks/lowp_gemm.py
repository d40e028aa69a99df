"""Print asmgen's 8-bit GEMMs (issue 15) under the calibrated cycle model, 8192^3 layout NT (A MxK,
B NxK: BLAS's "TN"), beside the bf16 kernel of the same configuration and a peer's fp8 GEMM
through the same model in the same run, and the published figures of other libraries: gfx942 fp8
and i8, gfx950 fp8, mxfp8 and mxfp4 (the default loop and the split ``interleave`` /
``pingpong`` loops).

The peer is Triton's fp8 E4M3 TN GEMM, and on gfx942 its i8 one with i32 accumulation
(``benchmarks/triton_fp8.py``: compiled offline for the
arch, checked on the emulator against NumPy, profiled by ``asmgen.profiling.foreign``), when
``triton`` is importable; its best modeled configuration that the emulator accepts and that
matches NumPy is the one compared. On gfx950 each configuration is also compiled with Triton's
own block ping-pong schedule (its default there; the plain rows set
``TRITON_HIP_USE_BLOCK_PINGPONG=0``); a kernel the emulator refuses is printed as FAILED with the
error (Triton 3.9's 256x256x128 ping-pong one: an LDS race between its wave groups, ruled the
kernel's by AMD's memory model, the verdict printed under it: docs/production-kernels.md). The MX
peers are Triton's ``tl.dot_scaled`` GEMMs (gfx950); a peer the emulator finds wrong against
NumPy would be printed as MISMATCH and not compared (Triton 3.9's mxfp8 one matches since the
emulator reads fp8 f8f6f4 operands as the ISA's two runs of 16 K). Every peer is charged as
asmgen's kernels are: the same tile-grid L2 / MALL / HBM floors and load latency (its grid in the
grouped order its program ids walk) and the power model of its own MFMA
(``asmgen.profiling.device.floored_round``). Every asmgen fp8/MX row is then printed as a ratio
to the peer of its type at the sustained clock, with the model's error (``MODEL_ERROR``) beside
each figure: both run through one model, so much of the error cancels in the ratio, but not all
(the kernels' instruction mixes differ).

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

    python benchmarks/lowp_gemm.py [--arch gfx942 gfx950] [--size 8192] [--no-peer]
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
_HERE = ROOT / "benchmarks"
# in-process asmgen (the peer's profile): this repository's, and not benchmarks/schedules.py
# shadowing the ``schedules`` package of recipes
sys.path[:] = [str(ROOT)] + [p for p in sys.path if Path(p or ".").resolve() != _HERE]


def _triton_fp8():
    """benchmarks/triton_fp8.py as a module (its folder is not on sys.path, see above)."""
    import importlib.util
    spec = importlib.util.spec_from_file_location("triton_fp8", _HERE / "triton_fp8.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules["triton_fp8"] = mod          # dataclasses look their module up there
    spec.loader.exec_module(mod)
    return mod
PINGPONG = ["--waves", "2x4", "--schedule", "pingpong", "--direct-to-lds", "--lds-swizzle",
            "--prefetch", "1"]
INTERLEAVE = ["--waves", "2x2", "--schedule", "interleave", "--direct-to-lds", "--lds-swizzle",
              "--prefetch", "1", "--mfma", "32x32x64"]
# (arch, label, dtype, extra flags); "default" rows are ``asmgen gemm`` with no tuning flag
ROWS = [
    ("gfx942", "bf16 default", "bf16", []),
    ("gfx942", "fp8 default", "fp8_e4m3fnuz", []),
    ("gfx942", "fp8 DepthU 32", "fp8_e4m3fnuz", ["--tile", "256x256x32", *PINGPONG]),
    ("gfx942", "fp8 -> fp8 out", "fp8_e4m3fnuz", ["--out-dtype", "fp8_e4m3fnuz"]),
    ("gfx942", "fp8 row/col scales", "fp8_e4m3fnuz", ["--scale-a", "row", "--scale-b", "col"]),
    ("gfx942", "i8 -> bf16 default", "i8", ["--out-dtype", "bf16"]),
    ("gfx942", "i8 -> bf16 DepthU 32", "i8", ["--out-dtype", "bf16", "--tile", "256x256x32",
                                             *PINGPONG]),
    ("gfx942", "i8 -> i32 default", "i8", []),
    ("gfx950", "bf16 default", "bf16", []),
    ("gfx950", "fp8 default", "fp8_e4m3", []),
    ("gfx950", "fp8 x bf8", "fp8_e4m3", ["--dtype-b", "bf8_e5m2"]),
    ("gfx950", "fp8 -> fp8 out", "fp8_e4m3", ["--out-dtype", "fp8_e4m3"]),
    ("gfx950", "fp8 row/col scales", "fp8_e4m3", ["--scale-a", "row", "--scale-b", "col"]),
    ("gfx950", "i8 -> i32 default", "i8", []),
    ("gfx950", "mxfp8 default", "mxfp8", []),
    ("gfx950", "mxfp8 interleave", "mxfp8", ["--tile", "256x256x128", *INTERLEAVE]),
    ("gfx950", "mxfp8 pingpong", "mxfp8", ["--tile", "256x256x64", *PINGPONG,
                                            "--mfma", "32x32x64"]),
    ("gfx950", "mxfp4 default", "mxfp4", []),
    ("gfx950", "mxfp4 interleave", "mxfp4", ["--tile", "256x256x256", *INTERLEAVE]),
    ("gfx950", "mxfp4 pingpong", "mxfp4", ["--tile", "256x256x128", *PINGPONG,
                                            "--mfma", "32x32x64"]),
]
# published 8192^3 figures (measured on hardware, not run here): (arch, what, TFLOP/s or None,
# the clock it ran at, source)
PUBLISHED = (
    ("gfx950", "MI355X fp8 HipKittens", 3327, "clock not stated (MI355X peak 2400 MHz)",
     "HazyResearch/HipKittens analysis/fp8_gemm/mi350x/mi355x_fp8_gemm.json; cdna-facts 9.4"),
    ("gfx950", "MI355X fp8 hipBLASLt (measured by HK)", 3233,
     "clock not stated (MI355X peak 2400 MHz)", "the same HipKittens JSON"),
    ("gfx950", "MI355X mxfp4 AITER", None, "-",
     ("issue 15 quotes 5.1-5.6 PFLOP/s; no primary source found (searched: AITER gemm_a4w4, "
      "ROCm blogs, HipKittens analysis/)")),
    ("gfx942", "MI300X fp8 hipblaslt-bench f8_r (a user's run)", 907, "fixed to 1005 MHz",
     "ROCm/hipBLASLt#1721, hipBLASLt 402603df; no AMD-published MI300X fp8 GEMM figure found"),
)
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


def _err(arch: str) -> str:
    from asmgen.profiling.device import uncertainty
    u = uncertainty(arch)
    return f"±{100 * u['median']:.1f}% (worst {100 * u['worst']:.1f}%)"


def peer(arch: str, size: int, dtype: str = "fp8") -> tuple[dict | None, list[str]]:
    """(best modeled Triton profile or None, printed lines): its fp8 (or ``dtype`` i8) GEMM on
    ``arch`` (every ``CONFIGS`` entry, on gfx950 also with Triton's block ping-pong), or its ``tl.dot_scaled``
    GEMM of ``dtype`` mxfp8 / mxfp4 (gfx950, the first config)."""
    from asmgen.errors import AsmgenError
    from isa.emu.errors import EmulatorError
    from isa.errors import IsaError
    refused = (AsmgenError, EmulatorError, IsaError, ValueError, RuntimeError)
    tp = _triton_fp8()
    lines, best = [], None
    mx = dtype.startswith("mx")
    tags = [""] + ([" +block-pingpong"] if arch == "gfx950" and not mx else [])
    for cfg in tp.CONFIGS[:1] if mx else tp.CONFIGS:
        for tag in tags:
            label = f"triton {dtype} {cfg.name}{tag}"
            try:
                with tp.triton_env(pingpong=bool(tag)):
                    if mx:
                        fk = tp.mx_kernel(cfg, dtype, arch)
                        ratio = tp.mx_check(fk, cfg, dtype)
                    else:
                        fk = tp.kernel(cfg, arch, dtype)
                        ratio = tp.check(fk, cfg, arch, dtype=dtype)
                if not ratio <= 1.0:
                    lines.append(f"{arch:7} {label:40} MISMATCH vs NumPy on the emulator "
                                 f"({ratio:.3g} x tolerance): not a peer")
                    continue
                d = (tp.mx_profile(fk, cfg, dtype, size) if mx
                     else tp.profile(fk, cfg, arch, size, dtype=dtype))
            except refused as exc:    # a compile or emulator refusal is a row, not a crash
                msg = str(exc).splitlines()[0]
                lines.append(f"{arch:7} {label:40} FAILED {type(exc).__name__}: {msg[:150]}")
                if all(k in msg for k in tp.PINGPONG_RACE):
                    lines.append(f"{'':48} {tp.PINGPONG_VERDICT} (docs/production-kernels.md)")
                continue
            lines.append(f"{arch:7} {label:40} check {ratio:.3g}  {d['tflops']:6.0f} "
                         f"{d['tflops_sustained']:6.0f}@{d['sustained_clock_mhz']:<5.0f} "
                         f"{_err(arch)}  busy {d['mfma_busy']:.3f}")
            if best is None or d["tflops_sustained"] > best["tflops_sustained"]:
                best = dict(d, label=label)
    return best, lines


def main(argv=None) -> int:
    a = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    a.add_argument("--arch", nargs="+", default=["gfx942", "gfx950"])
    a.add_argument("--size", type=int, default=8192)
    a.add_argument("--no-peer", action="store_true", help="skip the Triton fp8 peer")
    ns = a.parse_args(argv)
    print(f"{'arch':7} {'row':20} {'TF':>6} {'TF@sust':>12} {'x bf16':>6} {'busy':>5} "
          f"{'bound':>6}  " + " ".join(f"{s:>5}" for s in SHARES) + "  kernel")
    bf16, ours = {}, []
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
        elif dtype.startswith(("fp8", "mx", "i8")):
            ours.append((arch, label, d["tflops_sustained"]))
        ratio = d["tflops_sustained"] / bf16[arch] if arch in bf16 else float("nan")
        b = d["bound"]
        print(f"{arch:7} {label:20} {d['tflops']:6.0f} {d['tflops_sustained']:6.0f}@{d['sustained_clock_mhz']:<5.0f} "
              f"{ratio:6.2f} {d['mfma_busy']:5.3f} {b['bound']:>6}  "
              + " ".join(f"{b['shares'].get(s, 0):5.2f}" for s in SHARES) + f"  {d['kernel']}")
    print("\n# published (hardware, not run here; TFLOP/s at the clock each ran at):")
    for arch, what, tf, clock, src in PUBLISHED:
        if arch in ns.arch:
            print(f"{arch:7} {what:46} {'-' if tf is None else tf:>6}  {clock}; {src}")
    if ns.no_peer:
        return 0
    tp = _triton_fp8()
    if not tp.available():
        print("\n# peer: triton is not importable (pip install triton): no peer rows")
        return 0
    import triton
    print(f"\n# peer: Triton {triton.__version__} fp8 E4M3 / i8 TN GEMM (benchmarks/triton_fp8.py), "
          f"{ns.size}^3, same model, same run: TF, TF@sustained clock, model error")
    jobs = [(arch, "fp8") for arch in ns.arch] + [("gfx942", "i8")] * ("gfx942" in ns.arch) + \
        [("gfx950", d) for d in ("mxfp8", "mxfp4") if "gfx950" in ns.arch]
    for arch, dtype in jobs:
        best, lines = peer(arch, ns.size, dtype)
        print("\n".join(lines))
        if best is None:
            continue
        p = best["tflops_sustained"]
        print(f"# {arch} asmgen / peer ({best['label']}, {p:.0f} TF {_err(arch)}) at the "
              f"sustained clock:")
        for a_, label, tf in ours:
            if a_ == arch and label.startswith(dtype):
                print(f"{arch:7}   {label:20} {tf:6.0f} {_err(arch)}  x peer {tf / p:5.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
