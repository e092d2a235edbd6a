"""DockerSandbox: one container per run, for validators (docker SDK).

``network_mode="none"`` with the network disabled (the runtime makes the container a network namespace of its own,
loopback only; the engine sets up no network for it), only the gateway socket's folder mounted (read-only) at
/run/arena, the bundle read-only at /agent, a read-only root, a size-capped tmpfs /tmp, uid 65534, every capability
dropped (under gVisor the harness starts as root with three, `GVISOR_HARNESS`), no-new-privileges, memory with swap
off, CPU shares, a pids limit, ulimits (open files, no core dumps), capped logs, and a wall-clock deadline after which
the container is killed (only the deadline passing once the harness said the agent begins, its input read, is the
agent's timeout; passing before, no agent code ran, and the start is `sandbox_failed`, as the process backend has it;
any other failure of the engine while the run is in it is `sandbox_failed`, the validator's fault). The container is
removed in ``finally``; containers carry the label ``shoparena.run`` so a restarting node can reap orphans
(`DockerSandbox.reap`).
"""

from __future__ import annotations

import asyncio
import socket
import time
from typing import Any

from requests.exceptions import ReadTimeout

from sandbox import seccomp
from sandbox.backends import (
    HARNESS_BEGINS,
    HARNESS_READY,
    SandboxResult,
    SandboxSpec,
    harness_input,
    result_from_report,
)

LABEL = "shoparena.run"
#: the agent's uid and gid (the harness's too, but under gVisor)
NOBODY = 65534
#: the container's user, capabilities and environment under gVisor (runsc): gVisor lets a process signal its pid
#: namespace's pid 1, which Linux does not, so the agent's process runs as a uid of its own (`NOBODY`), forked by a
#: harness that starts as root with CAP_SETUID and CAP_SETGID (for that drop) and CAP_KILL (to end the agent's process
#: group), and keeps only CAP_KILL (`sandbox.harness.spawn.fork_agent`); kill(2) needs the sender's uid or CAP_KILL
#: (docs/validator.md, "gVisor"). ``ARENA_AGENT_UID`` is `spawn.AGENT_UID`
GVISOR_HARNESS: dict[str, Any] = {
    "user": "0:0",
    "cap_add": ["SETUID", "SETGID", "KILL"],
    "environment": {"ARENA_AGENT_UID": str(NOBODY)},
}


class DockerUnavailable(RuntimeError):
    """No Docker engine answers, or the image is missing: the message says what to do."""


