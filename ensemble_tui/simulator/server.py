"""A loopback HTTP server that speaks the OpenAI, Anthropic and Gemini endpoints the adapters use,
and Chat Completions for any number of OpenAI-compatible providers.

The real SDKs are pointed at it through their base-URL variables (`Simulator.env`), so tests and
`--demo` exercise exactly the code that talks to the real APIs. Each provider lives under its
own path prefix on one port, each Chat Completions provider under `/chat/<name>`. The server
runs in a daemon thread and stops cleanly: waits for latency and hangs end at once on `stop()`,
and open keep-alive connections are shut down.

Usage::

    with Simulator() as sim:
        sim.anthropic.push(ScriptedReply("FINAL REPLY: done", match="# Proposed Reply 1:"))
        sim.openai.push(Fault("rate_limit", retry_after=2))
        providers, _ = build_providers(workspace, env=sim.env)
        ...
        assert sim.openai.calls[0].body["tools"] == [{"type": "web_search"}]
        sim.chat("deepseek").push(ScriptedReply("A proposal."))  # base URL: sim.chat_base_url("deepseek")
        sim.reset()  # forget scripts and records, e.g. between test cases sharing one simulator
"""

from __future__ import annotations

import json
import logging
import re
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import ModuleType
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from ensemble_tui.providers.credentials import provider_slug
from ensemble_tui.simulator import addresses, anthropic_api, chat_api, gemini_api, openai_api
from ensemble_tui.simulator.bodies import parse_body
from ensemble_tui.simulator.script import Fault, ProviderScript, RecordedBody, RecordedRequest, ScriptedReply
from ensemble_tui.simulator.wire import HttpReply, sha256

_APIS: tuple[ModuleType, ...] = (openai_api, anthropic_api, gemini_api)
_CHAT_PATH = re.compile(r"^/chat/([a-z0-9][a-z0-9-]*)(/.*)?$")
_DROPPED_BODY = json.dumps({"id": "cut-off", "output": [{"type": "message", "text": "x" * 400}]}).encode()


log = logging.getLogger(__name__)


