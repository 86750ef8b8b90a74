"""Parsing the ``%%agent`` option line (the ``%agent`` subcommands: :mod:`nb_agent.jupyter.commands`).

Pure argparse and shlex, no IPython: a bad option raises
:class:`OptionsError` carrying the usage text, which the magic prints (never a traceback).
"""

from __future__ import annotations

import argparse
import difflib
import re
import shlex
from dataclasses import dataclass, field
from functools import cache
from typing import NoReturn

PERMISSION_MODES = ("default", "acceptEdits", "plan", "bypassPermissions")
"""The engine's permission modes (kept here so parsing needs no engine import)."""
ANSWER_WORDS = {"allow": "allow", "always": "always_allow", "always_allow": "always_allow", "deny": "deny"}
TRUST_WORDS = {"trust": True, "untrust": False}
"""``--answer trust`` / ``--answer untrust`` answer the folder-trust question, not a permission request."""
ANSWER_HELP = (
    "answer this cell's requests in order, without asking. Permission requests: allow, always (allow and add the "
    "suggested session rule), deny or deny:FEEDBACK. Questions (AskUserQuestion), one value per question: "
    "pick:LABEL (pick:A;B for several) or other:TEXT. Plans (ExitPlanMode): plan:default, plan:acceptEdits, "
    "plan:keep or plan:keep:FEEDBACK. Each kind is used in its own order (repeatable; requests beyond the list "
    "are refused). trust or untrust answers the question whether to trust this folder. "
    "For runs nobody can click in (nbclient, nbval); the final rendering shows each answer."
)
PLAN_WORDS = {"default": "default", "approve": "default", "acceptedits": "acceptEdits", "keep": "keep"}


class OptionsError(Exception):
    """The line could not be parsed; ``usage`` is what to show the user."""

    def __init__(self, message: str, *, usage: str) -> None:
        super().__init__(message)
        self.message = message
        self.usage = usage

    def render(self) -> str:
        """The error first (with a guess at what was meant), then the short usage."""
        return f"{self.message}\n\n{self.usage.rstrip()}" if self.message else self.usage.rstrip()


class _Parser(argparse.ArgumentParser):
    """An ArgumentParser that raises instead of exiting the kernel."""

    def error(self, message: str) -> NoReturn:
        hint = f"\n{self.prog.split()[0]} --help lists every option."
        raise OptionsError(f"error: {message}{self._did_you_mean(message)}", usage=self.format_usage().rstrip() + hint)

    def _did_you_mean(self, message: str) -> str:
        """``--permision-mode`` -> `` (did you mean --permission-mode?)``."""
        if "unrecognized arguments:" not in message:
            return ""
        known = [option for action in self._actions for option in action.option_strings]
        guesses = []
        for word in message.split("unrecognized arguments:", 1)[1].split():
            if word.startswith("-"):
                close = difflib.get_close_matches(word.split("=", 1)[0], known, n=1, cutoff=0.7)
                guesses += [f"{word.split('=', 1)[0]} → {close[0]}"] if close else []
        return f" (did you mean: {', '.join(guesses)}?)" if guesses else ""

    def exit(self, status: int = 0, message: str | None = None) -> NoReturn:  # --help
        raise OptionsError(message or "", usage=self.format_help())

    def print_help(self, file: object = None) -> None:  # argparse prints before exit(): let the caller show it
        pass


@dataclass(frozen=True, kw_only=True)
class PresetAnswer:
    """One ``--answer``. ``answer`` is ``allow``, ``always_allow`` or ``deny`` (a permission
    request, with optional ``feedback``), ``pick`` or ``other`` (a question: ``labels`` or
    the ``feedback`` text) or ``plan`` (``mode`` is ``default``, ``acceptEdits`` or ``keep``)."""

    answer: str
    feedback: str = ""
    labels: tuple[str, ...] = ()
    mode: str = ""

    @property
    def kind(self) -> str:
        """``permission``, ``question`` or ``plan``: which requests it answers."""
        return {"pick": "question", "other": "question", "plan": "plan"}.get(self.answer, "permission")

    def describe(self) -> str:
        if self.answer == "pick":
            return "pick: " + "; ".join(self.labels)
        if self.answer == "other":
            return f"other: {self.feedback}"
        if self.answer == "plan":
            return f"plan: {self.mode}" + (f": {self.feedback}" if self.feedback else "")
        if self.answer == "deny" and self.feedback:
            return f"deny: {self.feedback}"
        return {"always_allow": "always allow"}.get(self.answer, self.answer)


