/**
 * Applying the kernel's edit operations to the notebook's shared model: every operation
 * is checked first, then all are applied (one undo step), or none.
 */
import { NotebookPanel } from '@jupyterlab/notebook';
import { ICodeCellModel } from '@jupyterlab/cells';
import type { SharedCell } from '@jupyter/ydoc';
import type * as nbformat from '@jupyterlab/nbformat';
import type { AckError, EditMessage, EditOp, NewCell, RevertEntry } from './protocol';
import { editingCellId, isCode } from './snapshot';

/** What {@link applyEdit} applies: the kernel's edit, or a revert's inverse operations. */
export type EditOps = Pick<EditMessage, 'ops' | 'guard_cell_ids'>;

class EditRefused extends Error {
  constructor(readonly detail: AckError) {
    super(detail.message);
  }
}

function refuse(
  code: AckError['code'],
  cellId: string | null,
  message: string
): never {
  throw new EditRefused({ code, cell_id: cellId, message });
}

/** Cell ids in order, after the operations checked so far. */
class Plan {
  ids: string[];
  constructor(readonly panel: NotebookPanel) {
    this.ids = panel.model!.sharedModel.cells.map(c => c.getId());
  }

  index(cellId: string): number {
    const index = this.ids.indexOf(cellId);
    if (index < 0) {
      refuse('missing', cellId, `Cell ${cellId} is not in the notebook.`);
    }
    return index;
  }

  after(cellId: string | null): number {
    return cellId === null ? 0 : this.index(cellId) + 1;
  }
}

/** Where a moved cell goes, in `plan.ids` without it. */
function moveTarget(plan: Plan, op: Extract<EditOp, { op: 'move' }>): number {
  return typeof op.before_cell_id === 'string'
    ? plan.index(op.before_cell_id)
    : plan.after(op.after_cell_id);
}

function checkWritable(
  panel: NotebookPanel,
  op: Extract<EditOp, { op: 'replace' | 'delete' | 'move' }>,
  guarded: Set<string>
): void {
  const cellId = op.cell_id;
  const model = panel.model!;
  const shared = model.sharedModel;
  const index = shared.cells.findIndex(c => c.getId() === cellId);
  if (index < 0) {
    return; // a cell inserted by an earlier op of this same edit
  }
  const cellModel = model.cells.get(index) as ICodeCellModel;
  if (guarded.has(cellId) || cellModel.executionState === 'running') {
    refuse('running', cellId, `Cell ${cellId} is running.`);
  }
  if (editingCellId(panel) === cellId) {
    refuse('editing', cellId, `The user is editing cell ${cellId} right now.`);
  }
  const expected = op.op === 'move' ? null : op.expected_source;
  if (
    typeof expected === 'string' &&
    shared.cells[index].getSource() !== expected
  ) {
    refuse(
      'changed',
      cellId,
      `Cell ${cellId} changed since the agent last read it.`
    );
  }
}

function check(panel: NotebookPanel, edit: EditOps): void {
  const plan = new Plan(panel);
  const guarded = new Set<string>(edit.guard_cell_ids);
  for (const op of edit.ops) {
    switch (op.op) {
      case 'replace':
      case 'delete':
      case 'set_outputs':
      case 'move': {
        const index = plan.index(op.cell_id);
        if (op.op !== 'set_outputs') {
          // a move has no expected_source: only running, guarded and being typed in refuse it
          checkWritable(panel, op, guarded);
        } else if (guarded.has(op.cell_id)) {
          refuse('running', op.cell_id, `Cell ${op.cell_id} is running.`);
        }
        if (op.op === 'delete') {
          plan.ids.splice(index, 1);
        } else if (op.op === 'move') {
          const [moved] = plan.ids.splice(index, 1);
          plan.ids.splice(moveTarget(plan, op), 0, moved);
        }
        break;
      }
      case 'insert': {
        if (plan.ids.includes(op.cell.id)) {
          refuse('invalid', op.cell.id, `Cell id ${op.cell.id} already exists.`);
        }
        plan.ids.splice(plan.after(op.after_cell_id), 0, op.cell.id);
        break;
      }
      default:
        // a newer kernel's operation this page does not know
        refuse('invalid', null, `Unknown operation ${(op as { op: unknown }).op}.`);
    }
  }
}

/** The refusal `edit` would meet now, or null when it would apply; nothing changes. */
export function checkEdit(panel: NotebookPanel, edit: EditOps): AckError | null {
  if (!panel.model) {
    return { code: 'no_notebook', message: 'The notebook is not loaded.', cell_id: null };
  }
  try {
    check(panel, edit);
  } catch (error) {
    if (error instanceof EditRefused) {
      return error.detail;
    }
    return { code: 'invalid', message: String(error), cell_id: null };
  }
  return null;
}

function indexOf(panel: NotebookPanel, cellId: string): number {
  return panel.model!.sharedModel.cells.findIndex(c => c.getId() === cellId);
}

function newCell(
  cell: Pick<NewCell, 'id' | 'cell_type' | 'source'> & Partial<NewCell>
): SharedCell.Cell {
  const json = {
    id: cell.id,
    cell_type: cell.cell_type,
    source: cell.source,
    metadata: (cell.metadata ?? {}) as nbformat.IBaseCellMetadata
  };
  if (cell.cell_type === 'code') {
    return {
      ...json,
      outputs: (cell.outputs ?? []) as nbformat.IOutput[],
      execution_count: cell.execution_count ?? null
    };
  }
  return json;
}

