"""The sandboxes' second wall: one seccomp allowlist, compiled by libseccomp for bubblewrap and written as a JSON
profile for Docker, from the same rules (docs/validator.md, "Sandboxes").

The allowlist is the system calls the sandbox's Python really makes (``syscalls.txt``, recorded with strace by
``python -m sandbox.recording``: the harness, the SDK, CPython and the five allowed packages at work), plus the
few that only rare paths make (`RARE`). Every other call fails with EPERM: the agent sees an error and goes on. Four
calls are allowed in one form only: ``clone`` without a namespace flag (threads and forks, never a new user or mount
namespace), ``socket`` of the unix, IPv4 and IPv6 families, ``personality``'s query form, and ``prlimit64`` on the
calling process (pid 0, as the C library's getrlimit and setrlimit make it: the agent shares its uid with the harness,
whose limits are not its to set). ``clone3`` fails with ENOSYS (its flags sit in memory a filter cannot read; the C
library then falls back to ``clone``).

`KILL`: the calls that only attack the kernel (io_uring, eBPF, userfaultfd, perf events, the key rings, kernel
modules and kexec, another process's memory or tracing): no agent needs them, and they are where most recent kernel
privilege escalations began. They kill the process that makes one (libseccomp's ``KILL_PROCESS``): the call never
runs and the kernel ends the whole process by SIGSYS, which no signal handler of the agent's can catch; the harness
sees its agent end so and the run ends ``syscall_denied`` (1010, the agent's), the error naming these calls.
"""

from __future__ import annotations

import errno
import functools
import os
from dataclasses import dataclass
from pathlib import Path

SYSCALLS_FILE = Path(__file__).resolve().parent / "syscalls.txt"

#: namespace flags of clone(2): CLONE_NEWTIME, NEWNS, NEWCGROUP, NEWUTS, NEWIPC, NEWUSER, NEWPID, NEWNET
CLONE_NAMESPACES = 0x80 | 0x20000 | 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000 | 0x20000000 | 0x40000000
#: socket(2) families an agent may open: AF_UNIX, AF_INET, AF_INET6 (the gateway's door and the sandbox's loopback)
SOCKET_FAMILIES = (1, 2, 10)
#: personality(2)'s query form (0xffffffff: read the persona, change nothing)
PERSONALITY_QUERY = 0xFFFFFFFF
#: calls only rare paths make (a signal handler's return, a restarted sleep, a thread's own exit), allowed though a
#: recording may miss them
RARE = (
    "exit", "exit_group", "restart_syscall", "rt_sigreturn", "sched_yield", "tgkill", "kill", "nanosleep", "mremap",
    "waitid", "getitimer",
)  # fmt: skip
#: calls Docker's runtime (runc) makes between loading the filter and starting the harness: runc's check that
#: /proc/self/fd is on procfs, and the Go runtime's own
RUNTIME = ("fstatfs",)
KILL = (
    "io_uring_setup", "io_uring_enter", "io_uring_register", "bpf", "userfaultfd", "perf_event_open",
    "keyctl", "add_key", "request_key", "init_module", "finit_module", "delete_module", "kexec_load",
    "kexec_file_load", "ptrace", "process_vm_readv", "process_vm_writev",
)  # fmt: skip
#: calls allowed in one form only (their argument rules below), never by name alone
CONDITIONAL = ("clone", "clone3", "socket", "personality", "prlimit64")


class ProfileError(RuntimeError):
    """The seccomp profile cannot be built or loaded here: the message (one line) says why."""


@dataclass(frozen=True)
class Rule:
    """One rule: ``action`` (allow, errno, kill) for ``name`` when argument ``arg`` (if any) compares true:
    ``op`` is ``eq`` (equals ``value``) or ``masked_eq`` (``arg & value == 0``)."""

    name: str
    action: str
    errno: int = 0
    arg: int | None = None
    op: str = "eq"
    value: int = 0


def recorded() -> list[str]:
    """The recorded calls (``syscalls.txt``, comments and blank lines skipped)."""
    try:
        lines = SYSCALLS_FILE.read_text().splitlines()
    except OSError as exc:
        raise ProfileError(f"the recorded system calls are missing: {exc}") from None
    return [line.strip() for line in lines if line.strip() and not line.startswith("#")]


def rules() -> list[Rule]:
    """The one allowlist both sandboxes apply (default: EPERM)."""
    names = sorted((set(recorded()) | set(RARE) | set(RUNTIME)) - set(CONDITIONAL))
    bad = sorted(set(names) & set(KILL))
    if bad:
        raise ProfileError(f"syscalls.txt allows calls the sandbox kills for: {', '.join(bad)}")
    out = [Rule(name, "allow") for name in names]
    out.append(Rule("clone", "allow", arg=0, op="masked_eq", value=CLONE_NAMESPACES))
    out.append(Rule("clone3", "errno", errno=errno.ENOSYS))
    out += [Rule("socket", "allow", arg=0, value=family) for family in SOCKET_FAMILIES]
    out.append(Rule("personality", "allow", arg=0, value=PERSONALITY_QUERY))
    out.append(Rule("prlimit64", "allow", arg=0, value=0))  # pid 0: the caller's own limits, never the harness's
    out += [Rule(name, "kill") for name in KILL]
    return out


