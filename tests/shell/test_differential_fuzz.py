"""Family 2: the classifier against real bash, by differential fuzzing.

Variants of read-only commands (quoting, escapes, line continuations, comments,
expansions, glued operators, hidden payloads) are generated from a fixed seed. Every
variant the classifier calls read-only is run by real bash in a scratch directory where
PATH holds only stubs that log their argv (no real program can run). The test fails when
bash ran a program with an argv the classifier would not accept on its own (each logged
argv is re-checked as a plain, fully quoted command), or when a file appeared or changed.

``NB_AGENT_FUZZ_CASES`` raises the number of cases and ``NB_AGENT_FUZZ_SEED`` changes the seed,
for a longer local run.
"""

from __future__ import annotations

import os
import random
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

from nb_agent.shell.command_parts import analyse_command
from nb_agent.shell.read_only import is_read_only_command

CASES = int(os.environ.get("NB_AGENT_FUZZ_CASES", "2000"))
SEED = int(os.environ.get("NB_AGENT_FUZZ_SEED", "20261201"))
BASH = shutil.which("bash")

# Every program the bases or payloads name, and the ones a payload would want to run.
PROGRAMS = (
    "ls cat head tail wc grep rg sed awk gawk mawk sort uniq cut tr jq git find xargs stat du "
    "diff tee rm touch sh bash truncate e id python python3 env nice timeout stdbuf time xxd date "
    "tree file basename dirname realpath readlink seq column nl od md5sum sha256sum cmp paste "
    "sleep nohup sudo chmod mv cp mkdir ln curl wget perl node X x ev evil which uname whoami"
).split()

BASES = (
    "ls -la",
    "cat notes.txt",
    "head -n 2 notes.txt",
    "wc -l notes.txt data.csv",
    "grep -n foo notes.txt",
    "grep -c 'a b' notes.txt",
    "sed -n 1p notes.txt",
    "sed -n '1,2p' notes.txt",
    "sed 's/a/b/g' notes.txt",
    "awk '{print $1}' notes.txt",
    "awk -F, '{ print $2 }' data.csv",
    "awk 'NR > 1 { s += $2 } END { print s }' data.csv",
    "sort -u notes.txt",
    "cut -d, -f1 data.csv",
    "tr a b",
    "jq . data.json",
    "git log --oneline -3",
    "git status",
    "find . -name '*.txt'",
    "stat notes.txt",
    "du -sh .",
    "diff notes.txt data.csv",
    "xxd -l 16 notes.txt",
    "date +%Y",
    "echo hi",
    "printf '%s\\n' a b",
    "ls | head -n 1",
    "cat notes.txt | sort | uniq -c",
    "ls && cat notes.txt",
    "test -f notes.txt && echo yes",
    "for f in *.txt; do wc -l \"$f\"; done",
    "timeout 5 cat notes.txt",
    "nice -n 2 grep foo notes.txt",
    "cat <<'EOF'\nhello\nEOF",
    "grep foo <<< 'a foo'",
    "wc -l < notes.txt",
    "ls 2>/dev/null",
    "ls 2>&1 | head",
    "find . -name '*.txt' | xargs wc -l",
)

PAYLOADS = (
    "touch X",
    "rm -f notes.txt",
    "e touch X",
    "id",
    "sh -c id",
    "tee X",
)

# Pieces bash and a parser may read differently.
GLUE = (" ", "  ", "\t", " \\\n", "\\\n", " \\\n ", "\\ ", "\\\t", " # c\n", "\n", " ;", ";", " && ", " | ",
        "\\ \\\n", "\\\t\\\n", "\\;\\ \\\n", "\\;\\\n")
SPECIALS = (
    "\\", "\\\n", "\n", "'", '"', "#", ";", "&", "|", "$", "`", "{", "}", "(", ")", "<", ">", "\t", " ",
    "$'", "\\ ", '"\\\t"', "\\;", "!", "\\ \\\n", "\\;\\ \\\n", "*", "?", "[", "~", "=", "$(", "<(", ">&", "2>&1", "<<", "-",
    # found attacking again: carriage returns, unicode blanks, locale quoting, brace and
    # extended globs, named descriptors, read-write and process substitution
    "\r", "\r\n", "\\\r\n", "\u00a0", "\u3000", "\u2028", '$"', "{a,-exec}", "!(x)", "@(x|y)", "{fd}>", "<>", ">(", "$((", "a[$(id)]",
)


