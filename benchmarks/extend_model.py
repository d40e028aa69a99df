"""Extend attention under the calibrated cycle model (issue 17): batch 16 x 512 new tokens over a
4096-key cached prefix (context 4608), 64 query heads over 8 KV heads (GQA group 8), head_dim
128, bf16 queries, caches dense and paged (16-key pages) in bf16, and paged in the arch's fp8 with
per-tensor and per-token scales, on both arches' default devices; beside it,
through the same model in the same run, asmgen's own causal prefill of the same problem (dense
K/V of 4608 keys per sequence, seqlen_q 512, bottom-right causal: the same visible pairs and
FLOPs), one wave per workgroup (the extend kernel's loop shape) and the model-ranked default.
Per row: TFLOP/s of the visible (query, key) pairs (4 H D per pair, the same count for every
row: the prefill profile's own figure halves the full square instead), tokens/s, what sets the
time, and the speed ratio to the one-wave prefill (a ratio through one model: its calibration
error largely cancels).

    PYTHONPATH=. python benchmarks/extend_model.py [--arch gfx942] [--batch 16]
"""
from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

# benchmarks/schedules.py would shadow the ``schedules`` package the recipes live in
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]

SQ, PREFIX, H, HK, D = 512, 4096, 64, 8, 128
FP8 = {"gfx942": "fp8_e4m3fnuz", "gfx950": "fp8_e4m3"}
EXTENDS = {                          # name -> extend keywords (kv_dtype filled in per arch)
    "dense": dict(),
    "paged16": dict(paged=True, page_size=16),
    "paged16 fp8": dict(paged=True, page_size=16, kv_dtype="fp8"),
    "paged16 fp8 tok": dict(paged=True, page_size=16, kv_dtype="fp8", kv_scale="token"),
}


def main() -> None:
    from asmgen import api
    from asmgen.cli.profile import profile
    from asmgen.kinds.attention.defaults import build_default
    from asmgen.target import ARCHES
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--arch", choices=ARCHES, action="append")
    ap.add_argument("--batch", type=int, default=16)
    a = ap.parse_args()
    B, ctx = a.batch, SQ + PREFIX
    print(f"{'arch':7} {'device':7} {'kernel':22} {'TFLOP/s':>8} {'tok/s':>10} {'set by':6} "
          f"{'vs 1-wave prefill':>17}  model error")
    with tempfile.TemporaryDirectory() as tmp:
        for arch in a.arch or ARCHES:
            rows = []
            pre = api.attention(batch=B, heads=H, kv_heads=HK, seqlen_q=SQ, seqlen_k=ctx,
                                head_dim=D, dtype="bf16", causal=True, arch=arch)
            rows.append(("prefill 1-wave", profile(pre.save(Path(tmp)))))

            def attention(schedule=None, schedule_params=None, **kw):
                return api.generate("attention", schedule, schedule_params, **kw)
            kern, _ = build_default(attention, batch=B, heads=H, kv_heads=HK, seqlen_q=SQ,
                                    seqlen_k=ctx, head_dim=D, dtype="bf16", causal=True,
                                    arch=arch)
            rows.append((f"prefill default w{kern.config.waves}", profile(kern.save(Path(tmp)))))
            for name, kw in EXTENDS.items():
                kw = dict(kw)
                if kw.get("kv_dtype") == "fp8":
                    kw["kv_dtype"] = FP8[arch]
                ext = api.generate("extend", arch=arch, batch=B, heads=H, kv_heads=HK,
                                   seqlen_q=SQ, head_dim=D, dtype="bf16", max_context=ctx, **kw)
                rows.append((f"extend {name}", profile(ext.save(Path(tmp)))))
            base = rows[0][1]["cycles"]
            flops = 4.0 * B * H * D * (SQ * PREFIX + SQ * (SQ + 1) // 2)
            for name, out in rows:
                u = out["uncertainty"]
                secs = out["cycles"] / (out["perf"]["clock_mhz"] * 1e6)
                print(f"{arch:7} {out['device']:7} {name:22} {flops / secs / 1e12:>8.1f} "
                      f"{B * SQ / secs:>10.0f} {out.get('time_set_by', 'cu'):6} "
                      f"{base / out['cycles']:>17.2f}  median {100 * u['median']:.0f} %, "
                      f"worst {100 * u['worst']:.0f} %", flush=True)


if __name__ == "__main__":
    main()