class Simulator:
    """The simulated APIs on one loopback port; see the module docstring."""

    def __init__(self, host: str = "127.0.0.1") -> None:
        self.host = host
        self.openai = ProviderScript("openai")
        self.anthropic = ProviderScript("anthropic")
        self.gemini = ProviderScript("gemini")
        self._chat: dict[str, ProviderScript] = {}
        self._gemini_uploads = gemini_api.Uploads()
        self._stopping = threading.Event()
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None
        self._log: list[RecordedRequest] = []
        self._lock = threading.Lock()

    # ----- life cycle ------------------------------------------------------------------------------

    def start(self, listening: socket.socket | None = None) -> Simulator:
        """Serve on a new port, or on `listening`: a socket already bound and listening, whose
        address the providers were given before the server existed (simulator/standby.py)."""
        if self._server is not None:
            return self
        self._stopping.clear()
        self._server = _Server((self.host, 0), _Handler, self, listening=listening)
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, name="api-simulator", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        server, self._server = self._server, None
        if server is None:
            return
        self._stopping.set()  # ends latency waits and hangs
        server.shutdown()
        server.close_connections()
        server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def reset(self) -> None:
        """Forget every script, record and uploaded file, as if freshly started (the port stays).

        Lets one running simulator serve many test cases; replies still in flight from an earlier
        case (a hang) reach nobody's records.
        """
        with self._lock:
            self.openai = ProviderScript("openai")
            self.anthropic = ProviderScript("anthropic")
            self.gemini = ProviderScript("gemini")
            self._chat.clear()
            self._gemini_uploads = gemini_api.Uploads()
            self._log.clear()

    def __enter__(self) -> Simulator:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # ----- addresses ------------------------------------------------------------------------------

    @property
    def url(self) -> str:
        if self._server is None:
            raise RuntimeError("the simulator is not running - call start()")
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    @property
    def base_urls(self) -> dict[str, str]:
        return addresses.base_urls(self.url)

    def chat_base_url(self, name: str) -> str:
        """The base URL (with `/v1`) of the simulated Chat Completions provider `name`."""
        return f"{self.url}{chat_api.PREFIX}/{_chat_name(name)}/v1"

    @property
    def env(self) -> dict[str, str]:
        """Base URL and dummy key variables that point all three SDKs here, and every
        OpenAI-compatible provider to `chat(<its label, lower-case>)` (see providers.registry)."""
        return addresses.environment(self.url)

    def chat(self, name: str) -> ProviderScript:
        """The script of the Chat Completions provider served under `/chat/<name>` (made on first use)."""
        name = _chat_name(name)
        with self._lock:
            script = self._chat.get(name)
            if script is None:
                script = self._chat[name] = self._new_chat_script(name)
        return script

    def _new_chat_script(self, name: str) -> ProviderScript:
        return ProviderScript(name)

    @property
    def scripts(self) -> dict[str, ProviderScript]:
        """The three built-in providers' scripts (Chat Completions providers: `chat(name)`)."""
        return {"openai": self.openai, "anthropic": self.anthropic, "gemini": self.gemini}

    def script(self, provider: str) -> ProviderScript:
        return self.scripts.get(provider) or self.chat(provider)

    @property
    def requests(self) -> list[RecordedRequest]:
        """Every request received, in arrival order."""
        with self._lock:
            return list(self._log)

    # ----- request handling (server threads) ---------------------------------------------------------

    def wait(self, seconds: float) -> None:
        if seconds > 0:
            self._stopping.wait(seconds)

    def route(self, path: str) -> tuple[ModuleType | None, str, str]:
        """The API module, the provider (script) name and the path after the prefix."""
        chat = _CHAT_PATH.match(path)
        if chat:
            return chat_api, chat.group(1), chat.group(2) or "/"
        for api in _APIS:
            if path == api.PREFIX or path.startswith(api.PREFIX + "/"):
                return api, api.NAME, path[len(api.PREFIX) :] or "/"
        return None, "", path

    def record(self, request: RecordedRequest) -> None:
        with self._lock:
            self._log.append(request)
        self.script(request.provider).record(request)

    def dispatch(self, api: ModuleType, request: RecordedRequest, data: bytes) -> HttpReply | Fault:
        """What to answer: an HTTP reply, or a fault for the handler to play."""
        script = self.script(request.provider)
        if not api.authorized(request):
            return api.error("bad_key", request)
        if request.endpoint == "upload":
            fault = script.next_upload_fault()
            if fault is not None:
                return fault
            self.wait(script.upload_latency_s)
            if api is gemini_api:
                return self._gemini_uploads.start(request, self.base_urls["gemini"])
            blob = (request.multipart or {}).get("blobs", {}).get("file", b"")
            return api.upload(request, script, blob, sha256(blob))
        if request.endpoint == "upload_chunk":
            return self._gemini_uploads.chunk(request, data, script, self.base_urls["gemini"])
        if request.endpoint == "file_get":
            return gemini_api.file_get(request, script, self.base_urls["gemini"])
        if request.endpoint == "file_list":
            return api.file_list(request, script, self.base_urls[api.NAME])
        if request.endpoint == "file_delete":
            fault = script.next_delete_fault()
            return fault if fault is not None else api.file_delete(request, script)
        if request.endpoint != "generate":
            return api.error("not_found", request)
        if api.model_of(request) in script.unknown_models:
            return api.error("unknown_model", request)
        missing = [file_id for file_id in request.file_ids if script.file(file_id) is None]
        if missing:
            return api.error("file_gone", request, file_id=missing[0])
        item = script.next_item(request)
        if isinstance(item, Fault):
            return item
        self.wait(item.latency_s)
        if isinstance(item, RecordedBody):
            return HttpReply(item.status, item.body, {"content-type": item.content_type})
        return api.render(request, item)


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False

    def __init__(
        self,
        address: tuple[str, int],
        handler: type[BaseHTTPRequestHandler],
        sim: Simulator,
        *,
        listening: socket.socket | None = None,
    ) -> None:
        self.sim = sim
        self._open: set[socket.socket] = set()
        self._open_lock = threading.Lock()
        super().__init__(address, handler, bind_and_activate=listening is None)
        if listening is not None:  # built unbound (bind_and_activate=False); serve the given socket
            self.socket.close()
            self.socket = listening
            self.server_address = listening.getsockname()
            self.server_name, self.server_port = self.server_address[:2]

    def process_request(self, request: Any, client_address: Any) -> None:
        with self._open_lock:
            self._open.add(request)
        super().process_request(request, client_address)

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A request that failed in its handler, typically one still in flight when stop() ran
        (the claim map drawn after a reply, say): to the log, never a traceback on the terminal
        of the demo's user (socketserver prints one to stderr by default)."""
        log.debug("simulator: a request from %s failed", client_address, exc_info=True)

    def shutdown_request(self, request: Any) -> None:
        with self._open_lock:
            self._open.discard(request)
        super().shutdown_request(request)

    def close_connections(self) -> None:
        with self._open_lock:
            sockets, self._open = list(self._open), set()
        for sock in sockets:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as the SDKs' connection pools expect
    server: _Server
    timeout = 30  # an idle keep-alive connection does not hold a thread forever

    def setup(self) -> None:
        super().setup()
        # Headers and body go out in separate writes; without NODELAY, Nagle's algorithm and the
        # client's delayed ACK add ~40 ms to every reply.
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def do_GET(self) -> None:
        self._handle()

    def do_POST(self) -> None:
        self._handle()

    def do_DELETE(self) -> None:
        self._handle()

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base class's name
        return None  # quiet: tests read `Simulator.requests` instead

    def _handle(self) -> None:
        sim = self.server.sim
        data = self._read_body()
        split = urlsplit(self.path)
        api, provider, path = sim.route(split.path)
        if api is None:
            self._send(HttpReply(404, b"not a simulated API path", {"content-type": "text/plain"}))
            return
        query = dict(parse_qsl(split.query))
        request = RecordedRequest(
            provider=provider,
            endpoint=api.endpoint(self.command, path, query) if api is gemini_api else api.endpoint(self.command, path),
            method=self.command,
            path=path,
            query=query,
            headers={name.lower(): value for name, value in self.headers.items()},
            raw_size=len(data),
        )
        if request.endpoint != "upload_chunk":  # raw bytes, though sent as application/json
            parse_body(request, data)
        if request.endpoint == "generate":
            api.parse(request)
        sim.record(request)
        outcome = sim.dispatch(api, request, data)
        if isinstance(outcome, Fault):
            self._play(outcome, api, request)
        else:
            self._send(outcome)

    def _play(self, fault: Fault, api: ModuleType, request: RecordedRequest) -> None:
        sim = self.server.sim
        sim.wait(fault.latency_s)
        if fault.kind == "hang":
            sim.wait(fault.hang_s)
            self.close_connection = True
            return
        if fault.kind == "reset":
            self._hang_up()
            return
        if fault.kind == "malformed":  # a well-formed HTTP reply whose JSON stops half-way
            body = api.render(request, ScriptedReply(fault.message or "A reply that is cut short.")).body
            self._send(HttpReply(200, body[: len(body) // 2], {"content-type": "application/json"}))
            return
        if fault.kind in ("refusal", "blocked"):
            self._send(api.stopped(fault.kind, request, message=fault.message))
            return
        if fault.kind == "drop":
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(_DROPPED_BODY)))
            self.end_headers()
            self.wfile.write(_DROPPED_BODY[: len(_DROPPED_BODY) // 2])
            self.wfile.flush()
            self._hang_up()
            return
        file_id = request.file_ids[0] if request.file_ids else None
        self._send(
            api.error(fault.kind, request, message=fault.message, retry_after=fault.retry_after, file_id=file_id)
        )

    def _hang_up(self) -> None:
        """Close the connection now, whatever has been sent so far."""
        self.close_connection = True
        try:
            self.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass

    def _send(self, reply: HttpReply) -> None:
        try:
            self.send_response(reply.status)
            for name, value in reply.headers.items():
                self.send_header(name, value)
            self.send_header("content-length", str(len(reply.body)))
            self.end_headers()
            self.wfile.write(reply.body)
        except OSError:  # the client gave up (a timeout) before the reply: nothing to do
            self.close_connection = True

    def _read_body(self) -> bytes:
        if self.headers.get("transfer-encoding", "").lower() == "chunked":
            chunks = []
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    self.rfile.readline()
                    return b"".join(chunks)
                chunks.append(self.rfile.read(size))
                self.rfile.readline()
        length = int(self.headers.get("content-length") or 0)
        return self.rfile.read(length) if length else b""


def _chat_name(name: str) -> str:
    slug = provider_slug(name)
    if not slug:
        raise ValueError(f"not a usable provider name: {name!r}")
    return slug


__all__ = ["Fault", "RecordedBody", "ScriptedReply", "Simulator"]
