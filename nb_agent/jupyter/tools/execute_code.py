"""ExecuteCode: run Python in the user's kernel namespace, as a notebook cell would.

The code goes through IPython's input transformers (magics, ``!shell``), runs in
``shell.user_ns`` on the kernel's main thread (variables persist), and a trailing
expression's value is formatted by IPython's display formatter. stdout/stderr and
``display()`` output are captured (and shown live on the tool card); new matplotlib
figures are saved as image blocks, so the model sees its plots, and closed. Every image
is fitted to what the model needs first (``fit_figure``: about 1,000 px, a palette PNG or
a JPEG, whichever is smaller), so a chart enters the conversation at a fraction of its
PNG size.

A Dask or Spark computation the code starts reports its progress on the card too (one
line, at most once a second, none for a call that ends fast: :mod:`compute_progress`),
and the model gets one line of what ran (``[compute] dask: 1,234 tasks``).

A kernel interrupt must stop even a busy synchronous loop: while user code runs, a
SIGINT handler raises ``KeyboardInterrupt`` in it *and* calls the previous handler
(ipykernel's, which cancels the cell), then is restored.
"""

from __future__ import annotations

import ast
import asyncio
import base64
import io
import itertools
import linecache
import re
import signal
import sys
import threading
import time
import traceback
import weakref
from collections.abc import Callable
from contextlib import contextmanager
from inspect import CO_COROUTINE
from types import CodeType
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from nb_agent.errors import AbortError
from nb_agent.jupyter.tools.bridge import KernelBridge
from nb_agent.jupyter.tools.compute_progress import ComputeWatch
from nb_agent.messages import INTERRUPT_MESSAGE, ContentBlock
from nb_agent.tools.base import ProgressCallback, Tool, ToolResult, ToolUseContext
from nb_agent.tools.files.media import fit_figure, image_block

MAX_STREAM_CHARS = 20_000
"""stdout and stderr are each cut to this many characters (head and tail kept)."""
MAX_RESULT_CHARS = 10_000
MAX_IMAGES = 6
MAX_IMAGE_BYTES = 3_750_000
PROGRESS_INTERVAL_S = 0.2
LIVE_INTERVAL_S = 0.25
PROGRESS_TAIL_CHARS = 4_000

_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
_counter = itertools.count(1)


def strip_ansi(text: str) -> str:
    return _ANSI.sub("", text)


