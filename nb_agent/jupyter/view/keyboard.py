"""The keyboard roles of an ask's controls (approval row, plan, questions, folder trust), as
DOM classes the nb-agent-live extension acts on (``labextension/src/keyboard.ts``): it focuses
an ask's primary control when the ask appears, unless the user is typing in a cell, and
Escape anywhere in the ask presses its escape button. Without the extension the controls are
still reachable with Tab and answer with Enter (they are plain buttons)."""

from __future__ import annotations

ASK = "nb-agent-ask"
"""The box holding one ask's controls (Escape acts inside it)."""
PRIMARY = "nb-agent-primary"
"""The control focused when the ask appears (Enter then presses it)."""
ESCAPE = "nb-agent-escape"
"""The button Escape presses: the answer that lets nothing happen (Deny, Keep planning, Skip, Don't trust)."""
