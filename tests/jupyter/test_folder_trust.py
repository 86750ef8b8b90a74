"""Folder trust in a real kernel: the Trust / Don't trust card clicked through the widget
comm protocol, the headless ways (``%agent trust``, ``--answer trust``), what ``%agent
status`` / ``hooks`` / ``mcp`` say, and a change of answer in the middle of a conversation."""

from __future__ import annotations

import json
from pathlib import Path

from nb_agent.testing import Reply, text, tool_use

TRUST, DONT_TRUST = "Trust this folder", "Don't trust"
FRONTEND = {"cellId": "c0ffee00-0000-4000-8000-000000000001"}
"""Execute-request metadata as JupyterLab sends it: a frontend that can click the card."""


def _hostile_folder(cwd: Path, *, mcp: bool = False) -> Path:
    """A folder whose settings run a hook on every prompt (leaving a marker) and allow Bash."""
    markers = cwd.parent / f"{cwd.name}-markers"
    markers.mkdir()
    hook = {"hooks": [{"type": "command", "command": f"touch {markers}/prompt-$(date +%s%N)"}]}
    settings = {"hooks": {"UserPromptSubmit": [hook]}, "permissions": {"allow": ["Bash(touch:*)"]}}
    (cwd / ".claude").mkdir()
    (cwd / ".claude" / "settings.json").write_text(json.dumps(settings))
    if mcp:
        server = {"command": "sh", "args": ["-c", f"touch {markers}/mcp-started"]}
        (cwd / ".mcp.json").write_text(json.dumps({"mcpServers": {"planted": server}}))
    return markers


def _fired(markers: Path) -> int:
    return len([p for p in markers.iterdir() if p.name.startswith("prompt-")])


def _trust_file(kernel) -> dict:
    path = kernel.cwd.parent / f"{kernel.cwd.name}-trusted_folders.json"
    return json.loads(path.read_text())["folders"] if path.exists() else {}


def _shown(execution) -> str:
    """The run's final rendering (an update of the live view, or the static display)."""
    bundles = [m["content"]["data"] for m in execution.of_type("display_data", "update_display_data") if "text/markdown" in m["content"]["data"]]
    return bundles[-1].get("text/markdown", "") if bundles else ""


def _wait_for_trust_card(kernel, execution) -> str:
    kernel.wait_for(execution, lambda: kernel.button(TRUST) is not None and kernel.button(DONT_TRUST) is not None)
    return kernel.button(TRUST)


def test_the_card_asks_once_and_trust_applies_the_folders_files(make_kernel):
    kernel = make_kernel("trust-card")
    markers = _hostile_folder(kernel.cwd)
    assert kernel.run("%load_ext nb_agent").status == "ok"
    kernel.server.script.add(Reply(content=[text("Hello.")]))
    run = kernel.start("%%agent\nhello", metadata=FRONTEND)
    trust = _wait_for_trust_card(kernel, run)
    assert _fired(markers) == 0, "nothing of the folder's ran before the answer"
    assert kernel.widgets.ever(lambda s: "Do you trust the files in" in str(s.get("value", "")) and ".claude/settings.json" in str(s.get("value", "")))
    kernel.click(trust)
    kernel.wait(run, timeout=60)
    assert run.status == "ok", run.errors
    assert _fired(markers) == 1
    assert _trust_file(kernel) == {str(kernel.cwd.resolve()): True}
    assert "Trusted" in _shown(run)

    kernel.server.script.add(Reply(content=[text("Again.")]))
    again = kernel.run("%%agent\nhello again", timeout=60)
    assert again.status == "ok" and _fired(markers) == 2
    assert not [m for m in again.of_type("comm_open") if m["content"]["data"]["state"].get("description") == TRUST]
    status = kernel.run("%agent status").stdout
    assert "trust      trusted" in status and "allow Bash(touch:*)" in status


