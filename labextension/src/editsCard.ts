/**
 * The card of a run's notebook edits (an output of the `%%agent` cell, MIME type
 * `application/vnd.nb-agent.edits+json`): each edit with its diff, "Go to cell", **Undo**
 * and **Keep**, and "Revert this run's edits". They act on the page's own notebook, without
 * the kernel, so they work after the run, after a kernel restart, and whatever
 * `commsOverSubshells` is.
 *
 * What the card says is true of the notebook as it is: an edit the kernel could only send
 * (its acknowledgement came after the run) is shown as applied once this page applied it
 * or finds it in the notebook; an undone or reverted edit says so. Each such change is
 * written into the output itself (its data, plain text and HTML), so the saved notebook
 * says the same.
 *
 * An output this page does not trust (a collaborator's, which reaches it through the shared
 * document with real-time collaboration, or an untrusted file's) is shown without buttons
 * until the notebook's kernel says the card is its own (`card_check`): then the card acts
 * with the kernel's edits (their inverse operations), not the output's, so a card someone
 * wrote into the document acts on nothing.
 */
import { NotebookPanel } from '@jupyterlab/notebook';
import { IRenderMime } from '@jupyterlab/rendermime-interfaces';
import { Widget } from '@lumino/widgets';
import { element } from './dom';
import { markForReview } from './review';
import { checkEdit, revealCell, revertEdits } from './edits';
import type { AckError, EditOp, EditsCard as IEditsCard, EditsCardEntry, Reverted } from './protocol';

export const EDITS_MIME = 'application/vnd.nb-agent.edits+json';

/** The card as the output holds it: what the kernel wrote, and what the page's last action
 * did (`outcome`, written by {@link EditsCard.store}). Read defensively: a card from another
 * version may lack fields. */
type StoredCard = Partial<IEditsCard> & { outcome?: string };

const STATUS_TEXT: { [status: string]: string } = {
  applied: 'applied',
  sent: 'sent, not confirmed',
  refused: 'refused',
  undone: 'undone',
  kept: 'kept',
  changed: 'changed since (left as it is)'
};

function knownStatus(status: string): boolean {
  return Object.prototype.hasOwnProperty.call(STATUS_TEXT, status);
}

/** What the page knows of edits this session (applied or refused here, undone here). */
export interface IEditsHost {
  /** Send a message to the kernel (dropped when the channel is closed). */
  tellKernel(data: Reverted): void;
  /** `applied`, `refused`, `undone` or `redone` (a rewind's redo applied it again) when
   * this page did that to the edit. */
  known(editId: string): string | undefined;
  /** Record that these edits were undone here (a card's Undo or revert). */
  undone(editIds: string[]): void;
  /** The page's rendered cards (each adds itself while shown). */
  cards?: Set<EditsCard>;
  /** Ask the kernel whether the card of run `runId` is its own: resolves with its card as
   * it made it, or `null`. `undefined` while the page has no channel to the kernel (the
   * page renders its cards again when it has one). */
  vouch?(runId: string): Promise<IEditsCard | null> | undefined;
}

/** Why an untrusted card has no buttons (yet). */
const UNVERIFIED_TEXT = {
  asking: "Checking with this notebook's kernel that this card is its own: its buttons come with the answer.",
  'no-kernel':
    "Not this page's output: its buttons come when this notebook's kernel, with nb_agent loaded, confirms the card is its own.",
  'not-ours':
    "This notebook's kernel did not make this card (another kernel's, one from before a restart, or not nb_agent's): shown without buttons."
};

/** The kernel's card with the statuses the output stores for the same edits (what the
 * pages did since: undone, kept). The output's other edits, and its inverse operations,
 * are not used. */
function vouchedEdits(card: IEditsCard, stored: StoredCard): EditsCardEntry[] {
  const statuses = new Map((stored.edits ?? []).map(e => [e.edit_id, String(e.status)]));
  return card.edits.map(edit => {
    const status = statuses.get(edit.edit_id);
    return { ...edit, status: status !== undefined && knownStatus(status) ? status : edit.status };
  });
}

