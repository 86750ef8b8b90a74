/* Generated from protocol.schema.json (nb_agent/jupyter/live/protocol.py) by scripts/check_labextension.sh: do not edit. */

/**
 * Browser → kernel.
 */
export type FromPage = Snapshot | Ack | Hello | Reverted | RewindRequest | Resume | CardCheck;
/**
 * Kernel → browser.
 */
export type FromKernel =
  | EditMessage
  | RunMessage
  | RequestSnapshot
  | Reveal
  | RunView
  | RevertMessage
  | RewindReply
  | Welcome
  | Resumed
  | CardFacts;
/**
 * One operation of an edit.
 */
export type EditOp = ReplaceOp | InsertOp | DeleteOp | MoveOp | SetOutputsOp;

/**
 * The parts of the nb_agent.live protocol (labextension/PROTOCOL.md), one field each.
 */
export interface LiveProtocol {
  from_page: FromPage;
  from_kernel: FromKernel;
  edit_op: EditOp;
  edits_card: EditsCard;
  rewind_card: RewindCard;
}
/**
 * Browser → kernel: the notebook as the page shows it, unsaved edits included.
 */
export interface Snapshot {
  type: 'snapshot';
  /**
   * Increases with every snapshot a page sends.
   */
  seq: number;
  reason: 'execute' | 'request' | 'change' | 'open';
  request_id: string | null;
  /**
   * The notebook's path relative to the server's root (``context.path``).
   */
  notebook_path: string;
  /**
   * The ``%%agent`` cell whose execute request follows this snapshot.
   */
  executing_cell_id: string | null;
  active_cell_id: string | null;
  /**
   * The cell whose editor has the keyboard focus (the user is typing there).
   */
  editing_cell_id: string | null;
  dirty: boolean;
  nbformat: number;
  nbformat_minor: number;
  language: string;
  cells: LiveCell[];
  /**
   * Outputs the page left out to keep the snapshot small.
   */
  omitted_outputs: number;
}
/**
 * One cell as the page shows it (``source`` includes unsaved edits); a cell that is not
 * code has no ``execution_count``, ``outputs`` or ``running``.
 */
export interface LiveCell {
  id: string;
  cell_type?: 'code' | 'markdown' | 'raw';
  source?: string;
  execution_count?: number | null;
  outputs?: {
    [k: string]: unknown;
  }[];
  metadata?: {
    [k: string]: unknown;
  };
  /**
   * Queued or executing in the kernel right now.
   */
  running?: boolean;
}
/**
 * Browser → kernel: the outcome of an ``edit``.
 */
export interface Ack {
  type: 'ack';
  edit_id: string;
  ok: boolean;
  error: AckError | null;
}
/**
 * Why the page refused an edit.
 */
export interface AckError {
  code: 'changed' | 'editing' | 'running' | 'missing' | 'invalid' | 'no_notebook';
  message: string;
  cell_id: string | null;
}
/**
 * The data of the comm_open a page sends.
 */
export interface Hello {
  type: 'hello';
  protocol: number;
  frontend: string;
  notebook_path: string;
  /**
   * The Jupyter server's root folder, on the server's machine (``PageConfig``'s ``serverRoot``):
   * with :attr:`notebook_path`, the notebook's server-side path.
   */
  server_root: string | null;
  /**
   * The version of the extension's widgets the page registered with its widget manager
   * (``WIDGETS_VERSION``: a streamed answer sent as appends, a clock the page ticks); 0: none
   * (no ipywidgets in that JupyterLab, or an older page). A run uses them only when every
   * connected page has them; otherwise it shows the stock HTML widgets (pages of text).
   */
  widgets: number;
  snapshot: Snapshot | null;
}
/**
 * Browser → kernel: agent edits were reverted, by the user from a run's card, or at
 * the kernel's ``revert`` (then ``revert_id`` says which, and ``refused`` what was left).
 */