def parse_answer(text: str) -> PresetAnswer:
    """``allow`` | ``always`` | ``deny[:FEEDBACK]`` | ``pick:LABEL[;LABEL…]`` | ``other:TEXT`` |
    ``plan:default`` | ``plan:acceptEdits`` | ``plan:keep[:FEEDBACK]`` | ``trust`` | ``untrust``."""
    word, colon, rest = text.partition(":")
    word = word.strip().lower()
    if word in TRUST_WORDS and not colon:
        return PresetAnswer(answer=word)
    if word == "pick":
        labels = tuple(label.strip() for label in rest.split(";") if label.strip())
        if not labels:
            raise argparse.ArgumentTypeError(f"pick: names no option, in {text!r} (pick:LABEL or pick:A;B)")
        return PresetAnswer(answer="pick", labels=labels)
    if word == "other":
        if not rest.strip():
            raise argparse.ArgumentTypeError(f"other: gives no text, in {text!r}")
        return PresetAnswer(answer="other", feedback=rest.strip())
    if word == "plan":
        choice, _, feedback = rest.partition(":")
        mode = PLAN_WORDS.get(choice.strip().lower())
        if mode is None or (feedback and mode != "keep"):
            raise argparse.ArgumentTypeError(f"expected plan:default, plan:acceptEdits, plan:keep or plan:keep:FEEDBACK, got {text!r}")
        return PresetAnswer(answer="plan", mode=mode, feedback=feedback.strip())
    answer = ANSWER_WORDS.get(word)
    if answer is None or (colon and answer != "deny"):
        raise argparse.ArgumentTypeError(
            f"expected allow, always, deny, deny:FEEDBACK, pick:LABEL, other:TEXT, plan:MODE, trust or untrust, got {text!r}"
        )
    return PresetAnswer(answer=answer, feedback=rest.strip())


