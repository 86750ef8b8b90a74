"""Which shell variables a read-only command may set (``LC_ALL=C sort``, ``for f in``)."""

from __future__ import annotations

import re

__all__ = ["is_safe_variable_name"]

# Environment variables a prefixed assignment (`LC_ALL=C sort`) may set.
_SAFE_UPPERCASE_VARIABLES = frozenset(
    {
        "LANG", "LANGUAGE", "LC_ALL", "LC_COLLATE", "LC_CTYPE", "LC_MESSAGES", "LC_NUMERIC",
        "LC_TIME", "LC_MONETARY", "TZ", "NO_COLOR", "FORCE_COLOR", "CLICOLOR", "TERM",
        "COLUMNS", "LINES", "TIME_STYLE", "QUOTING_STYLE", "BLOCK_SIZE", "POSIXLY_CORRECT",
        "GREP_COLOR", "GREP_COLORS", "LS_COLORS", "PYTHONIOENCODING", "PYTHONUNBUFFERED",
        "PYTHONDONTWRITEBYTECODE", "OMP_NUM_THREADS", "CUDA_VISIBLE_DEVICES",
    }
)
# Never allowed, whatever their case: they make programs run other programs or read
# another configuration. (Other upper-case names are refused too, as unknown.)
_DANGEROUS_VARIABLES = frozenset(
    {
        "PATH", "HOME", "IFS", "ENV", "BASH_ENV", "SHELLOPTS", "BASHOPTS", "PS4",
        "PROMPT_COMMAND", "CDPATH", "PAGER", "MANPAGER", "EDITOR", "VISUAL", "BROWSER",
        "LESSOPEN", "LESSCLOSE", "SSH_ASKPASS", "RIPGREP_CONFIG_PATH", "XDG_CONFIG_HOME",
        "PYTHONPATH", "PYTHONSTARTUP", "PYTHONHOME", "NODE_OPTIONS", "PERL5OPT", "PERL5LIB",
        "RUBYOPT", "GCONV_PATH", "LOCPATH", "AWKPATH", "AWKLIBPATH", "TMPDIR",
    }
)
_DANGEROUS_PREFIXES = (
    "LD_", "DYLD_", "GIT_", "BASH_FUNC_", "PIP_", "CONDA_", "NPM_CONFIG_", "PYTHON", "JAVA",
    "_JAVA", "JDK_",
)
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def is_safe_variable_name(name: str) -> bool:
    """True for a variable a read-only command may set: lower-case or a known-harmless name."""
    if not _IDENTIFIER.fullmatch(name):
        return False  # `a[$(cmd)]`: bash evaluates the subscript
    if name in _SAFE_UPPERCASE_VARIABLES:
        return True
    upper = name.upper()
    if upper in _DANGEROUS_VARIABLES or upper.startswith(_DANGEROUS_PREFIXES):
        return False
    # Programs read upper-case variables (PYTHONUSERBASE, JAVA_TOOL_OPTIONS, ...): an
    # unknown one may be a knob that runs code. Lower-case names are the user's own.
    return any(char.islower() for char in name)
