"""The rule engine: settings rules, caller rules, session rules and the permission mode.

:meth:`RuleBasedPolicy.decide` walks a fixed chain, first answer wins:

1. deny rules -> deny (in every mode)
2. plan mode and a tool that is not read-only -> deny
3. ask rules -> ask (in every mode, ``bypassPermissions`` included)
4. the tool's own ``check_permissions``: deny -> deny; ask is kept for step 6
5. safety checks, immune to modes, allow rules and hooks -> ask: writing a protected
   file (agent configuration, shell/IPython startup files, ``.ssh/``, site-packages…;
   see :mod:`nb_agent.permissions.protected`) or writing outside the working directories;
   for Bash, a file a Read deny rule denies -> deny, and a protected file written or a
   denied tree read -> ask (:mod:`nb_agent.permissions.shell_guard`)
6. the tool's ask -> ask (``bypassPermissions`` overrides it, except for a tool that
   ``requires_user_interaction``: a question only the user can answer, which a
   PreToolUse hook's "allow" does not answer either)
7. ``bypassPermissions`` -> allow; ``acceptEdits`` and a file edit -> allow
8. allow rules -> allow; for Bash, every simple command covered by an allow rule or
   read-only (:mod:`nb_agent.permissions.fast_path`), and what the reading commands read
   (those a rule covers too) within Read's scope
9. read-only -> allow, unless a file read leaves the working directories, or the tool
   ``reaches_network`` or is an MCP tool (then ask);
   a read-only Bash command is held to Read's scope: what it reads must be readable
   without asking (a Read deny rule denies), and git runs only in the project's
   repository root (:mod:`nb_agent.permissions.read_plan`)
10. the tool vouches for the call (``auto_allow_reason``: Bash that will run sandboxed
    with ``autoAllowBashIfSandboxed``) -> allow
11. otherwise ask (with the fast path's reason, if it had one) and the rule an
    "Always allow" answer would add
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from nb_agent.errors import ConfigurationError
from nb_agent.permissions.fast_path import ReadScope, shell_fast_path
from nb_agent.permissions.paths import candidate_paths, home_directory, is_within, resolve_tool_path
from nb_agent.permissions.protected import protected_reason
from nb_agent.permissions.shell_guard import shell_guard
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
from nb_agent.permissions.types import (
    PERMISSION_MODES,
    PermissionAllow,
    PermissionAsk,
    PermissionDecision,
    PermissionDeny,
    PermissionMode,
    PermissionPolicy,
)

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


AGENT_MODE_OPTION = "agent_permission_mode"
"""``ToolUseContext.options`` key carrying a subagent's own permission mode."""


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
        for behavior, texts in (("allow", allow), ("deny", deny), ("ask", ask)):
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
        own ``permissionMode`` (``ctx.options[AGENT_MODE_OPTION]``), else the session's."""
        if ctx.permission_mode == "plan" or self._mode == "plan":
            return "plan"
        agent_mode = ctx.options.get(AGENT_MODE_OPTION)
        return agent_mode if agent_mode in PERMISSION_MODES else self._mode

    async def decide(self, tool: Tool[Any], input: Any, ctx: ToolUseContext) -> PermissionDecision:
        mode = self.effective_mode(ctx)
        if rule := self.matching_rule(tool, input, ctx, behavior="deny"):
            return PermissionDeny(
                message=f"Permission to use {tool.name} has been denied by the rule {rule.text} ({rule.source} settings)."
            )
        read_only = tool.is_read_only(input)
        if mode == "plan" and not read_only:
            return PermissionDeny(
                message=(
                    f"The session is in plan mode, so {tool.name} was not run: plan mode allows only "
                    "read-only tools and makes no changes. Finish the plan and present it instead."
                )
            )
        if rule := self.matching_rule(tool, input, ctx, behavior="ask"):
            return PermissionAsk(
                message=f"The rule {rule.text} ({rule.source} settings) asks before {tool.name} runs.", hook_may_allow=False
            )

        tool_decision = await tool.check_permissions(input, ctx)
        if isinstance(tool_decision, PermissionDeny):
            return tool_decision
        if safety := self._safety_check(tool, input, ctx):
            return safety
        updated_input = tool_decision.updated_input if isinstance(tool_decision, PermissionAllow) else None

        if isinstance(tool_decision, PermissionAsk):
            if tool.requires_user_interaction:
                # a question or a plan to approve: no mode, and no hook's "allow", answers for the user
                return replace(tool_decision, hook_may_allow=False)
            if mode == "bypassPermissions":
                return PermissionAllow(reason="bypassPermissions mode")
            if tool_decision.suggested_rule is None:
                return PermissionAsk(message=tool_decision.message, suggested_rule=self._suggest(tool, input, ctx))
            return tool_decision
        if mode == "bypassPermissions":
            return PermissionAllow(updated_input=updated_input, reason="bypassPermissions mode")
        if mode == "acceptEdits" and tool_family(tool) == "file_edit":
            return PermissionAllow(updated_input=updated_input, reason="acceptEdits mode")
        if rule := self.matching_rule(tool, input, ctx, behavior="allow"):
            exact = rule.content is not None and rule.content.strip() == (tool.permission_rule_content(input) or "").strip()
            if tool_family(tool) == "shell" and rule.content is not None and not exact:
                # A rule names a program, not what it may read (`Bash(cat:*)` does not
                # open ~/.ssh): what the command's readers read stays within Read's scope.
                # (Reads that cannot be listed before it runs, `cat "$f"`, stay the rule's.)
                held = self._shell_fast_path(tool, input, ctx, read_only=read_only, known_reads_only=True)
                if isinstance(held, (PermissionAsk, PermissionDeny)):
                    return held
            return PermissionAllow(updated_input=updated_input, reason=f"rule {rule.text} ({rule.source} settings)")
        fast_path_ask: PermissionAsk | None = None
        if tool_family(tool) == "shell":
            decision = self._shell_fast_path(tool, input, ctx, read_only=read_only)
            if isinstance(decision, PermissionAsk):
                fast_path_ask = decision  # the sandbox may still vouch for it (step 10)
            elif decision is not None:
                return decision
        # An MCP tool's readOnlyHint is the server's own claim: it makes the tool
        # concurrency-safe, but running it still takes the user's (or a rule's) consent.
        elif read_only and not tool.is_mcp and not tool.reaches_network:
            if outside := self._read_outside(tool, input, ctx):
                return outside
            return PermissionAllow(updated_input=updated_input, reason="read-only")
        if reason := tool.auto_allow_reason(input, ctx):
            return PermissionAllow(updated_input=updated_input, reason=reason)
        if fast_path_ask is not None:
            return fast_path_ask
        return PermissionAsk(
            message=f"nb_agent wants to use {tool.name}; you have not allowed it yet.",
            suggested_rule=self._suggest(tool, input, ctx),
        )

    # --- the read-only fast path -------------------------------------------------------
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

    def _shell_fast_path(
        self, tool: Tool[Any], input: Any, ctx: ToolUseContext, *, read_only: bool, known_reads_only: bool = False
    ) -> PermissionDecision | None:
        command = tool.permission_rule_content(input) or ""
        allow_rules = [r for r in self.rules if r.behavior == "allow" and rule_applies_to_tool(r, tool)]
        outcome = shell_fast_path(
            command, allow_rules=allow_rules, read_only=read_only, scope=self.read_scope(ctx), tool_name=tool.name
        )
        if outcome is None or (known_reads_only and outcome.verdict.unknown):
            return None
        verdict = outcome.verdict
        if verdict.behavior == "allow":
            return PermissionAllow(reason=outcome.reason)
        if verdict.behavior == "deny":
            return PermissionDeny(message=verdict.message)
        if verdict.outside:
            # Only reads outside the working directories asked: a Read rule for them, not a
            # rule for the program (`Bash(cat:*)` would not answer it next time).
            first = verdict.outside[0]
            suggested = suggest_read_rule(first.path, tree=first.kind == "tree", root=self._rule_cwd(ctx), home=self._home)
            return PermissionAsk(message=verdict.message, suggested_rule=suggested)
        return PermissionAsk(message=verdict.message, suggested_rule=self._suggest(tool, input, ctx))

    # --- helpers ----------------------------------------------------------------------
    def _rule_cwd(self, ctx: ToolUseContext) -> Path:
        return self._project_dir or ctx.session.cwd

    def _tool_path(self, tool: Tool[Any], input: Any, ctx: ToolUseContext) -> Path | None:
        """The file on this machine the call reads or writes, for the path checks."""
        raw = tool.permission_rule_content(input)
        if not raw or not tool.targets_local_file(input):
            return None
        return resolve_tool_path(raw, cwd=ctx.session.cwd, home=self._home or home_directory())

    def _safety_check(self, tool: Tool[Any], input: Any, ctx: ToolUseContext) -> PermissionAsk | PermissionDeny | None:
        """Asks that no mode and no allow rule can skip; only a deny can beat them. For
        Bash, also the denials of Read deny rules (:mod:`nb_agent.permissions.shell_guard`)."""
        if tool_family(tool) == "shell":
            return self._shell_guard(tool, input, ctx)
        if tool_family(tool) != "file_edit":
            return None
        path = self._tool_path(tool, input, ctx)
        if path is None:
            return None
        shown = candidate_paths(path)[0]
        if reason := protected_reason(path):
            return PermissionAsk(
                message=f"{tool.name} wants to change {shown}: {reason}. Changing it always needs approval.",
                hook_may_allow=False,
            )
        directories = self.working_directories(ctx)
        if not is_within(path, directories):
            listed = ", ".join(str(d) for d in directories)
            return PermissionAsk(
                message=(
                    f"{tool.name} wants to write {shown}, outside the working directories ({listed}). "
                    "Writes there always need approval; add the directory to additionalDirectories to allow them."
                ),
                hook_may_allow=False,
            )
        return None

    def _shell_guard(self, tool: Tool[Any], input: Any, ctx: ToolUseContext) -> PermissionAsk | PermissionDeny | None:
        command = tool.permission_rule_content(input) or ""
        verdict = shell_guard(command, scope=self.read_scope(ctx), tool_name=tool.name)
        if verdict is None:
            return None
        if verdict.behavior == "deny":
            return PermissionDeny(message=verdict.message)
        return PermissionAsk(message=verdict.message, hook_may_allow=False)

    def _read_outside(self, tool: Tool[Any], input: Any, ctx: ToolUseContext) -> PermissionAsk | None:
        if tool_family(tool) != "file_read":
            return None
        path = self._tool_path(tool, input, ctx)
        if path is None or is_within(path, self.working_directories(ctx)):
            return None
        return PermissionAsk(
            message=f"{tool.name} wants to read {candidate_paths(path)[0]}, outside the working directories.",
            suggested_rule=self._suggest(tool, input, ctx),
        )

    def _suggest(self, tool: Tool[Any], input: Any, ctx: ToolUseContext) -> str | None:
        return suggest_rule(tool, input, cwd=ctx.session.cwd, root=self._rule_cwd(ctx), home=self._home)
