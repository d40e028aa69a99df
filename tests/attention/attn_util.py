"""Shared helpers of the attention tests: compile (cached per config and schedule) and run a
kernel on the emulator at given runtime lengths, then compare with the float64 reference."""
from __future__ import annotations

import copy
from functools import cache

import numpy as np

from asmgen.api import EmuRunner
from asmgen.api import compile_attention, get_attention_recipe
from asmgen.kinds.attention.config import AttentionConfig
from asmgen.kinds.attention.reference import attention_random_inputs, compare_attention


@cache
def kernel(cfg: AttentionConfig, schedule: str = "attn_basic", sched_seed: int | None = None):
    params = {} if sched_seed is None else {"seed": sched_seed}
    return compile_attention(cfg, get_attention_recipe(schedule, **params))


def run_case(cfg: AttentionConfig, seed: int, schedule: str = "attn_basic",
             sched_seed: int | None = None, seqlen_q: int | None = None,
             seqlen_k: int | None = None) -> tuple[bool, str, dict]:
    """Run on seeded inputs (emulator seed = ``seed``); runtime lengths default to the config's."""
    k = kernel(cfg, schedule, sched_seed)
    sq = cfg.seqlen_q if seqlen_q is None else seqlen_q
    sk = cfg.seqlen_k if seqlen_k is None else seqlen_k
    meta = copy.deepcopy(k.meta)    # the runner sizes the grid from grid_from
    inp = attention_random_inputs(cfg, seed, {"seqlen_q": sq, "seqlen_k": sk})
    b, h, d = cfg.batch, cfg.heads, cfg.head_dim
    outs = {"O": np.zeros((b, h, sq, d), inp["Q"].dtype), "LSE": np.zeros((b, h, sq), np.float32)}
    out = EmuRunner(meta, k.hsaco, seed=seed)(seqlen_q=sq, seqlen_k=sk, **inp, **outs)
    ok, msg = compare_attention(cfg, out, inp)
    return ok, msg, out


def steady_body(kern) -> list:
    """Scheduled nodes of the KV loop's steady-state body: the block ``loop`` (the one body of a
    length-promised kernel, else the unmasked arm every whole key block runs, kvloop)."""
    return next(b for b in kern.compiled.stream.blocks if b.name == "loop").nodes


def ir_loop_blocks(k) -> list:
    """Every loop block of a ``KernelIR`` (its bodies and the branch blocks between them)."""
    return [b for b in k.blocks() if b.role == "loop"]
