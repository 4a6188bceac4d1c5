"""The web page of ``lc serve`` without a browser (tests/test_web_browser.py drives one):
its routes, files from package data, headers, the catalogue of its labels, the rulebook
page, and the DOM contract's ids in its HTML (/work/notes/contract.md, docs/server.md)."""
from __future__ import annotations

import json
import re
import string
from html.parser import HTMLParser
from importlib import resources
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

pytest.importorskip("starlette")
from starlette.testclient import TestClient  # noqa: E402

from lostcities.engine import load_pack  # noqa: E402
from lostcities.i18n import load_messages  # noqa: E402
from lostcities.server.app import create_app  # noqa: E402

STATIC = resources.files("lostcities.server").joinpath("static")
I18N = resources.files("lostcities.i18n")
HOUSE_NAME = 'Evil </title><script>alert("x")</script> & co'


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """A server with the built-in packs and one house pack whose name is HTML."""
    packs = tmp_path_factory.mktemp("packs")
    text = (resources.files("lostcities.rulepacks").joinpath("duel-classic.yaml")
            .read_text(encoding="utf-8"))
    text = text.replace("id: duel-classic", "id: evil-duel").replace(
        "name: Lost Cities – the duel", f"name: {json.dumps(HOUSE_NAME)}")
    (packs / "evil-duel.yaml").write_text(text, encoding="utf-8")
    app = create_app(tmp_path_factory.mktemp("data"), packs, durable=False)
    with TestClient(app) as test_client:
        yield test_client


def new_room(client: Any, pack: str = "duel-classic") -> str:
    answer = client.post("/rooms", json={"pack": pack})
    assert answer.status_code == 201, answer.text
    return answer.json()["room"]


class Page(HTMLParser):
    """The ids, script tags and attributes of an HTML page."""

    def __init__(self) -> None:
        super().__init__()
        self.ids: set[str] = set()
        self.scripts: list[dict[str, Any]] = []
        self.attributes: list[tuple[str, str, str]] = []
        self.labels: set[str] = set()
        self._in_script = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, Any]]) -> None:
        named = dict(attrs)
        if "id" in named:
            self.ids.add(named["id"])
        for key in ("data-i18n", "data-i18n-placeholder"):
            if key in named:
                self.labels.add(named[key])
        for name, value in attrs:
            self.attributes.append((tag, name, value or ""))
        if tag == "script":
            self.scripts.append({"attrs": named, "text": ""})
            self._in_script = True

    def handle_endtag(self, tag: str) -> None:
        if tag == "script":
            self._in_script = False

    def handle_data(self, data: str) -> None:
        if self._in_script:
            self.scripts[-1]["text"] += data


def parse(text: str) -> Page:
    page = Page()
    page.feed(text)
    return page


# --------------------------------------------------------------------------- routes

def test_landing_and_room_pages_answer(client: Any) -> None:
    assert client.get("/").status_code == 200
    room = new_room(client)
    answer = client.get(f"/r/{room}")
    assert answer.status_code == 200
    assert answer.headers["content-type"].startswith("text/html")
    # an id of the right form of no room: a 404 with the page, which says so in one line
    # (its GET /rooms/ID/table is a 404 too); any other id is the 404 JSON line
    missing = client.get("/r/aaaaaaaa")
    assert missing.status_code == 404 and missing.headers["content-type"].startswith("text/html")
    assert client.get("/rooms/aaaaaaaa/table").status_code == 404
    for bad in ("/r/short", "/r/UPPERCAS", "/r/abcdefg1", "/r/abcdefgh/x"):
        assert client.get(bad).status_code == 404, bad


