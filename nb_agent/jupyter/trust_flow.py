"""The folder-trust flow of the kernel: asking before a run whether to trust a folder
nobody answered for (the card, or ``--answer trust``), saying once when a folder runs
untrusted, recording ``%agent trust`` / ``untrust``, and rebuilding the engine when the
answer changes what it may use (the conversation goes on)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from nb_agent.jupyter.shutdown import close_soon, retire

if TYPE_CHECKING:
    from nb_agent.engine import QueryEngine
    from nb_agent.jupyter.session import KernelAgentSession


def untrusted_notice(trust: Any) -> str:
    """Said when a run in a folder nobody answered for cannot ask (no buttons here)."""
    return (
        f"Not using {'; '.join(trust.reasons)} of {trust.folder}: this folder is not trusted, and no one can "
        "answer here. If you trust its files, run %agent trust (or give this cell --answer trust) and run it again."
    )


class FolderTrustFlow:
    """One per kernel session; it replaces ``session.engine`` when an answer requires it."""

    def __init__(self, session: KernelAgentSession) -> None:
        self.session = session
        self.told_untrusted: set[Path] = set()
        """Untrusted folders a run already said it works without (said once per kernel)."""

    def project_folder(self) -> Path:
        """The folder whose files the agent uses: its engine's, else the kernel's cwd."""
        engine = self.session.engine
        return engine.config.cwd if engine is not None else Path.cwd()

    def current(self) -> Any:
        """The project folder's trust, as recorded now (:func:`nb_agent.folder_trust.folder_trust`)."""
        from nb_agent.folder_trust import folder_trust

        return folder_trust(self.project_folder())

    def record(self, trusted: bool, folder: Path | None = None) -> Any:
        """Record the answer for ``folder`` (default: the project folder) and, when the
        engine's folder is under it, rebuild the engine to match. Returns the new trust."""
        from nb_agent.trust import set_trust

        set_trust(folder or self.project_folder(), trusted)
        trust = self.current()
        if self.session.engine is not None:
            self.match(trust)
        return trust

    def match(self, trust: Any) -> QueryEngine:
        """The engine, built (again) for ``trust`` when the one there was built otherwise."""
        session = self.session
        old = session.engine
        if old is None:
            session.engine = session.factory.create(trust)
            return session.engine
        built = old.config.folder_trust
        if built is not None and built.applies == trust.applies:
            old.config.folder_trust = trust
            return old
        fresh = session.factory.create(trust)
        policy: Any = old.permission_policy
        session_rules = policy.rules_by_source().get("session", []) if hasattr(policy, "rules_by_source") else []
        for rule in session_rules:
            fresh.permission_policy.add_session_rule(rule.behavior, rule.text)
        engine = fresh
        if old.messages:  # the conversation goes on, with the parts the new answer allows
            engine, _ = session.factory.carry_on(old.transcript_path, fresh)
            fresh.close()
        retire(old, "The folder's trust changed")
        if old.tool_pool is not None and old.tool_pool is not engine.tool_pool:
            close_soon(old.tool_pool.aclose())  # the old answer's MCP servers stop
        session.engine = engine
        return engine

    def frontend_can_click(self) -> bool:
        """Whether someone can click the card: JupyterLab, Notebook 7 and VS Code send the
        cell's id with the execute request; nbclient, nbval and papermill send none, and a
        question there would wait for the cell timeout."""
        from nb_agent.jupyter.live.notebook import executing_cell_id

        return executing_cell_id(self.session.shell) is not None

    async def settle(self, options: Any, state: Any, view: Any) -> Any:
        """Before a run: the folder's trust, asked for when it has never been answered
        (the card on ``view``, or ``--answer trust``); said once when the folder runs untrusted."""
        from nb_agent.jupyter.view.trust_card import answered_text

        trust = self.current()
        if trust.state == "unanswered":
            answer, by = options.trust, "answered by --answer"
            if answer is None and hasattr(view, "show_trust_question") and self.frontend_can_click():
                from nb_agent.jupyter.view.trust_card import ask_trust

                answer, by = await ask_trust(view, trust), ""
            if answer is not None:
                from nb_agent.trust import set_trust

                set_trust(trust.folder, answer)
                if by:
                    state.notice("info", answered_text(trust, answer, by=by), subtype="folder_trust")
                trust = self.current()
            elif trust.folder not in self.told_untrusted:
                self.told_untrusted.add(trust.folder)
                state.notice("warning", untrusted_notice(trust), subtype="folder_trust")
        elif trust.state == "declined" and trust.folder not in self.told_untrusted:
            self.told_untrusted.add(trust.folder)
            state.notice("info", answered_text(trust, False, by="you answered Don't trust"), subtype="folder_trust")
        return trust
