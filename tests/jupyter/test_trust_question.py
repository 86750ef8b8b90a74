"""The folder-trust question reads as a short card: a heading line, what the folder holds
(one line each) and what each answer does, with its line breaks kept on the live view (it
was one long warning sentence)."""

from __future__ import annotations

from pathlib import Path

from nb_agent.folder_trust import FolderTrust
from nb_agent.jupyter.view.tool_card import notice_html
from nb_agent.jupyter.view.trust_card import DONT_TRUST_LABEL, TRUST_LABEL, question_text

REASONS = (".claude/settings.json (hooks, permissions)", "CLAUDE.md", ".mcp.json (2 servers)")


def test_the_question_is_a_heading_a_list_and_the_answers():
    trust = FolderTrust(folder=Path("/work/project"), state="unanswered", reasons=REASONS)
    lines = question_text(trust).splitlines()
    assert lines[0] == "Do you trust the files in /work/project?"
    listed = [line.strip().removeprefix("• ") for line in lines if line.strip().startswith("•")]
    assert listed == list(REASONS)
    answers = [line for line in lines if line.startswith((f"{TRUST_LABEL}:", f"{DONT_TRUST_LABEL}:"))]
    assert len(answers) == 2 and "no git runs" in answers[1]
    assert max(len(line) for line in lines) < 110, "no line is the old one long sentence"


def test_a_notice_keeps_its_line_breaks_on_the_live_view():
    html = str(notice_html("warning", "first line\n  • second"))
    assert "white-space:pre-line" in html.replace(" ", "") and "first line\n  • second" in html
