"""Loading nb_agent automatically: the "Python 3 (nb_agent)" kernelspec, and the IPython
profile snippet in jupyter-config/."""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

from nb_agent.jupyter import kernelspec
from nb_agent.jupyter.demo import this_python_kernels

REPO = Path(__file__).resolve().parents[2]
CHECK = "print('agent' in get_ipython().magics_manager.magics['cell'], 'nb_agent' in get_ipython().extension_manager.loaded)"


def _run_in_kernel(manager, code: str, **start) -> str:
    manager.start_kernel(**start)
    client = manager.client()
    client.start_channels()
    out: list[str] = []
    try:
        client.wait_for_ready(timeout=60)
        hook = lambda m: out.append(m["content"].get("text", "")) if m["msg_type"] == "stream" else None  # noqa: E731
        reply = client.execute_interactive(code, timeout=30, output_hook=hook)
        assert reply["content"]["status"] == "ok", reply["content"]
    finally:
        client.stop_channels()
        manager.shutdown_kernel(now=True)
    return "".join(out)


def test_installed_kernelspec_starts_with_the_magic(tmp_path: Path, capsys) -> None:
    from jupyter_client import KernelManager
    from jupyter_client.kernelspec import KernelSpecManager

    assert kernelspec.main(["install", "--prefix", str(tmp_path)]) == 0
    assert "Python 3 (nb_agent)" in capsys.readouterr().out
    kernels = tmp_path / "share" / "jupyter" / "kernels"
    spec = json.loads((kernels / "nb_agent" / "kernel.json").read_text())
    assert spec["display_name"] == "Python 3 (nb_agent)"
    assert spec["argv"][0] == sys.executable and spec["argv"][-1] == "--ext=nb_agent"
    manager = KernelManager(kernel_name="nb_agent", kernel_spec_manager=KernelSpecManager(kernel_dirs=[str(kernels)]))
    assert _run_in_kernel(manager, CHECK, cwd=str(tmp_path)).split() == ["True", "True"]


def test_profile_snippet_loads_the_extension(tmp_path: Path) -> None:
    from jupyter_client import KernelManager

    profile = tmp_path / "ipython" / "profile_default"
    profile.mkdir(parents=True)
    shutil.copy(REPO / "jupyter-config" / "ipython_kernel_config.py", profile / "ipython_kernel_config.py")
    env = {**os.environ, "IPYTHONDIR": str(tmp_path / "ipython")}
    manager = KernelManager(kernel_name="python3", kernel_spec_manager=this_python_kernels())  # plain ipykernel
    assert _run_in_kernel(manager, CHECK, env=env, cwd=str(tmp_path)).split() == ["True", "True"]


def _plant_launchers(folder: Path, marks: Path) -> None:
    """What a cloned folder could hold to run at kernel start: ``python -m`` finds the
    first, IPython's ``--ext`` the second, the import of nb_agent's dependencies the third."""
    record = f"open({str(marks)!r}, 'a').write(__name__ + '\\n')\n"
    (folder / "ipykernel_launcher.py").write_text(record)
    (folder / "nb_agent").mkdir()
    (folder / "nb_agent" / "__init__.py").write_text(record)
    (folder / "anthropic.py").write_text(record)
    (folder / "helpers.py").write_text("VALUE = 42\n")


def test_the_kernelspec_never_starts_code_from_the_notebooks_folder(tmp_path: Path) -> None:
    from jupyter_client import KernelManager
    from jupyter_client.kernelspec import KernelSpecManager

    kernelspec.install(prefix=str(tmp_path / "prefix"))
    kernels = tmp_path / "prefix" / "share" / "jupyter" / "kernels"
    folder, marks = tmp_path / "cloned", tmp_path / "fired.txt"
    folder.mkdir()
    _plant_launchers(folder, marks)
    manager = KernelManager(kernel_name="nb_agent", kernel_spec_manager=KernelSpecManager(kernel_dirs=[str(kernels)]))
    code = CHECK + "\nimport helpers, anthropic\nprint(helpers.VALUE, 'cloned' in anthropic.__file__)"
    assert _run_in_kernel(manager, code, cwd=str(folder)).split() == ["True", "True", "42", "False"]
    assert not marks.exists(), marks.read_text()


def test_ignore_cwd_keeps_the_folder_off_sys_path(tmp_path: Path) -> None:
    from jupyter_client import KernelManager
    from jupyter_client.kernelspec import KernelSpecManager

    assert kernelspec.main(["install", "--prefix", str(tmp_path / "prefix"), "--ignore-cwd"]) == 0
    kernels = tmp_path / "prefix" / "share" / "jupyter" / "kernels"
    folder = tmp_path / "cloned"
    folder.mkdir()
    (folder / "helpers.py").write_text("VALUE = 42\n")
    manager = KernelManager(kernel_name="nb_agent", kernel_spec_manager=KernelSpecManager(kernel_dirs=[str(kernels)]))
    code = CHECK + "\nimport sys\nprint('' in sys.path)\ntry:\n    import helpers\nexcept ImportError:\n    print('not-importable')"
    assert _run_in_kernel(manager, code, cwd=str(folder)).split() == ["True", "True", "False", "not-importable"]
