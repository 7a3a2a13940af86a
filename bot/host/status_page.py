"""A read-only status page for a headless bot: `status_page.listen` in the config.

Served by the service itself with the standard library (http.server in one
daemon thread, a thread per request): a Pi needs no web framework for one
owner's phone refreshing a page every few seconds, and the page's work
(python-chess board SVGs) stays off the service's event loop.

- `GET /`: one HTML page, everything inline (SVG boards from chess.svg, plots
  as hand-made SVG polylines, CSS in a <style>), no script and no external
  asset: it works offline and a strict Content-Security-Policy holds.  It
  refreshes itself every REFRESH_S seconds (<meta http-equiv="refresh">).
- `GET /status.json`: the same data (bot/host/status_history.py's snapshot).
- Anything else: 404; any other method: 405.  There is no token and no control
  action; every string that comes from Lichess (names, ids) is HTML-escaped;
  chat is never shown.
"""

from __future__ import annotations

import html
import json
import logging
import math
import re
import socket
import threading
import time
from collections.abc import Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import chess
import chess.svg

from bot.errors import UserError
from bot.host.status_file import ago
from bot.host.status_history import History

log = logging.getLogger(__name__)

REFRESH_S = 5
BOARD_PX = 300
PLOT_W, PLOT_H = 300, 90
HEAT_W = 600


def parse_listen(value: str) -> tuple[str, int]:
    """'127.0.0.1:8080' / '[::1]:8080' / ':8080' -> (host, port); ValueError says why."""
    host, sep, port_text = value.strip().rpartition(":")
    if not sep:
        raise ValueError(f"{value!r} has no port; write host:port, e.g. 127.0.0.1:8080")
    host = host.strip("[]") or "0.0.0.0"  # ':8080' = every IPv4 interface
    if not port_text.isdigit() or not 0 <= int(port_text) <= 65535:
        raise ValueError(f"{value!r}: the port must be a number from 1 to 65535 "
                         f"(e.g. 127.0.0.1:8080)")
    return host, int(port_text)


# -- formatting ---------------------------------------------------------------------

def esc(value: Any) -> str:
    return html.escape(str(value), quote=True)


def clock_text(ms: int | None) -> str:
    if ms is None:
        return "-"
    s = max(0, ms) // 1000
    return f"{s // 60}:{s % 60:02d}" if s < 3600 else \
        f"{s // 3600}:{s % 3600 // 60:02d}:{s % 60:02d}"


def eval_text(cp: int | None, mate: int | None) -> str:
    if mate is not None:
        return f"#{mate}"
    return f"{cp / 100:+.2f}" if cp is not None else "-"


def win_share(cp: float) -> float:
    """Centipawns -> -1..1, Lichess's winning-chances curve (lila ui/ceval
    winningChances.ts: 2 / (1 + exp(-0.00368208 * cp)) - 1), so a +0.5 and a +8
    are both visible on one plot."""
    return 2.0 / (1.0 + math.exp(-0.00368208 * max(-10000.0, min(10000.0, cp)))) - 1.0


# -- SVG plots ----------------------------------------------------------------------

def _svg(body: str, title: str, cls: str, w: int = PLOT_W) -> str:
    return (f'<figure><figcaption>{esc(title)}</figcaption>'
            f'<svg class="plot {cls}" width="{w}" height="{PLOT_H}" '
            f'viewBox="0 0 {w} {PLOT_H}" role="img"><title>{esc(title)}</title>'
            f'<rect class="frame" x="0.5" y="0.5" width="{w - 1}" '
            f'height="{PLOT_H - 1}"/>{body}</svg></figure>')


