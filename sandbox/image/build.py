"""Build the sandbox image without a registry, and print its id.

    python -m sandbox.image.build            # offline: debootstrap rootfs -> docker import -> wheels -> docker build

1. A Debian bookworm minbase rootfs with python3 and python3-venv (``debootstrap``, from the host's Debian mirror),
   trimmed of docs and caches, imported as ``shoparena-base:bookworm`` (about a minute, once).
2. The sandbox packages (`sandbox.env.SANDBOX_PACKAGES`) downloaded as wheels on the host for CPython 3.11 on
   manylinux (every level listed: pip does not go down levels by itself).
3. A multi-stage build FROM the base: a venv at /opt/agent with the wheels installed and byte-compiled (a read-only
   root cannot cache bytecode), pip removed; the harness and SDK at /opt/arena; ``/run/arena`` as the socket's mount
   point. Tagged ``shoparena-sandbox:<hash of the inputs>`` so an unchanged build is reused.

Users with registry access can build ``sandbox/image/Dockerfile`` (FROM python:3.11-slim) instead.
"""

from __future__ import annotations

import hashlib
import io
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

from sandbox.env import HARNESS_DIR, SANDBOX_PACKAGES, SDK_DIR

if TYPE_CHECKING:
    import docker

BASE_TAG = "shoparena-base:bookworm"
IMAGE_REPO = "shoparena-sandbox"
HERE = Path(__file__).resolve().parent
PLATFORMS = (
    "manylinux_2_36_x86_64",
    "manylinux_2_34_x86_64",
    "manylinux_2_28_x86_64",
    "manylinux_2_17_x86_64",
    "manylinux2014_x86_64",
)
TRIM = (
    "usr/share/doc",
    "usr/share/man",
    "usr/share/info",
    "usr/share/locale",
    "var/cache/apt",
    "var/lib/apt/lists",
    "var/log",
)

OFFLINE_DOCKERFILE = """\
FROM {base} AS build
COPY wheels /wheels
RUN python3 -m venv /opt/agent \\
 && /opt/agent/bin/pip install --no-index --find-links /wheels --disable-pip-version-check {packages} \\
 && /opt/agent/bin/pip uninstall -y -q pip setuptools

FROM {base}
COPY --from=build /opt/agent /opt/agent
COPY harness /opt/arena/harness
COPY sdk /opt/arena/sdk
RUN python3 -m compileall -q /opt/arena && mkdir -p /run/arena && chmod 755 /run/arena
ENV PATH=/opt/agent/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8
USER 65534:65534
CMD ["/opt/agent/bin/python", "-I", "-S", "/opt/arena/harness/start.py"]
"""


def _client() -> docker.DockerClient:
    import docker

    return docker.from_env(timeout=600)


def _mirror() -> str:
    for path in [Path("/etc/apt/sources.list"), *Path("/etc/apt/sources.list.d").glob("*")]:
        try:
            text = path.read_text()
        except OSError:
            continue
        for line in text.splitlines():
            words = line.split()
            if words[:1] == ["URIs:"] and "debian-security" not in words[1] and "debian" in words[1]:
                return words[1]
            if words[:1] == ["deb"] and "debian" in line and "security" not in line:
                return next(w for w in words[1:] if w.startswith("http"))
    return "http://deb.debian.org/debian"


