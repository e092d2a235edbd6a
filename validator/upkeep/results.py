"""The janitor's sweep of the pooled results bundles under <data-dir>/results (`validator.pool.shelf`: the node's own
and those it fetched from other validators, each ``<sha256>`` beside its ``<sha256>.meta.json``, the `Release` naming
its race and public block). A bundle goes once its race ended over `results_days` ago and nothing needs it: never one
of a race whose weights are not set yet or still pooling (`Store.results_needs`), of the rotation's newest W races
(the window pooled standings read back), nor one not yet public (before its public block the node serves it to the
validators that raced it; the store's latest block stands for the chain's, which is at least there). An envelope
with no release beside it (a put cut short) is left alone."""

from __future__ import annotations

from validator.upkeep.removal import discard, finish, size_of
from validator.upkeep.sweeps import DAY, Freed, Grounds

META = ".meta.json"


def results(grounds: Grounds) -> Freed:
    """Results bundles (envelope, then its release) of races ended over `results_days` ago that nothing needs."""
    from validator.pool.shelf import Release

    freed = Freed("results bundles")
    folder = grounds.data_dir / "results"
    if not folder.is_dir():
        return freed
    if not grounds.dry_run:
        freed.bytes += finish(folder)
    needs = grounds.store.results_needs()
    cutoff = grounds.now - grounds.retention.results_days * DAY
    for meta in sorted(folder.glob(f"*{META}")):
        sha256 = meta.name[: -len(META)]
        envelope = meta.with_name(sha256)
        try:
            release = Release.model_validate_json(meta.read_bytes())
            age_of = envelope if envelope.exists() else meta
            ended = needs.ended.get(release.race_id)
            at = ended.timestamp() if ended is not None else age_of.stat().st_mtime
        except (OSError, ValueError):
            continue  # not a release this code wrote, or gone meanwhile: left alone
        if release.race_id in needs.keep or release.public_block > needs.block or at > cutoff:
            continue
        for path in (envelope, meta):  # the envelope first: a pass cut short leaves the release, read next pass
            freed.bytes += size_of(path) if grounds.dry_run else discard(path)
        freed.items.append(sha256)
    return freed
