"""The emulator backend: ``EmuRunner`` runs a code object on ``isa.emu.Emulator`` from its launch
contract alone (arguments packed by ``asmgen.kernarg``). Every argument is checked against the
contract by ``asmgen.runtime.launch.plan_launch`` (shared with the HIP runner), which also gives
the runtime grid (``runtime_grid``); contracts are read and checked by
``asmgen.runtime.contract.read_contract``."""
from __future__ import annotations

from ..kernarg import as_args, pack_kernargs
from .contract import read_contract  # noqa: F401  (re-exported)
from .launch import grid_of as runtime_grid
from .launch import host_buffer, plan_launch  # noqa: F401  (host_buffer re-exported)
from .launch import zeros_buffer as host_zeros  # noqa: F401  (re-exported)


class EmuRunner:
    """Runs a kernel on ``isa.emu.Emulator``: ``run(A=..., B=..., C=..., alpha=..., ...)``.
    Returns the output buffer (the single ``out``/``inout`` argument) as NumPy, or a dict when
    the kernel has several outputs. Scalars default to the contract's ``value``."""

    def __init__(self, meta: dict, hsaco: bytes, seed: int = 0, allow_hazards=()) -> None:
        self.meta = meta
        self.hsaco = hsaco
        self.seed = seed
        self.args = as_args(meta["args"])
        self.last_emulator = None
        # hazard rules the emulator lets run on, each violation counted (isa.emu.hazard_check)
        self.allow_hazards = frozenset(allow_hazards)
        self.allowed_hazards: dict = {}
        # called as progress(done, total) after each emulated workgroup (asmgen.runtime.progress)
        self.progress = None
        # a launch split into shards run in worker processes (isa.emu.shards); None: the
        # emulator's defaults (2 shards for big launches; as many processes as usable CPUs)
        self.shards = None
        self.processes = None

    def __call__(self, seed: int | None = None, **values):
        from isa.emu import Emulator
        plan = plan_launch(self.meta, values)     # every check of the contract, before any work
        emu = Emulator(arch=self.meta["arch"], seed=self.seed if seed is None else seed,
                       allow_hazards=self.allow_hazards, shards=self.shards,
                       processes=self.processes)
        packed = dict(plan.scalars)
        for name, arr in plan.host.items():
            packed[name] = emu.alloc(arr, name)
        kernargs = pack_kernargs(self.args, packed)
        extra = {} if self.progress is None else {"progress": self.progress}
        emu.launch(self.hsaco, self.meta["kernel"], grid=plan.grid, block=tuple(self.meta["block"]),
                   kernargs=kernargs, **extra)
        self.last_emulator = emu
        for key, n in emu.allowed_hazards.items():
            self.allowed_hazards[key] = self.allowed_hazards.get(key, 0) + n
        outs = {n: plan.host[n] for n in plan.outputs}
        return next(iter(outs.values())) if len(outs) == 1 else outs

    def _grid(self, scalars: dict) -> tuple:
        return runtime_grid(self.meta, scalars)
