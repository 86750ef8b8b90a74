/**
 * The extension's widgets (nb_agent/jupyter/view/page_widgets.py is their kernel side):
 *
 * - StreamText: a streamed answer the kernel appends to. Its state is `chunks` (HTML of the
 *   stable Markdown chunks so far), `tail` (HTML of the text after them) and `seq`; a custom
 *   message `{seq, count, append, tail}` says "chunks from `count` on are `append`, the tail
 *   is `tail`", so an update carries what is new, not the whole answer. The tail and a new
 *   chunk may come as an edit of the previous tail, `[keep from its start, keep from its end,
 *   middle]`: the kernel's HTML string again, spliced, never made here. A message whose `seq`
 *   skips one (a page that loaded the widget mid-run) makes the model ask the kernel for its
 *   whole state (`{event: 'resync'}`); one the state already held is dropped.
 * - PageClock: the run's elapsed time, told once (`elapsed_s`) and counted on here.
 *
 * The HTML is the kernel's (nb_agent/jupyter/html.py, its one escaping layer). The page
 * never parses markup itself: each chunk, and the tail, is rendered by JupyterLab's own
 * text/html renderer (the page's rendermime, through the widget manager), as an untrusted
 * output, so JupyterLab's sanitizer sees it too; it looks as the run's final rendering will.
 */
import {
  DOMWidgetModel,
  DOMWidgetView,
  IJupyterWidgetRegistry,
  WidgetModel
} from '@jupyter-widgets/base';
import type { JupyterFrontEnd } from '@jupyterlab/application';
import type { IRenderMime } from '@jupyterlab/rendermime-interfaces';
import type { ObjectHash } from 'backbone';
import { element } from './dom';
import { WIDGET_MODULE, WIDGETS_VERSION } from './widgetNames';

const MODULE_VERSION = `${WIDGETS_VERSION}.0.0`;
const CLOCK_TICK_MS = 1000;

function isIndex(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0;
}

/** A part of a message: the kernel's HTML, or an edit of the previous tail (null: malformed). */
function resolve(previous: string, part: unknown): string | null {
  if (typeof part === 'string') {
    return part;
  }
  if (Array.isArray(part) && part.length === 3) {
    const [start, end, middle] = part as unknown[];
    if (isIndex(start) && isIndex(end) && start + end <= previous.length && typeof middle === 'string') {
      return previous.slice(0, start) + middle + previous.slice(previous.length - end);
    }
  }
  return null;
}

function strings(value: unknown): string[] | null {
  return Array.isArray(value) && value.every(item => typeof item === 'string') ? (value as string[]) : null;
}

const HTML_MIME = 'text/html';
/** What JupyterLab's widget manager holds: the page's rendermime registry. */
type Renderers = { createRenderer(mimeType: string): IRenderMime.IRenderer };

function renderersOf(model: WidgetModel): Renderers | null {
  const manager = model.widget_manager as unknown as { rendermime?: Renderers };
  return manager.rendermime ?? null;
}

/** Show the kernel's `html` in `renderer` as JupyterLab shows a cell's text/html output. */
function renderHtml(renderer: IRenderMime.IRenderer, html: string): void {
  const data = { [HTML_MIME]: html };
  void renderer.renderModel({ trusted: false, data, metadata: {}, setData: () => undefined });
}

/** The classes of the stock HTML widget's element and content, so the view sits as it did. */
function htmlWidgetContent(el: HTMLElement): HTMLDivElement {
  el.classList.add('jupyter-widgets', 'widget-inline-hbox', 'widget-html');
  const content = element('div', '', 'widget-html-content');
  el.appendChild(content);
  return content;
}

export class StreamTextModel extends DOMWidgetModel {
  // Set in initialize(), which Backbone's constructor calls: an initializer here would run
  // after it and wipe the state a reloaded page's model is made with.
  /** The chunks the page has (the state's, then each message's). */
  chunks!: string[];
  tail!: string;
  /** The last kernel message this model holds (the state's, then each message's). */
  seq!: number;
  private resyncing!: boolean;

  defaults(): ObjectHash {
    return {
      ...super.defaults(),
      _model_name: 'StreamTextModel',
      _model_module: WIDGET_MODULE,
      _model_module_version: MODULE_VERSION,
      _view_name: 'StreamTextView',
      _view_module: WIDGET_MODULE,
      _view_module_version: MODULE_VERSION,
      chunks: [],
      tail: '',
      seq: 0
    };
  }

  initialize(attributes: ObjectHash, options: Parameters<WidgetModel['initialize']>[1]): void {
    super.initialize(attributes, options);
    this.adoptState();
    // The whole state (request_state's answer, a resync, a reshow): what the kernel has now.
    this.on('change:chunks change:tail change:seq', this.adoptState, this);
    // After any state update still being applied: messages are handled in the order sent.
    this.on('msg:custom', (content: unknown) => {
      this.state_change = this.state_change.then(() => this.apply(content));
    });
  }

  private adoptState(): void {
    this.chunks = [...(strings(this.get('chunks')) ?? [])];
    const tail = this.get('tail');
    this.tail = typeof tail === 'string' ? tail : '';
    const seq = this.get('seq');
    this.seq = isIndex(seq) ? seq : 0;
    this.resyncing = false;
    this.trigger('stream:reset');
  }

