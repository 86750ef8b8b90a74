"""Host names for ``WebFetch(domain:…)`` rules, compared in one canonical spelling.

A rule and a URL may spell one host differently (``Example.COM.``, ``bücher.de`` and
``xn--bcher-kva.de``, ``[::1]`` and ``::1``); both sides are reduced to the ASCII,
lower-case, IDNA-encoded form without a trailing dot before comparing, and the URL's
side must be the host the HTTP client actually connects to (WebFetch passes it). A
rule names a host exactly, or ``*.example.com`` for its subdomains (not the domain
itself); ports play no part. IP addresses only match the same address written the
same canonical way (an IPv4-mapped IPv6 address is its IPv4 address), never through a
wildcard; a host the resolver would read as an address in another spelling
(``2130706433``, ``0x7f.1``, ``0177.0.0.1``) is not a valid host at all.
"""

from __future__ import annotations

import ipaddress
import re

_NUMERIC_HOST = re.compile(r"(?:0x[0-9a-f]*|[0-9]+)(?:\.(?:0x[0-9a-f]*|[0-9]+))*", re.IGNORECASE)
"""``2130706433``, ``0x7f.1``, ``0177.0.0.1``: the resolver reads these as IPv4 addresses."""


def canonical_host(name: str) -> str | None:
    """``name`` as ASCII lower-case IDNA without a trailing dot; ``None`` if it is not a host."""
    host = name.strip()
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    host = host.rstrip(".")
    if not host or any(c in host for c in "/\\@?#% \t\r\n"):
        return None
    address = _ip(host)
    if address is not None:
        return address
    if _NUMERIC_HOST.fullmatch(host):
        return None  # an address in a non-canonical spelling: no rule could be matched safely
    try:
        ascii_host = host.encode("idna").decode("ascii")
    except UnicodeError:
        return None
    return ascii_host.lower() or None


def _ip(host: str) -> str | None:
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return None
    mapped = getattr(address, "ipv4_mapped", None)  # ::ffff:127.0.0.1 is 127.0.0.1
    return str(mapped or address)


def is_ip_literal(host: str) -> bool:
    return _ip(host.strip("[]")) is not None


def domain_matches(pattern: str, host: str) -> bool:
    """Does the rule's domain ``pattern`` cover ``host``?"""
    wildcard = pattern.strip().startswith("*.")
    wanted = canonical_host(pattern.strip()[2:] if wildcard else pattern)
    got = canonical_host(host)
    if wanted is None or got is None:
        return False
    if wildcard:
        return not is_ip_literal(got) and not is_ip_literal(wanted) and got.endswith("." + wanted)
    return got == wanted