def quote_word(word: str, rng: random.Random) -> str:
    """The same word spelled another way bash accepts (or a near miss, on purpose)."""
    choice = rng.randrange(8)
    if choice == 0:
        return "'" + word.replace("'", "'\\''") + "'"
    if choice == 1:
        return '"' + word.replace("\\", "\\\\").replace('"', '\\"').replace("$", "\\$").replace("`", "\\`") + '"'
    if choice == 2:
        return "$'" + word.replace("\\", "\\\\").replace("'", "\\'") + "'"
    if choice == 3:
        return "".join("\\" + char if char.isalnum() and rng.random() < 0.3 else char for char in word)
    if choice == 4 and len(word) > 1:
        cut = rng.randrange(1, len(word))
        return word[:cut] + "''" + word[cut:]
    if choice == 5 and len(word) > 1:
        cut = rng.randrange(1, len(word))
        return word[:cut] + "\\\n" + word[cut:]
    if choice == 6:
        return word + rng.choice(("\\ ", "\\\t", '"\\\t"', "\\\\", "\\;"))
    return word


def mutate(base: str, rng: random.Random) -> str:
    """One variant of ``base``: requoted words, odd glue, inserted specials and payloads."""
    words = base.split(" ")
    command = words[0]
    for word in words[1:]:
        spelled = quote_word(word, rng) if rng.random() < 0.4 else word
        command += (rng.choice(GLUE) if rng.random() < 0.25 else " ") + spelled
    for _ in range(rng.randrange(3)):
        position = rng.randrange(len(command) + 1)
        command = command[:position] + rng.choice(SPECIALS) + command[position:]
    if rng.random() < 0.5:
        payload = rng.choice(PAYLOADS)
        if rng.random() < 0.5:
            payload = payload.replace(" ", rng.choice(("\\ ", "\\\t", "' '", '" "')))
        position = rng.randrange(len(command) + 1)
        glue = rng.choice(("\n", ";", "\\;", "\\;\\ \\\n", " # \n", "\\\n", "&", "|", "\n\\", "$'\\n'", "`"))
        command = command[:position] + glue + payload + command[position:]
    return command


def make_sandbox(root: Path) -> dict[str, Path]:
    """A directory of stubs, one per program name, each appending its argv to $STUB_LOG."""
    stubs = root / "stubs"
    stubs.mkdir()
    for name in PROGRAMS:
        stub = stubs / name
        # `"${0##*/}"` is the program name; NUL after each word.
        # One file per process ($$): calls in a pipeline run at once and must not interleave.
        stub.write_text('#!/bin/sh\nprintf \'%s\\000\' "${0##*/}" "$@" >> "$STUB_LOG.$$"\n')
        stub.chmod(0o755)
    return {"root": root, "stubs": stubs}


