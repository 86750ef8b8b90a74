"""The kernel's end of the live-notebook comm: one :class:`LiveChannel` per notebook page.

Comm callbacks may run on a kernel subshell's thread (JupyterLab's ``commsOverSubshells``)
or on the main thread, so every incoming message is handed to the event loop with
``loop.call_soon_threadsafe`` and all state here is touched on the loop's thread only.
Nothing waits for the browser unless a page has shown itself: without the extension
(nbclient, VS Code, a terminal) :meth:`LiveHub.attach_run` returns at once with ``None``.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
import uuid
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from nb_agent.jupyter.live.names import HELLO_TARGET_NAME, PROTOCOL_VERSION, TARGET_NAME, WIDGETS_VERSION

if TYPE_CHECKING:  # pydantic loads at the first message, not at %load_ext
    from nb_agent.jupyter.live.protocol import (
        Ack,
        CardCheck,
        EditMessage,
        Hello,
        Resume,
        Reverted,
        RevertMessage,
        RewindRequest,
        Snapshot,
    )

log = logging.getLogger(__name__)

SNAPSHOT_WAIT_S = 5.0
"""How long a run start waits for its snapshot when a connected page shows the cell. It is
normally there already (the page sends it before the execute request, on the main shell), but
a frontend whose comm uses a kernel subshell has it handled on another thread, which on a
loaded machine can be seconds late; giving up means file mode for the run."""
UNKNOWN_CELL_WAIT_S = 0.3
"""When pages are connected but none shows the running cell: a JupyterLab console (its
execute requests carry a ``cellId`` too) or a notebook cell made since the page's last
snapshot. A console must not wait long for a snapshot that never comes."""

OUTBOX_SIZE = 256
"""Messages a channel keeps for a page that asks for them again (``resume``): more than a
run sends while a websocket reconnects."""


@dataclass(kw_only=True)
class LiveChannel:
    """One page's comm and the latest state it reported.

    Every message the kernel sends on it is numbered (``seq``) and kept in :attr:`outbox`: a
    websocket that closes (a JupyterHub proxy's idle timeout, a gateway's reconnect) loses
    the messages in flight, and the page asks for them again by number (``resume``)."""

    comm: Any
    comm_id: str
    hello: Hello
    snapshot: Snapshot | None = None
    snapshot_at: float = 0.0
    closed: bool = False
    listeners: list[Callable[[Snapshot], None]] = field(default_factory=list)
    seq: int = 0
    outbox: deque[dict[str, Any]] = field(default_factory=lambda: deque(maxlen=OUTBOX_SIZE))

    def send(self, data: dict[str, Any]) -> dict[str, Any]:
        """Send ``data`` with the channel's next ``seq``; returns the message as sent."""
        self.seq += 1
        message = {**data, "seq": self.seq}
        self.outbox.append(message)
        if not self.closed:
            self.comm.send(message)
        return message

    def resend(self, message: dict[str, Any]) -> None:
        """Send a message again, with its own ``seq`` (the page handles each number once)."""
        if not self.closed:
            self.comm.send(message)

    def resume(self, last_seq: int) -> int:
        """The page has every message up to ``last_seq``: send the later ones again, in
        order; returns how many."""
        while self.outbox and self.outbox[0]["seq"] <= last_seq:
            self.outbox.popleft()
        for message in self.outbox:
            self.resend(message)
        return len(self.outbox)


