/**
 * Review marks: a cell the agent changed without asking (acceptEdits) carries a class on its
 * widget's node until the user keeps or undoes the edit on the run's card. Page-only state:
 * nothing goes into the cell's source or metadata, so the saved notebook never holds it.
 */
import { NotebookPanel } from '@jupyterlab/notebook';

export const REVIEW_CLASS = 'nb-agent-review';
const STYLE_ID = 'nb-agent-review-style';
const STYLE = `
.jp-Cell.${REVIEW_CLASS} { box-shadow: inset 4px 0 0 var(--jp-warn-color1, #f57c00); }
.jp-Cell.${REVIEW_CLASS}::before {
  content: 'agent edit · pending review (Keep or Undo on the run\\2019s edits card)';
  display: block; padding: 0 0 2px 12px;
  font-size: var(--jp-ui-font-size0, 11px); color: var(--jp-ui-font-color1, #212121);
}`;

function ensureStyle(): void {
  if (!document.getElementById(STYLE_ID)) {
    const style = document.createElement('style');
    style.id = STYLE_ID;
    style.textContent = STYLE;
    document.head.appendChild(style);
  }
}

/** Mark (or unmark) the cell `cellId` of `panel` as pending review; false when it is not there. */
export function markForReview(panel: NotebookPanel, cellId: string, on: boolean): boolean {
  const widget = panel.content.widgets.find(w => w.model.id === cellId);
  if (!widget) {
    return false;
  }
  ensureStyle();
  widget.toggleClass(REVIEW_CLASS, on);
  return true;
}

/** The cells an edit's operations leave changed (a deleted cell is gone: nothing to mark). */
export function changedCells(ops: readonly any[]): string[] {
  const ids: string[] = [];
  for (const op of ops) {
    if (op.op === 'insert' && op.cell?.id) {
      ids.push(String(op.cell.id));
    } else if ((op.op === 'replace' || op.op === 'move') && op.cell_id) {
      ids.push(String(op.cell_id));
    }
  }
  return ids;
}
