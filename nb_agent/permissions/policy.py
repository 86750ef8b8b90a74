"""The rule engine: settings rules, caller rules, session rules and the permission mode.

:meth:`RuleBasedPolicy.decide` runs the permission chain (:mod:`nb_agent.permissions.chain`:
deny rules, plan mode, ask rules, the tool's own check, safety checks, modes, allow
rules, read-only tools, the tool's own vouching, else ask) over the call; this module
holds the rules and the mode, and answers the lookups the chain's steps make.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from nb_agent.errors import ConfigurationError
from nb_agent.permissions.chain import run_chain
from nb_agent.permissions.fast_path import ReadScope
from nb_agent.permissions.paths import home_directory, resolve_tool_path
from nb_agent.permissions.protected import protected_reason
from nb_agent.permissions.rules import (
    PermissionRule,
    RuleBehavior,
    RuleSource,
    first_matching_rule,
    parse_rule,
    rule_applies_to_tool,
    suggest_read_rule,
    suggest_rule,
    tool_family,
)
from nb_agent.permissions.settings import Settings
from nb_agent.permissions.steps import PermissionCall, deny_rule
from nb_agent.permissions.types import PERMISSION_MODES, PermissionDecision, PermissionMode, PermissionPolicy

if TYPE_CHECKING:
    from nb_agent.tools.base import Tool, ToolUseContext

__all__ = ["RuleBasedPolicy", "is_protected_config_path"]

_SOURCE_ORDER: tuple[RuleSource, ...] = ("user", "project", "local", "caller", "session")


def is_protected_config_path(path: Path) -> bool:
    """Is ``path`` (or what it resolves to) a file whose change always needs approval?

    See :mod:`nb_agent.permissions.protected` for the list (agent configuration, shell
    and IPython startup files, ``.ssh/``, Python's own directories, …).
    """
    return protected_reason(path) is not None


class RuleBasedPolicy(PermissionPolicy):
    """Allow / deny / ask from settings, caller and session rules plus the mode.

    The policy's :attr:`mode` is the source of truth; a context whose
    ``permission_mode`` is ``plan`` only ever makes a decision stricter.
    """

    def __init__(
        self,
        *,
        settings: Settings | None = None,
        allow: Sequence[str] = (),
        deny: Sequence[str] = (),
        ask: Sequence[str] = (),
        mode: PermissionMode | None = None,
        additional_directories: Sequence[Path] = (),
        project_dir: Path | None = None,
        home: Path | None = None,
    ) -> None:
        """Caller rules (``allow``/``deny``/``ask``) raise ``ConfigurationError`` if malformed.

        ``project_dir`` (default: the settings' project) anchors relative file rules and is
        the main working directory; without it the context's ``cwd`` is used per call.
        """
        self._settings = settings
        self._home = home
        self._project_dir = project_dir or (settings.project_dir if settings else None)
        caller: list[PermissionRule] = []
        given: tuple[tuple[RuleBehavior, Sequence[str]], ...] = (("allow", allow), ("deny", deny), ("ask", ask))
        for behavior, texts in given:
            caller.extend(parse_rule(t, behavior=behavior, source="caller", root=self._project_dir) for t in texts)
        self._base_rules: tuple[PermissionRule, ...] = (*(settings.rules if settings else ()), *caller)
        self._session_rules: list[PermissionRule] = []
        self._additional_directories = [*(settings.additional_directories if settings else ()), *additional_directories]
        self._mode: PermissionMode = "default"
        self.set_mode(mode or (settings.default_mode if settings else None) or "default")

    # --- state ------------------------------------------------------------------------
    @property
    def mode(self) -> PermissionMode:
        return self._mode

    def set_mode(self, mode: PermissionMode) -> None:
        if mode not in PERMISSION_MODES:
            raise ConfigurationError(f"unknown permission mode {mode!r}; expected one of {', '.join(PERMISSION_MODES)}")
        self._mode = mode

    @property
    def rules(self) -> tuple[PermissionRule, ...]:
        """Every rule in force: settings (user, project, local), caller, then session."""
        return (*self._base_rules, *self._session_rules)

    def rules_by_source(self) -> dict[RuleSource, list[PermissionRule]]:
        """The rules grouped by where they came from (for ``%agent status``)."""
        grouped: dict[RuleSource, list[PermissionRule]] = {s: [] for s in _SOURCE_ORDER}
        for rule in self.rules:
            grouped[rule.source].append(rule)
        return {s: rules for s, rules in grouped.items() if rules}

    @property
    def settings(self) -> Settings | None:
        return self._settings

    @property
    def warnings(self) -> list[str]:
        """Problems found while loading settings files (shown by ``%agent status``)."""
        return list(self._settings.warnings) if self._settings else []

    def add_session_rule(self, behavior: RuleBehavior, rule: str) -> None:
        """Record a rule for the rest of the session (an "Always allow" answer)."""
        parsed = parse_rule(rule, behavior=behavior, source="session", root=self._project_dir)
        if parsed not in self._session_rules:
            self._session_rules.append(parsed)

    def working_directories(self, ctx: ToolUseContext) -> list[Path]:
        """Where file writes need no extra approval: the project plus added directories."""
        main = self._project_dir or ctx.session.cwd
        return [main, *ctx.session.additional_directories, *self._additional_directories]

    # --- lookups used by other layers --------------------------------------------------
    def matching_rule(
        self, tool: Tool[Any], input: Any, ctx: ToolUseContext, *, behavior: RuleBehavior
    ) -> PermissionRule | None:
        """The first rule of ``behavior`` that matches this call (Edit checks deny rules)."""
        # Tool paths are relative to the session's cwd (which `cd` moves); rules anchor at
        # their own root or, for user-level rules, the session's starting directory.
        return first_matching_rule(
            self.rules, tool, input, ctx.session.cwd, behavior=behavior, home=self._home, anchor=self._rule_cwd(ctx)
        )

    def blanket_deny_rule(self, tool: Tool[Any]) -> PermissionRule | None:
        """A content-less deny rule (``Bash``, ``mcp__server``) that removes the tool from the pool."""
        for rule in self.rules:
            if rule.behavior == "deny" and rule.content is None and rule_applies_to_tool(rule, tool):
                return rule
        return None

    # --- the decision chain ------------------------------------------------------------
    def effective_mode(self, ctx: ToolUseContext) -> PermissionMode:
        """Plan mode (the session's or the context's) always wins; otherwise a subagent's
        own ``permissionMode`` (``ctx.services.agent_permission_mode``), else the session's."""
        if ctx.permission_mode == "plan" or self._mode == "plan":
            return "plan"
        agent_mode = ctx.services.agent_permission_mode
        if agent_mode is not None:  # a subagent's: computed from the session's mode as it is now
            agent_mode = agent_mode()
        return agent_mode if agent_mode in PERMISSION_MODES else self._mode

    def _call(self, tool: Tool[Any], input: Any, ctx: ToolUseContext) -> PermissionCall:
        return PermissionCall(policy=self, tool=tool, input=input, ctx=ctx, mode=self.effective_mode(ctx), family=tool_family(tool))

    async def decide(self, tool: Tool[Any], input: Any, ctx: ToolUseContext) -> PermissionDecision:
        """Run the permission chain over this call (:mod:`nb_agent.permissions.chain`)."""
        return await run_chain(self._call(tool, input, ctx))

    async def deny_rule_decision(self, tool: Tool[Any], input: Any, ctx: ToolUseContext) -> PermissionDecision | None:
        """The chain's first step alone: the pipeline asks it before the tool's own checks
        look at the disk (seed 003 §3.6 step ④)."""
        return await deny_rule(self._call(tool, input, ctx))

    # --- lookups the chain's steps make --------------------------------------------------
    def read_scope(self, ctx: ToolUseContext) -> ReadScope:
        """What Read may read without asking, for a call running in ``ctx``'s cwd."""
        return ReadScope(
            rules=self.rules,
            working_directories=self.working_directories(ctx),
            cwd=ctx.session.cwd,
            anchor=self._rule_cwd(ctx),
            home=self._home or home_directory(),
            git_allowed=self._settings.project_trusted if self._settings else True,
        )

    def tool_path(self, tool: Tool[Any], input: Any, ctx: ToolUseContext) -> Path | None:
        """The file on this machine the call reads or writes, for the path checks."""
        raw = tool.permission_rule_content(input)
        if not raw or not tool.targets_local_file(input):
            return None
        return resolve_tool_path(raw, cwd=ctx.session.cwd, home=self._home or home_directory())

    def suggest(self, tool: Tool[Any], input: Any, ctx: ToolUseContext) -> str | None:
        """The rule an "Always allow" answer to this call adds."""
        return suggest_rule(tool, input, cwd=ctx.session.cwd, root=self._rule_cwd(ctx), home=self._home)

    def suggest_read(self, path: Path, *, tree: bool, ctx: ToolUseContext) -> str:
        """The ``Read`` allow rule that answers a read of ``path`` outside the working directories."""
        return suggest_read_rule(path, tree=tree, root=self._rule_cwd(ctx), home=self._home)

    def _rule_cwd(self, ctx: ToolUseContext) -> Path:
        return self._project_dir or ctx.session.cwd
