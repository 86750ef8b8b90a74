"""One error hierarchy for nb_agent.

Control-flow exceptions (``AbortError``) are kept apart from error exceptions so a
``except NbAgentError`` never swallows an abort by accident.
"""

from __future__ import annotations


class NbAgentError(Exception):
    """Base class of every error nb_agent raises on purpose."""


class ConfigurationError(NbAgentError):
    """The run cannot start as configured (missing API key, bad option, bad settings file)."""


class ModelError(NbAgentError):
    """The model call failed in a way the loop cannot recover from."""


class PromptTooLongError(ModelError):
    """The request exceeded the model's context window (400 'prompt is too long' or 413)."""


class MediaTooLargeError(ModelError):
    """An image or document in the request is too large for the API."""


class FallbackTriggeredError(ModelError):
    """The primary model is overloaded; the caller should switch to the fallback model."""

    def __init__(self, *, original_model: str, fallback_model: str) -> None:
        super().__init__(f"{original_model} overloaded; falling back to {fallback_model}")
        self.original_model = original_model
        self.fallback_model = fallback_model


class ToolError(NbAgentError):
    """A tool failed; the message is what the model sees in the error tool_result."""


class InputValidationError(ToolError):
    """The model's tool input did not match the tool's schema."""


class HookError(NbAgentError):
    """A hook could not be run (timeout, bad output)."""


class TranscriptError(NbAgentError):
    """A transcript could not be read or written."""


class CheckpointError(NbAgentError):
    """A checkpoint could not be taken, or a rewind could not be done; the message says
    what was kept and what is off."""


class UnsafePathError(CheckpointError):
    """A rewind would have written through a link or a non-folder: nothing was written."""


class AbortError(BaseException):
    """Control flow: the user stopped the run. Not an ``NbAgentError`` on purpose."""

    def __init__(self, reason: str = "Interrupted by user") -> None:
        super().__init__(reason)
        self.reason = reason


class AgentDefinitionError(ConfigurationError):
    """A custom agent file (``.claude/agents/*.md``) cannot be used; the message names it."""


class UnsafeImportError(NbAgentError, ModuleNotFoundError):
    """nb_agent would have imported a module from an untrusted location (the kernel's
    working directory, a folder tools write to): see :mod:`nb_agent.import_guard`."""
