"""`arena-validator upgrade-check` against a pinned release channel (a local file, a local HTTP server) and a real
PostgreSQL store: up to date, an upgrade that waits while a race runs, the upgrade done between races (install, stop,
the store migrated, start: in that order), a failing step, and a channel that names no release."""

from __future__ import annotations

import http.server
import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.postgres import fresh_database
from validator.store.repository import Store, make_engine
from validator.store.schema import current_revision, downgrade, head_revision, upgrade
from validator.upgrade import installed_version

EXE = str(Path(sys.executable).parent / "arena-validator")


def check(url: str, channel: str, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [EXE, "upgrade-check", "--database-url", url, "--upgrade.channel", channel, *extra],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "COLUMNS": "200"},
    )


def marker(log: Path, word: str, revision: bool = False) -> str:
    """A command that appends `word` (and, with `revision`, the store's schema revision then) to `log`."""
    code = (
        "import os, sys; from sqlalchemy import create_engine; from validator.store.schema import current_revision; "
        f"rev = current_revision(create_engine(os.environ['ARENA_DATABASE_URL'])) if {revision} else ''; "
        f"open({str(log)!r}, 'a').write({word!r} + ' ' + str(rev) + chr(10))"
    )
    return f"{sys.executable} -c {json.dumps(code)}"


@pytest.fixture
def store_url() -> Iterator[str]:
    with fresh_database("arena_upgrade") as url:
        engine = make_engine(url)
        upgrade(engine)
        engine.dispose()
        yield url


@pytest.fixture
def http_channel(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    folder = tmp_path / "www"
    folder.mkdir()
    handler = lambda *a, **kw: http.server.SimpleHTTPRequestHandler(*a, directory=str(folder), **kw)  # noqa: E731
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/channel.json", folder / "channel.json"
    server.shutdown()


def test_up_to_date_when_the_channel_pins_the_installed_release(store_url: str, tmp_path: Path) -> None:
    channel = tmp_path / "channel"
    channel.write_text(f"{installed_version()}\n")
    done = check(store_url, str(channel))
    assert done.returncode == 0, done.stderr
    assert f"up to date: installed {installed_version()}" in done.stdout


def test_an_upgrade_waits_for_the_race_then_migrates_the_store_before_the_node_starts(
    store_url: str, tmp_path: Path, http_channel: tuple[str, Path]
) -> None:
    url, body = http_channel
    log = tmp_path / "steps.log"
    body.write_text(json.dumps({"version": "99.0.0", "install": marker(log, "install")}))
    steps = ["--stop", marker(log, "stop"), "--start", marker(log, "start", revision=True)]
    store = Store.open(store_url)
    store.add_pack(pack_id="p", name="p", digest="d", problems=[], signer=None, catalog_digest="c", rotation={})
    store.create_race(race_id="race-7", pack_id="p", seed_block=1, seed_hash="h", problem_ids=[])
    store.set_race_status("race-7", "running")

    # a race is running: nothing is done, the check says what it waits for and exits 3 (a timer tries again)
    done = check(store_url, url, "--apply")
    assert done.returncode == 3, done.stdout + done.stderr
    assert f"upgrade {installed_version()} -> 99.0.0 waits: race race-7 is running" in done.stdout
    assert not log.exists()

    # between races: without --apply the steps are printed, nothing run
    store.set_race_status("race-7", "closed")
    store.close()
    done = check(store_url, url)
    assert done.returncode == 0 and "--apply would run:" in done.stdout and "db upgrade" in done.stdout
    assert not log.exists()

    # with --apply, on a store one migration behind: install, stop, migrate, start, in that order
    engine = make_engine(store_url)
    downgrade(engine, "-1")
    assert current_revision(engine) != head_revision()
    done = check(store_url, url, "--apply", *steps)
    assert done.returncode == 0, done.stdout + done.stderr
    assert [line.split()[0] for line in log.read_text().splitlines()] == ["install", "stop", "start"]
    assert log.read_text().splitlines()[-1] == f"start {head_revision()}"  # migrated before the node served
    assert current_revision(engine) == head_revision()
    engine.dispose()


def test_a_failing_step_stops_the_upgrade(store_url: str, tmp_path: Path) -> None:
    channel, log = tmp_path / "channel", tmp_path / "steps.log"
    channel.write_text("99.0.0")
    fails = f"{sys.executable} -c 'raise SystemExit(4)'"
    done = check(store_url, str(channel), "--apply", "--install", marker(log, "install"), "--stop", fails)
    done_start = check(store_url, str(channel), "--apply", "--install", fails, "--start", marker(log, "start"))
    assert done.returncode == 1 and "exited 4; the upgrade stopped there" in done.stdout
    assert done_start.returncode == 1
    assert [line.split()[0] for line in log.read_text().splitlines()] == ["install"]  # never started after a failure


@pytest.mark.parametrize(
    ("body", "says"),
    [
        ("not a version", "is not a version"),
        ('{"release": "1.0"}', "names no release"),
        ("{broken", "is not valid JSON"),
    ],
)
def test_a_channel_that_names_no_release_is_one_line(store_url: str, tmp_path: Path, body: str, says: str) -> None:
    channel = tmp_path / "channel"
    channel.write_text(body)
    done = check(store_url, str(channel))
    assert done.returncode == 2 and says in done.stderr and len(done.stderr.strip().splitlines()) == 1


def test_an_unreadable_channel_is_one_line(store_url: str, tmp_path: Path) -> None:
    done = check(store_url, str(tmp_path / "missing"))
    assert done.returncode == 2 and "cannot read the release channel" in done.stderr
    done = check(store_url, "http://127.0.0.1:9/channel")
    assert done.returncode == 2 and "cannot read the release channel" in done.stderr