def _points(xs: Sequence[float], ys: Sequence[float], x0: float, x1: float, y0: float,
            y1: float, w: int = PLOT_W) -> str:
    """Data -> 'x,y x,y' in the plot box (y up)."""
    pad = 4.0
    sx = (w - 2 * pad) / ((x1 - x0) or 1.0)
    sy = (PLOT_H - 2 * pad) / ((y1 - y0) or 1.0)
    return " ".join(f"{pad + (x - x0) * sx:.1f},{PLOT_H - pad - (y - y0) * sy:.1f}"
                    for x, y in zip(xs, ys, strict=True))


def _empty(text: str, title: str, cls: str, w: int = PLOT_W) -> str:
    return _svg(f'<text x="{w / 2}" y="{PLOT_H / 2}" text-anchor="middle">'
                f'{esc(text)}</text>', title, cls, w)


def eval_plot(evals: list[list[int]]) -> str:
    """Eval after each of our moves, our point of view, on the winning-chances scale."""
    title = "eval per move (pibot's view)"
    if not evals:
        return _empty("no eval yet", title, "eval-plot")
    plies = [p for p, _ in evals]
    x1 = max(20, plies[-1])
    grid = []
    for cp in (300, -300):
        y = _points([0], [win_share(cp)], 0, x1, -1, 1).split(",")[1]
        grid.append(f'<line class="grid" x1="0" x2="{PLOT_W}" y1="{y}" y2="{y}"/>'
                    f'<text class="axis" x="3" y="{float(y) - 2:.1f}">{cp // 100:+d}</text>')
    mid = PLOT_H / 2
    body = (f'<line class="zero" x1="0" x2="{PLOT_W}" y1="{mid}" y2="{mid}"/>' + "".join(grid)
            + f'<polyline class="eval-line" points="'
            f'{_points(plies, [win_share(cp) for _, cp in evals], 0, x1, -1, 1)}"/>')
    return _svg(body, title, "eval-plot")


def latency_plot(latency_ms: list[float]) -> str:
    title = "latency per move (ms)"
    if not latency_ms:
        return _empty("no latency yet", title, "latency-plot")
    top = max(50.0, max(latency_ms) * 1.15)
    xs = [float(i) for i in range(len(latency_ms))]
    line = _points(xs, latency_ms, 0, max(10, len(latency_ms) - 1), 0, top)
    if len(latency_ms) == 1:
        line = f"{line} {line}"
    return _svg(f'<text class="axis" x="3" y="12">{top:.0f} ms</text>'
                f'<polyline class="latency-line" points="{line}"/>', title, "latency-plot")


def heat_plot(heat: list[dict[str, Any]], now: float, window_s: float = 24 * 3600.0) -> str:
    """CPU temperature over the last 24 h; red bands where the CPU was slowed down."""
    title = "CPU temperature, last 24 h at most (red: throttled or capped)"
    temps = [p for p in heat if p["temp_c"] is not None]
    if not temps:
        return _empty("no temperature sensor", title, "heat-plot", HEAT_W)
    lo = min(30.0, min(p["temp_c"] for p in temps) - 2)
    hi = max(90.0, max(p["temp_c"] for p in temps) + 2)
    # The axis spans what there is (at most the window): a service up for minutes
    # shows those minutes, not a line squeezed into the last pixel of a day.
    x0 = max(now - window_s, min(p["t"] for p in heat))
    if now - x0 < 60:
        x0 = now - 60

    def xy(ts: list[float], cs: list[float]) -> str:
        return _points(ts, cs, x0, now, lo, hi, HEAT_W)

    parts = []
    prev_t = x0
    for p in heat:
        if p["throttled"] is not None and p["throttled"] & 0xF:  # any "now" flag
            a = float(xy([max(prev_t, x0)], [lo]).split(",")[0])
            b = float(xy([p["t"]], [lo]).split(",")[0])
            parts.append(f'<rect class="throttled" x="{a:.1f}" y="1" '
                         f'width="{max(1.5, b - a):.1f}" height="{PLOT_H - 2}"/>')
        prev_t = p["t"]
    for c in (50, 70, 85):
        if lo < c < hi:
            y = xy([x0], [c]).split(",")[1]
            parts.append(f'<line class="grid" x1="0" x2="{HEAT_W}" y1="{y}" y2="{y}"/>'
                         f'<text class="axis" x="3" y="{float(y) - 2:.1f}">{c} C</text>')
    parts.append(f'<text class="axis" x="{HEAT_W - 3}" y="{PLOT_H - 5}" text-anchor="end">'
                 f'now</text><text class="axis" x="3" y="{PLOT_H - 5}">-{esc(ago(now - x0))}'
                 f'</text>')
    line = xy([p["t"] for p in temps], [p["temp_c"] for p in temps])
    if len(temps) == 1:
        line = f"{line} {line}"
    parts.append(f'<polyline class="heat-line" points="{line}"/>')
    return _svg("".join(parts), title, "heat-plot", HEAT_W)


