"""Which spellings of a path name the open notebook (nb_agent.jupyter.live.address), tried the
way an attacker would: look-alike paths must not get the notebook's pass, and where the
notebook's file is on this machine, the answer agrees with the real file system."""

from __future__ import annotations

import itertools
import os
from pathlib import Path

import pytest

from nb_agent.jupyter.live.address import NotebookAddress, elsewhere_message
from nb_agent.tools.files.paths import expand_path

SERVER_ROOT = "/srv/jupyter-server-elsewhere"


def _remote(cwd: Path) -> NotebookAddress:
    return NotebookAddress.locate("work/remote.ipynb", SERVER_ROOT, cwd=cwd)


def test_a_remote_notebook_is_told_by_its_server_side_path(tmp_path):
    address = _remote(tmp_path)
    assert address.shown == Path(f"{SERVER_ROOT}/work/remote.ipynb") and not address.on_this_machine
    assert "on the Jupyter server" in address.where()


@pytest.mark.parametrize(
    "raw",
    [
        f"{SERVER_ROOT}/work/remote.ipynb",
        f" {SERVER_ROOT}/work/remote.ipynb ",
        f"{SERVER_ROOT}/work/./remote.ipynb",
        f"//{SERVER_ROOT}/work/remote.ipynb",  # three slashes are one
        f"{SERVER_ROOT}/other/../work/remote.ipynb",
        "remote.ipynb",
        "./remote.ipynb",
        "work/remote.ipynb",
        "./work/../work/remote.ipynb",
    ],
)
def test_the_spellings_that_name_a_remote_notebook(raw, tmp_path):
    assert _remote(tmp_path).names(raw, tmp_path)


@pytest.mark.parametrize(
    "raw",
    [
        "/elsewhere/work/remote.ipynb",
        "/tmp/remote.ipynb",
        f"{SERVER_ROOT}/remote.ipynb",
        f"{SERVER_ROOT}/work/remote.ipynb/../other.ipynb",
        f"{SERVER_ROOT}/work/REMOTE.ipynb",
        f"{SERVER_ROOT}/work/remote.ipynb.bak",
        f"/{SERVER_ROOT}/work/remote.ipynb",  # "//srv/...": POSIX leaves two leading slashes to the system
        f"{SERVER_ROOT}/work/remote.ipynb\x00",
        "../remote.ipynb",
        "sub/remote.ipynb",
        "remote.ipynb/x",
        "Remote.ipynb",
        "~/remote.ipynb",
        "~/work/remote.ipynb",
        "remote",
        "",
        "   ",
        ".",
    ],
)
def test_look_alike_paths_do_not_name_a_remote_notebook(raw, tmp_path):
    assert not _remote(tmp_path).names(raw, tmp_path)


def test_a_link_to_the_name_on_this_machine_does_not_make_another_file_the_notebook(tmp_path):
    """Remote notebook, and here a file of that name that links to a secret: the name is the
    page's notebook (never read through the link), a path to the link's target is not."""
    secret = tmp_path / "secret.ipynb"
    secret.write_text("{}")
    (tmp_path / "remote.ipynb").symlink_to(secret)
    address = _remote(tmp_path)
    assert address.names("remote.ipynb", tmp_path)
    assert not address.names(str(secret), tmp_path) and not address.names("secret.ipynb", tmp_path)


def _local_tree(tmp_path: Path) -> tuple[Path, Path, NotebookAddress]:
    root = tmp_path / "root"
    (root / "work" / "sub").mkdir(parents=True)
    (root / "other").mkdir()
    notebook = root / "work" / "nb.ipynb"
    notebook.write_text("{}")
    (root / "other" / "nb.ipynb").write_text("{}")  # same name, another file
    (root / "work" / "copy.ipynb").write_text("{}")
    (root / "work" / "link.ipynb").symlink_to(notebook)
    (root / "work" / "sub" / "up").symlink_to(root / "work")
    (root / "work" / "otherlink.ipynb").symlink_to(root / "other" / "nb.ipynb")
    cwd = root / "work"
    address = NotebookAddress.locate("work/nb.ipynb", str(root), cwd=cwd)
    assert address.on_this_machine and address.shown == notebook
    return root, cwd, address


def test_on_this_machine_a_path_names_the_notebook_exactly_when_it_is_the_notebooks_file(tmp_path):
    """Differential against the file system: every absolute spelling built from the tree's
    parts names the notebook if and only if it is the file the file tools would open for it
    (they fold ``.`` and ``..`` first, as ``expand_path`` does: ``nb.ipynb/.`` is the notebook
    to them, and ``sub/up/..`` is ``work``, not where the link leads)."""
    root, cwd, address = _local_tree(tmp_path)
    parts = ["work", "other", "sub", "up", ".", "..", "nb.ipynb", "copy.ipynb", "link.ipynb", "otherlink.ipynb"]
    checked = named = 0
    for length in (1, 2, 3, 4):
        for combo in itertools.product(parts, repeat=length):
            raw = os.path.join(root, *combo)
            try:
                same = os.path.samefile(expand_path(raw, cwd), address.shown)
            except OSError:
                same = False
            assert address.names(raw, cwd) is same, raw
            checked += 1
            named += same
    assert checked > 10_000 and named > 5  # the walk did reach the notebook by several spellings


def test_on_this_machine_relative_paths_are_the_page_spellings_or_the_same_file(tmp_path):
    _root, cwd, address = _local_tree(tmp_path)
    assert address.names("nb.ipynb", cwd) and address.names("work/nb.ipynb", cwd) and address.names("link.ipynb", cwd)
    assert not address.names("copy.ipynb", cwd) and not address.names("otherlink.ipynb", cwd)
    assert not address.names("../other/nb.ipynb", cwd)


def test_an_older_page_without_the_server_root_finds_the_file_beside_the_kernel(tmp_path):
    (tmp_path / "nb.ipynb").write_text("{}")
    address = NotebookAddress.locate("work/nb.ipynb", None, cwd=tmp_path)
    assert address.on_this_machine and address.shown == tmp_path / "nb.ipynb"
    gateway = NotebookAddress.locate("work/nb.ipynb", None, cwd=tmp_path / "nowhere", working_dir="/srv/work")
    assert not gateway.on_this_machine and gateway.shown == Path("/srv/work/nb.ipynb")


def test_the_message_without_a_page_names_the_server(tmp_path):
    address = _remote(tmp_path)
    message = elsewhere_message(f"{SERVER_ROOT}/work/remote.ipynb", tmp_path, known=[address], working_dir=None)
    assert message and "the notebook lives on the Jupyter server; open it in JupyterLab for live edits" in message
    assert elsewhere_message("/elsewhere/remote.ipynb", tmp_path, known=[address], working_dir=None) is None
    assert elsewhere_message("any.ipynb", tmp_path, known=[], working_dir=f"{SERVER_ROOT}/work")
    assert elsewhere_message("any.ipynb", tmp_path, known=[], working_dir=str(tmp_path)) is None  # that folder is here
