"""The Bash tool and its read-only command classifier (SPEC §8)."""

from nb_agent.tools.bash.read_only import is_read_only_command

__all__ = ["is_read_only_command"]
