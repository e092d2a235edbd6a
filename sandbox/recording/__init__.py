"""Recording the system calls a sandbox's Python makes (``python -m sandbox.recording``), to write the seccomp
allowlist's list (`sandbox.seccomp`); the workload agent it runs (`sandbox.recording.workload`)."""