def _filter():  # noqa: ANN202 - pyseccomp's SyscallFilter
    import pyseccomp as sc

    actions = {"allow": lambda r: sc.ALLOW, "errno": lambda r: sc.ERRNO(r.errno), "kill": lambda r: sc.KILL_PROCESS}
    flt = sc.SyscallFilter(sc.ERRNO(errno.EPERM))
    for rule in rules():
        if sc.resolve_syscall(sc.Arch.NATIVE, rule.name) < 0:
            raise ProfileError(f"libseccomp knows no system call {rule.name!r} (sandbox/seccomp/syscalls.txt)")
        conditions = []
        if rule.arg is not None:  # masked_eq: (arg & value) == 0; eq: arg == value
            op = sc.MASKED_EQ if rule.op == "masked_eq" else sc.EQ
            conditions.append(sc.Arg(rule.arg, op, rule.value, 0))
        try:
            flt.add_rule(actions[rule.action](rule), rule.name, *conditions)
        except OSError as exc:
            raise ProfileError(f"libseccomp refuses the rule for {rule.name}: {exc}") from None
    return flt


@functools.cache
def bpf() -> bytes:
    """The allowlist compiled by libseccomp into a classic BPF program (what ``bwrap --seccomp`` reads); cached.
    `ProfileError` when libseccomp is missing or refuses a rule."""
    try:
        flt = _filter()
        read, write = os.pipe()
        with os.fdopen(write, "wb") as sink:
            flt.export_bpf(sink)
        with os.fdopen(read, "rb") as source:
            return source.read()
    except ProfileError:
        raise
    except Exception as exc:  # noqa: BLE001 - libseccomp missing, a name it does not know, a rule it refuses
        raise ProfileError(f"the seccomp profile does not build: {type(exc).__name__}: {exc}"[:300]) from None


@functools.cache
def killed() -> list[str]:
    """The calls the filter kills the process for (`KILL`) that this machine has, by name: the harness names them
    when SIGSYS ended its agent (the kernel ends the process without saying which call it made)."""
    import pyseccomp as sc

    return sorted(name for name in KILL if sc.resolve_syscall(sc.Arch.NATIVE, name) >= 0)


def bpf_fd() -> int:
    """A fresh file descriptor holding the compiled profile at offset 0 (bubblewrap reads it once and closes it)."""
    fd = os.memfd_create("shoparena-seccomp", os.MFD_CLOEXEC)
    os.write(fd, bpf())
    os.lseek(fd, 0, os.SEEK_SET)
    return fd


@functools.cache
def check_loads() -> None:
    """The profile builds and the kernel loads it under bubblewrap (a process that does nothing, in a few ms);
    `ProfileError` (one line) when not."""
    import subprocess

    fd = bpf_fd()
    usr = ["--ro-bind", "/usr", "/usr", "--symlink", "usr/lib", "/lib", "--symlink", "usr/lib64", "/lib64"]
    try:
        done = subprocess.run(
            ["bwrap", *usr, "--seccomp", str(fd), "/usr/bin/true"],
            pass_fds=(fd,),
            capture_output=True,
            text=True,
            timeout=30,
        )
    except (OSError, subprocess.SubprocessError) as exc:
        raise ProfileError(f"the seccomp profile could not be tried under bubblewrap: {exc}") from None
    finally:
        os.close(fd)
    if done.returncode != 0:
        reason = (done.stderr.strip().splitlines() or [f"exit {done.returncode}"])[-1]
        raise ProfileError(f"the seccomp profile does not load under bubblewrap ({reason})")


@functools.cache
def docker_profile() -> str:
    """The same allowlist as Docker's JSON seccomp profile (``security_opt=["seccomp=<json>"]``)."""
    import json

    actions = {"allow": "SCMP_ACT_ALLOW", "errno": "SCMP_ACT_ERRNO", "kill": "SCMP_ACT_KILL_PROCESS"}
    entries: list[dict[str, object]] = []
    for rule in rules():
        entry: dict[str, object] = {"names": [rule.name], "action": actions[rule.action]}
        if rule.action == "errno":
            entry["errnoRet"] = rule.errno
        if rule.arg is not None:
            op = "SCMP_CMP_MASKED_EQ" if rule.op == "masked_eq" else "SCMP_CMP_EQ"
            entry["args"] = [{"index": rule.arg, "value": rule.value, "valueTwo": 0, "op": op}]
        entries.append(entry)
    profile = {
        "defaultAction": "SCMP_ACT_ERRNO",
        "defaultErrnoRet": errno.EPERM,
        "architectures": ["SCMP_ARCH_X86_64"],
        "syscalls": entries,
    }
    return json.dumps(profile, separators=(",", ":"))
