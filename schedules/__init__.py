"""Named schedule recipes: small functions of their parameters, selected by name.

``get_recipe(name, **params)`` returns a recipe object for ``asmgen.sched.list_sched`` (through
``asmgen.passes.manager``): it has ``for_block(name)`` giving, per block ("prologue" | "loop" |
"epilogue"), an object with ``groups`` (SchedGroups), ``repeat``, ``seed`` and ``priority(node)``,
plus ``name``, ``params`` and the template knobs it implies (``prefetch``, ``staging``). Unknown names raise
``UnknownRecipe`` listing the valid ones.
"""
from __future__ import annotations

from collections.abc import Callable

from asmgen.errors import ConfigError


class UnknownRecipe(ConfigError):
    """A schedule name that is not registered (the message lists the valid names)."""


_REGISTRY: dict[str, Callable] = {}


def register(name: str):
    """Decorator: register a recipe factory under ``name``."""
    def deco(fn: Callable) -> Callable:
        if name in _REGISTRY:
            raise ValueError(f"recipe {name!r} registered twice")
        _REGISTRY[name] = fn
        return fn
    return deco


def _load_builtin() -> None:
    """Import every module of this package once: each registers its recipes on import."""
    import importlib
    import pkgutil
    for info in pkgutil.iter_modules(__path__):
        if not info.name.startswith("_") and info.name != "common":
            importlib.import_module(f"{__name__}.{info.name}")


def recipe_names() -> list[str]:
    _load_builtin()
    return sorted(_REGISTRY)


def get_recipe(name: str, **params):
    """The recipe ``name`` built with ``params`` (each factory checks its own parameters)."""
    _load_builtin()
    fn = _REGISTRY.get(name)
    if fn is None:
        raise UnknownRecipe(f"unknown schedule {name!r}; valid schedules: {', '.join(sorted(_REGISTRY))}")
    return fn(**params)


__all__ = ["UnknownRecipe", "get_recipe", "recipe_names", "register"]