def build_base(log: Callable[[str], object] = print) -> str:
    client = _client()
    try:
        return str(client.images.get(BASE_TAG).id)
    except Exception:  # noqa: BLE001 - not built yet
        pass
    if shutil.which("debootstrap") is None:
        raise SystemExit("debootstrap is not installed: apt-get install -y debootstrap")
    with tempfile.TemporaryDirectory(prefix="shoparena-rootfs-") as tmp:
        rootfs = Path(tmp) / "rootfs"
        log(f"debootstrap bookworm from {_mirror()} (about a minute) ...")
        subprocess.run(
            ["debootstrap", "--variant=minbase", "--include=python3,python3-venv", "bookworm", str(rootfs), _mirror()],
            check=True,
            stdout=subprocess.DEVNULL,
        )
        for rel in TRIM:
            target = rootfs / rel
            if target.is_dir():
                for child in target.iterdir():
                    shutil.rmtree(child) if child.is_dir() and not child.is_symlink() else child.unlink()
        os.chmod(rootfs / "tmp", 0o1777)
        (rootfs / "run" / "arena").mkdir(parents=True, exist_ok=True)
        buf = io.BytesIO()
        with tarfile.open(fileobj=buf, mode="w") as tar:
            tar.add(str(rootfs), arcname=".", filter=lambda info: info)
        log("docker import ...")
        client.api.import_image_from_data(
            buf.getvalue(),
            repository=BASE_TAG.split(":")[0],
            tag=BASE_TAG.split(":")[1],
            changes=["ENV LANG=C.UTF-8", 'CMD ["python3"]'],
        )
    return str(client.images.get(BASE_TAG).id)


def _inputs_hash() -> str:
    h = hashlib.sha256(OFFLINE_DOCKERFILE.encode() + " ".join(SANDBOX_PACKAGES).encode())
    for path in sorted([*HARNESS_DIR.rglob("*.py"), *SDK_DIR.rglob("*.py")]):
        h.update(path.name.encode() + path.read_bytes())
    return h.hexdigest()[:12]


def image_tag() -> str:
    return f"{IMAGE_REPO}:{_inputs_hash()}"


def build_image(log: Callable[[str], object] = print) -> str:
    """Build (or reuse) the sandbox image; returns its id."""
    client = _client()
    tag = image_tag()
    try:
        return str(client.images.get(tag).id)
    except Exception:  # noqa: BLE001 - not built yet
        pass
    base = build_base(log)
    del base
    with tempfile.TemporaryDirectory(prefix="shoparena-image-") as tmp:
        ctx = Path(tmp)
        wheels = ctx / "wheels"
        log("downloading wheels on the host ...")
        env = {k: v for k, v in os.environ.items() if not k.startswith("PIP_")} | {"PIP_CONFIG_FILE": os.devnull}
        platform_args = [arg for p in PLATFORMS for arg in ("--platform", p)]
        subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "download",
                "--quiet",
                "--disable-pip-version-check",
                "-d",
                str(wheels),
                "--only-binary=:all:",
                "--python-version",
                "3.11",
                "--implementation",
                "cp",
                "--abi",
                "cp311",
                *platform_args,
                *SANDBOX_PACKAGES,
            ],
            check=True,
            env=env,
        )
        shutil.copytree(HARNESS_DIR, ctx / "harness", ignore=shutil.ignore_patterns("__pycache__"))
        shutil.copytree(SDK_DIR, ctx / "sdk", ignore=shutil.ignore_patterns("__pycache__"))
        (ctx / "Dockerfile").write_text(OFFLINE_DOCKERFILE.format(base=BASE_TAG, packages=" ".join(SANDBOX_PACKAGES)))
        log(f"docker build {tag} ...")
        image, _ = client.images.build(path=str(ctx), tag=tag, network_mode="none", rm=True, forcerm=True)
    client.images.prune(filters={"dangling": True})
    return str(image.id)


def _fail(message: str) -> NoReturn:
    print(f"error: {message}", file=sys.stderr)
    sys.exit(2)


def main() -> None:
    """Build (or find) the sandbox image and print its id; a missing Docker engine or a failed debootstrap is one
    line on stderr and exit 2."""
    from docker.errors import DockerException

    try:
        image_id = build_image(log=lambda m: print(m, file=sys.stderr))
    except DockerException as exc:
        where = os.environ.get("DOCKER_HOST") or "unix:///var/run/docker.sock"
        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        _fail(
            f"no Docker engine answers at {where} ({reason[:160]}); start Docker (a private daemon: "
            '`eval "$(bash scripts/dockerd start)"`), or point DOCKER_HOST at one'
        )
    except subprocess.CalledProcessError as exc:
        _fail(f"{' '.join(map(str, exc.cmd[:2]))} failed (exit {exc.returncode}); see its output above")
    print(image_id)


if __name__ == "__main__":
    main()
