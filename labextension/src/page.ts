/**
 * One notebook page's channel to its kernel: the page opens its own comm (so a message
 * the kernel sends on it is handled by this page only, even with several pages on one
 * notebook), sends snapshots, applies edits and acknowledges them.
 */
import { NotebookPanel } from '@jupyterlab/notebook';
import { Cell } from '@jupyterlab/cells';
import { CommsOverSubshells, Kernel, KernelMessage } from '@jupyterlab/services';
import { applyEdit, revealCell, revertEdits } from './edits';
import { EDITS_MIME, EditsCard } from './editsCard';
import { changedCells, markForReview } from './review';
import { REWIND_MIME, RewindAnswer, RewindAsk, RewindCard } from './rewindCard';
import { AskKeyboard } from './keyboard';
import { showRunView } from './runView';
import type { AckError, EditOp, EditsCard as IEditsCard, FromKernel, FromPage, Hello, Snapshot } from './protocol';
import { Inbox } from './inbox';
import { Retry } from './retry';
import { takeSnapshot } from './snapshot';

export const TARGET_NAME = 'nb_agent.live';
export const HELLO_TARGET_NAME = 'nb_agent.live.hello';
export const PROTOCOL_VERSION = 1;
const CHANGE_DEBOUNCE_MS = 250;
/** A rewind waits for the page's revert and may snapshot a large folder: a generous bound
 * that only tells "the kernel is working" from "the kernel will not answer". */
const REWIND_REPLY_MS = 300_000;
const AGENT_CELL = /^\s*%%agent(\s|$)/;

/** What a comm message carries (JSON). */
type CommData = Parameters<Kernel.IComm['send']>[0];

export class LivePage {
  private comm: Kernel.IComm | null = null;
  private kernel: Kernel.IKernelConnection | null = null;
  private seq = 0;
  private runActive = false;
  private changeTimer: number | null = null;
  private disposed = false;
  private inbox = new Inbox();
  private reconnecting = false;
  /** The kernel answered on this comm (its `welcome`): its hello arrived. */
  private confirmed = false;
  /** Opens the comm again while no `welcome` comes (an open, or a close, lost on the way). */
  private readonly reopen = new Retry(() => this.reopenUnconfirmed());
  /** What the comm was last opened for: a reopen takes a fresh snapshot of the same kind. */
  private openedFor: string | null = null;
  /** Sends `resume` again while no `resumed` comes (it travels on a socket that just came back). */
  private readonly resumeAgain = new Retry(() => {
    this.askResume(true);
    return this.isOpen;
  });
  /** Kernel messages handled, for the browser tests (edit ids applied here). */
  readonly applied: string[] = [];
  /** What this page did to agent edits (`applied`, `refused`, `undone`): the cards' truth. */
  private readonly editStates = new Map<string, string>();
  /** The edits cards rendered in this page (refreshed when the kernel's rewind reverts). */
  readonly cards = new Set<EditsCard>();
  private replies = new Map<string, (reply: RewindAnswer) => void>();
  /** The kernel's answer about each run's card, asked once per channel (`card_check`). */
  private vouched = new Map<string, Promise<IEditsCard | null>>();
  private cardChecks = new Map<string, (card: IEditsCard | null) => void>();
  /** `run_view` messages that changed a cell here (`live` or `ended`), for the browser tests. */
  readonly runViews: string[] = [];
  /** The keyboard path to the asks shown in this notebook. */
  readonly keyboard: AskKeyboard;

  constructor(
    readonly panel: NotebookPanel,
    readonly serverRoot: string | null = null,
    /** The version of the extension's widgets registered in this page (0: none), said in `hello`. */
    readonly widgets = 0
  ) {
    this.keyboard = new AskKeyboard(panel);
    // The card of a run's edits, rendered in this notebook's outputs (the panel's own
    // rendermime): its buttons act on this notebook. Safe: it builds text nodes only, and an
    // output the page does not trust gets buttons only when the kernel vouches for the card.
    panel.content.rendermime.addFactory(
      {
        safe: true,
        mimeTypes: [EDITS_MIME],
        defaultRank: 40,
        createRenderer: () =>
          new EditsCard(panel, {
            tellKernel: data => this.send(data),
            known: editId => this.editStates.get(editId),
            undone: editIds => editIds.forEach(id => this.editStates.set(id, 'undone')),
            cards: this.cards,
            vouch: runId => this.vouch(runId)
          })
      },
      40
    );
    // The run card's "Rewind this run" asks the kernel (the state it rewinds is there).
    panel.content.rendermime.addFactory(
      {
        safe: false,
        mimeTypes: [REWIND_MIME],
        defaultRank: 40,
        createRenderer: () => new RewindCard(request => this.askKernel(request))
      },
      40
    );
    const session = panel.sessionContext;
    session.kernelChanged.connect(() => this.connectKernel());
    session.ready.then(() => this.connectKernel()).catch(() => undefined);
    panel.context.ready
      .then(() => {
        panel.model?.contentChanged.connect(() => this.contentChanged());
      })
      .catch(() => undefined);
  }

