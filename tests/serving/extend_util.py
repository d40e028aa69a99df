"""Shared helpers of the extend tests: compile an extend kernel once per config and run it on
the emulator on seeded inputs at given new-token and context lengths."""
from __future__ import annotations

from functools import cache

from asmgen import api
from asmgen.kinds import registry
from asmgen.kinds.extend.config import ExtendConfig
from asmgen.kinds.extend.reference import extend_random_inputs
from asmgen.runtime.emu import EmuRunner

# (config keywords, new tokens per sequence, context lengths = prefix + new tokens)
CASES = {
    # prefixes 0, 7 (no new token), 1, 64 (aligned), 250 (not)
    "dense_gqa2_d64_bf16": (dict(heads=4, kv_heads=2, head_dim=64, dtype="bf16", seqlen_q=40,
                                 max_context=320),
                            [40, 0, 1, 33, 5], [40, 7, 2, 97, 255]),
    # prefixes 0, 1, 20 (an empty chunk), 192 (aligned, twelve pages); a 37-token chunk over one key
    "paged16_mha_d128_f16": (dict(heads=2, head_dim=128, dtype="f16", seqlen_q=64,
                                  max_context=256, paged=True, page_size=16),
                             [1, 37, 0, 64], [1, 38, 20, 256]),
    # prefixes 300, 31, 128 over 64-key pages; MQA (one KV head for four)
    "paged64_gqa4_d64_bf16": (dict(heads=4, kv_heads=1, head_dim=64, dtype="bf16", seqlen_q=50,
                                   max_context=320, paged=True, page_size=64),
                              [3, 50, 1], [303, 81, 129]),
}

EXTEND = registry.get("extend")


@cache
def kernel(cfg: ExtendConfig):
    """The kernel of ``cfg`` under the kind's default schedule (generated and assembled once)."""
    return api.generate(EXTEND, **cfg.to_dict())


def run_extend(cfg: ExtendConfig, seed: int, q_lens=None, context_lens=None, **extra):
    """(inputs, outputs) of the extend kernel on seeded inputs."""
    k = kernel(cfg)
    inp = extend_random_inputs(cfg, seed, q_lens, context_lens)
    return inp, EmuRunner(k.meta, k.hsaco, seed=seed)(**inp, **extra)