const NO_HOST: IEditsHost = {
  tellKernel: () => undefined,
  known: () => undefined,
  undone: () => undefined
};

/** The status the card stores for `edit` now: what it stored, corrected by what is known. */
export function currentStatus(panel: NotebookPanel, edit: EditsCardEntry, host: IEditsHost): string {
  const stored = String(edit.status ?? 'sent');
  const known = host.known(edit.edit_id);
  if (known === 'redone' && stored !== 'kept') {
    return 'applied'; // a rewind's redo applied it again since it was undone
  }
  if (stored === 'undone' || stored === 'refused' || stored === 'kept') {
    return stored;
  }
  if (known === 'undone' || known === 'refused' || known === 'applied') {
    return known;
  }
  if (stored === 'sent' && (edit.revert ?? []).length && inPlace(panel, edit)) {
    return 'applied'; // its effect is in the notebook: the page applied it
  }
  return stored;
}

/** Whether the edit's effect is in the notebook: its inverse would apply now. */
function inPlace(panel: NotebookPanel, edit: EditsCardEntry): boolean {
  const error = checkEdit(panel, { ops: edit.revert ?? [], guard_cell_ids: [] });
  return error === null || error.code === 'editing' || error.code === 'running';
}

/** How an edit is shown: its stored status, or "changed since" when it is no longer there. */
function shownStatus(panel: NotebookPanel, edit: EditsCardEntry): string {
  const status = String(edit.status);
  if ((status === 'applied' || status === 'kept') && (edit.revert ?? []).length && !inPlace(panel, edit)) {
    return status === 'kept' ? 'kept, changed since' : 'changed';
  }
  return status;
}

function line(edit: EditsCardEntry, status: string): string {
  const preview = edit.preview ? `: ${edit.preview}` : '';
  return `${edit.summary}${preview} — ${knownStatus(status) ? STATUS_TEXT[status] : status}`;
}

/** A unified diff (or a cell's `+`/`-` lines), one coloured row a line. */
function diffBlock(diff: string): HTMLElement {
  const block = element('div', '', 'nb-agent-diff');
  block.style.whiteSpace = 'pre';
  block.style.overflow = 'auto';
  block.style.maxHeight = '24em';
  block.style.fontFamily = 'var(--jp-code-font-family, monospace)';
  block.style.fontSize = '0.85em';
  block.style.background = 'var(--jp-layout-color2, #eeeeee)';
  block.style.padding = '4px 6px';
  for (const text of diff.split('\n')) {
    const row = element('div', text || '\u00a0');
    if (text.startsWith('+') && !text.startsWith('+++')) {
      row.style.background = 'color-mix(in srgb, var(--jp-success-color1, #388e3c) 18%, transparent)';
    } else if (text.startsWith('-') && !text.startsWith('---')) {
      row.style.background = 'color-mix(in srgb, var(--jp-error-color1, #d32f2f) 15%, transparent)';
    }
    block.appendChild(row);
  }
  return block;
}

const FOLD_LINES = 30;

function diffDetails(diff: string): HTMLElement {
  const lines = diff.split('\n');
  const added = lines.filter(l => l.startsWith('+') && !l.startsWith('+++')).length;
  const removed = lines.filter(l => l.startsWith('-') && !l.startsWith('---')).length;
  const details = element('details', '', 'nb-agent-change');
  details.open = lines.length <= FOLD_LINES;
  details.appendChild(element('summary', `diff (+${added} −${removed}, ${lines.length} lines)`));
  details.appendChild(diffBlock(diff));
  return details;
}