  private apply(content: unknown): void {
    const message = (content ?? {}) as { seq?: unknown; count?: unknown; append?: unknown; tail?: unknown };
    const { seq, count } = message;
    if (!isIndex(seq) || !isIndex(count) || !Array.isArray(message.append) || seq <= this.seq) {
      return; // not ours, or already in the state this model was made from
    }
    const previous = this.tail;
    const append = message.append.map(part => resolve(previous, part));
    const tail = resolve(previous, message.tail);
    const chunks = strings(append);
    if (seq !== this.seq + 1 || count > this.chunks.length || !chunks || tail === null) {
      this.askState(); // one was missed: what the kernel has now
      return;
    }
    this.seq = seq;
    this.chunks = this.chunks.slice(0, count).concat(chunks);
    this.tail = tail;
    this.trigger('stream:append', count, chunks);
  }

  private askState(): void {
    if (!this.resyncing) {
      this.resyncing = true;
      this.send({ event: 'resync' }, {});
    }
  }
}

export class StreamTextView extends DOMWidgetView {
  private stable: HTMLDivElement | null = null;
  private tailBox: HTMLDivElement | null = null;
  private renderers: Renderers | null = null;
  /** One renderer per chunk shown, in order, and one for the tail. */
  private shown: IRenderMime.IRenderer[] = [];
  private tail: IRenderMime.IRenderer | null = null;

  render(): void {
    super.render();
    const content = htmlWidgetContent(this.el);
    this.el.classList.add('nb-agent-stream');
    this.renderers = renderersOf(this.model);
    if (!this.renderers) {
      content.appendChild(element('div', 'nb_agent: this page cannot render the answer live; it shows when the run ends.'));
      return;
    }
    this.stable = element('div');
    this.tailBox = element('div');
    this.tail = this.renderers.createRenderer(HTML_MIME);
    this.tailBox.appendChild(this.tail.node);
    content.append(this.stable, this.tailBox);
    this.drawAll();
    this.listenTo(this.model, 'stream:reset', this.drawAll);
    this.listenTo(this.model, 'stream:append', this.drawFrom);
  }

  private get stream(): StreamTextModel {
    return this.model as StreamTextModel;
  }

  private drawAll(): void {
    this.drop(0);
    this.drawFrom(0, this.stream.chunks);
  }

  /** Forget the chunks shown from `count` on. */
  private drop(count: number): void {
    for (const renderer of this.shown.splice(count)) {
      renderer.node.remove();
      renderer.dispose();
    }
  }

  /** Chunks from `count` on are `chunks` (a renderer each), then the tail. */
  private drawFrom(count: number, chunks: string[]): void {
    const { stable, renderers, tail } = this;
    if (!stable || !renderers || !tail) {
      return;
    }
    this.drop(count);
    if (this.shown.length < count) {
      this.drawAll(); // this view missed chunks: draw what the model has
      return;
    }
    for (const html of chunks) {
      const renderer = renderers.createRenderer(HTML_MIME);
      stable.appendChild(renderer.node);
      renderHtml(renderer, html);
      this.shown.push(renderer);
    }
    renderHtml(tail, this.stream.tail);
  }

  remove(): void {
    this.drop(0);
    this.tail?.dispose();
    this.tail = null;
    return super.remove();
  }
}

export class PageClockModel extends DOMWidgetModel {
  defaults(): ObjectHash {
    return {
      ...super.defaults(),
      _model_name: 'PageClockModel',
      _model_module: WIDGET_MODULE,
      _model_module_version: MODULE_VERSION,
      _view_name: 'PageClockView',
      _view_module: WIDGET_MODULE,
      _view_module_version: MODULE_VERSION,
      elapsed_s: 0
    };
  }
}

/** The status line's duration (nb_agent/jupyter/view/status_line.py, `duration`). */
export function duration(seconds: number): string {
  if (seconds < 60) {
    return `${seconds.toFixed(1)}s`;
  }
  const whole = Math.floor(seconds);
  return `${Math.floor(whole / 60)}m${String(whole % 60).padStart(2, '0')}s`;
}

export class PageClockView extends DOMWidgetView {
  private text: HTMLDivElement | null = null;
  private timer: number | null = null;
  /** The kernel's elapsed time and when this page learnt it. */
  private base = 0;
  private at = 0;

  render(): void {
    super.render();
    this.text = element('div', '', 'nb-agent-clock');
    htmlWidgetContent(this.el).appendChild(this.text);
    this.restart();
    this.listenTo(this.model, 'change:elapsed_s', this.restart);
    this.timer = window.setInterval(() => this.draw(), CLOCK_TICK_MS);
  }

  private restart(): void {
    const elapsed = this.model.get('elapsed_s');
    this.base = typeof elapsed === 'number' ? elapsed : 0;
    this.at = performance.now();
    this.draw();
  }

  private draw(): void {
    if (this.text) {
      this.text.textContent = `· ${duration(this.base + (performance.now() - this.at) / 1000)}`;
    }
  }

  remove(): void {
    if (this.timer !== null) {
      window.clearInterval(this.timer);
      this.timer = null;
    }
    return super.remove();
  }
}

/** Register the widgets with the page's widget manager; returns the version to announce (0: no ipywidgets). */
export async function registerWidgets(app: JupyterFrontEnd): Promise<number> {
  const registry = await app.resolveOptionalService(IJupyterWidgetRegistry);
  if (!registry) {
    return 0;
  }
  registry.registerWidget({
    name: WIDGET_MODULE,
    version: MODULE_VERSION,
    exports: { StreamTextModel, StreamTextView, PageClockModel, PageClockView }
  });
  return WIDGETS_VERSION;
}
