"""Context management (SPEC §3–4): keeping the window within the model's limits.

In the order the loop applies them before each model call:

- ``tool_result_storage``: a result over its tool's threshold is persisted, a preview sent;
- ``snip``: history snip (off by default);
- ``content_replacement``: the per-batch tool-result budget, decided once per result;
- ``microcompact``: old results of compactable tools cleared;
- ``images``: only the last few images of tool results kept (the image window);
- ``autocompact`` / ``compact``: a model-written summary replaces the history;

the three in the middle applied together, incrementally, by ``result_rewrites``; plus
``tokens`` (measuring the window), ``config`` (thresholds per model, settings),
``tool_use_summary`` and ``manager`` (:class:`~nb_agent.context.manager.ContextManager`,
the session-level state and the loop's ``QueryDeps``). Submodules are imported where
used: this package imports nothing on its own, so the tool pipeline can use
``tool_result_storage`` without pulling in the loop.
"""