/** The edits as a list without buttons: each line with its stored status, and its diff. */
function plainList(edits: EditsCardEntry[]): HTMLElement {
  const list = element('ul');
  for (const edit of edits) {
    const item = element('li', line(edit, String(edit.status)));
    if (edit.diff && edit.status !== 'refused') {
      item.appendChild(diffDetails(String(edit.diff)));
    }
    list.appendChild(item);
  }
  return list;
}

/** The card's HTML and plain text for a notebook without the extension (or untrusted),
 * made from DOM nodes with text content only: the browser escapes what it serializes. */
export function staticForms(data: StoredCard): { html: string; plain: string } {
  const edits = data.edits ?? [];
  const title = `Notebook edits of this run (${edits.length})`;
  const root = element('div', '', 'nb-agent-edits');
  root.appendChild(element('b', title));
  root.appendChild(plainList(edits));
  const said = String(data.outcome ?? '');
  if (said) {
    const outcome = element('div', said);
    outcome.style.whiteSpace = 'pre-line';
    root.appendChild(outcome);
  }
  const plain = [title + ':', ...edits.map(e => `- ${line(e, String(e.status))}`), ...(said ? [said] : [])].join('\n');
  return { html: root.outerHTML, plain };
}


/** Why a revert left an edit as it is, in the user's words. */
export function revertRefusal(error: AckError): string {
  const cell = error.cell_id ?? '?';
  switch (error.code) {
    case 'changed':
      return `cell ${cell} was changed after the agent's edit, so it was left as it is`;
    case 'missing':
      return `cell ${cell} is not in the notebook any more (already reverted or deleted)`;
    case 'invalid':
      return `already reverted (${error.message})`;
    case 'editing':
      return `you are editing cell ${cell}`;
    case 'running':
      return `cell ${cell} is running`;
    default:
      return error.message;
  }
}

function setStatus(edits: EditsCardEntry[], ids: string[], status: string): void {
  for (const edit of edits) {
    if (ids.includes(edit.edit_id)) {
      edit.status = status;
    }
  }
}

export class EditsCard extends Widget implements IRenderMime.IRenderer {
  private model: IRenderMime.IMimeModel | null = null;
  /** Renders so far: an answer from the kernel draws only if no render came after its ask
   * (JupyterLab renders a changed output again with the same model object). */
  private renders = 0;
  private runId: string | null = null;

  constructor(
    readonly panel: NotebookPanel,
    private readonly host: IEditsHost = NO_HOST
  ) {
    super();
    this.addClass('nb-agent-edits');
    host.cards?.add(this);
  }

  dispose(): void {
    this.host.cards?.delete(this);
    super.dispose();
  }

  /** Render again from the stored data (the kernel's rewind reverted edits of this page). */
  refresh(): void {
    if (this.model && !this.isDisposed) {
      void this.renderModel(this.model);
    }
  }

  async renderModel(model: IRenderMime.IMimeModel): Promise<void> {
    this.model = model;
    this.renders += 1;
    const data = (model.data[EDITS_MIME] ?? {}) as StoredCard;
    if (model.trusted) {
      this.showCard(data, (data.edits ?? []).map(e => ({ ...e })));
    } else {
      this.showUntrusted(model, data);
    }
  }

  /** Without buttons, then with them once the kernel vouches for the card. */
  private showUntrusted(model: IRenderMime.IMimeModel, data: StoredCard): void {
    const runId = data.run_id;
    const answer = typeof runId === 'string' ? this.host.vouch?.(runId) : undefined;
    this.drawUnverified(data, answer ? 'asking' : 'no-kernel');
    const render = this.renders;
    void answer?.then(card => {
      if (render !== this.renders || this.model !== model || this.isDisposed) {
        return; // rendered again since
      }
      if (card === null) {
        this.drawUnverified(data, 'not-ours');
      } else {
        this.showCard(data, vouchedEdits(card, data), false);
      }
    });
  }

