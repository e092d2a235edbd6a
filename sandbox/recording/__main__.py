"""Record the system calls an agent's sandbox makes, to write the allowlist (``sandbox/seccomp/syscalls.txt``).

    python -m sandbox.recording [--out sandbox/seccomp/syscalls.txt] [--problems 4]

Root only (strace follows the sandbox from outside). Builds a small catalog and runs, in the bubblewrap sandbox
without its filter and under ``strace -f``: the workload agent (`sandbox.recording.workload`: the five allowed packages,
the SDK and the standard library's services) and the three miner templates (offline, LLM, SN15) on a few generated
problems. Of the trace it keeps the calls made by the sandbox's Python, from its ``execve`` on, and by every process
it started; the file is rewritten sorted, one call a line (the harness's, the SDK's, CPython's and the packages').
A call the sandbox needs only in one form gets its argument rule in `sandbox.seccomp`, never in the list.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import shutil
import sys
import tempfile
from pathlib import Path

from sandbox.backends import Limits, SandboxSpec
from sandbox.backends.process import ProcessSandbox

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
LINE = re.compile(r"^(\d+)\s+(?:<\.\.\. (\w+) resumed>|(\w+)\()")
EXEC = re.compile(r'^(\d+)\s+execve\("/opt/agent/bin/python')


class TracedSandbox(ProcessSandbox):
    """The bubblewrap sandbox, unfiltered, under ``strace -f`` (each run's trace in ``traces``)."""

    def __init__(self, traces: Path) -> None:
        super().__init__("bwrap", seccomp=False)
        self.traces = traces

    def _command(self, spec: SandboxSpec, seccomp_fd: int | None = None) -> list[str]:
        trace = self.traces / f"{spec.run_id}.strace"
        return ["strace", "-f", "-qq", "-o", str(trace), *super()._command(spec, seccomp_fd)]


def sandbox_calls(trace: str) -> set[str]:
    """The system calls of the sandboxed Python in one ``strace -f`` trace: from the first ``execve`` of the
    agents' Python on, in that process and every process first seen after it (clone's return values are pids of
    the sandbox's namespace, strace's prefixes the host's: a process is told by when it first shows), never in
    bubblewrap's own processes."""
    lines = trace.splitlines()
    start = next((n for n, line in enumerate(lines) if EXEC.match(line)), None)
    if start is None:
        raise SystemExit("the trace holds no execve of the agents' Python: did the sandbox start?")
    before = {int(found[1]) for line in lines[:start] if (found := LINE.match(line))}
    before.discard(int(LINE.match(lines[start])[1]))  # type: ignore[index]
    calls = set()
    for line in lines[start:]:
        found = LINE.match(line)
        if found and int(found[1]) not in before:
            calls.add(found[2] or found[3])
    return calls


def _agents(work: Path) -> list[Path]:
    from sandbox.bundle import pack_dir, unpack

    workload = work / "src-workload"
    workload.mkdir()
    shutil.copy(HERE / "workload.py", workload / "agent.py")
    sources = [workload] + [ROOT / "miner_template" / name for name in ("offline", "llm", "sn15")]
    return [unpack(pack_dir(src).data, work / f"agent-{i}") for i, src in enumerate(sources)]


async def _record(work: Path, problems: int) -> tuple[set[str], list[str]]:
    from arena.catalog import Catalog
    from arena.catalog.build import build_catalog
    from arena.tasks import family
    from sandbox.gateway import Gateway, GatewayServer
    from sandbox.run import run_one

    build_catalog(0, 2_000, work / "catalog")
    catalog = Catalog.open(work / "catalog")
    fam = family("shoppingbench")
    made = list(fam.generate(catalog, problems, tasks=fam.tasks, seed=0).problems)
    traces = work / "traces"
    traces.mkdir()
    sandbox, gateway, calls, notes = TracedSandbox(traces), Gateway(catalog), set(), []
    with GatewayServer(gateway, work / "gw" / "gateway.sock"):
        for i, agent in enumerate(_agents(work)):
            for j, problem in enumerate(made if i else made[:1]):
                run_id = f"rec-{i}-{j}"
                out = await run_one(
                    gateway, sandbox, agent, work / "gw", problem, limits=Limits(wall_seconds=120), run_id=run_id
                )
                notes.append(f"{agent.name} {problem.problem_id}: {out.result.status} {out.result.returned or ''}")
                calls |= sandbox_calls((traces / f"{run_id}.strace").read_text(errors="replace"))
    return calls, notes


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "--out", type=Path, default=ROOT / "sandbox" / "seccomp" / "syscalls.txt", help="the list to write"
    )
    parser.add_argument("--problems", type=int, default=4, help="problems per template (default 4)")
    args = parser.parse_args(argv)
    if os.geteuid() != 0 or shutil.which("strace") is None:
        print("error: recording needs root and strace (apt-get install -y strace)", file=sys.stderr)
        return 2
    work = Path(tempfile.mkdtemp(prefix="seccomp-record-"))
    os.chmod(work, 0o711)
    try:
        print(f"recording in {work} ...", file=sys.stderr)
        calls, notes = asyncio.run(_record(work, args.problems))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    for note in notes:
        print(note[:300], file=sys.stderr)
    head = "# recorded by `python -m sandbox.recording`: the calls the sandbox's Python makes (one a line)\n"
    args.out.write_text(head + "".join(f"{name}\n" for name in sorted(calls)))
    print(f"{len(calls)} system calls written to {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
