"""The sandbox's first process: ``python -I -S start.py`` imports the harness (`harness`), so it runs from the
bytecode staged beside it; a script named on the command line is compiled at every start (standard library only)."""

import sys

sys.path.insert(0, __file__.rpartition("/")[0])  # -I: the harness's folder is not on the path by itself
import harness  # type: ignore[import-not-found]  # noqa: E402  (the harness's folder, as it runs)

sys.exit(harness.main())
