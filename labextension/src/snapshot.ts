/**
 * The notebook as the page shows it, bounded: sources in full (the user's unsaved text
 * is the point), outputs cut to a budget so a large notebook stays cheap to send.
 */
import { NotebookPanel } from '@jupyterlab/notebook';
import { ICodeCellModel } from '@jupyterlab/cells';
import type { ISharedCell, ISharedCodeCell } from '@jupyter/ydoc';
import type * as nbformat from '@jupyterlab/nbformat';
import type { LiveCell, Snapshot } from './protocol';

export const MAX_TEXT_CHARS = 2000;
export const MAX_IMAGE_CHARS = 200_000;
export const IMAGE_BUDGET_CHARS = 1_000_000;

/** A bounded nbformat output. */
type Output = NonNullable<LiveCell['outputs']>[number];

export interface ISnapshotOptions {
  reason: Snapshot['reason'];
  seq: number;
  executingCellId?: string | null;
  requestId?: string | null;
}

function cut(text: string): string {
  if (text.length <= MAX_TEXT_CHARS) {
    return text;
  }
  const half = MAX_TEXT_CHARS / 2;
  return (
    text.slice(0, half) +
    `\n[... ${text.length - MAX_TEXT_CHARS} characters left out ...]\n` +
    text.slice(text.length - half)
  );
}

function joined(value: unknown): string {
  return Array.isArray(value) ? value.join('') : String(value ?? '');
}

class OutputBudget {
  images = IMAGE_BUDGET_CHARS;
  omitted = 0;

  bound(output: nbformat.IOutput): Output {
    const kind = output.output_type;
    if (kind === 'stream') {
      return { output_type: kind, name: output.name, text: cut(joined(output.text)) };
    }
    if (kind === 'error') {
      const traceback = (output.traceback ?? []) as string[];
      return {
        output_type: kind,
        ename: output.ename,
        evalue: cut(String(output.evalue ?? '')),
        traceback: [cut(traceback.join('\n'))]
      };
    }
    const data = (output.data ?? {}) as nbformat.IMimeBundle;
    const kept: { [mime: string]: string } = {};
    for (const mime of ['text/plain', 'text/markdown', 'text/latex']) {
      if (mime in data) {
        kept[mime] = cut(joined(data[mime]));
      }
    }
    if (!('text/plain' in kept) && 'text/html' in data) {
      kept['text/html'] = cut(joined(data['text/html']));
    }
    for (const mime of ['image/png', 'image/jpeg']) {
      if (mime in data) {
        const payload = joined(data[mime]);
        if (payload.length <= MAX_IMAGE_CHARS && payload.length <= this.images) {
          this.images -= payload.length;
          kept[mime] = payload;
        } else {
          this.omitted += 1;
          kept['text/plain'] =
            (kept['text/plain'] ?? '') + `[${mime} output left out of the live snapshot: too large]`;
        }
      }
    }
    const bounded: Output = { output_type: kind, data: kept };
    if (kind === 'execute_result') {
      bounded.execution_count = output.execution_count ?? null;
    }
    return bounded;
  }
}

/** A code cell of the shared model (an unrecognized cell's type is any string, so comparing
 * `cell_type` alone does not narrow the type). */
export function isCode(cell: ISharedCell): cell is ISharedCodeCell {
  return cell.cell_type === 'code';
}

/** The cell whose editor has the keyboard focus, if any. */
export function editingCellId(panel: NotebookPanel): string | null {
  const notebook = panel.content;
  const active = notebook.activeCell;
  if (notebook.mode !== 'edit' || !active) {
    return null;
  }
  return active.editor?.hasFocus() ? active.model.id : null;
}

export function takeSnapshot(
  panel: NotebookPanel,
  options: ISnapshotOptions
): Snapshot {
  const model = panel.model!;
  const shared = model.sharedModel;
  const budget = new OutputBudget();
  const cells: LiveCell[] = [];
  // Newest cells get the image budget first: they are what the user just looked at.
  const count = shared.cells.length;
  const bounded: Output[][] = new Array(count);
  for (let i = count - 1; i >= 0; i--) {
    const cell = shared.cells[i];
    if (isCode(cell)) {
      bounded[i] = cell.getOutputs().map(o => budget.bound(o));
    } else {
      bounded[i] = [];
    }
  }
  for (let i = 0; i < count; i++) {
    const cell = shared.cells[i];
    const entry: LiveCell = {
      id: cell.getId(),
      cell_type: cell.cell_type as LiveCell['cell_type'],
      source: cell.getSource()
    };
    if (isCode(cell)) {
      const cellModel = model.cells.get(i) as ICodeCellModel | undefined;
      entry.execution_count = cell.execution_count ?? null;
      entry.outputs = bounded[i];
      entry.running = cellModel?.executionState === 'running';
    }
    const metadata = cell.getMetadata();
    if (metadata && metadata.nb_agent) {
      entry.metadata = { nb_agent: metadata.nb_agent };
    }
    cells.push(entry);
  }
  const language =
    (shared.getMetadata('language_info') as nbformat.ILanguageInfoMetadata | undefined)?.name ??
    'python';
  return {
    type: 'snapshot',
    seq: options.seq,
    reason: options.reason,
    request_id: options.requestId ?? null,
    notebook_path: panel.context.path,
    executing_cell_id: options.executingCellId ?? null,
    active_cell_id: panel.content.activeCell?.model.id ?? null,
    editing_cell_id: editingCellId(panel),
    dirty: model.dirty,
    nbformat: shared.nbformat,
    nbformat_minor: shared.nbformat_minor,
    language,
    cells,
    omitted_outputs: budget.omitted
  };
}
