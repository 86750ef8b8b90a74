"""TodoWrite (Claude Code's schema): the agent's checklist for the current task.

The list lives in the session (``ToolSession.resources.todos``), so it is kept across the
conversation's submissions (a notebook's ``%%agent`` cells) and shown by the views; a
resumed conversation gets back its last list from the transcript (the call's structured
result). A
subagent keeps its own list (under its id), as in Claude Code: it never replaces the main
conversation's.
Writing it touches no file and nothing outside the session, so it needs no permission
and is allowed in plan mode.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from nb_agent.tools.base import ProgressCallback, Tool, ToolResult, ToolSession, ToolUseContext

TodoStatus = Literal["pending", "in_progress", "completed"]

RESULT_TEXT = (
    "Todos have been modified successfully. Ensure that you continue to use the todo list to track your "
    "progress. Please proceed with the current tasks if applicable"
)

PROMPT = """\
Use this tool to create and manage a structured task list for your current session. This helps you track progress, organize complex tasks, and demonstrate thoroughness to the user.

## When to use it
- A task needs three or more distinct steps, or the user gave several tasks at once.
- Right after new instructions arrive: capture them as todos.
- Mark a task in_progress BEFORE starting it (exactly one task in_progress at a time) and completed IMMEDIATELY after finishing it. Do not batch completions.

## When not to use it
- A single, trivial or purely conversational request.

## Fields
- content: the task in the imperative form ("Run the tests")
- activeForm: the present continuous form shown while it runs ("Running the tests")
- status: pending, in_progress or completed

Each call replaces the whole list. Only mark a task completed when it is fully done."""


class TodoItem(BaseModel):
    model_config = ConfigDict(extra="forbid")

    content: str = Field(min_length=1)
    status: TodoStatus
    activeForm: str = Field(min_length=1)  # Claude Code's field name


class TodoWriteInput(BaseModel):
    model_config = ConfigDict(extra="forbid")

    todos: list[TodoItem] = Field(description="The updated todo list")


def current_todos(session: ToolSession, agent_id: str | None = None) -> list[TodoItem]:
    """The main conversation's list, or ``agent_id``'s (empty before the first TodoWrite)."""
    return list(session.resources.todos.get(agent_id, []))


def todos_text(todos: list[TodoItem]) -> str:
    """The list as plain text, one line per item: ``[x]`` done, ``[>]`` current, ``[ ]`` pending."""
    if not todos:
        return "The todo list is empty."
    marks = {"completed": "[x]", "in_progress": "[>]", "pending": "[ ]"}
    lines = []
    for todo in todos:
        label = todo.activeForm if todo.status == "in_progress" else todo.content
        lines.append(f"{marks[todo.status]} {label}")
    return "\n".join(lines)


def _kept(todos: list[TodoItem]) -> list[TodoItem]:
    """A list whose every item is done is finished: it is cleared, as in Claude Code."""
    return [] if todos and all(t.status == "completed" for t in todos) else list(todos)


class TodoWriteTool(Tool[TodoWriteInput]):
    name = "TodoWrite"
    input_model = TodoWriteInput

    def prompt(self) -> str:
        return PROMPT

    def is_read_only(self, input: TodoWriteInput) -> bool:
        return True  # only the session's own list changes: no file, no outside state

    async def call(self, input: TodoWriteInput, ctx: ToolUseContext, on_progress: ProgressCallback) -> ToolResult:
        agent_id = ctx.services.agent_id
        old = current_todos(ctx.session, agent_id)
        ctx.session.resources.todos[agent_id] = _kept(input.todos)
        data = {
            "oldTodos": [t.model_dump() for t in old],
            "newTodos": [t.model_dump() for t in input.todos],
        }
        return ToolResult(data=data)

    def restore_session(self, messages: Sequence[Any], session: ToolSession) -> None:
        """The list of the conversation's last successful TodoWrite (its ``newTodos``)."""
        for message in reversed(messages):
            data = getattr(message, "tool_use_result", None) if getattr(message, "type", None) == "user" else None
            if isinstance(data, dict) and isinstance(data.get("newTodos"), list):
                try:
                    todos = [TodoItem.model_validate(t) for t in data["newTodos"]]
                except ValueError:
                    continue  # not this tool's result after all
                session.resources.todos[None] = _kept(todos)
                return
        session.resources.todos.pop(None, None)  # a conversation cut back before its first list has none

    def map_result_to_block(self, data: Any, tool_use_id: str) -> str:
        if isinstance(data, str):  # an error the pipeline already worded
            return data
        return RESULT_TEXT
