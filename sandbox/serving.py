"""Serving an ASGI app with uvicorn in a background thread: the miner's bundle server and the validator's API."""

from __future__ import annotations

import socket
import threading
import time
from typing import Any

import uvicorn


class ThreadedServer:
    """Run an ASGI app with uvicorn in a background thread (port 0: any free port); a context manager."""

    def __init__(self, app: Any, *, host: str = "127.0.0.1", port: int = 0, log_level: str = "warning") -> None:
        self.host = host
        self.server = uvicorn.Server(
            uvicorn.Config(app, host=host, port=port, log_level=log_level, access_log=False, lifespan="off")
        )
        self._thread: threading.Thread | None = None
        self.port = port

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}"

    def _bind(self) -> socket.socket:
        """The listening socket, bound here so a failure is the system's own reason (address in use, no such
        address...), raised as `OSError` with its errno, rather than uvicorn's exit in the thread."""
        try:
            infos = socket.getaddrinfo(self.host, self.port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
        except (socket.gaierror, OverflowError) as exc:
            raise OSError(f"cannot listen on {self.host}:{self.port}: {exc}") from None
        family, kind, proto, _, address = infos[0]
        sock = socket.socket(family, kind, proto)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind(address)
        except OSError as exc:
            sock.close()
            raise OSError(exc.errno, f"cannot listen on {self.host}:{self.port}: {exc.strerror or exc}") from None
        return sock

    def start(self, timeout: float = 10.0) -> ThreadedServer:
        sock = self._bind()
        self._thread = threading.Thread(
            target=self.server.run, kwargs={"sockets": [sock]}, name=f"http-{self.host}", daemon=True
        )
        self._thread.start()
        deadline = time.monotonic() + timeout
        while not self.server.started:
            if not self._thread.is_alive():
                raise OSError(f"the server could not start on {self.host}:{self.port}")
            if time.monotonic() > deadline:
                self.stop()
                raise OSError(f"the server did not start on {self.host}:{self.port} within {timeout:g}s")
            time.sleep(0.02)
        sockets = [s for server in self.server.servers for s in server.sockets]
        if sockets:
            self.port = int(sockets[0].getsockname()[1])
        return self

    def alive(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def stop(self) -> None:
        self.server.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout=10)
            self._thread = None

    def __enter__(self) -> ThreadedServer:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()
