"""Keyword ranking for ToolSearch: BM25F over a tool's name words, server, hint and description.

A tool is split into fields, each with its own weight: the words of its name (``mcp__github__
list_pull_requests`` → list, pull, request; ``NotebookEdit`` → notebook, edit), the MCP
server's name, the search hint (and MCP title), the description and the parameter names.
Words are lower-cased and lightly stemmed. A query is stripped of stop words and expanded
with abbreviations (``PR`` → pull request, ``k8s`` → kubernetes) and related words
(``delete`` ~ remove, ``ticket`` ~ issue) at a lower weight; adjacent words that form a
word of the index are joined (``on call`` → oncall, ``data source`` → datasource), and
``not X`` also looks for ``unX``. The score is BM25F, scaled by how many of the query's
words matched (coverage) and by how much of the tool's own name the query explains.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

FIELD_WEIGHTS: dict[str, float] = {"name": 3.0, "server": 2.0, "hint": 2.0, "description": 1.0, "params": 0.4}
FIELD_LENGTH_NORM: dict[str, float] = {"name": 0.3, "server": 0.0, "hint": 0.5, "description": 0.75, "params": 0.5}
K1 = 1.2
SYNONYM_WEIGHT = 0.8
RELATED_WEIGHT = 0.45
NAME_BONUS = 0.8
"""How much a query that accounts for all of a tool's name words multiplies its score."""
MAX_DESCRIPTION_CHARS = 4_000

_WORD = re.compile(r"[A-Za-z0-9]+")
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")

STOPWORDS = frozenset(
    """a an the of to in on for from with by at and or is are was were be been being am me my mine i
    we us our ours you your it its this that these those please can could would should will shall do
    does did done how what whats which who whom where when why want wanted need needs some any there
    here into about as so just also then than s t let lets give tell via using use uses used tool tools
    like kindly hey hi thanks thank up out off over under again very really one ones them they their
    he she his her if else but not no yes ok okay called named titled""".split()
)

# Exact expansions: the query word means these words (weight 1).
ABBREVIATIONS: dict[str, tuple[str, ...]] = {
    "pr": ("pull", "request"), "prs": ("pull", "request"), "mr": ("merge", "request"),
    "mrs": ("merge", "request"), "repo": ("repository",), "repos": ("repository",),
    "k8s": ("kubernetes",), "kube": ("kubernetes",), "kubectl": ("kubernetes",), "db": ("database",),
    "dbs": ("database",), "dir": ("directory",), "dirs": ("directory",), "env": ("environment",),
    "config": ("configuration",), "msg": ("message",), "msgs": ("message",), "docs": ("documentation",),
    "doc": ("documentation",), "org": ("organization",), "orgs": ("organization",), "repl": ("shell",),
    "js": ("javascript",), "deps": ("dependency",), "perf": ("performance",), "stats": ("statistics",),
    "info": ("information",), "auth": ("authentication",), "ci": ("workflow", "job"),
    "oncall": ("oncall",), "whoami": ("whoami",), "dm": ("direct", "message"), "sql": ("query",),
    "url": ("url",), "ns": ("namespace",), "vm": ("virtual", "machine"), "cve": ("advisory",),
    "img": ("image",), "pic": ("image",), "pics": ("image",), "md": ("markdown",),
}

# Synonyms: each group's members expand to one another (at SYNONYM_WEIGHT).
SYNONYM_GROUPS: tuple[tuple[str, ...], ...] = (
    ("folder", "directory"),
    ("delete", "remove"),
    ("ticket", "issue"),
    ("picture", "image", "photo"),
    ("download", "fetch"),
    ("webpage", "website", "url"),
    ("ask", "request"),
    ("mute", "silence", "snooze"),
    ("outage", "incident"),
    ("bill", "invoice"),
    ("discount", "coupon"),
    ("remember", "memorize", "memory"),
    ("directions", "direction", "route", "drive", "driving", "commute"),
    ("review", "reviewer", "reviewing"),
    ("status", "transition", "progress"),
    ("undo", "reset", "revert", "unstage", "rollback"),
    ("forget", "delete", "remove", "erase"),
    ("far", "distance"),
    ("elevation", "altitude", "height", "high", "sea"),
    ("multiple", "both", "several", "many", "batch", "bulk"),
    ("traceback", "stacktrace", "backtrace"),
    ("emoji", "reaction"),
    ("rename", "move"),
)

