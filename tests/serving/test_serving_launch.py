"""Launch checks of the paged serving contracts (issue 17): every ``block_table`` entry is a page
of the pool (0..num_blocks - 1 at the runtime ``num_blocks``; an out-of-pool entry would read
zeros through the buffer's range check and give a wrong O silently), and every ``context_lens``
value in 0..max_context (= max_blocks_per_seq x page_size when paged), for decode and extend.
The errors are typed ``LaunchError``s naming the element, its value and the limit, raised by
``runtime.launch.plan_launch`` (the one check the emulator and the HIP runner share), before any
work. A contract range bound may name a scalar (``"num_blocks-1"``); a malformed one is refused."""
from __future__ import annotations

import json

import numpy as np
import pytest
from decode_util import kernel as decode_kernel
from extend_util import kernel as extend_kernel

from asmgen.errors import KernargError
from asmgen.kernarg import ArgSpec, as_args
from asmgen.kinds.decode.config import DecodeConfig
from asmgen.kinds.decode.reference import decode_random_inputs
from asmgen.kinds.extend.config import ExtendConfig
from asmgen.kinds.extend.reference import extend_random_inputs
from asmgen.runtime.emu import EmuRunner
from asmgen.runtime.launch import LaunchError, plan_launch

DECODE = DecodeConfig(batch=2, heads=2, head_dim=64, max_context=64, paged=True, page_size=16,
                      num_splits=1)          # 4 pages per sequence, a pool of 8
EXTEND = ExtendConfig(batch=2, heads=2, head_dim=64, seqlen_q=8, max_context=64, paged=True,
                      page_size=16)


def _cases():
    yield "decode", decode_kernel(DECODE).meta, decode_random_inputs(DECODE, 1, [10, 64])
    yield "extend", extend_kernel(EXTEND).meta, extend_random_inputs(EXTEND, 1, [8, 3], [8, 40])


@pytest.mark.parametrize("which", ("decode", "extend"))
def test_block_table_and_context_lens_are_range_checked(which):
    meta, inp = next((m, i) for w, m, i in _cases() if w == which)
    plan_launch(meta, inp)                                   # the drawn inputs pass
    table = np.asarray(inp["block_table"])
    assert table.shape == (2, 4) and inp.get("num_blocks", 8) == 8
    bad = [({"block_table": np.where(np.arange(8).reshape(2, 4) == 4, 8, table)},
            r"block_table\[1, 0\] = 8; the kernel needs every element in \[0, num_blocks-1 = 7\]"),
           ({"block_table": np.where(np.arange(8).reshape(2, 4) == 3, -1, table)},
            r"block_table\[0, 3\] = -1"),
           # a smaller pool at launch: the table names pages past it
           ({"num_blocks": 5, "k_cache": inp["k_cache"][:5], "v_cache": inp["v_cache"][:5]},
            r"block_table\[\d, \d\] = [5-7]; .*\[0, num_blocks-1 = 4\]"),
           # a context past the table's max_blocks_per_seq x page_size = 64 keys, or negative
           ({"context_lens": np.array([65, 40], np.int32)},
            r"context_lens\[0\] = 65; the kernel needs every element in \[0, 64\]"),
           ({"context_lens": np.array([8, -3], np.int32)}, r"context_lens\[1\] = -3")]
    for change, msg in bad:
        with pytest.raises(LaunchError, match=msg):
            plan_launch(meta, dict(inp, **change))
    # the emulator runner checks through plan_launch before any work
    k = decode_kernel(DECODE) if which == "decode" else extend_kernel(EXTEND)
    with pytest.raises(LaunchError, match="block_table"):
        EmuRunner(k.meta, k.hsaco)(**dict(inp, **bad[0][0]))


def test_pool_shrunk_to_the_named_pages_still_runs():
    """num_blocks at launch may be any pool holding every page the table names."""
    inp = decode_random_inputs(DECODE, 2, [10, 64])
    table = np.asarray(inp["block_table"]) % 6
    plan_launch(decode_kernel(DECODE).meta,
                dict(inp, block_table=table, num_blocks=6, k_cache=inp["k_cache"][:6],
                     v_cache=inp["v_cache"][:6]))


def test_a_range_bound_may_name_a_scalar_and_round_trips_through_json():
    meta = decode_kernel(DECODE).meta
    (bt,) = [a for a in as_args(json.loads(json.dumps(meta))["args"]) if a.name == "block_table"]
    assert bt.range == (0, "num_blocks-1")
    (ctx,) = [a for a in as_args(meta["args"]) if a.name == "context_lens"]
    assert ctx.range == (0, DECODE.max_context)
    for bad in ((0, "num_blocks-x"), (0, "num blocks"), (0, True)):
        with pytest.raises(KernargError, match="range"):
            ArgSpec("block_table", "buffer", "i32", (2, 4), (4, 1), dims=("batch", 4), range=bad)
    with pytest.raises(KernargError, match="range"):          # scalars take numbers only
        ArgSpec("n", "scalar", "u32", range=(0, "batch"))
    spec = ArgSpec("t", "buffer", "i32", (2,), (1,), dims=("batch",), range=(0, "nope"))
    with pytest.raises(LaunchError, match="range naming 'nope', which is no scalar"):
        plan_launch({"args": [spec.to_dict(),
                              {"name": "batch", "kind": "scalar", "dtype": "u32", "value": 2}],
                     "grid": [1, 1, 1]}, {"t": np.zeros(2, np.int32)})
