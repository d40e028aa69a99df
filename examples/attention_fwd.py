"""Generate a flash-attention forward kernel, check O and LSE on the emulator against NumPy,
print its resources and the loop body's instruction mix.

    python examples/attention_fwd.py [--arch gfx942] [--heads 4 --kv-heads 2] [--seqlen-q 77]
        [--seqlen-k 100] [--head-dim 128] [--dtype bf16] [--causal] [--schedule attn_interleave]
        [-o DIR]
"""
from __future__ import annotations

import argparse
import collections
import time

from asmgen.api import attention, load
from asmgen.kinds.attention.reference import attention_random_inputs, compare_attention


def instruction_mix(kern) -> dict[str, int]:
    """Loop-body instruction counts by class (MFMA, VALU, trans, VMEM, LDS, SALU, waits)."""
    mix: collections.Counter = collections.Counter()
    for n in kern.compiled.stream.body:
        op = n.instr.op
        if op.startswith("v_mfma"):
            mix["mfma"] += 1
        elif op in ("v_exp_f32", "v_log_f32", "v_rcp_f32"):
            mix["valu_trans"] += 1
        elif op.startswith("v_"):
            mix["valu"] += 1
        elif op.startswith("buffer_"):
            mix["vmem"] += 1
        elif op.startswith("ds_"):
            mix["lds"] += 1
        elif op == "s_waitcnt":
            mix["s_waitcnt"] += 1
        elif op == "s_nop":
            mix["s_nop"] += 1
        else:
            mix["salu/branch"] += 1
    return dict(mix)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--arch", default="gfx942", choices=("gfx942", "gfx950"))
    ap.add_argument("--batch", type=int, default=1)
    ap.add_argument("--heads", type=int, default=4)
    ap.add_argument("--kv-heads", type=int, default=2)
    ap.add_argument("--seqlen-q", type=int, default=77)
    ap.add_argument("--seqlen-k", type=int, default=100)
    ap.add_argument("--head-dim", type=int, default=128)
    ap.add_argument("--dtype", default="f16", choices=("f16", "bf16"))
    ap.add_argument("--causal", action="store_true")
    ap.add_argument("--schedule", default="attn_basic")
    ap.add_argument("--waves", type=int, default=1, help="waves per workgroup (1, 2, 4)")
    ap.add_argument("--kv-buffers", type=int, default=None, help="LDS K/V buffers (2, 3)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("-o", "--output", default=None, help="also save .s/.hsaco/.json here")
    args = ap.parse_args()

    t0 = time.perf_counter()
    kern = attention(batch=args.batch, heads=args.heads, kv_heads=args.kv_heads,
                     seqlen_q=args.seqlen_q, seqlen_k=args.seqlen_k, head_dim=args.head_dim,
                     dtype=args.dtype, causal=args.causal, arch=args.arch, schedule=args.schedule,
                     waves=args.waves, kv_buffers=args.kv_buffers)
    t1 = time.perf_counter()
    r = kern.resources
    print(f"kernel     {kern.name}  ({kern.config.mfma})")
    print(f"generated  in {t1 - t0:.2f} s")
    print(f"resources  VGPR {r['vgpr']}  AGPR {r['agpr']}  SGPR {r['sgpr']}  LDS {r['lds']} B  "
          f"occupancy {r['waves_per_simd']} waves/SIMD")
    print(f"launch     grid {kern.meta['grid']} block {kern.meta['block']}")
    print(f"loop body  {instruction_mix(kern)}")
    inp = attention_random_inputs(kern.config, args.seed)
    out = load(kern, backend="emu", seed=args.seed)(**inp)
    t2 = time.perf_counter()
    ok, msg = compare_attention(kern.config, out, inp)
    print(f"emulator   {'OK' if ok else 'MISMATCH'} in {t2 - t1:.2f} s: {msg}")
    if args.output:
        print(f"saved      {kern.save(args.output)}")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
