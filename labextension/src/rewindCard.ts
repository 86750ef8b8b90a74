/**
 * The run card (an output of the `%%agent` cell, MIME type
 * `application/vnd.nb-agent.rewind+json`): what the run changed, and "Rewind this run".
 * The button first asks the kernel what a rewind would change and shows that for a
 * confirmation; "Rewind" then asks the kernel to do it (the variables, files and
 * conversation live in the kernel; the notebook's edits are reverted by this page, at the
 * kernel's `revert`) and shows what it did and what it kept.
 */
import { IRenderMime } from '@jupyterlab/rendermime-interfaces';
import { Widget } from '@lumino/widgets';
import { element } from './dom';
import type { RewindCard as IRewindCard, RewindReply, RewindRequest } from './protocol';

export const REWIND_MIME = 'application/vnd.nb-agent.rewind+json';

/** What the card asks: a `rewind_request` without its envelope. */
export type RewindAsk = Pick<RewindRequest, 'action' | 'checkpoint_id' | 'prompt'>;

/** The kernel's `rewind_reply`, or the page's own error when it could not ask. */
export type RewindAnswer = Partial<Pick<RewindReply, 'lines'>> & { error?: string | null };

/** Sends a `rewind_request` to the kernel and resolves with its `rewind_reply`. */
export type AskKernel = (request: RewindAsk) => Promise<RewindAnswer>;

export class RewindCard extends Widget implements IRenderMime.IRenderer {
  constructor(private readonly ask: AskKernel) {
    super();
    this.addClass('nb-agent-rewind');
  }

  async renderModel(model: IRenderMime.IMimeModel): Promise<void> {
    // A card from another version may lack fields: read it defensively.
    const data = (model.data[REWIND_MIME] ?? {}) as Partial<IRewindCard>;
    const node = this.node;
    node.textContent = '';
    node.style.padding = '4px 0';
    const changes = (data.changes ?? []).join(' · ');
    node.appendChild(element('span', `This run changed ${changes}. `));
    const button = element('button', 'Rewind this run', 'jp-mod-styled nb-agent-rewind-run');
    button.title = `Undo run ${data.checkpoint_id}: its variables, files, notebook edits and conversation`;
    const confirm = element('div', '', 'nb-agent-rewind-confirm');
    const outcome = element('div', '', 'nb-agent-rewind-outcome');
    outcome.style.whiteSpace = 'pre-line';
    confirm.hidden = true;
    const request = (action: RewindAsk['action']): Promise<RewindAnswer> =>
      this.ask({
        action,
        checkpoint_id: String(data.checkpoint_id ?? ''),
        prompt: String(data.prompt ?? '')
      });
    button.onclick = async () => {
      button.disabled = true;
      outcome.textContent = 'Asking the kernel what a rewind would change…';
      const reply = await request('preview');
      if (reply.error) {
        outcome.textContent = reply.error;
        button.disabled = false;
        return;
      }
      outcome.textContent = '';
      this.showConfirmation(confirm, reply.lines ?? [], async () => {
        outcome.textContent = 'Rewinding…';
        const done = await request('rewind');
        outcome.textContent = done.error ?? (done.lines ?? []).join('\n');
        button.disabled = !done.error;
      }, () => {
        button.disabled = false;
      });
    };
    node.appendChild(button);
    node.appendChild(confirm);
    node.appendChild(outcome);
  }

  private showConfirmation(
    confirm: HTMLDivElement,
    lines: string[],
    onRewind: () => Promise<void>,
    onCancel: () => void
  ): void {
    confirm.textContent = '';
    confirm.appendChild(element('b', 'Rewind this run? This will change:'));
    const list = element('ul');
    list.style.margin = '4px 0';
    for (const line of lines.length ? lines : ['nothing (no change to undo)']) {
      list.appendChild(element('li', line));
    }
    confirm.appendChild(list);
    const yes = element('button', 'Rewind', 'jp-mod-styled jp-mod-warn nb-agent-rewind-yes');
    const no = element('button', 'Cancel', 'jp-mod-styled nb-agent-rewind-no');
    no.style.marginLeft = '8px';
    yes.onclick = async () => {
      confirm.hidden = true;
      await onRewind();
    };
    no.onclick = () => {
      confirm.hidden = true;
      onCancel();
    };
    confirm.appendChild(yes);
    confirm.appendChild(no);
    confirm.hidden = false;
  }
}
