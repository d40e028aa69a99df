"""fp8 prefill attention beside bf16 under the calibrated cycle model: for each arch and causal,
the default configuration ``asmgen attention`` builds (``kinds.attention.defaults``) in the arch's
fp8 (fp8_e4m3fnuz on gfx942, fp8_e4m3 on gfx950) and in bf16, profiled in this process by the
model ``asmgen profile`` runs; prints TFLOP/s at the sustained clock, the fp8 / bf16 ratio and the
model's error (ranks and ratios closer than it are ties).

    python benchmarks/attention_fp8.py [--arch gfx942 gfx950] [--causal both|yes|no]
        [--batch 16] [--heads 16] [--seqlen 8192] [--head-dim 128]

The same numbers, one kernel at a time:
    asmgen attention --arch gfx942 --batch 16 --heads 16 --seqlen-q 8192 --seqlen-k 8192 \\
        --head-dim 128 --dtype fp8_e4m3fnuz --seqlen-k-multiple 32 -o out/ \\
        && asmgen profile out/*.json

Published fp8 flash-attention forward figures to set them beside (measured, other problems):
  * MI355X (gfx950), AITER: b1 hq5 s75600 d128, aiter_fp8 2028 TFLOP/s, aiter_bf16 1196 TFLOP/s
    (fp8 / bf16 1.70), ROCm/aiter pull request 3495 (bench_sage table).
  * MI355X (gfx950), composable_kernel FMHA V3 fp8: small problems only (batch 1, 6 heads,
    seqlen <= 4096 causal, 264 TFLOP/s at 4096), ROCm/rocm-libraries pull request 6051.
  * MI300X (gfx942): AITER ships an fp8 fmha assembly kernel (ROCm/aiter pull request 2911 says
    so), but no published TFLOP/s figure was found. FlashAttention-3's fp8 path is NVIDIA-only.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

_HERE = Path(__file__).resolve().parent
sys.path[:] = [str(_HERE.parent)] + [p for p in sys.path if Path(p or ".").resolve() != _HERE]

FP8_OF = {"gfx942": "fp8_e4m3fnuz", "gfx950": "fp8_e4m3"}


def modeled(arch: str, dtype: str, causal: bool, ns) -> dict:
    """Profile of the default kernel for the problem (``asmgen.cli.profile.profile``)."""
    from asmgen.api import generate
    from asmgen.cli.profile import profile
    from asmgen.kinds.attention.defaults import build_default

    def attention(schedule=None, schedule_params=None, **kw):
        return generate("attention", schedule, schedule_params, cache=False, **kw)

    kern, cand = build_default(attention, batch=ns.batch, heads=ns.heads, kv_heads=None,
                               seqlen_q=ns.seqlen, seqlen_k=ns.seqlen, head_dim=ns.head_dim,
                               dtype=dtype, causal=causal, arch=arch, scale=None,
                               seqlen_k_multiple=32)
    out = profile(kern)
    return {"config": cand, "out": out}


def main(argv=None) -> int:
    a = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    a.add_argument("--arch", nargs="+", default=list(FP8_OF), choices=list(FP8_OF))
    a.add_argument("--causal", choices=("both", "yes", "no"), default="both")
    a.add_argument("--batch", type=int, default=16)
    a.add_argument("--heads", type=int, default=16)
    a.add_argument("--seqlen", type=int, default=8192)
    a.add_argument("--head-dim", type=int, default=128)
    ns = a.parse_args(argv)
    causals = {"both": (False, True), "yes": (True,), "no": (False,)}[ns.causal]
    for arch in ns.arch:
        for causal in causals:
            res = {dt: modeled(arch, dt, causal, ns) for dt in (FP8_OF[arch], "bf16")}
            print(f"\n{arch} B{ns.batch} H{ns.heads} S{ns.seqlen} D{ns.head_dim} causal={causal}")
            for dt, r in res.items():
                o, c = r["out"], r["config"]
                print(f"  {dt:13} {c['schedule']} w{c['waves']}b{c['kv_buffers']}: "
                      f"{o['tflops_sustained']:7.1f} TF/s at {o['sustained_clock_mhz']:.0f} MHz "
                      f"(mfma busy {o['mfma_busy']:.3f})")
            f8, bf = (res[d]["out"]["tflops_sustained"] for d in (FP8_OF[arch], "bf16"))
            unc = res["bf16"]["out"]["uncertainty"]
            print(f"  fp8 / bf16 = {f8 / bf:.2f}; model error median {unc['median']:.1%}, worst "
                  f"{unc['worst']:.1%} ({unc['run']})", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