WEEK_S = 7 * 86400.0
SAMPLE_S = 600.0  # the records database's temperature period (bot/service/memory.py)


def heat_week_plot(heat: list[list[Any]], now: float) -> str:
    """The records database's week of CPU temperature ([at, temp_c, throttled]
    samples, one per period): the hottest reading per period, red bands where
    the CPU was throttled, the line broken where the service was not running."""
    title = "CPU temperature, last 7 days (hottest per 10 min; red: throttled or capped)"
    temps = [(float(t), float(c)) for t, c, _ in heat if c is not None]
    if not temps:
        return _empty("no temperature recorded yet", title, "heat-week-plot", HEAT_W)
    lo = min(30.0, min(c for _, c in temps) - 2)
    hi = max(90.0, max(c for _, c in temps) + 2)
    x0 = now - WEEK_S

    def x(t: float) -> float:
        return float(_points([max(x0, min(now, t))], [lo], x0, now, lo, hi,
                             HEAT_W).split(",")[0])

    parts = []
    band: list[float] | None = None  # the throttled stretch being drawn: [start, end]
    for t, _, throttled in heat:
        if throttled:
            start = float(t) - SAMPLE_S
            if band is not None and start <= band[1] + SAMPLE_S / 2:
                band[1] = float(t)
                continue
            if band is not None:
                parts.append(_band(x(band[0]), x(band[1])))
            band = [start, float(t)]
    if band is not None:
        parts.append(_band(x(band[0]), x(band[1])))
    for day in range(1, 7):
        gx = x(now - day * 86400)
        parts.append(f'<line class="grid" x1="{gx:.1f}" x2="{gx:.1f}" y1="0" '
                     f'y2="{PLOT_H}"/>')
    for c in (50, 70, 85):
        if lo < c < hi:
            y = _points([x0], [c], x0, now, lo, hi, HEAT_W).split(",")[1]
            parts.append(f'<line class="grid" x1="0" x2="{HEAT_W}" y1="{y}" y2="{y}"/>'
                         f'<text class="axis" x="3" y="{float(y) - 2:.1f}">{c} C</text>')
    parts.append(f'<text class="axis" x="{HEAT_W - 3}" y="{PLOT_H - 5}" text-anchor="end">'
                 f'now</text><text class="axis" x="3" y="{PLOT_H - 5}">-7 d</text>')
    # One polyline per stretch without a gap longer than two periods.
    runs: list[list[tuple[float, float]]] = []
    for point in temps:
        if runs and point[0] - runs[-1][-1][0] <= 2 * SAMPLE_S + 1:
            runs[-1].append(point)
        else:
            runs.append([point])
    for run in runs:
        line = _points([p[0] for p in run], [p[1] for p in run], x0, now, lo, hi, HEAT_W)
        if len(run) == 1:
            line = f"{line} {line}"
        parts.append(f'<polyline class="heat-line heat-week-line" points="{line}"/>')
    return _svg("".join(parts), title, "heat-week-plot", HEAT_W)


