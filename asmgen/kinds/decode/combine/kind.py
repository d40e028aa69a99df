"""The ``decode_combine`` kind: the kernel merging a split decode kernel's partials
(``asmgen.kinds.decode.merge``), wired into the hooks of ``asmgen.kinds.base``."""
from __future__ import annotations

from ...base import KernelKind, Launch
from ...registry import register
from ..kind import outputs_present
from ..merge import CombineConfig
from ..tags import DECODE_TAGS
from . import HELP, NAME


class CombineKind(KernelKind):
    name = NAME
    config_type = CombineConfig
    help = HELP
    default_schedule = "attn_basic"      # only orders its tags (any attention recipe does)
    tags = DECODE_TAGS

    def build(self, cfg: CombineConfig, recipe):
        from ..merge import build_combine
        return build_combine(cfg)

    def args(self, cfg: CombineConfig) -> list:
        from ..contract import combine_args
        return combine_args(cfg)

    def launch(self, cfg: CombineConfig) -> Launch:
        return Launch(cfg.grid, cfg.threads, (True, True, False),
                      grid_from=(None, ("batch", 1), None))

    def check_shape(self, cfg: CombineConfig):
        """One loop trip per split; batch shrinks to 1."""
        from ....runtime.check_size import CheckShape
        return CheckShape(trips=lambda s: cfg.num_splits, shrink=(("batch", 1, 1),))

    def random_inputs(self, cfg: CombineConfig, seed: int) -> dict:
        from ..reference import combine_random_inputs
        return combine_random_inputs(cfg, seed)

    def compare(self, cfg: CombineConfig, out, inputs: dict) -> tuple[bool, str]:
        from ..reference import compare_combine
        outputs_present(out, ("o", "lse"))
        return compare_combine(cfg, out, inputs)

    def fuzz_configs(self, small: bool, arches):
        from ..fuzz import combine_configs
        return combine_configs(small, arches)

    def shrink_moves(self):
        from ..fuzz import combine_candidates
        return self.config_to_dict, self.config_from_dict, combine_candidates

    def proof_kernels(self) -> tuple[dict, ...]:
        from ..fuzz import COMBINE_PROOF_KERNELS
        return COMBINE_PROOF_KERNELS

    def describe(self, cfg) -> str:
        return f"b{cfg.batch} h{cfg.heads} t{cfg.q_tokens} d{cfg.head_dim} s{cfg.num_splits}"

    def add_arguments(self, parser) -> None:
        from ..cli import add_combine_arguments
        add_combine_arguments(parser)

    def cli_kwargs(self, args) -> dict:
        from ..cli import combine_kwargs
        return combine_kwargs(args)


COMBINE = register(CombineKind())