def test_room_table_route_describes_the_pack(client: Any) -> None:
    for name in ("duel-six", "board-classic"):
        room = new_room(client, name)
        face = client.get(f"/rooms/{room}/table").json()
        pack = load_pack(name)
        assert face["pack"] == name and face["name"] == pack.name
        assert face["colours"] == [{"key": c.key, "name": c.name} for c in pack.colours]
        if pack.board is None:
            assert face["board"] is None
        else:
            assert face["board"]["leaders"] == pack.board.leaders
            assert [len(p) for p in face["board"]["points"]] == [pack.board.spaces] * 5
            assert face["board"]["points"][0][0] == pack.scoring.pawn(0, 1, False)
    assert client.get("/rooms/aaaaaaaa/table").status_code == 404


def test_scores_route_gives_the_running_scores(client: Any) -> None:
    room = new_room(client)
    assert client.get(f"/rooms/{room}/scores").json() == {"turns": 0, "live": None,
                                                            "totals": None}
    with client.websocket_connect(f"/rooms/{room}/ws") as socket:
        socket.send_text(json.dumps({"type": "line", "text": "/join Ann"}))
        socket.send_text(json.dumps({"type": "line", "text": "/bot random"}))
        socket.send_text(json.dumps({"type": "line", "text": "/start"}))
        for _ in range(50):
            message = json.loads(socket.receive_text())
            if message["type"] == "state" and message["room"]["status"] == "playing":
                break
    scores = client.get(f"/rooms/{room}/scores").json()
    assert scores["live"] == [0, 0] and scores["totals"] == [0, 0]
    assert client.get("/rooms/aaaaaaaa/scores").status_code == 404


# --------------------------------------------------------------------------- static files

def room_scripts() -> set[str]:
    """The room page's script, room.js, with the modules it imports (``from "./x.js"``),
    and theirs: the names of their files in ``static/``."""
    seen: set[str] = set()
    todo = ["room.js"]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        text = STATIC.joinpath(name).read_text(encoding="utf-8")
        todo += re.findall(r'\bfrom\s+"\./([a-z0-9-]+\.js)"', text)
    return seen


def test_static_files_come_from_the_package() -> None:
    names = sorted(p.name for p in STATIC.iterdir())
    assert {"index.html", "room.html", "room.js", "landing.js", "i18n.js", "cards.js",
            "table.css", "favicon.svg"} <= set(names)
    # the room page's modules, each served from here (room.js imports them)
    assert {"state.js", "connection.js", "moves.js", "table.js", "board.js",
            "sheets.js"} <= room_scripts() <= set(names)
    # the package data pattern is static/* (pyproject.toml): no sub-folders
    assert all(p.is_file() for p in STATIC.iterdir())


def test_static_route_serves_each_file(client: Any) -> None:
    types = {".js": "javascript", ".css": "text/css", ".html": "text/html", ".svg": "image/svg"}
    for entry in STATIC.iterdir():
        answer = client.get(f"/static/{entry.name}")
        assert answer.status_code == 200, entry.name
        assert answer.content == entry.read_bytes()
        assert types[Path(entry.name).suffix] in answer.headers["content-type"]
        assert answer.headers["x-content-type-options"] == "nosniff"
    assert client.get("/static/nothing.js").status_code == 404
    assert client.get("/static/../web.py").status_code == 404
    assert client.get("/favicon.ico").status_code == 200


def test_pages_have_a_strict_policy_and_no_inline_script(client: Any) -> None:
    room = new_room(client)
    for path in ("/", f"/r/{room}"):
        answer = client.get(path)
        policy = answer.headers["content-security-policy"]
        assert "script-src 'self'" in policy and "unsafe" not in policy
        assert "default-src 'none'" in policy and "frame-ancestors 'none'" in policy
        assert "connect-src 'self' ws://testserver wss://testserver" in policy
        assert answer.headers["x-content-type-options"] == "nosniff"
        page = parse(answer.text)
        assert page.scripts, path
        for script in page.scripts:
            assert script["attrs"].get("src", "").startswith("/static/"), script
            assert not script["text"].strip(), script
        for tag, name, value in page.attributes:
            assert not name.startswith("on"), (tag, name)  # no inline handlers
            assert name != "style", (tag, name)            # no inline styles
            assert not value.lower().startswith("javascript:"), (tag, name)
    # a Host header that is not a host name is left out of the policy
    answer = client.get("/", headers={"host": "x; script-src *"})
    assert "script-src *" not in answer.headers["content-security-policy"]


