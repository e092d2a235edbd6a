"""The recording workload (`python -m sandbox.recording`): an agent that does, once each, what the agents' Python
environment lets an agent do, so that every system call an honest agent may need is made under ``strace``: the five
allowed packages at work (openai and httpx against the gateway, requests, pydantic, numpy with its BLAS threads), the
SDK's tools, subnet 15's proxy client, and the standard library's services (threads, processes, asyncio, sockets on
the sandbox's own loopback, files in /tmp, sqlite, compression, hashing, randomness, timers, signals).

Every step is tried and its failure kept: a step that fails here fails the same way in a sandbox, filter or not."""

from __future__ import annotations

import os
import sys
import traceback
from typing import Any

STEPS: list[str] = []


def _step(name: str, errors: dict[str, str]):  # noqa: ANN202 - a tiny decorator
    def wrap(fn):  # noqa: ANN001, ANN202
        STEPS.append(name)
        try:
            fn()
        except BaseException as exc:  # noqa: BLE001 - the step's failure is kept, the workload goes on
            errors[name] = traceback.format_exception_only(type(exc), exc)[-1].strip()[:200]
        return fn

    return wrap


def _packages(errors: dict[str, str], problem: dict[str, Any]) -> None:
    @_step("numpy", errors)
    def _numpy() -> None:
        import numpy as np

        a = np.random.default_rng(0).random((400, 400))
        (a @ a).sum()
        np.linalg.svd(a[:60, :60])
        np.save("/tmp/a.npy", a[:5])
        np.load("/tmp/a.npy")

    @_step("pydantic", errors)
    def _pydantic() -> None:
        import pydantic

        class Item(pydantic.BaseModel):
            name: str
            price: float

        Item.model_validate_json(Item(name="lamp", price=3.5).model_dump_json())

    @_step("sdk", errors)
    def _sdk() -> None:
        from arena_agent import budget, call_tool, llm_model, tools

        hits = tools.find_product(q=problem.get("query", "lamp"))
        tools.schemas(), budget(), llm_model()
        if hits:
            call_tool("view_product_information", product_ids=hits[0]["product_id"])

    @_step("openai", errors)
    def _openai() -> None:
        import asyncio

        import openai

        client = openai.OpenAI(max_retries=0, timeout=10)
        try:
            client.chat.completions.create(model="m", messages=[{"role": "user", "content": "hi"}])
        except openai.OpenAIError:
            pass

        async def once() -> None:
            async with openai.AsyncOpenAI(max_retries=0, timeout=10) as aclient:
                try:
                    await aclient.models.list()
                except openai.OpenAIError:
                    pass

        asyncio.run(once())

    @_step("httpx", errors)
    def _httpx() -> None:
        import httpx

        url = os.environ["ARENA_GATEWAY_URL"]
        httpx.get(url + "/tools", timeout=10)
        with httpx.Client(timeout=10) as client:
            client.post(url + "/tools/find_product", json={"q": "lamp"})

    @_step("requests", errors)
    def _requests() -> None:
        import requests

        requests.get(os.environ["ARENA_GATEWAY_URL"] + "/tools", timeout=10)

    @_step("sn15", errors)
    def _sn15() -> None:
        from src.agent import agent_interface, proxy_client  # noqa: F401


def _stdlib(errors: dict[str, str]) -> None:
    @_step("threads", errors)
    def _threads() -> None:
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(4) as pool:
            list(pool.map(lambda n: sum(range(n)), range(100)))

    @_step("processes", errors)
    def _processes() -> None:
        import subprocess

        subprocess.run([sys.executable, "-c", "print(1)"], check=True, capture_output=True)
        subprocess.run(["/bin/sh", "-c", "echo hi | cat"], check=True, capture_output=True)
        pid = os.fork()
        if pid == 0:
            os._exit(0)
        os.waitpid(pid, 0)

    @_step("multiprocessing", errors)
    def _multiprocessing() -> None:
        import multiprocessing

        for method in ("fork", "spawn"):
            with multiprocessing.get_context(method).Pool(2) as pool:
                pool.map(abs, range(4))


