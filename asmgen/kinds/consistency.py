"""A contract's config against its arguments: the kind's own ``args(cfg)`` (through the kind
registry) must give the arguments the contract states (names, kinds, dtypes, shapes, io, dims).
A contract edited to say bf16 over an f16 kernel, or with ``head_dim`` changed, is refused with a
``ContractError`` (exit 2 on the CLI). The structural and code-object checks are
``asmgen.runtime.contract``'s; this one sits in the kinds layer because it needs the registry."""
from __future__ import annotations

from ..errors import ConfigError
from ..kernarg import as_args
from ..runtime.contract import ContractError
from . import registry


def check_config_args(meta: dict, where: str) -> None:
    """Raise ``ContractError`` when ``meta``'s config does not give its args (module doc)."""
    config = meta.get("config")
    if not isinstance(config, dict) or "kind" not in config:
        return           # a foreign kernel's contract: only its own statements can be checked
    if not isinstance(config["kind"], str):
        raise ContractError(f"{where}: the contract's config.kind {config['kind']!r} is not a name")
    kind = registry.get(config["kind"])      # UnknownKind (a ConfigError) lists the known kinds
    try:
        own = kind.args(kind.config_from_dict(config))
    except (TypeError, ConfigError) as exc:
        raise ContractError(f"{where}: the config is invalid: {exc}") from None
    args = as_args(meta["args"])
    stated = {a.name: a for a in args}
    for a in own:
        s = stated.get(a.name)
        if s is None:
            raise ContractError(f"{where}: the contract lacks the argument {a.name} its config needs")
        for attr in ("kind", "dtype", "shape", "io", "dims"):
            if getattr(s, attr) != getattr(a, attr) and not (attr == "dims" and s.dims is None):
                raise ContractError(
                    f"{where}: argument {a.name} has {attr} {getattr(s, attr)!r} but the config "
                    f"({config['kind']}, {config.get('dtype')}, {meta['arch']}) gives "
                    f"{getattr(a, attr)!r}: the contract is inconsistent")
    if [a.name for a in args] != [a.name for a in own]:
        raise ContractError(f"{where}: the arguments {[a.name for a in args]} are not the config's "
                            f"{[a.name for a in own]}")


def read_checked(src):
    """``asmgen.runtime.contract.read_contract`` with ``check_config_args`` before the code
    object is read (an unknown kind or an inconsistent config is reported first)."""
    from ..runtime.contract import read_contract
    return read_contract(src, check_config_args)
