/**
 * A run's view for a page that opened while the run went on (a reload, a tab closed and
 * opened again). JupyterLab shows a cell's outputs only in the page that sent its execute
 * request, so the kernel sends this page the running cell's live view (`live`: the widgets
 * come back with the page's widget manager, pending asks included) and, when the run ends,
 * what the run left (`ended`), which replaces the view (../PROTOCOL.md, `run_view`).
 */
import { NotebookPanel } from '@jupyterlab/notebook';
import { ICodeCellModel } from '@jupyterlab/cells';
import type { RunView } from './protocol';

const WIDGET_VIEW_MIME = 'application/vnd.jupyter.widget-view+json';
/**
 * With real-time collaboration another page may still be the one that ran the cell: its own
 * update of the shared outputs normally lands within this time, and then there is no view
 * left to replace here (both replacing would show the result twice).
 */
const SHARED_SETTLE_MS = 2000;

/** An output's MIME bundle, read defensively. */
type MimeData = { [mime: string]: unknown };
/** A notebook output (nbformat), as a cell's output list gives it. */
type Output = ReturnType<ICodeCellModel['outputs']['toJSON']>[number];

function codeCell(panel: NotebookPanel, cellId: string): ICodeCellModel | null {
  const cells = panel.model?.cells;
  if (!cells) {
    return null;
  }
  for (let i = 0; i < cells.length; i++) {
    const cell = cells.get(i);
    if (cell.id === cellId && cell.type === 'code') {
      return cell as ICodeCellModel;
    }
  }
  return null;
}

function showsModel(output: Output, modelId: string): boolean {
  const view = (output.data as MimeData | undefined)?.[WIDGET_VIEW_MIME] as { model_id?: unknown } | undefined;
  return !!view && view.model_id === modelId;
}

/** Whether the cell's other outputs are plain text only (trusting the cell then trusts no markup). */
function plainBesides(outputs: Output[], modelId: string): boolean {
  return outputs.every(
    output =>
      output.output_type === 'stream' ||
      showsModel(output, modelId) ||
      Object.keys((output.data as MimeData | undefined) ?? {}).every(mime => mime === 'text/plain')
  );
}

function replaceOutputs(cell: ICodeCellModel, outputs: Output[], trust: boolean): void {
  cell.outputs.clear();
  if (trust) {
    cell.trusted = true; // before adding: an output is trusted as its area is when added
  }
  for (const output of outputs) {
    cell.outputs.add(output);
  }
}

/** The running cell's view: put in the cell unless the cell shows it already. */
function showLive(cell: ICodeCellModel, modelId: string, view: Output[]): boolean {
  const current = cell.outputs.toJSON();
  if (current.some(output => showsModel(output, modelId))) {
    // autosave kept the view in the file, or a collaborator's page put it in the shared
    // notebook: it renders once the widget manager has the models, if the cell is trusted
    if (!cell.trusted && plainBesides(current, modelId)) {
      cell.trusted = true;
    }
    return false;
  }
  // the kernel's own view of this cell's run, replacing what the file had before it ran
  replaceOutputs(cell, view, true);
  return true;
}

/** The run ended: what it left replaces its view, wherever this page still shows the view. */
function showEnded(cell: ICodeCellModel, modelId: string, left: Output[]): boolean {
  const current = cell.outputs.toJSON();
  const at = current.findIndex(output => showsModel(output, modelId));
  if (at < 0) {
    return false;
  }
  const next = [
    ...current.slice(0, at),
    ...left,
    ...current.slice(at + 1).filter(output => !showsModel(output, modelId))
  ];
  replaceOutputs(cell, next, cell.trusted || plainBesides(current, modelId));
  return true;
}

/** Handle a `run_view` message; returns whether the cell's outputs changed (now or later). */
export function showRunView(panel: NotebookPanel, data: RunView): boolean {
  const cellId = String(data.cell_id);
  const modelId = String(data.model_id);
  const outputs = Array.isArray(data.outputs) ? (data.outputs as Output[]) : [];
  const cell = codeCell(panel, cellId);
  if (!cell) {
    return false;
  }
  if (data.phase === 'live') {
    return showLive(cell, modelId, outputs);
  }
  if (panel.context.model.collaborative) {
    window.setTimeout(() => {
      const later = codeCell(panel, cellId);
      if (later) {
        showEnded(later, modelId, outputs);
      }
    }, SHARED_SETTLE_MS);
    return true;
  }
  return showEnded(cell, modelId, outputs);
}