def _band(a: float, b: float) -> str:
    return (f'<rect class="throttled" x="{a:.1f}" y="1" width="{max(1.5, b - a):.1f}" '
            f'height="{PLOT_H - 2}"/>')


def board_svg(fen: str, last_move: str | None, orientation: str) -> str:
    # The pieces only: a variant's FEN carries more than chess's (crazyhouse's pockets
    # `[Pn]` and promoted `~`, three-check's `3+3` counts), which the picture omits.
    placement = re.sub(r"\[.*?\]|~", "", fen.split(" ", 1)[0])
    try:
        board = chess.BaseBoard(placement)
        move = chess.Move.from_uci(last_move) if last_move else None
    except ValueError:
        return "<p>(no board)</p>"
    return chess.svg.board(board, orientation=chess.WHITE if orientation == "white"
                           else chess.BLACK, lastmove=move, size=BOARD_PX)


# -- the page -----------------------------------------------------------------------

STYLE = """
body{font:14px/1.4 system-ui,sans-serif;margin:12px;background:#fafafa;color:#222}
h1{font-size:18px;margin:0 0 4px}h2{font-size:16px;margin:16px 0 6px}
.muted{color:#666}figure{margin:4px 0}figcaption{font-size:12px;color:#555}
.card{background:#fff;border:1px solid #ddd;border-radius:6px;
padding:10px;margin:8px 0;display:flex;flex-wrap:wrap;gap:12px}
table{border-collapse:collapse}td,th{padding:2px 8px 2px 0;text-align:left;vertical-align:top}
.plot .frame{fill:#fff;stroke:#ccc}.plot text{font-size:10px;fill:#666}
.plot .zero{stroke:#999}.plot .grid{stroke:#eee}
.eval-line,.latency-line,.heat-line{fill:none;stroke-width:1.5}
.eval-line{stroke:#1565c0}.latency-line{stroke:#6a1b9a}.heat-line{stroke:#e65100}
.throttled{fill:#ffcdd2}.win{color:#2e7d32}.loss{color:#c62828}
.rating-line{fill:none;stroke-width:1.5}.records{display:flex;flex-wrap:wrap;gap:16px}
"""
# One colour per speed in the rating plot.
SPEED_COLOURS = {"ultraBullet": "#6d4c41", "bullet": "#c62828", "blitz": "#1565c0",
                 "rapid": "#2e7d32", "classical": "#6a1b9a", "correspondence": "#00838f"}


def _game_card(g: dict[str, Any], hist: dict[str, Any] | None,
               board: dict[str, Any] | None) -> str:
    gid = esc(g["id"])
    latency = f"{g['latency_ms']:.0f} ms" if g["latency_ms"] is not None else "-"
    lat = (hist or {}).get("latency_ms") or []
    lat_note = f" (median {sorted(lat)[len(lat) // 2]:.0f} ms over {len(lat)})" if lat else ""
    rows = [("opponent", esc(g["opponent"])), ("pibot plays", esc(g["color"])),
            ("time control", esc(g["time_control"])), ("ply", esc(g["plies"])),
            ("level", esc(g.get("strength", "-"))),
            ("clocks (pibot / opponent)",
             f'<span class="clock">{clock_text(g["my_clock_ms"])}</span> / '
             f'<span class="clock">{clock_text(g["opponent_clock_ms"])}</span>'),
            ("eval", f'<span class="eval">{esc(eval_text(g["eval_cp"], g["mate"]))}</span>'),
            ("depth", esc(g["depth"] if g["depth"] is not None else "-")),
            ("latency", esc(latency + lat_note))]
    table = "".join(f"<tr><th>{k}</th><td>{v}</td></tr>" for k, v in rows)
    pic = board_svg(board["fen"], board["last_move"], board["orientation"]) if board else ""
    return (f'<div class="card game" id="game-{gid}"><div class="board">{pic}</div>'
            f'<div><table>{table}</table>'
            f'{eval_plot((hist or {}).get("evals") or [])}'
            f'{latency_plot(lat)}</div></div>')