# Related words: each group's members expand to one another (at RELATED_WEIGHT).
RELATED_GROUPS: tuple[tuple[str, ...], ...] = (
    ("create", "add", "new", "make", "open", "write", "start", "declare", "setup"),
    ("delete", "remove", "destroy", "drop", "erase", "uninstall", "purge"),
    ("list", "show", "all", "enumerate", "view", "display", "which"),
    ("get", "show", "fetch", "retrieve", "read", "view", "see", "display", "check", "detail", "inspect"),
    ("search", "find", "lookup", "look", "query", "locate", "discover"),
    ("update", "edit", "change", "modify", "set", "rename", "patch", "alter", "replace"),
    ("run", "execute", "exec", "trigger", "launch", "invoke"),
    ("stop", "cancel", "kill", "terminate", "halt", "abort"),
    ("issue", "ticket", "bug", "task"),
    ("error", "exception", "crash", "failure", "problem", "bug"),
    ("message", "post", "chat", "say", "send", "announce", "text", "talk"),
    ("reply", "respond", "answer", "thread"),
    ("folder", "directory"),
    ("page", "document", "site", "website", "webpage"),
    ("url", "link", "website", "webpage", "address"),
    ("browser", "page", "web", "tab"),
    ("screenshot", "capture", "screen", "snapshot"),
    ("image", "picture", "photo", "png", "render", "screenshot"),
    ("log", "logs", "logging", "output"),
    ("history", "log", "past", "previous", "recent"),
    ("diff", "change", "difference", "modification", "changed"),
    ("remember", "memory", "knowledge", "store", "save", "note", "fact"),
    ("entity", "person", "people", "thing", "fact"),
    ("observation", "fact", "detail", "note"),
    ("time", "clock", "timezone", "hour", "now", "current"),
    ("direction", "route", "drive", "travel", "navigate", "way", "directions"),
    ("geocode", "coordinate", "latitude", "longitude", "address", "location", "where"),
    ("local", "near", "nearby", "around", "business", "place", "shop", "store", "restaurant"),
    ("web", "internet", "online", "google", "search"),
    ("download", "fetch", "retrieve", "grab", "scrape"),
    ("payment", "pay", "charge", "intent", "transaction"),
    ("refund", "reimburse", "payment"),
    ("coupon", "discount", "promo", "off"),
    ("invoice", "bill", "billing", "unpaid", "due"),
    ("balance", "money", "fund", "account"),
    ("customer", "client", "buyer"),
    ("subscription", "plan", "recurring", "membership"),
    ("alert", "alarm", "alerting", "warning"),
    ("silence", "mute", "snooze", "suppress", "quiet"),
    ("incident", "outage", "downtime", "emergency"),
    ("oncall", "pager", "shift", "rota", "duty"),
    ("metric", "metrics", "promql", "prometheus", "rate", "counter", "gauge"),
    ("latency", "slow", "slowness", "duration", "performance"),
    ("dashboard", "panel", "graph", "chart", "visualization"),
    ("deploy", "deployment", "release", "rollout", "ship"),
    ("container", "pod"),
    ("cluster", "kubernetes", "node"),
    ("shell", "command", "exec", "terminal", "bash"),
    ("cpu", "memory", "usage", "consumption", "top", "resource"),
    ("replica", "scale", "instance"),
    ("sprint", "cycle", "iteration"),
    ("epic", "parent", "initiative"),
    ("wiki", "confluence", "space", "knowledge"),
    ("note", "page", "comment", "memo"),
    ("worklog", "work", "hour", "spent", "timesheet"),
    ("status", "state", "transition", "progress", "workflow"),
    ("assign", "assignee", "owner", "responsible"),
    ("priority", "urgent", "urgency", "importance", "critical"),
    ("label", "tag", "tagged"),
    ("review", "reviewer", "approve", "approval", "feedback"),
    ("notification", "inbox", "mention", "unread"),
    ("release", "version", "tag"),
    ("stage", "add", "index"),
    ("tree", "structure", "hierarchy", "layout"),
    ("size", "big", "large", "small", "space"),
    ("move", "rename", "relocate", "transfer"),
    ("table", "column", "schema", "field", "describe", "structure"),
    ("select", "query", "count", "sum", "average", "group"),
    ("database", "sqlite", "sql", "table"),
    ("console", "devtools"),
    ("form", "fill", "input", "field", "signup", "login"),
    ("type", "enter", "input", "keyboard", "press"),
    ("click", "button", "tap", "press"),
    ("navigate", "go", "visit", "open", "browse", "load"),
    ("analyze", "analysis", "root", "cause", "diagnose", "investigate", "why"),
    ("stacktrace", "trace", "traceback", "stack", "backtrace"),
    ("monitor", "uptime", "ping", "healthcheck", "availability"),
    ("reaction", "react", "emoji", "thumb"),
    ("user", "person", "people", "member", "account", "profile", "who"),
    ("me", "myself", "logged", "authenticated", "viewer", "self", "whoami", "current"),
    ("team", "group", "squad"),
    ("project", "repository"),
    ("organization", "company", "enterprise"),
    ("code", "source", "function", "symbol", "call", "implementation"),
    ("security", "advisory", "vulnerability", "vulnerable", "cve", "dependabot"),
    ("dependency", "package", "library", "dependabot"),
    ("workflow", "job", "build", "action", "pipeline", "ci"),
    ("fail", "failed", "failing", "broken", "failure"),
    ("title", "name", "heading", "subject"),
    ("body", "description", "content", "text"),
    ("close", "closed", "state", "resolve", "resolved", "done"),
    ("unresolved", "open", "active", "unfixed"),
    ("relation", "relationship", "link", "connect"),
    ("helm", "chart"),
    ("event", "events", "happening"),
    ("datasource", "source", "connection"),
    ("markdown", "text"),
    ("read", "content", "contents", "open", "cat"),
    ("file", "files", "document"),
)

