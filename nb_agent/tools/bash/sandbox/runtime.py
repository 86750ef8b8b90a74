"""The sandbox of one agent session: whether a Bash command runs sandboxed, and how.

Decision (:meth:`SandboxRuntime.decide`), first answer wins:

1. ``dangerouslyDisableSandbox`` and unsandboxed runs allowed -> unsandboxed (the call was
   never auto-allowed: the Bash tool reports such an input as not read-only, so it was
   approved by the user, a rule or the mode);
2. the read-only classifier allowed the command -> sandboxed, always: a wrong "read-only"
   then cannot write, connect or read a secret;
3. the sandbox is on (``sandbox.enabled`` or ``%%agent --sandbox on``) and the command is
   not in ``excludedCommands`` -> sandboxed;
4. otherwise unsandboxed (the user approved it, as before the sandbox existed).

A command that should be sandboxed where no sandbox can start runs unsandboxed, as before,
and the decision says so (``unavailable``): the cell shows it once, the result says it.
"""

from __future__ import annotations

import os
import shlex
import tempfile
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from nb_agent.tools.bash.sandbox.availability import SandboxAvailability, probe_availability
from nb_agent.tools.bash.sandbox.bwrap import bwrap_command
from nb_agent.tools.bash.sandbox.guard import quarantine_created
from nb_agent.tools.bash.sandbox.imports import import_read_only, undo_new_importables
from nb_agent.tools.bash.sandbox.plan import NetworkMode, ProxyEndpoint, SandboxPlan
from nb_agent.tools.bash.sandbox.proxy import DomainProxy
from nb_agent.tools.bash.sandbox.seatbelt import seatbelt_command
from nb_agent.tools.bash.sandbox.seccomp import filter_fd, unix_socket_filter
from nb_agent.tools.bash.sandbox.secrets import home_view, protected_candidates, scrub_environment, secret_paths
from nb_agent.tools.bash.sandbox.settings import SandboxSettings

__all__ = ["SandboxDecision", "SandboxRuntime", "command_wrapper"]

PATHS_TTL_S = 2.0
BRIDGE_PORT = 3128
"""Inside the sandbox's own network namespace nothing else listens: a fixed port is safe."""
_PROXY_VARIABLES = ("HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy", "ALL_PROXY", "all_proxy", "NO_PROXY", "no_proxy")


@dataclass(frozen=True, kw_only=True)
class SandboxDecision:
    sandboxed: bool
    reason: str
    unavailable: bool = False
    """The command should have been sandboxed, but no sandbox can start here."""