def _cut(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    head = limit // 4
    tail = limit - head
    return f"{text[:head]}\n[... {len(text) - limit:,} characters truncated ...]\n{text[-tail:]}"


class ExecuteCodeInput(BaseModel):
    model_config = ConfigDict(extra="forbid")

    code: str = Field(description="Python code to run in the user's kernel (IPython syntax such as %magics and !shell is allowed)")
    description: str | None = Field(
        default=None, description="What the code does, in 5-10 words, e.g. 'Plot monthly sales by region'"
    )


class ExecuteCodeResult(BaseModel):
    """What a run produced; the images travel as content blocks, not here."""

    model_config = ConfigDict(frozen=True)

    code: str
    stdout: str = ""
    stderr: str = ""
    result: str | None = None
    """The trailing expression's value as text (``text/plain``)."""
    displays: list[str] = Field(default_factory=list)
    """Text of ``display()`` outputs."""
    error: str | None = None
    """The traceback (ANSI stripped) when the code raised."""
    image_count: int = 0
    images_omitted: int = 0
    namespace: list[str] = Field(default_factory=list)
    """What the call changed in the user's variables, one bounded line per change."""
    compute: str | None = None
    """One line of the Dask or Spark computation the code ran (never its progress)."""

    def to_text(self) -> str:
        parts: list[str] = []
        if self.stdout:
            parts.append(f"[stdout]\n{self.stdout.rstrip()}")
        if self.stderr:
            parts.append(f"[stderr]\n{self.stderr.rstrip()}")
        for text in self.displays:
            parts.append(f"[display]\n{text.rstrip()}")
        if self.result is not None:
            parts.append(f"[result]\n{self.result.rstrip()}")
        if self.image_count:
            parts.append(f"[{self.image_count} image(s) attached below]")
        if self.images_omitted:
            parts.append(f"[{self.images_omitted} more image(s) omitted]")
        if self.namespace:
            parts.append("[variables changed]\n" + "\n".join(self.namespace))
        if self.compute:
            parts.append(f"[compute]\n{self.compute}")
        if self.error:
            parts.append(f"[error]\n{self.error.rstrip()}")
        return "\n\n".join(parts) if parts else "(the code ran without output)"


class _LiveStream(io.TextIOBase):
    """A stdout/stderr replacement that keeps everything and reports the tail."""

    def __init__(self, name: str, sink: Callable[[], None]) -> None:
        self.name = name
        self.parts: list[str] = []
        # Weak: the sink is a method of the capture that owns this stream; a strong reference
        # back would make each call's capture a cycle that only a full collection frees.
        self._sink = weakref.WeakMethod(sink)
        self._lock = threading.Lock()

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        if not isinstance(text, str):
            text = str(text)
        with self._lock:
            self.parts.append(text)
        if (sink := self._sink()) is not None:  # None once the call is over and its capture gone
            sink()
        return len(text)

    def flush(self) -> None:
        pass

    def isatty(self) -> bool:
        return False

    @property
    def encoding(self) -> str:
        return "utf-8"

    def getvalue(self) -> str:
        with self._lock:
            return "".join(self.parts)


class _Capture:
    """stdout, stderr and display() of one run, with throttled progress reports.

    A progress report is ``{"output_tail": ..., "compute": ...}`` (the computation's line,
    when there is one). While synchronous user code blocks the loop, reports go straight to
    the card (``live``), under the gate's lock so the compute thread's report never
    overlaps the main thread's or the loop's own view updates; otherwise through
    ``on_progress`` on the loop."""

    def __init__(self, on_progress: ProgressCallback, live: Callable[[dict[str, Any]], None] | None, gate: _InterruptGate) -> None:
        self._on_progress = on_progress
        self._live = live
        self._gate = gate
        self.compute: str | None = None
        self._loop = asyncio.get_running_loop()
        self._loop_thread = threading.current_thread()
        self.stdout = _LiveStream("stdout", self._report)
        self.stderr = _LiveStream("stderr", self._report)
        self.displays: list[dict[str, Any]] = []
        self._last_progress = 0.0
        self._last_live = 0.0
        self._main = threading.main_thread()

    def tail(self) -> str:
        text = self.stdout.getvalue() + self.stderr.getvalue()
        return strip_ansi(text[-PROGRESS_TAIL_CHARS:])

    def progress(self) -> dict[str, Any]:
        report: dict[str, Any] = {"output_tail": self.tail()}
        if self.compute is not None:
            report["compute"] = self.compute
        return report

    def _report(self) -> None:
        now = time.monotonic()
        if now - self._last_progress >= PROGRESS_INTERVAL_S:
            self._last_progress = now
            self._progress_on_loop()
        # While synchronous code blocks the loop, only a direct widget update is seen.
        if threading.current_thread() is self._main and now - self._last_live >= LIVE_INTERVAL_S:
            self._last_live = now
            self._push_live()

    def _push_live(self) -> bool:
        """Show the progress on the card now if synchronous user code blocks the loop."""
        if self._live is None:
            return False
        with self._gate.lock:
            if not self._gate.armed:
                return False
            try:
                self._live(self.progress())
            except Exception:  # noqa: BLE001 - display trouble must not break the user's code
                pass
            return True

    def watch_computations(self) -> ComputeWatch:
        """Start watching the Dask/Spark work of this call (reports come on its thread)."""
        return ComputeWatch(self._report_compute)

    def _report_compute(self, line: str) -> None:
        self.compute = line
        if not self._push_live():
            self._progress_on_loop()  # the code awaits: the loop shows it

    def _progress_on_loop(self) -> None:
        """``on_progress`` on the loop's thread: it wakes the loop's waiter, which another
        thread (a Dask task's print, the compute watcher) must not do itself."""
        if threading.current_thread() is self._loop_thread:
            self._on_progress(self.progress())
            return
        try:
            self._loop.call_soon_threadsafe(lambda: self._on_progress(self.progress()))
        except RuntimeError:  # the loop closed meanwhile: nobody to show it to
            pass

    def final_progress(self) -> None:
        if self.stdout.parts or self.stderr.parts or self.compute is not None:
            self._on_progress(self.progress())


@contextmanager
def _redirected(shell: Any, capture: _Capture):
    from IPython.core.displaypub import CapturingDisplayPublisher

    saved = sys.stdout, sys.stderr, getattr(shell, "display_pub", None)
    sys.stdout, sys.stderr = capture.stdout, capture.stderr
    publisher = CapturingDisplayPublisher()
    if saved[2] is not None:
        shell.display_pub = publisher
    try:
        yield
    finally:
        sys.stdout, sys.stderr = saved[0], saved[1]
        if saved[2] is not None:
            shell.display_pub = saved[2]
        capture.displays.extend(publisher.outputs)


class _InterruptGate:
    """Turns SIGINT into KeyboardInterrupt only while synchronous user code runs.

    ``armed`` also says the loop is blocked, so other threads may update the card; they
    hold ``lock`` while they do, and disarming takes it (no update overlaps the loop's)."""

    def __init__(self) -> None:
        self.armed = False
        self.lock = threading.Lock()
        self.fired = False
        self._previous: Any = None
        self._installed = False

    def __enter__(self) -> _InterruptGate:
        if threading.current_thread() is threading.main_thread():
            try:
                self._previous = signal.getsignal(signal.SIGINT)
                signal.signal(signal.SIGINT, self._handle)
                self._installed = True
            except (ValueError, OSError):  # not the main interpreter thread
                self._installed = False
        return self

    def __exit__(self, *exc: Any) -> None:
        if self._installed:
            signal.signal(signal.SIGINT, self._previous)

    def _handle(self, signum: int, frame: Any) -> None:
        previous = self._previous
        if callable(previous) and previous is not signal.default_int_handler:
            previous(signum, frame)  # ipykernel: schedule the cell's cancellation
        if self.armed:
            self.fired = True
            raise KeyboardInterrupt
        if previous is signal.default_int_handler:
            previous(signum, frame)


def _transform(shell: Any, code: str) -> str:
    """IPython syntax (magics, ``!shell``) to Python, with the shell's own transformers."""
    manager = getattr(shell, "input_transformer_manager", None) or getattr(shell, "transformer_manager", None)
    return manager.transform_cell(code) if manager is not None else code


def _compile_parts(tree: ast.Module, filename: str) -> tuple[Any, Any]:
    """``(body code, trailing expression code or None)``; top-level await allowed."""
    last = None
    statements = tree.body
    if statements and isinstance(statements[-1], ast.Expr):
        last = ast.Expression(statements[-1].value)
        statements = statements[:-1]
    flags = ast.PyCF_ALLOW_TOP_LEVEL_AWAIT
    body = compile(ast.Module(body=statements, type_ignores=tree.type_ignores), filename, "exec", flags=flags, dont_inherit=True)
    expr = compile(last, filename, "eval", flags=flags, dont_inherit=True) if last is not None else None
    return body, expr


def _defines_code(*codes: CodeType | None) -> bool:
    """Whether running ``codes`` makes code that can run later (a function, lambda, class or
    generator): its traceback, or ``inspect.getsource``, reads the call's lines then."""
    return any(isinstance(const, CodeType) for code in codes if code is not None for const in code.co_consts)


def _format_exception(exc: BaseException, filename: str) -> str:
    tb = exc.__traceback__
    while tb is not None and tb.tb_frame.f_code.co_filename != filename:
        tb = tb.tb_next
    lines = traceback.format_exception(type(exc), exc, tb or exc.__traceback__)
    return strip_ansi("".join(lines))


def _open_figures() -> set[int]:
    plt = sys.modules.get("matplotlib.pyplot")
    return set(plt.get_fignums()) if plt is not None else set()


def _collect_figures(before: set[int], skip: set[int]) -> list[str]:
    """PNG (base64) of every figure opened by the code; closed unless interactive."""
    plt = sys.modules.get("matplotlib.pyplot")
    if plt is None:
        return []
    images: list[str] = []
    backend = str(plt.get_backend()).lower()
    closes = "inline" in backend or "agg" in backend
    for number in plt.get_fignums():
        if number in before:
            continue
        figure = plt.figure(number)
        if number not in skip:
            buffer = io.BytesIO()
            try:
                figure.savefig(buffer, format="png", bbox_inches="tight")
                images.append(base64.b64encode(buffer.getvalue()).decode("ascii"))
            except Exception:  # noqa: BLE001 - a figure that cannot render is skipped
                pass
        if closes:
            plt.close(figure)
    return images


def _display_parts(outputs: list[dict[str, Any]]) -> tuple[list[str], list[str]]:
    texts: list[str] = []
    images: list[str] = []
    for output in outputs:
        data = output.get("data") or {}
        if "image/png" in data:
            payload = data["image/png"]
            images.append(payload if isinstance(payload, str) else base64.b64encode(payload).decode("ascii"))
        elif "text/plain" in data:
            texts.append(_cut(strip_ansi(str(data["text/plain"])), MAX_RESULT_CHARS))
    return texts, images


def _fitted(png_base64: str) -> tuple[str, str]:
    """A PNG (base64) as the model needs it: ``(media type, base64)``."""
    try:
        raw = base64.b64decode(png_base64, validate=True)
    except ValueError:
        return "image/png", png_base64
    media_type, fitted = fit_figure(raw)
    return media_type, base64.b64encode(fitted).decode("ascii") if fitted is not raw else png_base64


_PROMPT = """\
Runs Python code in the user's live Jupyter kernel, in the same namespace as their notebook cells.

- Variables, imports and functions you define persist and are visible to the user's cells (and theirs to you). Prefer inspecting existing variables (InspectVariables) over recomputing them.
- IPython syntax works: %magics, %%cell magics and !shell commands.
- The value of a trailing expression is returned (like a notebook cell's Out), together with stdout, stderr and display() output. DataFrames come back as text.
- Matplotlib figures created by the code are returned as images you can see, then closed. Do not call plt.show() in a loop; one figure per idea.
- Exceptions come back as an error with the traceback; fix the code and try again.
- Long-running code blocks the kernel: keep each call short, and never start servers or infinite loops.
- Do not print huge outputs; summarize data (df.head(), df.describe(), len(...)) instead."""


class ExecuteCode(Tool[ExecuteCodeInput]):
    """Run Python in the user's namespace.

    Not read-only and not concurrency-safe. It leaves permissions to the rule engine,
    which asks for it in ``default`` and ``acceptEdits`` mode (suggesting the rule
    ``ExecuteCode``), refuses it in ``plan`` mode, and lets an ``ExecuteCode`` allow rule
    (an "Always allow" answer) stop the asking. A tool-level ask here would outrank that
    allow rule, so "Always allow" could never take effect.
    """

    name = "ExecuteCode"
    input_model = ExecuteCodeInput
    repeats_its_content = True  # the structured output is its text again: kept once
    search_hint = "run python code in the jupyter kernel namespace"
    max_result_size_chars = 30_000
    shared_resource = "kernel"  # one at a time across parallel subagents

    def __init__(self, bridge: KernelBridge) -> None:
        self.bridge = bridge

    def prompt(self) -> str:
        return _PROMPT

    def user_facing_name(self, input: ExecuteCodeInput | None = None) -> str:
        return "Python"

    def interrupt_behavior(self) -> str:
        return "cancel"

    async def call(self, input: ExecuteCodeInput, ctx: ToolUseContext, on_progress: ProgressCallback) -> ToolResult:
        shell = self.bridge.shell
        filename = f"<agent-code-{next(_counter)}>"
        try:
            source = _transform(shell, input.code)
            tree = ast.parse(source, filename=filename, mode="exec")
            body, expr = _compile_parts(tree, filename)
        except SyntaxError as exc:
            error = strip_ansi("".join(traceback.format_exception_only(type(exc), exc)))
            return ToolResult(data=ExecuteCodeResult(code=input.code, error=error), is_error=True)
        watch = self.bridge.watch_namespace(tree)
        linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)

        live = self.bridge.live_output
        gate = _InterruptGate()
        capture = _Capture(on_progress, (lambda progress: live(self.name, progress)) if live is not None else None, gate)
        figures_before = _open_figures()
        value: Any = None
        error: str | None = None
        interrupted = False
        computations = capture.watch_computations()
        stopped = True  # until the code ran to its end: cancel what it started
        try:
            with gate, _redirected(shell, capture):
                try:
                    await self._run(body, shell.user_ns, gate)
                    if expr is not None:
                        value = await self._run(expr, shell.user_ns, gate, evaluate=True)
                except KeyboardInterrupt:
                    interrupted = True
                except (Exception, SystemExit) as exc:  # noqa: BLE001 - the user's code failed: the model reads why
                    error = _format_exception(exc, filename)
            stopped = interrupted or gate.fired
        finally:  # also when interrupted or cancelled: the checkpoint of a half-run call is kept
            computations.close(cancel=stopped)
            changes = watch.finish()
            if not _defines_code(body, expr):
                # Nothing of the call can run again, so its lines are not read again (its own
                # traceback is formatted above). Kept for every call, a long session's entries
                # stay behind %agent new and hold pymalloc arenas its peak opened.
                linecache.cache.pop(filename, None)
        capture.final_progress()
        if interrupted or gate.fired:
            _collect_figures(figures_before, set())  # close what the code opened
            raise AbortError(INTERRUPT_MESSAGE)
        return self._result(input.code, capture, value, error, figures_before, changes, computations.summary())

    async def _run(self, code: Any, namespace: dict[str, Any], gate: _InterruptGate, *, evaluate: bool = False) -> Any:
        if code.co_flags & CO_COROUTINE:
            return await eval(code, namespace)  # runs on the loop: interrupt = cancellation
        self.bridge.flush_before_blocking()
        gate.armed = True
        try:
            return eval(code, namespace) if evaluate else exec(code, namespace)
        finally:
            gate.armed = False
            with gate.lock:  # a report another thread is making ends first
                pass

    def _result(
        self, code: str, capture: _Capture, value: Any, error: str | None, figures_before: set[int], changes: list[str], compute: str | None
    ) -> ToolResult:
        shell = self.bridge.shell
        result_text: str | None = None
        value_images: list[str] = []
        figure_numbers: set[int] = set()
        if value is not None:
            number = getattr(value, "number", None)
            if number is not None and type(value).__name__ == "Figure":
                figure_numbers.add(number)
            try:
                data, _ = shell.display_formatter.format(value)
            except Exception:  # noqa: BLE001 - a broken repr still gives the model something
                data = {"text/plain": repr(value)}
            result_text = _cut(strip_ansi(str(data.get("text/plain", ""))), MAX_RESULT_CHARS)
            if "image/png" in data:
                payload = data["image/png"]
                value_images.append(payload if isinstance(payload, str) else base64.b64encode(payload).decode("ascii"))
        display_texts, display_images = _display_parts(capture.displays)
        images = [*display_images, *value_images, *_collect_figures(figures_before, figure_numbers)]
        kept = [_fitted(i) for i in images[:MAX_IMAGES]]
        kept = [(media_type, data) for media_type, data in kept if len(data) * 3 // 4 <= MAX_IMAGE_BYTES]
        omitted = len(images) - len(kept)
        data = ExecuteCodeResult(
            code=code,
            stdout=_cut(strip_ansi(capture.stdout.getvalue()), MAX_STREAM_CHARS),
            stderr=_cut(strip_ansi(capture.stderr.getvalue()), MAX_STREAM_CHARS),
            result=result_text,
            displays=display_texts,
            error=error,
            image_count=len(kept),
            images_omitted=omitted,
            namespace=changes,
            compute=compute,
        )
        return ToolResult(data=_WithImages(result=data, images=kept), is_error=error is not None)

    def map_result_to_block(self, data: Any, tool_use_id: str) -> str | list[ContentBlock]:
        if isinstance(data, _WithImages):
            text = data.result.to_text()
            if not data.images:
                return text
            blocks: list[ContentBlock] = [{"type": "text", "text": text}]
            blocks += [image_block(media_type, image) for media_type, image in data.images]
            return blocks
        if isinstance(data, ExecuteCodeResult):
            return data.to_text()
        return super().map_result_to_block(data, tool_use_id)


class _WithImages(BaseModel):
    """The result plus its images, ``(media type, base64)`` (they become image blocks for the model)."""

    model_config = ConfigDict(frozen=True)

    result: ExecuteCodeResult
    images: list[tuple[str, str]] = Field(default_factory=list, exclude=True)

    @property
    def code(self) -> str:
        return self.result.code
