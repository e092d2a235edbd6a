"""The seccomp allowlist (`sandbox.seccomp`): one list of rules, compiled by libseccomp for bubblewrap and written as
Docker's JSON profile, the same calls in both; what it allows is what was recorded, and what it kills is never
allowed."""

from __future__ import annotations

import errno
import json

from sandbox import seccomp


def _profile() -> dict:
    return json.loads(seccomp.docker_profile())


def test_docker_gets_the_same_rules_the_bubblewrap_filter_is_compiled_from():
    profile = _profile()
    assert profile["defaultAction"] == "SCMP_ACT_ERRNO" and profile["defaultErrnoRet"] == errno.EPERM
    from_json = sorted(
        (e["names"][0], e["action"], tuple((a["index"], a["op"], a["value"]) for a in e.get("args", [])))
        for e in profile["syscalls"]
    )
    actions = {"allow": "SCMP_ACT_ALLOW", "errno": "SCMP_ACT_ERRNO", "kill": "SCMP_ACT_KILL_PROCESS"}
    ops = {"eq": "SCMP_CMP_EQ", "masked_eq": "SCMP_CMP_MASKED_EQ"}
    from_rules = sorted(
        (r.name, actions[r.action], () if r.arg is None else ((r.arg, ops[r.op], r.value),)) for r in seccomp.rules()
    )
    assert from_json == from_rules
    assert len(seccomp.bpf()) % 8 == 0 and len(seccomp.bpf()) > 8 * len(seccomp.recorded())  # 8 bytes a BPF step


def test_what_is_allowed_is_what_was_recorded_and_nothing_it_kills_for():
    allowed = {r.name for r in seccomp.rules() if r.action == "allow"}
    assert set(seccomp.recorded()) - set(seccomp.CONDITIONAL) <= allowed
    assert allowed - set(seccomp.recorded()) - set(seccomp.CONDITIONAL) <= set(seccomp.RARE) | set(seccomp.RUNTIME)
    assert not allowed & set(seccomp.KILL)
    for never in ("unshare", "setns", "mount", "pivot_root", "chroot", "init_module", "bpf", "io_uring_setup"):
        assert never not in allowed or never in seccomp.CONDITIONAL, never
    killed = {r.name for r in seccomp.rules() if r.action == "kill"}
    assert killed == set(seccomp.KILL) and set(seccomp.killed()) == killed


def test_clone_is_allowed_without_namespace_flags_only():
    (clone,) = [r for r in seccomp.rules() if r.name == "clone"]
    assert clone.op == "masked_eq" and clone.arg == 0
    new_user, new_ns, new_net, new_pid = 0x10000000, 0x20000, 0x40000000, 0x20000000
    thread_flags = 0x3D0F00  # what the C library passes for a thread: VM, FS, FILES, SIGHAND, THREAD, SYSVSEM, ...
    assert all(flag & clone.value for flag in (new_user, new_ns, new_net, new_pid))
    assert not thread_flags & clone.value
    (clone3,) = [r for r in seccomp.rules() if r.name == "clone3"]
    assert clone3.action == "errno" and clone3.errno == errno.ENOSYS  # the C library falls back to clone


def test_prlimit_is_allowed_on_the_calling_process_only():
    # pid 0 is the caller (the C library's getrlimit and setrlimit); another pid, the harness's above all, is EPERM
    (prlimit,) = [r for r in seccomp.rules() if r.name == "prlimit64"]
    assert (prlimit.action, prlimit.arg, prlimit.op, prlimit.value) == ("allow", 0, "eq", 0)
