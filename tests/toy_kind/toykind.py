"""A toy third kernel kind, ``scale``: Y = alpha * X over a 2-D f32 array, as the proof that a kind
is one folder and one registry line (issue 12). Config, contract, template (KernelIR), NumPy
reference and the kind's hooks; the driver, ``asmgen check``, the cache and the CLI come from the
registry. Each workgroup of 64 lanes scales 64 consecutive elements; lanes past rows x cols read
0 and their stores are dropped by the buffer range check (num_records = 4 rows cols bytes)."""
from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

from asmgen import kernarg
from asmgen.errors import ConfigError
from asmgen.ir import CoreTag, KernelIR, TagEnum, TagVocabulary
from asmgen.kernarg import ArgSpec
from asmgen.kinds.base import KernelKind, Launch
from asmgen.kinds.common.buffers import SRD_DWORD3
from asmgen.kinds.registry import register
from asmgen.target import ARCHES, target_of
from isa.instr import Instr
from isa.operands import Imm, s, v

LANES = 64


class ScaleTag(TagEnum):          # the kind's tags (addr and the pass-inserted ones are core)
    LOAD = "load"
    VALU = "valu"
    STORE = "store"


SCALE_TAGS = TagVocabulary("scale", ScaleTag)


@dataclass(frozen=True)
class ScaleConfig:
    rows: int
    cols: int
    arch: str = ARCHES[0]

    def __post_init__(self) -> None:
        target_of(self.arch)     # ConfigError naming the value and the known arches
        for name in ("rows", "cols"):
            if not isinstance(getattr(self, name), int) or getattr(self, name) < 1:
                raise ConfigError(f"{name}={getattr(self, name)!r} must be an integer >= 1")
        if 4 * self.rows * self.cols >= 1 << 31:
            raise ConfigError(f"{self.rows}x{self.cols} f32 exceeds a 2 GiB buffer")

    name = property(lambda self: f"scale_f32_{self.rows}x{self.cols}")
    target = property(lambda self: target_of(self.arch))
    threads = LANES
    grid = property(lambda self: (-(-self.rows * self.cols // LANES), 1, 1))

    def to_dict(self) -> dict:
        return asdict(self)


def scale_args(cfg: ScaleConfig) -> list[ArgSpec]:
    shape = (cfg.rows, cfg.cols)
    return [ArgSpec("X", "buffer", "f32", shape, (cfg.cols, 1), "in"),
            ArgSpec("Y", "buffer", "f32", shape, (cfg.cols, 1), "out"),
            ArgSpec("n", "scalar", "u32", value=cfg.rows * cfg.cols),
            ArgSpec("alpha", "scalar", "f32", value=2.0)]


def build_scale(cfg: ScaleConfig) -> KernelIR:
    k = KernelIR(cfg.target, cfg.name, tags=SCALE_TAGS)
    karg, wg, tid = k.precolored("s", s(0, 2), "kernarg"), k.precolored("s", s(2), "wg_x"), \
        k.precolored("v", v(0), "tid")
    offs, p, t = kernarg.offsets(scale_args(cfg)), k.prologue, (CoreTag.ADDR,)
    srd = {n: k.vreg("s", 4, align=4, name=f"srd_{n}") for n in ("X", "Y")}
    sc = k.vreg("s", 2, name="n_alpha")
    for n in srd:
        p.add(Instr("s_load_dwordx2", (srd[n].sub(0, 2), karg, Imm(offs[n]))), t)
    p.add(Instr("s_load_dwordx2", (sc, karg, Imm(kernarg.contiguous(scale_args(cfg), ("n", "alpha"))))), t)
    for r in srd.values():
        p.add(Instr("s_and_b32", (r.sub(1), r.sub(1), Imm(0xFFFF))), t)
        p.add(Instr("s_lshl_b32", (r.sub(2), sc.sub(0), Imm(2))), t)
        p.add(Instr("s_mov_b32", (r.sub(3), Imm(SRD_DWORD3))), t)
    base, off, x, y = k.vreg("s", 1), k.vreg("v", 1), k.vreg("v", 1), k.vreg("v", 1)
    p.add(Instr("s_lshl_b32", (base, wg, Imm(8))), t)            # 64 lanes x 4 bytes
    p.add(Instr("v_lshlrev_b32", (off, Imm(2), tid)), t)
    p.add(Instr("v_add_u32", (off, base, off)), t)
    p.add(Instr("buffer_load_dword", (x, off, srd["X"], Imm(0)), (("offen", True),)), (ScaleTag.LOAD,))
    p.add(Instr("v_mul_f32", (y, sc.sub(1), x)), (ScaleTag.VALU,))
    p.add(Instr("buffer_store_dword", (y, off, srd["Y"], Imm(0)), (("offen", True),)), (ScaleTag.STORE,))
    return k


class ScaleKind(KernelKind):
    name, config_type, help, default_schedule = "scale", ScaleConfig, "toy: Y = alpha X (f32)", ""
    tags = SCALE_TAGS
    build = staticmethod(lambda cfg, recipe: build_scale(cfg))
    args = staticmethod(scale_args)
    launch = staticmethod(lambda cfg: Launch(cfg.grid, cfg.threads))

    def add_arguments(self, parser) -> None:
        parser.add_argument("--rows", type=int, required=True)
        parser.add_argument("--cols", type=int, required=True)
        parser.add_argument("--arch", default=ARCHES[0], choices=ARCHES)

    def cli_kwargs(self, args) -> dict:
        return {"rows": args.rows, "cols": args.cols, "arch": args.arch}

    def random_inputs(self, cfg: ScaleConfig, seed: int) -> dict:
        rng = np.random.default_rng(seed)
        return {"X": rng.standard_normal((cfg.rows, cfg.cols)).astype(np.float32),
                "alpha": float(rng.uniform(-2, 2))}

    def compare(self, cfg: ScaleConfig, out, inputs: dict) -> tuple[bool, str]:
        want = np.float32(inputs["alpha"]) * inputs["X"]     # one f32 rounding, as the kernel
        err = float(np.max(np.abs(np.asarray(out) - want)))
        return err == 0.0, f"max |Y - alpha X| = {err:.3g}"


SCALE = register(ScaleKind())
