"""MCP server configuration in Claude Code's format: ``.mcp.json`` and ``~/.claude.json``.

Both files hold ``{"mcpServers": {"<name>": {...}}}``. A server is either a subprocess
speaking stdio (``{"command", "args", "env", "cwd"}``, ``"type": "stdio"`` optional) or a
remote server (``{"type": "http", "url", "headers"}`` for streamable HTTP, ``"type": "sse"``
for the legacy SSE transport). ``${VAR}`` and ``${VAR:-default}`` in strings are expanded
from the environment, as Claude Code does.

Scopes, later ones winning on a name clash: ``user`` (top-level ``mcpServers`` of
``~/.claude.json``), ``project`` (``.mcp.json`` in the working directory), ``local``
(``projects[<cwd>].mcpServers`` of ``~/.claude.json``), ``runtime`` (``McpManager.add_server``).
A file or server entry that cannot be read becomes a :class:`ConfigIssue`; it never stops
the other servers from loading.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

from nb_agent.config_text import read_config_text
from nb_agent.errors import ConfigurationError

ConfigScope = Literal["user", "project", "local", "runtime"]
TransportKind = Literal["stdio", "http", "sse"]

PROJECT_CONFIG_FILE = ".mcp.json"

_INVALID_NAME_CHARS = re.compile(r"[^A-Za-z0-9_-]")


def normalize_name_for_mcp(name: str) -> str:
    """Make a server or tool name fit the API's tool-name alphabet ``[A-Za-z0-9_-]``."""
    return _INVALID_NAME_CHARS.sub("_", name)


def server_name_conflict(name: str, existing: list[str]) -> str | None:
    """Why server ``name`` is refused, or ``None``.

    Tools are named ``mcp__<server>__<tool>``, and rules (``mcp__github``) name servers.
    A name that normalises to something containing ``__`` or ending in ``_`` could
    produce another server's tool names (``github__evil`` + ``x`` is ``mcp__github__evil__x``,
    which reads as server ``github``); two names that normalise alike give one set of
    tool names. Both are refused, naming the server they would collide with.
    """
    key = normalize_name_for_mcp(name)
    if not key.strip("_"):
        return f"MCP server name {name!r} has no usable characters; server refused"
    if "__" in key or key.endswith("_"):
        shadowed = key.split("__")[0].rstrip("_") or key
        return (
            f"MCP server {name!r} refused: its tool names (mcp__{key}__…) could be taken for those of a server "
            f"named {shadowed!r}; rename it without '__' and without a trailing '_'"
        )
    for other in existing:
        if other != name and normalize_name_for_mcp(other) == key:
            return f"MCP server {name!r} refused: it gives the same tool names (mcp__{key}__…) as server {other!r}; rename one"
    return None


@dataclass(frozen=True, kw_only=True)
class StdioServerConfig:
    """A server run as a subprocess, talking JSON-RPC over its stdin/stdout."""

    command: str
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    """Merged over a minimal inherited environment (PATH, HOME, …), as the SDK does."""
    cwd: str | None = None
    type: Literal["stdio"] = "stdio"


@dataclass(frozen=True, kw_only=True)
class HttpServerConfig:
    """A remote server over streamable HTTP (``type: "http"``) or legacy SSE (``"sse"``)."""

    url: str
    headers: Mapping[str, str] = field(default_factory=dict)
    type: Literal["http", "sse"] = "http"


McpServerConfig = StdioServerConfig | HttpServerConfig


@dataclass(frozen=True, kw_only=True)
class ScopedServerConfig:
    """A server's configuration and where it came from."""

    name: str
    config: McpServerConfig
    scope: ConfigScope
    source: Path | None = None


@dataclass(frozen=True, kw_only=True)
class ConfigIssue:
    """A problem found while loading configuration (bad JSON, a malformed server entry)."""

    source: str
    message: str
    server: str | None = None
    level: Literal["error", "warning"] = "error"

    def __str__(self) -> str:
        where = f"{self.source}: server {self.server!r}" if self.server else self.source
        return f"{where}: {self.message}"


