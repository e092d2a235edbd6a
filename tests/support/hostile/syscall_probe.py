"""A hostile agent that tries 16 system calls a shopping agent has no use for, each in a child process of its own
(a call the sandbox kills for ends only that child), and returns what became of each: ``reached`` (the kernel ran
it: success or an error of the kernel's own), ``denied`` (EPERM: the arguments are chosen so that the kernel itself
answers otherwise: a bad pointer, a bad descriptor, a harmless form) or ``trapped`` (the child was ended by SIGSYS).
personality's query form is harmless and allowed: at most 1 of the 16 reaches the kernel in a sandbox."""

import ctypes
import os
import signal

CLONE_NEWUSER, SIGCHLD = 0x10000000, 17
BAD = 1  # an address no process maps: a call that reads it fails with EFAULT once it reaches the kernel
CALLS = {  # name: (x86_64 number, arguments)
    "ptrace": (101, (0, 0, 0, 0)),  # PTRACE_TRACEME
    "keyctl": (250, (0, -3, 0)),  # KEYCTL_GET_KEYRING_ID of the session keyring
    "add_key": (248, (BAD, BAD, 0, 0, -3)),
    "bpf": (321, (-1, 0, 0)),
    "perf_event_open": (298, (BAD, 0, -1, -1, 0)),
    "userfaultfd": (323, (1,)),  # UFFD_USER_MODE_ONLY
    "io_uring_setup": (425, (1, BAD)),
    "unshare": (272, (CLONE_NEWUSER,)),
    "mount": (165, (0, 0, BAD, 0, 0)),
    "setns": (308, (-1, 0)),
    "process_vm_readv": (310, ("self", 0, 0, 0, 0, 0)),
    "clock_settime": (227, (0, BAD)),
    "kexec_file_load": (320, (-1, -1, 0, BAD, 1 << 30)),
    "init_module": (175, (BAD, 16, BAD)),
    "personality": (135, (0xFFFFFFFF,)),  # the query form
    "clone": (56, (CLONE_NEWUSER | SIGCHLD, 0, 0, 0, 0)),
}


def _try(number, args):
    """In a forked child: the call, then exit 0 (it ran) or its errno."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    args = [os.getppid() if a == "self" else a for a in args]
    result = libc.syscall(ctypes.c_long(number), *(ctypes.c_long(a) for a in args))
    if result == 0 and number == 56:
        os._exit(0)  # clone's new process
    os._exit(0 if result >= 0 else min(ctypes.get_errno(), 255) or 255)


def probe():
    seen = {}
    for name, (number, args) in CALLS.items():
        pid = os.fork()
        if pid == 0:
            try:
                _try(number, args)
            finally:
                os._exit(254)
        _, status = os.waitpid(pid, 0)
        if os.WIFSIGNALED(status):
            seen[name] = "trapped" if os.WTERMSIG(status) == signal.SIGSYS else f"signal {os.WTERMSIG(status)}"
        else:
            code = os.WEXITSTATUS(status)
            seen[name] = "denied" if code == 1 else f"reached ({'ok' if code == 0 else os.strerror(code)})"
    return seen


def agent_main(problem):
    seen = probe()
    return {"calls": seen, "reached": sorted(n for n, s in seen.items() if s.startswith("reached"))}


if __name__ == "__main__":
    import json

    print(json.dumps(agent_main({}), indent=1))
