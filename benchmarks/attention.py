"""Print asmgen's flash-attention forward kernels under the calibrated cycle model: the default
configuration (``asmgen attention`` with no tuning flag), the best known 4-wave one (two LDS
K/V buffers, ``attn_prio_interleave``, ``--seqlen-k-multiple 32``) and the 8-wave ping-pong
(``attn_pingpong``, ``--seqlen-k-multiple 32``), on gfx942 and gfx950, causal
and not, with the model's bound breakdown per row (``asmgen profile --json``: the share of the
loop each resource is busy, the largest one is the bound).

Each row runs the public CLI (``python -m asmgen attention ... -o DIR`` then ``python -m asmgen
profile DIR/<kernel>.json --json``) in a subprocess from the repository root, so it measures
exactly what a user gets. ``TF`` is at the device's peak clock, ``TF@sust`` at its sustained
clock (``isa.cycle.params``); the model's own error (``uncertainty``: median / worst relative
error on the held-out calibration figures) is printed once per arch. A configuration that does
not build or profile is printed as FAILED with its error; no number is made up for it.
Rows of the 8-wave ping-pong rescale O in every block (its skip-when-no-max-changed branch
never taken: the data the model runs rescales every block); the bracketed figure is the same
kernel when no row's max changes after the first block (``asmgen profile``'s ``rescale_skip``).
"default" is what ``asmgen attention`` builds with no tuning flag (``kinds.attention.defaults``,
ranked by ``benchmarks/attention_rank.py``).

When ``triton`` is importable, a Triton flash-attention forward kernel (``triton_attention``:
ours, in Triton's language; non-causal) is compiled for each arch, checked on the emulator
against NumPy and profiled through the same model in the same run (``check`` <= 1 passes).

    python benchmarks/attention.py [--arch gfx942 gfx950] [--batch 16] [--heads 16]
        [--seqlen 8192] [--head-dim 128 256] [--dtype bf16]

One table per head dim (default 128, then 256: Q, and below four waves O, in AGPRs).
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# in-process imports (the Triton rows): this repository first, then this folder (whose
# schedules.py must not shadow the recipe package)
sys.path[:] = [str(ROOT)] + [p for p in sys.path if Path(p or ".").resolve() != ROOT / "benchmarks"]
sys.path.append(str(ROOT / "benchmarks"))
BEST = ["--schedule", "attn_prio_interleave", "--waves", "4", "--kv-buffers", "2",
        "--seqlen-k-multiple", "32"]
# the 8-wave ping-pong loop (kinds.attention.pingpong), key mask dropped like "best"
PINGPONG = ["--schedule", "attn_pingpong", "--seqlen-k-multiple", "32"]
CONFIGS = {"default": [], "best": BEST, "pingpong": PINGPONG}
SHARES = ("mfma", "issue", "lds", "vmem", "waits", "barrier")


class Refused(RuntimeError):
    """The generator refused the configuration (a typed error, CLI exit 2), e.g. the D128-only
    ping-pong loop at head_dim 256."""


def _run(args: list[str]) -> str:
    r = subprocess.run([sys.executable, "-m", "asmgen", *args], cwd=ROOT, capture_output=True,
                       text=True)
    if r.returncode:
        raise (Refused if r.returncode == 2 else RuntimeError)(
            (r.stderr or r.stdout).strip().splitlines()[-1])
    return r.stdout


def profile(arch: str, causal: bool, flags: list[str], ns) -> dict:
    """``asmgen profile --json`` of one configuration at ``ns.head_dim``."""
    with tempfile.TemporaryDirectory() as tmp:
        _run(["attention", "--arch", arch, "--batch", str(ns.batch), "--heads", str(ns.heads),
              "--seqlen-q", str(ns.seqlen), "--seqlen-k", str(ns.seqlen), "--head-dim",
              str(ns.head_dim), "--dtype", ns.dtype, *(["--causal"] if causal else []), *flags,
              "-o", tmp])
        (contract,) = Path(tmp).glob("*.json")
        return json.loads(_run(["profile", str(contract), "--json"]))


def triton_rows(arch: str, ns) -> None:
    """The Triton kernel's rows (non-causal), or one line saying why there are none."""
    import triton_attention as ta
    if not ta.available():
        print(f"{arch:7} {'False':6} triton   unavailable: no importable triton (pip install triton)")
        return
    for cfg in ta.CONFIGS:
        try:
            fk = ta.kernel(cfg, arch, ns.head_dim, ns.dtype)
            ratio = ta.check(fk, cfg, ns.head_dim, ns.dtype)
            out = ta.profile(fk, cfg, ns.batch, ns.heads, ns.seqlen, ns.head_dim, ns.dtype)
        except Exception as e:        # a Triton compile error is reported, not raised
            print(f"{arch:7} {'False':6} triton   FAILED {cfg.name}: {type(e).__name__}: {e}")
            continue
        # the foreign profile's bound breakdown comes from the same function as asmgen's
        # (profiling.device.trip_and_bound; neither has tile-grid floors for attention)
        sust = f"{out['tflops_sustained']:.0f}@{out['sustained_clock_mhz']:.0f}"
        sh = out["bound"]["shares"]
        print(f"{arch:7} {'False':6} triton   {out['tflops']:6.0f} {sust:>12} "
              f"{out['mfma_busy']:5.3f} {out['bound']['bound']:6} "
              + " ".join(f"{sh.get(s, 0.0):7.3f}" for s in SHARES)
              + f"  {cfg.name}, check {ratio:.2f}, {out['wgs_per_cu']} WG/CU")