export interface Reverted {
  type: 'reverted';
  run_id: string | null;
  edit_ids: string[];
  /**
   * The inverse operations the page applied, in order.
   */
  ops: (ReplaceOp | InsertOp | DeleteOp | MoveOp | SetOutputsOp)[];
  revert_id: string | null;
  refused: RefusedEdit[];
}
export interface ReplaceOp {
  op: 'replace';
  cell_id: string;
  source: string;
  cell_type: ('code' | 'markdown' | 'raw') | null;
  /**
   * The source the agent last saw; the page refuses the edit when it differs.
   */
  expected_source: string | null;
}
export interface InsertOp {
  op: 'insert';
  /**
   * ``None``: at the top.
   */
  after_cell_id: string | null;
  cell: NewCell;
}
/**
 * A cell an ``insert`` puts in (the kernel chooses its id).
 */
export interface NewCell {
  id: string;
  cell_type: 'code' | 'markdown' | 'raw';
  source: string;
  metadata: {
    [k: string]: unknown;
  };
  outputs: {
    [k: string]: unknown;
  }[];
  execution_count: number | null;
}
export interface DeleteOp {
  op: 'delete';
  cell_id: string;
  expected_source: string | null;
}
export interface MoveOp {
  op: 'move';
  cell_id: string;
  /**
   * ``None``: at the top.
   */
  after_cell_id: string | null;
  /**
   * When set, the cell goes right before this one (``after_cell_id`` is then where that
   * was when the edit was made, for a page that does not know ``before_cell_id``).
   */
  before_cell_id: string | null;
}
export interface SetOutputsOp {
  op: 'set_outputs';
  cell_id: string;
  outputs: {
    [k: string]: unknown;
  }[];
  execution_count: number | null;
}
export interface RefusedEdit {
  edit_id: string;
  error: AckError;
}
/**
 * Browser → kernel: the run card's "Rewind this run": ``preview`` (what would change)
 * or ``rewind`` (do it), for checkpoint ``checkpoint_id`` (whose run's prompt is ``prompt``).
 */
export interface RewindRequest {
  type: 'rewind_request';
  request_id: string;
  action: 'preview' | 'rewind';
  checkpoint_id: string;
  prompt: string;
}
/**
 * Browser → kernel: send again what I lack. Sent when the page's kernel websocket came
 * back after closing (a proxy's idle timeout, a network blip) and when a message's ``seq``
 * skips one; what was in flight when a socket closed is lost, whatever the gateway buffers.
 */
export interface Resume {
  type: 'resume';
  /**
   * The last kernel message the page handled (every one before it too).
   */
  last_seq: number;
  /**
   * The page's recent acknowledgements, again (one may have been lost the same way).
   */
  acks: Ack[];
  /**
   * The page's state now, while a run is going on.
   */
  snapshot: Snapshot | null;
}
/**
 * Browser → kernel: is the edits card of run ``run_id`` this kernel's? Asked by a page
 * that renders a card from an output it does not trust (a collaborator's, which reaches it
 * through the shared document, or an untrusted file's): the card gets its buttons only from
 * the kernel's answer, so a card someone wrote into the document acts on nothing.
 */
export interface CardCheck {
  type: 'card_check';
  request_id: string;
  run_id: string;
}
/**
 * Kernel → browser: operations applied as one step of the notebook's undo, all or none.
 */
export interface EditMessage {
  type: 'edit';
  edit_id: string;
  run_id: string | null;
  ops: (ReplaceOp | InsertOp | DeleteOp | MoveOp | SetOutputsOp)[];
  /**
   * Cells the edit must not touch while they run (the ``%%agent`` cell).
   */
  guard_cell_ids: string[];
  /**
   * Mark the cells it changes as pending review in the page (made without asking the user).
   */
  review: boolean;
  /**
   * A redo (``%agent rewind --redo``) applies the edit of this id again: its card says so.
   */
  redo_of: string | null;
}
/**
 * Kernel → browser: a run started or ended (while one is active the page sends ``change``
 * snapshots).
 */
export interface RunMessage {
  type: 'run';
  phase: 'start' | 'end';
  run_id: string;
  /**
   * The ``%%agent`` cell of the run (at its start).
   */
  cell_id: string | null;
}
/**
 * Kernel → browser: answer with a ``snapshot`` carrying the same ``request_id``.
 */
export interface RequestSnapshot {
  type: 'request_snapshot';
  request_id: string;
}
/**
 * Kernel → browser: select the cell and scroll to it.
 */
