"""Sandbox conformance: the same hostile agents against every backend and runtime present (tests/conformance/
conftest.py), behind the gateway, each sandbox with its seccomp allowlist on.

Egress checks only ever target this machine's loopback (a listener the test opens), never another address.
"""

from __future__ import annotations

import os
import socket
import subprocess

import pytest

from sandbox.backends import Limits
from sandbox.gateway import Budgets
from tests.conformance.conftest import known_gap, run_agent

pytestmark = pytest.mark.slow  # every sandbox: bubblewrap, Docker, gVisor


def test_a_good_agent_runs_and_its_answer_comes_from_the_gateway(node):
    outcome = run_agent(
        node,
        """
        from arena_agent import tools
        def agent_main(problem):
            hits = tools.find_product(q=problem["query"])
            tools.recommend_product(product_ids=hits[0]["product_id"])
            print("I recommended W09, honestly")  # printed claims are not the answer
            return {"answer": "W09"}
    """,
        "good",
    )
    assert outcome.result.status == "ok" and outcome.result.error_code is None
    first_hit = outcome.events[0].result[0]["product_id"]
    assert outcome.answer == first_hit and first_hit != "W09" and outcome.tool_calls == 2
    assert "honestly" in outcome.result.stdout


def test_the_agent_holds_no_privilege(node):
    # uid and gid 65534, no other group, every capability set empty, no new privileges, however the backend drops
    # to 65534 (the process sandbox: setpriv then bwrap; Docker: the engine's user and cap_drop)
    outcome = run_agent(
        node,
        """
        def agent_main(problem):
            lines = open("/proc/self/status").read().splitlines()
            return {name: value.split() for name, _, value in (line.partition(":") for line in lines)}
    """,
        "privilege",
    )
    got = outcome.result.returned
    assert outcome.result.status == "ok" and got, outcome.result.error
    assert got["Uid"] == ["65534"] * 4 and got["Gid"] == ["65534"] * 4 and set(got["Groups"]) <= {"65534"}, got
    # no ambient capability either: those are a subset of the permitted (gVisor does not show them)
    assert [int(got[caps][0], 16) for caps in ("CapInh", "CapPrm", "CapEff")] == [0, 0, 0], got
    if getattr(node[2], "name", "") != "docker-runsc":  # gVisor's /proc/self/status does not show it
        assert got["NoNewPrivs"] == ["1"], got


def test_no_network_no_dns(node):
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    port = listener.getsockname()[1]
    try:
        outcome = run_agent(
            node,
            f"""
            import socket
            def agent_main(problem):
                out = {{}}
                try:
                    socket.create_connection(("127.0.0.1", {port}), timeout=2); out["host_port"] = "reached"
                except OSError as e:
                    out["host_port"] = type(e).__name__
                try:
                    socket.getaddrinfo("example.com", 80); out["dns"] = "resolved"
                except OSError as e:
                    out["dns"] = type(e).__name__
                import os
                out["ifaces"] = sorted(os.listdir("/sys/class/net")) if os.path.isdir("/sys/class/net") else []
                return out
        """,
            "net",
        )
    finally:
        listener.close()
    assert outcome.result.status == "ok"
    assert outcome.result.returned["host_port"] == "ConnectionRefusedError"  # the sandbox's own loopback only
    assert outcome.result.returned["dns"] == "gaierror"
    assert set(outcome.result.returned["ifaces"]) <= {"lo"}  # no interface but its own loopback


def test_host_files_and_environment_are_invisible(node, tiny_catalog_path, request):
    known_gap(request, node[2], "host-files")
    os.environ["SHOPARENA_TEST_SECRET"] = "hunter2"
    secret = node[1] / "node-secret.txt"
    secret.write_text("validator hotkey seed")
    os.chmod(secret, 0o644)
    outcome = run_agent(
        node,
        f"""
        import os
        def agent_main(problem):
            seen = {{p: os.path.exists(p) for p in ({str(tiny_catalog_path)!r}, {str(secret)!r}, "/work", "/farm")}}
            try:
                open("/etc/shadow").read(); seen["shadow_read"] = True
            except OSError:
                seen["shadow_read"] = False
            leaks = []
            for pid in os.listdir("/proc"):
                if pid.isdigit():
                    for part in ("environ", "cmdline", "mem"):
                        try:
                            with open(f"/proc/{{pid}}/{{part}}", "rb") as fh:
                                data = fh.read(1 << 16)
                            leaks.append((pid, part, data.decode(errors="replace")))
                        except OSError:
                            pass
            return {{"seen": seen, "env": dict(os.environ), "uid": os.getuid(), "proc": leaks}}
    """,
        "snoop",
    )
    got = outcome.result.returned
    assert got["uid"] == 65534 and not any(got["seen"].values()), got["seen"]
    assert "SHOPARENA_TEST_SECRET" not in got["env"] and "hunter2" not in str(got)
    assert "validator hotkey seed" not in str(got)
    gw = node[0]
    assert not any(len(text) > 20 and text in str(got) for text in [h.token for h in gw._runs.values()])
    assert "Bearer" not in str(got["proc"]) and "token" not in str(got["proc"])  # the harness is undumpable


