"""Typed errors of asmgen: every failure a user can meet has its own class and names the bad value.

The isa package has its own errors (``isa.errors``); the emulator's run-time errors live in
``isa.emu.errors``. Nothing here calls ``sys.exit``.
"""
from __future__ import annotations


class AsmgenError(Exception):
    """Base class of every error raised by asmgen."""


class ConfigError(AsmgenError):
    """A configuration value (kernel resources, problem size, tuning knob) is out of range."""


class ResourceError(ConfigError):
    """Kernel resources (registers, LDS, accum_offset, user SGPRs) are inconsistent or over a limit."""


class KernargError(AsmgenError):
    """Kernel arguments do not match their ``args`` contract (missing value, bad dtype, bad size)."""


class BuildError(AsmgenError):
    """The builder rejected an instruction before LLVM saw it; names the operand and the rule broken."""

    def __init__(self, message: str, *, instr: object = None, operand: str | None = None,
                 rule: str | None = None) -> None:
        self.instr = instr
        self.operand = operand
        self.rule = rule
        prefix = f"{_instr_text(instr)}: " if instr is not None else ""
        suffix = f" [rule: {rule}]" if rule else ""
        super().__init__(f"{prefix}{message}{suffix}")


def _instr_text(instr: object) -> str:
    """The instruction as text for a message; a value printing itself rejects must not hide the error."""
    try:
        return str(instr)
    except Exception:  # e.g. an s_waitcnt operand that does not fit 16 bits
        op = getattr(instr, "op", "?")
        ops = ", ".join(repr(o) for o in getattr(instr, "operands", ()))
        return f"{op} {ops}".strip()


class EmitError(AsmgenError):
    """A program cannot be turned into assembly text (unknown item, duplicate label, bad name)."""


class ToolchainError(AsmgenError):
    """Base class of assembler/linker failures."""


class ToolchainNotFound(ToolchainError):
    """No usable LLVM (>= 19 with the AMDGPU target) or ziglang was found; says what to install."""

    INSTALL_HINT = ("install one of: `apt-get install llvm-22 lld-22` (Debian/Ubuntu, apt.llvm.org), "
                    "ROCm (then set ROCM_PATH), or `pip install ziglang`; or point ASMGEN_LLVM at a "
                    "folder holding llvm-mc and ld.lld")

    def __init__(self, message: str, tried: tuple[str, ...] = ()) -> None:
        self.tried = tuple(tried)
        lines = [message]
        if self.tried:
            lines.append("tried:")
            lines += [f"  - {t}" for t in self.tried]
        lines.append(self.INSTALL_HINT)
        super().__init__("\n".join(lines))


class AssembleError(ToolchainError):
    """The assembler (or linker) rejected the input: quotes the offending .s line and LLVM's message."""

    def __init__(self, llvm_message: str, *, line_no: int | None = None, line: str | None = None,
                 stage: str = "assemble", command: str = "") -> None:
        self.llvm_message = llvm_message.strip()
        self.line_no = line_no
        self.line = line
        self.stage = stage
        self.command = command
        if line_no is not None:
            head = f"{stage} failed at .s line {line_no}: {line!r}"
        else:
            head = f"{stage} failed"
        if command:
            head += f" (command: {command})"
        super().__init__(f"{head}\n{self.llvm_message}")


class LinkError(AssembleError):
    """ld.lld rejected the object file."""
