"""The live comm's messages are described once: protocol.py's models, whose JSON schema is
committed beside the extension and turned into its TypeScript interfaces."""

from __future__ import annotations

import inspect
import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from nb_agent.jupyter.live import protocol
from nb_agent.jupyter.live.protocol import (
    DeleteOp,
    EditMessage,
    InsertOp,
    MoveOp,
    NewCell,
    ReplaceOp,
    RequestSnapshot,
    Reveal,
    RunMessage,
    SetOutputsOp,
)
from nb_agent.jupyter.live.protocol_schema import protocol_json_schema, protocol_json_schema_text

ROOT = Path(__file__).resolve().parents[3]
SCHEMA_FILE = ROOT / "labextension" / "protocol.schema.json"
GENERATED_TS = ROOT / "labextension" / "src" / "protocol.ts"


def test_the_committed_schema_is_the_schema_of_the_models():
    assert SCHEMA_FILE.read_text(encoding="utf-8") == protocol_json_schema_text(), (
        "labextension/protocol.schema.json is not the schema of nb_agent/jupyter/live/protocol.py: "
        "run `bash scripts/check_labextension.sh` and commit what it rewrote"
    )


def test_every_message_model_is_in_the_schema_and_the_typescript():
    defs = protocol_json_schema()["$defs"]
    models = [
        obj
        for _, obj in inspect.getmembers(protocol, inspect.isclass)
        if issubclass(obj, protocol._Message)
        and obj.__module__ == protocol.__name__
        and not obj.__name__.startswith("_")
    ]
    assert len(models) >= 15
    generated = GENERATED_TS.read_text(encoding="utf-8")
    for model in models:
        assert model.__name__ in defs, f"{model.__name__} is in neither Incoming nor Outgoing (nor part of a message)"
        assert f"export interface {model.__name__} " in generated, model.__name__


def _validator(name: str) -> jsonschema.Draft202012Validator:
    return jsonschema.Draft202012Validator({"$defs": protocol_json_schema()["$defs"], "$ref": f"#/$defs/{name}"})


KERNEL_SENDS = [
    RunMessage(phase="start", run_id="r1", cell_id="c1"),
    RunMessage(phase="end", run_id="r1"),
    RequestSnapshot(request_id="q1"),
    Reveal(cell_id="c1"),
    EditMessage(
        edit_id="e1",
        ops=[
            ReplaceOp(cell_id="a", source="x = 1"),
            InsertOp(after_cell_id=None, cell=NewCell(id="n", cell_type="markdown", source="# hi")),
            DeleteOp(cell_id="b"),
            MoveOp(cell_id="a", after_cell_id="n"),
            SetOutputsOp(cell_id="a", outputs=[]),
        ],
    ),
]


@pytest.mark.parametrize("message", KERNEL_SENDS, ids=lambda m: f"{m.type}")
def test_what_the_kernel_sends_has_every_field_the_typescript_side_requires(message: Any):
    sent = message.model_dump(mode="json")  # what LiveChannel.send puts on the comm
    _validator(type(message).__name__).validate(sent)
    # The interfaces promise every field is there: leaving one out breaks that promise.
    for key in sent:
        partial = {k: v for k, v in sent.items() if k != key}
        with pytest.raises(jsonschema.ValidationError):
            _validator(type(message).__name__).validate(partial)


def test_a_page_may_leave_out_what_a_cell_does_not_have():
    validator = _validator("Snapshot")
    snapshot = json.loads(
        '{"type": "snapshot", "seq": 1, "reason": "execute", "request_id": null, "notebook_path": "n.ipynb",'
        ' "executing_cell_id": "c", "active_cell_id": "c", "editing_cell_id": null, "dirty": false,'
        ' "nbformat": 4, "nbformat_minor": 5, "language": "python", "omitted_outputs": 0,'
        ' "cells": [{"id": "m", "cell_type": "markdown", "source": "# t"},'
        ' {"id": "c", "cell_type": "code", "source": "1", "execution_count": null, "outputs": [], "running": true}]}'
    )
    validator.validate(snapshot)
    assert protocol.Snapshot.model_validate(snapshot).cells[1].running
    del snapshot["cells"][0]["id"]
    with pytest.raises(jsonschema.ValidationError):
        validator.validate(snapshot)


def test_the_cards_the_kernel_writes_are_what_the_schema_says():
    from nb_agent.jupyter.live.edits_card import EDITS_MIME, records_bundle
    from nb_agent.jupyter.live.run import EditRecord
    from nb_agent.jupyter.rewind_card import REWIND_MIME, rewind_bundle

    rewind = rewind_bundle(checkpoint_id="3", prompt="clean the data", changes=["2 variables", "1 file"])[REWIND_MIME]
    _validator("RewindCard").validate(rewind)
    assert protocol.RewindCard.model_validate(rewind).model_dump() == rewind  # no field the model lacks
    record = EditRecord(edit_id="e", summary="replaced cell a", cell_id="a", ops=[], inverse=[DeleteOp(cell_id="a")])
    edits = records_bundle([record], run_id="r", notebook_path="n.ipynb")
    assert edits is not None
    _validator("EditsCard").validate(edits[EDITS_MIME])
