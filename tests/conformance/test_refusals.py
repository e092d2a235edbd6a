"""A sandbox that cannot put up both its walls refuses to run agents, in one line: a seccomp profile that does not
build (a name libseccomp does not know), one the kernel will not load, and a Docker runtime that is named but absent."""

from __future__ import annotations

import pytest

from sandbox import seccomp
from sandbox.backends import BackendUnavailable, open_backend

pytestmark = pytest.mark.slow  # bubblewrap and a Docker engine
CACHED = (seccomp.bpf, seccomp.docker_profile, seccomp.check_loads)


@pytest.fixture
def fresh_profile(monkeypatch):
    """The profile's caches emptied before and after: each test builds it from what it changed."""
    for cached in CACHED:
        cached.cache_clear()
    yield monkeypatch
    for cached in CACHED:
        cached.cache_clear()


def _one_line(exc: BaseException) -> str:
    text = str(exc)
    assert "\n" not in text and text, text
    return text


def test_a_profile_that_does_not_build_stops_both_backends(fresh_profile, tmp_path, docker_image):
    listed = tmp_path / "syscalls.txt"
    listed.write_text(seccomp.SYSCALLS_FILE.read_text() + "not_a_syscall\n")
    fresh_profile.setattr(seccomp, "SYSCALLS_FILE", listed)
    with pytest.raises(BackendUnavailable) as process:
        open_backend("process")
    assert "not_a_syscall" in _one_line(process.value) and "not run" in str(process.value)
    with pytest.raises(BackendUnavailable) as docker:
        open_backend("docker", image=docker_image)
    assert "not_a_syscall" in _one_line(docker.value)


def test_a_profile_the_kernel_will_not_load_stops_bubblewrap(fresh_profile):
    fresh_profile.setattr(seccomp, "bpf", lambda: b"\0" * 7)  # not a whole BPF instruction: the kernel refuses it
    with pytest.raises(BackendUnavailable) as refused:
        open_backend("process")
    assert "does not load under bubblewrap" in _one_line(refused.value)


def test_a_runtime_that_is_named_but_absent_is_refused(docker_image):
    with pytest.raises(BackendUnavailable) as refused:
        open_backend("docker", image=docker_image, runtime="no-such-runtime")
    text = _one_line(refused.value)
    assert "no runtime 'no-such-runtime'" in text and "runc" in text
    with pytest.raises(ValueError, match="docker backend only"):
        open_backend("process", runtime="runsc")


def test_a_runtime_the_ray_workers_would_not_use_is_refused():
    from types import SimpleNamespace

    from validator.dispatch import open_dispatcher

    settings = SimpleNamespace(dispatch="ray", sandbox_runtime="runsc")
    with pytest.raises(RuntimeError) as refused:
        open_dispatcher(settings, gateway=None, sandbox=None, catalog_digest="sha256:x")
    assert "not passed to Ray workers" in _one_line(refused.value)
