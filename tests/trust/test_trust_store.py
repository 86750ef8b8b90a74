"""The folder-trust store: per folder, in the user's config, nearest answer wins."""

import json
from pathlib import Path

from nb_agent.trust import is_trusted, set_trust, trust_answer, trust_file


def test_answers_are_kept_per_folder_in_the_users_config(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "work" / "proj"
    (project / "sub").mkdir(parents=True)
    assert trust_answer(project, home=home) is None and not is_trusted(project, home=home)
    set_trust(tmp_path / "work", True, home=home)
    assert is_trusted(project / "sub", home=home)
    set_trust(project, False, home=home)  # a nearer "don't trust" wins
    assert not is_trusted(project / "sub", home=home) and trust_answer(project, home=home) is False
    assert trust_file(home).is_file() and not (project / ".nb_agent").exists()


def test_a_symlinked_spelling_gets_the_same_answer(tmp_path: Path) -> None:
    home, real = tmp_path / "home", tmp_path / "real"
    real.mkdir()
    (tmp_path / "link").symlink_to(real)
    set_trust(tmp_path / "link", True, home=home)
    assert is_trusted(real, home=home)


def test_a_corrupt_store_trusts_nothing(tmp_path: Path) -> None:
    home = tmp_path / "home"
    trust_file(home).parent.mkdir(parents=True)
    trust_file(home).write_text("{not json")
    assert not is_trusted(tmp_path, home=home)


def test_answers_for_vanished_folders_are_dropped_and_the_file_can_be_moved(tmp_path: Path, monkeypatch) -> None:
    home, gone, kept = tmp_path / "home", tmp_path / "scratch", tmp_path / "kept"
    gone.mkdir()
    kept.mkdir()
    set_trust(gone, True, home=home)
    gone.rmdir()
    set_trust(kept, False, home=home)
    assert json.loads(trust_file(home).read_text())["folders"] == {str(kept.resolve()): False}
    monkeypatch.setenv("NB_AGENT_TRUST_FILE", str(tmp_path / "elsewhere.json"))
    set_trust(kept, True)
    assert is_trusted(kept) and (tmp_path / "elsewhere.json").is_file()
    assert trust_answer(kept, home=home) is False  # an explicit home keeps its own file


def test_the_store_is_a_protected_file_wherever_it_is(tmp_path: Path, monkeypatch) -> None:
    from nb_agent.permissions.protected import protected_reason

    assert protected_reason(tmp_path / "home" / ".nb_agent" / "trusted_folders.json")
    moved = tmp_path / "answers.json"
    assert protected_reason(moved) is None
    monkeypatch.setenv("NB_AGENT_TRUST_FILE", str(moved))
    assert protected_reason(tmp_path / "." / "ANSWERS.json") == "nb_agent's folder-trust answers"


def test_trusting_home_or_above_covers_that_folder_only(tmp_path: Path, monkeypatch) -> None:
    """Jupyter often starts in the home folder; what the user downloads lands under it."""
    home = tmp_path / "home"
    downloaded = home / "Downloads" / "evil"
    downloaded.mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    for broad in (home, tmp_path, Path("/")):
        set_trust(broad, True, home=home)
        assert is_trusted(broad, home=home), broad
        assert trust_answer(downloaded, home=home) is None, broad
        set_trust(broad, False, home=home)
        assert trust_answer(downloaded, home=home) is False, broad  # a "don't trust" still covers it
        trust_file(home).unlink()
    set_trust(home / "Downloads", True, home=home)  # below home: covers its subfolders as before
    assert is_trusted(downloaded, home=home)


def test_a_relative_store_path_is_not_read_from_the_folder(tmp_path: Path, monkeypatch) -> None:
    """``NB_AGENT_TRUST_FILE=answers.json`` would be the project's own file, shipped with it."""
    home, folder = tmp_path / "home", tmp_path / "downloaded"
    folder.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.chdir(folder)
    (folder / "answers.json").write_text(json.dumps({"folders": {str(folder.resolve()): True}}))
    monkeypatch.setenv("NB_AGENT_TRUST_FILE", "answers.json")
    assert trust_answer(folder) is None
    assert trust_file() == home / ".nb_agent" / "trusted_folders.json"
