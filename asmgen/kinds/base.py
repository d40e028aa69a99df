"""``KernelKind``: everything asmgen needs to know about one kind of kernel (GEMM, attention, ...),
so the driver, the Python API, the CLI, ``check``, ``profile``, ``fuzz`` and the cache work for
every kind through ``asmgen.kinds.registry`` without naming any.

A kind is one object (a subclass instance, registered once) with:

* ``name`` (the contract's ``config.kind`` and the CLI subcommand), ``config_type``, ``help``,
  ``default_schedule``, ``tags`` (its ``asmgen.ir.tags.TagVocabulary``: the KernelIR its
  ``build`` makes carries it, and every node tag and recipe tag is checked against it);
* config: ``make_config(recipe, **kw)`` (the Python API / CLI keywords, after the recipe is known:
  fields left out take the recipe's ``defaults``), ``recipe_knobs(kw)`` (keywords that are
  recipe parameters; none for the built-in kinds, recipes only order), ``config_from_dict(d)``
  (a contract's ``config``), ``config_to_dict(cfg)``;
* generation: ``build(cfg, recipe) -> KernelIR``, ``args(cfg) -> [ArgSpec]`` (the launch
  contract, in kernarg order: the templates read their kernarg offsets from it through
  ``asmgen.kernarg.offsets``), ``launch(cfg) -> Launch`` (grid, threads, workgroup-id SGPRs and
  which grid dimensions follow a runtime scalar), ``kernel_name(cfg, recipe)``;
* checking: ``random_inputs(cfg, seed)``, ``run_outputs(out)`` and ``compare(cfg, out, inputs)
  -> (ok, message)``; ``check(meta, run, seed)`` combines them for ``asmgen check``;
  ``check_shape(cfg)`` (loop trips and shrinkable sizes, ``asmgen.runtime.check_size``) lets
  ``check`` pick smaller sizes for a kernel too big to emulate in reasonable time;
* ``profile(meta, hsaco, **kw) -> dict`` (``asmgen profile``; ``None`` when the kind has none);
* fuzzing: ``fuzz_configs(small, arches)`` (a hypothesis strategy of configs),
  ``fuzz_schedule_params(cfg, sched_seed)``, ``fuzz_case_config(cfg, sched_seed)``,
  ``shrink_moves()``, ``describe(cfg)``,
  ``proof_kernels()`` (specs for ``asmgen fuzz KIND --mutate``: config keywords plus
  ``schedule`` / ``schedule_params``);
* CLI: ``add_arguments(parser)``, ``cli_kwargs(args) -> dict`` (keywords of
  ``asmgen.api.generate``) and ``cli_generate(args, generate)`` (default: generate of those);
  ``mode_of`` = (family, mode) makes ``asmgen FAMILY --mode MODE`` this kind's command
  (``asmgen attention --mode decode`` is ``asmgen decode``; ``asmgen.cli.generate.route_mode``).

Hooks without a sensible default raise ``MissingHook`` (a ``ConfigError``, so the CLI reports it
as a user error, exit 2) naming the kind and the hook.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..errors import ConfigError


class MissingHook(ConfigError, NotImplementedError):
    """A kind was asked for something it does not implement (e.g. fuzzing a kind with no fuzz
    strategy)."""


@dataclass(frozen=True)
class Launch:
    """How a kernel of this config is launched: ``grid`` (workgroups), ``threads`` per workgroup,
    which workgroup-id SGPRs (x, y, z) the kernel reads, and per grid dimension either None or
    ``(scalar, per_workgroup)``: the runtime grid is ceil(scalar / per_workgroup) there (a GEMM's
    M and N over its tile), written to the contract as ``grid_from``."""

    grid: tuple[int, int, int]
    threads: int
    workgroup_ids: tuple[bool, bool, bool] = (True, False, False)
    grid_from: tuple[tuple[str, int] | None, ...] | None = None

    @property
    def waves(self) -> int:
        return -(-self.threads // 64)


class KernelKind:
    """Base of every kernel kind; see the module docstring for the hooks."""

    name: str = ""
    config_type: type = object
    help: str = ""
    default_schedule: str = ""
    tags = None         # the kind's TagVocabulary (asmgen.ir.tags)
    mode_of: tuple[str, str] | None = None

    def _missing(self, hook: str):
        return MissingHook(f"kernel kind {self.name!r} does not implement {hook}")

    # -- config ---------------------------------------------------------------------------------
    def recipe_knobs(self, kw: dict) -> tuple[dict, dict]:
        """(config keywords, recipe parameters) of the API keywords; default: all are config."""
        return dict(kw), {}

    def make_config(self, recipe, **kw):
        """The config of these keywords once the recipe is known: the fields the caller did not
        give take the recipe's ``defaults`` (the pipeline shape it is designed for), then the
        config type's own."""
        for key, value in dict(getattr(recipe, "defaults", None) or {}).items():
            kw.setdefault(key, value)
        return self.config_type(**kw)

    def config_from_dict(self, d: dict):
        """The inverse of ``config_to_dict`` (a contract's or a reproducer's ``config``)."""
        d = {k: v for k, v in d.items() if k != "kind"}
        try:
            return self.config_type(**d)
        except TypeError as exc:
            raise ConfigError(f"the config is not a config of kind {self.name!r}: {exc}") from None

    def config_to_dict(self, cfg) -> dict:
        return cfg.to_dict()

    # -- generation -----------------------------------------------------------------------------
    def build(self, cfg, recipe):
        raise self._missing("build")

    def args(self, cfg) -> list:
        raise self._missing("args")

    def launch(self, cfg) -> Launch:
        raise self._missing("launch")

    def kernel_name(self, cfg, recipe) -> str:
        """The symbol and file stem: the config's name plus the schedule's (kernels of one config
        under two schedules are different code and must not overwrite each other)."""
        return cfg.name if recipe is None else f"{cfg.name}_{recipe.name}"

    # -- checking -------------------------------------------------------------------------------
    def random_inputs(self, cfg, seed: int) -> dict:
        raise self._missing("random_inputs")

    def compare(self, cfg, out, inputs: dict) -> tuple[bool, str]:
        raise self._missing("compare")

    def check(self, meta: dict, run, seed: int, sizes: dict | None = None) -> tuple[bool, str]:
        """``asmgen check``: seeded inputs, run, compare with the NumPy reference. ``sizes``
        (runtime scalars such as ``M`` or ``seqlen_q``) run the kernel at other sizes than the
        contract's: the reference's config takes them (the field of the same name, lowercased)
        and the launch check refuses sizes the kernel does not support (baked ones)."""
        import dataclasses
        cfg = self.config_from_dict(meta["config"])
        if not sizes:
            inputs = self.random_inputs(cfg, seed)
            return self.compare(cfg, run(**inputs), inputs)
        fields = {f.name for f in dataclasses.fields(cfg)}
        bad = [n for n in sizes if n.lower() not in fields]
        if bad:
            raise ConfigError(f"--size {bad[0]}: not a size of kind {self.name!r} (sizes: "
                              f"{sorted(fields & {n.lower() for n in _scalar_names(meta)})})")
        run_cfg = dataclasses.replace(cfg, **{n.lower(): v for n, v in sizes.items()})
        inputs = self.random_inputs(run_cfg, seed)
        return self.compare(run_cfg, run(**inputs, **sizes), inputs)

    def check_shape(self, cfg):
        """What ``asmgen check`` needs to estimate and shrink a run
        (``asmgen.runtime.check_size.CheckShape``: loop trips per workgroup at given sizes, and
        per shrinkable size its period and floor); None: the contract's sizes, no estimate of
        the loop (the run is counted as one trip)."""
        return None

    # -- profile / fuzz / CLI -------------------------------------------------------------------
    profile: Any = None

    def fuzz_configs(self, small: bool, arches):
        raise self._missing("fuzz_configs")

    def fuzz_schedule_params(self, cfg, sched_seed: int) -> dict:
        """The ``fuzz`` recipe's parameters (it only orders)."""
        return {"seed": sched_seed}

    def fuzz_case_config(self, cfg, sched_seed: int):
        """The config a fuzz case compiles (default: as drawn; a kind may derive config choices
        from the schedule seed so reproducers replay them)."""
        return cfg

    def shrink_moves(self):
        """(config -> raw dict, raw dict -> config, raw dict -> smaller raw dicts); default: none."""
        return (self.config_to_dict, self.config_from_dict, lambda raw: iter(()))

    def describe(self, cfg) -> str:
        return cfg.name

    def proof_kernels(self) -> tuple[dict, ...]:
        return ()

    def add_arguments(self, parser) -> None:
        raise self._missing("add_arguments")

    def cli_kwargs(self, args) -> dict:
        raise self._missing("cli_kwargs")

    def cli_generate(self, args, generate):
        """The kernel of ``asmgen <kind>``: ``generate`` (``asmgen.api.generate``, passed down so
        the kind need not import the API above it) of ``cli_kwargs``. A kind may override it,
        e.g. to pick a default configuration when no tuning flag is given."""
        kw = self.cli_kwargs(args)
        return generate(self, kw.pop("schedule", None), kw.pop("schedule_params", None), **kw)

    def __repr__(self) -> str:
        return f"<kernel kind {self.name}>"


def _scalar_names(meta: dict) -> list[str]:
    return [a.get("name", "") for a in meta.get("args", []) if a.get("kind") == "scalar"]
