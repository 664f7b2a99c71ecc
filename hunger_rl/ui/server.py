"""``hunger-rl play``: a local web server where a human plays against policies.

Built on Werkzeug (the WSGI toolkit under Flask). ``GET /`` is the page; ``GET /api/state?seat=K``
returns what seat K sees and its legal moves; ``POST /api/move`` with ``{"seat": K, "action": A}``
plays a move, the policies answer, and the new state comes back. A bad request gets a JSON
``{"error": ...}`` naming the problem, and the game is unchanged: 403 for another player's seat,
413 for a body over ``MAX_BODY_BYTES``, 400 for anything else (a seat that is not an integer of
the game's seats, written in ASCII digits in the query; a body that is not a JSON object of
exactly ``seat`` and ``action``, or nested deeper than ``MAX_JSON_DEPTH``; an illegal move). An
unexpected error in a handler is logged with its traceback and answered 500 with one line; the
client never sees the traceback, and the server keeps running.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from werkzeug.exceptions import HTTPException, NotFound, RequestEntityTooLarge
from werkzeug.routing import Map, Rule
from werkzeug.serving import make_server
from werkzeug.wrappers import Request, Response

from hunger_rl.engines.validation import describe, typed_count
from hunger_rl.ui.games import game_ui
from hunger_rl.ui.session import NotYourSeatError, PlayError, PlaySession
from hunger_rl.ui.viewer import asset

DEFAULT_HOST = "127.0.0.1"
# A move ({"seat": 0, "action": 12}) is about 30 bytes; a larger body is refused (413) before
# it is read, whatever its Content-Length says or, if chunked, once this much has come.
MAX_BODY_BYTES = 1024
# A move is one flat object. Python's JSON parser recurses once per level of nesting, so a
# deeper body is refused before it is parsed.
MAX_JSON_DEPTH = 8
MOVE_KEYS = ("seat", "action")
LOG = logging.getLogger(__name__)


class PlayRequest(Request):
    """A request whose body Werkzeug refuses (413) by its Content-Length beyond
    ``MAX_BODY_BYTES``. It reads a chunked body only up to ``max_content_length`` and stops there
    without an error, so the limit is one byte more and :func:`_body` refuses a body that fills
    it."""

    max_content_length = MAX_BODY_BYTES + 1


class PlayApp:
    """The WSGI application serving one :class:`PlaySession`."""

    def __init__(self, session: PlaySession):
        self.session = session
        self.routes = Map([
            Rule("/", endpoint="page", methods=["GET"]),
            Rule("/api/state", endpoint="state", methods=["GET"]),
            Rule("/api/move", endpoint="move", methods=["POST"]),
        ])

    def page_html(self) -> str:
        session = self.session
        title = f"{game_ui(session.game).title}: you are player_{session.seat}"
        page = asset("play.html")
        for placeholder, text in (("__STYLE__", asset("style.css")),
                                  ("__RENDER__", asset("render.js")), ("__TITLE__", title),
                                  ("__SEAT__", str(session.seat))):
            page = page.replace(placeholder, text)
        return page

    def __call__(self, environ, start_response):
        request = PlayRequest(environ)
        try:
            endpoint, _ = self.routes.bind_to_environ(environ).match()
            response = getattr(self, f"on_{endpoint}")(request)
        except PlayError as error:
            status = 403 if isinstance(error, NotYourSeatError) else 400
            response = _json({"error": str(error)}, status)
        except NotFound:
            response = _json({"error": f"no such page: {request.path}"}, 404)
        except RequestEntityTooLarge:
            response = _json({"error": f"the request body is over {MAX_BODY_BYTES} bytes; a "
                                       'move is {"seat": K, "action": A}'}, 413)
        except HTTPException as error:
            response = _json({"error": error.description}, error.code or 400)
        except Exception:  # a bug: the log keeps the traceback, the client gets one line
            LOG.exception("%s %s failed", request.method, request.path)
            response = _json({"error": "the server failed on this request (see its log); "
                                       "the game is unchanged"}, 500)
        return response(environ, start_response)

    def on_page(self, request: Request) -> Response:
        return Response(self.page_html(), mimetype="text/html")

    def on_state(self, request: Request) -> Response:
        return _json(self.session.state(_query_seat(request.args.get("seat"))))

    def on_move(self, request: Request) -> Response:
        text = _body(request)
        if json_depth(text) > MAX_JSON_DEPTH:
            raise PlayError(f"the request body is nested deeper than {MAX_JSON_DEPTH} levels; "
                            'a move is {"seat": K, "action": A}')
        try:
            body = json.loads(text)
        except ValueError as error:
            raise PlayError(f"the request body must be JSON: {error}") from None
        if not isinstance(body, dict):
            raise PlayError(f'a move is a JSON object {{"seat": K, "action": A}}, got '
                            f"{describe(body)}")
        problems = [f"no {key!r}" for key in MOVE_KEYS if key not in body]
        problems += [f"unknown key {describe(key)}" for key in body if key not in MOVE_KEYS]
        if problems:
            raise PlayError('a move is {"seat": K, "action": A} and nothing else: '
                            + ", ".join(problems))
        return _json(self.session.move(body["seat"], body["action"]))


def _body(request: PlayRequest) -> str:
    """The request's body as text, or 413 beyond ``MAX_BODY_BYTES``."""
    data = request.get_data()
    if len(data) > MAX_BODY_BYTES:
        raise RequestEntityTooLarge()
    return data.decode("utf-8", errors="replace")


def _query_seat(text: str | None) -> int:
    """``?seat=K``: K in ASCII digits (``typed_count``); its range is the session's check."""
    if text is None:
        raise PlayError("name your seat: /api/state?seat=K")
    seat = typed_count(text)
    if seat is None:
        raise PlayError(f"the seat must be a seat number in ASCII digits, got {describe(text)}")
    return seat


def json_depth(text: str) -> int:
    """The deepest nesting of arrays and objects in JSON ``text`` (brackets inside strings
    do not count), found without parsing it."""
    depth = deepest = 0
    in_string = escaped = False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in "]}":
            depth -= 1
    return deepest


def _json(data: Any, status: int = 200) -> Response:
    return Response(json.dumps(data), status=status, mimetype="application/json")


def serve(session: PlaySession, host: str = DEFAULT_HOST, port: int = 8000) -> None:
    """Serve ``session`` until interrupted, printing the URL first."""
    server = make_server(host, port, PlayApp(session), threaded=True)
    print(f"Playing {session.game} as player_{session.seat}: open "
          f"http://{host}:{server.server_port}/ (Ctrl+C stops)", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
