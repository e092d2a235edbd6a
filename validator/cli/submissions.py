"""`arena-validator submissions`: compare two agents as the copy check does."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Annotated

import typer

from arena.clihelp import App
from arena.cliutil import fail, out
from arena.copies import COPY_THRESHOLD

submissions_app = App(no_args_is_help=True, help="Submissions: the copy check, as the node runs it.")


@submissions_app.command("compare")
def compare_cmd(
    earlier: Annotated[Path, typer.Argument(help="The earlier agent: a bundle folder, agent.py, or bundle .tar.gz.")],
    later: Annotated[Path, typer.Argument(help="The later agent, likewise.")],
    json_file: Annotated[
        Path | None, typer.Option("--json", help="Also write the verdict and its evidence to this JSON file.")
    ] = None,
    threshold: Annotated[
        float, typer.Option("--similarity", min=0.01, max=1.0, help="The node's --copies.similarity.")
    ] = COPY_THRESHOLD,
) -> None:
    """Whether LATER would be judged a copy of EARLIER, and the evidence.

    A copy is a later agent whose code is similar to the earlier one's at the threshold or above (token fingerprints,
    docs/validator.md "Copies"): it earns only if it beats the earlier one beyond noise. --json writes {copy,
    similarity, threshold, earlier, later, fingerprints, notes}; notes say what of a bundle could not be read."""
    from validator.submissions.similarity import compare, fingerprint_path

    for path in (earlier, later):
        if not path.exists():
            fail(f"{path}: no such file or folder; give an agent folder, its agent.py or a bundle .tar.gz")
    verdict = compare(
        fingerprint_path(earlier), fingerprint_path(later), names=(str(earlier), str(later)), threshold=threshold
    )
    sizes = f"fingerprints {verdict.fingerprints[0]} / {verdict.fingerprints[1]}"
    if verdict.copy_:
        out.print(
            f"copy: {later} is similar to {earlier} (similarity {verdict.similarity:.3f} >= {threshold:.2f}, "
            f"{sizes}); it earns only if it beats {earlier} beyond noise",
            soft_wrap=True,
            highlight=False,
        )
    else:
        out.print(
            f"not a copy: similarity {verdict.similarity:.3f} < {threshold:.2f} ({sizes})",
            soft_wrap=True,
            highlight=False,
        )
    for note in verdict.notes:
        out.print(f"note: {note}", soft_wrap=True, highlight=False, markup=False)
    if json_file is not None:
        tmp = json_file.with_name(f".{json_file.name}.tmp-{os.getpid()}")
        try:
            tmp.write_text(json.dumps(verdict.as_json(), indent=2) + "\n")
            os.replace(tmp, json_file)
        except OSError as exc:
            fail(f"cannot write {json_file}: {exc.strerror}; give a writable path to --json")
