"""Streaming Markdown with a cached stable prefix, and the static rendering of a run."""

from __future__ import annotations

import random
import re

from nb_agent.jupyter.errors import AgentInterrupted, AgentRunFailed
from nb_agent.jupyter.html import markdown as render_markdown
from nb_agent.jupyter.kernel_restart import RESTART_NOTICE
from nb_agent.jupyter.static_render import static_bundle
from nb_agent.jupyter.view.markdown_stream import MarkdownStream
from nb_agent.jupyter.view.run_state import Approval, Notice, RunState, TextBlock, ToolCall
from nb_agent.jupyter.view.tool_card import card_html, extract_diff
from nb_agent.testing.images import decoded_size, png_base64

DOC = (
    "# Title\n\nSome *emphasis* and a [link](https://example.com).\n\n"
    "```python\nx = 1\n\n\ny = 2\n```\n\nAfter the fence.\n\n- one\n- two\n\n"
    "| a | b |\n|---|---|\n| 1 | 2 |\n\nRaw <script>alert(1)</script> stays text.\n"
)


def _stream(text, chunk):
    stream = MarkdownStream()
    html = ""
    for i in range(0, len(text), chunk):
        stream.append(text[i : i + chunk])
        html = stream.html()
    return stream, html


def test_streamed_rendering_equals_the_whole_rendering():
    for chunk in (1, 2, 7, 64):
        _, html = _stream(DOC, chunk)
        assert html == render_markdown(DOC), chunk


def test_raw_html_is_escaped_and_links_are_safe():
    html = render_markdown("<img src=x onerror=alert(1)> [x](javascript:alert(1))")
    assert "<img" not in html and "href=\"javascript" not in html


def test_completed_blocks_are_cached_not_rerendered():
    paragraphs = "".join(f"Paragraph number {i} with some words in it.\n\n" for i in range(400))
    calls = []

    def counting(text):
        calls.append(len(text))
        return render_markdown(text)

    stream = MarkdownStream(render=counting)
    for i in range(0, len(paragraphs), 40):
        stream.append(paragraphs[i : i + 40])
        stream.html()
    # every render after the first few is of a short tail or one new chunk, never the whole text
    assert max(calls) < 500
    assert sum(calls) < 6 * len(paragraphs)
    assert stream.cached_chars > len(paragraphs) - 100


def test_an_open_fence_is_never_cut():
    text = "Intro.\n\n```\ncode line\n\nmore code\n"
    stream, html = _stream(text, 3)
    assert "<pre><code>code line\n\nmore code\n</code></pre>" in html
    assert stream.cached_chars == len("Intro.\n\n")


def test_finish_replaces_the_streamed_text_with_the_exact_text():
    stream = MarkdownStream()
    stream.append("Partial answ")
    stream.finish("Partial answer, exactly.")
    assert stream.text == "Partial answer, exactly."
    assert stream.html() == render_markdown("Partial answer, exactly.")
    stream.append("ignored")
    assert stream.text == "Partial answer, exactly."


def test_random_documents_stream_like_the_whole():
    rng = random.Random(7)
    pieces = ["# H\n", "text ", "*em* ", "\n\n", "```py\n", "```\n", "- item\n", "    indented\n", "> quote\n", "\n"]
    for _ in range(50):
        text = "".join(rng.choice(pieces) for _ in range(60))
        _, html = _stream(text, rng.randint(1, 9))
        if "```" not in text:  # chunked fences may legitimately differ on unclosed blocks
            assert html == render_markdown(text)


def _state() -> RunState:
    state = RunState()
    first = TextBlock(kind="text")
    first.stream.finish("Here is the **plan**.")
    thought = TextBlock(kind="thinking")
    thought.stream.finish("secret reasoning")
    card = ToolCall(tool_use_id="t1", name="Bash", input={"command": "ls -la"}, input_complete=True, status="done", result_text="file.txt")
    denied = ToolCall(
        tool_use_id="t2", name="Bash", input={"command": "rm -rf /"}, input_complete=True, status="denied",
        approval=Approval(message="?", suggested_rule="Bash(rm:*)", answer="deny", feedback="never"),
    )  # fmt: skip
    plot = ToolCall(tool_use_id="t3", name="ExecuteCode", input={"code": "plot()"}, input_complete=True, status="done", result_images=[("image/png", png_base64(5, 4))])
    last = TextBlock(kind="text")
    last.stream.finish("Done: `file.txt`.")
    for item in (thought, first, card, denied, plot, Notice(level="warning", text="careful"), last):
        state._add(item)
    state.started_at, state.ended_at = 0.0, 12.3
    return state


def test_static_bundle_has_answer_and_tool_list_without_volatile_data():
    bundle = static_bundle(_state())
    markdown = bundle["text/markdown"]
    assert "Here is the **plan**." in markdown and "Done: `file.txt`." in markdown
    assert "**Bash** `ls -la` — done" in markdown
    assert "denied (denied by you: never)" in markdown
    assert "secret reasoning" not in markdown
    assert "12.3" not in markdown and "$" not in markdown  # no timings or costs: stable re-execution
    html = bundle["text/html"]
    assert "<strong>plan</strong>" in html
    sources = re.findall(r'<img[^>]* src="([^"]+)"', html)
    assert len(sources) == 1 and decoded_size(sources[0]) == (5, 4)  # the image, decoded and encoded again
    assert "careful" in html and "file.txt" in bundle["text/plain"]
    assert static_bundle(_state()) == bundle  # deterministic


