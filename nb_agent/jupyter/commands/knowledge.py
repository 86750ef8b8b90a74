"""``%agent memory``, ``%agent remember`` and ``%agent skills``: the project knowledge the
agent reads (:mod:`nb_agent.memory`, :mod:`nb_agent.skills`), seen and added from the notebook."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from nb_agent.jupyter.session import KernelAgentSession
    from nb_agent.memory.files import MemoryFile
    from nb_agent.skills.loader import SkillCatalog

REMEMBER_USAGE = (
    "usage: %agent remember --project|--local|--user TEXT\n"
    "  --project  the folder's CLAUDE.md (shared with whoever gets the folder)\n"
    "  --local    the folder's CLAUDE.local.md (yours, not checked in)\n"
    "  --user     your ~/.claude/CLAUDE.md (every project)"
)


def _describe(file: MemoryFile) -> str:
    extras = [f"{len(file.text):,} chars"]
    if file.truncated:
        extras.append("cut at the limit")
    if file.imported_by is not None:
        extras.append(f"imported by {file.imported_by.name}")
    return f"{file.owner:<8} {file.path}  ({', '.join(extras)})"


def memory(session: KernelAgentSession, _arg: str | None = None) -> None:
    """What the agent reads: each memory file and where it came from, the rules waiting for
    a matching file, and what was not read, with why."""
    engine = session.ensure_engine()
    load = engine.session_context.memory
    lines = [f"memory of {engine.config.cwd} · folder trust: {session.folder_trust().state.replace('_', ' ')}"]
    lines += [f"read     {_describe(f)}" for f in load.files] or ["read     (no memory files: %agent remember adds one)"]
    for rule in load.conditional:
        lines.append(f"waiting  {rule.path}  (read when the agent reads {', '.join(rule.rule_paths)})")
    for skipped in load.skipped:
        by = f" (imported by {skipped.imported_by})" if skipped.imported_by else ""
        lines.append(f"skipped  {skipped.path}{by}: {skipped.reason}")
    print("\n".join(lines))


def remember(session: KernelAgentSession, arg: str | None) -> None:
    """``%agent remember --project|--local|--user TEXT``: one line into that file; the next
    cell's requests carry it."""
    from nb_agent.errors import ConfigurationError
    from nb_agent.memory.remember import MEMORY_TARGETS
    from nb_agent.memory.remember import remember as add_memory
    from nb_agent.permissions.paths import home_directory

    where, _, text = (arg or "").partition(" ")
    target = where.removeprefix("--")
    if not where.startswith("--") or target not in MEMORY_TARGETS or not text.strip():
        print(REMEMBER_USAGE)
        return
    engine = session.ensure_engine()
    try:
        path = add_memory(text, target, cwd=engine.config.cwd, home=home_directory())
    except (ConfigurationError, OSError) as exc:
        print(f"Not remembered: {exc}")
        return
    engine.session_context.clear()  # read again at the next request
    print(f"Remembered in {path}. The agent reads it from the next %%agent cell.")


def skills(session: KernelAgentSession, _arg: str | None = None) -> None:
    """The skills and custom commands: who may invoke each, and what was skipped."""
    engine = session.ensure_engine()
    catalog = engine.skills
    if catalog is None:
        print("Skills and commands are not read in this session.")
        return
    lines = []
    for item in catalog.definitions:
        who = [w for w, ok in (("you: /" + item.name, item.user_invocable), ("the model", item.model_invocable)) if ok]
        label = f"/{item.name} {item.argument_hint or ''}".rstrip()
        lines.append(f"{label:<28} {item.description}")
        extras = [f"{item.kind}, {item.source}: {item.path}", "invoked by " + " and ".join(who)]
        if item.allowed_tools is not None:
            extras.append("allowed-tools " + (", ".join(item.allowed_tools) or "(none)"))
        if item.model:
            extras.append(f"model {item.model}")
        lines.append(f"{'':<4}({'; '.join(extras)})")
    if not lines:
        lines.append("(none: add ~/.claude/skills/NAME/SKILL.md or .claude/commands/NAME.md)")
    lines += [f"skipped  {issue}" for issue in catalog.issues]
    print("\n".join(lines))


def _catalog(session: KernelAgentSession) -> SkillCatalog | None:
    """The engine's catalog, or (before the first cell) the one it would load."""
    from nb_agent.permissions.paths import home_directory
    from nb_agent.skills.loader import load_skill_catalog

    if session.engine is not None:
        return session.engine.skills
    return load_skill_catalog(cwd=session.project_folder(), home=home_directory(), include_project=session.folder_trust().applies)


def commands_help(session: KernelAgentSession) -> list[str]:
    """The lines ``%agent help`` adds: the skills and commands the user can run."""
    catalog = _catalog(session)
    runnable = catalog.user_invocable if catalog is not None else []
    if not runnable:
        return []
    labels = [f"/{d.name} {d.argument_hint or ''}".rstrip() for d in runnable]
    width = max(len(label) for label in labels) + 2
    lines = ["", "commands (%%agent /NAME ARGS):"]
    lines += [f"  {label.ljust(width)}{d.description}" for label, d in zip(labels, runnable)]
    return lines
