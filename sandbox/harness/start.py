"""The sandbox's first process: ``python -I -S start.py`` says it is ready (`sandbox.backends.HARNESS_READY`: the
process sandbox places it in the run's cgroups meanwhile, and the first move waits for the kernel), then imports the
harness (`harness`), so it runs from the bytecode staged beside it; a script named on the command line is compiled at
every start (standard library only)."""

import os
import sys

os.write(1, b"ready\n")  # the harness's import and the agent's fork run in the cgroups' wait (`harness.READY`)
sys.path.insert(0, __file__.rpartition("/")[0])  # -I: the harness's folder is not on the path by itself
import harness  # type: ignore[import-not-found]  # noqa: E402  (the harness's folder, as it runs)

sys.exit(harness.main())
