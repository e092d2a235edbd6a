"""Node settings (`validator.settings`): flags > environment (`ARENA_*`) > `.env` > defaults, every problem at once,
secrets masked, nothing connected at import."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from validator.settings import Settings, SettingsError, env_name, field_flag, load_settings, mask_url

PASSWORD = "s3cr3t-Pa55"
API_KEY = "sk-live-0123456789abcdef"


@pytest.fixture(autouse=True)
def clean(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """No `ARENA_*` from the machine running the tests, and a working directory without a `.env`."""
    for key in list(os.environ):
        if key.upper().startswith("ARENA_"):
            monkeypatch.delenv(key)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def problems_of(overrides: dict | None = None, **kwargs) -> list[str]:
    with pytest.raises(SettingsError) as caught:
        load_settings(overrides, **kwargs)
    assert str(caught.value) == "; ".join(caught.value.problems)
    return caught.value.problems


# --- defaults ------------------------------------------------------------------------------------------------------


def test_defaults_are_valid_with_nothing_set() -> None:
    settings = load_settings()
    assert settings == Settings()
    assert (settings.wallet_name, settings.wallet_hotkey) == ("default", "default")
    assert settings.subtensor_network == "finney"
    assert settings.wallet_path == Path("~/.bittensor/wallets")
    assert settings.wallet_dir == Path("~/.bittensor/wallets").expanduser()
    assert settings.netuid is None and settings.subtensor_chain_endpoint is None
    assert settings.chain == "subtensor" and settings.sandbox_backend == "process"
    assert settings.database_url is None
    assert settings.db_url == "sqlite:///var/validator/validator.sqlite"
    assert settings.gateway_models == [] and settings.gateway_upstream is None and settings.gateway_api_key is None
    assert (settings.weight_policy, settings.burn_uid) == ("top_heavy", 0)
    assert settings.log_json is False


def test_every_field_has_a_btcli_style_flag_and_an_env_name() -> None:
    assert field_flag("wallet_name") == "--wallet.name"
    assert field_flag("wallet_hotkey") == "--wallet.hotkey"
    assert field_flag("wallet_path") == "--wallet.path"
    assert field_flag("subtensor_network") == "--subtensor.network"
    assert field_flag("subtensor_chain_endpoint") == "--subtensor.chain_endpoint"
    assert field_flag("netuid") == "--netuid"
    assert field_flag("database_url") == "--database-url"
    for name in Settings.model_fields:
        assert field_flag(name).startswith("--")
        assert env_name(name) == "ARENA_" + name.upper()


# --- sources and their order ---------------------------------------------------------------------------------------


def test_environment_is_read(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ARENA_NETUID", "21")
    monkeypatch.setenv("ARENA_DATABASE_URL", "postgresql://arena:pw@db.internal:5432/arena")
    monkeypatch.setenv("ARENA_WALLET_NAME", "cold")
    monkeypatch.setenv("ARENA_WALLET_HOTKEY", "hot")
    monkeypatch.setenv("ARENA_SUBTENSOR_NETWORK", "test")
    monkeypatch.setenv("ARENA_SUBTENSOR_CHAIN_ENDPOINT", "wss://entrypoint.example:443")
    monkeypatch.setenv("ARENA_SANDBOX_BACKEND", "docker")
    monkeypatch.setenv("ARENA_SANDBOX_WALL_SECONDS", "90.5")
    monkeypatch.setenv("ARENA_LOG_JSON", "true")
    monkeypatch.setenv("ARENA_WEIGHT_POLICY", "proportional")
    monkeypatch.setenv("ARENA_BURN_UID", "5")
    settings = load_settings()
    assert settings.netuid == 21
    assert settings.db_url == "postgresql+psycopg://arena:pw@db.internal:5432/arena"
    assert (settings.wallet_name, settings.wallet_hotkey) == ("cold", "hot")
    assert settings.subtensor_network == "test"
    assert settings.subtensor_chain_endpoint == "wss://entrypoint.example:443"
    assert settings.sandbox_backend == "docker" and settings.sandbox_wall_seconds == 90.5
    assert settings.log_json is True
    assert (settings.weight_policy, settings.burn_uid) == ("proportional", 5)


def test_env_names_are_case_insensitive(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("arena_netuid", "3")
    assert load_settings().netuid == 3


def test_dotenv_is_read_and_the_environment_beats_it(monkeypatch: pytest.MonkeyPatch, clean: Path) -> None:
    (clean / ".env").write_text(
        textwrap.dedent("""\
        # the node's .env
        ARENA_NETUID=7
        ARENA_WALLET_HOTKEY=from-dotenv
        ARENA_DATABASE_URL=sqlite:///var/other.sqlite
        UNRELATED=ignored
    """)
    )
    settings = load_settings()
    assert (settings.netuid, settings.wallet_hotkey, settings.db_url) == (
        7,
        "from-dotenv",
        "sqlite:///var/other.sqlite",
    )
    monkeypatch.setenv("ARENA_NETUID", "8")
    assert load_settings().netuid == 8
    assert load_settings().wallet_hotkey == "from-dotenv"


def test_dotenv_path_can_be_chosen_or_turned_off(clean: Path) -> None:
    (clean / ".env").write_text("ARENA_NETUID=7\n")
    other = clean / "deploy.env"
    other.write_text("ARENA_NETUID=9\n")
    assert load_settings(env_file=other).netuid == 9
    assert load_settings(env_file=None).netuid is None
    assert load_settings(env_file=clean / "missing.env").netuid is None


def test_flags_beat_the_environment_and_dotenv(monkeypatch: pytest.MonkeyPatch, clean: Path) -> None:
    (clean / ".env").write_text("ARENA_NETUID=7\nARENA_WALLET_NAME=dotenv\n")
    monkeypatch.setenv("ARENA_NETUID", "21")
    monkeypatch.setenv("ARENA_SANDBOX_BACKEND", "docker")
    # flags arrive as the CLI gives them: strings, None meaning "not given"
    settings = load_settings({"netuid": "3", "wallet_name": "flag", "sandbox_backend": None, "log_json": False})
    assert settings.netuid == 3
    assert settings.wallet_name == "flag"
    assert settings.sandbox_backend == "docker"  # not given as a flag: the environment's
    assert settings.log_json is False


# --- gateway models ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("source", ["flag", "env", "dotenv"])
def test_gateway_models_from_a_comma_list(source: str, monkeypatch: pytest.MonkeyPatch, clean: Path) -> None:
    models = " gpt-4o-mini, qwen/qwen3-32b ,,gpt-4.1 "
    overrides = {"gateway_upstream": "https://llm.example/v1/"}
    if source == "flag":
        overrides["gateway_models"] = models
    elif source == "env":
        monkeypatch.setenv("ARENA_GATEWAY_MODELS", models)
    else:
        (clean / ".env").write_text(f"ARENA_GATEWAY_MODELS={models}\n")
    settings = load_settings(overrides)
    assert settings.gateway_models == ["gpt-4o-mini", "qwen/qwen3-32b", "gpt-4.1"]
    assert settings.gateway_upstream == "https://llm.example/v1"


def test_gateway_models_as_a_list_and_empty() -> None:
    assert Settings(gateway_models=["a", "b"], gateway_upstream="http://x").gateway_models == ["a", "b"]
    assert load_settings({"gateway_models": ""}).gateway_models == []


def test_gateway_models_need_an_upstream(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ARENA_GATEWAY_MODELS", "gpt-4o")
    (problem,) = problems_of()
    assert "--gateway.models needs --gateway.upstream" in problem


# --- bad values: every one listed --------------------------------------------------------------------------------


def test_several_bad_values_are_all_listed_each_naming_its_flag_and_env_variable(
    monkeypatch: pytest.MonkeyPatch, clean: Path
) -> None:
    monkeypatch.setenv("ARENA_NETUID", "twenty-one")
    monkeypatch.setenv("ARENA_SUBTENSOR_CHAIN_ENDPOINT", "http://not-a-websocket")
    monkeypatch.setenv("ARENA_WEIGHT_POLICY", "everyone_wins")
    (clean / ".env").write_text("ARENA_SANDBOX_BACKEND=vm\n")
    problems = problems_of(
        {
            "sandbox_pids": "2",
            "concurrency": "0",
            "database_url": "mysql://root@db/arena",
            "gateway_upstream": "ftp://llm",
            "chain": "mainnet",
            "log_json": "perhaps",
        }
    )
    expected = {
        "netuid": "twenty-one",
        "subtensor_chain_endpoint": "http://not-a-websocket",
        "weight_policy": "everyone_wins",
        "sandbox_backend": "vm",
        "sandbox_pids": "2",
        "concurrency": "0",
        "database_url": "mysql://root@db/arena",
        "gateway_upstream": "ftp://llm",
        "chain": "mainnet",
        "log_json": "perhaps",
    }
    assert len(problems) == len(expected), problems
    for name, value in expected.items():
        (line,) = [p for p in problems if p.startswith(f"{field_flag(name)} (or {env_name(name)}): ")]
        assert repr(value) in line, line
        assert "\n" not in line
    assert any(
        "choose one of band, cost_aware, proportional, sn15_top_half, top_heavy, winner_take_all" in p for p in problems
    )
    assert any("not a ws:// or wss:// URL" in p for p in problems)


def test_a_required_setting_that_is_missing_is_listed() -> None:
    assert problems_of(require=("netuid",)) == ["--netuid (or ARENA_NETUID) is required"]
    assert load_settings({"netuid": "4"}, require=("netuid",)).netuid == 4


def test_a_missing_required_setting_is_listed_alongside_bad_values(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ARENA_SANDBOX_PIDS", "lots")
    problems = problems_of({"concurrency": "0"}, require=("netuid", "pack"))
    assert problems[-2:] == ["--netuid (or ARENA_NETUID) is required", "--pack (or ARENA_PACK) is required"]
    assert len(problems) == 4
    assert problems[0].startswith("--sandbox.pids (or ARENA_SANDBOX_PIDS): ")
    # a required setting that was given but is bad is reported as bad, not also as missing
    monkeypatch.delenv("ARENA_SANDBOX_PIDS")
    problems = problems_of({"netuid": "-1"}, require=("netuid",))
    assert len(problems) == 1 and problems[0].startswith("--netuid (or ARENA_NETUID): ")


# --- secrets -------------------------------------------------------------------------------------------------------


def test_masked_hides_the_database_password_and_api_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ARENA_DATABASE_URL", f"postgresql://arena:{PASSWORD}@db.internal:5432/arena")
    monkeypatch.setenv("ARENA_GATEWAY_API_KEY", API_KEY)
    settings = load_settings({"gateway_upstream": "https://llm.example/v1", "gateway_models": "gpt-4o"})
    shown = settings.masked()
    assert shown["database_url"] == "postgresql+psycopg://arena:****@db.internal:5432/arena"
    assert shown["gateway_api_key"] == "****"
    assert shown["gateway_models"] == ["gpt-4o"]
    assert set(shown) == set(Settings.model_fields)
    text = json.dumps(shown)  # everything shown is plain JSON
    assert PASSWORD not in text and API_KEY not in text
    assert PASSWORD not in repr(settings) and API_KEY not in repr(settings) and API_KEY not in str(settings)
    # the secrets themselves are still there for the node to use
    assert settings.gateway_api_key is not None and settings.gateway_api_key.get_secret_value() == API_KEY
    assert PASSWORD in settings.db_url


def test_masked_shows_the_default_sqlite_store_and_unset_secrets_as_none() -> None:
    shown = load_settings().masked()
    assert shown["database_url"] == "sqlite:///var/validator/validator.sqlite"
    assert shown["gateway_api_key"] is None
    assert shown["wallet_path"] == "~/.bittensor/wallets"


def test_masked_hides_credentials_in_other_urls() -> None:
    shown = load_settings({"gateway_upstream": f"https://user:{API_KEY}@llm.example/v1"}).masked()
    assert shown["gateway_upstream"] == "https://user:****@llm.example/v1"


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        (f"postgresql+psycopg://arena:{PASSWORD}@db:5432/arena", "postgresql+psycopg://arena:****@db:5432/arena"),
        (f"postgresql://arena:{PASSWORD}@db/arena?sslmode=require", "postgresql://arena:****@db/arena?sslmode=require"),
        (f"postgresql://:{PASSWORD}@db/arena", "postgresql://:****@db/arena"),
        ("postgresql://p%2Fss%40w@db/arena", "postgresql://p%2Fss%40w@db/arena"),  # a user, no password
        (
            f"postgresql://arena@db/arena?password={PASSWORD}&sslmode=require",
            "postgresql://arena@db/arena?password=****&sslmode=require",
        ),
        ("postgresql://arena@db/arena", "postgresql://arena@db/arena"),
        ("sqlite:///var/validator/validator.sqlite", "sqlite:///var/validator/validator.sqlite"),
    ],
)
def test_mask_url(url: str, shown: str) -> None:
    assert mask_url(url) == shown


def test_a_rejected_secret_is_not_echoed_in_the_problem(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ARENA_DATABASE_URL", f"mysql://root:{PASSWORD}@db/arena")
    (problem,) = problems_of()
    assert problem.startswith("--database-url (or ARENA_DATABASE_URL): must start with postgresql+psycopg://")
    assert PASSWORD not in problem
    assert "mysql://root:****@db/arena" in problem


# --- import --------------------------------------------------------------------------------------------------------


@pytest.mark.slow  # imports the settings in a fresh interpreter
def test_importing_settings_connects_nowhere(clean: Path) -> None:
    probe = textwrap.dedent("""\
        import sys
        events = []
        sys.addaudithook(lambda event, args: events.append((event, repr(args)[:200]))
                         if event.split(".")[0] in {"socket", "subprocess", "sqlite3"} else None)
        import validator.settings
        validator.settings.Settings()
        assert not events, events
        heavy = {"bittensor", "sqlalchemy", "docker", "psycopg", "httpx"} & {m.split(".")[0] for m in sys.modules}
        assert not heavy, heavy
        print("quiet")
    """)
    env = {k: v for k, v in os.environ.items() if not k.upper().startswith("ARENA_")}
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, cwd=clean, env=env, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "quiet"
