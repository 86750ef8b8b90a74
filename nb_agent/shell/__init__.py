"""What a shell command line means, without running it (SPEC §8).

Pure analysis below both :mod:`nb_agent.tools` (the Bash tool runs commands) and
:mod:`nb_agent.permissions` (which decides whether they may run): the bash parser and its
words, wrappers, the read-only classifier, what a command reads
(:class:`~nb_agent.shell.read_plan.ReadPlan`), and git repository checks. Nothing here
imports a tool or a permission module.
"""
