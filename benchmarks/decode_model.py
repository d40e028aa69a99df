"""Decode attention under the calibrated cycle model (issue 17): batch 64, context 4096 and 8192,
64 query heads over 8 KV heads (GQA group 8), head_dim 128, on both arches' default devices
(MI300X, MI355X), KV caches bf16 dense and paged (16-key pages) and fp8 paged with per-tensor
and per-token scales. Per row: the split count the kind chose, the decode kernel's CU-model
makespan and HBM floor (its bytes at the device's measured achievable HBM bandwidth) and which
one sets its time, the ``decode_combine`` launch's modeled clk when there are several splits,
then the whole step (both launches): TB/s as a fraction of the HBM peak and tokens per second
(of one attention layer: batch x q_tokens over the step's time).
The model error printed is ``isa.cycle.params.MODEL_ERROR`` for the arch (with the calibration
run it comes from); it is the CU model's error on compute-bound GEMMs, while an HBM-bound row's
time is the floor, whose error is that of the measured achievable bandwidth it uses.

Published figures of other paged-attention decode kernels at the nearest conditions follow the
table (``PUBLISHED``: source, device, condition), converted to TB/s by the same byte count.

    PYTHONPATH=. python benchmarks/decode_model.py [--arch gfx942] [--context 4096] [--cache NAME]

The CU model has no DRAM queue: when its makespan is below the floor the kernel is modeled as
HBM-bound (it issues its loads fast enough); the ratio makespan / floor says by how much, and
that ratio is only meaningful outside the model's error.
"""
from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

# benchmarks/schedules.py would shadow the ``schedules`` package the recipes live in
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]

FP8 = {"gfx942": "fp8_e4m3fnuz", "gfx950": "fp8_e4m3"}
CACHES = {                           # name -> decode keywords (kv_dtype filled in per arch)
    "bf16-dense": dict(),
    "bf16-paged16": dict(paged=True, page_size=16),
    "fp8t-paged16": dict(paged=True, page_size=16, kv_dtype="fp8", kv_scale="tensor"),
    "fp8k-paged16": dict(paged=True, page_size=16, kv_dtype="fp8", kv_scale="token"),
    # batch 64 x 8 KV heads fills the GPU, so the kind does not split; this row forces 4
    # splits to show what the decode_combine launch costs at this shape
    "bf16-paged16-s4": dict(paged=True, page_size=16, num_splits=4),
}

# Published kernel-level figures (not modeled; measured by their authors). Bytes for TB/s:
# K and V of every context (the figures' own convention), kv_heads 8, head_dim as stated.
PUBLISHED = (
    dict(who="AITER paged decode (as benchmarked by the TLX PR)", device="gfx950 (MI350-class)",
         batch=64, context=8192, head_dim=128, kv_bytes=2, page=64, us=815.6,
         src="github.com/facebookexperimental/triton/pull/2040 (2026-07-15): 64 q / 8 kv "
             "heads, D128, PAGE_SIZE 64, bf16 KV, query length 1; 'aiter us' column"),
    dict(who="TLX paged decode (same PR, same run)", device="gfx950 (MI350-class)",
         batch=64, context=8192, head_dim=128, kv_bytes=2, page=64, us=384.3,
         src="github.com/facebookexperimental/triton/pull/2040, 'TLX us' column"),
)
NOT_FOUND = ("No kernel-level figure was found for composable_kernel's paged attention or for "
             "vLLM's ROCm custom paged attention (csrc/rocm/attention.cu, "
             "paged_attention_ll4mi) at batch 64, context 4096/8192, GQA 8, D128, nor for "
             "AITER on MI300X at that shape: vLLM PRs 8310, 15720, 13843, 17004 and ROCm/vllm "
             "22, 385 (from 372), 446 report end-to-end serving tokens/s only; composable_kernel "
             "PR 3128's description (CK Tile unified attention, as indexed) gives no decode "
             "timing, and a later CK commit's MI355 timings are prefill (paged vs contiguous "
             "K/V); "
             "ROCm/triton PR 718 times a Triton paged decode (48/6 heads, fp8 KV, contexts up "
             "to 384), not CK or vLLM's kernel; the ROCm blogs found (vLLM 0.9.x, vLLM's ROCm "
             "attention backends post) report serving throughput; TLX PRs 2281/2288/2778 "
             "report AITER at D64 only. Searched (2026-12-04 and before): the "
             "pages, issues, docs and code corpora for AITER pa / pa_fwd_asm / paged attention "
             "decode MI300X MI355X, composable_kernel paged / unified attention decode, vLLM "
             "ROCm custom paged attention (attention.cu, paged_attention_ll4mi, "
             "benchmark_paged_attention) kernel timings, SGLang AMD decode benchmarks.")


