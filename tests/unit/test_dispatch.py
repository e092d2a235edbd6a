"""The dispatch seam's settings and its edges: Ray is optional (imported only with --dispatch ray), a cluster that is
not there is one line, and the settings say what --dispatch ray needs."""

from __future__ import annotations

import socket
import subprocess
import sys

import pytest

from validator.dispatch.ray import RayDispatcher, RayUnavailable
from validator.settings import SettingsError, load_settings


def test_dispatch_ray_needs_the_cluster_address() -> None:
    assert load_settings({}, env_file=None).dispatch == "local"
    with pytest.raises(SettingsError) as caught:
        load_settings({"dispatch": "ray"}, env_file=None)
    assert caught.value.problems == [
        "--dispatch ray needs --ray.address (the Ray head's host:port, as ray start --head prints it)"
    ]
    settings = load_settings(
        {"dispatch": "ray", "ray_address": "10.0.0.10:6379", "ray_cpus_per_run": "0.5"}, env_file=None
    )
    assert (settings.ray_address, settings.ray_cpus_per_run) == ("10.0.0.10:6379", 0.5)
    with pytest.raises(SettingsError, match=r"--dispatch \(or ARENA_DISPATCH\)"):
        load_settings({"dispatch": "slurm"}, env_file=None)


def test_a_head_that_is_not_there_is_one_line() -> None:
    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(RayUnavailable) as caught:
        RayDispatcher.connect(f"127.0.0.1:{port}", catalog_digest="sha256:0")
    assert str(caught.value) == (
        f"cannot reach the Ray head at 127.0.0.1:{port}: Connection refused; start it "
        "(ray start --head) or fix --ray.address"
    )


def test_the_node_miners_and_the_demo_never_import_ray() -> None:
    probe = (
        "import sys\n"
        "import validator.races, validator.node, validator.dispatch, validator.dispatch.local, demo.run\n"
        "import miner_template.cli, validator.cli\n"
        "assert 'ray' not in sys.modules, 'ray imported'\n"
        "print('no ray')\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stdout.strip() == "no ray", done.stderr


def test_a_runs_reply_goes_back_compressed_and_whole() -> None:
    """A run's reply as a Ray runner sends it (`validator.dispatch.wire`): a long trajectory over the fixture
    catalog's products, over Ray's 100 KiB inline limit when pickled, goes back in a fraction of it (so Ray does not
    route it through its object store), and the node unpacks the same outcome; a reply an older runner sent
    unpacked is taken as it is."""
    import copy
    import pickle
    from datetime import UTC, datetime

    from arena.trajectory import TrajectoryEvent
    from sandbox.backends import SandboxResult
    from sandbox.run import RunOutcome
    from tests.conftest import tiny_products
    from validator.dispatch.wire import packed, unpacked
    from validator.dispatch.worker import WorkerReply

    products = tiny_products()
    events = [
        TrajectoryEvent(
            run_id="r1",
            seq=i,
            kind="tool_call",
            name="search_products",
            arguments={"query": f"query {i}", "page": i % 3},
            result={"products": copy.deepcopy(products[i % 7 :] + products[: i % 7])},  # each its own, as parsed
            started_at=datetime(2026, 12, 6, 18, 0, i % 60, tzinfo=UTC),
            duration_ms=1.5 + i,
        )
        for i in range(40)
    ]
    outcome = RunOutcome(run_id="r1", result=SandboxResult("ok", None, 0, 0.25), events=events, tool_calls=40)
    reply = WorkerReply("node" * 14, "worker-host", outcome=outcome, facts={"staged": True})

    assert len(pickle.dumps(reply, protocol=pickle.HIGHEST_PROTOCOL)) > 100 * 1024
    sent = packed(reply)
    assert len(sent) < 100 * 1024 // 4
    back = unpacked(sent)
    assert back == reply and back.outcome is not None and back.outcome.events == events
    assert unpacked(reply) is reply


def test_a_reply_that_cannot_be_read_is_the_runners_fault() -> None:
    """A corrupt packed reply, or one of a format this node does not know, is `WORKER_LOST` (retried elsewhere), as
    Ray's own failure to read a reply was, on a run's path and a re-attached run's alike (`RayDispatcher._reply`)."""
    import zlib

    from arena import blame
    from validator.dispatch import DispatchError
    from validator.dispatch.ray import decoded
    from validator.dispatch.wire import ReplyError, packed, unpacked
    from validator.dispatch.worker import WorkerReply

    reply = WorkerReply("node" * 14, "worker-host", refused="no sandbox here")
    sent = packed(reply)
    assert decoded(sent) == reply and decoded(reply) == reply
    corrupt = sent[:-8] + bytes(8)
    with pytest.raises(ReplyError, match=r"^the worker's reply does not unpack \(error: "):
        unpacked(corrupt)
    for bad, why in [
        (corrupt, r"^the worker's reply does not unpack \(error: Error -3 "),
        (zlib.compress(b"not a pickle"), r"^the worker's reply does not unpack \(UnpicklingError: "),
        (packed({"node_id": "n"}), r"^the worker's reply is of an unknown format \(dict\): run its workers at "),
        ("a reply", r"^the worker's reply is of an unknown format \(str\)"),
    ]:
        with pytest.raises(DispatchError, match=why) as caught:
            decoded(bad)
        assert caught.value.code == blame.WORKER_LOST