# Words whose stems must not be altered (the stemmer would mangle them).
_NO_STEM = frozenset({"kubernetes", "sentry", "jira", "slack", "notion", "grafana", "loki", "stripe", "linear", "helm", "k8s", "tekton", "pyroscope", "sqlite", "promql", "whoami", "oncall", "seer", "dns", "ios", "https", "http", "status", "canvas", "alias", "analysis", "always", "access", "address", "process", "class", "less"})


def stem(word: str) -> str:
    """A light suffix stemmer: plurals, -ing, -ed, final -e (create/created/creating → creat)."""
    w = word.lower()
    if len(w) <= 3 or w in _NO_STEM or w.isdigit():
        return w
    if w.endswith("ies") and len(w) > 4:
        w = w[:-3] + "y"
    elif w.endswith("sses"):
        w = w[:-2]
    elif w.endswith(("ches", "shes", "xes", "zes")):
        w = w[:-2]
    elif w.endswith("s") and not w.endswith(("ss", "us", "is")):
        w = w[:-1]
    if w.endswith("ing") and len(w) - 3 >= 3:
        w = _undouble(w[:-3])
    elif w.endswith("ed") and len(w) - 2 >= 3:
        w = _undouble(w[:-2])
    if w.endswith("e") and len(w) > 3:
        w = w[:-1]
    return w


def _undouble(w: str) -> str:
    if len(w) >= 3 and w[-1] == w[-2] and w[-1] not in "lsz":
        return w[:-1]
    return w


def split_words(text: str, *, keep_compounds: bool = False) -> list[str]:
    """Words of prose or identifiers, lower-cased: ``getIssueById`` → get, issue, by, id.

    ``keep_compounds`` also keeps a camel-case word whole (``JavaScript`` → java, script,
    javascript), so a query that writes it in lower case still matches.
    """
    out: list[str] = []
    for token in _WORD.findall(text):
        parts = _CAMEL.findall(token) if not token.islower() and not token.isupper() else [token]
        out.extend(p.lower() for p in parts if p)
        if keep_compounds and len(parts) > 1:
            out.append(token.lower())
    return out


def _terms(text: str) -> list[str]:
    return [stem(w) for w in split_words(text, keep_compounds=True) if w not in STOPWORDS]


def _name_parts(name: str) -> tuple[str, str]:
    """(server, tool) of an ``mcp__server__tool`` name; ("", name) for a built-in."""
    if name.startswith("mcp__"):
        server, _, tool = name[len("mcp__") :].partition("__")
        return server, tool or server
    return "", name


def _build_expansions() -> dict[str, dict[str, float]]:
    table: dict[str, dict[str, float]] = {}
    for groups, weight in ((SYNONYM_GROUPS, SYNONYM_WEIGHT), (RELATED_GROUPS, RELATED_WEIGHT)):
        for group in groups:
            stems = {stem(w) for w in group}
            for s in stems:
                bucket = table.setdefault(s, {})
                for other in stems - {s}:
                    bucket[other] = max(bucket.get(other, 0.0), weight)
    return table


_RELATED = _build_expansions()
_ABBREV = {k: tuple(stem(w) for w in v) for k, v in ABBREVIATIONS.items()}


@dataclass(frozen=True, kw_only=True)
class QueryTerm:
    """One stemmed search term; ``group`` ties expansions to the query word they came from."""

    stem: str
    weight: float
    group: int
    required: bool = False