class DockerSandbox:
    name = "docker"

    def __init__(
        self, image: str | None = None, client: Any = None, *, runtime: str | None = None, seccomp: bool = True
    ) -> None:
        import docker

        try:
            self.client = client or docker.from_env(timeout=120)
            self.client.ping()
            self._probe = client or docker.from_env(timeout=5)  # `health`'s: a dead engine is said within 5 s
        except Exception as exc:  # noqa: BLE001 - any failure to reach the engine
            raise DockerUnavailable(
                f"no Docker engine answers ({exc}); start dockerd (bash scripts/dockerd start) or set DOCKER_HOST"
            ) from None
        if image is None:
            from sandbox.image.build import image_tag

            image = image_tag()
        try:
            self.client.images.get(image)
        except Exception:  # noqa: BLE001
            raise DockerUnavailable(
                f"the sandbox image {image} is missing; build it with `python -m sandbox.image.build`"
            ) from None
        self.image = image
        #: the OCI runtime (None: the engine's default, runc; "runsc": gVisor), and the seccomp allowlist
        self.runtime, self.seccomp = runtime, seccomp
        self._security = ["no-new-privileges"] + ([f"seccomp={_profile()}"] if seccomp else [])
        #: who the harness starts as: uid 65534 with no capability, or under gVisor `GVISOR_HARNESS`
        self._harness: dict[str, Any] = GVISOR_HARNESS if runtime == "runsc" else {"user": f"{NOBODY}:{NOBODY}"}
        if runtime is not None:
            _check_runtime(self.client, runtime)
            self.name = f"docker-{runtime}"
        self._running: dict[str, Any] = {}  # run id -> its container, from creation to removal

    def _engine_fault(self, container: Any, doing: str, error: object, started: float) -> SandboxResult:
        """The Docker engine failed while `doing`: the container is killed if the engine still answers, and the run
        ends `sandbox_failed` (2001, the validator's fault; retried), whatever the agent was doing."""
        try:
            container.kill()
        except Exception:  # noqa: BLE001 - gone, or the engine is down: removed in finally or reaped later
            pass
        return SandboxResult(
            "sandbox_failed",
            f"docker engine fault {doing}: {error}",
            None,
            time.monotonic() - started,
            backend=self.name,
        )

    def health(self) -> str:
        """The Docker engine answers (a ping within 5 s); `DockerUnavailable` (one line) when it does not."""
        try:
            self._probe.ping()
        except Exception as exc:  # noqa: BLE001 - any failure to reach the engine
            raise DockerUnavailable(f"the Docker engine does not answer: {type(exc).__name__}: {exc}"[:300]) from None
        return f"docker engine answers (image {self.image})"

    def reap(self, run_ids: set[str] | None = None) -> int:
        """Remove the containers a previous run of the node left behind (all of them, or only these runs'); call it
        when the node starts, before any run of its own. Returns how many were removed."""
        count = 0
        for container in self.client.containers.list(all=True, filters={"label": LABEL}):
            if run_ids is None or container.labels.get(LABEL) in run_ids:
                container.remove(force=True)
                count += 1
        return count

    def leftovers(self) -> set[str]:
        """The run ids of every container of this backend on the engine (running or not), for the janitor: it
        reaps those whose runs are final (`validator.upkeep`)."""
        return {
            str(c.labels.get(LABEL))
            for c in self.client.containers.list(all=True, filters={"label": LABEL})
            if c.labels.get(LABEL)
        }

    def stop_running(self) -> int:
        """Remove (killing) the container of every run in progress; the thread waiting on it then returns."""
        running = list(self._running.values())
        for container in running:
            try:
                container.remove(force=True)
            except Exception:  # noqa: BLE001 - already gone, or the engine is down: reap() takes what is left
                pass
        return len(running)

    async def run(self, spec: SandboxSpec) -> SandboxResult:
        return await asyncio.to_thread(self._run, spec)

    def _payload(self, spec: SandboxSpec) -> bytes:
        """The harness's input (`sandbox.harness.harness`), written to the container's stdin once it started."""
        limits = spec.limits
        payload = {
            "problem": spec.problem,
            "token": spec.token,
            "timeout": limits.wall_seconds,
            "socket": "/run/arena/" + spec.socket_name,
            "agent_dir": "/agent",
            "sdk_dir": "/opt/arena/sdk",
            "max_output": limits.output_bytes,
            "model": spec.model,
            "killed": seccomp.killed() if self.seccomp else [],
        }
        return harness_input(payload)

    def _create(self, spec: SandboxSpec) -> Any:
        """The run's container, created (not started): no network, read-only, unprivileged, within `spec.limits`;
        its stdin open for the harness's input, closed once that is written (StdinOnce)."""
        from docker.types import LogConfig, Mount, Ulimit

        limits = spec.limits
        return self._create_container(
            self.image,
            command=["/opt/agent/bin/python", "-I", "-S", "/opt/arena/harness/start.py"],
            stdin_open=True,  # not detached: docker-py sets StdinOnce too
            network_mode="none",
            # and no network for the engine to set up: the runtime gives the container a namespace of its own with
            # loopback only, as "none" does, without the engine's network sandbox (150 ms of each start here)
            network_disabled=True,
            read_only=True,
            tmpfs={"/tmp": f"size={limits.tmp_mb}m,mode=1777"},
            cap_drop=["ALL"],
            **self._harness,
            security_opt=self._security,
            runtime=self.runtime,
            mem_limit=f"{limits.memory_mb}m",
            memswap_limit=f"{limits.memory_mb}m",
            pids_limit=limits.pids,
            cpu_shares=limits.cpu_shares,
            ulimits=[
                Ulimit(name="nofile", soft=limits.open_files, hard=limits.open_files),
                Ulimit(name="core", soft=0, hard=0),
            ],
            mounts=[
                Mount("/agent", str(spec.bundle_dir), type="bind", read_only=True),
                Mount("/run/arena", str(spec.socket_dir), type="bind", read_only=True),
            ],
            labels={LABEL: spec.run_id},
            working_dir="/tmp",
            log_config=LogConfig(type="json-file", config={"max-size": "1m", "max-file": "1"}),
        )

    def _create_container(self, image: str, **kwargs: Any) -> Any:
        """``containers.create`` without its inspection of the new container (one round trip to the engine less
        before the run starts: nothing of it is read before the container ends)."""
        from docker.models.containers import _create_container_args  # type: ignore[attr-defined]  # what create uses

        made = self.client.api.create_container(
            **_create_container_args({**kwargs, "image": image, "version": self.client.api.api_version})
        )
        return self.client.containers.prepare_model({"Id": made["Id"]})

    def _start(self, container: Any, payload: bytes) -> None:
        """Start the container with the harness's input on its stdin (the token never in its environment, so the
        harness forks the agent's process before reading it: `sandbox.harness.spawn`)."""
        stdin = self.client.api.attach_socket(container.id, params={"stdin": 1, "stream": 1})
        raw = getattr(stdin, "_sock", stdin)  # docker-py's socket of the hijacked connection
        try:
            container.start()
            raw.sendall(payload)
            raw.shutdown(socket.SHUT_WR)  # the end of the input: the engine closes the container's stdin
        finally:
            stdin.close()

    def _run(self, spec: SandboxSpec) -> SandboxResult:
        limits = spec.limits
        started = time.monotonic()
        container = None
        try:
            container = self._create(spec)
            self._running[spec.run_id] = container
            self._start(container, self._payload(spec))
            waited = self._wait(container, limits.wall_seconds + 10, started)
            if isinstance(waited, SandboxResult):
                return waited
            code, timed_out = waited
            container.reload()
            oom = bool(container.attrs.get("State", {}).get("OOMKilled"))
            out = container.logs(stdout=True, stderr=False, tail=5).decode("utf-8", errors="replace")
            err = container.logs(stdout=False, stderr=True, tail=50).decode("utf-8", errors="replace")
            return result_from_report(
                out,
                err,
                code,
                time.monotonic() - started,
                timed_out=timed_out,
                oom=oom,
                limit=limits.output_bytes,
                backend=self.name,
            )
        except Exception as exc:  # noqa: BLE001 - the engine failed us: the validator's fault, never the agent's
            return SandboxResult(
                "sandbox_failed", f"docker engine fault: {exc}", None, time.monotonic() - started, backend=self.name
            )
        finally:
            self._running.pop(spec.run_id, None)
            if container is not None:
                try:
                    container.remove(force=True)
                except Exception:  # noqa: BLE001 - reap() takes what is left
                    pass

    def _wait(self, container: Any, deadline: float, started: float) -> tuple[int | None, bool] | SandboxResult:
        """The container's exit code and whether the deadline killed it; or the run's result when the engine failed
        us meanwhile (2001), or when the deadline passed before the harness said the agent begins (its input read):
        no agent code ran, so the start is the validator's, as on the process backend, never the agent's timeout
        (1003)."""
        waiting = time.monotonic()
        try:
            status = container.wait(timeout=deadline)
        except Exception as exc:  # noqa: BLE001 - the engine failed us while we waited: never the agent's timeout
            if not _read_timeout(exc):
                return self._engine_fault(
                    container, f"waiting on the container after {time.monotonic() - waiting:.1f}s", exc, started
                )
            exited = _kill(container)  # the deadline passed with the container still running, or just ended
            if exited is not None:
                return exited, False
            said = _said(container)
            if said != HARNESS_READY + HARNESS_BEGINS:
                return SandboxResult(
                    "sandbox_failed",
                    f"could not start the sandbox: {_not_started(said, deadline)}",
                    None,
                    time.monotonic() - started,
                    backend=self.name,
                )
            return None, True
        if (status.get("Error") or {}).get("Message"):
            return self._engine_fault(container, "waiting on the container", status["Error"]["Message"], started)
        return status.get("StatusCode"), False


