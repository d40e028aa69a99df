"""The decode kinds the registry knows as ``decode`` (flash decoding over a dense or paged KV
cache, one split per workgroup) and ``decode_combine`` (the merge of the splits' partials),
wiring this folder's modules into the hooks of ``asmgen.kinds.base``. ``asmgen attention --mode
decode`` reaches ``decode`` through ``mode_of`` (``asmgen.cli`` routes modes by the registry)."""
from __future__ import annotations

from ...errors import ConfigError
from ..base import KernelKind, Launch
from ..registry import register
from .combine import CombineConfig
from .config import DecodeConfig


def _outputs(out, names) -> None:
    if not isinstance(out, dict) or any(n not in out for n in names):
        raise ConfigError(f"the runner did not return the outputs {names}")


class DecodeKind(KernelKind):
    name = "decode"
    config_type = DecodeConfig
    help = "generate a decode-attention kernel (flash decoding, dense or paged KV cache)"
    default_schedule = "attn_basic"      # the attention recipes order its tags (same body)
    mode_of = ("attention", "decode")

    def build(self, cfg: DecodeConfig, recipe):
        from .template import build_decode
        return build_decode(cfg)

    def args(self, cfg: DecodeConfig) -> list:
        from .contract import decode_args
        return decode_args(cfg)

    def launch(self, cfg: DecodeConfig) -> Launch:
        return Launch(cfg.grid, cfg.threads, (True, True, True),
                      grid_from=(None, None, ("batch", 1)))

    def check_shape(self, cfg: DecodeConfig):
        """KV loop: the key blocks of the longest split of a ``context_len`` context (the random
        inputs' longest sequence); batch shrinks to 1 (the lengths are data, not sizes)."""
        from ...runtime.check_size import CheckShape
        from .profile import split_trips
        trips = int(split_trips(cfg.context_len, cfg.num_splits).max())
        return CheckShape(trips=lambda s: trips, shrink=(("batch", 1, 1),))

    def random_inputs(self, cfg: DecodeConfig, seed: int) -> dict:
        from .reference import decode_random_inputs
        return decode_random_inputs(cfg, seed)

    def compare(self, cfg: DecodeConfig, out, inputs: dict) -> tuple[bool, str]:
        from .reference import compare_decode
        _outputs(out, ("o_partial", "lse_partial") if cfg.num_splits > 1 else ("o", "lse"))
        return compare_decode(cfg, out, inputs)

    @staticmethod
    def profile(meta: dict, hsaco: bytes, **kw) -> dict:
        from .profile import profile_decode
        return profile_decode(meta, hsaco, **kw)

    def fuzz_configs(self, small: bool, arches):
        from .fuzz import decode_configs
        return decode_configs(small, arches)

    def shrink_moves(self):
        from .fuzz import candidates, to_raw
        return to_raw, self.config_from_dict, candidates

    def proof_kernels(self) -> tuple[dict, ...]:
        from .fuzz import PROOF_KERNELS
        return PROOF_KERNELS

    def describe(self, cfg: DecodeConfig) -> str:
        kv = f" paged{cfg.page_size}" if cfg.paged else ""
        return (f"b{cfg.batch} h{cfg.heads}/{cfg.kv_heads} t{cfg.q_tokens} c{cfg.context_len}/"
                f"{cfg.max_context} d{cfg.head_dim} s{cfg.num_splits}{kv}")

    def combine_config(self, cfg: DecodeConfig) -> CombineConfig:
        """The ``decode_combine`` config merging this kernel's partials."""
        return CombineConfig(batch=cfg.batch, heads=cfg.heads, q_tokens=cfg.q_tokens,
                             head_dim=cfg.head_dim, dtype=cfg.dtype, num_splits=cfg.num_splits,
                             arch=cfg.arch)

    def add_arguments(self, parser) -> None:
        from .cli import add_arguments
        add_arguments(parser)

    def cli_kwargs(self, args) -> dict:
        from .cli import cli_kwargs
        return cli_kwargs(args)

    def cli_generate(self, args, generate):
        """The decode kernel; with several splits the combine kernel is written beside it."""
        kern = super().cli_generate(args, generate)
        if kern.config.num_splits > 1:
            comb = self.combine_config(kern.config)
            ck = generate(COMBINE, None, None, **comb.to_dict())     # its default schedule
            path = ck.save(args.output)
            print(f"{path}  (combines the {comb.num_splits} splits)")
        return kern


class CombineKind(KernelKind):
    name = "decode_combine"
    config_type = CombineConfig
    help = "generate the kernel merging a split decode kernel's partial O and LSE"
    default_schedule = "attn_basic"      # only orders its tags (any attention recipe does)

    def build(self, cfg: CombineConfig, recipe):
        from .combine import build_combine
        return build_combine(cfg)

    def args(self, cfg: CombineConfig) -> list:
        from .contract import combine_args
        return combine_args(cfg)

    def launch(self, cfg: CombineConfig) -> Launch:
        return Launch(cfg.grid, cfg.threads, (True, True, False),
                      grid_from=(None, ("batch", 1), None))

    def check_shape(self, cfg: CombineConfig):
        """One loop trip per split; batch shrinks to 1."""
        from ...runtime.check_size import CheckShape
        return CheckShape(trips=lambda s: cfg.num_splits, shrink=(("batch", 1, 1),))

    def random_inputs(self, cfg: CombineConfig, seed: int) -> dict:
        from .reference import combine_random_inputs
        return combine_random_inputs(cfg, seed)

    def compare(self, cfg: CombineConfig, out, inputs: dict) -> tuple[bool, str]:
        from .reference import compare_combine
        _outputs(out, ("o", "lse"))
        return compare_combine(cfg, out, inputs)

    def fuzz_configs(self, small: bool, arches):
        from .fuzz import combine_configs
        return combine_configs(small, arches)

    def shrink_moves(self):
        from .fuzz import combine_candidates
        return self.config_to_dict, self.config_from_dict, combine_candidates

    def proof_kernels(self) -> tuple[dict, ...]:
        from .fuzz import COMBINE_PROOF_KERNELS
        return COMBINE_PROOF_KERNELS

    def describe(self, cfg) -> str:
        return f"b{cfg.batch} h{cfg.heads} t{cfg.q_tokens} d{cfg.head_dim} s{cfg.num_splits}"

    def add_arguments(self, parser) -> None:
        from .cli import add_combine_arguments
        add_combine_arguments(parser)

    def cli_kwargs(self, args) -> dict:
        from .cli import combine_kwargs
        return combine_kwargs(args)


DECODE = register(DecodeKind())
COMBINE = register(CombineKind())
