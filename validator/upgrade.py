"""`arena-validator upgrade-check`: the installed release against the operator's pinned release channel, and the
upgrade done between races only (docs/validator.md, "Upgrading").

The channel (`--upgrade.channel`) is a file or an http(s) URL whose body names the release the node should run: a
bare version (``0.2.0``) or a JSON object ``{"version": "0.2.0", "install": "<command>"}`` (the install command
overrides the node's). An upgrade is four steps, each a command run without a shell, in this order: install the
pinned release, stop the node (SIGTERM: it drains, `validator.scheduler.Node`), migrate the store with the new
release's `arena-validator db upgrade`, start the node. So the database is migrated before the new version serves,
and the old version never runs on a schema newer than its code. It is done only between races: no race running and
no run in flight; otherwise nothing is done and the check says which race it waits for.
"""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from dataclasses import dataclass
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

from packaging.version import InvalidVersion, Version

DISTRIBUTION = "shoparena"
#: what installs a release when the channel names no command of its own ({version}: the pinned release)
INSTALL = "{python} -m pip install --upgrade shoparena=={version}"
STOP = "systemctl stop shoparena-validator"  # the unit in deploy/; its TimeoutStopSec covers the drain
START = "systemctl start shoparena-validator"


class ChannelError(Exception):
    """The release channel cannot be read or names no version: one line."""


@dataclass(frozen=True)
class Release:
    version: Version
    install: str | None = None  # the channel's own install command, if it names one


def installed_version() -> Version:
    try:
        return Version(version(DISTRIBUTION))
    except PackageNotFoundError:  # run from a checkout that was never installed
        return Version("0")


def read_channel(channel: str, timeout: float = 10.0) -> Release:
    """The release a channel pins (a file, or an http(s) URL answered 200)."""
    if channel.startswith(("http://", "https://")):
        import httpx

        try:
            reply = httpx.get(channel, timeout=timeout, follow_redirects=True)
        except httpx.HTTPError as exc:
            raise ChannelError(f"cannot read the release channel {channel}: {type(exc).__name__}: {exc}") from None
        if reply.status_code != 200:
            raise ChannelError(f"the release channel {channel} answered HTTP {reply.status_code}")
        body = reply.text
    else:
        try:
            body = Path(channel).expanduser().read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise ChannelError(f"cannot read the release channel {channel}: {exc}") from None
    return parse_release(body, channel)


def parse_release(body: str, channel: str = "the channel") -> Release:
    text = body.strip()
    install = None
    if text.startswith("{"):
        try:
            data: Any = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ChannelError(f"{channel} is not valid JSON: {exc}") from None
        if not isinstance(data, dict) or not isinstance(data.get("version"), str):
            raise ChannelError(f'{channel} names no release: expected {{"version": "X.Y.Z"}} or a bare version')
        text, install = data["version"].strip(), data.get("install")
        if install is not None and not (isinstance(install, str) and install.strip()):
            raise ChannelError(f"{channel}: 'install' must be a command line")
    try:
        pinned = Version(text)
    except InvalidVersion:
        shown = text if len(text) <= 40 else text[:40] + "..."
        raise ChannelError(f"{channel} names no release: {shown!r} is not a version (e.g. 0.2.0)") from None
    return Release(pinned, install)


def busy(store: Any) -> str | None:
    """Why now is not between races (a race running, runs in flight), or None."""
    races, flying = store.in_race()
    if races:
        return f"race {races[0]} is running" + (f" (and {len(races) - 1} more)" if len(races) > 1 else "")
    if flying:
        return f"{flying} run(s) in flight"
    return None


def plan(release: Release, *, install: str | None, stop: str, start: str) -> list[list[str]]:
    """The upgrade's commands, in order: install, stop (the node drains), migrate the store, start."""
    line = release.install or install or INSTALL
    exe = str(Path(sys.executable).parent / "arena-validator")
    return [
        shlex.split(line.format(python=sys.executable, version=release.version)),
        shlex.split(stop),
        [exe, "db", "upgrade"],  # the store by the environment `apply` passes (no secret on a command line)
        shlex.split(start),
    ]


def apply(steps: list[list[str]], say: Any, env: dict[str, str]) -> int:
    """Run the steps in order with `env` added to the environment (the store the node uses); the first that fails
    stops the upgrade (its exit code returned, 0 when all ran)."""
    import os

    for step in steps:
        say(f"running: {shlex.join(step)}")
        try:
            done = subprocess.run(step, check=False, env={**os.environ, **env})
        except OSError as exc:
            say(f"cannot run {step[0]}: {exc.strerror or exc}")
            return 1
        if done.returncode != 0:
            say(f"{shlex.join(step)} exited {done.returncode}; the upgrade stopped there")
            return done.returncode
    return 0
