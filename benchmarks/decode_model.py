"""Decode attention under the calibrated cycle model (issue 17): batch 64, context 4096 and 8192,
64 query heads over 8 KV heads (GQA group 8), head_dim 128, bf16, dense and paged (16-key pages)
KV caches, on both arches' default devices. Per row: the split count the kind chose, the CU
model's makespan and the HBM floor (the problem's bytes at the device's measured achievable HBM
bandwidth), which one sets the modeled time, the modeled TB/s as a fraction of the HBM peak, and
tokens per second, with the model's calibration error beside it.

    PYTHONPATH=. python benchmarks/decode_model.py [--arch gfx942] [--context 4096]

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


def main() -> None:
    from asmgen import api
    from asmgen.cli.profile import profile
    from asmgen.target import ARCHES
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--arch", choices=ARCHES, action="append")
    ap.add_argument("--context", type=int, action="append")
    ap.add_argument("--batch", type=int, default=64)
    a = ap.parse_args()
    print(f"{'arch':7} {'device':7} {'context':>7} {'cache':8} {'splits':>6} {'CU model':>10} "
          f"{'HBM floor':>10} {'set by':6} {'TB/s':>5} {'% peak':>6} {'tok/s':>8}  model error")
    with tempfile.TemporaryDirectory() as tmp:
        for arch in a.arch or ARCHES:
            for ctx in a.context or (4096, 8192):
                for paged in (False, True):
                    kern = api.generate("decode", arch=arch, batch=a.batch, heads=64, kv_heads=8,
                                        head_dim=128, dtype="bf16", max_context=ctx,
                                        paged=paged, page_size=16)
                    out = profile(kern.save(Path(tmp)))
                    u = out["uncertainty"]
                    print(f"{arch:7} {out['device']:7} {ctx:>7} {'paged16' if paged else 'dense':8} "
                          f"{out['problem']['num_splits']:>6} {out['cycles_cu_model']:>10.0f} "
                          f"{out['cycles_hbm_floor']:>10.0f} {out['time_set_by']:6} "
                          f"{out['achieved_tbps']:>5.2f} {100 * out['fraction_of_hbm_peak']:>5.1f}% "
                          f"{out['tokens_per_second']:>8.0f}  median {100 * u['median']:.0f} %, "
                          f"worst {100 * u['worst']:.0f} %", flush=True)


if __name__ == "__main__":
    main()
