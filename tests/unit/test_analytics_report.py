"""The day's analytics page (``make analytics OUT=dir`` → ``dir/report.html``): every figure of
every row is on it, in charts and in text; data is escaped; an empty day says so."""

from __future__ import annotations

from html.parser import HTMLParser
from typing import Any

from roomcast_dev.report import render_report

ROOM = "room_7d0c6a1e5b2f4c3d9e8a7b6c5d4e3f21"
HEALTHY = "sub_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
FLAKY = "sub_bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
REFUSING = "sub_cccccccccccccccccccccccccccccccc"


def _row(subscription: str, **figures: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "dt": "2026-11-23",
        "tenantId": "acme",
        "roomId": ROOM,
        "subscriptionId": subscription,
        "published": 6,
        "delivered": 6,
        "first_try_success_rate": 1.0,
        "retries": 0,
        "dead": 0,
        "expired": 0,
        "failovers": 0,
        "latency_p50_ms": 120.0,
        "latency_p95_ms": 480.0,
        "latency_p99_ms": 950.0,
        "attempts_histogram": {0: 6},
    }
    return base | figures


class _Page(HTMLParser):
    """Tags opened and closed, the svg charts with their accessible names, and the text."""

    VOID = frozenset({"meta", "br", "img", "input", "link"})

    def __init__(self) -> None:
        super().__init__()
        self.open: list[str] = []
        self.charts: list[dict[str, str | None]] = []
        self.bars: list[float] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag not in self.VOID:
            self.open.append(tag)
        found = dict(attrs)
        if tag == "svg":
            self.charts.append(found)
        if tag == "rect":
            self.bars.append(float(found["width"] or 0))

    def handle_endtag(self, tag: str) -> None:
        assert self.open[-1:] == [tag], f"</{tag}> closes {self.open[-1:]}"
        self.open.pop()

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def _parsed(page: str) -> _Page:
    parser = _Page()
    parser.feed(page)
    parser.close()
    assert parser.open == []
    return parser


def test_every_subscription_has_its_four_charts_and_every_figure_in_text() -> None:
    # Given: a healthy, a flaky and a refusing subscription
    rows = [
        _row(HEALTHY),
        _row(
            FLAKY,
            first_try_success_rate=4 / 6,
            retries=2,
            attempts_histogram={0: 4, 1: 1, 2: 1},
            latency_p99_ms=3100.0,
        ),
        _row(
            REFUSING,
            delivered=0,
            dead=6,
            first_try_success_rate=None,
            latency_p50_ms=None,
            latency_p95_ms=None,
            latency_p99_ms=None,
            attempts_histogram={},
        ),
    ]

    # When
    html = render_report("2026-11-23", rows)
    page = _parsed(html)
    text = " ".join(page.text)

    # Then: a chart for counts, first-try success, latency and attempts where there is data
    assert len(page.charts) == 4 + 4 + 2
    assert all(chart["role"] == "img" and chart["aria-labelledby"] for chart in page.charts)
    assert "2026-11-23" in text
    assert ROOM in text
    for figure in ("66.7 %", "100.0 %", "3,100 ms", "950 ms", "attempt 2", "nothing was delivered"):
        assert figure in text, figure
    # and the day's totals: 18 published, 6 dead, first-try success weighted by deliveries (16/12)
    for label, value in (("subscriptions", "3"), ("published", "18"), ("delivered", "12"), ("dead", "6")):
        assert f"<li>{label}<strong>{value}</strong></li>" in html, label
    assert "<li>first-try success<strong>83.3 %</strong></li>" in html


def test_bars_are_proportional_to_their_figures() -> None:
    # Given: one subscription with 10 published and 5 delivered
    rows = [_row(HEALTHY, published=10, delivered=5, attempts_histogram={0: 5})]

    # When
    page = _parsed(render_report("2026-11-23", rows))

    # Then: the counts chart's first two bars (published, delivered) are full and half length
    published, delivered = page.bars[0], page.bars[1]
    assert published > 0
    assert delivered == published / 2


def test_values_from_the_log_are_escaped() -> None:
    # Given: ids are data; a hostile one must not become markup
    hostile = '<script>alert("x")</script>'
    rows = [_row(hostile), _row(HEALTHY, roomId='"><img src=x onerror=alert(1)>')]

    # When
    page = render_report("2026-11-23", rows)

    # Then
    assert "<script>" not in page
    assert "<img" not in page
    assert "&lt;script&gt;" in page
    _parsed(page)


def test_a_day_without_deliveries_says_so() -> None:
    # When
    page = _parsed(render_report("2026-11-23", []))

    # Then
    assert "No deliveries were logged this day." in " ".join(page.text)
    assert page.charts == []
