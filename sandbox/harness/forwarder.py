"""The harness's forwarder (standard library only): ``127.0.0.1:8080`` inside the sandbox -> the gateway's unix socket,
the run's token attached and the harness's own headers stripped from the agent's requests.

A connection is kept open across requests (HTTP/1.1 keep-alive) on both sides: an agent's client that keeps its
connection sends each call without a new TCP connection and a new thread here, and each agent connection keeps one
connection to the gateway (dropped after `UPSTREAM_IDLE` seconds unused, well within the gateway's own keep-alive).
A response without a Content-Length is streamed to the gateway's end and closes the agent's connection after it.

Sockets are ``_socket``'s, the C half of ``socket``: the harness imports this module at every sandbox's start, and
``socket``'s own imports (``enum``, ``selectors``) are most of that cost."""

from __future__ import annotations

import _socket
import time

MAX_HEADER = 64 * 1024
MAX_BODY = 4 * 1024 * 1024
#: headers only the harness may send the gateway: stripped from every request of the agent's
HARNESS_HEADERS = ("x-arena-origin", "x-arena-steps")
#: the agent's headers never passed on: the token is the forwarder's to attach, the connection its own
DROPPED = ("authorization", "connection", "keep-alive", "proxy-authorization", "host", *HARNESS_HEADERS)
#: seconds a connection to the gateway may sit unused before a request opens a new one (the gateway keeps one 30 s)
UPSTREAM_IDLE = 5.0
#: seconds an agent's connection may sit unused before it is closed
AGENT_IDLE = 300


def accept(server: _socket.socket) -> _socket.socket:
    """The next connection on the listening ``server`` (blocking, as the listening socket is)."""
    fd, _ = server._accept()  # type: ignore[attr-defined]  # what socket.socket.accept calls
    return _socket.socket(server.family, server.type, 0, fd)


def reply(conn: _socket.socket, status: int, message: str) -> None:
    """An error answer of the forwarder's own; the connection is closed after it."""
    import json  # only here: the harness starts serving without it

    body = json.dumps({"error": message}).encode()
    head = (
        f"HTTP/1.1 {status} Error\r\nContent-Type: application/json\r\nContent-Length: {len(body)}\r\n"
        "Connection: close\r\n\r\n"
    ).encode()
    try:
        conn.sendall(head + body)
    except OSError:
        pass


class _Request:
    """One request of the agent's, read: its request line, the headers passed on, its body, and whether the agent
    keeps the connection after it."""

    def __init__(self, line: str, kept: list[str], body: bytes, keep_alive: bool) -> None:
        self.line, self.kept, self.body, self.keep_alive = line, kept, body, keep_alive
        self.head_only = line.split(" ", 1)[0].upper() == "HEAD"


class _Reader:
    """Reads a connection's bytes, keeping what arrived past the current message for the next."""

    def __init__(self, sock: _socket.socket) -> None:
        self.sock, self.data = sock, b""

    def head(self) -> bytes | None:
        """The next message's head (None at the end of the connection); ValueError when over `MAX_HEADER`."""
        while b"\r\n\r\n" not in self.data:
            chunk = self.sock.recv(65536)
            if not chunk:
                return None
            self.data += chunk
            if len(self.data) > MAX_HEADER and b"\r\n\r\n" not in self.data[:MAX_HEADER]:
                raise ValueError("headers too large")
        head, _, self.data = self.data.partition(b"\r\n\r\n")
        return head

    def exactly(self, length: int) -> bytes | None:
        while len(self.data) < length:
            chunk = self.sock.recv(min(65536, max(length - len(self.data), 4096)))
            if not chunk:
                return None
            self.data += chunk
        out, self.data = self.data[:length], self.data[length:]
        return out


