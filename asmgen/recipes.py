"""The recipe registry: schedule recipes by name, registered from above.

Recipes live in the top-level ``schedules`` package (the design card), which imports asmgen's
scheduler and IR, so asmgen must never import it (that would be an upward import and a package
cycle). Instead this module is the seam both sides meet at:

* a recipe module registers its factories here (``@register("pgr1")``; ``schedules.register``
  is this decorator), and
* a name is resolved here (``get(name, **params)``). On the first lookup the *recipe
  providers* are imported by module name: ``PROVIDERS`` (``("schedules",)``, plus any names in
  ``$ASMGEN_RECIPES``, comma-separated), each of which registers its recipes when imported. That
  is a plugin list, the way a package names entry points: asmgen holds the provider's *name*,
  never an import of it, so the layers stay one-way (cli -> api/driver -> kinds -> recipes ->
  sched/passes -> ir -> isa) and a test can add a provider of its own.

The driver (``asmgen.driver.compile``) takes a recipe *object*; only the entry points that take
a schedule *name* (the Python API functions, the CLI, the fuzzer) call ``get``.
"""
from __future__ import annotations

import importlib
import inspect
import os
from collections.abc import Callable

from .errors import ConfigError

PROVIDERS: tuple[str, ...] = ("schedules",)


class UnknownRecipe(ConfigError):
    """A schedule name that is not registered (the message lists the valid names)."""


class UnknownRecipeParameter(ConfigError):
    """A parameter the recipe does not take (the message lists the ones it does)."""


class DuplicateRecipe(ValueError):
    """Two recipe factories registered under one name."""


_REGISTRY: dict[str, Callable] = {}
_loaded: set[str] = set()


def register(name: str):
    """Decorator: register a recipe factory ``fn(**params) -> recipe`` under ``name``."""
    def deco(fn: Callable) -> Callable:
        if name in _REGISTRY and _REGISTRY[name] is not fn:
            raise DuplicateRecipe(f"recipe {name!r} registered twice")
        _REGISTRY[name] = fn
        return fn
    return deco


def providers() -> tuple[str, ...]:
    extra = tuple(p.strip() for p in os.environ.get("ASMGEN_RECIPES", "").split(",") if p.strip())
    return PROVIDERS + extra


def load_providers() -> None:
    """Import every recipe provider once (each registers its recipes on import)."""
    for name in providers():
        if name not in _loaded:
            importlib.import_module(name)
            _loaded.add(name)


def names() -> list[str]:
    load_providers()
    return sorted(_REGISTRY)


def get(name: str, **params):
    """The recipe ``name`` built with ``params`` (each factory checks its own parameters)."""
    fn = _REGISTRY.get(name)
    if fn is None:
        load_providers()
        fn = _REGISTRY.get(name)
    if fn is None:
        raise UnknownRecipe(f"unknown schedule {name!r}; valid schedules: {', '.join(sorted(_REGISTRY))}")
    sig = inspect.signature(fn)
    if not any(p.kind is p.VAR_KEYWORD for p in sig.parameters.values()):
        unknown = sorted(set(params) - set(sig.parameters))
        if unknown:
            raise UnknownRecipeParameter(
                f"recipe {name} has no parameter{'s' if len(unknown) > 1 else ''} "
                f"{', '.join(unknown)}; its parameters: {', '.join(sig.parameters) or 'none'}")
    return fn(**params)


__all__ = ["PROVIDERS", "DuplicateRecipe", "UnknownRecipe", "UnknownRecipeParameter", "get",
           "load_providers", "names", "register"]
