"""The API and the dashboard over a store filled by a real demo race; a headless Chromium reads the dashboard."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from sandbox.serving import ThreadedServer
from validator.api import create_app
from validator.store.repository import Store, make_engine
from validator.store.schema import upgrade

EXE = str(Path(sys.executable).parent / "arena-validator")
SCREENSHOTS = Path(os.environ.get("ARENA_SCREENSHOTS", Path(__file__).resolve().parents[2] / "var" / "screenshots"))


@pytest.fixture(scope="module")
def demo_store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Store]:
    root = tmp_path_factory.mktemp("dash") / "demo"
    done = subprocess.run([EXE, "demo", "--dir", str(root), "--size", "5000", "--problems", "30", "--per-race", "4"],
                          capture_output=True, text=True, timeout=900, cwd=root.parent)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    store = Store.open(f"sqlite:///{root / 'validator' / 'validator.sqlite'}")
    yield store
    store.close()


@pytest.fixture(scope="module")
def client(demo_store: Store) -> TestClient:
    return TestClient(create_app(demo_store))


def test_leaderboard_lists_the_demo_miners_with_judge_quality(client: TestClient, demo_store: Store) -> None:
    board = client.get("/api/leaderboard").json()
    race = [r for r in demo_store.races() if r.status == "closed"][0]
    assert board["race"]["race_id"] == race.race_id
    rows = board["rows"]
    assert [r["rank"] for r in rows] == [1, 2, 3, 4]
    assert {r["hotkey"] for r in rows} == {r.hotkey for r in demo_store.race_results(race.race_id)}
    assert all(r["judge_quality"] is not None for r in rows[:-1])
    # the hostile agent never answers: its runs end 1006 (no answer, its own fault), unjudged, and score 0
    assert rows[-1]["score"] == 0.0 and rows[-1]["judge_quality"] is None


def test_races_runs_and_a_run_with_its_steps_strict_checks_and_verdict(client: TestClient) -> None:
    races = client.get("/api/races").json()
    race_id = races["items"][0]["race_id"]
    race = client.get(f"/api/races/{race_id}").json()
    # the hostile agent's four runs end 1006 (no answer), the others finish
    assert race["runs_by_status"] == {"finished": 12, "errored": 4} and len(race["results"]) == 4
    runs = client.get("/api/runs", params={"race_id": race_id, "limit": 5}).json()
    assert runs["total"] == 16 and len(runs["items"]) == 5
    second = client.get("/api/runs", params={"race_id": race_id, "limit": 5, "offset": 5}).json()
    assert not {r["run_id"] for r in runs["items"]} & {r["run_id"] for r in second["items"]}
    task = runs["items"][0]["task"]
    by_task = client.get("/api/runs", params={"race_id": race_id, "task": task, "limit": 500}).json()
    assert by_task["total"] >= 1 and all(r["task"] == task for r in by_task["items"])
    miner = runs["items"][0]["hotkey"]
    mine = client.get("/api/runs", params={"miner": miner, "limit": 500}).json()
    assert mine["total"] == 4 and all(r["hotkey"] == miner for r in mine["items"])
    offline = [r for r in client.get("/api/runs", params={"limit": 500}).json()["items"] if r["tool_calls"]][0]
    run = client.get(f"/api/runs/{offline['run_id']}").json()
    assert run["problem"]["query"] and "reward" not in run["problem"]  # the public part only
    assert len(run["steps"]) == offline["tool_calls"] and run["steps"][0]["seq"] == 0
    assert run["strict"]["answer"] is not None and run["judge"]["gate"] in {"no_reasoning", "no_analysis",
                                                                             "no_datum", "no_comparison", "sound"}
    assert run["ruleset"] == {"name": "shoppingbench", "version": "1"} and run["score_revisions"] == []
    assert run["strict"]["title_model"].startswith("WordLlama")
    trajectory = client.get(f"/api/runs/{offline['run_id']}/trajectory").json()
    assert trajectory == run["steps"]


def test_submissions_show_the_copy_and_its_reason_and_weights_their_outcome(client: TestClient) -> None:
    copies = client.get("/api/submissions", params={"status": "copy"}).json()["items"]
    assert len(copies) == 1 and "same normalized source" in copies[0]["reason"] and copies[0]["copy_of"]
    weights = client.get("/api/weights").json()["items"]
    assert weights[0]["status"] == "set" and abs(sum(weights[0]["vector"].values()) - 1) < 1e-9


def test_unknown_ids_and_bad_filters_answer_404_and_422_with_a_message(client: TestClient) -> None:
    for path in ("/api/races/nope", "/api/runs/nope", "/api/runs/nope/trajectory"):
        answer = client.get(path)
        assert answer.status_code == 404 and "nope" in answer.json()["detail"]
    bad = client.get("/api/runs", params={"status": "done"})
    assert bad.status_code == 422 and "unknown status" in bad.json()["detail"]
    assert client.get("/api/runs", params={"task": "cars"}).status_code == 422
    assert client.get("/api/runs", params={"limit": 100000}).status_code == 422
    assert client.get("/api/races", params={"status": "weird"}).status_code == 422


def test_openapi_is_published_and_nothing_writes(client: TestClient) -> None:
    schema = client.get("/openapi.json").json()
    assert "/api/runs/{run_id}" in schema["paths"] and "/api/leaderboard" in schema["paths"]
    methods = {m for path in schema["paths"].values() for m in path}
    assert methods == {"get"}
    assert client.post("/api/races").status_code == 405


def test_metrics_scrape_and_health(client: TestClient) -> None:
    text = client.get("/metrics").text
    assert 'shoparena_runs{status="finished"} 12.0' in text and 'shoparena_runs{status="errored"} 4.0' in text
    assert "shoparena_queue_depth 0.0" in text and 'shoparena_weight_sets{status="set"} 1.0' in text
    health = client.get("/healthz")
    assert health.status_code == 200 and health.json()["checks"]["store"]["ok"] is True


def test_an_empty_store_says_what_to_do_next(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'empty.sqlite'}"
    engine = make_engine(url)
    upgrade(engine)
    engine.dispose()
    store = Store.open(url)
    board = TestClient(create_app(store)).get("/api/leaderboard").json()
    assert board["race"] is None and "arena-validator run" in board["hint"]
    store.close()


def chromium() -> tuple[str, str]:
    browser = shutil.which("chromium") or "/usr/bin/chromium"
    driver = shutil.which("chromedriver") or "/usr/bin/chromedriver"
    assert Path(browser).exists() and Path(driver).exists(), "install chromium and chromium-driver (scripts/test does)"
    return browser, driver


def test_a_browser_sees_the_leaderboard_and_a_run_page(demo_store: Store, tmp_path: Path) -> None:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as ec
    from selenium.webdriver.support.ui import WebDriverWait

    browser, driver_path = chromium()
    options = webdriver.ChromeOptions()
    options.binary_location = browser
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 f"--user-data-dir={tmp_path / 'profile'}", "--window-size=1400,1000"):
        options.add_argument(flag)
    server = ThreadedServer(create_app(demo_store)).start()
    driver = webdriver.Chrome(service=Service(driver_path), options=options)
    try:
        driver.get(server.url + "/")
        wait = WebDriverWait(driver, 30)
        wait.until(ec.presence_of_element_located((By.CSS_SELECTOR, "#leaderboard tbody tr")))
        rows = driver.find_elements(By.CSS_SELECTOR, "#leaderboard tbody tr")
        assert len(rows) == 4
        race = [r for r in demo_store.races() if r.status == "closed"][0]
        shown = {el.get_attribute("title") for el in driver.find_elements(By.CSS_SELECTOR, "#leaderboard .hotkey")}
        assert shown == {r.hotkey for r in demo_store.race_results(race.race_id)}
        assert driver.find_elements(By.CSS_SELECTOR, "svg[aria-label='final scores'] rect")  # a chart drew
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        driver.save_screenshot(str(SCREENSHOTS / "leaderboard.png"))

        run = [r for r in demo_store.runs(race_id=race.race_id) if r.tool_calls][0]
        driver.get(f"{server.url}/#/run/{run.run_id}")
        wait.until(ec.presence_of_element_located((By.CSS_SELECTOR, "#steps .step")))
        steps = driver.find_elements(By.CSS_SELECTOR, "#steps .step")
        assert len(steps) == len(demo_store.events(run.run_id))
        verdict = driver.find_element(By.ID, "verdict").text
        assert "gate" in verdict and "offline" in verdict
        cited = demo_store.score(run.run_id).judge_evidence or []  # type: ignore[union-attr]
        assert len(driver.find_elements(By.CSS_SELECTOR, "#steps .step.cited")) == len(set(cited))
        assert driver.find_elements(By.CSS_SELECTOR, "#checks tbody tr")  # the strict breakdown, field by field
        page = driver.find_element(By.TAG_NAME, "body").text
        assert "ruleset shoppingbench v1" in page and "WordLlama" in page and "Qwen3-Embedding-0.6B" in page
        driver.save_screenshot(str(SCREENSHOTS / "run.png"))
        assert (SCREENSHOTS / "run.png").stat().st_size > 10_000
    finally:
        driver.quit()
        server.stop()