  static isAgentCell(cell: Cell): boolean {
    return (
      cell.model.type === 'code' && AGENT_CELL.test(cell.model.sharedModel.getSource())
    );
  }

  get isOpen(): boolean {
    return this.comm !== null && !this.comm.isDisposed;
  }

  dispose(): void {
    this.disposed = true;
    this.reopen.cancel();
    this.resumeAgain.cancel();
    this.keyboard.dispose();
    this.kernel?.anyMessage.disconnect(this.afterRestartAsked, this);
    this.closeComm();
  }

  /** The snapshot goes out right before the execute request of a `%%agent` cell. */
  beforeAgentCell(cellId: string): void {
    this.connectKernel(false);
    const snapshot = this.snapshot('execute', cellId);
    if (this.isOpen && this.confirmed) {
      this.send(snapshot);
    } else {
      this.openComm(snapshot, cellId); // a comm the kernel never welcomed may be a dead one
    }
  }

  private snapshot(
    reason: 'execute' | 'request' | 'change' | 'open',
    executingCellId: string | null = null,
    requestId: string | null = null
  ): Snapshot {
    this.seq += 1;
    return takeSnapshot(this.panel, {
      reason,
      seq: this.seq,
      executingCellId,
      requestId
    });
  }

  private connectKernel(open = true): void {
    const kernel = this.panel.sessionContext.session?.kernel ?? null;
    if (kernel === this.kernel) {
      return;
    }
    this.closeComm();
    this.kernel?.connectionStatusChanged.disconnect(this.connectionChanged, this);
    this.kernel?.anyMessage.disconnect(this.afterRestartAsked, this);
    this.kernel = kernel;
    if (!kernel) {
      return;
    }
    kernel.connectionStatusChanged.connect(this.connectionChanged, this);
    kernel.anyMessage.connect(this.afterRestartAsked, this);
    // The kernel says hello when nb_agent loads (e.g. `%load_ext nb_agent`): open then.
    kernel.registerCommTarget(HELLO_TARGET_NAME, () => {
      if (!(this.isOpen && this.confirmed) && this.kernel === kernel) {
        this.openComm(null);
      }
    });
    if (open) {
      this.openComm(null);
    }
  }

  private openComm(
    snapshot: Snapshot | null,
    executingCellId: string | null = null,
    retrying = false
  ): void {
    const kernel = this.kernel;
    if (!kernel || this.disposed || !this.panel.model) {
      return;
    }
    this.closeComm(); // one comm per page: the kernel drops the channel it closes
    this.confirmed = false;
    this.openedFor = executingCellId;
    this.resumeAgain.cancel();
    const comm = kernel.createComm(TARGET_NAME);
    // Our comm stays on the main shell (ipykernel >= 7.4 dispatches comm messages there
    // even while an async cell runs). With JupyterLab's per-comm-target subshell, the
    // first comm (opened before nb_agent is loaded, closed by the kernel) deletes the
    // target's subshell after the next comm has already taken its id, so that comm's
    // messages (the snapshot before an %%agent cell) went to a deleted subshell and
    // were dropped. Set right after creation, before the subshell is requested.
    (comm as unknown as { commsOverSubshells: CommsOverSubshells }).commsOverSubshells =
      CommsOverSubshells.Disabled;
    this.comm = comm;
    this.inbox.reset();
    this.vouched.clear(); // perhaps another kernel: ask it again
    this.cardChecks.clear();
    this.runActive = false; // a new comm: a new kernel, or nb_agent loaded again
    // What a kernel sends on this comm: a newer kernel's types fall through onMessage's switch.
    comm.onMsg = (msg: KernelMessage.ICommMsgMsg) => {
      if (this.comm === comm && !this.confirmed) {
        this.confirmed = true;
        this.reopen.cancel();
      }
      this.onMessage(msg.content.data as unknown as FromKernel);
    };
    comm.onClose = () => {
      if (this.comm === comm) {
        this.comm = null; // nb_agent not loaded (yet), or the kernel went away
        this.reopen.cancel(); // the kernel answered: its hello opens the comm again
      }
      for (const [id, answer] of this.replies) {
        this.replies.delete(id);
        answer({ error: 'nb_agent is not loaded in this kernel (run %load_ext nb_agent), or the kernel went away.' });
      }
    };
    const hello: Hello = {
      type: 'hello',
      protocol: PROTOCOL_VERSION,
      frontend: 'jupyterlab',
      notebook_path: this.panel.context.path,
      server_root: this.serverRoot,
      widgets: this.widgets,
      snapshot: snapshot ?? this.snapshot('open')
    };
    comm.open(toJSON(hello));
    if (!retrying) {
      this.reopen.cancel(); // a new open: a full set of tries
    }
    this.reopen.start();
  }