class SandboxRuntime:
    """Settings, availability, the per-cell override and the private temporary directory."""

    def __init__(
        self,
        *,
        settings: SandboxSettings | None = None,
        project_dir: Path,
        home: Path | None = None,
        warnings: Sequence[str] = (),
        availability: SandboxAvailability | None = None,
    ) -> None:
        self.settings = settings or SandboxSettings()
        self.project_dir = Path(os.path.abspath(project_dir))
        self.home = Path(home) if home is not None else Path.home()
        self.warnings = list(warnings)
        self._availability = availability
        self.override: bool | None = None
        """``%%agent --sandbox on|off`` for the running cell; None: the settings decide."""
        self._tmp: Path | None = None
        self._proxy: DomainProxy | None = None
        self._paths_cache: tuple[tuple[Path, ...], float, tuple[tuple[Path, ...], ...]] | None = None
        self._home: tuple[Path | None, tuple[Path, ...]] = (None, ())
        """The plan's home view, looked up with the paths (see :func:`.secrets.home_view`)."""
        self._lock = threading.Lock()
        self.unavailable_reported = False

    # --- state -----------------------------------------------------------------------------
    @property
    def availability(self) -> SandboxAvailability:
        if self._availability is None:
            self._availability = probe_availability()
        return self._availability

    @property
    def enabled(self) -> bool:
        """Whether every command (not only classifier-allowed ones) runs sandboxed."""
        return self.settings.enabled if self.override is None else self.override

    @property
    def network_mode(self) -> NetworkMode:
        network = self.settings.network
        return "all" if network.allow_all else "proxy" if network.allowed_domains else "none"

    def limits_text(self) -> str:
        """One line for the model: what a sandboxed command may do."""
        domains = ", ".join(self.settings.network.allowed_domains)
        network = {"all": "network allowed", "none": "no network", "proxy": f"network only to {domains} through an HTTP proxy"}[
            self.network_mode
        ]
        return f"writes only in {self.project_dir} and /tmp, {network}, secrets and credential variables hidden"

    # --- deciding ----------------------------------------------------------------------------
    def is_excluded(self, command: str) -> bool:
        """Whether ``command`` starts with an ``excludedCommands`` entry (``docker``, ``npm run:*``)."""
        words = _words(command)
        for entry in self.settings.excluded_commands:
            prefix = _words(entry.removesuffix(":*").removesuffix("*"))
            if prefix and words[: len(prefix)] == prefix:
                return True
        return False

    def decide(self, command: str, *, classifier_allowed: bool, disable_requested: bool) -> SandboxDecision:
        if disable_requested and self.settings.allow_unsandboxed_commands:
            return SandboxDecision(sandboxed=False, reason="dangerouslyDisableSandbox (approved)")
        if classifier_allowed:
            wanted = "the read-only classifier allowed it"
        elif self.enabled and not self.is_excluded(command):
            wanted = "the sandbox is on for every command"
        else:
            why = "in excludedCommands" if self.enabled else "the sandbox is off for approved commands"
            return SandboxDecision(sandboxed=False, reason=why)
        if not self.availability.available:
            return SandboxDecision(sandboxed=False, reason=wanted, unavailable=True)
        return SandboxDecision(sandboxed=True, reason=wanted)

    def auto_allow_reason(self, command: str, *, disable_requested: bool) -> str | None:
        """Why ``command`` may run without asking (``autoAllowBashIfSandboxed``), or None."""
        if disable_requested or not self.settings.auto_allow_bash_if_sandboxed:
            return None
        decision = self.decide(command, classifier_allowed=False, disable_requested=False)
        return "sandboxed (autoAllowBashIfSandboxed)" if decision.sandboxed else None

    def unavailable_notice(self) -> str | None:
        """The one-time notice that commands run unsandboxed (None once given)."""
        with self._lock:
            if self.unavailable_reported or self.availability.available:
                return None
            self.unavailable_reported = True
        a = self.availability
        return (
            f"Sandbox unavailable: {a.reason}. Fix: {a.fix}. Until then commands run without a sandbox: "
            "the read-only classifier alone decides what runs without asking."
        )

    # --- running -----------------------------------------------------------------------------
    def private_tmp(self) -> Path:
        with self._lock:
            if self._tmp is None or not self._tmp.is_dir():
                self._tmp = Path(tempfile.mkdtemp(prefix="nb_agent-sandbox-tmp-"))
            return self._tmp

    def _paths(self, additional_directories: Sequence[Path]) -> tuple[tuple[Path, ...], ...]:
        """Writable, read-only and hidden paths; looked up again after :data:`PATHS_TTL_S`
        (a secret created meanwhile is hidden from then on), cached in between because
        the lookups cost a few ms a command."""
        key = tuple(additional_directories)
        now = time.monotonic()
        cached = self._paths_cache
        if cached is not None and cached[0] == key and now - cached[1] < PATHS_TTL_S:
            return cached[2]
        writable = _real_dirs([self.project_dir, *additional_directories, *self.settings.allow_write])
        candidates = protected_candidates(writable, self.home)
        read_only = _real_paths([*candidates, *self.settings.deny_write])
        hidden = _real_paths(secret_paths(self.home, self.settings.deny_read))
        absent = tuple(p for p in candidates if not os.path.lexists(p) and os.path.isdir(p.parent))
        self._home = _home_fields(self.home, writable)
        paths = (tuple(writable), tuple(read_only), tuple(hidden), absent)
        self._paths_cache = (key, now, paths)
        return paths

    def plan(self, *, cwd: Path, additional_directories: Sequence[Path], cwd_file: Path) -> SandboxPlan:
        """The limits for one command run in ``cwd``."""
        writable, read_only, hidden, absent = self._paths(additional_directories)
        cwd_file.touch(exist_ok=True)
        imports_read_only, imports = import_read_only(writable)
        return SandboxPlan(
            cwd=Path(os.path.realpath(cwd)),
            writable=writable,
            pinned=tuple(w / ".git" for w in writable if (w / ".git").is_dir()),
            home=self._home[0],
            home_visible=self._home[1],
            read_only=tuple(dict.fromkeys((*read_only, *imports_read_only))),
            import_snapshot=imports,
            hidden=hidden,
            absent_protected=tuple(p for p in absent if not os.path.lexists(p)),
            private_tmp=Path(os.path.realpath(self.private_tmp())),
            cwd_file=Path(os.path.realpath(cwd_file)),
            network=self.network_mode,
            proxy=self._proxy_endpoint(),
            allow_local_binding=self.settings.network.allow_local_binding,
            block_unix_sockets=not self.settings.network.allow_all_unix_sockets,
        )

    def _proxy_endpoint(self) -> ProxyEndpoint | None:
        """The filtering proxy (started on first use) when ``allowedDomains`` is set."""
        if self.network_mode != "proxy":
            return None
        with self._lock:
            if self._proxy is None:
                unix = self.availability.backend != "seatbelt"
                self._proxy = DomainProxy(self.settings.network.allowed_domains, unix=unix).start()
            proxy = self._proxy
        if proxy.socket_path is not None:
            return ProxyEndpoint(socket_path=proxy.socket_path, port=BRIDGE_PORT)
        return ProxyEndpoint(socket_path=None, port=proxy.port)

    @property
    def blocked_hosts(self) -> list[str]:
        """Hosts the filtering proxy refused so far."""
        return list(self._proxy.blocked) if self._proxy is not None else []

    def wrap(self, plan: SandboxPlan, argv: Sequence[str], *, seccomp_fd: int | None = None) -> list[str]:
        """``argv`` run inside the sandbox described by ``plan`` (``seccomp_fd``: see
        :meth:`unix_socket_filter`; the caller passes it to the child)."""
        a = self.availability
        if a.backend == "seatbelt":
            return seatbelt_command(plan, argv)
        assert a.executable is not None
        return bwrap_command(a.executable, plan, argv, seccomp_fd=seccomp_fd)

    def unix_socket_filter(self, plan: SandboxPlan) -> bytes | None:
        """The seccomp program that keeps ``plan``'s command off Unix sockets (bubblewrap),
        None when the plan allows them or the filter cannot be built (:meth:`unix_socket_gap`)."""
        if not plan.block_unix_sockets or self.availability.backend != "bubblewrap":
            return None
        return unix_socket_filter()[0]

    def unix_socket_gap(self) -> str | None:
        """Why sandboxed commands can reach Unix sockets, when they can."""
        if self.settings.network.allow_all_unix_sockets:
            return "allowed (sandbox.network.allowAllUnixSockets)"
        if self.availability.backend != "bubblewrap":
            return None
        program, reason = unix_socket_filter()
        return None if program is not None else f"NOT blocked: {reason}; install libseccomp2 and pyseccomp"

    def environment(self, env: dict[str, str], plan: SandboxPlan) -> dict[str, str]:
        """The command's environment inside: no credentials, ``TMPDIR`` the private tmp."""
        scrubbed, _ = scrub_environment(env)
        scrubbed["TMPDIR"] = str(plan.private_tmp) if self.availability.backend == "seatbelt" else "/tmp"
        scrubbed["NB_AGENT_SANDBOX"] = "1"
        scrubbed["PYTHONDONTWRITEBYTECODE"] = "1"  # a __pycache__ in an import directory would be undone anyway
        for name in _PROXY_VARIABLES:
            scrubbed.pop(name, None)
        if plan.proxy is not None:
            url = f"http://127.0.0.1:{plan.proxy.port}"
            scrubbed.update({name: url for name in _PROXY_VARIABLES if "no_proxy" not in name.lower()})
        return scrubbed

    # --- reporting ---------------------------------------------------------------------------
    def status_line(self) -> str:
        """One line for ``%agent status``."""
        a = self.availability
        if not a.available:
            return f"unavailable: {a.reason} — fix: {a.fix} (commands run unsandboxed)"
        scope = "every command" if self.enabled else "read-only commands"
        return f"{a.backend} · sandboxes {scope} · {self.limits_text()}"

    def describe(self, *, additional_directories: Sequence[Path] = ()) -> list[str]:
        """Lines for ``%agent sandbox``."""
        a = self.availability
        s = self.settings
        lines = [f"backend       {a.describe()}"]
        override = "" if self.override is None else f" (this cell: --sandbox {'on' if self.override else 'off'})"
        lines.append(
            f"sandboxed     {'every Bash command' if self.enabled else 'commands the read-only classifier allows'}{override}"
        )
        lines.append(f"auto-allow    {'on' if s.auto_allow_bash_if_sandboxed and self.enabled else 'off'} (autoAllowBashIfSandboxed, with enabled)")
        lines.append(f"unsandboxed   {'with approval (dangerouslyDisableSandbox)' if s.allow_unsandboxed_commands else 'never (allowUnsandboxedCommands: false)'}")
        if s.excluded_commands:
            lines.append(f"excluded      {', '.join(s.excluded_commands)}")
        writable = _real_dirs([self.project_dir, *additional_directories, *s.allow_write])
        lines.append(f"writable      {', '.join(map(str, writable))}, and a private /tmp")
        network = {
            "all": "all (sandbox.network.allowAll)",
            "none": "none",
            "proxy": f"only {', '.join(s.network.allowed_domains)}, through nb_agent's filtering HTTP proxy "
            "(HTTP_PROXY/HTTPS_PROXY; programs that ignore them get no network)",
        }[self.network_mode]
        if self.blocked_hosts:
            network += f"; refused so far: {', '.join(dict.fromkeys(self.blocked_hosts))}"
        lines.append(f"network       {network}")
        sockets = self.unix_socket_gap() or "blocked (seccomp: no socket(AF_UNIX); sandbox.network.allowAllUnixSockets lifts it)"
        if s.network.allow_unix_sockets and self.availability.backend == "bubblewrap":
            sockets += "; allowUnixSockets is not honoured on Linux (a socket cannot be allowed by path)"
        lines.append(f"unix sockets  {sockets}")
        hidden = secret_paths(self.home, s.deny_read)
        lines.append(f"hidden        {', '.join(map(str, hidden)) or '(no secret paths exist)'}")
        lines.append("environment   credential variables removed (*TOKEN*, *SECRET*, *KEY*, AWS_*, …)")
        lines += [f"warning       {w}" for w in self.warnings]
        return lines


