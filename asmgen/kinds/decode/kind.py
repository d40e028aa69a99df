"""The decode kind the registry knows as ``decode`` (flash decoding over a dense or paged KV cache,
one split per workgroup), wiring this folder's modules into the hooks of ``asmgen.kinds.base``;
with several splits its CLI also writes the ``decode_combine`` kernel (``combine/kind.py``).
``asmgen attention --mode decode`` reaches it through ``mode_of`` (``asmgen.cli.generate``
routes modes by ``registry.modes``)."""
from __future__ import annotations

from ...errors import ConfigError
from ..base import KernelKind, Launch
from .. import registry
from ..registry import register
from . import HELP, MODE_OF, NAME
from .merge import CombineConfig
from .tags import DECODE_TAGS
from .config import DecodeConfig


def outputs_present(out, names) -> None:
    if not isinstance(out, dict) or any(n not in out for n in names):
        raise ConfigError(f"the runner did not return the outputs {names}")


class DecodeKind(KernelKind):
    name = NAME
    config_type = DecodeConfig
    help = HELP
    default_schedule = "attn_basic"      # the attention recipes order its tags (same body)
    tags = DECODE_TAGS
    mode_of = MODE_OF

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
        outputs_present(out, ("o_partial", "lse_partial") if cfg.num_splits > 1 else ("o", "lse"))
        return compare_decode(cfg, out, inputs)

    @staticmethod
    def profile(meta: dict, hsaco: bytes, **kw) -> dict:
        from .profile import profile_decode
        return profile_decode(meta, hsaco, **kw)

    def profile_companions(self, meta: dict, generate) -> dict:
        """What ``profile`` needs beside the contract: a split kernel's ``decode_combine``
        (compiled by ``generate``, ``asmgen.api.generate``: the CLI layer's)."""
        cfg = DecodeConfig(**{k: v for k, v in meta["config"].items() if k != "kind"})
        if cfg.num_splits == 1:
            return {}
        comb = self.combine_config(cfg)
        ck = generate("decode_combine", **comb.to_dict())
        return {"combine": (ck.meta, ck.hsaco)}

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
            ck = generate(registry.get("decode_combine"), None, None,
                          **comb.to_dict())                    # its default schedule
            path = ck.save(args.output)
            print(f"{path}  (combines the {comb.num_splits} splits)")
        return kern


DECODE = register(DecodeKind())