def published_tbps(p: dict) -> float:
    kv = 2 * p["batch"] * p["context"] * 8 * p["head_dim"] * p["kv_bytes"]
    return kv / (p["us"] * 1e-6) / 1e12


def main() -> None:
    from asmgen import api
    from asmgen.cli.profile import profile
    from asmgen.target import ARCHES
    from isa.cycle.params import params_for
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--arch", choices=ARCHES, action="append")
    ap.add_argument("--context", type=int, action="append")
    ap.add_argument("--cache", choices=tuple(CACHES), action="append")
    ap.add_argument("--batch", type=int, default=64)
    a = ap.parse_args()
    print(f"{'arch':7} {'device':7} {'context':>7} {'cache':13} {'splits':>6} {'CU model':>9} "
          f"{'HBM floor':>9} {'set by':6} {'combine':>8} {'TB/s':>5} {'% peak':>6} "
          f"{'tok/s':>8}  model error (MODEL_ERROR)")
    errs = {}
    with tempfile.TemporaryDirectory() as tmp:
        for arch in a.arch or ARCHES:
            for ctx in a.context or (4096, 8192):
                for name in a.cache or CACHES:
                    kw = dict(CACHES[name])
                    if kw.get("kv_dtype") == "fp8":
                        kw["kv_dtype"] = FP8[arch]
                    kern = api.generate("decode", arch=arch, batch=a.batch, heads=64, kv_heads=8,
                                        head_dim=128, dtype="bf16", max_context=ctx, **kw)
                    out = profile(kern.save(Path(tmp)))
                    u = out["uncertainty"]
                    errs[arch] = u
                    comb = out["combine"]["cycles"] if out["combine"] else 0.0
                    print(f"{arch:7} {out['device']:7} {ctx:>7} {name:13} "
                          f"{out['problem']['num_splits']:>6} {out['cycles_cu_model']:>9.0f} "
                          f"{out['cycles_hbm_floor']:>9.0f} {out['time_set_by']:6} {comb:>8.0f} "
                          f"{out['achieved_tbps']:>5.2f} "
                          f"{100 * out['fraction_of_hbm_peak']:>5.1f}% "
                          f"{out['tokens_per_second']:>8.0f}  median {100 * u['median']:.1f} %, "
                          f"worst {100 * u['worst']:.1f} %", flush=True)
    for arch, u in errs.items():
        print(f"MODEL_ERROR[{arch}]: median {100 * u['median']:.1f} %, worst "
              f"{100 * u['worst']:.1f} % over {u['figures']} figures ({u['run']})")
    print("\npublished (measured, not modeled):")
    for p in PUBLISHED:
        tb = published_tbps(p)
        peak = params_for("gfx950").hbm_tbps
        print(f"  {p['who']}: {p['device']}, batch {p['batch']}, context {p['context']}, "
              f"D{p['head_dim']}, page {p['page']}, bf16 KV: {p['us']} us = {tb:.2f} TB/s "
              f"({100 * tb / peak:.0f} % of the MI355X's {peak} TB/s), "
              f"{p['batch'] / (p['us'] * 1e-6):.0f} tok/s per layer; {p['src']}")
    print(f"  {NOT_FOUND}")


if __name__ == "__main__":
    main()