@pytest.fixture(scope="module")
def sandbox(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return make_sandbox(tmp_path_factory.mktemp("fuzz"))


def run_in_bash(command: str, sandbox: dict[str, Path], index: int) -> tuple[list[list[str]], list[str]]:
    """Run ``command`` with stub programs only; the argvs they logged and the files changed."""
    work = sandbox["root"] / f"w{index}"
    work.mkdir()
    (work / "notes.txt").write_text("foo a b\nbar\n")
    (work / "data.csv").write_text("a,1\nb,2\n")
    (work / "data.json").write_text("{}\n")
    before = {path.name: path.read_bytes() for path in work.iterdir()}
    log = sandbox["root"] / f"log{index}"
    env = {"PATH": str(sandbox["stubs"]), "STUB_LOG": str(log), "HOME": str(work), "LC_ALL": "C"}
    try:
        subprocess.run([BASH, "--norc", "--noprofile", "-c", command], cwd=work, env=env, stdin=subprocess.DEVNULL,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=5, check=False)
    except subprocess.TimeoutExpired:
        pass
    after = {path.name: path.read_bytes() for path in work.iterdir()}
    changed = sorted(name for name in set(before) | set(after) if before.get(name) != after.get(name))
    calls = []
    for record in sorted(log.parent.glob(log.name + ".*")):
        calls.append([part.decode("utf-8", "surrogateescape") for part in record.read_bytes().split(b"\x00")[:-1]])
        record.unlink()
    shutil.rmtree(work)
    return calls, changed


def literal_argvs(command: str) -> set[tuple[str, ...]] | None:
    """The argvs the parser sees, when every word is literal (no glob, no expansion):
    then bash must run exactly these, word for word."""
    parts = analyse_command(command).parts
    if not all(word.is_literal for part in parts for word in part.argv):
        return None
    return {tuple(word.value for word in part.argv) for part in parts}


def quote(word: str) -> str:
    """A word as one shell word; control characters spelled as ``$'\\xHH'``."""
    if not any(ord(char) < 32 and char not in "\t\n" or ord(char) == 127 for char in word):
        return shlex.quote(word)
    escaped = "".join(
        f"\\x{ord(char):02x}" if ord(char) < 32 or ord(char) == 127 or char in "\\'" else char for char in word
    )
    return f"$'{escaped}'"


def generate(count: int) -> list[str]:
    rng = random.Random(SEED)
    cases = list(dict.fromkeys(mutate(rng.choice(BASES), rng) for _ in range(count)))
    return cases


@pytest.mark.skipif(BASH is None, reason="bash is not installed")
def test_what_the_classifier_allows_is_what_bash_runs(sandbox: dict[str, Path]) -> None:
    allowed = [command for command in generate(CASES) if is_read_only_command(command)]
    # Not vacuous: a good share of the variants must reach bash.
    assert len(allowed) >= CASES // 10, len(allowed)
    failures = []
    for index, command in enumerate(allowed):
        calls, changed = run_in_bash(command, sandbox, index)
        expected = literal_argvs(command)
        for argv in calls:
            if expected is not None and tuple(argv) not in expected:
                failures.append((command, argv, "bash ran words the parser did not see"))
            plain = " ".join(quote(word) for word in argv)
            if not is_read_only_command(plain):
                failures.append((command, argv))
        if changed:
            failures.append((command, changed))
    assert not failures, "\n".join(repr(failure) for failure in failures[:20])


def test_the_oracle_sees_a_hidden_command(sandbox: dict[str, Path]) -> None:
    """The harness itself: a payload that runs is logged and re-checked as not read-only."""
    calls, changed = run_in_bash("sed -n 1p\\;\\ \\\ne\\ touch\\ X notes.txt; echo hi > Y", sandbox, 10**6)
    assert calls == [["sed", "-n", "1p; e touch X", "notes.txt"]]
    assert not is_read_only_command(" ".join(shlex.quote(word) for word in calls[0]))
    assert changed == ["Y"]


ESCAPED = (" ", "\t", ";", "&", "|", "<", ">", "(", ")", "#", "'", '"', "\\", "$", "`", "*")


@pytest.mark.parametrize("escaped", ESCAPED)
def test_an_escaped_character_before_a_line_continuation_joins_the_next_line(escaped: str) -> None:
    """The reported shape and its relatives: `\\X\\<newline>` glues the next line's text
    to the word, so bash and the parser disagree on the words."""
    for continuation in ("\\\n", "\\ \\\n", "\\\t\\\n"):
        for template in ("sed -n 1p\\{e}{c}e\\ touch\\ X notes.txt", "cat notes\\{e}{c}.txt", "grep a\\{e}{c}b notes.txt"):
            command = template.format(e=escaped, c=continuation)
            if is_read_only_command(command):
                calls, _ = _run_once(command)
                for argv in calls:
                    assert is_read_only_command(" ".join(quote(word) for word in argv)), (command, argv)


def _run_once(command: str) -> tuple[list[list[str]], list[str]]:
    import tempfile

    root = Path(tempfile.mkdtemp())
    try:
        return run_in_bash(command, make_sandbox(root), 0)
    finally:
        shutil.rmtree(root)
