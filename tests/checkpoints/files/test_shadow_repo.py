"""The shadow repository: snapshots of a working directory kept outside it, exact bytes,
.gitignore honoured, big files and nested repositories left out and named, the folder's
own .git never touched."""

from __future__ import annotations

import os
import subprocess

import pytest

from nb_agent.checkpoints.files import ShadowRepo
from nb_agent.errors import CheckpointError


@pytest.fixture
def folder(tmp_path):
    work = tmp_path / "project"
    (work / "data").mkdir(parents=True)
    (work / "data" / "sales.csv").write_text("month,revenue\n1,10\n")
    (work / "notes.txt").write_text("notes\n")
    return work


@pytest.fixture
def store(tmp_path):
    return tmp_path / "state" / "checkpoints"


def _tree_files(folder):
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file() or p.is_symlink())


def test_the_shadow_repository_lives_outside_the_folder_and_leaves_it_alone(folder, store):
    subprocess.run(["git", "init", "-q", str(folder)], check=True)
    before = {p: p.stat().st_mtime_ns for p in folder.rglob("*")}
    git_before = sorted(p.name for p in (folder / ".git").rglob("*"))
    repo = ShadowRepo(folder, root=store)
    snapshot = repo.snapshot()
    assert repo.gitdir.parent == store and (repo.gitdir / "HEAD").exists()
    assert {p: p.stat().st_mtime_ns for p in folder.rglob("*")} == before  # nothing written in the folder
    assert sorted(p.name for p in (folder / ".git").rglob("*")) == git_before
    assert snapshot.files == 2
    assert repo.entries(snapshot.commit, {"data/sales.csv", "notes.txt", ".git/HEAD"})[".git/HEAD"] is None


def test_later_snapshots_see_writes_deletes_and_appends_and_restore_them(folder, store):
    repo = ShadowRepo(folder, root=store)
    first = repo.snapshot()
    (folder / "data" / "sales.csv").write_text("month,revenue\n1,10\n2,20\n")  # appended
    (folder / "notes.txt").unlink()
    (folder / "out").mkdir()
    (folder / "out" / "chart.png").write_bytes(b"\x89PNG\x00\x01")
    second = repo.snapshot()
    assert repo.changed(first.commit, second.commit) == {"data/sales.csv", "notes.txt", "out/chart.png"}
    targets = repo.entries(first.commit, repo.changed(first.commit, second.commit))
    outcome = repo.write(targets)
    assert sorted(outcome.written) == ["data/sales.csv", "notes.txt"] and outcome.deleted == ["out/chart.png"]
    assert (folder / "data" / "sales.csv").read_text() == "month,revenue\n1,10\n"
    assert (folder / "notes.txt").read_text() == "notes\n" and not (folder / "out").exists()


def test_gitignore_is_honoured_and_state_folders_are_left_out(folder, store):
    (folder / ".gitignore").write_text("*.log\ncache/\n")
    (folder / "run.log").write_text("x")
    (folder / "cache").mkdir()
    (folder / "cache" / "big.bin").write_text("x")
    for excluded in (".nb_agent/sessions", ".ipynb_checkpoints", "__pycache__", ".venv/lib"):
        (folder / excluded).mkdir(parents=True)
        (folder / excluded / "f").write_text("x")
    repo = ShadowRepo(folder, root=store)
    snapshot = repo.snapshot()
    assert snapshot.files == 3  # .gitignore, data/sales.csv, notes.txt


def test_bytes_are_kept_exactly_whatever_the_folder_s_attributes_say(folder, store):
    (folder / ".gitattributes").write_text("* text=auto eol=lf\n*.txt filter=lfs ident\n")
    crlf = b"line one\r\nline two\r\n$Id$\r\n"
    (folder / "windows.txt").write_bytes(crlf)
    repo = ShadowRepo(folder, root=store)
    first = repo.snapshot()
    (folder / "windows.txt").write_bytes(b"changed")
    repo.snapshot()
    repo.write(repo.entries(first.commit, {"windows.txt"}))
    assert (folder / "windows.txt").read_bytes() == crlf