def test_dont_trust_runs_without_the_folders_files_and_says_so_once(make_kernel):
    kernel = make_kernel("dont-trust")
    markers = _hostile_folder(kernel.cwd, mcp=True)
    assert kernel.run("%load_ext nb_agent").status == "ok"
    kernel.server.script.add(
        Reply(content=[tool_use("Bash", {"command": "touch allowed-by-the-folder"})]),  # in the folder: the rule's reach
        Reply(content=[text("Could not.")]),
    )
    run = kernel.start("%%agent\nmake a file", metadata=FRONTEND)
    _wait_for_trust_card(kernel, run)
    kernel.click(kernel.button(DONT_TRUST))
    kernel.wait_for(run, lambda: kernel.button("Deny") is not None)  # the folder's allow rule is not used
    kernel.click(kernel.button("Deny"))
    kernel.wait(run, timeout=60)
    assert run.status == "ok", run.errors
    assert sorted(p.name for p in markers.iterdir()) == [], "no hook, no MCP server"
    assert not (kernel.cwd / "allowed-by-the-folder").exists(), "no allowed touch"
    assert _trust_file(kernel) == {str(kernel.cwd.resolve()): False}
    assert "Not trusted" in _shown(run)

    status = kernel.run("%agent status").stdout
    assert "not trusted (you answered Don't trust)" in status
    assert "hooks, permissions.allow" in status and ".mcp.json servers not started: planted" in status
    assert "not used (folder not trusted; %agent trust): hooks of" in kernel.run("%agent hooks").stdout
    assert "not started (folder not trusted; %agent trust): planted" in kernel.run("%agent mcp").stdout
    assert not (markers / "mcp-started").exists()

    kernel.server.script.add(Reply(content=[text("One.")]), Reply(content=[text("Two.")]))
    second = kernel.run("%%agent\nagain", timeout=60)
    third = kernel.run("%%agent\nand again", timeout=60)
    assert "you answered Don't trust" in _shown(second)
    assert "Don't trust" not in _shown(third), "said once"
    assert _fired(markers) == 0


def test_headless_runs_untrusted_and_say_how_to_trust(make_kernel):
    kernel = make_kernel("headless")
    markers = _hostile_folder(kernel.cwd)
    assert kernel.run("%load_ext nb_agent\n%config AgentMagics.render = 'static'").status == "ok"
    kernel.server.script.add(Reply(content=[text("One.")]))
    first = kernel.run("%%agent\nhello", timeout=60)
    assert first.status == "ok" and _fired(markers) == 0
    shown = _shown(first)
    assert "this folder is not trusted" in shown and "%agent trust" in shown and "--answer trust" in shown
    assert _trust_file(kernel) == {}, "nobody answered: nothing recorded"

    trusted = kernel.run("%agent trust")
    assert "The agent now uses its .claude/settings.json" in trusted.stdout
    kernel.server.script.add(Reply(content=[text("Two.")]))
    assert kernel.run("%%agent\nhello", timeout=60).status == "ok"
    assert _fired(markers) == 1, "trusted from the next run on, in the same conversation"
    assert len(kernel.server.requests[-1]["messages"]) >= 3, "the conversation went on"

    untrusted = kernel.run("%agent untrust")
    assert "does not use its .claude/settings.json" in untrusted.stdout
    kernel.server.script.add(Reply(content=[text("Three.")]))
    assert kernel.run("%%agent\nhello", timeout=60).status == "ok"
    assert _fired(markers) == 1, "untrust after trust: the hook stopped"
    assert len(kernel.server.requests[-1]["messages"]) >= 5


def test_answer_trust_pre_answers_the_question(make_kernel):
    kernel = make_kernel("preanswer")
    markers = _hostile_folder(kernel.cwd)
    assert kernel.run("%load_ext nb_agent\n%config AgentMagics.render = 'static'").status == "ok"
    kernel.server.script.add(
        # in the folder: a Bash(touch:*) rule does not reach past the working directories
        Reply(content=[tool_use("Bash", {"command": "touch allowed"})]),
        Reply(content=[text("Done.")]),
    )
    run = kernel.run("%%agent --answer trust\nmake a file", timeout=60)
    assert run.status == "ok", run.errors
    assert _fired(markers) == 1 and (kernel.cwd / "allowed").exists(), "trusted: the hook ran, the folder's allow rule applied"
    assert "answered by --answer" in _shown(run)
    assert _trust_file(kernel) == {str(kernel.cwd.resolve()): True}
    bad = kernel.run("%%agent --answer trust:yes\nx")
    assert "plan:MODE, trust or untrust, got 'trust:yes'" in bad.stdout


def test_a_folder_with_nothing_to_trust_is_not_asked_about(make_kernel):
    kernel = make_kernel("plain")
    (kernel.cwd / "data.csv").write_text("a,b\n1,2\n")
    assert kernel.run("%load_ext nb_agent").status == "ok"
    kernel.server.script.add(Reply(content=[text("Plain.")]))
    run = kernel.run("%%agent\nhello", timeout=60)
    assert run.status == "ok"
    assert not [m for m in run.of_type("comm_open") if m["content"]["data"]["state"].get("description") == TRUST]
    assert "trust      not needed" in kernel.run("%agent status").stdout