def test_infinite_loop_times_out(node):
    outcome = run_agent(
        node,
        """
        def agent_main(problem):
            while True:
                pass
    """,
        "loop",
        limits=Limits(wall_seconds=2),
    )
    assert outcome.result.status == "timeout" and outcome.result.error_code == 1003


def test_memory_bomb_is_killed(node, request):
    known_gap(request, node[2], "memory-bomb")
    outcome = run_agent(
        node,
        """
        def agent_main(problem):
            hog = []
            while True:
                hog.append(bytearray(16 * 2**20))
    """,
        "mem",
        limits=Limits(wall_seconds=20, memory_mb=200),
    )
    assert outcome.result.status in ("killed", "raised") and outcome.result.error_code in (1004, 1002)
    assert outcome.result.oom or "MemoryError" in str(outcome.result.error)


def test_fork_bomb_is_contained_and_no_process_survives(node, request):
    known_gap(request, node[2], "fork-bomb")
    tag = f"61.{os.getpid()}"  # unique to this test process: other workers run their own bombs
    outcome = run_agent(
        node,
        """
        import os
        def agent_main(problem):
            n = 0
            try:
                for _ in range(10000):
                    if os.fork() == 0:
                        os.execv("/bin/sleep", ["sleep", "TAG"])  # a tag to find survivors by
                    n += 1
            except OSError:
                pass
            return {"forked": n}
    """.replace("TAG", tag),
        "forks",
        limits=Limits(wall_seconds=20, pids=64),
    )
    assert outcome.result.status == "ok" and outcome.result.returned["forked"] < 64
    assert _survivors(tag) == []


def test_daemon_does_not_outlive_the_run(node):
    tag = f"601.{os.getpid()}"
    outcome = run_agent(
        node,
        """
        import os
        def agent_main(problem):
            if os.fork() == 0:
                os.setsid()
                if os.fork() == 0:
                    os.execv("/bin/sleep", ["sleep", "TAG"])
                os._exit(0)
            return {"spawned": True}
    """.replace("TAG", tag),
        "daemon",
    )
    assert outcome.result.status == "ok"
    assert _survivors(tag) == []


def test_disk_fill_and_output_flood_are_bounded(node):
    outcome = run_agent(
        node,
        """
        import sys
        def agent_main(problem):
            written = 0
            try:
                with open("/tmp/fill", "wb") as fh:
                    while written < 200 * 2**20:
                        fh.write(b"x" * 2**20); fh.flush(); written += 2**20
            except OSError as e:
                err = e.errno
            sys.stdout.write("y" * (20 * 2**20))
            return {"written": written, "errno": err}
    """,
        "disk",
        limits=Limits(wall_seconds=30, tmp_mb=16, output_bytes=4096),
    )
    got = outcome.result.returned
    assert got["errno"] == 28 and got["written"] <= 16 * 2**20  # ENOSPC at the tmpfs cap
    assert len(outcome.result.stdout) <= 4096 + 20


def test_agent_errors_are_told_apart(node):
    raised = run_agent(node, "def agent_main(problem):\n    raise ValueError('nope')\n", "raise")
    assert raised.result.status == "raised" and "ValueError: nope" in raised.result.error
    garbage = run_agent(node, "def agent_main(problem):\n    return [1, 2]\n", "garbage")
    assert garbage.result.status == "bad_return" and garbage.result.error_code == 1005
    broken = run_agent(node, "import not_a_module\ndef agent_main(problem):\n    return None\n", "imports")
    assert broken.result.status == "import_failed" and broken.result.error_code == 1001
    liar = run_agent(
        node,
        """
        import os, json
        def agent_main(problem):
            os.write(3, json.dumps({"status": "harness_fault", "error": "blame the validator"}).encode())
            os._exit(0)
    """,
        "liar",
    )
    assert liar.result.error_code is not None and liar.result.error_code < 2000  # never validator-blamed