@dataclass(frozen=True, kw_only=True)
class CellOptions:
    """The options of one ``%%agent`` cell."""

    model: str | None = None
    permission_mode: str | None = None
    allow: list[str] = field(default_factory=list)
    deny: list[str] = field(default_factory=list)
    max_turns: int | None = None
    new: bool = False
    answers: tuple[PresetAnswer, ...] | None = None
    """``--answer`` values in order; ``None`` when the cell gave none (then approvals are asked)."""
    trust: bool | None = None
    """``--answer trust`` / ``--answer untrust``: the answer to the folder-trust question, if asked."""
    sandbox: bool | None = None
    """``--sandbox on|off``: sandbox every Bash command in this cell, or only read-only ones."""
    fallback_model: str | None = None
    max_budget: float | None = None
    """``--max-budget USD``: stop this cell's run once it has cost more."""
    invocation: str | None = None
    """``/name args`` after the options: a skill or custom command the user invokes."""


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def _positive_usd(text: str) -> float:
    try:
        value = float(text.lstrip("$"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an amount in USD, got {text!r}") from None
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"must be a positive amount, got {text!r}")
    return value


@cache
def cell_parser() -> argparse.ArgumentParser:
    """Built once (parsing leaves it as it was): built per cell, with its help text, it left
    some 400 objects in reference cycles that only the rare full collection frees, and a
    long session's garbage raised the heap's peak (issue 24, ``bench/kernel_memory.py``)."""
    parser = _Parser(
        prog="%%agent",
        description="Ask the agent: the cell body is the prompt. Consecutive cells continue one conversation.",
        add_help=True,
    )
    parser.add_argument("--model", metavar="NAME", help="model for this cell (default: AgentMagics.model)")
    parser.add_argument(
        "--permission-mode", choices=PERMISSION_MODES, metavar="MODE",
        help="permission mode for this cell: " + ", ".join(PERMISSION_MODES),
    )  # fmt: skip
    parser.add_argument(
        "--allow", action="append", default=[], metavar="RULE",
        help='add a session allow rule, e.g. --allow "Bash(git status:*)" (repeatable)',
    )  # fmt: skip
    parser.add_argument(
        "--deny", action="append", default=[], metavar="RULE", help="add a session deny rule (repeatable)"
    )
    parser.add_argument(
        "--fallback-model", metavar="NAME",
        help="model to switch to when the model is overloaded (default: AgentMagics.fallback_model)",
    )  # fmt: skip
    parser.add_argument("--max-turns", type=_positive_int, metavar="N", help="stop after N model turns")
    parser.add_argument(
        "--max-budget", type=_positive_usd, metavar="USD", help="stop this cell's run once it has cost more than USD"
    )
    parser.add_argument("--new", action="store_true", help="start a new conversation first")
    parser.add_argument("--answer", action="append", type=parse_answer, metavar="ANSWER", help=ANSWER_HELP)
    parser.add_argument(
        "--sandbox", choices=("on", "off"), metavar="on|off",
        help="on: run every Bash command of this cell in the OS sandbox; off: only those the read-only "
        "classifier allows (those always are). Default: the settings' sandbox.enabled",
    )  # fmt: skip
    return parser


@cache
def cell_usage() -> str:
    return cell_parser().format_help()


def split_line(line: str, *, usage: str) -> list[str]:
    try:
        return shlex.split(line)
    except ValueError as exc:  # unbalanced quotes
        raise OptionsError(f"error: {exc}", usage=usage) from None


_INVOCATION_START = re.compile(r"(?:^|(?<=\s))/[A-Za-z0-9][\w.:-]*(?=\s|$)")


def split_invocation(line: str) -> tuple[str, str | None]:
    """``%%agent --model x /name args`` → ``("--model x", "/name args")``: the first ``/name``
    that is not inside quotes nor an option's value starts the invocation (None: none)."""
    values = {o for a in cell_parser()._actions if a.nargs != 0 for o in a.option_strings}  # argparse lists no actions publicly
    for match in _INVOCATION_START.finditer(line):
        before = line[: match.start()]
        try:
            tokens = shlex.split(before)
        except ValueError:  # inside a quoted option value
            continue
        if tokens and tokens[-1] in values:
            continue
        return before.rstrip(), line[match.start() :].strip()
    return line, None


def parse_cell_options(line: str) -> CellOptions:
    """Parse the text after ``%%agent`` on the cell's first line."""
    ns = cell_parser().parse_args(split_line(line, usage=cell_usage()))
    return CellOptions(
        model=ns.model,
        permission_mode=ns.permission_mode,
        allow=list(ns.allow),
        deny=list(ns.deny),
        max_turns=ns.max_turns,
        new=ns.new,
        answers=_request_answers(ns.answer),
        trust=_trust_answer(ns.answer),
        sandbox=None if ns.sandbox is None else ns.sandbox == "on",
        fallback_model=ns.fallback_model,
        max_budget=ns.max_budget,
    )


def _request_answers(given: list[PresetAnswer] | None) -> tuple[PresetAnswer, ...] | None:
    """The answers for requests (permissions, questions, plans); ``None`` when there are
    none (a trust answer alone leaves requests to be asked as usual)."""
    return tuple(a for a in given or [] if a.answer not in TRUST_WORDS) or None


def _trust_answer(given: list[PresetAnswer] | None) -> bool | None:
    """The last ``--answer trust`` / ``untrust`` (``None``: the cell gave none)."""
    words = [a.answer for a in given or [] if a.answer in TRUST_WORDS]
    return TRUST_WORDS[words[-1]] if words else None
