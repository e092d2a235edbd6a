"""The sandbox's first process: ``python -I -S start.py`` says it is ready (`sandbox.backends.HARNESS_READY`: the
process sandbox places it in the run's cgroups meanwhile, and the first move waits for the kernel), then imports the
harness (`harness`), so it runs from the bytecode staged beside it; a script named on the command line is compiled at
every start (standard library only).

The harness is pid 1 of its sandbox (both backends), and the kernel drops a signal at its default action sent to pid 1
by a process of its own namespace: SIGINT is set back to its default first (Python's own handler would let an agent's
``os.kill(1, SIGINT)`` end the harness with no report, a fault of the node's; docs/architecture.md, "Blame"). The
agent's process gets Python's handler back (`runner.forked`). gVisor's kernel does not shield pid 1 so: there the
agent's process runs as a uid of its own, which may not signal the harness at all (`spawn.fork_agent`)."""

import _signal  # type: ignore[import-not-found]  # signal's C half: signal itself imports enum (ms at every start)
import os
import sys

_signal.signal(_signal.SIGINT, _signal.SIG_DFL)  # before the ready line: no agent code runs before it
os.write(1, b"ready\n")  # the harness's import and the agent's fork run in the cgroups' wait (`harness.READY`)
sys.path.insert(0, __file__.rpartition("/")[0])  # -I: the harness's folder is not on the path by itself
import harness  # type: ignore[import-not-found]  # noqa: E402  (the harness's folder, as it runs)

sys.exit(harness.main())
