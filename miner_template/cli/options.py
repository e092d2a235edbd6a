"""`arena-miner test`'s options checked before any work: one line and exit 2 for what cannot work."""

from __future__ import annotations

from pathlib import Path

from arena.cliutil import check_writable, fail
from miner_template.cli.app import MAX_DEFAULT_PROBLEMS


def check_test_options(
    n: int,
    timeout: float,
    problems_path: Path | None,
    catalog_dir: Path | None,
    json_out: Path | None,
    out_dir: Path,
    k: int = 1,
) -> None:
    """One line and exit 2 for options that cannot work together, before any work."""
    if n < 1:
        fail(f"--n must be at least 1, got {n}")
    if k < 1:
        fail(f"--k must be at least 1, got {k}")
    if timeout <= 0:
        fail(f"--timeout must be positive, got {timeout}")
    if (problems_path is None) != (catalog_dir is None):
        fail("--problems and --catalog go together (the pack's catalog); give both or neither")
    if problems_path is None and n > MAX_DEFAULT_PROBLEMS:  # the built-in pack is made, then run, problem by problem
        fail(
            f"--n {n:,}: the built-in public pack holds at most {MAX_DEFAULT_PROBLEMS:,} problems; for more, give "
            "your own pack and its catalog (--problems, --catalog)"
        )
    if json_out is not None and json_out.is_dir():
        fail(f"--json {json_out} is a folder; give a file name inside it")
    if json_out is not None and not json_out.parent.is_dir():
        fail(f"--json: folder {json_out.parent} does not exist; create it first")
    if out_dir.exists() and not out_dir.is_dir():
        fail(f"--out {out_dir} is a file; give a folder for the trajectories and reports")
    check_writable(out_dir, "--out (the trajectories and reports; default var/miner-test/ here)")
    if json_out is not None:
        check_writable(json_out.parent, "--json")


def check_llm_options(base_url: str | None, models: list[str]) -> None:
    """--llm-base-url and --model go together; one line naming the missing half."""
    if base_url and not models:
        fail("--llm-base-url needs --model M: the model the agent is told to use at that endpoint")
    if models and not base_url:
        fail("--model needs --llm-base-url URL: the OpenAI-compatible endpoint that serves the model")
    if base_url and not base_url.startswith(("http://", "https://")):
        fail(f"--llm-base-url {base_url!r} is not an http:// or https:// URL")
