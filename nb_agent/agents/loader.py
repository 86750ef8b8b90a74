"""Custom agents from ``~/.claude/agents/*.md`` and ``<project>/.claude/agents/*.md``.

Claude Code's format: YAML frontmatter between ``---`` lines (``name`` and ``description``
required; ``tools``, ``disallowedTools``, ``model``, ``permissionMode``, ``mcpServers``,
``maxTurns`` optional) and the Markdown body as the agent's system prompt. A file that
cannot be used is reported with its path and skipped; the others still load. Later
sources override earlier ones by name: built-in < user < project.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from nb_agent.agents.definition import BUILT_IN_AGENTS, AgentDefinition, AgentSource
from nb_agent.errors import AgentDefinitionError
from nb_agent.frontmatter import FrontmatterError, split_frontmatter, split_specs
from nb_agent.permissions.types import PERMISSION_MODES

AGENTS_DIR = Path(".claude") / "agents"
MAX_AGENT_FILE_BYTES = 256_000


@dataclass(kw_only=True)
class AgentCatalog:
    """The agent types available to a session, and the files that could not be used."""

    definitions: list[AgentDefinition] = field(default_factory=lambda: list(BUILT_IN_AGENTS))
    issues: list[str] = field(default_factory=list)
    """One line per skipped file: its path and what is wrong."""

    def find(self, name: str) -> AgentDefinition | None:
        """Exact name first, then case-insensitive (``explore`` finds ``Explore``)."""
        for definition in self.definitions:
            if definition.name == name:
                return definition
        lowered = name.lower()
        return next((d for d in self.definitions if d.name.lower() == lowered), None)

    @property
    def names(self) -> list[str]:
        return [d.name for d in self.definitions]


def split_tool_specs(value: Any, *, field_name: str) -> tuple[str, ...]:
    """``"Read, Grep, Agent(explore, plan)"`` or a YAML list → the specs, commas inside
    parentheses kept."""
    try:
        return split_specs(value, field_name=field_name)
    except FrontmatterError as exc:
        raise AgentDefinitionError(str(exc)) from None


def _frontmatter(text: str) -> tuple[dict[str, Any], str]:
    try:
        data, body = split_frontmatter(text)
    except FrontmatterError as exc:
        raise AgentDefinitionError(str(exc)) from None
    if data is None:
        raise AgentDefinitionError("no YAML frontmatter (the file must start with a '---' line)")
    return data, body


def _required_text(data: dict[str, Any], key: str) -> str:
    value = data.get(key)
    if not isinstance(value, str) or not value.strip():
        raise AgentDefinitionError(f"'{key}' is required and must be a non-empty string")
    return value.strip()


def _max_turns(value: Any) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise AgentDefinitionError(f"maxTurns must be a positive integer, not {value!r}")
    return value


def _mcp_servers(value: Any) -> tuple[Any, ...]:
    if value is None:
        return ()
    if isinstance(value, (str, dict)):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, (str, dict)) for v in value):
        raise AgentDefinitionError("mcpServers must be a list of server names or {name: config} objects")
    return tuple(value)


def parse_agent_text(text: str, *, source: AgentSource, path: Path | None = None) -> AgentDefinition:
    """One agent file's text → its definition; raises ``AgentDefinitionError``."""
    data, body = _frontmatter(text)
    name = _required_text(data, "name")
    description = _required_text(data, "description")
    model = data.get("model")
    if model is not None and (not isinstance(model, str) or not model.strip()):
        raise AgentDefinitionError(f"model must be a model name or 'inherit', not {model!r}")
    mode = data.get("permissionMode")
    if mode is not None and mode not in PERMISSION_MODES:
        raise AgentDefinitionError(f"permissionMode must be one of {', '.join(PERMISSION_MODES)}, not {mode!r}")
    tools = split_tool_specs(data.get("tools"), field_name="tools") if "tools" in data else None
    if tools is not None and "*" in tools:
        tools = None
    if not body:
        raise AgentDefinitionError("the Markdown body (the agent's system prompt) is empty")
    return AgentDefinition(
        name=name,
        description=description,
        prompt=body,
        tools=tools,
        disallowed_tools=split_tool_specs(data.get("disallowedTools"), field_name="disallowedTools"),
        model=model.strip() if isinstance(model, str) else None,
        permission_mode=mode,
        mcp_servers=_mcp_servers(data.get("mcpServers")),
        max_turns=_max_turns(data.get("maxTurns")),
        source=source,
        path=path,
    )


def parse_agent_file(path: Path, *, source: AgentSource) -> AgentDefinition:
    """Read and parse one ``.md`` file; every failure is an ``AgentDefinitionError``."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise AgentDefinitionError(f"cannot read it: {exc.strerror or exc}") from None
    if len(raw) > MAX_AGENT_FILE_BYTES:
        raise AgentDefinitionError(f"it is larger than {MAX_AGENT_FILE_BYTES:,} bytes")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise AgentDefinitionError("it is not UTF-8 text") from None
    return parse_agent_text(text, source=source, path=path)


def _agent_files(directory: Path) -> list[Path]:
    try:
        return sorted(p for p in directory.glob("*.md") if p.is_file())
    except OSError:
        return []


def load_agent_catalog(
    *,
    cwd: Path,
    home: Path | None = None,
    include_project: bool = True,
    extra: Iterable[AgentDefinition] = (),
) -> AgentCatalog:
    """Built-ins, then ``~/.claude/agents``, then (if allowed) the project's, then ``extra``.

    ``include_project`` is the caller's decision whether the project folder is trusted:
    a project agent carries its own prompt and permission mode, so an untrusted folder's
    agents are not loaded (nb_agent says so in ``issues``).
    """
    catalog = AgentCatalog()
    sources: list[tuple[AgentSource, Path]] = [("user", (home or Path.home()) / AGENTS_DIR)]
    project_dir = cwd / AGENTS_DIR
    if include_project:
        sources.append(("project", project_dir))
    elif _agent_files(project_dir):
        catalog.issues.append(f"{project_dir}: project agents not loaded (the folder is not trusted)")
    by_name = {d.name: d for d in catalog.definitions}
    for source, directory in sources:
        for path in _agent_files(directory):
            try:
                definition = parse_agent_file(path, source=source)
            except AgentDefinitionError as exc:
                catalog.issues.append(f"{path}: {exc}")
                continue
            by_name[definition.name] = definition
    for definition in extra:
        by_name[definition.name] = definition
    catalog.definitions = list(by_name.values())
    return catalog