class LiveHub:
    """Every page connected to this kernel, and the futures waiting for their replies."""

    def __init__(self) -> None:
        self.channels: dict[str, LiveChannel] = {}
        self.loop: asyncio.AbstractEventLoop | None = None
        self.acks: dict[str, Ack] = {}
        """Every acknowledgement received, by edit id (late ones too: reconciled at run end)."""
        self._ack_waiters: dict[str, asyncio.Future[Ack]] = {}
        self._snapshot_waiters: list[tuple[Callable[[LiveChannel, Snapshot], bool], asyncio.Future[tuple[LiveChannel, Snapshot]]]] = []
        self.registered = False
        self.last_problem: str | None = None
        self.on_reverted: Callable[[LiveChannel, Reverted], None] | None = None
        """Called when a page says the user reverted agent edits from a run's card."""
        self.on_resume: Callable[[LiveChannel], None] | None = None
        """Called when a page says it lost messages (its websocket came back): widgets' too."""
        self.on_rewind_request: Callable[[LiveChannel, RewindRequest], None] | None = None
        """Called when a run card's "Rewind this run" asks the kernel (on the loop's thread)."""
        self._revert_waiters: dict[str, asyncio.Future[Reverted]] = {}
        self.on_opened: Callable[[LiveChannel], None] | None = None
        """Called when a page opens its channel (on the loop's thread)."""
        self.on_card_check: Callable[[LiveChannel, CardCheck], None] | None = None
        """Called when a page asks whether an edits card is this kernel's (on the loop's thread)."""

    # --- setup -------------------------------------------------------------------------------
    def register(self) -> None:
        """Register the comm target and say hello to pages already open."""
        try:
            from comm import create_comm, get_comm_manager
        except ImportError as exc:
            self.last_problem = f"the comm package is missing ({exc})"
            return
        try:
            self.loop = asyncio.get_event_loop_policy().get_event_loop()
        except RuntimeError:
            self.loop = None
        manager = get_comm_manager()
        manager.register_target(TARGET_NAME, self._on_open)
        self.registered = True
        try:
            hello = create_comm(target_name=HELLO_TARGET_NAME, data={"protocol": PROTOCOL_VERSION})
            hello.close()
        except Exception:  # no frontend to greet (a terminal): nothing to do
            log.debug("hello comm failed", exc_info=True)

    def unregister(self) -> None:
        try:
            from comm import get_comm_manager

            get_comm_manager().unregister_target(TARGET_NAME, self._on_open)
        except Exception:  # noqa: BLE001
            pass
        self.registered = False

    def bind_loop(self) -> None:
        """Called on the loop's thread at each run start (the kernel's loop)."""
        self.loop = asyncio.get_running_loop()

    def _to_loop(self, fn: Callable[..., None], *args: Any) -> None:
        loop = self.loop
        if loop is None or loop.is_closed():
            fn(*args)
            return
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is loop and threading.current_thread() is threading.main_thread():
            fn(*args)
        else:
            loop.call_soon_threadsafe(fn, *args)

    # --- incoming ------------------------------------------------------------------------------
    def _on_open(self, comm: Any, message: dict[str, Any]) -> None:
        from nb_agent.jupyter.live.protocol import Hello, parse_incoming

        data = (message.get("content") or {}).get("data") or {}
        hello = parse_incoming(data)
        if not isinstance(hello, Hello):
            hello = Hello()
        comm.on_msg(lambda msg: self._to_loop(self._on_message, comm.comm_id, (msg.get("content") or {}).get("data")))
        comm.on_close(lambda _msg: self._to_loop(self._on_close, comm.comm_id))
        self._to_loop(self._opened, comm, hello)

    def _opened(self, comm: Any, hello: Hello) -> None:
        from nb_agent.jupyter.live.protocol import Welcome

        channel = LiveChannel(comm=comm, comm_id=comm.comm_id, hello=hello)
        self.channels[channel.comm_id] = channel
        channel.send(Welcome().model_dump(mode="json"))  # first: the page counts on the comm from here
        if hello.snapshot is not None:
            self._snapshot(channel, hello.snapshot)
        if self.on_opened is not None:
            try:
                self.on_opened(channel)
            except Exception:  # a page that cannot be told still gets its channel (logged)
                log.debug("telling a new page failed", exc_info=True)

    def _on_close(self, comm_id: str) -> None:
        channel = self.channels.pop(comm_id, None)
        if channel is not None:
            channel.closed = True

    def _on_message(self, comm_id: str, data: Any) -> None:
        from nb_agent.jupyter.live.protocol import (
            Ack,
            CardCheck,
            Resume,
            Reverted,
            RewindRequest,
            Snapshot,
            parse_incoming,
        )

        channel = self.channels.get(comm_id)
        message = parse_incoming(data)
        if channel is None or message is None:
            return
        if isinstance(message, Snapshot):
            self._snapshot(channel, message)
        elif isinstance(message, Ack):
            self._ack(message)
        elif isinstance(message, Resume):
            self._resume(channel, message)
        elif isinstance(message, Reverted):
            waiter = self._revert_waiters.pop(message.revert_id, None) if message.revert_id else None
            if waiter is not None:
                if not waiter.done():
                    waiter.set_result(message)
            elif self.on_reverted is not None:
                self.on_reverted(channel, message)
        elif isinstance(message, RewindRequest) and self.on_rewind_request is not None:
            self.on_rewind_request(channel, message)
        elif isinstance(message, CardCheck) and self.on_card_check is not None:
            self.on_card_check(channel, message)

    def _ack(self, ack: Ack) -> None:
        self.acks[ack.edit_id] = ack
        future = self._ack_waiters.pop(ack.edit_id, None)
        if future is not None and not future.done():
            future.set_result(ack)

    def _resume(self, channel: LiveChannel, resume: Resume) -> None:
        """The page's websocket came back (or it saw a gap): its acknowledgements again,
        its state, and the messages it lacks."""
        from nb_agent.jupyter.live.protocol import Resumed

        for ack in resume.acks:
            self._ack(ack)
        if resume.snapshot is not None:
            self._snapshot(channel, resume.snapshot)
        count = channel.resume(resume.last_seq)
        log.debug("page %s resumed after message %d: %d sent again", channel.comm_id, resume.last_seq, count)
        if self.on_resume is not None:
            self.on_resume(channel)
        channel.send(Resumed(last_seq=resume.last_seq).model_dump(mode="json"))

    def _snapshot(self, channel: LiveChannel, snapshot: Snapshot) -> None:
        if channel.snapshot is not None and snapshot.seq and snapshot.seq < channel.snapshot.seq:
            return  # an older one overtaken by a newer (subshell and main shell race)
        channel.snapshot, channel.snapshot_at = snapshot, time.monotonic()
        for listener in list(channel.listeners):
            listener(snapshot)
        for entry in list(self._snapshot_waiters):
            matches, future = entry
            if not future.done() and matches(channel, snapshot):
                future.set_result((channel, snapshot))

    # --- what a run uses -------------------------------------------------------------------------
    @property
    def connected(self) -> list[LiveChannel]:
        return [c for c in self.channels.values() if not c.closed]

    @property
    def pages_have_widgets(self) -> bool:
        """Whether a run's view may use the extension's widgets (``hello``'s ``widgets``): a
        page is connected and every connected page registered them. Any other frontend
        (nbclient, VS Code, a page without the extension or without ipywidgets) would show
        "model not found" where the answer should be, so it gets the stock HTML widgets."""
        pages = self.connected
        return bool(pages) and all(c.hello.widgets == WIDGETS_VERSION for c in pages)

    def _find(self, cell_id: str) -> tuple[LiveChannel, Snapshot] | None:
        found = [
            (c, c.snapshot) for c in self.connected if c.snapshot is not None and c.snapshot.executing_cell_id == cell_id
        ]
        if not found:
            return None
        found.sort(key=lambda pair: pair[0].snapshot_at)
        return found[-1]

    def _shows(self, cell_id: str) -> bool:
        """Whether a connected page's latest snapshot has the cell."""
        return any(c.snapshot is not None and any(cell.id == cell_id for cell in c.snapshot.cells) for c in self.connected)

    async def snapshot_for_cell(self, cell_id: str | None) -> tuple[LiveChannel, Snapshot] | None:
        """The page that runs ``cell_id`` and its snapshot, or ``None`` (no extension)."""
        if not cell_id:
            self.last_problem = "the execute request carries no cellId (not JupyterLab / Notebook 7)"
            return None
        if not self.registered:
            return None
        await asyncio.sleep(0)  # a snapshot handed to the loop from a comm thread
        found = self._find(cell_id)
        if found is not None:
            return found
        if not self.connected:  # no page announced itself: no extension, nothing to wait for
            self.last_problem = (
                "no nb-agent-live extension answered (it is not installed in this JupyterLab, or the frontend is not JupyterLab)"
            )
            return None
        known = self._shows(cell_id)
        wait = SNAPSHOT_WAIT_S if known else UNKNOWN_CELL_WAIT_S
        loop = asyncio.get_running_loop()
        future: asyncio.Future[tuple[LiveChannel, Snapshot]] = loop.create_future()
        entry = (lambda _c, s: s.executing_cell_id == cell_id, future)
        self._snapshot_waiters.append(entry)
        try:
            return await asyncio.wait_for(future, wait)
        except asyncio.TimeoutError:
            self.last_problem = (
                "no page of this notebook sent its state before the cell ran"
                if known
                else "the running cell is in no open notebook page (a console, or another frontend)"
            )
            return None
        finally:
            self._snapshot_waiters.remove(entry)

    async def request_snapshot(self, channel: LiveChannel, timeout: float) -> Snapshot | None:
        """A fresh snapshot from ``channel``'s page, if its reply arrives within ``timeout``."""
        from nb_agent.jupyter.live.protocol import RequestSnapshot

        request_id = uuid.uuid4().hex
        loop = asyncio.get_running_loop()
        future: asyncio.Future[tuple[LiveChannel, Snapshot]] = loop.create_future()
        entry = (lambda c, s: c is channel and s.request_id == request_id, future)
        self._snapshot_waiters.append(entry)
        try:
            channel.send(RequestSnapshot(request_id=request_id).model_dump(mode="json"))
            _, snapshot = await asyncio.wait_for(future, timeout)
            return snapshot
        except asyncio.TimeoutError:
            return None
        finally:
            self._snapshot_waiters.remove(entry)

    async def send_edit(self, channel: LiveChannel, edit: EditMessage, timeout: float) -> Ack | None:
        """Send ``edit`` and wait up to ``timeout`` for its acknowledgement (``None``: not yet;
        a later one lands in :attr:`acks`)."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[Ack] = loop.create_future()
        self._ack_waiters[edit.edit_id] = future
        sent = channel.send(edit.model_dump(mode="json"))
        if timeout <= 0:
            return None
        try:
            try:
                return await asyncio.wait_for(asyncio.shield(future), timeout)
            except asyncio.TimeoutError:
                # Lost in flight, with nothing after it to show the page a gap (a gateway's
                # reconnect the page never sees)? Once more, same number: never applied twice.
                channel.resend(sent)
                return await asyncio.wait_for(future, timeout)
        except asyncio.TimeoutError:
            return None
        finally:
            self._ack_waiters.pop(edit.edit_id, None)

    def start_revert(self, channel: LiveChannel, revert: RevertMessage) -> asyncio.Future[Reverted]:
        """Ask ``channel``'s page to revert edits; the future gets its answer (the page
        applies the revert whether or not anyone still waits for it)."""
        future: asyncio.Future[Reverted] = asyncio.get_running_loop().create_future()
        self._revert_waiters[revert.revert_id] = future
        future.add_done_callback(lambda _f: self._revert_waiters.pop(revert.revert_id, None))
        channel.send(revert.model_dump(mode="json"))
        return future

    def start_edit(self, channel: LiveChannel, edit: EditMessage) -> asyncio.Future[Ack]:
        """Send ``edit``; the future gets its acknowledgement (also kept in :attr:`acks`)."""
        future: asyncio.Future[Ack] = asyncio.get_running_loop().create_future()
        self._ack_waiters[edit.edit_id] = future
        future.add_done_callback(lambda _f: self._ack_waiters.pop(edit.edit_id, None))
        channel.send(edit.model_dump(mode="json"))
        return future