@dataclass(frozen=True, kw_only=True)
class ParsedQuery:
    """A query as weighted terms, grouped by the query word each came from."""

    terms: list[QueryTerm]
    groups: int
    """How many query words (coverage is measured over these)."""
    required_groups: frozenset[int]


_ISSUE_KEY = re.compile(r"^[A-Z][A-Z0-9]+-\d+$")
"""A tracker key such as ``PROJ-123``: the query is about an issue."""
_URL = re.compile(r"^(https?://|www\.)\S+$", re.IGNORECASE)
_FILE_NAME = re.compile(r"^[\w./~-]*\w\.[A-Za-z][A-Za-z0-9]{0,5}$")
"""``notes.txt``, ``src/app.py``: the query is about a file (its name is not a concept)."""


def _entity_word(token: str) -> str | None:
    """The kind of thing a token names (issue key, URL, file name), if it is one."""
    body = token.strip(".,;:!?()[]'\"`")
    if _ISSUE_KEY.match(body):
        return "issue"
    if _URL.match(body):
        return "url"
    if _FILE_NAME.match(body) and not body.replace(".", "").isdigit():
        return "file"
    return None


def _query_words(query: str, vocabulary: frozenset[str]) -> list[tuple[str, bool]]:
    """(word, required) pairs; entity names (``New York``, ``Alice``) are dropped when the
    index is known: a capitalised word after the first that the index has never seen, with
    the capitalised words next to it."""
    tokens: list[tuple[str, bool, bool]] = []  # (word, required, capitalised)
    for position, token in enumerate(query.split()):
        required = token.startswith("+") and len(token) > 1
        body = token[1:] if required else token
        entity = _entity_word(body)
        if entity is not None:
            tokens.append((entity, required, False))
            continue
        for w in _WORD.findall(body):
            capitalised = position > 0 and w[:1].isupper() and w[1:].islower()
            for part in split_words(w):
                tokens.append((part, required, capitalised))
    if not vocabulary:
        return [(w, r) for w, r, _ in tokens]
    drop = [False] * len(tokens)
    i = 0
    while i < len(tokens):
        if not tokens[i][2]:
            i += 1
            continue
        j = i
        while j < len(tokens) and tokens[j][2]:
            j += 1
        if any(stem(tokens[k][0]) not in vocabulary and not tokens[k][1] for k in range(i, j)):
            drop[i:j] = [True] * (j - i)
        i = j
    return [(w, r) for (w, r, _), d in zip(tokens, drop) if not d]


def parse_query(query: str, *, vocabulary: frozenset[str] = frozenset()) -> ParsedQuery:
    """Query words → weighted terms. ``+word`` marks a required word.

    With the index's ``vocabulary``, words the index has never seen (and that expand to
    nothing it has seen) are left out, so they do not dilute coverage.
    """
    words = _query_words(query, vocabulary)
    terms: dict[tuple[int, str], QueryTerm] = {}
    groups = 0
    required_groups: set[int] = set()

    def add(s: str, weight: float, group: int, required: bool) -> None:
        key = (group, s)
        old = terms.get(key)
        if old is None or old.weight < weight:
            terms[key] = QueryTerm(stem=s, weight=weight, group=group, required=required)

    def known(s: str) -> bool:
        return not vocabulary or s in vocabulary

    plain = [w for w, _ in words]
    for i, (w, required) in enumerate(words):
        candidates: list[tuple[str, float]] = []
        joined = _joined_word(plain, i, vocabulary)
        if joined is not None:
            candidates.append((joined, 1.0))
        if i > 0 and plain[i - 1] in ("not", "un", "non") and known(stem("un" + w)) and vocabulary:
            candidates.append((stem("un" + w), 1.0))
        if w not in STOPWORDS or required:
            if w in _ABBREV:
                candidates.extend((s, 1.0) for s in _ABBREV[w])
            s = stem(w)
            candidates.append((s, 1.0))
            candidates.extend(_RELATED.get(s, {}).items())
        candidates = [(s, weight) for s, weight in candidates if known(s)]
        if not candidates and required:
            candidates = [(stem(w), 1.0)]  # a required word the index lacks: nothing can match
        if not candidates:
            continue
        group = groups
        groups += 1
        if required:
            required_groups.add(group)
        for s, weight in candidates:
            add(s, weight, group, required and weight >= 1.0)
    return ParsedQuery(terms=list(terms.values()), groups=groups, required_groups=frozenset(required_groups))


def _joined_word(words: list[str], i: int, vocabulary: frozenset[str]) -> str | None:
    # "on call" → oncall, "data source" → datasource, "who am i" → whoami
    for n in (3, 2):
        if i + 1 >= n:
            candidate = stem("".join(words[i + 1 - n : i + 1]))
            if candidate in vocabulary:
                return candidate
    return None