def test_hook_timings_stay_in_the_live_view_and_out_of_the_saved_rendering():
    # how long hooks took depends on the machine's load: a saved notebook re-executed
    # elsewhere (nbval) must not differ by it, while the live view still says it
    plain = static_bundle(_state())
    state = _state()
    state._add(Notice(level="info", text="PreToolUse hooks for Bash took 0.7s", subtype="hook_timing"))
    state._add(Notice(level="warning", text="a hook said: careful with rm", subtype="hook"))
    assert any(isinstance(i, Notice) and "took 0.7s" in i.text for i in state.items)
    bundle = static_bundle(state)
    for mime in ("text/html", "text/markdown", "text/plain"):
        assert "took 0.7s" not in bundle[mime], mime
        assert "careful with rm" in bundle[mime] and "careful with rm" not in plain[mime], mime


def test_interrupted_run_says_so():
    state = _state()
    state.finish(interrupted=True)
    assert "Interrupted by user" in static_bundle(state)["text/markdown"]


def test_the_cells_own_end_after_a_kernel_restart_keeps_the_restart_notice():
    # the kernel's shutdown ends the run first (stop_for_shutdown); under load the cell's own
    # end (Stop said by its error line) came before the process went and its update replaced
    # the restart notice in the cell's last output
    state = _state()
    state.finish(interrupted=True, stop_reason=RESTART_NOTICE)
    state.finish(interrupted=True, said_by_cell=AgentInterrupted.NOTICE)
    for mime, shown in static_bundle(state).items():
        assert "plan" in shown and "Stopped by a kernel restart" in shown, (mime, shown)


def test_card_html_escapes_and_shows_diff():
    card = ToolCall(tool_use_id="t", name="Edit", input={"file_path": "/x/<a>.py"}, input_complete=True, status="done",
                    structured={"diff": "--- a\n+++ b\n@@ -1 +1 @@\n-old\n+new <b>"})  # fmt: skip
    html = card_html(card, now=0.0)
    assert "&lt;a&gt;" in html and "new &lt;b&gt;" in html and '<details class="nb-agent-change" open><summary>diff of /x/&lt;a&gt;.py (+1 −1, 5 lines)</summary>' in html
    assert extract_diff({"structured_patch": [{"oldStart": 1, "oldLines": 1, "newStart": 1, "newLines": 1, "lines": ["-a", "+b"]}]}) == "@@ -1,1 +1,1 @@\n-a\n+b"


def test_a_stop_or_failure_the_cell_says_is_not_said_again():
    # the cell's error line (AgentInterrupted, AgentRunFailed) says how the run ended: the
    # static rendering above it said the same a second time
    stopped = _state()
    stopped.finish(interrupted=True, said_by_cell=AgentInterrupted.NOTICE)
    failed = _state()
    failed._add(Notice(level="error", text="Error code: 401 - invalid x-api-key", subtype="api_error"))
    failed.finish(said_by_cell=AgentRunFailed("Error code: 401 - invalid x-api-key").line)
    restarted = _state()
    restarted.finish(stop_reason="Stopped by a kernel restart.")  # no error line then: the rendering says it
    for mime in ("text/html", "text/markdown", "text/plain"):
        assert "Interrupted by user" not in static_bundle(stopped)[mime], mime
        assert "401" not in static_bundle(failed)[mime], mime
        assert "Stopped by a kernel restart." in static_bundle(restarted)[mime], mime
        assert static_bundle(stopped)[mime] == static_bundle(_state())[mime], mime  # the answer itself stays


def test_saved_lines_say_the_models_description_of_a_call():
    # they showed the first line of the code ("import pandas as pd …"), not what the call was for
    state = RunState()
    code = ToolCall(tool_use_id="c", name="ExecuteCode", input={"code": "import pandas as pd\ndf.groupby('m').sum()", "description": "Revenue by month"},
                    input_complete=True, status="done", result_text="...")  # fmt: skip
    command = ToolCall(tool_use_id="b", name="Bash", input={"command": "python3 check.py", "description": "Run the project's checks"},
                       input_complete=True, status="done", result_text="ok")  # fmt: skip
    plain = ToolCall(tool_use_id="p", name="Bash", input={"command": "ls"}, input_complete=True, status="done", result_text="a")
    for item in (code, command, plain):
        state._add(item)
    bundle = static_bundle(state)
    assert "✓ **ExecuteCode** Revenue by month — done" in bundle["text/markdown"]
    assert "✓ **Bash** Run the project's checks (`python3 check.py`) — done" in bundle["text/markdown"]
    assert "✓ **Bash** `ls` — done" in bundle["text/markdown"]
    assert "✓ ExecuteCode: Revenue by month — done" in bundle["text/plain"]
    assert "✓ Bash: Run the project's checks (python3 check.py) — done" in bundle["text/plain"]
    assert "✓ ExecuteCode Revenue by month — done" in bundle["text/html"]
    for mime in ("text/html", "text/markdown", "text/plain"):
        assert "import pandas" not in bundle[mime], mime


def test_a_long_result_names_the_command_that_shows_it_whole():
    state = RunState()
    state._add(ToolCall(tool_use_id="toolu_abc", name="Bash", input={"command": "seq 1 3000"}, input_complete=True, status="done", result_text="x" * 5_000))
    html = static_bundle(state)["text/html"]
    assert "x" * 2_000 + "\n… (3,000 more characters: %agent result toolu_abc shows them all)</pre>" in html
