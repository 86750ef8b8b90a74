/**
 * nb_agent's live notebook: one kernel comm per open notebook page, through which the
 * agent in the kernel sees the notebook as the user sees it (unsaved edits included)
 * and edits it by cell id. The messages are described in ../PROTOCOL.md.
 */
import {
  JupyterFrontEnd,
  JupyterFrontEndPlugin
} from '@jupyterlab/application';
import {
  INotebookTracker,
  NotebookActions,
  NotebookPanel,
  Notebook
} from '@jupyterlab/notebook';
import { Cell } from '@jupyterlab/cells';
import { LivePage } from './page';
import { AgentCells } from './agentCells';

const PLUGIN_ID = 'nb-agent-live:plugin';

/**
 * The extension's widgets (streamWidgets.ts), registered with the page's widget manager
 * when JupyterLab has ipywidgets' (loaded on demand: without @jupyter-widgets/base in the
 * page the rest of the extension works, and the kernel is told 0 and uses stock widgets).
 */
async function registerWidgets(app: JupyterFrontEnd): Promise<number> {
  try {
    const { registerWidgets } = await import('./streamWidgets');
    return await registerWidgets(app);
  } catch (error) {
    console.warn('nb-agent-live: no widgets (ipywidgets is not in this JupyterLab)', error);
    return 0;
  }
}

const plugin: JupyterFrontEndPlugin<void> = {
  id: PLUGIN_ID,
  description:
    'Lets the nb_agent kernel extension read and edit the open notebook live.',
  autoStart: true,
  requires: [INotebookTracker],
  optional: [JupyterFrontEnd.IPaths],
  activate: async (
    app: JupyterFrontEnd,
    tracker: INotebookTracker,
    paths: JupyterFrontEnd.IPaths | null
  ) => {
    // Before any page says hello (it announces them) and before a notebook's widgets load.
    const widgets = await registerWidgets(app);
    const pages = new Map<Notebook, LivePage>();
    const agentCells = new Map<Notebook, AgentCells>();
    // The server's root folder on its machine: with a notebook's path, its server-side path,
    // which the kernel needs when it runs elsewhere (a gateway) and no such file is there.
    const serverRoot = paths?.directories.serverRoot || null;
    const attach = (panel: NotebookPanel): void => {
      const page = new LivePage(panel, serverRoot, widgets);
      const cells = new AgentCells(panel);
      pages.set(panel.content, page);
      agentCells.set(panel.content, cells);
      panel.disposed.connect(() => {
        pages.delete(panel.content);
        agentCells.delete(panel.content);
        page.dispose();
        cells.dispose();
      });
    };
    tracker.forEach(attach);
    tracker.widgetAdded.connect((_, panel) => attach(panel));
    // Runs synchronously right before the cell's execute request is sent, so the
    // snapshot is ahead of it on the same websocket.
    NotebookActions.executionScheduled.connect(
      (_, args: { notebook: Notebook; cell: Cell }) => {
        const page = pages.get(args.notebook);
        if (page && LivePage.isAgentCell(args.cell)) {
          page.beforeAgentCell(args.cell.model.id);
        }
      }
    );
    // For the browser tests: the pages and what they applied.
    (window as unknown as { nbAgentLive: unknown }).nbAgentLive = { pages, agentCells, version: 1, widgets };
  }
};

export default plugin;
