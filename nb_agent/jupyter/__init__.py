"""The Jupyter layer: ``%%agent`` / ``%agent`` magics, live widgets, kernel tools.

Only this package imports IPython and ipywidgets; the engine never imports it.
Heavy modules (the engine, anthropic, ipywidgets, markdown-it) load at the first run,
so ``%load_ext nb_agent`` stays fast.
"""
