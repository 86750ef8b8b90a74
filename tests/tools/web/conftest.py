from __future__ import annotations

import pytest

from nb_agent.testing.web_server import LocalWebServer, Page, redirect

HTML = """<html><head><title>Sales data dictionary</title></head><body>
<h1>Sales data dictionary</h1>
<p>Columns of <a href="/files/sales.csv">sales.csv</a>:</p>
<ul><li><b>month</b>: first day of the month</li><li><b>revenue</b>: net revenue in EUR</li></ul>
<script>var tracking = 1;</script>
</body></html>"""
PDF = b"%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n"


@pytest.fixture
def web():
    routes = {
        "/dictionary": Page(body=HTML),
        "/notes.txt": Page(content_type="text/plain; charset=utf-8", body="revenue is net of refunds\n"),
        "/schema.json": Page(content_type="application/json", body='{"revenue": "EUR"}'),
        "/spec.pdf": Page(content_type="application/pdf", body=PDF),
        "/image.png": Page(content_type="image/png", body=b"\x89PNG\r\n\x1a\nxxxx"),
        "/huge": Page(content_type="text/plain", body=b"x" * (3 * 1024 * 1024)),
        "/slow": Page(body="<p>late</p>", delay_s=100),
        "/gone": Page(status=404, content_type="text/plain", body="nope"),
        "/old": redirect("/dictionary"),
        "/loop": redirect("/loop"),
    }
    with LocalWebServer(routes) as server:
        # A redirect to the same port under another host name: another host.
        server.routes["/elsewhere"] = redirect(server.url("/dictionary", host="localhost"), status=302)
        yield server