def test_room_page_has_the_contract_ids() -> None:
    page = parse(STATIC.joinpath("room.html").read_text(encoding="utf-8"))
    assert {"lang", "btn-join", "btn-start", "btn-bot", "btn-cont", "btn-rules", "btn-hint",
            "chat-log", "chat-form", "chat-input", "hand", "table",
            "choice", "turns", "round-result", "match-end", "board", "error",
            "seats"} <= page.ids
    body = STATIC.joinpath("room.html").read_text(encoding="utf-8")
    assert re.search(r'<p id="error"[^>]*role="alert"', body)
    assert re.search(r'<body[^>]*data-connected="0"', body)
    # the ids the script creates: the deck's count and the board's crossings
    script = "\n".join(STATIC.joinpath(name).read_text(encoding="utf-8")
                       for name in sorted(room_scripts()))
    for made in ("deck-count", "crossings"):
        assert f'.id = "{made}"' in script
    for attribute in ("data-target", "data-draw", "data-choice", "data-card", "data-track",
                      "data-leader"):
        name = attribute[5:].replace("-", " ").title().replace(" ", "")
        name = name[0].lower() + name[1:]
        assert f".dataset.{name}" in script, attribute
    for kind in ("to-move", "selected", "dim", "chat-line", "pawn", "tile", "track"):
        assert kind in script, kind
    landing = parse(STATIC.joinpath("index.html").read_text(encoding="utf-8"))
    assert {"pack", "hints", "new-room", "lang", "error"} <= landing.ids


def test_scripts_never_put_data_into_html() -> None:
    for entry in STATIC.iterdir():
        if entry.name.endswith(".js"):
            text = entry.read_text(encoding="utf-8")
            for sink in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write",
                         "eval(", "new Function"):
                assert sink not in text, (entry.name, sink)


# --------------------------------------------------------------------------- the catalogue

def fields(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name}


def test_catalogue_route_en_fr_only(client: Any) -> None:
    for lang in ("en", "fr"):
        answer = client.get(f"/i18n/{lang}.json")
        assert answer.status_code == 200
        assert answer.json() == load_messages(lang)
    for lang in ("de", "EN", "en-GB", "..%2Fmessages_en", "x" * 300):
        assert client.get(f"/i18n/{lang}.json").status_code == 404, lang


def test_web_labels_in_both_languages_with_the_same_placeholders(client: Any) -> None:
    en = json.loads(I18N.joinpath("web_en.json").read_text(encoding="utf-8"))
    fr = json.loads(I18N.joinpath("web_fr.json").read_text(encoding="utf-8"))
    assert set(en) == set(fr)
    assert all(key.startswith("web.") for key in en)
    for key in en:
        assert en[key].strip() and fr[key].strip(), key
        assert fields(en[key]) == fields(fr[key]), key
    served = {lang: client.get(f"/i18n/{lang}.json").json() for lang in ("en", "fr")}
    for key in en:
        assert served["en"][key] == en[key] and served["fr"][key] == fr[key]
    for lang in ("en", "fr"):  # no key in two parts of the catalogue
        messages = json.loads(I18N.joinpath(f"messages_{lang}.json").read_text(encoding="utf-8"))
        assert not set(messages) & set(en)


