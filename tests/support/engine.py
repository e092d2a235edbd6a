"""A unix-socket relay in front of the real Docker engine, so a test can cut the node's connections to it (the
engine itself stays up for every other test on the machine)."""

from __future__ import annotations

import socket
import threading
from pathlib import Path


class EngineRelay:
    """Relays a unix socket to dockerd's; `cut_waits()` severs every connection that carries a container wait."""

    def __init__(self, target: str, path: Path) -> None:
        self.target, self.path = target, path
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.listener.bind(str(path))
        self.listener.listen(32)
        self.pairs: list[tuple[socket.socket, socket.socket, list[bytes]]] = []
        self.lock = threading.Lock()
        self.closed = False
        #: while set, the engine's answers to container waits are dropped: the client waits on until its read timeout
        self.holding = False
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while not self.closed:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            engine = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            engine.connect(self.target)
            seen: list[bytes] = []
            with self.lock:
                self.pairs.append((client, engine, seen))
            threading.Thread(target=self._pipe, args=(client, engine, seen), daemon=True).start()
            threading.Thread(target=self._pipe, args=(engine, client, None, seen), daemon=True).start()

    def _pipe(
        self, src: socket.socket, dst: socket.socket, seen: list[bytes] | None, asked: list[bytes] | None = None
    ) -> None:
        try:
            while chunk := src.recv(65536):
                if seen is not None:
                    seen.append(chunk)
                if asked is not None and self.holding and b"/wait" in b"".join(asked):
                    continue  # an answer on a connection that asked for a wait: held back
                dst.sendall(chunk)
        except OSError:
            pass
        for s in (src, dst):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def waiting(self) -> list[tuple[socket.socket, socket.socket, list[bytes]]]:
        with self.lock:
            return [p for p in self.pairs if b"/wait" in b"".join(p[2])]

    def cut_waits(self) -> None:
        for client, engine, _ in self.waiting():
            for s in (client, engine):
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    def close(self) -> None:
        self.closed = True
        self.listener.close()

    def down(self) -> None:
        """The engine gone, as its clients see it: no new connection, every open one severed."""
        self.closed = True
        try:
            self.listener.shutdown(socket.SHUT_RDWR)  # wakes the accepting thread: nothing is accepted any more
        except OSError:
            pass
        self.listener.close()
        with self.lock:
            pairs = list(self.pairs)
        for client, engine, _ in pairs:
            for s in (client, engine):
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass


def docker_runtimes() -> list[str]:
    """The Docker backends this machine has: ``docker`` (runc) when an engine answers, ``docker-runsc`` when it also
    has gVisor's runtime (scripts/dockerd registers it where runsc is installed, as scripts/system-packages does)."""
    try:
        import docker

        info = docker.from_env(timeout=10).info()
    except Exception:  # noqa: BLE001 - no engine: no Docker backend here
        return []
    return ["docker"] + (["docker-runsc"] if "runsc" in (info.get("Runtimes") or {}) else [])
