"""The messages of the live-notebook comm (``labextension/PROTOCOL.md`` describes them).

Browser → kernel: ``snapshot`` (the notebook as the user sees it, sent right before each
``%%agent`` execute request, on request, and on changes while a run is active) and
``ack`` (the outcome of applying an edit). Kernel → browser: ``edit`` (operations applied
in one transaction), ``run`` (a run started or ended), ``request_snapshot``, ``reveal`` and
``run_view`` (a running cell's view for a page that opened during the run).
Every message is a JSON object with a ``type``; unknown types and fields are ignored so
either side can be newer.

These models are the one description of the messages: the extension's TypeScript
interfaces (``labextension/src/protocol.ts``) are generated from their JSON schema
(:mod:`nb_agent.jupyter.live.protocol_schema`), and checks fail when the two disagree.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from nb_agent.jupyter.live.names import PROTOCOL_VERSION

CellType = Literal["code", "markdown", "raw"]
ErrorCode = Literal["changed", "editing", "running", "missing", "invalid", "no_notebook"]


class _Message(BaseModel):
    """A message as sent: its JSON schema lists every field as present (each side sends all
    of them; a field with a default is still sent)."""

    model_config = ConfigDict(
        extra="ignore",
        use_attribute_docstrings=True,
        json_schema_mode_override="serialization",
        json_schema_serialization_defaults_required=True,
    )


class _MayOmit(_Message):
    """A part whose fields with a default the page may leave out."""

    model_config = ConfigDict(json_schema_mode_override="validation")


class LiveCell(_MayOmit):
    """One cell as the page shows it (``source`` includes unsaved edits); a cell that is not
    code has no ``execution_count``, ``outputs`` or ``running``."""

    id: str
    cell_type: CellType = "code"
    source: str = ""
    execution_count: int | None = None
    outputs: list[dict[str, Any]] = Field(default_factory=list)
    metadata: dict[str, Any] = Field(default_factory=dict)
    running: bool = False
    """Queued or executing in the kernel right now."""


class Snapshot(_Message):
    """Browser → kernel: the notebook as the page shows it, unsaved edits included."""

    type: Literal["snapshot"] = "snapshot"
    seq: int = 0
    """Increases with every snapshot a page sends."""
    reason: Literal["execute", "request", "change", "open"] = "execute"
    request_id: str | None = None
    notebook_path: str = ""
    """The notebook's path relative to the server's root (``context.path``)."""
    executing_cell_id: str | None = None
    """The ``%%agent`` cell whose execute request follows this snapshot."""
    active_cell_id: str | None = None
    editing_cell_id: str | None = None
    """The cell whose editor has the keyboard focus (the user is typing there)."""
    dirty: bool = False
    nbformat: int = 4
    nbformat_minor: int = 5
    language: str = "python"
    cells: list[LiveCell] = Field(default_factory=list)
    omitted_outputs: int = 0
    """Outputs the page left out to keep the snapshot small."""


class AckError(_Message):
    """Why the page refused an edit."""

    code: ErrorCode
    message: str = ""
    cell_id: str | None = None


class Ack(_Message):
    """Browser → kernel: the outcome of an ``edit``."""

    type: Literal["ack"] = "ack"
    edit_id: str
    ok: bool
    error: AckError | None = None


class Hello(_Message):
    """The data of the comm_open a page sends."""

    type: Literal["hello"] = "hello"
    protocol: int = PROTOCOL_VERSION
    frontend: str = ""
    notebook_path: str = ""
    server_root: str | None = None
    """The Jupyter server's root folder, on the server's machine (``PageConfig``'s ``serverRoot``):
    with :attr:`notebook_path`, the notebook's server-side path."""
    widgets: int = 0
    """The version of the extension's widgets the page registered with its widget manager
    (``WIDGETS_VERSION``: a streamed answer sent as appends, a clock the page ticks); 0: none
    (no ipywidgets in that JupyterLab, or an older page). A run uses them only when every
    connected page has them; otherwise it shows the stock HTML widgets (pages of text)."""
    snapshot: Snapshot | None = None


# --- kernel → browser -------------------------------------------------------------------------


class NewCell(_Message):
    """A cell an ``insert`` puts in (the kernel chooses its id)."""

    id: str
    cell_type: CellType
    source: str
    metadata: dict[str, Any] = Field(default_factory=dict)
    outputs: list[dict[str, Any]] = Field(default_factory=list)
    execution_count: int | None = None


class ReplaceOp(_Message):
    op: Literal["replace"] = "replace"
    cell_id: str
    source: str
    cell_type: CellType | None = None
    expected_source: str | None = None
    """The source the agent last saw; the page refuses the edit when it differs."""


class InsertOp(_Message):
    op: Literal["insert"] = "insert"
    after_cell_id: str | None
    """``None``: at the top."""
    cell: NewCell


class DeleteOp(_Message):
    op: Literal["delete"] = "delete"
    cell_id: str
    expected_source: str | None = None


class MoveOp(_Message):
    op: Literal["move"] = "move"
    cell_id: str
    after_cell_id: str | None
    """``None``: at the top."""
    before_cell_id: str | None = None
    """When set, the cell goes right before this one (``after_cell_id`` is then where that
    was when the edit was made, for a page that does not know ``before_cell_id``)."""


class SetOutputsOp(_Message):
    op: Literal["set_outputs"] = "set_outputs"
    cell_id: str
    outputs: list[dict[str, Any]]
    execution_count: int | None = None


EditOp = ReplaceOp | InsertOp | DeleteOp | MoveOp | SetOutputsOp


class RunView(_Message):
    """A page that opened during a run: the running cell's live view (``live``), and later
    what the run left (``ended``), which replaces the view wherever the page shows it."""

    type: Literal["run_view"] = "run_view"
    phase: Literal["live", "ended"]
    cell_id: str
    model_id: str
    """The live view's root widget: the view is the cell output showing this model."""
    outputs: list[dict[str, Any]]
    """nbformat outputs: the view itself (``live``), or what replaces it (``ended``)."""


class EditMessage(_Message):
    """Kernel → browser: operations applied as one step of the notebook's undo, all or none."""

    type: Literal["edit"] = "edit"
    edit_id: str
    run_id: str | None = None
    ops: list[EditOp]
    guard_cell_ids: list[str] = Field(default_factory=list)
    """Cells the edit must not touch while they run (the ``%%agent`` cell)."""
    review: bool = False
    """Mark the cells it changes as pending review in the page (made without asking the user)."""
    redo_of: str | None = None
    """A redo (``%agent rewind --redo``) applies the edit of this id again: its card says so."""


class RefusedEdit(_Message):
    edit_id: str
    error: AckError


class Reverted(_Message):
    """Browser → kernel: agent edits were reverted, by the user from a run's card, or at
    the kernel's ``revert`` (then ``revert_id`` says which, and ``refused`` what was left)."""

    type: Literal["reverted"] = "reverted"
    run_id: str | None = None
    edit_ids: list[str]
    ops: list[EditOp]
    """The inverse operations the page applied, in order."""
    revert_id: str | None = None
    refused: list[RefusedEdit] = Field(default_factory=list)


class RewindRequest(_Message):
    """Browser → kernel: the run card's "Rewind this run": ``preview`` (what would change)
    or ``rewind`` (do it), for checkpoint ``checkpoint_id`` (whose run's prompt is ``prompt``)."""

    type: Literal["rewind_request"] = "rewind_request"
    request_id: str
    action: Literal["preview", "rewind"]
    checkpoint_id: str
    prompt: str = ""


class RevertEntry(_Message):
    edit_id: str
    summary: str = ""
    revert: list[EditOp]


class RevertMessage(_Message):
    """Kernel → browser: revert these edits (oldest first; applied newest first, as the
    run card's button does), one undo step; the page answers ``reverted`` with ``revert_id``."""

    type: Literal["revert"] = "revert"
    revert_id: str
    run_id: str | None = None
    edits: list[RevertEntry]


class RewindReply(_Message):
    """Kernel → browser: the answer to a :class:`RewindRequest`."""

    type: Literal["rewind_reply"] = "rewind_reply"
    request_id: str
    action: Literal["preview", "rewind"]
    lines: list[str] = Field(default_factory=list)
    error: str | None = None


class RunMessage(_Message):
    """Kernel → browser: a run started or ended (while one is active the page sends ``change``
    snapshots)."""

    type: Literal["run"] = "run"
    phase: Literal["start", "end"]
    run_id: str
    cell_id: str | None = None
    """The ``%%agent`` cell of the run (at its start)."""


class RequestSnapshot(_Message):
    """Kernel → browser: answer with a ``snapshot`` carrying the same ``request_id``."""

    type: Literal["request_snapshot"] = "request_snapshot"
    request_id: str


class Reveal(_Message):
    """Kernel → browser: select the cell and scroll to it."""

    type: Literal["reveal"] = "reveal"
    cell_id: str


class Welcome(_Message):
    """Kernel → browser: the first message on a page's comm, sent when the page's ``hello``
    arrives. Until it comes the page does not count on the comm: through a gateway a
    ``comm_open`` (or the kernel's ``comm_close`` of one opened before nb_agent loaded) can be
    lost on the way, and a page that took it for open sent its snapshots into nothing."""

    type: Literal["welcome"] = "welcome"
    protocol: int = PROTOCOL_VERSION


class Resumed(_Message):
    """Kernel → browser: a ``resume`` arrived, and what came after its ``last_seq`` was sent
    again before this. A page whose ``resume`` was lost on the way (it travels on the socket
    that just came back) sends it again until this comes."""

    type: Literal["resumed"] = "resumed"
    last_seq: int
    """The ``last_seq`` of the resume answered."""


class Resume(_Message):
    """Browser → kernel: send again what I lack. Sent when the page's kernel websocket came
    back after closing (a proxy's idle timeout, a network blip) and when a message's ``seq``
    skips one; what was in flight when a socket closed is lost, whatever the gateway buffers."""

    type: Literal["resume"] = "resume"
    last_seq: int = 0
    """The last kernel message the page handled (every one before it too)."""
    acks: list[Ack] = Field(default_factory=list)
    """The page's recent acknowledgements, again (one may have been lost the same way)."""
    snapshot: Snapshot | None = None
    """The page's state now, while a run is going on."""


# --- the cards: outputs of the ``%%agent`` cell the page renders, not comm messages ------------


class EditsCardEntry(_Message):
    """One agent edit on the run's card."""

    edit_id: str
    op: str
    """``insert``, ``replace``, ``delete``, ``move`` or ``code cells``."""
    summary: str
    cell_id: str | None
    preview: str
    status: str
    """``applied``, ``sent`` (not confirmed) or ``refused``; the page stores later states
    (``undone``, ``kept``) in the output."""
    error: str | None
    diff: str
    """The cell before and after, as a unified diff (empty when not known)."""
    review: bool = False
    """Made without asking the user: its cell is marked pending review in the page while open."""
    revert: list[EditOp]
    """The edit's inverse operations (none when it was refused)."""


class EditsCard(_Message):
    """The data of the run's card of notebook edits (MIME type
    ``application/vnd.nb-agent.edits+json``), as the kernel writes it."""

    version: int
    run_id: str
    notebook_path: str
    edits: list[EditsCardEntry]
    """In the order the agent made them; a revert applies them newest first."""


class CardCheck(_Message):
    """Browser → kernel: is the edits card of run ``run_id`` this kernel's? Asked by a page
    that renders a card from an output it does not trust (a collaborator's, which reaches it
    through the shared document, or an untrusted file's): the card gets its buttons only from
    the kernel's answer, so a card someone wrote into the document acts on nothing."""

    type: Literal["card_check"] = "card_check"
    request_id: str
    run_id: str


class CardFacts(_Message):
    """Kernel → browser: the answer to a :class:`CardCheck`: the run's card as this kernel
    made it (its edits and their inverse operations, which the page then uses instead of the
    output's), or ``None`` when this kernel made no such card for this notebook (another
    kernel's, one from before a restart, or a forged one)."""

    type: Literal["card_facts"] = "card_facts"
    request_id: str
    run_id: str
    card: EditsCard | None = None


class RewindCard(_Message):
    """The data of a run's card (MIME type ``application/vnd.nb-agent.rewind+json``), written
    by :func:`nb_agent.jupyter.rewind_card.rewind_bundle` (kept free of pydantic: it is built
    at every run's end; a test checks it matches)."""

    version: int
    checkpoint_id: str
    prompt: str
    """The run's prompt, as the checkpoint keeps it."""
    changes: list[str]
    """What the run changed, in a few words each."""


Incoming = Snapshot | Ack | Hello | Reverted | RewindRequest | Resume | CardCheck
"""Browser → kernel."""

Outgoing = EditMessage | RunMessage | RequestSnapshot | Reveal | RunView | RevertMessage | RewindReply | Welcome | Resumed | CardFacts
"""Kernel → browser."""


def parse_incoming(data: Any) -> Incoming | None:
    """A browser → kernel message, or ``None`` when it is not one we know."""
    if not isinstance(data, dict):
        return None
    kind = data.get("type")
    kinds = {
        "snapshot": Snapshot, "ack": Ack, "hello": Hello, "reverted": Reverted, "rewind_request": RewindRequest,
        "resume": Resume, "card_check": CardCheck,
    }
    model: type[Incoming] | None = kinds.get(kind)  # type: ignore[assignment,arg-type]
    if model is None:
        return None
    try:
        return model.model_validate(data)
    except ValueError:
        return None