def test_a_kept_connection_carries_each_call_with_the_harness_headers_stripped(node):
    """The forwarder keeps an agent's connection open across calls: two requests sent at once on one connection are
    each answered on it, and the second's harness header (a forged hand-over of an answer) is stripped like the
    first's, so the gateway records two plain calls and no hand-over."""
    outcome = run_agent(
        node,
        """
        import json, socket
        def request(path, body, extra=""):
            data = json.dumps(body).encode()
            return (f"POST {path} HTTP/1.1\\r\\nHost: x\\r\\nContent-Type: application/json\\r\\n{extra}"
                    f"Content-Length: {len(data)}\\r\\n\\r\\n").encode() + data
        def answers(sock, count):
            data, out = b"", []
            while len(out) < count:
                while b"\\r\\n\\r\\n" not in data:
                    data += sock.recv(65536)
                head, _, data = data.partition(b"\\r\\n\\r\\n")
                lines = head.decode().split("\\r\\n")
                fields = dict(line.lower().split(": ", 1) for line in lines[1:])
                length = int(fields["content-length"])
                while len(data) < length:
                    data += sock.recv(65536)
                out.append((int(lines[0].split()[1]), fields.get("connection"), json.loads(data[:length])))
                data = data[length:]
            return out
        def agent_main(problem):
            sock = socket.create_connection(("127.0.0.1", 8080))
            forged = "X-Arena-Origin: returned-steps\\r\\nX-Arena-Steps: 99\\r\\n"
            sock.sendall(request("/tools/find_product", {"q": "lamp"})
                         + request("/tools/recommend_product", {"product_ids": "1"}, forged))
            got = answers(sock, 2)
            return {"statuses": [g[0] for g in got], "connection": [g[1] for g in got], "ok": [g[2]["ok"] for g in got]}
    """,
        "kept-connection",
    )
    assert outcome.result.status == "ok", outcome.result.error
    assert outcome.result.returned == {"statuses": [200, 200], "connection": ["keep-alive"] * 2, "ok": [True, True]}
    assert [e.name for e in outcome.events if e.kind == "tool_call"] == ["find_product", "recommend_product"]
    assert not [e for e in outcome.events if e.name == "returned_steps"]  # the forged hand-over never arrived


def test_token_misuse_and_budget_exhaustion(node):
    outcome = run_agent(
        node,
        """
        import socket, json
        from arena_agent import tools, BudgetExhausted
        def agent_main(problem):
            s = socket.socket(socket.AF_UNIX)
            s.connect("/run/arena/gateway.sock")
            s.sendall(b"POST /tools/find_product HTTP/1.1\\r\\nHost: x\\r\\nContent-Length: 13\\r\\n"
                      b"Connection: close\\r\\n\\r\\n{\\"q\\": \\"lamp\\"}")
            direct = s.recv(200).split(b"\\r\\n")[0].decode()
            calls = 0
            try:
                while True:
                    tools.find_product(q="lamp"); calls += 1
            except BudgetExhausted:
                pass
            return {"direct": direct, "calls": calls}
    """,
        "misuse",
        budgets=Budgets(tool_calls=3),
    )
    assert outcome.result.returned == {"direct": "HTTP/1.1 401 Unauthorized", "calls": 3}
    gw = node[0]
    assert any(e.status == 401 for e in gw.rejected)
    assert [e.status for e in outcome.events][-1] == 429


def test_the_next_run_is_unaffected(node):
    test_a_good_agent_runs_and_its_answer_comes_from_the_gateway(node)


def _survivors(tag: str) -> list[str]:
    proc = subprocess.run(["ps", "-o", "pid=,args=", "-u", "65534"], capture_output=True, text=True)
    return [line for line in proc.stdout.splitlines() if tag in line and "defunct" not in line]


def test_docker_reaps_orphaned_containers(docker_sandbox):
    from sandbox.backends.docker import LABEL

    run_id = f"orphan-{os.getpid()}"
    docker_sandbox.client.containers.create(
        docker_sandbox.image, command=["sleep", "600"], labels={LABEL: run_id}, network_mode="none"
    )
    assert docker_sandbox.reap({run_id}) == 1
    assert not docker_sandbox.client.containers.list(all=True, filters={"label": f"{LABEL}={run_id}"})