  /** No `welcome` on the comm in time: open it again, with a fresh snapshot of the same kind. */
  private reopenUnconfirmed(): boolean {
    if (this.confirmed || !this.isOpen || this.disposed) {
      return false; // nothing to do any more
    }
    if (this.kernel?.connectionStatus !== 'connected') {
      return true; // ask again later, when it can travel
    }
    const cellId = this.openedFor;
    this.openComm(cellId === null ? null : this.snapshot('execute', cellId), cellId, true);
    return false; // openComm went on with the tries
  }

  private closeComm(): void {
    const comm = this.comm;
    this.comm = null;
    if (comm && !comm.isDisposed) {
      try {
        comm.close();
      } catch {
        // the kernel is gone already
      }
    }
  }

  private send(data: FromPage): void {
    if (this.comm && !this.comm.isDisposed) {
      this.comm.send(toJSON(data));
    }
  }

  /** Send a `rewind_request`; resolves with the kernel's `rewind_reply` (or an error). */
  askKernel(request: RewindAsk): Promise<RewindAnswer> {
    if (!this.isOpen) {
      this.connectKernel();
      this.openComm(null);
    }
    if (!this.isOpen) {
      return Promise.resolve({ error: 'The kernel is not connected, or nb_agent is not loaded in it.' });
    }
    const requestId = `${Date.now()}-${Math.random().toString(16).slice(2)}`;
    return new Promise(resolve => {
      const timer = window.setTimeout(() => {
        this.replies.delete(requestId);
        resolve({ error: 'The kernel did not answer (is it busy or gone?).' });
      }, REWIND_REPLY_MS);
      this.replies.set(requestId, reply => {
        window.clearTimeout(timer);
        resolve(reply);
      });
      this.send({ type: 'rewind_request', request_id: requestId, ...request });
    });
  }

  /** Whether the kernel made the card of run `runId` (its card), asked once per channel;
   * `undefined` while the channel is not confirmed (cards are rendered again at `welcome`). */
  vouch(runId: string): Promise<IEditsCard | null> | undefined {
    if (!(this.isOpen && this.confirmed)) {
      return undefined;
    }
    let answer = this.vouched.get(runId);
    if (!answer) {
      const requestId = `${Date.now()}-${Math.random().toString(16).slice(2)}`;
      answer = new Promise(resolve => this.cardChecks.set(requestId, resolve));
      this.vouched.set(runId, answer);
      this.send({ type: 'card_check', request_id: requestId, run_id: runId });
    }
    return answer;
  }

  private contentChanged(): void {
    if (!this.runActive || !this.isOpen) {
      return;
    }
    if (this.changeTimer !== null) {
      window.clearTimeout(this.changeTimer);
    }
    this.changeTimer = window.setTimeout(() => {
      this.changeTimer = null;
      if (this.runActive) {
        this.send(this.snapshot('change'));
      }
    }, CHANGE_DEBOUNCE_MS);
  }

  /**
   * The kernel's websocket came back after closing (the comm and the kernel are the same;
   * messages in flight were lost): ask for what this page lacks.
   */
  private connectionChanged(
    _: Kernel.IKernelConnection,
    status: Kernel.ConnectionStatus
  ): void {
    if (status !== 'connected') {
      this.reconnecting = true;
    } else if (this.reconnecting) {
      this.reconnecting = false;
      this.askResume(true);
    }
  }

