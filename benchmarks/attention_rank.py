"""Rank asmgen's flash-attention configurations under the calibrated cycle model: every recipe x
waves x kv_buffers candidate for one problem, generated and profiled in this process
(``asmgen.api.attention`` then ``asmgen.cli.profile.profile``, the same model ``asmgen profile``
runs), printed fastest first. This is the table ``asmgen.kinds.attention.defaults`` is read from.

TFLOP/s is at the device's sustained clock; the model's error (median / worst relative error on
the held-out calibration figures) is printed once per arch: ranks closer than it are ties. A
candidate that does not build or profile is printed with its error; no number is made up.

    python benchmarks/attention_rank.py --arch gfx942 gfx950 --head-dim 64 128
        [--batch 16] [--heads 16] [--seqlen 8192] [--causal both|yes|no] [--dtype bf16]
        [--seqlen-k-multiple 32] [--only SCHED:W:B ...]
"""
from __future__ import annotations

import argparse
import itertools
import sys
from pathlib import Path

# run as a script this folder is sys.path[0], where benchmarks/schedules.py would shadow the
# recipe package; this repository's root goes first instead (its code, not an installed copy)
_HERE = Path(__file__).resolve().parent
sys.path[:] = [str(_HERE.parent)] + [p for p in sys.path if Path(p or ".").resolve() != _HERE]

SCHEDULES = ("attn_basic", "attn_interleave", "attn_prio", "attn_prio_interleave")
SHAPES = ((1, 1), (1, 2), (2, 2), (2, 3), (4, 2), (4, 3))      # (waves, kv_buffers)


def candidates(only: list[str] | None):
    if only:
        for c in only:
            s, w, b = c.split(":")
            yield s, int(w), int(b)
        return
    for s, (w, b) in itertools.product(SCHEDULES, SHAPES):
        yield s, w, b


def rank(arch: str, causal: bool, ns) -> list[tuple]:
    from asmgen.api import attention
    from asmgen.cli.profile import profile
    from asmgen.errors import AsmgenError
    rows = []
    for sched, w, b in candidates(ns.only):
        try:
            k = attention(batch=ns.batch, heads=ns.heads, seqlen_q=ns.seqlen, seqlen_k=ns.seqlen,
                          head_dim=ns.head_dim_now, dtype=ns.dtype, causal=causal, arch=arch,
                          schedule=sched, waves=w, kv_buffers=b,
                          seqlen_k_multiple=ns.seqlen_k_multiple, cache=False)
            out = profile(k)
        except AsmgenError as e:
            rows.append((sched, w, b, None, f"{type(e).__name__}: {e}"))
            continue
        rows.append((sched, w, b, out, out["kernel"]))
    return rows


def main(argv=None) -> int:
    a = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    a.add_argument("--arch", nargs="+", default=["gfx942", "gfx950"])
    a.add_argument("--head-dim", nargs="+", type=int, default=[128])
    a.add_argument("--batch", type=int, default=16)
    a.add_argument("--heads", type=int, default=16)
    a.add_argument("--seqlen", type=int, default=8192)
    a.add_argument("--dtype", default="bf16")
    a.add_argument("--causal", choices=("both", "yes", "no"), default="both")
    a.add_argument("--seqlen-k-multiple", type=int, default=32)
    a.add_argument("--only", nargs="+", help="candidates as SCHEDULE:WAVES:KV_BUFFERS")
    ns = a.parse_args(argv)
    causals = {"both": (False, True), "yes": (True,), "no": (False,)}[ns.causal]
    for arch, d, causal in itertools.product(ns.arch, ns.head_dim, causals):
        ns.head_dim_now = d
        rows = rank(arch, causal, ns)
        ok = sorted((r for r in rows if r[3] is not None), key=lambda r: -r[3]["tflops_sustained"])
        print(f"\n{arch} B{ns.batch} H{ns.heads} S{ns.seqlen} D{d} {ns.dtype} causal={causal} "
              f"seqlen_k_multiple={ns.seqlen_k_multiple}", flush=True)
        print(f"  {'schedule':22} {'w':>2} {'b':>2} {'TF@sust':>12} {'busy':>5} {'wg/CU':>5} "
              f"{'clk/iter':>8}  bound")
        for s, w, b, out, _ in ok:
            print(f"  {s:22} {w:2d} {b:2d} {out['tflops_sustained']:7.1f}@{out['sustained_clock_mhz']:.0f}"
                  f" {out['mfma_busy']:5.3f} {out['wgs_per_cu']:5d} {out['cycles_per_iter']:8.0f}"
                  f"  {out['bound']['bound']}", flush=True)
        for s, w, b, out, err in rows:
            if out is None:
                print(f"  {s:22} {w:2d} {b:2d} FAILED {err}")
        if ok:
            unc = ok[0][3]["uncertainty"]
            print(f"  model error: median {unc['median']:.1%}, worst {unc['worst']:.1%} "
                  f"({unc['run']})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
