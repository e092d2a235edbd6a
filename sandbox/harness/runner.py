"""Runs the agent (a child of the harness, inside the sandbox): import ``agent.py``, call ``agent_main(problem)``,
write the outcome as JSON to the harness's result pipe. Standard library only.

Two contracts, told apart by what the agent does, never by a flag: ours (``agent_main`` returns a JSON dict or None)
and subnet 15's (the agent imports ``src.agent.*`` and returns its dialogue steps, a list). Of a step list only its
size and the parameters of its last ``recommend_product`` call leave this process: the harness hands that call to
the gateway, whose log is the trajectory. A subnet-15 agent that returns anything but a step list is a bad return."""

from __future__ import annotations

import _signal  # type: ignore[import-not-found]  # signal's C half: signal itself imports enum (ms at every start)
import importlib.util  # here, as the process is forked: loaded while the harness reads the run's input
import io
import marshal
import os
import site
import sys

TYPE_CHECKING = False  # typing is for mypy only (mypy takes this name as true)
if TYPE_CHECKING:
    from collections.abc import Callable

MAX_RETURN = 64 * 1024


def main() -> None:
    agent_dir = sys.argv[1]
    result_fd = int(os.environ.pop("ARENA_RESULT_FD"))
    result = os.fdopen(result_fd, "w")

    def finish(outcome: dict) -> None:
        import json  # not before the agent's own code: its import (with re and enum) is 5 ms

        result.write(json.dumps(outcome))
        result.flush()
        result.close()

    problem = marshal.loads(sys.stdin.buffer.read())  # the problem's JSON text is PROBLEM_DATA, set by the harness
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
        if _arity(entry) != 1:
            raise ImportError("agent_main must take exactly one argument (the problem)")
    except BaseException as exc:  # noqa: BLE001 - any failure to load is the agent's
        finish({"status": "import_failed", "error": _describe(exc)})
        return
    sn15 = any(name == "src.agent" or name.startswith("src.agent.") for name in sys.modules)
    try:
        value = entry(problem)
    except BaseException as exc:  # noqa: BLE001
        finish({"status": "raised", "error": _describe(exc)})
        return
    if isinstance(value, list):
        finish(steps_outcome(value))
        return
    if sn15:
        finish(
            {
                "status": "bad_return",
                "error": f"agent_main returned {_kind(value)}: an SN15 agent (it imports "
                "src.agent.*) returns its dialogue steps, a list of "
                "create_dialogue_step(...) dicts",
            }
        )
        return
    if value is not None and not isinstance(value, dict):
        finish(
            {
                "status": "bad_return",
                "error": f"agent_main returned {_kind(value)}, not a dict or None (or, as an "
                "SN15 agent, a list of dialogue steps)",
            }
        )
        return
    import json

    try:
        text = json.dumps(value)
    except (TypeError, ValueError, RecursionError) as exc:
        finish({"status": "bad_return", "error": f"agent_main returned a dict that is not JSON: {exc}"})
        return
    if len(text) > MAX_RETURN:
        finish({"status": "bad_return", "error": f"agent_main returned {len(text)} bytes (limit {MAX_RETURN})"})
        return
    finish({"status": "ok", "return": value})


def steps_outcome(steps: list) -> dict:
    """The outcome of an SN15 agent's step list: its size and the parameters of its last ``recommend_product`` call
    (None when it made none), or a bad return naming the first item that is not a dialogue step."""
    recommend = None
    for number, step in enumerate(steps, start=1):
        completion = step.get("completion") if isinstance(step, dict) else None
        message = completion.get("message") if isinstance(completion, dict) else None
        if not isinstance(message, dict):
            return {
                "status": "bad_return",
                "error": f"agent_main returned a list whose item {number} is not a dialogue step "
                "({'completion': {'message': {...}}}, as create_dialogue_step makes; "
                f"got {_kind(step)})",
            }
        calls = message.get("tool_call") or []
        if not isinstance(calls, list):
            return {
                "status": "bad_return",
                "error": f"dialogue step {number}: completion.message.tool_call is "
                f"{_kind(calls)}, not a list of tool calls",
            }
        for call in calls:
            if isinstance(call, dict) and call.get("name") == "recommend_product":
                recommend = call.get("parameters", {})
    import json

    try:
        size = len(json.dumps(recommend))
    except (TypeError, ValueError):
        return {"status": "bad_return", "error": "the parameters of the last recommend_product step are not JSON"}
    if size > MAX_RETURN:
        return {
            "status": "bad_return",
            "error": f"the last recommend_product step's parameters are {size} bytes (limit {MAX_RETURN})",
        }
    return {"status": "ok", "return": None, "steps": {"count": len(steps), "recommend": recommend}}


