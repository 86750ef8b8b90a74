"""Runnable examples (``python -m nb_agent.examples.headless``)."""
