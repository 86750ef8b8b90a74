"""Renderers of a run: live widgets, plain text, and the pieces they share."""