export interface Reveal {
  type: 'reveal';
  cell_id: string;
}
/**
 * A page that opened during a run: the running cell's live view (``live``), and later
 * what the run left (``ended``), which replaces the view wherever the page shows it.
 */
export interface RunView {
  type: 'run_view';
  phase: 'live' | 'ended';
  cell_id: string;
  /**
   * The live view's root widget: the view is the cell output showing this model.
   */
  model_id: string;
  /**
   * nbformat outputs: the view itself (``live``), or what replaces it (``ended``).
   */
  outputs: {
    [k: string]: unknown;
  }[];
}
/**
 * Kernel → browser: revert these edits (oldest first; applied newest first, as the
 * run card's button does), one undo step; the page answers ``reverted`` with ``revert_id``.
 */
export interface RevertMessage {
  type: 'revert';
  revert_id: string;
  run_id: string | null;
  edits: RevertEntry[];
}
export interface RevertEntry {
  edit_id: string;
  summary: string;
  revert: (ReplaceOp | InsertOp | DeleteOp | MoveOp | SetOutputsOp)[];
}
/**
 * Kernel → browser: the answer to a :class:`RewindRequest`.
 */
export interface RewindReply {
  type: 'rewind_reply';
  request_id: string;
  action: 'preview' | 'rewind';
  lines: string[];
  error: string | null;
}
/**
 * Kernel → browser: the first message on a page's comm, sent when the page's ``hello``
 * arrives. Until it comes the page does not count on the comm: through a gateway a
 * ``comm_open`` (or the kernel's ``comm_close`` of one opened before nb_agent loaded) can be
 * lost on the way, and a page that took it for open sent its snapshots into nothing.
 */
export interface Welcome {
  type: 'welcome';
  protocol: number;
}
/**
 * Kernel → browser: a ``resume`` arrived, and what came after its ``last_seq`` was sent
 * again before this. A page whose ``resume`` was lost on the way (it travels on the socket
 * that just came back) sends it again until this comes.
 */
export interface Resumed {
  type: 'resumed';
  /**
   * The ``last_seq`` of the resume answered.
   */
  last_seq: number;
}
/**
 * Kernel → browser: the answer to a :class:`CardCheck`: the run's card as this kernel
 * made it (its edits and their inverse operations, which the page then uses instead of the
 * output's), or ``None`` when this kernel made no such card for this notebook (another
 * kernel's, one from before a restart, or a forged one).
 */
export interface CardFacts {
  type: 'card_facts';
  request_id: string;
  run_id: string;
  card: EditsCard | null;
}
/**
 * The data of the run's card of notebook edits (MIME type
 * ``application/vnd.nb-agent.edits+json``), as the kernel writes it.
 */
export interface EditsCard {
  version: number;
  run_id: string;
  notebook_path: string;
  /**
   * In the order the agent made them; a revert applies them newest first.
   */
  edits: EditsCardEntry[];
}
/**
 * One agent edit on the run's card.
 */
export interface EditsCardEntry {
  edit_id: string;
  /**
   * ``insert``, ``replace``, ``delete``, ``move`` or ``code cells``.
   */
  op: string;
  summary: string;
  cell_id: string | null;
  preview: string;
  /**
   * ``applied``, ``sent`` (not confirmed) or ``refused``; the page stores later states
   * (``undone``, ``kept``) in the output.
   */
  status: string;
  error: string | null;
  /**
   * The cell before and after, as a unified diff (empty when not known).
   */
  diff: string;
  /**
   * Made without asking the user: its cell is marked pending review in the page while open.
   */
  review: boolean;
  /**
   * The edit's inverse operations (none when it was refused).
   */
  revert: (ReplaceOp | InsertOp | DeleteOp | MoveOp | SetOutputsOp)[];
}
/**
 * The data of a run's card (MIME type ``application/vnd.nb-agent.rewind+json``), written
 * by :func:`nb_agent.jupyter.rewind_card.rewind_bundle` (kept free of pydantic: it is built
 * at every run's end; a test checks it matches).
 */
export interface RewindCard {
  version: number;
  checkpoint_id: string;
  /**
   * The run's prompt, as the checkpoint keeps it.
   */
  prompt: string;
  /**
   * What the run changed, in a few words each.
   */
  changes: string[];
}
