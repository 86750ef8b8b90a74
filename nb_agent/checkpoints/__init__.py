"""Checkpoints of what the agent changes, and rewinding them: the kernel's namespace
(``namespace``), the working directories' files, the conversation."""
