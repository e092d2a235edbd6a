"""Deployment: the compose stack validates, .env.example covers every setting, the systemd unit upgrades before it
starts, and the node's image builds from the offline base and runs."""

from __future__ import annotations

import configparser
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from validator.settings import Settings, env_example, env_name, load_settings

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"


def test_env_example_lists_every_setting_and_is_valid() -> None:
    text = (DEPLOY / ".env.example").read_text()
    assert text == env_example() + "\n" or text == env_example(), "regenerate deploy/.env.example from env_example()"
    for name in Settings.model_fields:
        assert f"# {env_name(name)}=" in text, name
    load_settings({}, env_file=DEPLOY / ".env.example")  # nothing in it is invalid


@pytest.mark.slow  # docker-compose
def test_compose_file_validates_and_wires_the_stack(tmp_path: Path) -> None:
    compose = shutil.which("docker-compose")
    assert compose, "install docker-compose (scripts/test does)"
    stack = tmp_path / "deploy"
    shutil.copytree(DEPLOY, stack)
    shutil.copy(stack / ".env.example", stack / ".env")
    done = subprocess.run(
        [compose, "-f", "docker-compose.yml", "--env-file", ".env", "config"],
        cwd=stack,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    config = yaml.safe_load(done.stdout)
    services = config["services"]
    assert set(services) == {"postgres", "validator", "prometheus"}
    assert "pg_isready" in " ".join(services["postgres"]["healthcheck"]["test"])
    assert any("pgdata" in str(v) and "/var/lib/postgresql/data" in str(v) for v in services["postgres"]["volumes"])
    validator = services["validator"]
    assert validator["depends_on"]["postgres"]["condition"] == "service_healthy"
    mounts = {str(v.get("target") if isinstance(v, dict) else v.split(":")[1]): v for v in validator["volumes"]}
    assert "/var/run/docker.sock" in mounts
    wallets = mounts["/wallets"]
    assert wallets.get("read_only") if isinstance(wallets, dict) else wallets.endswith(":ro")
    env = validator["environment"]
    assert env["ARENA_SANDBOX_BACKEND"] == "docker" and env["ARENA_DATABASE_URL"].startswith("postgresql+psycopg://")
    assert any("8090" in str(p) for p in validator["ports"])
    prometheus = yaml.safe_load((DEPLOY / "prometheus.yml").read_text())
    assert prometheus["scrape_configs"][0]["static_configs"][0]["targets"] == ["validator:8090"]


def test_systemd_unit_upgrades_the_store_before_it_runs() -> None:
    unit = configparser.ConfigParser(strict=False, interpolation=None)
    unit.read_string((DEPLOY / "shoparena-validator.service").read_text())
    service = unit["Service"]
    assert service["ExecStartPre"].endswith("arena-validator db upgrade")
    assert service["ExecStart"].endswith("arena-validator run")
    assert service["KillSignal"] == "SIGTERM" and unit["Install"]["WantedBy"] == "multi-user.target"


@pytest.mark.slow  # a Docker engine and an image build
def test_the_node_image_builds_from_the_offline_base_and_runs(tmp_path: Path) -> None:
    tag = f"shoparena-node:test-{os.getpid()}"
    env = {**os.environ, "PYTHON": sys.executable}
    built = subprocess.run(
        ["bash", str(DEPLOY / "build-node-image"), tag], capture_output=True, text=True, timeout=1800, env=env, cwd=ROOT
    )
    assert built.returncode == 0, built.stderr[-3000:]
    assert built.stdout.strip().splitlines()[-1] == tag
    try:
        shown = subprocess.run(
            [
                "/usr/bin/docker",
                "run",
                "--rm",
                "--network",
                "none",
                "-e",
                "ARENA_NETUID=15",
                tag,
                "arena-validator",
                "config",
                "show",
                "--json",
            ],
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert shown.returncode == 0, shown.stderr
        settings = json.loads(shown.stdout)
        assert settings["sandbox_backend"] == "docker" and settings["netuid"] == 15
        assert settings["api_host"] == "0.0.0.0"
        upgraded = subprocess.run(
            ["/usr/bin/docker", "run", "--rm", "--network", "none", tag, "arena-validator", "db", "upgrade"],
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert upgraded.returncode == 0 and "empty ->" in upgraded.stdout, upgraded.stderr
    finally:
        subprocess.run(["/usr/bin/docker", "rmi", "-f", tag], capture_output=True, timeout=120)


@pytest.mark.slow  # docker-compose
def test_the_ray_override_adds_a_head_and_workers_and_makes_the_node_their_driver(tmp_path: Path) -> None:
    compose = shutil.which("docker-compose")
    assert compose, "install docker-compose (scripts/test does)"
    stack = tmp_path / "deploy"
    shutil.copytree(DEPLOY, stack)
    shutil.copy(stack / ".env.example", stack / ".env")
    done = subprocess.run(
        [compose, "-f", "docker-compose.yml", "-f", "ray/compose.yml", "--env-file", ".env", "config"],
        cwd=stack,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    services = yaml.safe_load(done.stdout)["services"]
    assert {"postgres", "validator", "prometheus", "ray-worker"} <= set(services)
    node = services["validator"]  # the Ray head, taking no runs, and the node as its driver (on a node of the cluster)
    assert "ray start --head --port 6379 --num-cpus 0" in " ".join(node["command"])
    assert " ".join(node["command"]).endswith("exec arena-validator run")
    worker = services["ray-worker"]
    assert "--labels shoparena=worker" in " ".join(worker["command"]) and worker["environment"]["ARENA_CATALOG"]
    assert any((v.get("target") if isinstance(v, dict) else v.split(":")[1]) == "/catalog" for v in worker["volumes"])
    assert "--address validator:6379" in " ".join(worker["command"])
    assert node["environment"]["ARENA_DISPATCH"] == "ray" and node["environment"]["ARENA_RAY_ADDRESS"]
    assert node["image"] == worker["image"]  # one Ray, one Python
    assert node["environment"]["ARENA_DATABASE_URL"].startswith("postgresql+psycopg://")  # the base stack's, kept
    for name in ("dispatch", "ray_address"):  # the override sets the node's own settings
        assert name in Settings.model_fields and env_name(name) in node["environment"]


def test_the_kuberay_and_ray_up_examples_label_their_workers_and_give_them_the_catalog() -> None:
    cluster = yaml.safe_load((DEPLOY / "ray" / "kuberay.yaml").read_text())
    assert (cluster["apiVersion"], cluster["kind"]) == ("ray.io/v1", "RayCluster")
    assert cluster["spec"]["headGroupSpec"]["rayStartParams"]["num-cpus"] == "0"
    (group,) = cluster["spec"]["workerGroupSpecs"]
    assert group["rayStartParams"]["labels"] == "shoparena=worker"
    (container,) = group["template"]["spec"]["containers"]
    assert {"name": "ARENA_CATALOG", "value": "/catalog"} in container["env"]
    assert any(m["mountPath"] == "/catalog" and m["readOnly"] for m in container["volumeMounts"])
    up = yaml.safe_load((DEPLOY / "ray" / "cluster.yaml").read_text())
    assert up["provider"]["type"] == "local" and up["provider"]["worker_ips"]
    assert any("--labels shoparena=worker" in c for c in up["worker_start_ray_commands"])
    assert any("--num-cpus 0" in c for c in up["head_start_ray_commands"])
    assert "-e ARENA_CATALOG=/catalog" in up["docker"]["run_options"]
    dockerfile = (DEPLOY / "ray" / "Dockerfile").read_text()
    assert "shoparena[ray]" in dockerfile and "--labels shoparena=worker" in dockerfile