def _recent_card(g: dict[str, Any], now: float) -> str:
    result = g["result"] or "no result"
    ended = f", {ago(now - g['ended_at'])} ago" if g["ended_at"] else ""
    return (f'<div class="card recent" id="recent-{esc(g["id"])}"><div>'
            f'<b>vs {esc(g["opponent"])}</b> ({esc(g["color"])}): '
            f'<span class="{esc(result)}">{esc(result)}</span> by {esc(g["status"])}'
            f'{esc(ended)}</div>{eval_plot(g["evals"])}{latency_plot(g["latency_ms"])}'
            f'</div>')


def _results(r: dict[str, Any], t: dict[str, Any]) -> str:
    # Today's counts are the service's daily tally, read back from the records
    # database at start, so a restart keeps them; "this week" is this run's games
    # (the database's weeks are in the history section).
    r = {**r, "today": {k: t[k] for k in ("wins", "draws", "losses")}}
    limit = f" of {t['bot_limit']}" if t["bot_limit"] is not None else ""
    rows = "".join(f'<tr class="{name}"><th>{esc(label)}</th><td>{r[name]["wins"]}</td>'
                   f'<td>{r[name]["draws"]}</td><td>{r[name]["losses"]}</td></tr>'
                   for name, label in (("today", f"today ({t['date']} UTC)"),
                                       ("week", "this week, since the service started")))
    return (f'<h2>Results</h2><table id="results"><tr><th></th><th>won</th><th>drawn</th>'
            f'<th>lost</th></tr>{rows}</table><p class="muted">{esc(t["bot_games"])}'
            f'{esc(limit)} game(s) against bots today</p>')


def _machine(h: dict[str, Any], heat: list[dict[str, Any]], now: float) -> str:
    temp = f"{h['temp_c']:.1f} C" if h["temp_c"] is not None else "temperature unknown"
    flags = ", ".join(h["flags"]) if h["flags"] else \
        ("not throttled" if h["throttled"] is not None else "")
    return (f'<h2>Machine</h2><p id="heat">CPU {esc(temp)}'
            f'{", " + esc(flags) if flags else ""}</p>{heat_plot(heat, now)}')


def _engine(e: dict[str, Any]) -> str:
    threads = f"{e['threads_now']} of {e['threads']}" if e["threads_now"] != e["threads"] \
        else str(e["threads"])
    out = [f'<h2>Engine</h2><p id="engine">{esc(threads)} search thread(s) per game, '
           f'table {esc(e["hash_mb"])} MiB per slot</p><table id="slots">']
    for sl in e["slots"]:
        state = "in a game" if sl["busy"] else ("clearing" if sl["clearing"] else "ready")
        size = f"{sl['hash_mb']} MiB" if sl["hash_mb"] is not None else "not created"
        fill = f"{sl['hashfull'] / 10:.1f}% full" if sl["hashfull"] is not None else ""
        out.append(f"<tr><th>slot {esc(sl['slot'])}</th><td>{esc(state)}</td>"
                   f"<td>{esc(size)}</td><td>{esc(fill)}</td></tr>")
    return "".join(out) + "</table>"