def main(argv=None) -> int:
    a = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    a.add_argument("--arch", nargs="+", default=["gfx942", "gfx950"])
    a.add_argument("--batch", type=int, default=16)
    a.add_argument("--heads", type=int, default=16)
    a.add_argument("--seqlen", type=int, default=8192)
    a.add_argument("--head-dim", type=int, nargs="+", default=[128, 256])
    a.add_argument("--dtype", default="bf16")
    ns = a.parse_args(argv)
    for d in ns.head_dim:
        table(argparse.Namespace(**{**vars(ns), "head_dim": d}))
    return 0


def table(ns) -> None:
    """The rows of one head dim."""
    print(f"attention forward B{ns.batch} H{ns.heads} S{ns.seqlen} D{ns.head_dim} {ns.dtype}")
    print(f"{'arch':7} {'causal':6} {'config':8} {'TF':>6} {'TF@sust':>12} {'busy':>5} "
          f"{'bound':6} " + " ".join(f"{s:>7}" for s in SHARES) + "  kernel")
    for arch in ns.arch:
        unc = None
        for causal in (False, True):
            for name, flags in CONFIGS.items():
                try:
                    out = profile(arch, causal, flags, ns)
                except RuntimeError as e:
                    what = "refused" if isinstance(e, Refused) else "FAILED"
                    print(f"{arch:7} {str(causal):6} {name:8} {what}: {e}")
                    continue
                unc = out.get("uncertainty", unc)
                sh = out["bound"]["shares"]
                sust = f"{out['tflops_sustained']:.0f}@{out['sustained_clock_mhz']:.0f}"
                rs = out.get("rescale_skip")
                note = ""
                if rs:      # the ping-pong's O-rescale branch: the row rescales every block
                    stp = rs["stable_perf"].get("sustained") or {}
                    note = (f"  [no max change: {stp.get('tflops', rs['stable']['tflops']):.0f}"
                            f" TF@sust, busy {rs['stable']['mfma_busy']:.3f}]")
                print(f"{arch:7} {str(causal):6} {name:8} {out['tflops']:6.0f} {sust:>12} "
                      f"{out['mfma_busy']:5.3f} {out['bound']['bound']:6} "
                      + " ".join(f"{sh.get(s, 0.0):7.3f}" for s in SHARES)
                      + f"  {out['kernel']}{note}")
        triton_rows(arch, ns)
        if unc:
            print(f"  {arch} model error: median {unc['median']:.1%}, worst {unc['worst']:.1%} "
                  f"({unc['run']})")


if __name__ == "__main__":
    sys.exit(main())
