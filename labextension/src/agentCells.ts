/**
 * `%%agent` cells hold a prompt, not Python: the editor shows them as plain text with soft
 * wrap (Python highlighting turned an apostrophe into a red string and `and`/`with`/`as`
 * bold; long prompts ran off the right edge). A cell becomes a Python cell again as soon as
 * its `%%agent` line is removed. The notebook sets every code cell's mime type from the
 * kernel's language (when a cell is inserted and when the language info changes); this
 * module answers each such change for agent cells and remembers the kernel's mime type to
 * give back. The notebook also gives every cell its editor configuration again when a
 * setting changes (lineWrap included): an agent cell keeps its soft wrap through that.
 */
import { Cell, ICellModel } from '@jupyterlab/cells';
import { NotebookPanel } from '@jupyterlab/notebook';
import { LivePage } from './page';

/** The class agent cells carry while shown as prompts (for the browser tests and themes). */
export const AGENT_CELL_CLASS = 'nb-agent-prompt-cell';
const PLAIN = 'text/plain';

export class AgentCells {
  private readonly watched = new WeakSet<Cell>();
  /** The kernel language's mime type of each cell shown as a prompt, to give back. */
  private readonly kernelMime = new WeakMap<ICellModel, string>();

  constructor(readonly panel: NotebookPanel) {
    panel.content.model?.cells.changed.connect(this.watchAll, this);
    panel.content.modelChanged.connect(() => {
      panel.content.model?.cells.changed.connect(this.watchAll, this);
      this.watchAll();
    }, this);
    this.watchAll();
  }

  dispose(): void {
    this.panel.content.model?.cells.changed.disconnect(this.watchAll, this);
  }

  /** The cells now shown as prompts, for the browser tests. */
  get promptCells(): number[] {
    const indices: number[] = [];
    this.panel.content.widgets.forEach((cell, index) => {
      if (this.kernelMime.has(cell.model)) {
        indices.push(index);
      }
    });
    return indices;
  }

  private watchAll(): void {
    for (const cell of this.panel.content.widgets) {
      if (cell.model.type !== 'code' || this.watched.has(cell)) {
        continue;
      }
      this.watched.add(cell);
      const update = (): void => this.update(cell);
      cell.model.sharedModel.changed.connect((_, change) => {
        if (change.sourceChange) {
          // a keystroke's change arrives while CodeMirror applies it, when the editor
          // refuses to be reconfigured: act right after
          queueMicrotask(update);
        }
      });
      cell.model.mimeTypeChanged.connect(update);
      this.keepWrap(cell);
      update();
    }
  }

  /**
   * The notebook has no signal for a new editor configuration: it calls each cell's
   * updateEditorConfig with its own (a settings change, for one). A prompt keeps its wrap.
   */
  private keepWrap(cell: Cell): void {
    const configure = cell.updateEditorConfig.bind(cell);
    cell.updateEditorConfig = (config: Record<string, unknown>): void => {
      configure(this.kernelMime.has(cell.model) ? { ...config, lineWrap: true } : config);
    };
  }

  private update(cell: Cell): void {
    if (cell.isDisposed) {
      return;
    }
    const model = cell.model;
    if (LivePage.isAgentCell(cell)) {
      if (model.mimeType !== PLAIN || !this.kernelMime.has(model)) {
        // the notebook (re)set the kernel's language: keep it to give back, show plain text
        this.kernelMime.set(model, model.mimeType);
        model.mimeType = PLAIN;
      }
      cell.updateEditorConfig({ lineWrap: true });
      cell.addClass(AGENT_CELL_CLASS);
    } else {
      const mime = this.kernelMime.get(model);
      if (mime === undefined) {
        return;
      }
      this.kernelMime.delete(model);
      model.mimeType = mime;
      const code = (this.panel.content.editorConfig.code ?? {}) as Record<string, unknown>;
      cell.updateEditorConfig({ lineWrap: code.lineWrap ?? false });
      cell.removeClass(AGENT_CELL_CLASS);
    }
  }
}
