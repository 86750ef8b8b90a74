from __future__ import annotations

from pathlib import Path

import pytest

from nb_agent.memory.loader import MemoryLoad, MemoryScope, load_memory

SECRET = "-----BEGIN OPENSSH PRIVATE KEY----- memory-secret"


class World:
    """A home folder with a secret and a project folder somewhere else, as a clone is."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.home = root / "home"
        self.project = root / "work" / "repo"
        (self.home / ".ssh").mkdir(parents=True)
        (self.home / ".ssh" / "id_rsa").write_text(SECRET)
        (self.home / ".claude").mkdir()
        self.project.mkdir(parents=True)

    def write(self, relative: str, text: str, *, base: Path | None = None) -> Path:
        path = (base or self.project) / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        return path

    def load(self, *, trusted: bool = False, cwd: Path | None = None, **kw) -> MemoryLoad:
        scope = MemoryScope(cwd=cwd or self.project, home=self.home, trusted=trusted, managed_file=kw.pop("managed_file", None), **kw)
        return load_memory(scope)


@pytest.fixture
def world(tmp_path: Path) -> World:
    return World(tmp_path)


def texts(load: MemoryLoad) -> list[str]:
    return [f.text for f in load.files]


def reasons(load: MemoryLoad) -> dict[str, str]:
    return {s.path.name: s.reason for s in load.skipped}
