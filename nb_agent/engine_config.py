"""How a session runs: :class:`EngineConfig`, with the rare options in :class:`EngineOptions`.

Every field is typed: what a caller may set is what these two classes say (no string
keys in a dictionary). A subagent's engine is configured by :meth:`EngineConfig.for_subagent`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from nb_agent.context.config import ContextConfig
from nb_agent.model.model_ids import main_model, resolve_model
from nb_agent.model.providers import Provider, provider_from_env
from nb_agent.permissions.types import PermissionMode
from nb_agent.prompts import SystemPromptParts
from nb_agent.state_dir import default_state_dir
from nb_agent.tools.services import TimeoutAction

if TYPE_CHECKING:
    from nb_agent.folder_trust import FolderTrust
    from nb_agent.hooks.types import SubagentInfo
    from nb_agent.model.retry import RetryPolicy
    from nb_agent.tools.bash.sandbox.runtime import SandboxRuntime

DEFAULT_NOTIFY_AFTER_S = 30.0
"""A run at least this long fires the Notification hooks (``idle_prompt``) when it ends."""
MAIN_QUERY_SOURCE = "repl_main_thread"


def default_model() -> str:
    """``NB_AGENT_MODEL``, else ``ANTHROPIC_MODEL``, else ``claude-sonnet-4-6``."""
    return main_model()


@dataclass(kw_only=True)
class EngineOptions:
    """The options of a session that most callers never set."""

    context: ContextConfig = field(default_factory=ContextConfig)
    """Context management: autocompact, microcompact, budgets, tool-use summaries."""
    retry_policy: RetryPolicy | None = None
    """How model requests are retried (None: the default policy)."""
    prompt_caching: bool | None = None
    """Prompt-cache breakpoints (None: on unless ``DISABLE_PROMPT_CACHING``)."""
    tool_references: bool | None = None
    """ToolSearch loads tools by ``tool_reference`` blocks (None: by provider and environment)."""
    notify_after_s: float = DEFAULT_NOTIFY_AFTER_S
    sandbox: SandboxRuntime | None = None
    """The Bash sandbox (``create_engine`` makes it from the settings files)."""
    bash_timeout_action: TimeoutAction = "background"
    """What a foreground Bash timeout does: move the command to the background, or kill it."""
    query_source: str = MAIN_QUERY_SOURCE
    """Who makes the requests (retry behaviour and hooks tell the main loop from others)."""
    omit_session_context: bool = False
    """Leave the git status and CLAUDE.md reminder out of the prompt (some subagents)."""
    agent_permission_mode: Callable[[], PermissionMode] | None = None
    """A subagent's own permission mode, looked up at each decision (None: the session's)."""


@dataclass(kw_only=True)
class EngineConfig:
    """How a session runs. Rare options live in ``options``."""

    model: str = field(default_factory=default_model)
    """A model id or alias (``sonnet``, ``opus``, ``haiku``); resolved per request."""
    fallback_model: str | None = None
    provider: Provider | None = None
    """Anthropic API, Bedrock, Vertex or Foundry; None: the environment's (``CLAUDE_CODE_USE_*``)."""
    max_turns: int | None = None
    max_output_tokens: int | None = None
    max_budget_usd: float | None = None
    """Stop a submission once it has cost more than this (USD)."""
    permission_mode: PermissionMode = "default"
    cwd: Path = field(default_factory=Path.cwd)
    state_dir: Path | None = None
    """Where sessions are kept; default ``<cwd>/.nb_agent``."""
    system_prompt: SystemPromptParts = field(default_factory=SystemPromptParts)
    streaming_tool_execution: bool = True
    thinking: dict[str, Any] | None = None
    folder_trust: FolderTrust | None = None
    """The folder's trust as ``create_engine`` decided it (None: not decided, so no git status is read)."""
    subagent: SubagentInfo | None = None
    """Set when the engine runs a subagent (its end fires SubagentStop, not Stop)."""
    options: EngineOptions = field(default_factory=EngineOptions)

    @property
    def resolved_provider(self) -> Provider:
        return self.provider or provider_from_env()

    def resolve(self, model: str) -> str:
        """``model`` as sent to this config's provider (aliases expanded, ids mapped)."""
        return resolve_model(model, self.resolved_provider)

    @property
    def sessions_dir(self) -> Path:
        return (self.state_dir or default_state_dir(self.cwd)[0]) / "sessions"

    @property
    def folder_applies(self) -> bool:
        """Did the engine's maker find the folder's files may take effect? False when it
        did not decide (an engine built by hand reads no git status)."""
        return self.folder_trust is not None and self.folder_trust.applies

    def for_subagent(
        self,
        subagent: SubagentInfo,
        *,
        model: str,
        permission_mode: PermissionMode,
        live_permission_mode: Callable[[], PermissionMode],
        max_turns: int | None,
        cwd: Path,
        agent_prompt: str,
        query_source: str,
        omit_session_context: bool,
    ) -> EngineConfig:
        """A subagent's configuration: this one's provider, limits and folder, with the
        agent's model, mode (``permission_mode`` now, ``live_permission_mode`` at each
        decision) and prompt; no tool-use summaries and no idle notification (those are
        the parent's to give)."""
        return replace(
            self,
            model=model,
            max_turns=max_turns,
            max_budget_usd=None,
            permission_mode=permission_mode,
            cwd=cwd,
            system_prompt=SystemPromptParts(
                agent_prompt=agent_prompt,
                append=self.system_prompt.append,
                dynamic_sections=list(self.system_prompt.dynamic_sections),
            ),
            subagent=subagent,
            options=replace(
                self.options,
                context=replace(self.options.context, tool_use_summaries=False),
                notify_after_s=float("inf"),  # "waiting for your input" is the parent's to say
                query_source=query_source,
                omit_session_context=omit_session_context,
                agent_permission_mode=live_permission_mode,
            ),
        )