def _read_timeout(exc: BaseException) -> bool:
    """Whether a failed wait is the HTTP read timeout, the deadline passing: requests raises it as ``ReadTimeout`` or,
    where urllib3's ``ReadTimeoutError`` is an ``OSError`` (urllib3 2), as a ``ConnectionError`` wrapping it."""
    from urllib3.exceptions import ReadTimeoutError

    return isinstance(exc, ReadTimeout | ReadTimeoutError) or any(isinstance(a, ReadTimeoutError) for a in exc.args)


def _kill(container: Any) -> int | None:
    """Kill the container the deadline passed on: None once killed; its exit code when it ended on its own between the
    wait's end and the kill (the engine refuses to kill it, 409: its logs then hold its report). Any other failure is
    the engine's (raised)."""
    try:
        container.kill()
        return None
    except Exception:
        container.reload()
        state = container.attrs.get("State") or {}
        if state.get("Running", True):
            raise
        return int(state.get("ExitCode", -1))


def _said(container: Any) -> bytes:
    """The harness's own first lines on the container's stdout, as far as its ready line and its line saying the
    agent begins (`sandbox.backends.HARNESS_READY`, `HARNESS_BEGINS`); no more is read. Only the harness writes that
    stdout: the agent's output goes through the harness's pipes."""
    wanted = len(HARNESS_READY + HARNESS_BEGINS)
    head = b""
    stream = container.logs(stdout=True, stderr=False, stream=True, follow=False)
    try:
        for chunk in stream:
            head += chunk
            if len(head) >= wanted:
                break
    finally:
        close = getattr(stream, "close", None)
        if close is not None:
            close()
    return head[:wanted]


def _not_started(said: bytes, deadline: float) -> str:
    """Why a container whose deadline passed before the agent began is the node's fault (2001), by how far it got."""
    if not said.startswith(HARNESS_READY):
        return f"not ready to run within {deadline:g}s (its start)"
    return (
        f"not started within {deadline:g}s: the harness was ready but had not read its input (its start or the "
        "input's delivery hung); no agent code ran"
    )


def _profile() -> str:
    """The seccomp allowlist as Docker's JSON profile; `DockerUnavailable` (one line) when it does not build, so
    agents never run without it."""
    try:
        seccomp.bpf()  # libseccomp checks every rule the JSON profile holds
        return seccomp.docker_profile()
    except seccomp.ProfileError as exc:
        raise DockerUnavailable(f"{exc}; agents are not run without it") from None


def _check_runtime(client: Any, runtime: str) -> None:
    """`DockerUnavailable` (one line) when the engine does not know the OCI runtime ``runtime``."""
    known = sorted((client.info().get("Runtimes") or {}).keys())
    if runtime not in known:
        raise DockerUnavailable(
            f"the Docker engine has no runtime {runtime!r} (it has {', '.join(known) or 'none'}); install it "
            "(apt-get install -y runsc), register it (runsc install; restart dockerd) or drop --sandbox.runtime"
        )