def test_every_label_the_page_asks_for_exists() -> None:
    messages = load_messages("en")
    asked: set[str] = set()
    for name in ("index.html", "room.html"):
        asked |= parse(STATIC.joinpath(name).read_text(encoding="utf-8")).labels
    for entry in STATIC.iterdir():
        if entry.name.endswith(".js"):
            text = entry.read_text(encoding="utf-8")
            asked |= set(re.findall(r'\bt\("([a-z][a-z0-9.-]+)"', text))
            # a sentence that says how to point: its mouse and its finger form
            pointing = re.findall(r'\btPointer\("([a-z][a-z0-9.-]+)"', text)
            asked |= {f"{key}.{form}" for key in pointing for form in ("fine", "coarse")}
    # keys built at run time: the connection's states and the tile kinds
    asked |= {f"web.conn.{s}" for s in ("connecting", "online", "retry", "offline", "gone")}
    asked |= {f"web.tile.{k}" for k in ("points", "artefact", "step")}
    missing = sorted(k for k in asked if k not in messages and f"{k}.other" not in messages
                     and f"{k}.one" not in messages)
    assert not missing


# --------------------------------------------------------------------------- the rulebook

def test_rules_page_of_a_room(client: Any) -> None:
    room = new_room(client, "board-classic")
    answer = client.get(f"/rooms/{room}/rules?lang=fr")
    assert answer.status_code == 200
    assert "Les Cités perdues – le jeu de plateau" in answer.text
    english = client.get(f"/rooms/{room}/rules?lang=en")
    assert "Lost Cities – the board game" in english.text
    assert '<html lang="fr">' in answer.text
    policy = answer.headers["content-security-policy"]
    assert "style-src 'sha256-" in policy and "script" not in policy
    assert answer.headers["x-content-type-options"] == "nosniff"
    english = client.get(f"/rooms/{room}/rules", headers={"accept-language": "de, en;q=0.5"})
    assert '<html lang="en">' in english.text
    assert client.get("/rooms/aaaaaaaa/rules").status_code == 404
    assert client.get("/rooms/nope/rules").status_code == 404


def test_rules_page_wears_the_tables_palette_and_fonts(client: Any) -> None:
    """Its one inline style starts with table.css's :root block, word for word (the palette
    and the fonts are written once), then static/rules.css; nothing is loaded from
    elsewhere, and the policy still lets in exactly that style."""
    room = new_room(client)
    page = client.get(f"/rooms/{room}/rules?lang=en").text
    style = re.search(r"<style>(.*?)</style>", page, re.S)
    assert style is not None and page.count("<style>") == 1 and "<link" not in page
    table = STATIC.joinpath("table.css").read_text(encoding="utf-8")
    root = re.search(r":root\s*\{[^}]*\}", table)
    assert root is not None and style.group(1).startswith(root.group(0))
    assert STATIC.joinpath("rules.css").read_text(encoding="utf-8") in style.group(1)
    for used in ("var(--parchment)", "var(--ink)", "Georgia", "var(--accent)"):
        assert used in style.group(1), used


def test_rules_page_escapes_the_pack_name(client: Any) -> None:
    room = new_room(client, "evil-duel")
    text = client.get(f"/rooms/{room}/rules?lang=en").text
    assert "<script>" not in text
    assert "&lt;script&gt;" in text and "&amp; co" in text


def test_rules_policy_allows_exactly_the_page_style(client: Any) -> None:
    import base64
    import hashlib

    room = new_room(client)
    answer = client.get(f"/rooms/{room}/rules")
    style = re.search(r"<style>(.*?)</style>", answer.text, re.S)
    assert style is not None
    digest = base64.b64encode(hashlib.sha256(style.group(1).encode()).digest()).decode()
    assert f"'sha256-{digest}'" in answer.headers["content-security-policy"]


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(room=st.text(min_size=0, max_size=40), lang=st.text(max_size=20))
def test_room_routes_answer_any_id(client: Any, room: str, lang: str) -> None:
    from urllib.parse import quote

    path = quote(room, safe="")
    for route in (f"/r/{path}", f"/rooms/{path}/rules", f"/rooms/{path}/table",
                  f"/rooms/{path}/scores"):
        answer = client.get(route, params={"lang": lang})
        assert answer.status_code in (200, 404, 307), (route, answer.status_code)