function applyOne(panel: NotebookPanel, op: EditOp): void {
  const shared = panel.model!.sharedModel;
  switch (op.op) {
    case 'replace': {
      const index = indexOf(panel, op.cell_id);
      const cell = shared.cells[index];
      if (op.cell_type && op.cell_type !== cell.cell_type) {
        const metadata = cell.getMetadata();
        shared.deleteCell(index);
        shared.insertCell(
          index,
          newCell({ id: op.cell_id, cell_type: op.cell_type, source: op.source, metadata })
        );
      } else {
        cell.setSource(op.source);
        if (isCode(cell)) {
          cell.setOutputs([]);
          cell.execution_count = null;
        }
      }
      break;
    }
    case 'insert': {
      const at = op.after_cell_id === null ? 0 : indexOf(panel, op.after_cell_id) + 1;
      shared.insertCell(at, newCell(op.cell));
      break;
    }
    case 'delete':
      shared.deleteCell(indexOf(panel, op.cell_id));
      break;
    case 'move': {
      // Both indices from the list as it is before the move (the shared model's list is
      // only updated when the transaction ends).
      const from = indexOf(panel, op.cell_id);
      let at =
        typeof op.before_cell_id === 'string'
          ? indexOf(panel, op.before_cell_id)
          : op.after_cell_id === null
            ? 0
            : indexOf(panel, op.after_cell_id) + 1;
      if (at > from) {
        at -= 1;
      }
      const cell = shared.cells[from].toJSON();
      shared.deleteCell(from);
      shared.insertCell(at, cell);
      break;
    }
    case 'set_outputs': {
      const cell = shared.cells[indexOf(panel, op.cell_id)];
      if (!isCode(cell)) {
        throw new Error(`Cell ${op.cell_id} is not a code cell: it has no outputs.`);
      }
      cell.setOutputs(op.outputs as nbformat.IOutput[]);
      cell.execution_count = op.execution_count;
      break;
    }
  }
}

/**
 * Check, then apply as one undo step. Returns the refusal, or null when applied.
 * `ownUndoStep`: end the undo step after it (one agent edit = one undo step); a revert
 * applies several edits and ends the step once, after the last.
 */
export function applyEdit(
  panel: NotebookPanel,
  edit: EditOps,
  ownUndoStep = true
): AckError | null {
  if (!panel.model) {
    return { code: 'no_notebook', message: 'The notebook is not loaded.', cell_id: null };
  }
  try {
    check(panel, edit);
  } catch (error) {
    if (error instanceof EditRefused) {
      return error.detail;
    }
    throw error;
  }
  const shared = panel.model.sharedModel;
  if (ownUndoStep) {
    stopCapturing(panel); // not merged with the user's typing just before either
  }
  // One transaction per operation: the shared model's list of cells (what indexOf reads) is
  // only updated when a transaction ends, so a later operation that names a cell an earlier
  // one inserted (the agent's code cells, one after the other) would not find it inside one.
  // They are one undo step all the same (stopCapturing below, within the capture timeout).
  for (const op of edit.ops) {
    shared.transact(() => applyOne(panel, op));
  }
  if (ownUndoStep) {
    // One agent edit = one step of the notebook's undo, never merged with the user's typing.
    stopCapturing(panel);
  }
  return null;
}

function stopCapturing(panel: NotebookPanel): void {
  // The shared notebook (a YDocument) has an undo manager; ISharedNotebook does not declare it.
  const shared: object | undefined = panel.model?.sharedModel;
  if (shared && 'undoManager' in shared) {
    (shared.undoManager as { stopCapturing(): void } | null)?.stopCapturing();
  }
}

/** Select the cell and scroll to it; false when it is not in the notebook. */
export function revealCell(panel: NotebookPanel, cellId: string): boolean {
  const notebook = panel.content;
  const index = notebook.widgets.findIndex(w => w.model.id === cellId);
  if (index < 0) {
    return false;
  }
  notebook.activeCellIndex = index;
  void notebook.scrollToItem(index);
  return true;
}

export interface IRevertOutcome {
  reverted: string[];
  refused: { edit_id: string; summary: string; error: AckError }[];
}

/**
 * Revert a run's edits (`edits` oldest first, as in the edits card): each edit's inverse
 * operations, newest edit first, each checked like an edit (a cell the user changed since
 * the agent's edit is left as it is, and so is everything that depends on it). All that
 * is reverted is one step of the notebook's undo.
 */
export function revertEdits(
  panel: NotebookPanel,
  edits: RevertEntry[]
): IRevertOutcome {
  const outcome: IRevertOutcome = { reverted: [], refused: [] };
  stopCapturing(panel); // never merged with the user's typing before the click
  for (const record of [...edits].reverse()) {
    const ops = record.revert ?? []; // a card from another version may lack it
    if (!ops.length) {
      continue;
    }
    let error: AckError | null;
    try {
      error = applyEdit(panel, { ops, guard_cell_ids: [] }, false);
    } catch (exc) {
      error = { code: 'invalid', message: String(exc), cell_id: null };
    }
    if (error) {
      outcome.refused.push({ edit_id: record.edit_id, summary: record.summary, error });
    } else {
      outcome.reverted.push(record.edit_id);
    }
  }
  stopCapturing(panel);
  return outcome;
}
