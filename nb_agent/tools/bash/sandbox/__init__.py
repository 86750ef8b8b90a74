"""An operating-system sandbox for Bash commands (bubblewrap on Linux, Seatbelt on macOS).

The read-only classifier decides what may run without asking; the sandbox makes its
mistakes harmless: a command it allows runs where it can write only the working
directories and a private ``/tmp``, reach no network, and see neither the user's secret
files nor credential variables. See :mod:`.runtime` for when a command is sandboxed.
"""

from nb_agent.tools.bash.sandbox.availability import SandboxAvailability, probe_availability
from nb_agent.tools.bash.sandbox.plan import SandboxPlan
from nb_agent.tools.bash.sandbox.runtime import SandboxDecision, SandboxRuntime, command_wrapper
from nb_agent.tools.bash.sandbox.settings import NetworkSettings, SandboxSettings, merge_sandbox_settings
from nb_agent.tools.bash.sandbox.violations import sandbox_failure_hint

__all__ = [
    "NetworkSettings",
    "SandboxAvailability",
    "SandboxDecision",
    "SandboxPlan",
    "SandboxRuntime",
    "SandboxSettings",
    "command_wrapper",
    "merge_sandbox_settings",
    "probe_availability",
    "sandbox_failure_hint",
]
