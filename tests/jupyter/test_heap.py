"""``%agent new`` gives the freed pages of the old conversation back to the system: glibc keeps
freed memory in the process (the kernel's RSS stayed at its high-water mark), and
``release_freed_memory`` trims it. Measured in a fresh interpreter, so nothing else in the
test process decides what the heap looks like."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

SCRIPT = """
import json
from nb_agent.jupyter.heap import release_freed_memory

def rss_mb():
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) // 1024 for line in status if line.startswith("VmRSS:"))

start = rss_mb()
blocks = [bytes(600 + i % 7) for i in range(100_000)]  # ~62 MB of blocks from malloc (over pymalloc's 512 bytes)
pinned = bytes(700)  # allocated after them: the heap's top stays in use
full = rss_mb()
del blocks
freed = rss_mb()
released = release_freed_memory()
print(json.dumps({"start": start, "full": full, "freed": freed, "trimmed": rss_mb(), "released": released}))
"""


def test_the_memory_a_conversation_freed_goes_back_to_the_system():
    if not sys.platform.startswith("linux"):
        pytest.skip("reads /proc/self/status")
    out = json.loads(subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, check=True).stdout)
    if not out["released"]:
        pytest.skip("this C library has no malloc_trim (not glibc)")
    assert out["full"] - out["start"] > 50, out
    assert out["freed"] > out["full"] - 10, out  # freed, yet still the process's: what the kernel showed
    assert out["trimmed"] < out["start"] + 10, out