  private drawUnverified(data: StoredCard, why: keyof typeof UNVERIFIED_TEXT): void {
    const edits = data.edits ?? [];
    const node = this.node;
    node.textContent = '';
    node.style.padding = '4px 0';
    node.appendChild(element('b', `Notebook edits of this run (${edits.length})`));
    const list = node.appendChild(plainList(edits));
    list.style.margin = '4px 0';
    const note = element('div', UNVERIFIED_TEXT[why], 'nb-agent-card-unverified');
    note.dataset.why = why;
    node.appendChild(note);
  }

  /** Draw with the buttons; `correct`: write what is known now into the output. Only a
   * trusted output (the page that ran the cell) does that unasked: another page's writes to a
   * shared output make JupyterLab 4.6 with jupyter-collaboration show that output twice in
   * the first page (see PROTOCOL.md); a click's result is written from any page. */
  private showCard(data: StoredCard, edits: EditsCardEntry[], correct = true): void {
    // What is known now wins over what the kernel could say when the run ended.
    let corrected = false;
    for (const edit of edits) {
      const status = currentStatus(this.panel, edit, this.host);
      if (status !== edit.status) {
        edit.status = status;
        corrected = true;
      }
    }
    this.runId = data.run_id ?? null;
    this.draw(edits, String(data.outcome ?? ''));
    if (corrected && correct) {
      window.setTimeout(() => this.store(edits, String(data.outcome ?? '')), 0); // not while the output area renders
    }
  }

  /** Store and show the new state, with what the last action did. */
  private commit(edits: EditsCardEntry[], outcome: string): void {
    this.store(edits, outcome);
    this.draw(edits, outcome);
  }

  /** Write `edits` (with their statuses) into the output: the saved notebook says the same. */
  private store(edits: EditsCardEntry[], outcome: string): void {
    const model = this.model;
    if (!model) {
      return;
    }
    const data: StoredCard = { ...(model.data[EDITS_MIME] as StoredCard), edits, outcome };
    const forms = staticForms(data);
    // An interface is JSON by construction, but TypeScript does not see it as a JSON object.
    const json = data as unknown as IRenderMime.IMimeModel['data'][string];
    model.setData({ data: { ...model.data, [EDITS_MIME]: json, 'text/html': forms.html, 'text/plain': forms.plain } });
  }

  /** Review marks follow the card: an open (applied) edit made without asking keeps its
   * cell marked; a kept, undone or changed one does not. */
  private mark(edits: EditsCardEntry[]): void {
    const open = new Set<string>();
    const reviewed = new Set<string>();
    for (const edit of edits) {
      if (!edit.review || !edit.cell_id) {
        continue;
      }
      (edit.status === 'applied' && shownStatus(this.panel, edit) === 'applied' ? open : reviewed).add(edit.cell_id);
    }
    reviewed.forEach(id => open.has(id) || markForReview(this.panel, id, false));
    open.forEach(id => markForReview(this.panel, id, true));
  }

  private draw(edits: EditsCardEntry[], said: string): void {
    this.mark(edits);
    const node = this.node;
    node.textContent = '';
    node.style.padding = '4px 0';
    node.appendChild(element('b', `Notebook edits of this run (${edits.length})`));
    const list = element('ul');
    list.style.margin = '4px 0';
    for (const edit of edits) {
      list.appendChild(this.item(edit, edits));
    }
    node.appendChild(list);
    const open = edits.filter(e => (e.revert ?? []).length && (e.status === 'applied' || e.status === 'sent'));
    if (open.length) {
      const revert = element('button', "Revert this run's edits", 'jp-mod-styled nb-agent-revert');
      revert.onclick = () => {
        revert.disabled = true;
        this.commit(edits, this.revert(edits, open));
      };
      node.appendChild(revert);
    }
    const outcome = element('div', said, 'nb-agent-revert-outcome');
    outcome.style.whiteSpace = 'pre-line';
    node.appendChild(outcome);
  }