def rating_plot(rating: dict[str, list[list[Any]]]) -> str:
    """Rating per speed at the end of each week (rated games), one line per speed."""
    title = "rating per speed, by week"
    weeks = sorted({w for points in rating.values() for w, _ in points})
    if not weeks:
        return _empty("no rated game yet", title, "rating-plot", PLOT_W * 2)
    values = [r for points in rating.values() for _, r in points]
    lo, hi = min(values) - 20, max(values) + 20
    x = {w: i for i, w in enumerate(weeks)}
    lines, legend = [], []
    for n, (speed, points) in enumerate(sorted(rating.items())):
        colour = SPEED_COLOURS.get(speed, "#444")
        xs: list[float] = [x[w] for w, _ in points]
        ys: list[float] = [r for _, r in points]
        if len(xs) == 1:  # one week: a short flat line, still visible
            xs, ys = [xs[0] - 0.2, xs[0] + 0.2], ys * 2
        lines.append(f'<polyline class="rating-line" data-speed="{esc(speed)}" '
                     f'stroke="{colour}" points="'
                     f'{_points(xs, ys, -0.5, len(weeks) - 0.5, lo, hi, PLOT_W * 2)}"/>')
        legend.append(f'<text x="{6 + 90 * n}" y="12" fill="{colour}">{esc(speed)} '
                      f'{points[-1][1]}</text>')
    axis = (f'<text class="axis" x="3" y="{PLOT_H - 4}">{esc(weeks[0])}</text>'
            f'<text class="axis" x="{PLOT_W * 2 - 3}" y="{PLOT_H - 4}" '
            f'text-anchor="end">{esc(weeks[-1])}</text>')
    return _svg("".join(lines) + "".join(legend) + axis, title, "rating-plot", PLOT_W * 2)


def _tally_table(ident: str, title: str, rows: list[list[Any]]) -> str:
    body = "".join(f"<tr><th>{esc(name)}</th><td>{t['wins']}</td><td>{t['draws']}</td>"
                   f"<td>{t['losses']}</td></tr>" for name, t in rows)
    return (f'<div><h3>{esc(title)}</h3><table id="{ident}"><tr><th></th><th>won</th>'
            f'<th>drawn</th><th>lost</th></tr>{body}</table></div>')


def _records(r: dict[str, Any] | None, now: float) -> str:
    """The long view from the records database (bot.store.overview)."""
    if r is None:
        return ""
    games = "".join(
        f'<tr><th>{esc(g["id"])}</th><td>{esc(g["opponent"])}</td>'
        f'<td class="{esc(g["result"])}">{esc(g["result"])}</td><td>{esc(g["speed"])}</td>'
        f'<td>{esc(g["mean_depth"] if g["mean_depth"] is not None else "-")}</td>'
        f'<td>{esc(g["nps"] if g["nps"] is not None else "-")}</td></tr>'
        for g in r["games"])
    return (f'<h2>History (last {esc(r["weeks"])} weeks, from the records database)</h2>'
            f'{rating_plot(r["rating"])}{heat_week_plot(r.get("heat") or [], now)}'
            f'<div class="records">'
            + _tally_table("per-week", "results per week", r["per_week"])
            + _tally_table("per-opponent", "by opponent", r["per_opponent"])
            + _tally_table("per-time-control", "by time control", r["per_time_control"])
            + f'</div><h3>Last games</h3><table id="records-games"><tr><th>game</th>'
              f'<th>opponent</th><th>result</th><th>speed</th><th>mean depth</th>'
              f'<th>nodes/s</th></tr>{games}</table>')


def render(snap: dict[str, Any], now: float | None = None) -> str:
    """The whole page, from History.snapshot()."""
    now = time.time() if now is None else now
    s = snap["service"]
    head = (f'<!doctype html><html lang="en"><head><meta charset="utf-8">'
            f'<meta name="viewport" content="width=device-width,initial-scale=1">'
            f'<meta http-equiv="refresh" content="{REFRESH_S}">'
            f'<title>pibot status</title><style>{STYLE}</style></head><body>')
    if s is None:
        return head + "<h1>pibot</h1><p>starting: no status yet</p></body></html>"
    out = [head, f'<h1>pibot {esc(s["state"])} as {esc(s["account"] or "?")}</h1>'
                 f'<p class="muted">{esc(s["url"])}, pid {esc(s["pid"])}, up '
                 f'{esc(ago(now - s["started_at"]))}; updated '
                 f'{esc(ago(now - s["updated_at"]))} ago; read-only, refreshes every '
                 f'{REFRESH_S} s</p>', _results(snap["results"], s["today"])]
    hist = {g["id"]: g for g in snap["games"]}
    out.append(f'<h2>Games ({len(s["games"])} of {s["concurrency"]}, '
               f'{s["free_slots"]} slot(s) free)</h2>')
    if not s["games"]:
        out.append("<p>no game in progress</p>")
    out.extend(_game_card(g, hist.get(g["id"]), snap["boards"].get(g["id"]))
               for g in s["games"])
    out.append(_machine(s["heat"], snap["heat"], now))
    out.append(_engine(s["engine"]))
    out.append("<h2>Recent games</h2>")
    if not snap["recent"]:
        out.append("<p>none since the service started</p>")
    out.extend(_recent_card(g, now) for g in snap["recent"])
    out.append(_records(snap.get("records"), now))
    out.append("</body></html>")
    return "".join(out)


