"""``%agent allow``, ``deny``, ``mode``, ``model``, ``provider``, ``notebook``, ``trust``
and ``untrust``: what the agent may do and where it works."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from nb_agent.jupyter.session import KernelAgentSession


def add_rule(session: KernelAgentSession, behavior: str, rule: str) -> None:
    from nb_agent.errors import ConfigurationError

    engine = session.ensure_engine()
    try:
        engine.permission_policy.add_session_rule(behavior, rule)  # type: ignore[arg-type]
    except (ConfigurationError, NotImplementedError) as exc:
        print(f"Invalid rule {rule!r}: {exc}")
        return
    print(f"Added the session {behavior} rule {rule}.")


def allow(session: KernelAgentSession, rule: str | None) -> None:
    assert rule is not None  # required: the parser saw it
    add_rule(session, "allow", rule)


def deny(session: KernelAgentSession, rule: str | None) -> None:
    assert rule is not None  # required: the parser saw it
    add_rule(session, "deny", rule)


def mode(session: KernelAgentSession, value: str | None) -> None:
    assert value is not None  # required: the parser saw it
    session.settings.permission_mode = value  # the engine follows (AgentMagics observes it)
    session.setting_changed("permission_mode", value)  # also when the value did not change
    print(f"Permission mode: {value}.")


def model(session: KernelAgentSession, value: str | None) -> None:
    assert value is not None  # required: the parser saw it
    session.settings.model = value
    session.setting_changed("model", value)
    print(f"Model: {value}.")


def provider(session: KernelAgentSession, value: str | None) -> None:
    """Show the provider, or set it (``anthropic``, ``bedrock``, ``vertex``, ``foundry``)."""
    from nb_agent.engine import EngineConfig
    from nb_agent.errors import ConfigurationError
    from nb_agent.model.providers import parse_provider

    if value is not None:
        try:
            chosen = parse_provider(value)
        except ConfigurationError as exc:
            print(exc)
            return
        session.settings.provider = chosen.value  # observed: the engine follows
    config = session.engine.config if session.engine is not None else EngineConfig(provider=None)
    if session.engine is None and session.settings.provider:
        config.provider = parse_provider(session.settings.provider)
    current = config.resolved_provider
    source = "set in this kernel" if session.settings.provider else "from the environment"
    print(f"Provider: {current.label} ({current.value}, {source}); the model is sent as {config.resolve(config.model)}.")


def notebook(session: KernelAgentSession, path: str | None) -> None:
    if path:
        resolved = session.set_notebook_path(path)
        note = "" if resolved.exists() else " (it does not exist yet)"
        print(f"Notebook: {resolved}{note}.")
    else:
        current = session.notebook_path()
        print(f"Notebook: {current}." if current else "Notebook unknown: set it with %agent notebook PATH.")


def trust(session: KernelAgentSession, path: str | None, *, trusted: bool) -> None:
    """``%agent trust [PATH]`` / ``%agent untrust [PATH]``: record the answer (in the
    user's own config) and make the engine follow it."""
    import os
    from pathlib import Path

    from nb_agent.trust import broad_folders, trust_file

    folder = Path(os.path.abspath(os.path.expanduser(path))) if path else session.project_folder()
    if not folder.is_dir():
        print(f"No folder {folder}.")
        return
    if session.running:
        print("An agent run is active in this kernel; answer when it has ended.")
        return
    now = session.set_folder_trust(trusted, folder)
    verb = "Trusted" if trusted else "Not trusting"
    covered = "" if trusted and str(Path(os.path.realpath(folder))) in broad_folders() else " and the folders under it"
    print(f"{verb} {folder}{covered} (remembered in your own configuration, {_store_name(trust_file())}).")
    if now.folder != folder and not str(now.folder).startswith(str(folder) + os.sep):
        return
    if now.state == "not_needed":
        print("Nothing in it changes what the agent does at the moment.")
    elif trusted:
        print(f"The agent now uses its {'; '.join(now.reasons)}.")
    else:
        print(f"The agent does not use its {'; '.join(now.reasons)} (its deny and ask rules still apply), and runs no git.")


def trust_folder(session: KernelAgentSession, path: str | None) -> None:
    trust(session, path, trusted=True)


def untrust_folder(session: KernelAgentSession, path: str | None) -> None:
    trust(session, path, trusted=False)


def _store_name(path: Any) -> str:
    """The store's path as the user would write it (notebooks are shared: no home path)."""
    import os

    from nb_agent.permissions.paths import home_directory
    from nb_agent.trust import TRUST_FILE_ENV

    if os.environ.get(TRUST_FILE_ENV):
        return f"${TRUST_FILE_ENV}"
    home = home_directory()
    return f"~/{path.relative_to(home)}" if path.is_relative_to(home) else str(path)
