"""DockerSandbox: one container per run, for validators (docker SDK).

``network_mode="none"`` with only the gateway socket's folder mounted (read-only) at /run/arena, the bundle
read-only at /agent, a read-only root, a size-capped tmpfs /tmp, uid 65534, every capability dropped,
no-new-privileges, memory with swap off, CPU shares, a pids limit, ulimits (open files, no core dumps), capped logs,
and a wall-clock deadline after which the container is killed. The container is removed in ``finally``; containers
carry the label ``shoparena.run`` so a restarting node can reap orphans (`DockerSandbox.reap`).
"""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

from sandbox.backends import SandboxResult, SandboxSpec

LABEL = "shoparena.run"


class DockerUnavailable(RuntimeError):
    """No Docker engine answers, or the image is missing: the message says what to do."""


class DockerSandbox:
    name = "docker"

    def __init__(self, image: str | None = None, client: Any = None) -> None:
        import docker

        try:
            self.client = client or docker.from_env(timeout=120)
            self.client.ping()
        except Exception as exc:  # noqa: BLE001 - any failure to reach the engine
            raise DockerUnavailable(f"no Docker engine answers ({exc}); start dockerd (bash scripts/dockerd start) "
                                    "or set DOCKER_HOST") from None
        if image is None:
            from sandbox.image.build import image_tag

            image = image_tag()
        try:
            self.client.images.get(image)
        except Exception:  # noqa: BLE001
            raise DockerUnavailable(f"the sandbox image {image} is missing; build it with "
                                    "`python -m sandbox.image.build`") from None
        self.image = image

    def reap(self) -> int:
        """Remove every container a previous run of the node left behind; returns how many."""
        count = 0
        for container in self.client.containers.list(all=True, filters={"label": LABEL}):
            container.remove(force=True)
            count += 1
        return count

    async def run(self, spec: SandboxSpec) -> SandboxResult:
        return await asyncio.to_thread(self._run, spec)

    def _run(self, spec: SandboxSpec) -> SandboxResult:
        from docker.types import LogConfig, Mount, Ulimit

        limits = spec.limits
        started = time.monotonic()
        payload = {"problem": spec.problem, "token": spec.token, "timeout": limits.wall_seconds,
                   "socket": "/run/arena/" + spec.socket_name, "agent_dir": "/agent", "sdk_dir": "/opt/arena/sdk",
                   "max_output": limits.output_bytes}
        container = None
        try:
            container = self.client.containers.create(
                self.image, command=["/opt/agent/bin/python", "-I", "/opt/arena/harness/harness.py"],
                environment={"ARENA_HARNESS_INPUT": json.dumps(payload)}, network_mode="none", read_only=True,
                tmpfs={"/tmp": f"size={limits.tmp_mb}m,mode=1777"}, user="65534:65534", cap_drop=["ALL"],
                security_opt=["no-new-privileges"], mem_limit=f"{limits.memory_mb}m",
                memswap_limit=f"{limits.memory_mb}m", pids_limit=limits.pids, cpu_shares=limits.cpu_shares,
                ulimits=[Ulimit(name="nofile", soft=limits.open_files, hard=limits.open_files),
                         Ulimit(name="core", soft=0, hard=0)],
                mounts=[Mount("/agent", str(spec.bundle_dir), type="bind", read_only=True),
                        Mount("/run/arena", str(spec.socket_dir), type="bind", read_only=True)],
                labels={LABEL: spec.run_id}, working_dir="/tmp",
                log_config=LogConfig(type="json-file", config={"max-size": "1m", "max-file": "1"}),
            )
            container.start()
            timed_out = False
            try:
                status = container.wait(timeout=limits.wall_seconds + 10)
                code = status.get("StatusCode")
            except Exception:  # noqa: BLE001 - the deadline passed (requests' read timeout)
                timed_out = True
                container.kill()
                code = None
            container.reload()
            oom = bool(container.attrs.get("State", {}).get("OOMKilled"))
            out = container.logs(stdout=True, stderr=False, tail=5).decode("utf-8", errors="replace")
            err = container.logs(stdout=False, stderr=True, tail=50).decode("utf-8", errors="replace")
            return self._result(out, err, code, started, timed_out, oom, limits.output_bytes)
        except Exception as exc:  # noqa: BLE001 - the engine failed us: the validator's fault, never the agent's
            return SandboxResult("sandbox_failed", f"docker: {exc}", None, time.monotonic() - started,
                                 backend=self.name)
        finally:
            if container is not None:
                try:
                    container.remove(force=True)
                except Exception:  # noqa: BLE001 - reap() takes what is left
                    pass

    def _result(self, out: str, err: str, code: int | None, started: float, timed_out: bool, oom: bool,
                limit: int) -> SandboxResult:
        elapsed = time.monotonic() - started
        report = None
        lines = out.strip().splitlines()
        if lines:
            try:
                report = json.loads(lines[-1])
            except ValueError:
                report = None
        if timed_out:
            return SandboxResult("timeout", "the container outlived its deadline and was killed", code, elapsed,
                                 timed_out=True, oom=oom, stderr=err[-limit:], backend=self.name)
        if not isinstance(report, dict) or report.get("harness") != 1:
            if oom:
                return SandboxResult("killed", "agent killed: out of memory", code, elapsed, oom=True,
                                     stderr=err[-limit:], backend=self.name)
            return SandboxResult("sandbox_failed", f"the harness gave no report (exit {code}): {err[-500:]}", code,
                                 elapsed, stderr=err[-limit:], backend=self.name)
        status = report.get("status", "harness_fault")
        if status in ("killed", "no_result") and oom:
            status, report["error"] = "killed", "agent killed: out of memory"
        return SandboxResult(status, report.get("error"), report.get("exit_code"), elapsed,
                             timed_out=status == "timeout", oom=oom and status == "killed",
                             stdout=report.get("stdout", ""), stderr=report.get("stderr", ""),
                             returned=report.get("return"), backend=self.name)
