"""Shared helpers of the decode tests: compile a decode (and combine) kernel once per config and
run it on the emulator on seeded inputs at given context lengths."""
from __future__ import annotations

from functools import cache

from asmgen import api
from asmgen.kinds import registry
from asmgen.kinds.decode.config import DecodeConfig
from asmgen.kinds.decode.reference import decode_random_inputs
from asmgen.runtime.emu import EmuRunner

DECODE = registry.get("decode")
COMBINE = registry.get("decode_combine")


@cache
def kernel(cfg):
    """The kernel of ``cfg`` under its kind's default schedule (generated once per config)."""
    kind = registry.of_config(cfg)
    return api.generate(kind, **kind.config_to_dict(cfg))


def run_decode(cfg: DecodeConfig, seed: int, lens=None):
    """(inputs, outputs) of the decode kernel on seeded inputs (context lengths ``lens``)."""
    k = kernel(cfg)
    inp = decode_random_inputs(cfg, seed, lens)
    return inp, EmuRunner(k.meta, k.hsaco, seed=seed)(**inp)


def run_combine(cfg: DecodeConfig, partials: dict, seed: int = 0):
    ccfg = DECODE.combine_config(cfg)
    k = kernel(ccfg)
    return EmuRunner(k.meta, k.hsaco, seed=seed)(o_partial=partials["o_partial"],
                                                 lse_partial=partials["lse_partial"])
