"""The JSON schema of the live-notebook protocol, from which the extension's TypeScript
interfaces are generated.

``python -m nb_agent.jupyter.live.protocol_schema`` prints it; it is committed as
``labextension/protocol.schema.json`` (a test checks it is this module's output), and
``scripts/check_labextension.sh`` turns it into ``labextension/src/protocol.ts`` with
json-schema-to-typescript (and fails when the committed file differs). So the messages are
described once, by the models of :mod:`nb_agent.jupyter.live.protocol`.
"""

from __future__ import annotations

import json
from typing import Any, get_args

from pydantic import BaseModel
from pydantic.json_schema import GenerateJsonSchema, models_json_schema

from nb_agent.jupyter.live.protocol import EditOp, EditsCard, Incoming, Outgoing, RewindCard

TITLE = "LiveProtocol"


class _NoFieldTitles(GenerateJsonSchema):
    # json-schema-to-typescript turns every titled schema into a named type: a title per
    # field would give the TypeScript side an alias per field name.
    def field_title_should_be_set(self, schema: Any) -> bool:
        return False


def _ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/$defs/{name}"}


def _union(members: tuple[type[BaseModel], ...], description: str) -> dict[str, Any]:
    return {"anyOf": [_ref(m.__name__) for m in members], "description": description}


def protocol_json_schema() -> dict[str, Any]:
    """Every message of both directions (the named unions ``FromPage`` and ``FromKernel``:
    JupyterLab already has a ``KernelMessage``), ``EditOp``, and the data of the two cards the
    page renders (outputs, not messages).

    The root is a catalogue with one field per part, not a message: json-schema-to-typescript
    declares the types the root reaches, and reaches into a union's members only from an
    object's fields."""
    page: tuple[type[BaseModel], ...] = get_args(Incoming)
    kernel: tuple[type[BaseModel], ...] = get_args(Outgoing)
    _, schema = models_json_schema(
        [(model, "serialization") for model in (*page, *kernel, EditsCard, RewindCard)],
        schema_generator=_NoFieldTitles,
    )
    defs = schema["$defs"]
    defs["FromPage"] = _union(page, "Browser → kernel.")
    defs["FromKernel"] = _union(kernel, "Kernel → browser.")
    defs["EditOp"] = _union(get_args(EditOp), "One operation of an edit.")
    parts = {
        "from_page": "FromPage",
        "from_kernel": "FromKernel",
        "edit_op": "EditOp",
        "edits_card": "EditsCard",
        "rewind_card": "RewindCard",
    }
    return {
        "title": TITLE,
        "description": "The parts of the nb_agent.live protocol (labextension/PROTOCOL.md), one field each.",
        "type": "object",
        "properties": {field: _ref(name) for field, name in parts.items()},
        "required": list(parts),
        "additionalProperties": False,
        "$defs": dict(sorted(defs.items())),
    }


def protocol_json_schema_text() -> str:
    """:func:`protocol_json_schema` as the committed file holds it."""
    return json.dumps(protocol_json_schema(), indent=2, ensure_ascii=False) + "\n"


if __name__ == "__main__":
    print(protocol_json_schema_text(), end="")
