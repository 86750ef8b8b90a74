"""Helpers to run an engine in a test and look at what came out."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(kw_only=True)
class Collected:
    """Every event one submission yielded, and its result."""

    events: list[Any] = field(default_factory=list)
    result: Any = None

    def of_type(self, kind: str) -> list[Any]:
        return [e for e in self.events if getattr(e, "type", None) == kind]

    @property
    def tool_results(self) -> list[dict[str, Any]]:
        return [b for m in self.of_type("user") if not isinstance(m.content, str) for b in m.content if b.get("type") == "tool_result"]


async def collect(engine: Any, prompt: Any, **kwargs: Any) -> Collected:
    """Run ``engine.submit_message(prompt)`` to the end."""
    out = Collected()
    async for event in engine.submit_message(prompt, **kwargs):
        if getattr(event, "type", None) == "result":
            out.result = event
        else:
            out.events.append(event)
    return out


def assert_tool_result_invariant(api_messages: list[dict[str, Any]]) -> None:
    """Every tool_use in a Messages API request is answered by exactly one tool_result
    in the next user turn (and no tool_result is orphaned or duplicated)."""
    for i, message in enumerate(api_messages):
        if message["role"] != "assistant":
            continue
        uses = [b["id"] for b in message["content"] if b.get("type") == "tool_use"]
        if not uses:
            continue
        assert i + 1 < len(api_messages), f"tool_use {uses} at the end of the request without results"
        following = api_messages[i + 1]
        assert following["role"] == "user"
        results = [b["tool_use_id"] for b in following["content"] if b.get("type") == "tool_result"]
        assert sorted(results) == sorted(uses), f"tool_use ids {uses} answered by {results}"


def assert_history_invariant(messages: list[Any]) -> None:
    """The same invariant over an engine's history (runtime message objects)."""
    uses: list[str] = []
    results: list[str] = []
    for m in messages:
        if m.type == "assistant":
            uses.extend(b["id"] for b in m.tool_uses)
        elif m.type == "user":
            results.extend(m.tool_result_ids)
    assert sorted(uses) == sorted(results), f"tool_uses {sorted(uses)} vs tool_results {sorted(results)}"
    assert len(set(results)) == len(results), "a tool_use was answered twice"


def tool_results_sent(requests: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Every tool_result block the model was sent (in the requests' ``messages``), by
    tool_use id, with its content as one string."""
    found: dict[str, dict[str, Any]] = {}
    for request in requests:
        for message in request["messages"]:
            for block in message["content"] if isinstance(message["content"], list) else []:
                if isinstance(block, dict) and block.get("type") == "tool_result" and block["tool_use_id"] not in found:
                    content = block["content"]
                    text = content if isinstance(content, str) else "".join(c.get("text", "") for c in content)
                    found[block["tool_use_id"]] = {**block, "text": text}
    return found
