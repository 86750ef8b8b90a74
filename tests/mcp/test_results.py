"""CallToolResult → tool_result content, and the per-call output cap."""

from __future__ import annotations

import mcp_types as mt
import pytest

from nb_agent.mcp.results import convert_call_result
from nb_agent.mcp.state import MAX_OUTPUT_TOKENS_ENV, max_output_tokens_from_env


def test_text_image_and_resources_are_converted() -> None:
    result = mt.CallToolResult(
        content=[
            mt.TextContent(text="hello"),
            mt.ImageContent(data="aGk=", mime_type="image/png"),
            mt.EmbeddedResource(resource=mt.TextResourceContents(uri="memo://a", text="resource text")),
            mt.EmbeddedResource(resource=mt.BlobResourceContents(uri="file://x.bin", blob="AAAA", mime_type="application/zip")),
            mt.AudioContent(data="AAAA", mime_type="audio/wav"),
            mt.ResourceLink(name="doc", uri="https://example.com/doc", description="the doc"),
        ]
    )
    out = convert_call_result(result)
    assert out.content[0] == {"type": "text", "text": "hello"}
    assert out.content[1] == {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "aGk="}}
    assert out.content[2]["text"] == "[Resource memo://a]\nresource text"
    assert "application/zip" in out.content[3]["text"] and "omitted" in out.content[3]["text"]
    assert "audio/wav" in out.content[4]["text"]
    assert "https://example.com/doc" in out.content[5]["text"]
    assert not out.is_error and not out.truncated
    assert isinstance(out.to_result_content(), list)


def test_all_text_becomes_one_string_and_errors_are_flagged() -> None:
    out = convert_call_result(mt.CallToolResult(content=[mt.TextContent(text="a"), mt.TextContent(text="b")], is_error=True))
    assert out.is_error
    assert out.to_result_content() == "a\n\nb"


def test_structured_only_result_is_shown_as_json() -> None:
    out = convert_call_result(mt.CallToolResult(content=[], structured_content={"n": 1}))
    assert out.to_result_content() == '{"n": 1}'
    assert convert_call_result(mt.CallToolResult(content=[])).to_result_content() == "(no content)"


def test_unsupported_image_type_is_described_not_sent() -> None:
    out = convert_call_result(mt.CallToolResult(content=[mt.ImageContent(data="AAAA", mime_type="image/tiff")]))
    assert out.content[0]["type"] == "text" and "image/tiff" in out.content[0]["text"]


def test_output_cap_truncates_with_a_note() -> None:
    text = "x" * 10_000
    out = convert_call_result(mt.CallToolResult(content=[mt.TextContent(text=text)]), max_output_tokens=1_000)
    assert out.truncated
    body = out.to_result_content()
    assert isinstance(body, str)
    assert body.startswith("x" * 4_000) and "x" * 4_001 not in body
    assert "Output truncated" in body and "1,000-token limit" in body and MAX_OUTPUT_TOKENS_ENV in body


def test_output_cap_drops_images_past_the_budget() -> None:
    image = mt.ImageContent(data="AAAA", mime_type="image/png")
    out = convert_call_result(mt.CallToolResult(content=[image, image, image]), max_output_tokens=3_500)
    assert out.truncated
    assert [b["type"] for b in out.content] == ["image", "image", "text"]


@pytest.mark.parametrize(("raw", "expected"), [("", 25_000), ("500", 500), ("junk", 25_000), ("-3", 25_000)])
def test_output_cap_from_env(raw: str, expected: int) -> None:
    assert max_output_tokens_from_env({MAX_OUTPUT_TOKENS_ENV: raw}) == expected