# -- the server ---------------------------------------------------------------------

class _Handler(BaseHTTPRequestHandler):
    server_version = "pibot-status"
    timeout = 10  # an idle or slow client's socket is closed, its thread freed
    history: History  # set on the subclass made per page

    def _send(self, code: int, body: bytes, ctype: str, head_only: bool = False) -> None:
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.send_header("X-Content-Type-Options", "nosniff")
        # No script, nothing fetched: only inline styles and the page itself.
        self.send_header("Content-Security-Policy",
                         "default-src 'none'; style-src 'unsafe-inline'; img-src data:")
        if code == 405:
            self.send_header("Allow", "GET, HEAD")
        self.end_headers()
        if not head_only:
            self.wfile.write(body)

    def do_GET(self, head_only: bool = False) -> None:  # noqa: N802 - http.server's name
        path = self.path.split("?", 1)[0]
        if path == "/":
            body = render(self.history.snapshot()).encode()
            self._send(200, body, "text/html; charset=utf-8", head_only)
        elif path == "/status.json":
            body = json.dumps(self.history.snapshot(), separators=(",", ":")).encode()
            self._send(200, body, "application/json", head_only)
        else:
            self._send(404, b"not found\n", "text/plain; charset=utf-8", head_only)

    def do_HEAD(self) -> None:  # noqa: N802
        self.do_GET(head_only=True)

    def _refuse(self) -> None:
        self._send(405, b"read-only: GET only\n", "text/plain; charset=utf-8")

    do_POST = do_PUT = do_DELETE = do_PATCH = do_OPTIONS = _refuse  # noqa: N815

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        log.debug("status page: %s %s", self.address_string(), format % args)


class StatusPage:
    """The HTTP server; start() binds (a clear UserError if it cannot), stop() closes."""

    def __init__(self, listen: str, history: History | None = None) -> None:
        self.listen = listen
        self.history = history if history is not None else History()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def address(self) -> tuple[str, int]:
        assert self._server is not None
        host, port = self._server.server_address[:2]
        return str(host), int(port)

    def start(self) -> None:
        try:
            host, port = parse_listen(self.listen)
        except ValueError as exc:
            raise UserError(f"status_page.listen: {exc}") from None
        handler = type("Handler", (_Handler,), {"history": self.history})
        server_cls = type("Server", (ThreadingHTTPServer,),
                          {"daemon_threads": True,
                           "address_family": socket.AF_INET6 if ":" in host
                           else socket.AF_INET})
        try:
            self._server = server_cls((host, port), handler)
        except OSError as exc:
            raise UserError(f"status_page.listen: cannot listen on {self.listen} "
                            f"({exc.strerror or exc}); pick a free port or another address, "
                            f"or remove status_page.listen") from None
        self._thread = threading.Thread(target=self._server.serve_forever,
                                        kwargs={"poll_interval": 0.5},
                                        name="status-page", daemon=True)
        self._thread.start()
        host, port = self.address
        log.info("status page on http://%s:%d/ (read-only, no authentication)",
                 f"[{host}]" if ":" in host else host, port)

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
