"""The cloud providers' wire formats, for the fake server.

- Vertex AI: ``POST /v1/projects/{project}/locations/{region}/publishers/anthropic/models/
  {model}:streamRawPredict`` (``:rawPredict`` without streaming); the body carries
  ``anthropic_version`` instead of ``model``; the stream is the Messages API's SSE.
- Bedrock: ``POST /model/{model}/invoke-with-response-stream`` (``/invoke`` without
  streaming); the stream is AWS event-stream framing (``application/vnd.amazon.eventstream``):
  each Messages API event, as JSON, base64-encoded in the ``bytes`` of a ``chunk`` event frame.
  botocore (the ``bedrock`` extra) decodes these frames but ships no encoder, so frames are
  built here from the format's definition (prelude, headers, payload, two CRC32s).
- Foundry speaks the Messages API itself, under its resource's base URL.

:func:`route` maps a request path to the provider and the model id it names.
"""

from __future__ import annotations

import base64
import json
import re
import struct
import zlib
from typing import Any
from urllib.parse import unquote

VERTEX_PATH = re.compile(r"^/v1/projects/(?P<project>[^/]+)/locations/(?P<region>[^/]+)/publishers/anthropic/models/(?P<model>[^/:]+):(?P<method>streamRawPredict|rawPredict)$")
BEDROCK_PATH = re.compile(r"^/model/(?P<model>[^/]+)/(?P<method>invoke-with-response-stream|invoke)$")
EVENT_STREAM_CONTENT_TYPE = "application/vnd.amazon.eventstream"


def route(path: str) -> tuple[str, dict[str, str]] | None:
    """``("vertex" | "bedrock", fields)`` for a cloud provider's messages path, else None."""
    match = VERTEX_PATH.match(path)
    if match:
        return "vertex", {**match.groupdict(), "stream": str(match["method"] == "streamRawPredict")}
    match = BEDROCK_PATH.match(path)
    if match:
        fields = match.groupdict()
        fields["model"] = unquote(fields["model"])
        return "bedrock", {**fields, "stream": str(match["method"] == "invoke-with-response-stream")}
    return None


def _header(name: str, value: str) -> bytes:
    raw_name, raw_value = name.encode(), value.encode()
    return struct.pack("!B", len(raw_name)) + raw_name + struct.pack("!BH", 7, len(raw_value)) + raw_value  # 7: string


def event_stream_frame(headers: dict[str, str], payload: bytes) -> bytes:
    """One AWS event-stream message: total length, headers length, prelude CRC, headers,
    payload, message CRC (all big-endian)."""
    encoded_headers = b"".join(_header(k, v) for k, v in headers.items())
    total = 12 + len(encoded_headers) + len(payload) + 4
    prelude = struct.pack("!II", total, len(encoded_headers))
    prelude += struct.pack("!I", zlib.crc32(prelude) & 0xFFFFFFFF)
    message = prelude + encoded_headers + payload
    return message + struct.pack("!I", zlib.crc32(message) & 0xFFFFFFFF)


def bedrock_chunk(event: dict[str, Any]) -> bytes:
    """A Messages API stream event as Bedrock sends it: a ``chunk`` event frame."""
    payload = json.dumps({"bytes": base64.b64encode(json.dumps(event).encode()).decode()}).encode()
    headers = {":event-type": "chunk", ":content-type": "application/json", ":message-type": "event"}
    return event_stream_frame(headers, payload)


def bedrock_exception(error_type: str, message: str) -> bytes:
    """A mid-stream failure as Bedrock sends it: an ``exception`` frame."""
    kind = {"overloaded_error": "serviceUnavailableException", "rate_limit_error": "throttlingException"}.get(error_type, "internalServerException")
    headers = {":exception-type": kind, ":content-type": "application/json", ":message-type": "exception"}
    return event_stream_frame(headers, json.dumps({"message": message}).encode())


__all__ = ["EVENT_STREAM_CONTENT_TYPE", "bedrock_chunk", "bedrock_exception", "event_stream_frame", "route"]
