"""Causal against non-causal flash-attention forward under the calibrated cycle model: TFLOP/s
counting the FLOPs actually needed (causal: half of 4 B H S^2 D, ``kinds.attention.profile``),
their ratio at each device's sustained clock and at its peak clock, and where the causal
kernel's time goes beside the non-causal one's (issue 16's target: causal at least 0.98x).

Rows per arch and (batch, heads): ``default``: ``asmgen attention --causal`` with no tuning
flag against ``asmgen attention --seqlen-k-multiple 32`` with none (the non-causal kernel that,
like the causal one at a length multiple of 32, runs no key mask off the diagonal);
``matched``: the non-causal kernel of the causal default's own schedule, waves and kv_buffers
(printed only when it differs from ``default``'s). Each profile is the public CLI in a
subprocess (``python -m asmgen attention ... -o DIR`` then ``python -m asmgen profile
DIR/<kernel>.json --json``), as ``benchmarks/attention.py`` runs it.

The loss at the peak clock, causal cycles over half the non-causal ones, is the product of:

* ``visit``: key blocks the causal workgroups run over the blocks the FLOPs need (half the
  non-causal ones): a workgroup of R rows runs every key block up to its last row's diagonal,
  so R / 64 blocks per workgroup above the needed triangle (the waves of a workgroup meet at
  every block's barrier, so a block some of its waves skip costs the others' time);
* ``trip``: the causal kernel's steady-state cycles per key block over the non-causal one's (per
  query row and co-resident workgroup, when the two configurations differ);
* ``fixed``: the per-workgroup cost outside the steady state (prologue, the diagonal bodies'
  excess, epilogue, memory drain: the emulated round minus its trips at the steady-state rate),
  as a share of a workgroup's time, causal against non-causal (causal workgroups run half the
  blocks, so the same cost weighs twice);
* ``balance``: the makespan over the work spread evenly over the CU slots (wave quantisation
  and, causal, the unequal Q-blocks dealt longest first, ``kinds.attention.grid``).

    python benchmarks/attention_causal.py [--arch gfx942 gfx950] [--bh 16x16 1x16]
        [--seqlen 8192] [--head-dim 128] [--dtype bf16]
"""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:] = [str(ROOT)] + [p for p in sys.path if Path(p or ".").resolve() != ROOT / "benchmarks"]
sys.path.append(str(ROOT / "benchmarks"))
from attention import _run  # benchmarks/attention.py: the CLI in a subprocess


def profile(arch: str, b: int, h: int, causal: bool, flags: list[str], ns) -> tuple[dict, dict]:
    """(profile JSON, the contract's config) of one kernel."""
    with tempfile.TemporaryDirectory() as tmp:
        _run(["attention", "--arch", arch, "--batch", str(b), "--heads", str(h), "--seqlen-q",
              str(ns.seqlen), "--seqlen-k", str(ns.seqlen), "--head-dim", str(ns.head_dim),
              "--dtype", ns.dtype, *(["--causal"] if causal else []), *flags, "-o", tmp])
        (contract,) = Path(tmp).glob("*.json")
        meta = json.loads(contract.read_text())
        cfg = dict(meta["config"], schedule=meta["schedule"])
        return json.loads(_run(["profile", str(contract), "--json"])), cfg


def parts(out: dict, cfg: dict, ns) -> dict:
    """Visited key blocks, steady-state clk per block, fixed clk per workgroup, balance."""
    import numpy as np

    from asmgen.kinds.attention.grid import trips_per_qblock
    from asmgen.kinds.attention.profile import makespan
    rows = 32 * int(cfg["waves"])
    trips = trips_per_qblock(ns.seqlen, ns.seqlen, bool(cfg["causal"]), rows)
    em, cpi = out["emulated"], float(out["cycles_per_iter"])
    fixed = em["cycles"] - em["kv_iters"] * cpi
    dur = fixed + trips.astype(float) * cpi
    n_bh = out["problem"]["batch"] * out["problem"]["heads"]
    slots = out["perf"]["cus"] * out["wgs_per_cu"]
    longest = bool(cfg["causal"])
    total = makespan(dur, n_bh, slots, longest)
    # a trip covers ``rows`` x 32 scores on one of a CU's ``wgs_per_cu`` slots
    return {"blocks": float(trips.sum()) * rows, "cpi": cpi / (rows * out["wgs_per_cu"]),
            "fixed_share": fixed / float(np.mean(dur)),
            "balance": total / (float(dur.sum()) * n_bh / slots)}


