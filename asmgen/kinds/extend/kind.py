"""The extend kind the registry knows as ``extend`` (new tokens over a dense or paged KV cache),
wiring this folder's modules into the hooks of ``asmgen.kinds.base``. ``asmgen attention --mode
extend`` reaches it through ``mode_of`` (``asmgen.cli.generate`` routes modes by
``registry.modes``)."""
from __future__ import annotations

from ...errors import ConfigError
from ..base import KernelKind, Launch
from ..decode.tags import DECODE_TAGS
from ..registry import register
from . import HELP, MODE_OF, NAME
from .config import BLOCK_K, BLOCK_Q, ExtendConfig


class ExtendKind(KernelKind):
    name = NAME
    config_type = ExtendConfig
    help = HELP
    default_schedule = "attn_basic"      # the attention recipes order its tags (same body)
    mode_of = MODE_OF

    tags = DECODE_TAGS                   # decode's vocabulary: its page / gr_bt tags

    def build(self, cfg: ExtendConfig, recipe):
        from .template import build_extend
        return build_extend(cfg)

    def args(self, cfg: ExtendConfig) -> list:
        from .contract import extend_args
        return extend_args(cfg)

    def launch(self, cfg: ExtendConfig) -> Launch:
        # (heads, batch, Q-blocks): batch and max_seqlen_q are runtime scalars
        return Launch(cfg.grid, cfg.threads, (True, True, True),
                      grid_from=(None, ("batch", 1), ("max_seqlen_q", BLOCK_Q)))

    def check_shape(self, cfg: ExtendConfig):
        """KV loop: the key blocks of the config's context (the lengths are data drawn up to
        it). ``check`` may shrink batch to 1 and max_seqlen_q (the new tokens per sequence, in
        Q-blocks of 32) to one Q-block: the sequences are drawn again at those sizes."""
        from ...runtime.check_size import CheckShape
        trips = -(-cfg.context_len // BLOCK_K)
        return CheckShape(trips=lambda s: trips,
                          shrink=(("batch", 1, 1), ("max_seqlen_q", BLOCK_Q, BLOCK_Q)))

    def check(self, meta: dict, run, seed: int, sizes: dict | None = None) -> tuple[bool, str]:
        """As every kind; at other sizes only ``batch`` and ``max_seqlen_q`` (the config's
        batch and seqlen_q: the ragged lengths, cu_seqlens_q, total_q follow from them)."""
        if not sizes:
            return super().check(meta, run, seed)
        import dataclasses
        bad = sorted(set(sizes) - {"batch", "max_seqlen_q"})
        if bad:
            raise ConfigError(f"--size {bad[0]}: an extend kernel is checked at other sizes of "
                              f"batch and max_seqlen_q only (cu_seqlens_q, context_lens and the "
                              f"packed total are drawn from them)")
        cfg = self.config_from_dict(meta["config"])
        run_cfg = dataclasses.replace(cfg, batch=int(sizes.get("batch", cfg.batch)),
                                      seqlen_q=int(sizes.get("max_seqlen_q", cfg.seqlen_q)))
        inputs = self.random_inputs(run_cfg, seed)
        return self.compare(run_cfg, run(**inputs), inputs)

    def random_inputs(self, cfg: ExtendConfig, seed: int) -> dict:
        from .reference import extend_random_inputs
        return extend_random_inputs(cfg, seed)

    def compare(self, cfg: ExtendConfig, out, inputs: dict) -> tuple[bool, str]:
        from .reference import compare_extend
        if not isinstance(out, dict) or "o" not in out or "lse" not in out:
            raise ConfigError("the runner did not return the o and lse outputs")
        return compare_extend(cfg, out, inputs)

    @staticmethod
    def profile(meta: dict, hsaco: bytes, **kw) -> dict:
        from .profile import profile_extend
        return profile_extend(meta, hsaco, **kw)

    def fuzz_configs(self, small: bool, arches):
        from .fuzz import extend_configs
        return extend_configs(small, arches)

    def shrink_moves(self):
        from .fuzz import candidates, to_raw
        return to_raw, self.config_from_dict, candidates

    def proof_kernels(self) -> tuple[dict, ...]:
        from .fuzz import PROOF_KERNELS
        return PROOF_KERNELS

    def describe(self, cfg: ExtendConfig) -> str:
        kv = f" paged{cfg.page_size}" if cfg.paged else ""
        if cfg.kv_fp8:
            kv += f" kv {cfg.kv_dtype}" + (" per-token" if cfg.token_scales else "")
        return (f"b{cfg.batch} h{cfg.heads}/{cfg.kv_heads} q{cfg.seqlen_q} c{cfg.context_len}/"
                f"{cfg.max_context} d{cfg.head_dim}{kv}")

    def add_arguments(self, parser) -> None:
        from .cli import add_arguments
        add_arguments(parser)

    def cli_kwargs(self, args) -> dict:
        from .cli import cli_kwargs
        return cli_kwargs(args)


EXTEND = register(ExtendKind())
