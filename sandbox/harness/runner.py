"""Runs the agent (a child of the harness, inside the sandbox): import ``agent.py``, call ``agent_main(problem)``,
write the outcome as JSON to the harness's result pipe. Standard library only."""

from __future__ import annotations

import importlib.util
import inspect
import json
import os
import sys
import traceback

MAX_RETURN = 64 * 1024


def main() -> None:
    agent_dir = sys.argv[1]
    result = os.fdopen(int(os.environ.pop("ARENA_RESULT_FD")), "w")

    def finish(outcome: dict) -> None:
        result.write(json.dumps(outcome))
        result.flush()
        result.close()

    problem = json.loads(sys.stdin.read())
    sys.stdin = open(os.devnull)  # noqa: SIM115 - the agent gets no stdin
    try:
        spec = importlib.util.spec_from_file_location("agent", os.path.join(agent_dir, "agent.py"))
        if spec is None or spec.loader is None:
            raise ImportError("agent.py not found")
        module = importlib.util.module_from_spec(spec)
        sys.modules["agent"] = module
        spec.loader.exec_module(module)
        entry = getattr(module, "agent_main", None)
        if not callable(entry):
            raise ImportError("agent.py defines no callable agent_main")
        if len(inspect.signature(entry).parameters) != 1:
            raise ImportError("agent_main must take exactly one argument (the problem)")
    except BaseException as exc:  # noqa: BLE001 - any failure to load is the agent's
        finish({"status": "import_failed", "error": _describe(exc)})
        return
    try:
        value = entry(problem)
    except BaseException as exc:  # noqa: BLE001
        finish({"status": "raised", "error": _describe(exc)})
        return
    if value is not None and not isinstance(value, dict):
        finish({"status": "bad_return", "error": f"agent_main returned {type(value).__name__}, not a dict or None"})
        return
    try:
        text = json.dumps(value)
    except (TypeError, ValueError) as exc:
        finish({"status": "bad_return", "error": f"agent_main returned a dict that is not JSON: {exc}"})
        return
    if len(text) > MAX_RETURN:
        finish({"status": "bad_return", "error": f"agent_main returned {len(text)} bytes (limit {MAX_RETURN})"})
        return
    finish({"status": "ok", "return": value})


def _describe(exc: BaseException) -> str:
    lines = traceback.format_exception(type(exc), exc, exc.__traceback__)
    text = "".join(lines[-6:])
    return text[-4000:]


if __name__ == "__main__":
    main()
    sys.stdout.flush()
    os._exit(0)  # no lingering non-daemon threads keep a finished agent alive