def _read_request(conn: _socket.socket, reader: _Reader) -> _Request | None:
    """The agent's next request, or None (the connection ended, or was answered with an error and is to close)."""
    try:
        head = reader.head()
    except ValueError:
        reply(conn, 431, "request headers too large")
        return None
    if head is None:
        return None
    lines = head.decode("latin-1").split("\r\n")
    request_line, length, kept, close = lines[0], 0, [], False
    for line in lines[1:]:
        name, _, value = line.partition(":")
        key = name.strip().lower()
        if key == "transfer-encoding":
            reply(conn, 411, "chunked requests are not supported; send a Content-Length")
            return None
        if key == "content-length":
            try:
                length = int(value.strip())
            except ValueError:
                reply(conn, 400, "bad Content-Length")
                return None
        if key == "connection" and "close" in value.lower():
            close = True
        if key not in DROPPED:
            kept.append(line)
    if length > MAX_BODY:
        reply(conn, 413, f"request body over {MAX_BODY} bytes")
        return None
    body = reader.exactly(length)
    if body is None:
        return None
    keep_alive = not close and request_line.endswith("HTTP/1.1")
    return _Request(request_line, kept, body, keep_alive)


class _Upstream:
    """The agent connection's connection to the gateway, opened on first use and again after `UPSTREAM_IDLE`."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.sock: _socket.socket | None = None
        self.reader: _Reader | None = None
        self.used = 0.0

    def get(self) -> tuple[_socket.socket, _Reader]:
        if self.sock is not None and time.monotonic() - self.used > UPSTREAM_IDLE:
            self.drop()
        if self.sock is None or self.reader is None:
            sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)  # no timeout: the gateway bounds its calls
            self.sock, self.reader = sock, _Reader(sock)
            sock.connect(self.path)
        self.used = time.monotonic()
        return self.sock, self.reader

    def drop(self) -> None:
        if self.sock is not None:
            self.sock.close()
        self.sock = self.reader = None


def _relay(request: _Request, sock: _socket.socket, reader: _Reader, upstream: _Upstream, conn: _socket.socket) -> bool:
    """The gateway's answer to ``request`` (on ``sock``) -> the agent; True when both connections stay open for the
    next."""
    head = reader.head()
    if head is None:
        raise ConnectionError("the gateway closed the connection")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split(" ", 2)[1])
    length, gateway_closes, kept = None, False, [lines[0]]
    for line in lines[1:]:
        name, _, value = line.partition(":")
        key = name.strip().lower()
        if key == "content-length":
            length = int(value.strip())
        if key == "connection":
            gateway_closes = "close" in value.lower()
            continue
        if key != "keep-alive":
            kept.append(line)
    if request.head_only or status in (204, 304) or 100 <= status < 200:
        length = 0
    keep = request.keep_alive and length is not None
    kept.append("Connection: keep-alive" if keep else "Connection: close")
    out = ("\r\n".join(kept) + "\r\n\r\n").encode("latin-1")
    if length is None:  # streamed to the gateway's end
        conn.sendall(out + reader.data)
        while chunk := sock.recv(65536):
            conn.sendall(chunk)
        upstream.drop()
        return False
    body = reader.exactly(length)
    if body is None:
        raise ConnectionError("the gateway closed the connection mid-answer")
    conn.sendall(out + body)  # one write: a second small one would wait on the agent's delayed ACK (Nagle)
    if gateway_closes:
        upstream.drop()
    upstream.used = time.monotonic()
    return keep


def forward(conn: _socket.socket, socket_path: str, token: str) -> None:
    """The agent's requests on one connection -> the gateway socket, token attached; each answer relayed back."""
    upstream = _Upstream(socket_path)
    reader = _Reader(conn)
    try:
        conn.settimeout(AGENT_IDLE)
        conn.setsockopt(_socket.IPPROTO_TCP, _socket.TCP_NODELAY, 1)
        while (request := _read_request(conn, reader)) is not None:
            out = "\r\n".join([request.line, "Host: gateway", f"Authorization: Bearer {token}", *request.kept])
            try:
                sock, upstream_reader = upstream.get()
                sock.sendall((out + "\r\n\r\n").encode("latin-1") + request.body)
            except OSError as exc:
                reply(conn, 502, f"gateway unreachable: {exc}")
                return
            try:
                if not _relay(request, sock, upstream_reader, upstream, conn):
                    return
            except (OSError, ValueError, IndexError) as exc:
                reply(conn, 502, f"the gateway's answer broke off: {exc}")
                return
    except OSError:
        pass  # the agent hung up or went idle
    finally:
        upstream.drop()
        conn.close()
