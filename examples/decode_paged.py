"""Decode attention over a vLLM-style paged KV cache, end to end on the emulator: the split
decode kernel writes per-split partials, the combine kernel merges them, and the result is
compared with the float64 NumPy reference of the whole context.

    python examples/decode_paged.py [--arch gfx950] [--batch 3] [--heads 8 --kv-heads 2]
        [--q-tokens 2] [--head-dim 128] [--page-size 16] [--max-context 256] [--splits 3]
"""
from __future__ import annotations

import argparse

import numpy as np

from asmgen import api, load
from asmgen.kinds import registry
from asmgen.kinds.decode.reference import decode_random_inputs, decode_reference
from asmgen.target import ARCHES


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--arch", default=ARCHES[0], choices=ARCHES)
    ap.add_argument("--batch", type=int, default=3)
    ap.add_argument("--heads", type=int, default=8)
    ap.add_argument("--kv-heads", type=int, default=2)
    ap.add_argument("--q-tokens", type=int, default=2)
    ap.add_argument("--head-dim", type=int, default=128)
    ap.add_argument("--page-size", type=int, default=16)
    ap.add_argument("--max-context", type=int, default=256)
    ap.add_argument("--splits", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    decode = registry.get("decode")
    kern = api.generate(decode, arch=a.arch, batch=a.batch, heads=a.heads, kv_heads=a.kv_heads,
                        q_tokens=a.q_tokens, head_dim=a.head_dim, dtype="bf16",
                        max_context=a.max_context, paged=True, page_size=a.page_size,
                        num_splits=a.splits)
    cfg = kern.config
    print(kern.name, "grid", kern.meta["grid"], kern.meta["resources"])
    inp = decode_random_inputs(cfg, a.seed)          # shuffled pages, NaN where nothing may read
    print("context_lens", inp["context_lens"].tolist(), "block_table row 0",
          inp["block_table"][0].tolist())
    part = load(kern, backend="emu")(**inp)
    if cfg.num_splits > 1:
        comb = api.generate("decode_combine", **decode.combine_config(cfg).to_dict())
        out = load(comb, backend="emu")(o_partial=part["o_partial"],
                                        lse_partial=part["lse_partial"])
    else:
        out = part
    o_ref, lse_ref = decode_reference(cfg, inp)
    err = float(np.abs(np.asarray(out["o"], np.float64) - o_ref).max())
    lse = np.asarray(out["lse"], np.float64)
    fin = np.isfinite(lse_ref)
    lerr = float(np.abs(lse[fin] - lse_ref[fin]).max()) if fin.any() else 0.0
    print(f"max |O - ref| = {err:.3g}, max |LSE - ref| = {lerr:.3g}, "
          f"-inf rows {'match' if np.array_equal(np.isneginf(lse), ~fin) else 'DIFFER'}")


if __name__ == "__main__":
    main()
