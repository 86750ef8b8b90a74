"""File checkpoints (issue 20): the shadow repository's snapshots of a working directory of
10,000 files (100 folders of 100 files of 1-4 KB), and rewinding them.

Prints the first snapshot (every file read and stored once), the later snapshots with 10
files changed (median and max over ``--rounds``; target ≤ 200 ms), and the time to rewind
those 10 files (a snapshot of the folder as it is now, the paths changed since the
checkpoint, their checkpoint versions read and written back). Uses a temporary folder and a temporary shadow-repository root.

    python bench/file_checkpoints.py [--files 10000] [--rounds 20]
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
from pathlib import Path

from nb_agent.checkpoints.files import ShadowRepo


def _make_folder(folder: Path, files: int) -> list[Path]:
    paths = []
    rng = random.Random(0)
    per_dir = 100
    for i in range(files):
        directory = folder / f"d{i // per_dir:03d}"
        directory.mkdir(parents=True, exist_ok=True)
        path = directory / f"f{i % per_dir:03d}.csv"
        path.write_text("x," * rng.randint(500, 2000))
        paths.append(path)
    return paths


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=20)
    args = parser.parse_args()
    rng = random.Random(1)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "project"
        paths = _make_folder(folder, args.files)
        repo = ShadowRepo(folder, root=Path(tmp) / "checkpoints")
        first = repo.snapshot()
        print(f"first snapshot of {first.files:,} files: {first.seconds * 1000:.0f} ms")
        time.sleep(1.1)  # files written in the same second as the index are re-read by design (racy git)
        later, rewinds = [], []
        previous = repo.snapshot().commit
        for _ in range(args.rounds):
            for path in rng.sample(paths, 10):
                with path.open("a") as f:
                    f.write("changed,")
            started = time.perf_counter()
            snapshot = repo.snapshot()
            later.append(time.perf_counter() - started)
            started = time.perf_counter()  # what a rewind does: a snapshot of now, the diff, the writes
            now = repo.snapshot("before a rewind").commit
            changed = repo.changed(previous, now)
            outcome = repo.write(repo.entries(previous, changed))
            rewinds.append(time.perf_counter() - started)
            assert len(outcome.written) == 10 and not outcome.failed, outcome
            previous = repo.snapshot().commit
        ms = [s * 1000 for s in later]
        print(f"later snapshot, 10 files changed: median {statistics.median(ms):.0f} ms, max {max(ms):.0f} ms over {args.rounds} rounds (target ≤ 200 ms)")
        ms = [s * 1000 for s in rewinds]
        print(f"rewind of those 10 files (snapshot of now, diff, read, write back): median {statistics.median(ms):.1f} ms, max {max(ms):.1f} ms")
        size = sum(p.stat().st_size for p in repo.gitdir.rglob("*") if p.is_file())
        print(f"shadow repository size: {size / 1e6:.1f} MB for {sum(p.stat().st_size for p in paths) / 1e6:.1f} MB of files")


if __name__ == "__main__":
    main()
