"""Shared helpers of the extend tests: compile an extend kernel once per config and run it on
the emulator on seeded inputs at given new-token and context lengths."""
from __future__ import annotations

from functools import cache

from asmgen import api
from asmgen.kinds import registry
from asmgen.kinds.extend.config import ExtendConfig
from asmgen.kinds.extend.reference import extend_random_inputs
from asmgen.runtime.emu import EmuRunner

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