def _services(errors: dict[str, str]) -> None:
    @_step("asyncio", errors)
    def _asyncio() -> None:
        import asyncio

        async def main() -> None:
            proc = await asyncio.create_subprocess_exec("/bin/true")
            await proc.wait()
            await asyncio.gather(*(asyncio.sleep(0.01) for _ in range(5)))
            await asyncio.get_running_loop().run_in_executor(None, sum, [1, 2])

        asyncio.run(main())

    @_step("sockets", errors)
    def _sockets() -> None:
        import select
        import socket

        server = socket.create_server(("127.0.0.1", 0))
        client = socket.create_connection(server.getsockname(), timeout=5)
        conn, _ = server.accept()
        client.sendall(b"x")
        select.select([conn], [], [], 1)
        conn.recv(1)
        for s in (conn, client, server):
            s.close()
        a, b = socket.socketpair()
        a.close()
        b.close()
        socket.gethostname()
        udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        udp.sendto(b"x", ("127.0.0.1", 9))
        udp.close()
        socket.socket(socket.AF_INET6).close()
        socket.getaddrinfo("localhost", 80)  # no resolver in a sandbox: fails, after asking

    @_step("files", errors)
    def _files() -> None:
        import gzip
        import json
        import shutil
        import sqlite3
        import tempfile

        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "a.json.gz")
            with gzip.open(path, "wt") as fh:
                json.dump({"a": 1}, fh)
            shutil.copy(path, path + ".bak")
            os.rename(path + ".bak", path + ".old")
            os.chmod(path, 384)
            os.stat(path)
            os.listdir(tmp)
            os.utime(path)
            os.symlink(path, path + ".lnk")
            os.readlink(path + ".lnk")
            os.link(path, path + ".hard")
            db = sqlite3.connect(os.path.join(tmp, "x.db"))
            db.execute("create table t (a)")
            db.execute("insert into t values (1)")
            db.commit()
            db.close()
        with open("/usr/lib/os-release") as fh:
            fh.read()
        os.walk("/opt/agent/lib").__next__()


def _system(errors: dict[str, str]) -> None:
    @_step("misc", errors)
    def _misc() -> None:
        import ctypes
        import hashlib
        import mmap
        import platform
        import random
        import resource
        import secrets
        import signal
        import time
        import uuid

        hashlib.sha256(secrets.token_bytes(32)).hexdigest(), random.random(), uuid.uuid4()
        platform.uname(), os.cpu_count(), os.sched_getaffinity(0), resource.getrlimit(resource.RLIMIT_NOFILE)
        os.getloadavg()
        time.process_time()
        time.sleep(0.01)
        os.times()
        os.umask(18)
        signal.signal(signal.SIGALRM, lambda *a: None), signal.setitimer(signal.ITIMER_REAL, 0.01)
        time.sleep(0.05)
        signal.alarm(0)
        buf = mmap.mmap(-1, 1 << 20)
        buf.write(b"x")
        buf.close()
        big = bytearray(64 << 20)
        del big
        ctypes.CDLL(None).getpid()
        import faulthandler

        faulthandler.enable()


def _os_calls(errors: dict[str, str]) -> None:
    @_step("os", errors)
    def _os() -> None:
        import resource
        import select
        import signal
        import threading
        import time

        grown = [0]
        for _ in range(22):
            grown = grown + grown  # a list that grows: realloc moves big blocks with mremap
        big = bytearray(1 << 20)
        big.extend(bytes(200 << 20))
        del big, grown
        fd = os.open("/tmp/os-step", os.O_RDWR | os.O_CREAT, 0o600)
        os.dup(fd)
        os.dup2(fd, 50)
        os.ftruncate(fd, 10)
        os.truncate("/tmp/os-step", 5)
        os.fsync(fd)
        os.pwrite(fd, b"ab", 0), os.pread(fd, 2, 0), os.writev(fd, [b"a"]), os.readv(fd, [bytearray(1)])
        os.lstat("/tmp/os-step")
        os.access("/tmp/os-step", os.R_OK)
        list(os.scandir("/tmp"))
        os.set_blocking(fd, False)
        os.close(50)
        os.close(fd)
        resource.getrusage(resource.RUSAGE_SELF), os.getpgid(0), os.getsid(0), os.getgroups(), os.getresuid()
        time.clock_gettime(time.CLOCK_PROCESS_CPUTIME_ID)
        time.thread_time()
        os.sched_yield()
        ep = select.epoll()
        ep.close()
        r, w = os.pipe()
        os.write(w, b"x")
        select.poll().poll(0)
        os.read(r, 1)
        os.close(r)
        os.close(w)
        signal.pthread_kill(threading.get_ident(), 0)
        signal.getitimer(signal.ITIMER_REAL)
        os.waitid(os.P_ALL, 0, os.WEXITED | os.WNOHANG) if hasattr(os, "waitid") else None


def agent_main(problem: dict[str, Any]) -> dict[str, Any]:
    errors: dict[str, str] = {}
    _packages(errors, problem)
    _stdlib(errors)
    _services(errors)
    _system(errors)
    _os_calls(errors)
    return {"steps": STEPS, "errors": errors}
