"""The GEMM kernel kind (``C = alpha * op(A) @ op(B) + beta * C``): the ``KernelKind`` the
registry knows as ``gemm``, wiring this folder's config, template, contract, reference,
profile, fuzz and CLI modules into the hooks of ``asmgen.kinds.base``."""
from __future__ import annotations

from ..base import KernelKind, Launch
from ..registry import register
from . import HELP, NAME
from .config import GemmConfig
from .tags import GEMM_TAGS


class GemmKind(KernelKind):
    name = NAME
    config_type = GemmConfig
    help = HELP
    default_schedule = "pgr1"
    tags = GEMM_TAGS

    # -- config: the pipeline shape is the config's; the recipe's defaults fill what is unset ---
    def make_config(self, recipe, **kw) -> GemmConfig:
        if kw.get("prefetch") is None:      # the API's "not given"
            kw.pop("prefetch", None)
        return super().make_config(recipe, **kw)

    def config_from_dict(self, d: dict) -> GemmConfig:
        d = {k: v for k, v in d.items() if k != "kind"}
        for key in ("tile", "waves", "mfma"):
            if d.get(key) is not None:
                d[key] = tuple(d[key])
        return super().config_from_dict(d)

    # -- generation -----------------------------------------------------------------------------
    def build(self, cfg: GemmConfig, recipe):
        from .template import build_gemm
        return build_gemm(cfg)

    def args(self, cfg: GemmConfig) -> list:
        from .contract import gemm_args
        return gemm_args(cfg)

    def launch(self, cfg: GemmConfig) -> Launch:
        return Launch(cfg.grid, cfg.threads, (True, True, False),
                      grid_from=(("M", cfg.tile[0]), ("N", cfg.tile[1]), None))

    # -- checking -------------------------------------------------------------------------------
    def check_shape(self, cfg: GemmConfig):
        """K loop: ceil(K / tile K) trips. M and N shrink in whole tiles to at least two tiles
        (the grid keeps more than one workgroup per dimension), K in whole K tiles to at least
        prefetch + staging + 2 tiles (the prologue's tiles, and the steady loop running twice)."""
        from ...runtime.check_size import CheckShape
        tm, tn, tk = cfg.tile
        return CheckShape(trips=lambda s: -(-int(s["K"]) // tk),
                          shrink=(("M", tm, 2 * tm), ("N", tn, 2 * tn),
                                  ("K", tk, (cfg.prefetch + cfg.staging + 2) * tk)))

    def random_inputs(self, cfg: GemmConfig, seed: int) -> dict:
        from .reference import gemm_random_inputs
        return gemm_random_inputs(cfg, seed)

    def compare(self, cfg: GemmConfig, out, inputs: dict) -> tuple[bool, str]:
        from .reference import compare
        return compare(cfg, out, inputs["A"], inputs["B"], inputs["C"], inputs["alpha"],
                       inputs["beta"], inputs.get("bias"), inputs.get("scale_a", 1.0),
                       inputs.get("scale_b", 1.0))

    @staticmethod
    def profile(meta: dict, hsaco: bytes, **kw) -> dict:
        from .profile import profile_gemm
        return profile_gemm(meta, hsaco, **kw)

    # -- fuzzing --------------------------------------------------------------------------------
    def fuzz_configs(self, small: bool, arches):
        from .fuzz import gemm_configs
        return gemm_configs(small, arches)

    def fuzz_case_config(self, cfg: GemmConfig, sched_seed: int) -> GemmConfig:
        """The config with the loop arrangement the schedule seed picks (``fuzz_arrangement``;
        a split loop carries one operand register set, so it takes frag_buffers 0)."""
        from .fuzz import fuzz_case_config
        return fuzz_case_config(cfg, sched_seed)

    def shrink_moves(self):
        from .fuzz import candidates, from_raw, to_raw
        return to_raw, from_raw, candidates

    def describe(self, cfg: GemmConfig) -> str:
        return f"m{cfg.m} n{cfg.n} k{cfg.k}"

    def proof_kernels(self) -> tuple[dict, ...]:
        from .fuzz import GEMM_PROOF_KERNELS
        return GEMM_PROOF_KERNELS

    # -- CLI ------------------------------------------------------------------------------------
    def add_arguments(self, parser) -> None:
        from .cli import add_arguments
        add_arguments(parser)

    def cli_kwargs(self, args) -> dict:
        from .cli import cli_kwargs
        return cli_kwargs(args)

    def cli_generate(self, args, generate):
        from .cli import cli_generate
        return cli_generate(args, generate)


GEMM = register(GemmKind())
