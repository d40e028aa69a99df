"""AMD aiter's hand-written paged-attention decode kernels (``hsa/gfx942/pa/*.co``) on the judge,
every check on, against NumPy, one line per kernel. Not CI: it needs an aiter snapshot (``fetch``
of github:ROCm/aiter puts one at /work/.mirror/ROCm+aiter/repo); nothing of aiter is committed
(the code objects are read with ``git show`` at run time).

    python benchmarks/aiter_pa.py [--aiter DIR] [--match REGEX] [--seqs 3] [--ctx 37,64,100]
                                  [--kv-heads 2] [--allow-hazard RULE ...]

Kernels run: the rows of ``hsa/gfx942/pa/pa_asm.csv`` without quantisation (kvType = qType,
fp16/bf16), one query token (Mtp 0, Msk 0) and no persistent scheduling (ps 0): the
``pa_{bf16,fp16}_noquant_gqa{8,16}_1tg_4w`` kernels. Everything else in the csv is SKIP with why.

Arguments, as aiter's ``csrc/py_itfs_cu/asm_pa.cu`` ``pa_fwd`` builds them (``KernelArgs``: each
pointer padded to 16 bytes, each 32-bit value to 16; the offsets are taken from the code object's
own ``.amdgpu_metadata`` argument list by name): O, Q, K, V, BT (block tables), CL (context
lengths), KQ = VQ = null (no quantisation), sclg2e = log2(e) / sqrt(head_size), mblk = the block
table's row stride in entries, kv_nheads ("batch" in the metadata), Qs = Q's row stride in bytes,
Bs = K's block stride in bytes, KVs = K's head stride in bytes, mtp = max_qlen - 1 = 0, GQA = query
heads per KV head, QTP = null. Grid (num_kv_heads, num_seqs, 1) of 256 lanes. Layouts, from
aiter's ``op_tests/test_pa.py`` (``kv_cache_factory``, ``asm_V_shuffle``): Q [seqs, heads, 128];
K [blocks, kv_heads, 128 / x, block_size, x]; V [blocks, kv_heads, block_size / x, 128, x] with
x = 16 bytes / element size; block tables int32 [seqs, max_blocks]; context lengths int32 [seqs];
O like Q. Reference: softmax(q k^T / sqrt(128)) v per query head over its sequence's first
ctx keys (float64), tolerance 2 output ulps + 2e-3 of the row's |v| sum.

Columns: kernel, PASS / FAIL (with the emulator's error) / SKIP (with why), worst error / tolerance,
emulated wave instructions, seconds.
"""
from __future__ import annotations

import argparse
import csv
import io
import math
import re
import struct
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

_HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _HERE]
sys.path.insert(0, str(_HERE.parent))

DEFAULT_SNAPSHOT = "/work/.mirror/ROCm+aiter/repo"
PA_DIR = "hsa/gfx942/pa"
HEAD = 128


class Skip(Exception):
    """The kernel is not run; the message says why."""


def _git(snapshot: str, *args: str) -> bytes:
    return subprocess.run(["git", "-C", snapshot, *args], check=True, capture_output=True).stdout


def pa_table(snapshot: str) -> list[dict]:
    return list(csv.DictReader(io.StringIO(_git(snapshot, "show", f"HEAD:{PA_DIR}/pa_asm.csv").decode())))


