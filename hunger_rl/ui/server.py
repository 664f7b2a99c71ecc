"""``hunger-rl play``: a local web server where a human plays against policies.

Built on Werkzeug (the WSGI toolkit under Flask). ``GET /`` is the page; ``GET /api/state?seat=K``
returns what seat K sees and its legal moves; ``POST /api/move`` with ``{"seat": K, "action": A}``
plays a move, the policies answer, and the new state comes back. A bad request (another seat, an
illegal move, malformed JSON) gets a JSON ``{"error": ...}`` with status 400 or 403; the game is
unchanged and the server keeps running.
"""

from __future__ import annotations

import json
from typing import Any

from werkzeug.exceptions import HTTPException, NotFound
from werkzeug.routing import Map, Rule
from werkzeug.serving import make_server
from werkzeug.wrappers import Request, Response

from hunger_rl.ui.games import game_ui
from hunger_rl.ui.session import PlayError, PlaySession
from hunger_rl.ui.viewer import asset

DEFAULT_HOST = "127.0.0.1"


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
        request = Request(environ)
        try:
            endpoint, _ = self.routes.bind_to_environ(environ).match()
            response = getattr(self, f"on_{endpoint}")(request)
        except PlayError as error:
            status = 403 if "is not yours" in str(error) else 400
            response = _json({"error": str(error)}, status)
        except NotFound:
            response = _json({"error": f"no such page: {request.path}"}, 404)
        except HTTPException as error:
            response = _json({"error": error.description}, error.code or 400)
        return response(environ, start_response)

    def on_page(self, request: Request) -> Response:
        return Response(self.page_html(), mimetype="text/html")

    def on_state(self, request: Request) -> Response:
        return _json(self.session.state(_seat(request.args.get("seat"))))

    def on_move(self, request: Request) -> Response:
        try:
            body = json.loads(request.get_data(as_text=True))
        except ValueError as error:
            raise PlayError(f"the request body must be JSON: {error}") from None
        if not isinstance(body, dict) or "seat" not in body or "action" not in body:
            raise PlayError('a move is {"seat": K, "action": A}')
        return _json(self.session.move(body["seat"], body["action"]))


def _seat(text: str | None) -> int:
    if text is None or not text.isdigit():
        raise PlayError(f"name your seat: /api/state?seat=K, got {text!r}")
    return int(text)


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