  private button(label: string, cls: string, title: string, onclick: () => void): HTMLButtonElement {
    const button = element('button', label, `jp-mod-styled ${cls}`);
    button.style.marginLeft = '8px';
    button.title = title;
    button.onclick = onclick;
    return button;
  }

  private item(edit: EditsCardEntry, edits: EditsCardEntry[]): HTMLElement {
    const item = element('li');
    item.dataset.editId = edit.edit_id;
    const shown = shownStatus(this.panel, edit);
    item.dataset.status = shown;
    item.appendChild(element('span', line(edit, shown), 'nb-agent-edit-line'));
    const cellId = edit.cell_id;
    if (cellId) {
      const go = this.button('Go to cell', 'nb-agent-goto', `Select cell ${cellId} and scroll to it`, () => {
        if (!revealCell(this.panel, cellId)) {
          go.textContent = 'Not in the notebook';
          go.disabled = true;
        }
      });
      item.appendChild(go);
    }
    if ((edit.revert ?? []).length && shown === 'applied') {
      item.appendChild(
        this.button('Undo', 'nb-agent-undo', 'Undo this edit only (the others stay)', () => {
          this.commit(edits, this.undo(edit, edits));
        })
      );
      item.appendChild(
        this.button('Keep', 'nb-agent-keep', 'Keep this edit (it leaves the review)', () => {
          setStatus(edits, [edit.edit_id], 'kept');
          this.commit(edits, `Kept: ${edit.summary}.`);
        })
      );
    }
    if (edit.diff && edit.status !== 'refused') {
      item.appendChild(diffDetails(String(edit.diff)));
    }
    return item;
  }

  /** Tell the kernel (so its next note does not report these cells as the user's changes). */
  private reverted(edits: EditsCardEntry[], ids: string[]): void {
    const byId = new Map(edits.map(e => [e.edit_id, e]));
    this.host.undone(ids);
    this.host.tellKernel({
      type: 'reverted',
      run_id: this.runId,
      edit_ids: ids,
      ops: ([] as EditOp[]).concat(...ids.map(id => byId.get(id)?.revert ?? [])),
      revert_id: null,
      refused: []
    });
  }

  private undo(edit: EditsCardEntry, edits: EditsCardEntry[]): string {
    if (!this.panel.model) {
      return 'The notebook is not loaded.';
    }
    const result = revertEdits(this.panel, [edit]);
    if (result.reverted.length) {
      this.reverted(edits, result.reverted);
      setStatus(edits, result.reverted, 'undone');
      return `Undone: ${edit.summary} (Edit > Undo brings it back).`;
    }
    const error = result.refused[0]?.error;
    const later = edits.slice(edits.indexOf(edit) + 1).find(
      e => e.cell_id && e.cell_id === edit.cell_id && (e.status === 'applied' || e.status === 'kept')
    );
    if (later && error?.code === 'changed') {
      return `Not undone: ${edit.summary}: a later edit of the agent changed cell ${edit.cell_id} (${later.summary}); undo that one first.`;
    }
    return `Not undone: ${edit.summary}: ${error ? revertRefusal(error) : 'refused'}.`;
  }

  private revert(edits: EditsCardEntry[], open: EditsCardEntry[]): string {
    if (!this.panel.model) {
      return 'The notebook is not loaded.';
    }
    const result = revertEdits(this.panel, open);
    const kept = edits.filter(e => e.status === 'kept').length;
    const lines = [
      `Reverted ${result.reverted.length} of ${open.length} edits` +
        (result.reverted.length ? ' (Edit > Undo brings them back).' : '.') +
        (kept ? ` ${kept} kept edit${kept > 1 ? 's stay' : ' stays'}.` : '')
    ];
    for (const refused of result.refused) {
      lines.push(`Not reverted: ${refused.summary}: ${revertRefusal(refused.error)}.`);
    }
    if (result.reverted.length) {
      this.reverted(edits, result.reverted);
      setStatus(edits, result.reverted, 'undone');
    }
    return lines.join('\n');
  }
}
