"""``%agent cassette``: record this kernel's model traffic, or replay it."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from nb_agent.jupyter.session import KernelAgentSession


def use_cassette(session: KernelAgentSession, path: str) -> str:
    """Record this kernel's model traffic to ``path`` or replay it from there (mode from
    ``$NB_AGENT_CASSETTE_MODE``, default auto). A relative path is taken from the
    notebook's directory (the kernel's working directory when the notebook is unknown),
    so a notebook names its cassette the same way in every clone. Every engine of the
    kernel (``%agent new``, ``%agent resume``) continues the same cassette; choosing it
    again starts it from the beginning."""
    import os
    from pathlib import Path

    from nb_agent.errors import ConfigurationError
    from nb_agent.model import cassette as cassettes
    from nb_agent.model.client import has_credentials

    if session.engine is not None:
        raise ConfigurationError("choose the cassette before the first %%agent cell of the kernel (restart the kernel)")
    resolved = Path(os.path.expanduser(path))
    if not resolved.is_absolute():
        notebook = session.notebook_path()
        resolved = (notebook.parent if notebook is not None else Path.cwd()) / resolved
    mode = cassettes.resolve_mode(resolved, has_api_key=has_credentials())
    if mode == "replay" and not resolved.exists():
        raise ConfigurationError(f"no cassette to replay at {resolved}")
    if mode == "record" and not has_credentials():
        raise ConfigurationError(f"no cassette at {resolved} to replay, and recording one needs ANTHROPIC_API_KEY")
    cassettes.close_cassette(resolved)
    os.environ[cassettes.CASSETTE_ENV] = str(resolved)
    session.cassette = (path, resolved)
    if mode == "replay":
        count = len(cassettes.read_interactions(resolved))
        return f"Replaying the model's side of this notebook from {path} ({count} recorded requests; no API key needed)."
    return f"Recording the model's traffic to {path}: requests go to the live API."


def cassette_report(session: KernelAgentSession) -> str:
    import os
    from pathlib import Path

    from nb_agent.model import cassette as cassettes

    from_env = os.environ.get(cassettes.CASSETTE_ENV, "")
    if session.cassette is None and not from_env:
        return "No cassette: the agent talks to the model directly (choose one with %agent cassette PATH)."
    # After %reload_ext the session forgot how the path was written: name the file only.
    resolved = session.cassette[1] if session.cassette else Path(from_env).expanduser().absolute()
    shown = session.cassette[0] if session.cassette else resolved.name
    transport = cassettes.open_cassettes().get(resolved)
    if transport is None:
        return f"Cassette {shown}: not used yet."
    if transport.mode == "replay":
        return f"Cassette {shown}: replayed {transport.played} of {len(transport.interactions)} recorded requests."
    return f"Cassette {shown}: recorded {transport.played} requests."


def cassette(session: KernelAgentSession, path: str | None) -> None:
    """``%agent cassette [PATH]``: choose the cassette, or say how far it has played."""
    from nb_agent.errors import NbAgentError

    if path is None:
        print(cassette_report(session))
        return
    try:
        print(use_cassette(session, path))
    except NbAgentError as exc:
        print(f"Cannot use the cassette: {exc}")