@dataclass(frozen=True, kw_only=True)
class ScoredTool:
    """A search hit."""

    tool: Any
    score: float


class _Doc:
    __slots__ = ("tool", "fields", "lengths", "name_terms", "all_terms")

    def __init__(self, tool: Any) -> None:
        self.tool = tool
        server, tool_part = _name_parts(tool.name)
        hint = " ".join(x for x in (getattr(tool, "search_hint", None), getattr(tool, "title", None)) if isinstance(x, str))
        try:
            description = tool.prompt()[:MAX_DESCRIPTION_CHARS]
        except Exception:  # noqa: BLE001 - a broken prompt must not break search
            description = ""
        try:
            params = " ".join((tool.input_json_schema().get("properties") or {}).keys())
        except Exception:  # noqa: BLE001
            params = ""
        name_words = [stem(w) for w in split_words(tool_part, keep_compounds=True)]
        self.fields: dict[str, Counter[str]] = {
            "name": Counter(name_words),
            "server": Counter(stem(w) for w in split_words(server)),
            "hint": Counter(_terms(hint)),
            "description": Counter(_terms(description)),
            "params": Counter(_terms(params)),
        }
        self.lengths = {f: sum(c.values()) for f, c in self.fields.items()}
        self.name_terms = [w for w in name_words if w not in STOPWORDS]
        self.all_terms: set[str] = set().union(*self.fields.values())


class ToolSearchIndex:
    """Ranks tools for a keyword query; build once per tool list."""

    def __init__(self, tools: Sequence[Any]) -> None:
        self._docs = [_Doc(t) for t in tools]
        n = max(len(self._docs), 1)
        self._avg = {f: (sum(d.lengths[f] for d in self._docs) / n) or 1.0 for f in FIELD_WEIGHTS}
        df: Counter[str] = Counter()
        for d in self._docs:
            df.update(d.all_terms)
        self._idf = {t: math.log(1 + (n - c + 0.5) / (c + 0.5)) for t, c in df.items()}
        self.vocabulary = frozenset(df)

    def idf(self, term: str) -> float:
        return self._idf.get(term, 0.0)

    def _bm25(self, doc: _Doc, term: str) -> float:
        wtf = 0.0
        for f, weight in FIELD_WEIGHTS.items():
            tf = doc.fields[f].get(term, 0)
            if tf:
                b = FIELD_LENGTH_NORM[f]
                wtf += weight * tf / (1 - b + b * doc.lengths[f] / self._avg[f])
        return self.idf(term) * wtf * (K1 + 1) / (K1 + wtf)

    def search(self, query: str, *, limit: int = 5) -> list[ScoredTool]:
        parsed = parse_query(query, vocabulary=self.vocabulary)
        if not parsed.terms:
            return []
        scored = [ScoredTool(tool=d.tool, score=s) for d in self._docs if (s := self._score(d, parsed)) > 0]
        scored.sort(key=lambda x: (-x.score, x.tool.name))
        return scored[:limit]

    def _score(self, doc: _Doc, query: ParsedQuery) -> float:
        for group in query.required_groups:
            if not any(t.group == group and t.required and t.stem in doc.all_terms for t in query.terms):
                return 0.0
        # Per query word: its exact terms add up (PR → pull + request); of its expansions
        # only the best counts, so a word with many related words cannot flood the score.
        exact: dict[int, float] = {}
        related: dict[int, float] = {}
        matched_groups: dict[int, float] = {}
        for term in query.terms:
            if term.stem not in doc.all_terms:
                continue
            term_score = term.weight * self._bm25(doc, term.stem)
            if term.weight >= 1.0:
                exact[term.group] = exact.get(term.group, 0.0) + term_score
            else:
                related[term.group] = max(related.get(term.group, 0.0), term_score)
            matched_groups[term.group] = max(matched_groups.get(term.group, 0.0), term.weight)
        score = sum(max(exact.get(g, 0.0), related.get(g, 0.0)) for g in matched_groups)
        if score <= 0:
            return 0.0
        coverage = sum(matched_groups.values()) / max(query.groups, 1)
        query_stems: dict[str, float] = {}
        for t in query.terms:
            query_stems[t.stem] = max(query_stems.get(t.stem, 0.0), t.weight)
        name_total = sum(self.idf(w) for w in doc.name_terms) or 1.0
        name_hit = sum(self.idf(w) * query_stems.get(w, 0.0) for w in doc.name_terms)
        return score * (0.25 + 0.75 * coverage) * (1 + NAME_BONUS * name_hit / name_total)