def test_files_over_the_cap_and_nested_repositories_are_named_not_kept(folder, store):
    (folder / "huge.parquet").write_bytes(b"x" * 2_000)
    subprocess.run(["git", "init", "-q", str(folder / "vendored")], check=True)
    (folder / "vendored" / "lib.py").write_text("x = 1\n")
    repo = ShadowRepo(folder, root=store, max_file_size=1_000)
    snapshot = repo.snapshot()
    reasons = {s.path: s.reason for s in snapshot.skipped}
    assert reasons == {"huge.parquet": "over the size cap", "vendored/": "a git repository of its own"}
    assert repo.entries(snapshot.commit, {"huge.parquet"}) == {"huge.parquet": None}


def test_a_file_that_grows_past_the_cap_does_not_keep_its_old_version(folder, store):
    repo = ShadowRepo(folder, root=store, max_file_size=1_000)
    repo.snapshot()
    (folder / "notes.txt").write_bytes(b"y" * 5_000)
    snapshot = repo.snapshot()
    assert repo.entries(snapshot.commit, {"notes.txt"}) == {"notes.txt": None}
    assert [s.path for s in snapshot.skipped] == ["notes.txt"]


def test_a_fifo_is_passed_over_without_waiting(folder, store):
    os.mkfifo(folder / "pipe")
    snapshot = ShadowRepo(folder, root=store).snapshot()
    assert snapshot.files == 2


def test_more_files_than_the_cap_turns_file_checkpoints_off_with_a_reason(folder, store):
    for i in range(20):
        (folder / f"f{i}.txt").write_text(str(i))
    with pytest.raises(CheckpointError, match="more than 10 files"):
        ShadowRepo(folder, root=store, max_files=10).snapshot()


def test_links_are_kept_as_links_and_restored_without_being_followed(folder, store, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (folder / "link").symlink_to(outside)
    repo = ShadowRepo(folder, root=store)
    first = repo.snapshot()
    (folder / "link").unlink()
    (folder / "link").write_text("now a file")
    repo.snapshot()
    repo.write(repo.entries(first.commit, {"link"}))
    assert os.readlink(folder / "link") == str(outside)


def test_a_write_refuses_to_go_through_a_folder_that_became_a_link(folder, store, tmp_path):
    repo = ShadowRepo(folder, root=store)
    first = repo.snapshot()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (folder / "data" / "sales.csv").unlink()
    (folder / "data").rmdir()
    (folder / "data").symlink_to(elsewhere)  # the run replaced data/ by a link
    repo.snapshot()
    outcome = repo.write(repo.entries(first.commit, {"data/sales.csv"}))
    assert "data/sales.csv" in outcome.failed and "link" in outcome.failed["data/sales.csv"]
    assert list(elsewhere.iterdir()) == []


def test_a_full_disk_turns_checkpoints_off_and_writes_nothing_in_the_folder(folder, tmp_path):
    """A real write failure: the snapshot runs in a child whose file-size limit is tiny
    (EFBIG from the kernel, as ENOSPC would come from a full disk)."""
    (folder / "payload.bin").write_bytes(os.urandom(200_000))
    script = (
        "import resource, signal, sys\n"
        "from pathlib import Path\n"
        "signal.signal(signal.SIGXFSZ, signal.SIG_IGN)\n"
        "resource.setrlimit(resource.RLIMIT_FSIZE, (50_000, 50_000))\n"
        "from nb_agent.checkpoints.files import ShadowRepo\n"
        "from nb_agent.errors import CheckpointError\n"
        "try:\n"
        "    ShadowRepo(Path(sys.argv[1]), root=Path(sys.argv[2])).snapshot()\n"
        "except CheckpointError as exc:\n"
        "    print('OFF:', exc)\n"
    )
    before = sorted((p.name, p.stat().st_size) for p in folder.rglob("*"))
    done = subprocess.run([os.sys.executable, "-c", script, str(folder), str(tmp_path / "store")], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("OFF: file checkpoints of ") and "failed" in done.stdout
    assert sorted((p.name, p.stat().st_size) for p in folder.rglob("*")) == before