@dataclass(frozen=True, kw_only=True)
class McpConfigLoad:
    """The servers found in all config files, and what could not be loaded."""

    servers: dict[str, ScopedServerConfig] = field(default_factory=dict)
    issues: list[ConfigIssue] = field(default_factory=list)
    untrusted: tuple[str, ...] = ()
    """Servers of ``.mcp.json`` not loaded because the folder is not trusted."""


# --- parsing ------------------------------------------------------------------------------

_ENV_REF = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")


def expand_env(value: str, env: Mapping[str, str], missing: set[str]) -> str:
    """Expand ``${VAR}`` / ``${VAR:-default}``; unknown variables become "" and are recorded."""

    def replace(match: re.Match[str]) -> str:
        name, default = match.group(1), match.group(2)
        if name in env:
            return env[name]
        if default is not None:
            return default
        missing.add(name)
        return ""

    return _ENV_REF.sub(replace, value)


def _str_map(raw: Any, what: str) -> dict[str, str]:
    if raw is None:
        return {}
    if not isinstance(raw, Mapping) or not all(isinstance(k, str) for k in raw):
        raise ConfigurationError(f"{what} must be an object of strings")
    return {k: str(v) for k, v in raw.items()}


def parse_server_config(
    raw: Mapping[str, Any] | McpServerConfig,
    *,
    env: Mapping[str, str] | None = None,
    missing_env: set[str] | None = None,
) -> McpServerConfig:
    """One ``mcpServers`` entry as a typed config; raises ``ConfigurationError`` if malformed."""
    if isinstance(raw, (StdioServerConfig, HttpServerConfig)):
        return raw
    if not isinstance(raw, Mapping):
        raise ConfigurationError("server entry must be a JSON object")
    env = os.environ if env is None else env
    missing = set() if missing_env is None else missing_env

    def x(value: str) -> str:
        return expand_env(value, env, missing)

    kind = raw.get("type") or ("stdio" if "command" in raw else "http" if "url" in raw else None)
    if kind in ("streamable-http", "streamable_http", "streamableHttp"):
        kind = "http"
    if kind == "stdio":
        command = raw.get("command")
        if not isinstance(command, str) or not command.strip():
            raise ConfigurationError("stdio server needs a non-empty 'command'")
        args = raw.get("args") or []
        if not isinstance(args, list):
            raise ConfigurationError("'args' must be a list")
        cwd = raw.get("cwd")
        return StdioServerConfig(
            command=x(command),
            args=tuple(x(str(a)) for a in args),
            env={k: x(v) for k, v in _str_map(raw.get("env"), "'env'").items()},
            cwd=x(cwd) if isinstance(cwd, str) else None,
        )
    if kind in ("http", "sse"):
        url = raw.get("url")
        if not isinstance(url, str) or not url.strip():
            raise ConfigurationError(f"{kind} server needs a 'url'")
        headers = {k: x(v) for k, v in _str_map(raw.get("headers"), "'headers'").items()}
        return HttpServerConfig(url=x(url), headers=headers, type=kind)
    if kind is None:
        raise ConfigurationError("server entry needs 'command' (stdio) or 'url' (http)")
    raise ConfigurationError(f"unsupported server type {kind!r} (expected stdio, http or sse)")


