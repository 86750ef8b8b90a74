"""What nb_agent knows about the user's objects, by kind: how to describe one in a line, how
big it is, and how to watch it for changes cheaply (snapshot, compare, restore) without
importing its library, computing a lazy object or running its ``__eq__`` / ``__hash__``.

:func:`kind_of` finds an object's :class:`ObjectKind`; :func:`register_kind` adds a kind.
"""

from __future__ import annotations

from nb_agent.objects.builtin import BUILTIN_KINDS
from nb_agent.objects.describe import (
    describe_brief,
    describe_one_line,
    frame_columns,
    human_bytes,
    memory,
    shape_text,
    type_name,
)
from nb_agent.objects.kinds import ChangeTest, Facts, ObjectKind, kind_of, register_kind, registered_kinds
from nb_agent.objects.lazy_frames import LAZY_FRAME_KINDS
from nb_agent.objects.numpy_kind import NumpyArrayKind
from nb_agent.objects.pandas_kind import PandasKind
from nb_agent.objects.polars_kind import PolarsFrameKind

for _kind in (*LAZY_FRAME_KINDS, *BUILTIN_KINDS, NumpyArrayKind(), PandasKind(), PolarsFrameKind()):
    register_kind(_kind)

__all__ = [
    "ChangeTest",
    "Facts",
    "ObjectKind",
    "describe_brief",
    "describe_one_line",
    "frame_columns",
    "human_bytes",
    "kind_of",
    "memory",
    "register_kind",
    "registered_kinds",
    "shape_text",
    "type_name",
]
