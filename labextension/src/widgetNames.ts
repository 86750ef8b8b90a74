/**
 * The extension's widgets as the kernel names them (nb_agent/jupyter/live/names.py:
 * WIDGET_MODULE, WIDGETS_VERSION): kept apart from streamWidgets.ts, which loads
 * @jupyter-widgets/base, so the rest of the extension never needs ipywidgets.
 */
export const WIDGET_MODULE = 'nb-agent-live';
/** Announced in `hello` (`widgets`) once registered; the module is registered as `${WIDGETS_VERSION}.0.0`. */
export const WIDGETS_VERSION = 1;