def _home_fields(home: Path, writable: list[Path]) -> tuple[Path | None, tuple[Path, ...]]:
    """The home folder and what of it the sandbox shows (none: the home is not narrowed)."""
    visible = home_view(home, writable)
    return (None, ()) if visible is None else (Path(os.path.realpath(home)), visible)


def _words(command: str) -> list[str]:
    try:
        return shlex.split(command)
    except ValueError:
        return command.split()


def _real_dirs(paths: Sequence[Path]) -> list[Path]:
    return [p for p in _real_paths(paths) if p.is_dir()]


def _real_paths(paths: Sequence[Path]) -> list[Path]:
    seen: dict[Path, None] = {}
    for path in paths:
        if os.path.lexists(path):
            seen.setdefault(Path(os.path.realpath(path)), None)
    return list(seen)


class command_wrapper:  # used like a function: command_wrapper(runtime, ...)
    """A :data:`~nb_agent.tools.bash.shell.CommandWrapper` that runs one shell in ``runtime``'s
    sandbox; ``after_exit`` moves aside protected paths the command created."""

    def __init__(self, runtime: SandboxRuntime, *, additional_directories: Sequence[Path]) -> None:
        self._runtime = runtime
        self._additional = tuple(additional_directories)
        self._plan: SandboxPlan | None = None
        self.pass_fds: tuple[int, ...] = ()
        """Descriptors the sandbox reads at start (the seccomp program), open until :meth:`started`."""

    def __call__(self, argv: list[str], env: dict[str, str], *, cwd: Path, cwd_file: Path) -> tuple[list[str], dict[str, str]]:
        plan = self._runtime.plan(cwd=cwd, additional_directories=self._additional, cwd_file=cwd_file)
        self._plan = plan
        program = self._runtime.unix_socket_filter(plan)
        fd = filter_fd(program) if program is not None else None
        self.pass_fds = () if fd is None else (fd,)
        return self._runtime.wrap(plan, argv, seccomp_fd=fd), self._runtime.environment(env, plan)

    def started(self) -> None:
        """The child has its copies of :attr:`pass_fds`: close ours."""
        for fd in self.pass_fds:
            os.close(fd)
        self.pass_fds = ()

    def after_exit(self) -> list[str]:
        if self._plan is None:
            return []
        return quarantine_created(self._plan.absent_protected) + undo_new_importables(self._plan.import_snapshot)
