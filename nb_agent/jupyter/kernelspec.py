"""A Jupyter kernel that starts with nb_agent loaded: "Python 3 (nb_agent)".

    python -m nb_agent.jupyter.kernelspec install [--user | --sys-prefix | --prefix PATH] [--name NAME] [--ignore-cwd]
    python -m nb_agent.jupyter.kernelspec remove [--name NAME]

The kernel is ipykernel on this Python with ``--ext=nb_agent`` (IPython's
``InteractiveShellApp.extra_extensions``), so ``%%agent`` works in a new notebook without
``%load_ext nb_agent``. Pick it in JupyterLab's launcher or with ``--kernel nb_agent``.

It is not started as ``python -m ipykernel_launcher``: ``-m`` puts the notebook's folder
first on ``sys.path``, so a folder's ``ipykernel_launcher.py`` or ``nb_agent/`` would run
instead. :data:`LAUNCHER` drops that entry, imports nb_agent (which installs its import
guard, :mod:`nb_agent.import_guard`) and only then ipykernel. ``--ignore-cwd`` also keeps
IPython from putting the folder on ``sys.path`` at all (``InteractiveShellApp.ignore_cwd``).
"""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path

KERNEL_NAME = "nb_agent"
DISPLAY_NAME = "Python 3 (nb_agent)"
EXTENSION_ARGUMENT = "--ext=nb_agent"
IGNORE_CWD_ARGUMENT = "--IPKernelApp.ignore_cwd=True"
LAUNCHER = (
    "import sys; sys.path[:1] = [] if sys.path[:1] == [''] else sys.path[:1]; "
    "import nb_agent; from ipykernel.kernelapp import launch_new_instance; launch_new_instance()"
)
"""``python -c`` source: ``-c`` puts ``''`` first on ``sys.path``; it is dropped before any import."""


def kernel_json(*, display_name: str = DISPLAY_NAME, ignore_cwd: bool = False) -> dict[str, object]:
    """The kernel.json: ipykernel's own for this Python, started through :data:`LAUNCHER`,
    plus the extension (and ``ignore_cwd`` when asked)."""
    from ipykernel.kernelspec import get_kernel_dict

    spec = get_kernel_dict(extra_arguments=[EXTENSION_ARGUMENT, *([IGNORE_CWD_ARGUMENT] if ignore_cwd else [])])
    argv = list(spec["argv"])
    if argv[1:3] != ["-m", "ipykernel_launcher"]:
        raise RuntimeError(f"unexpected ipykernel kernel.json argv: {argv}")
    spec["argv"] = [argv[0], "-c", LAUNCHER, *argv[3:]]
    spec["display_name"] = display_name
    return spec


def install(
    *,
    user: bool = False,
    prefix: str | None = None,
    name: str = KERNEL_NAME,
    display_name: str = DISPLAY_NAME,
    ignore_cwd: bool = False,
    kernel_spec_manager: object = None,
) -> str:
    """Install the kernelspec; returns the directory it was written to."""
    import json
    import tempfile

    from ipykernel.kernelspec import RESOURCES
    from jupyter_client.kernelspec import KernelSpecManager

    manager = kernel_spec_manager or KernelSpecManager()
    with tempfile.TemporaryDirectory() as staging:
        source = Path(staging) / name
        shutil.copytree(RESOURCES, source)  # ipykernel's logos
        (source / "kernel.json").write_text(json.dumps(kernel_json(display_name=display_name, ignore_cwd=ignore_cwd), indent=1))
        return manager.install_kernel_spec(str(source), kernel_name=name, user=user, prefix=prefix)  # type: ignore[attr-defined]


def remove(*, name: str = KERNEL_NAME) -> str:
    from jupyter_client.kernelspec import KernelSpecManager

    return KernelSpecManager().remove_kernel_spec(name)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m nb_agent.jupyter.kernelspec", description=(__doc__ or "").strip().splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    add = commands.add_parser("install", help="install the kernelspec")
    where = add.add_mutually_exclusive_group()
    where.add_argument("--user", action="store_true", help="for this user (~/.local/share/jupyter/kernels)")
    where.add_argument("--sys-prefix", action="store_true", help=f"in this environment ({sys.prefix})")
    where.add_argument("--prefix", metavar="PATH", help="under PATH/share/jupyter/kernels")
    add.add_argument("--name", default=KERNEL_NAME, help=f"kernel name (default: {KERNEL_NAME})")
    add.add_argument("--display-name", default=DISPLAY_NAME, help=f"name shown in Jupyter (default: {DISPLAY_NAME!r})")
    add.add_argument(
        "--ignore-cwd", action="store_true", help="keep the notebook's folder off sys.path (its modules need sys.path.append)"
    )
    drop = commands.add_parser("remove", help="remove the kernelspec")
    drop.add_argument("--name", default=KERNEL_NAME)
    args = parser.parse_args(argv)
    if args.command == "remove":
        print(f"Removed {remove(name=args.name)}")
        return 0
    prefix = sys.prefix if args.sys_prefix else args.prefix
    path = install(user=args.user, prefix=prefix, name=args.name, display_name=args.display_name, ignore_cwd=args.ignore_cwd)
    print(f"Installed the kernelspec {args.name!r} ({args.display_name}) in {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
