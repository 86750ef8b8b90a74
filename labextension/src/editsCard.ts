/**
 * The card of a run's notebook edits (an output of the `%%agent` cell, MIME type
 * `application/vnd.nb-agent.edits+json`): each edit with a "Go to cell" button, and
 * "Revert this run's edits". Both act on the page's own notebook, without the kernel, so
 * they work after the run, after a kernel restart, and whatever `commsOverSubshells` is.
 */
import { NotebookPanel } from '@jupyterlab/notebook';
import { IRenderMime } from '@jupyterlab/rendermime-interfaces';
import { Widget } from '@lumino/widgets';
import { element } from './dom';
import { IAckError, revealCell, revertEdits } from './edits';

export const EDITS_MIME = 'application/vnd.nb-agent.edits+json';

type JSONObject = { [key: string]: any };

const STATUS_TEXT: { [status: string]: string } = {
  applied: 'applied',
  sent: 'sent, not confirmed',
  refused: 'refused'
};

/** Why a revert left an edit as it is, in the user's words. */
export function revertRefusal(error: IAckError): string {
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

export class EditsCard extends Widget implements IRenderMime.IRenderer {
  /**
   * @param tellKernel sends a message on the page's channel to the kernel (dropped when
   * the channel is closed): the card tells it what the user reverted.
   */
  constructor(
    readonly panel: NotebookPanel,
    private readonly tellKernel: (data: JSONObject) => void = () => undefined
  ) {
    super();
    this.addClass('nb-agent-edits');
  }

  async renderModel(model: IRenderMime.IMimeModel): Promise<void> {
    const data = model.data[EDITS_MIME] as JSONObject;
    const edits = (data?.edits ?? []) as JSONObject[];
    const node = this.node;
    node.textContent = '';
    node.style.padding = '4px 0';
    node.appendChild(element('b', `Notebook edits of this run (${edits.length})`));
    const list = element('ul');
    list.style.margin = '4px 0';
    for (const edit of edits) {
      const item = element('li');
      item.dataset.editId = edit.edit_id;
      const preview = edit.preview ? `: ${edit.preview}` : '';
      const status = STATUS_TEXT[edit.status] ?? edit.status;
      item.appendChild(element('span', `${edit.summary}${preview} — ${status}`));
      if (edit.cell_id) {
        const go = element('button', 'Go to cell', 'jp-mod-styled nb-agent-goto');
        go.style.marginLeft = '8px';
        go.title = `Select cell ${edit.cell_id} and scroll to it`;
        go.onclick = () => {
          if (!revealCell(this.panel, edit.cell_id)) {
            go.textContent = 'Not in the notebook';
            go.disabled = true;
          }
        };
        item.appendChild(go);
      }
      list.appendChild(item);
    }
    node.appendChild(list);
    if (edits.some(e => (e.revert ?? []).length)) {
      const revert = element('button', "Revert this run's edits", 'jp-mod-styled nb-agent-revert');
      const outcome = element('div', '', 'nb-agent-revert-outcome');
      outcome.style.whiteSpace = 'pre-line';
      revert.onclick = () => {
        revert.disabled = true;
        outcome.textContent = this.revert(edits, data?.run_id ?? null);
      };
      node.appendChild(revert);
      node.appendChild(outcome);
    }
  }

  private revert(edits: JSONObject[], runId: string | null): string {
    if (!this.panel.model) {
      return 'The notebook is not loaded.';
    }
    const result = revertEdits(this.panel, edits);
    if (result.reverted.length) {
      // So the kernel's next note does not report these cells as the user's changes.
      const byId = new Map(edits.map(e => [e.edit_id, e]));
      this.tellKernel({
        type: 'reverted',
        run_id: runId,
        edit_ids: result.reverted,
        ops: ([] as JSONObject[]).concat(
          ...result.reverted.map(id => (byId.get(id)?.revert ?? []) as JSONObject[])
        )
      });
    }
    const lines = [
      `Reverted ${result.reverted.length} of ${edits.length} edits` +
        (result.reverted.length ? ' (Edit > Undo brings them back).' : '.')
    ];
    for (const refused of result.refused) {
      lines.push(`Not reverted: ${refused.summary}: ${revertRefusal(refused.error)}.`);
    }
    return lines.join('\n');
  }
}
