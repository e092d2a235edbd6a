"""`arena-validator submissions`: compare two agents as the copy check does; show a submission's copy evidence."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Annotated, Any

import typer

from arena.clihelp import App
from arena.cliutil import fail, out
from arena.copies import COPY_THRESHOLD
from validator.cli.flags import STORE, with_settings
from validator.settings import Settings

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


def copy_evidence(store: Any, which: str) -> dict[str, Any]:
    """A submission (by id, or a hotkey's latest) with the fork rule's verdicts on it and what of its bundle the
    similarity check could not read, as `submissions show --json` prints it."""
    subs = store.all_submissions()
    if which.isdigit():
        sub = store.submission(int(which))
    else:
        mine = sorted((s for s in subs if s.hotkey == which), key=lambda s: (s.commitment_block, s.id))
        sub = mine[-1] if mine else None
    if sub is None:
        fail(f"no submission {which!r} in the store; give a submission id or a miner's hotkey")
    verdicts = store.copy_verdicts(submission_id=sub.id)
    return {
        "submission": {
            "id": sub.id,
            "hotkey": sub.hotkey,
            "sha256": sub.sha256,
            "commitment_block": sub.commitment_block,
            "status": sub.status,
            "reason": sub.reason,
            "copy_of": sub.copy_of,
            "code_notes": list(sub.code_notes or []),
        },
        "verdicts": [
            {
                "race_id": v.race_id,
                "copy": v.copy,
                "copy_of": v.copy_of,
                "copy_of_submission": v.copy_of_submission_id,
                "via": v.via,
                "kind": v.kind,
                "similarity": v.similarity,
                "problems": list(v.problems or []),
                "score": v.score,
                "earlier_score": v.earlier_score,
                "earlier_high": v.earlier_high,
                "reason": v.reason,
            }
            for v in verdicts
        ],
    }


def _say(text: str) -> None:
    out.print(text, soft_wrap=True, highlight=False, markup=False)


@submissions_app.command("show")
@with_settings(fields=STORE)
def show_cmd(
    settings: Settings,
    which: Annotated[str, typer.Argument(help="A submission id, or a miner's hotkey (its latest submission).")],
    as_json: Annotated[bool, typer.Option("--json", help="Print the evidence as one JSON object.")] = False,
) -> None:
    """A submission and the copy evidence against it: which earlier agent it is close to, by code or by behaviour,
    the similarity figure, the matching problems, and whether it beat the earlier one beyond noise (a copy earns
    nothing; docs/validator.md "Copies"). Also what of its bundle the similarity check could not read.

    --json prints {submission: {id, hotkey, sha256, commitment_block, status, reason, copy_of, code_notes},
    verdicts: [{race_id, copy, copy_of, copy_of_submission, via, kind, similarity, problems, score, earlier_score,
    earlier_high, reason}]}, newest race first."""
    from validator.node import NodeError, open_store

    try:
        store = open_store(settings)
    except NodeError as exc:
        fail(str(exc))
    try:
        found = copy_evidence(store, which)
    finally:
        store.close()
    if as_json:
        out.print_json(json.dumps(found))
        return
    sub = found["submission"]
    _say(f"submission {sub['id']} of {sub['hotkey']}: {sub['status']} (committed at block {sub['commitment_block']})")
    _say(f"bundle sha256 {sub['sha256']}")
    if sub["reason"]:
        _say(f"reason: {sub['reason']}")
    for note in sub["code_notes"]:
        _say(f"note: the similarity check could not read all of it: {note}")
    if not found["verdicts"]:
        _say("no copy verdict: no raced agent earlier than it was found similar (code or behaviour)")
    for v in found["verdicts"]:
        _say(f"race {v['race_id']}: {v['reason']}")
        if v["problems"]:
            _say(f"  matching problems: {', '.join(v['problems'])}")
