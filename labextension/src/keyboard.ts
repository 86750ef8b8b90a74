/**
 * The keyboard path to an ask (approval row, plan, questions, folder trust): when an ask
 * appears in this notebook, its primary control takes the focus (Enter then presses it, Tab
 * moves along its controls), unless the user is typing in a cell or in another text box; and
 * Escape anywhere in an ask presses its escape button (Deny, Keep planning, Skip, Don't
 * trust). The kernel marks the controls with the classes below
 * (nb_agent/jupyter/view/keyboard.py).
 */
import { NotebookPanel } from '@jupyterlab/notebook';

export const ASK_CLASS = 'nb-agent-ask';
export const PRIMARY_CLASS = 'nb-agent-primary';
export const ESCAPE_CLASS = 'nb-agent-escape';

const FOCUSABLE = 'button, input, textarea, select';
const TEXT_ENTRY = 'input, textarea, [contenteditable="true"], [contenteditable=""]';

/** The focusable element of a marked control (a checkbox widget's class is on its box). */
function focusable(marked: Element): HTMLElement | null {
  const target = marked.matches(FOCUSABLE) ? marked : marked.querySelector(FOCUSABLE);
  return target instanceof HTMLElement ? target : null;
}

function enabled(element: HTMLElement): boolean {
  return !(element as HTMLButtonElement).disabled && element.isConnected;
}

export class AskKeyboard {
  private readonly seen = new WeakSet<Element>();
  private readonly observer: MutationObserver;
  /** Primary controls this page focused, for the browser tests. */
  readonly focused: string[] = [];

  constructor(readonly panel: NotebookPanel) {
    this.observer = new MutationObserver(records => this.added(records));
    // a widget view may get its classes after it is in the page: watch them too
    this.observer.observe(panel.content.node, { childList: true, subtree: true, attributes: true, attributeFilter: ['class'] });
    panel.content.node.addEventListener('keydown', this.onKeydown, true);
  }

  dispose(): void {
    this.observer.disconnect();
    this.panel.content.node.removeEventListener('keydown', this.onKeydown, true);
  }

  private added(records: MutationRecord[]): void {
    for (const record of records) {
      const nodes = record.type === 'attributes' ? [record.target] : Array.from(record.addedNodes);
      for (const node of nodes) {
        if (node instanceof Element) {
          const marked = node.matches(`.${PRIMARY_CLASS}`) ? node : node.querySelector(`.${PRIMARY_CLASS}`);
          if (marked && !this.seen.has(marked) && marked.isConnected) {
            this.seen.add(marked);
            this.offerFocus(marked);
          }
        }
      }
    }
  }

  /** Whether moving the focus would take it from something the user is typing in. */
  private userIsTyping(): boolean {
    const notebook = this.panel.content;
    if (notebook.mode === 'edit') {
      // a cell being edited: leave it, unless it is empty (Shift+Enter on the last cell
      // opens an empty one in edit mode; nobody is typing there yet)
      const active = notebook.activeCell;
      if (active && active.model.sharedModel.getSource() !== '') {
        return true;
      }
    }
    const element = document.activeElement;
    return !!element && element !== document.body && element.matches(TEXT_ENTRY) && !element.closest('.cm-editor');
  }

  private offerFocus(marked: Element): void {
    const target = focusable(marked);
    if (!target || !enabled(target) || !this.panel.isVisible || this.userIsTyping()) {
      return;
    }
    if (this.panel.content.mode === 'edit') {
      this.panel.content.mode = 'command'; // the empty cell's editor lets the focus go
    }
    target.focus();
    this.focused.push(target.textContent?.trim() || target.getAttribute('aria-label') || target.tagName);
  }

  private readonly onKeydown = (event: KeyboardEvent): void => {
    if (event.key !== 'Escape' || !(event.target instanceof Element)) {
      return;
    }
    const ask = event.target.closest(`.${ASK_CLASS}`);
    const button = ask?.querySelector(`.${ESCAPE_CLASS}`);
    if (!(button instanceof HTMLElement) || !enabled(button)) {
      return;
    }
    event.preventDefault();
    event.stopPropagation();
    button.click();
    this.panel.content.node.focus(); // back to the notebook's command mode, not lost on a disabled button
  };
}
