"""``WebFetch(domain:…)`` rules as an attacker would probe them: lookalike domains,
userinfo, ports, IDNA, IP literals in other spellings. The host a rule is matched against
must be the host the HTTP client connects to (checked differentially against httpx)."""

from __future__ import annotations

import httpx
import pytest

from nb_agent.abort import AbortController
from nb_agent.permissions.domains import canonical_host, domain_matches
from nb_agent.permissions.policy import RuleBasedPolicy
from nb_agent.permissions.types import PermissionAllow, PermissionAsk, PermissionDeny
from nb_agent.tools.base import ToolSession, ToolUseContext
from nb_agent.tools.web.web_fetch import WebFetchTool

TOOL = WebFetchTool()


def _ctx(tmp_path):
    return ToolUseContext(abort_controller=AbortController(), session=ToolSession(cwd=tmp_path))


async def _decide(tmp_path, url, *, allow=(), deny=()):
    policy = RuleBasedPolicy(allow=allow, deny=deny, project_dir=tmp_path, home=tmp_path)
    return await policy.decide(TOOL, TOOL.parse_input({"url": url, "prompt": "p"}), _ctx(tmp_path))


ALLOWED_AS_EXAMPLE_COM = [
    "https://example.com/",
    "http://example.com/page?q=1",
    "https://EXAMPLE.com./x",
    "https://example.com:8443/",  # ports play no part
    "https://example\u3002com/",  # ideographic full stop: IDNA maps it to '.', httpx connects to example.com
]
NOT_EXAMPLE_COM = [
    "https://example.com.evil.com/",
    "https://evilexample.com/",
    "https://www.example.com/",  # subdomains need *.example.com
    "https://example.co/",
    "https://evil.com/#@example.com",
    "https://evil.com/?@example.com",
    "https://evil.com/example.com",
    "https://\u0435xample.com/",  # Cyrillic е: xn--xample-2of.com
    "https://examp1e.com/",
    "https://example.com%2eevil.com/",
]
REFUSED = [
    "https://example.com@evil.com/",
    "https://user:pass@example.com/",
    "https://evil.com\\@example.com/",
    "http://2130706433/",
    "http://0x7f.1/",
    "http://0177.0.0.1/",
    "http://127.1/",
]


@pytest.mark.parametrize("url", ALLOWED_AS_EXAMPLE_COM)
async def test_spellings_of_the_allowed_host_are_allowed(tmp_path, url):
    assert isinstance(await _decide(tmp_path, url, allow=["WebFetch(domain:example.com)"]), PermissionAllow)


@pytest.mark.parametrize("url", NOT_EXAMPLE_COM + REFUSED)
async def test_lookalikes_are_not_allowed_by_the_rule(tmp_path, url):
    decision = await _decide(tmp_path, url, allow=["WebFetch(domain:example.com)"])
    assert isinstance(decision, PermissionAsk), (url, decision)


@pytest.mark.parametrize("url", ALLOWED_AS_EXAMPLE_COM)
async def test_a_deny_rule_catches_every_spelling_even_with_a_blanket_allow(tmp_path, url):
    decision = await _decide(tmp_path, url, allow=["WebFetch"], deny=["WebFetch(domain:example.com)"])
    assert isinstance(decision, PermissionDeny), url


@pytest.mark.parametrize("url", REFUSED)
async def test_ambiguous_urls_are_refused_before_any_permission(tmp_path, url):
    result = await TOOL.validate_input(TOOL.parse_input({"url": url, "prompt": "p"}), _ctx(tmp_path))
    assert not result.ok, url


@pytest.mark.parametrize("url", ALLOWED_AS_EXAMPLE_COM + NOT_EXAMPLE_COM)
def test_the_rule_sees_the_host_httpx_connects_to(url):
    """Differential: the rule content is the canonical form of httpx's own host."""
    connected = httpx.URL(url).raw_host.decode("ascii")
    content = TOOL.permission_rule_content(TOOL.parse_input({"url": url, "prompt": "p"}))
    assert content == canonical_host(connected)
    assert (content == "example.com") == (url in ALLOWED_AS_EXAMPLE_COM)


@pytest.mark.parametrize(
    ("pattern", "host", "expected"),
    [
        ("*.example.com", "a.example.com", True),
        ("*.example.com", "a.b.example.com", True),
        ("*.example.com", "example.com", False),
        ("*.example.com", "aexample.com", False),
        ("*.0.0.1", "127.0.0.1", False),  # no wildcards over addresses
        ("127.0.0.1", "127.0.0.1", True),
        ("127.0.0.1", "::ffff:127.0.0.1", True),  # the same address: a deny rule must catch it
        ("::1", "[::1]", True),
        ("bücher.de", "xn--bcher-kva.de", True),
        ("xn--bcher-kva.de", "BÜCHER.de", True),
        ("example.com", "", False),
    ],
)
def test_domain_matching(pattern, host, expected):
    assert domain_matches(pattern, host) is expected


async def test_an_ipv4_mapped_address_is_denied_by_the_ipv4_rule(tmp_path):
    decision = await _decide(tmp_path, "http://[::ffff:127.0.0.1]:8000/", allow=["WebFetch"], deny=["WebFetch(domain:127.0.0.1)"])
    assert isinstance(decision, PermissionDeny)


async def test_the_always_allow_suggestion_names_the_canonical_host(tmp_path):
    decision = await _decide(tmp_path, "https://Bücher.DE./x")
    assert isinstance(decision, PermissionAsk) and decision.suggested_rule == "WebFetch(domain:xn--bcher-kva.de)"