def parse_mcp_servers(
    servers: Any, *, scope: ConfigScope, source: Path | None, env: Mapping[str, str] | None = None
) -> McpConfigLoad:
    """Parse an ``mcpServers`` object; each bad entry becomes an issue, the rest load."""
    label = str(source) if source else scope
    if servers is None:
        return McpConfigLoad()
    if not isinstance(servers, Mapping):
        return McpConfigLoad(issues=[ConfigIssue(source=label, message="'mcpServers' must be an object")])
    out = McpConfigLoad()
    for name, raw in servers.items():
        missing: set[str] = set()
        try:
            config = parse_server_config(raw, env=env, missing_env=missing)
        except ConfigurationError as exc:
            out.issues.append(ConfigIssue(source=label, server=name, message=str(exc)))
            continue
        if missing:
            message = f"missing environment variables: {', '.join(sorted(missing))}"
            out.issues.append(ConfigIssue(source=label, server=name, message=message, level="warning"))
        out.servers[name] = ScopedServerConfig(name=name, config=config, scope=scope, source=source)
    return out


def _read_json(path: Path) -> tuple[Any, ConfigIssue | None]:
    try:
        return json.loads(read_config_text(path)), None
    except FileNotFoundError:
        return None, None
    except (OSError, UnicodeDecodeError) as exc:
        return None, ConfigIssue(source=str(path), message=f"cannot read: {exc}")
    except json.JSONDecodeError as exc:
        return None, ConfigIssue(source=str(path), message=f"invalid JSON: {exc}")


def default_user_config_path() -> Path:
    return Path.home() / ".claude.json"


def load_mcp_config(
    *,
    cwd: Path,
    user_config_path: Path | None = None,
    env: Mapping[str, str] | None = None,
    include_project: bool = True,
) -> McpConfigLoad:
    """Read user, project and local server configs; later scopes override earlier ones.

    ``include_project=False`` (an untrusted folder): ``.mcp.json`` is read only to name
    its servers in :attr:`McpConfigLoad.untrusted`; none of them is loaded.
    """
    user_path = default_user_config_path() if user_config_path is None else user_config_path
    project_path = cwd / PROJECT_CONFIG_FILE
    result = McpConfigLoad()

    def merge(part: McpConfigLoad) -> None:
        result.servers.update(part.servers)
        result.issues.extend(part.issues)

    user_data, issue = _read_json(user_path)
    if issue:
        result.issues.append(issue)
    if user_data is not None and not isinstance(user_data, Mapping):
        result.issues.append(ConfigIssue(source=str(user_path), message="top level must be a JSON object"))
        user_data = None
    if user_data is not None:
        merge(parse_mcp_servers(user_data.get("mcpServers"), scope="user", source=user_path, env=env))

    project_data, issue = _read_json(project_path)
    untrusted: tuple[str, ...] = ()
    if not include_project:
        servers = project_data.get("mcpServers") if isinstance(project_data, Mapping) else None
        untrusted = tuple(str(name) for name in servers) if isinstance(servers, Mapping) else ()
        project_data, issue = None, None
    if issue:
        result.issues.append(issue)
    if project_data is not None:
        if isinstance(project_data, Mapping):
            merge(parse_mcp_servers(project_data.get("mcpServers"), scope="project", source=project_path, env=env))
        else:
            result.issues.append(ConfigIssue(source=str(project_path), message="top level must be a JSON object"))

    if user_data is not None:
        projects = user_data.get("projects")
        local = projects.get(str(cwd.resolve())) if isinstance(projects, Mapping) else None
        if isinstance(local, Mapping):
            merge(parse_mcp_servers(local.get("mcpServers"), scope="local", source=user_path, env=env))
    return replace(_without_conflicting_names(result), untrusted=untrusted)


def _without_conflicting_names(loaded: McpConfigLoad) -> McpConfigLoad:
    """Refuse names that could collide (earlier scopes keep theirs: a project cannot shadow a user server)."""
    kept: dict[str, ScopedServerConfig] = {}
    issues = list(loaded.issues)
    for name, server in loaded.servers.items():
        problem = server_name_conflict(name, list(kept))
        if problem is None:
            kept[name] = server
        else:
            issues.append(ConfigIssue(source=str(server.source or server.scope), server=name, message=problem, level="warning"))
    return McpConfigLoad(servers=kept, issues=issues)


def transport_kind(config: McpServerConfig) -> TransportKind:
    return config.type