  /**
   * JupyterLab's Restart disposes the page's comms (and forgets the running cell's display
   * id) before it asks the server to restart the kernel, so what the going kernel says last
   * reaches no handler: the run's end, which replaces its dead live view with what the run
   * showed and "Stopped by a kernel restart". The connection still reports every message it
   * receives: take that one from there.
   */
  private afterRestartAsked(
    _: Kernel.IKernelConnection,
    args: Kernel.IAnyMessageArgs
  ): void {
    const comm = this.comm;
    const msg = args.msg;
    if (args.direction !== 'recv' || msg.header.msg_type !== 'comm_msg' || !comm?.isDisposed) {
      return; // a comm that is still open gets its messages the usual way
    }
    const content = (msg as KernelMessage.ICommMsgMsg).content;
    const data = content.data as unknown as FromKernel;
    if (content.comm_id === comm.commId && data.type === 'run_view' && data.phase === 'ended') {
      if (showRunView(this.panel, data)) {
        this.runViews.push('ended after a restart');
      }
    }
  }

  private askResume(force: boolean): void {
    if (!this.isOpen) {
      return;
    }
    const snapshot = this.runActive ? this.snapshot('change') : null;
    const resume = this.inbox.resume(snapshot, force);
    if (resume) {
      this.send(resume as unknown as FromPage);
      this.resumeAgain.start();
    }
  }

  private onMessage(data: FromKernel): void {
    const verdict = this.inbox.accept(data as unknown as { [key: string]: any });
    if (verdict === 'gap') {
      this.askResume(false); // the kernel sends it again, and what follows, in order
      return;
    }
    if (verdict === 'duplicate') {
      const ack = data.type === 'edit' ? this.inbox.ackFor(data.edit_id) : undefined;
      if (ack) {
        this.send(ack as unknown as FromPage); // applied once; the kernel may have lost the acknowledgement
      }
      return;
    }
    switch (data.type) {
      case 'edit': {
        let error: AckError | null = null;
        try {
          error = applyEdit(this.panel, data);
        } catch (exc) {
          error = { code: 'invalid', message: String(exc), cell_id: null };
        }
        if (!error) {
          this.applied.push(data.edit_id);
        }
        this.editStates.set(data.edit_id, error ? 'refused' : 'applied');
        if (!error && data.redo_of) {
          this.editStates.set(data.redo_of, 'redone'); // the card of the run shows it applied again
          this.cards.forEach(card => card.refresh());
        }
        if (!error && data.review) {
          // made without asking: marked until the user keeps or undoes it on the run's card
          changedCells(data.ops ?? []).forEach(id => markForReview(this.panel, id, true));
        }
        const ack = { type: 'ack' as const, edit_id: data.edit_id, ok: !error, error };
        this.inbox.recordAck(ack);
        this.send(ack);
        break;
      }
      case 'run':
        this.runActive = data.phase === 'start';
        break;
      case 'request_snapshot':
        this.send(this.snapshot('request', null, data.request_id ?? null));
        break;
      case 'reveal':
        revealCell(this.panel, String(data.cell_id));
        break;
      case 'revert': {
        // The kernel's rewind: the same revert as the edits card's button (each edit checked,
        // a cell the user changed since left as it is), one undo step.
        const edits = data.edits ?? [];
        const result = revertEdits(this.panel, edits);
        const byId = new Map(edits.map(e => [e.edit_id, e]));
        this.send({
          type: 'reverted',
          revert_id: data.revert_id,
          run_id: data.run_id ?? null,
          edit_ids: result.reverted,
          ops: ([] as EditOp[]).concat(...result.reverted.map(id => byId.get(id)?.revert ?? [])),
          refused: result.refused.map(r => ({ edit_id: r.edit_id, error: r.error }))
        });
        result.reverted.forEach(id => this.editStates.set(id, 'undone'));
        this.cards.forEach(card => card.refresh());
        break;
      }
      case 'rewind_reply': {
        const answer = this.replies.get(String(data.request_id));
        this.replies.delete(String(data.request_id));
        answer?.(data);
        break;
      }
      case 'welcome':
        this.cards.forEach(card => card.refresh()); // the comm counts from here (onMsg): cards not trusted ask now
        break;
      case 'card_facts': {
        const answer = this.cardChecks.get(String(data.request_id));
        this.cardChecks.delete(String(data.request_id));
        answer?.(data.card ?? null);
        break;
      }
      case 'resumed':
        this.resumeAgain.cancel();
        break;
      case 'run_view':
        if (showRunView(this.panel, data)) {
          this.runViews.push(String(data.phase));
        }
        break;
    }
  }
}

/**
 * A message as the comm sends it: the protocol's interfaces are JSON by construction, but
 * TypeScript does not see an interface as a JSON object (it could have other keys).
 */
function toJSON(message: FromPage): CommData {
  return message as unknown as CommData;
}