def row(arch: str, b: int, h: int, name: str, c: tuple, n: tuple, ns) -> None:
    (co, ccfg), (no, ncfg) = c, n
    pc, pn = parts(co, ccfg, ns), parts(no, ncfg, ns)
    visit = pc["blocks"] / (pn["blocks"] / 2)
    trip = pc["cpi"] / pn["cpi"]
    fixed = (1 + pc["fixed_share"] / (1 - pc["fixed_share"])) / (
        1 + pn["fixed_share"] / (1 - pn["fixed_share"]))
    bal = pc["balance"] / pn["balance"]
    sust = co["tflops_sustained"] / no["tflops_sustained"]
    peak = co["tflops"] / no["tflops"]

    def cfgname(cfg):
        return f"{cfg['schedule'].removeprefix('attn_')} w{cfg['waves']}b{cfg['kv_buffers']}"
    print(f"{arch:7} B{b:<2}H{h:<3} {name:8} {cfgname(ccfg):22} {co['tflops_sustained']:6.0f}"
          f"@{co['sustained_clock_mhz']:<5.0f} {co['tflops']:6.0f} {co['bound']['bound']:6} | "
          f"{cfgname(ncfg):22} {no['tflops_sustained']:6.0f}@{no['sustained_clock_mhz']:<5.0f} "
          f"{no['tflops']:6.0f} {no['bound']['bound']:6} | {sust:6.3f} {peak:6.3f} | "
          f"{1 / visit:6.3f} {1 / trip:6.3f} {1 / fixed:6.3f} {1 / bal:6.3f}")


def main(argv=None) -> int:
    a = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    a.add_argument("--arch", nargs="+", default=["gfx942", "gfx950"])
    a.add_argument("--bh", nargs="+", default=["16x16", "1x16"], help="BATCHxHEADS")
    a.add_argument("--seqlen", type=int, default=8192)
    a.add_argument("--head-dim", type=int, default=128)
    a.add_argument("--dtype", default="bf16")
    ns = a.parse_args(argv)
    print(f"attention forward S{ns.seqlen} D{ns.head_dim} {ns.dtype}: causal / non-causal, "
          f"TF = TFLOP/s of the FLOPs needed (sustained clock @MHz, then peak clock)")
    print(f"{'arch':7} {'shape':7} {'row':8} {'causal':22} {'TF@sust':>12} {'TFpeak':>6} "
          f"{'bound':6} | {'non-causal':22} {'TF@sust':>12} {'TFpeak':>6} {'bound':6} | "
          f"{'r_sust':>6} {'r_peak':>6} | {'visit':>6} {'trip':>6} {'fixed':>6} {'bal':>6}")
    for arch in ns.arch:
        unc = None
        for bh in ns.bh:
            b, h = (int(x) for x in bh.lower().split("x"))
            try:
                c = profile(arch, b, h, True, [], ns)
                n = profile(arch, b, h, False, ["--seqlen-k-multiple", "32"], ns)
                row(arch, b, h, "default", c, n, ns)
                ccfg, ncfg = c[1], n[1]
                key = ("schedule", "waves", "kv_buffers")
                if any(ccfg[k] != ncfg[k] for k in key):
                    m = profile(arch, b, h, False, ["--schedule", ccfg["schedule"], "--waves",
                                                    str(ccfg["waves"]), "--kv-buffers",
                                                    str(ccfg["kv_buffers"]),
                                                    "--seqlen-k-multiple", "32"], ns)
                    row(arch, b, h, "matched", c, m, ns)
                unc = c[0].get("uncertainty", unc)
            except RuntimeError as e:
                print(f"{arch:7} B{b}H{h} FAILED: {e}")
        if unc:
            print(f"  {arch} model error: median {unc['median']:.1%}, worst {unc['worst']:.1%} "
                  f"({unc['run']}); a ratio of two kernels through one model errs less")
    print("r_sust, r_peak: causal / non-causal TF; visit x trip x fixed x bal = r_peak "
          "(each: non-causal's cost over causal's, 1 = no loss)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