def _inputs(rng, dt, seqs: int, ctx: list[int], nkv: int, gqa: int, block: int):
    """Q, K (kernel layout), V (kernel layout), block tables, context lengths, and the gathered
    float64 K/V per sequence [ctx, kv_heads, 128] for the reference."""
    x = 16 // dt.itemsize
    nblk_seq = max(-(-c // block) for c in ctx)
    nblocks = nblk_seq * seqs + 3
    q = rng.uniform(-1, 1, (seqs, nkv * gqa, HEAD)).astype(dt)
    k_tok = rng.uniform(-1, 1, (nblocks, nkv, block, HEAD)).astype(dt)   # [blk, head, token, d]
    v_tok = rng.uniform(-1, 1, (nblocks, nkv, block, HEAD)).astype(dt)
    k_lay = np.ascontiguousarray(k_tok.reshape(nblocks, nkv, block, HEAD // x, x).transpose(0, 1, 3, 2, 4))
    v_lay = np.ascontiguousarray(v_tok.reshape(nblocks, nkv, block // x, x, HEAD).transpose(0, 1, 2, 4, 3))
    bt = rng.permutation(nblocks)[:seqs * nblk_seq].reshape(seqs, nblk_seq).astype(np.int32)
    cl = np.array(ctx, np.int32)
    ks, vs = [], []
    for s in range(seqs):
        tok = np.arange(ctx[s])
        blk = bt[s, tok // block]
        ks.append(k_tok[blk, :, tok % block].astype(np.float64))      # [ctx, kv_heads, d]
        vs.append(v_tok[blk, :, tok % block].astype(np.float64))
    return q, k_lay, v_lay, bt, cl, ks, vs


def run_pa(snapshot: str, row: dict, seqs: int, ctx: list[int], nkv: int, seed: int, allow):
    """(worst error / tolerance, Emulator) of one aiter paged-attention kernel."""
    import ml_dtypes

    from isa.codeobj import CodeObject
    from isa.emu import Emulator
    if row["kvType"] != row["qType"]:
        raise Skip(f"quantised KV cache ({row['kvType']}, quant_type {row['quant_type']}) not built here")
    if row["ps"] != "0" or row["Mtp"] != "0" or row["Msk"] != "0":
        raise Skip("multi-token / masked / persistent-scheduling variant (needs qo_indptr / work lists)")
    dt = np.dtype(ml_dtypes.bfloat16) if row["qType"] == "bf16" else np.dtype(np.float16)
    gqa, block = int(row["Gqa"]), int(row["blkSz"])
    co = _git(snapshot, "show", f"HEAD:{PA_DIR}/{row['co_name']}")
    obj = CodeObject.from_bytes(co)
    (kname,) = list(obj.kernels)
    ki = obj.kernels[kname]
    off = {a[".name"]: a[".offset"] for a in ki.args if a.get(".name") != "pad"}
    rng = np.random.default_rng(seed)
    if len(ctx) != seqs:
        ctx = [ctx[i % len(ctx)] for i in range(seqs)]
    q, k, v, bt, cl, ks, vs = _inputs(rng, dt, seqs, ctx, nkv, gqa, block)
    o = np.zeros_like(q)
    emu = Emulator(arch="gfx942", seed=seed, allow_hazards=allow)
    ptr = {n: emu.alloc(a, n) for n, a in (("O", o), ("Q", q), ("K", k), ("V", v), ("BT", bt), ("CL", cl))}
    args = bytearray(ki.kernarg_segment_size)

    def put(name, fmt, val):
        struct.pack_into("<" + fmt, args, off[name], val)
    for n, p in ptr.items():
        put(n, "Q", p)
    for n in ("KQ", "VQ", "QTP"):
        put(n, "Q", 0)
    put("sclg", "f", float(np.float32(math.log2(math.e) / math.sqrt(HEAD))))
    for n, val in (("mblk", bt.shape[1]), ("batch", nkv), ("Qs", q.strides[0]), ("Bs", k.strides[0]),
                   ("KVs", k.strides[1]), ("mtp", 0), ("GQA", gqa)):
        put(n, "I", val)
    emu.launch(co, kname, grid=(nkv, seqs, 1), block=(256, 1, 1), kernargs=bytes(args))
    worst = 0.0
    for s in range(seqs):
        for h in range(nkv * gqa):
            kh = h // gqa
            qv = q[s, h].astype(np.float64)
            sc = ks[s][:, kh] @ qv / math.sqrt(HEAD)
            p = np.exp(sc - sc.max())
            p /= p.sum()
            ref = p @ vs[s][:, kh]
            ulp = np.exp2(np.floor(np.log2(np.maximum(np.abs(ref), 1e-30))) - (7 if dt.itemsize == 2 and
                                                                                 row["qType"] == "bf16" else 10))
            tol = 2 * ulp + 2e-3 * (p @ np.abs(vs[s][:, kh]))
            worst = max(worst, float(np.max(np.abs(o[s, h].astype(np.float64) - ref) / tol)))
    return worst, emu


def _ints(text: str) -> list[int]:
    vals = [int(t) for t in text.split(",") if t.strip()]
    if not vals or min(vals) < 1:
        raise argparse.ArgumentTypeError(f"{text!r}: positive integers, comma separated")
    return vals


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--aiter", default=DEFAULT_SNAPSHOT, help="aiter git snapshot (read only)")
    ap.add_argument("--match", default="", help="only kernels whose .co name matches REGEX")
    ap.add_argument("--seqs", type=int, default=3)
    ap.add_argument("--ctx", type=_ints, default=[37, 64, 100], help="context lengths (cycled)")
    ap.add_argument("--kv-heads", type=int, default=2)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--allow-hazard", action="append", default=[], metavar="RULE")
    ns = ap.parse_args(argv)
    if not Path(ns.aiter).exists():
        print(f"error: no aiter snapshot at {ns.aiter}", file=sys.stderr)
        return 2
    if ns.seqs < 1 or ns.kv_heads < 1:
        print(f"error: --seqs {ns.seqs} and --kv-heads {ns.kv_heads} must be >= 1", file=sys.stderr)
        return 2
    for row in pa_table(ns.aiter):
        if not re.search(ns.match, row["co_name"]):
            continue
        t0 = time.perf_counter()
        try:
            err, emu = run_pa(ns.aiter, row, ns.seqs, ns.ctx, ns.kv_heads, ns.seed, frozenset(ns.allow_hazard))
            res = "PASS" if err <= 1.0 else "FAIL  mismatch"
            allowed = ", ".join(f"{r}/{kind} x{c}" for (r, kind), c in sorted(emu.allowed_hazards.items()))
            print(f"{row['co_name']:52s} {res:5s} err/tol {err:8.3f} {emu.steps} wave-instrs "
                  f"{time.perf_counter() - t0:6.1f}s" + (f"  allowed: {allowed}" if allowed else ""), flush=True)
        except Skip as e:
            print(f"{row['co_name']:52s} SKIP  {e}", flush=True)
        except Exception as e:  # noqa: BLE001 (the emulator's verdict, whatever it is, is the line)
            print(f"{row['co_name']:52s} FAIL  {type(e).__name__}: {str(e)[:400]}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