def _arity(entry: Callable[..., object]) -> int:
    """How many arguments ``entry`` takes: a plain function's from its code object (``inspect`` is a large import,
    paid at every sandbox's start), anything else by ``inspect.signature``."""
    code = getattr(entry, "__code__", None) if type(entry) is type(_arity) else None  # a plain function only
    defaults = getattr(entry, "__defaults__", None) or getattr(entry, "__kwdefaults__", None)
    if code is not None and not defaults and not code.co_flags & 0x0C and code.co_kwonlyargcount == 0:
        return int(code.co_argcount)  # no defaults, no *args, **kwargs or keyword-only arguments
    import inspect

    return len(inspect.signature(entry).parameters)


def _kind(value: object) -> str:
    return "None" if value is None else f"a {type(value).__name__}"


def _describe(exc: BaseException) -> str:
    """The error's own line first (what `arena-miner test` and the run page show), then the traceback's tail."""
    import traceback

    lines = traceback.format_exception(type(exc), exc, exc.__traceback__)
    head = traceback.format_exception_only(type(exc), exc)[-1].strip()
    if isinstance(exc, ModuleNotFoundError) and exc.name:
        missing = exc.name if exc.name.startswith("src.") else exc.name.split(".")[0]
        head += (
            f" (the sandbox does not provide {missing!r}: agents get the standard library, "
            "arena_agent, src.agent.agent_interface, src.agent.proxy_client, openai, httpx, requests, pydantic "
            "and numpy)"
        )
    text = "".join(lines[-6:])
    return (head + "\n" + text[-4000:])[:4500]


def forked(setup_fd: int, result_fd: int) -> None:
    """The agent's process forked from the harness (`spawn.AgentProcess`): its setup (environment, agent folder),
    then the agent, set up as a Python of its own would be: the environment, the agent's and the SDK's folders
    first on the path and the harness's gone from it (`_own_path`), site-packages, unbuffered output, no bytecode
    written. Site-packages (``site``: the harness starts without it, -S) are set up while the process waits for its
    setup, which they need nothing of."""
    _signal.signal(_signal.SIGINT, _signal.default_int_handler)  # the harness (`start`) set it to its default
    site.main()  # the same path as after: site-packages go last, the agent's and the SDK's folders first (below)
    with os.fdopen(setup_fd, "rb") as source:
        setup = marshal.loads(source.read())
    env = {**setup["env"], "ARENA_RESULT_FD": str(result_fd)}
    os.environ.clear()
    os.environ.update(env)
    if os.path.isdir("/tmp"):
        os.chdir("/tmp")
    _own_path(env["PYTHONPATH"].split(os.pathsep))
    sys.dont_write_bytecode = True
    sys.stdout = io.TextIOWrapper(io.FileIO(1, "w", closefd=False), write_through=True)
    sys.stderr = io.TextIOWrapper(io.FileIO(2, "w", closefd=False), errors="backslashreplace", write_through=True)
    sys.argv = [os.path.abspath(__file__), setup["agent_dir"]]
    main()
    sys.stdout.flush()


def _own_path(folders: list[str]) -> None:
    """``folders`` (the agent's and the SDK's) first on the path, in place of the harness's folder, and the harness's
    modules (``harness``, ``spawn``, ``runner``: imported in this process) out of ``sys.modules``: an agent's own
    ``runner.py`` or ``harness.py`` is what its ``import runner`` finds (docs/miner.md). This process still runs
    them: their functions keep their globals."""
    here = os.path.dirname(os.path.abspath(__file__))
    sys.path[:] = folders + [entry for entry in sys.path if os.path.abspath(entry or ".") != here]
    for name, module in list(sys.modules.items()):
        path = getattr(module, "__file__", None)
        if name != "__main__" and path and os.path.dirname(os.path.abspath(path)) == here:
            del sys.modules[name]
