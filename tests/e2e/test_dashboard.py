"""The API and the dashboard over a store filled by a real demo race, and over the same store grown to four races
(`tests.e2e.dashboard_history`: two more closed, one running), and over the demo's store with a closed race of one
shopping session (its conversation and per-constraint attribution); a headless Chromium reads every page, on a
desktop and on a phone, and keeps a screenshot of each (var/screenshots, or $ARENA_SCREENSHOTS)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from arena.catalog import Catalog
from arena.tasks.session.problem import SessionProblem
from sandbox.serving import ThreadedServer
from tests.e2e.dashboard_history import History, add_session_race, close, grow, names_of
from tests.support.postgres import fresh_database
from validator.api import create_app
from validator.store.repository import Store, make_engine
from validator.store.schema import upgrade

pytestmark = pytest.mark.slow  # the demo's race, PostgreSQL, the API's server and headless Chromium

EXE = str(Path(sys.executable).parent / "arena-validator")
SCREENSHOTS = Path(os.environ.get("ARENA_SCREENSHOTS", Path(__file__).resolve().parents[2] / "var" / "screenshots"))


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    """The demo's folder (its store holds one real race) and its miners by name."""
    root = tmp_path_factory.mktemp("dash") / "demo"
    done = subprocess.run(
        [EXE, "demo", "--dir", str(root), "--size", "5000", "--problems", "30", "--per-race", "4"],
        capture_output=True,
        text=True,
        timeout=900,
        cwd=root.parent,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    names = names_of(done.stdout)
    assert {"offline", "offline-lite", "offline-deep", "copycat", "hostile"} <= set(names), done.stdout[-2000:]
    # a copy of the demo's store, taken before anything opens it, to grow histories from
    pristine = root.parent / "pristine"
    pristine.mkdir()
    for part in (root / "validator").glob("validator.sqlite*"):
        shutil.copy(part, pristine / part.name)
    return root, names


def _sqlite_copy(demo: tuple[Path, dict[str, str]], name: str) -> str:
    folder = demo[0].parent / name
    folder.mkdir()
    for part in (demo[0].parent / "pristine").glob("validator.sqlite*"):
        shutil.copy(part, folder / part.name)
    return f"sqlite:///{folder / 'validator.sqlite'}"


def _postgres_copy(demo: tuple[Path, dict[str, str]], url: str) -> None:
    """The demo's store, row for row, in a fresh PostgreSQL database at `url` (schema by the migrations)."""
    from sqlalchemy import text

    from validator.store.models import Base

    source = make_engine(_sqlite_copy(demo, "for-postgres"))
    target = make_engine(url)
    upgrade(target)
    with source.connect() as read, target.begin() as write:
        for table in Base.metadata.sorted_tables:
            rows = [dict(r._mapping) for r in read.execute(table.select())]
            if rows:
                write.execute(table.insert(), rows)
            if "id" in table.c and table.c.id.autoincrement is True:
                write.execute(
                    text(
                        f"SELECT setval(pg_get_serial_sequence('{table.name}', 'id'), "
                        f"(SELECT COALESCE(MAX(id), 0) + 1 FROM {table.name}), false)"
                    )
                )
    source.dispose()
    target.dispose()


@pytest.fixture(scope="module")
def demo_store(demo: tuple[Path, dict[str, str]]) -> Iterator[Store]:
    store = Store.open(f"sqlite:///{demo[0] / 'validator' / 'validator.sqlite'}")
    yield store
    store.close()


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def history(demo: tuple[Path, dict[str, str]], request: pytest.FixtureRequest) -> Iterator[tuple[Store, History]]:
    """The demo's race, then two more closed races and a running one (`tests.e2e.dashboard_history`), on SQLite and
    on PostgreSQL."""
    if request.param == "sqlite":
        store = Store.open(_sqlite_copy(demo, "history"))
        yield store, grow(store, demo[1])
        store.close()
        return
    with fresh_database("arena_dashboard") as url:
        _postgres_copy(demo, url)
        store = Store.open(url)
        yield store, grow(store, demo[1])
        store.close()


@pytest.fixture(scope="module")
def browsed(demo: tuple[Path, dict[str, str]]) -> Iterator[tuple[Store, History]]:
    """The same history on SQLite, for the browser."""
    store = Store.open(_sqlite_copy(demo, "browsed"))
    yield store, grow(store, demo[1])
    store.close()


@pytest.fixture(scope="module")
def sessions(demo: tuple[Path, dict[str, str]]) -> Iterator[tuple[Store, str, SessionProblem]]:
    """The demo's store (SQLite) with one more closed race: one shopping session, played by the session family's
    reference agent (`tests.e2e.dashboard_history.add_session_race`); its run's id and problem."""
    store = Store.open(_sqlite_copy(demo, "sessions"))
    run_id, problem = add_session_race(store, Catalog.open(demo[0] / "catalog"), demo[1]["offline-lite"])
    yield store, run_id, problem
    store.close()


def _is_shoppingbench(store: Store, problem_id: str) -> bool:
    problem = store.problem(problem_id)
    return bool(problem and problem.data.get("reward"))


@pytest.fixture(scope="module")
def hclient(history: tuple[Store, History]) -> TestClient:
    return TestClient(create_app(history[0]))


@pytest.fixture(scope="module")
def client(demo_store: Store) -> TestClient:
    return TestClient(create_app(demo_store))


def test_leaderboard_lists_the_demo_miners_with_judge_quality(
    client: TestClient, demo_store: Store, demo: tuple[Path, dict[str, str]]
) -> None:
    board = client.get("/api/leaderboard").json()
    race = [r for r in demo_store.races() if r.status == "closed"][0]
    assert board["race"]["race_id"] == race.race_id
    rows = board["rows"]
    assert [r["rank"] for r in rows] == list(range(1, len(rows) + 1)) and len(rows) >= 4
    assert {r["hotkey"] for r in rows} == {r.hotkey for r in demo_store.race_results(race.race_id)}
    by_name = {
        name: next(r for r in rows if r["hotkey"] == hotkey)
        for name, hotkey in demo[1].items()
        if any(r["hotkey"] == hotkey for r in rows)
    }
    assert all(by_name[n]["judge_quality"] is not None for n in ("offline", "offline-lite", "offline-deep"))
    # the hostile agent never answers: its runs end 1006 (no answer, its own fault), unjudged, and score 0
    assert by_name["hostile"]["score"] == 0.0 and by_name["hostile"]["judge_quality"] is None
    assert by_name["hostile"]["rank"] >= len(rows) - 1


def test_races_runs_and_a_run_with_its_steps_strict_checks_and_verdict(client: TestClient) -> None:
    races = client.get("/api/races").json()
    race_id = races["items"][0]["race_id"]
    race = client.get(f"/api/races/{race_id}").json()
    # the hostile agent's four runs end 1006 (no answer), the others finish, but for a shopping session a rule-based
    # agent may end without committing (1006 too)
    racers = len(race["results"])
    assert racers >= 4 and sum(race["runs_by_status"].values()) == 4 * racers
    errored = client.get("/api/runs", params={"race_id": race_id, "status": "errored", "limit": 500}).json()["items"]
    hostile = {h for h in {r["hotkey"] for r in errored} if sum(r["hotkey"] == h for r in errored) == 4}
    assert len(hostile) == 1 and {r["error_code"] for r in errored} == {1006}
    assert all(r["task"] == "session" for r in errored if r["hotkey"] not in hostile)
    runs = client.get("/api/runs", params={"race_id": race_id, "limit": 5}).json()
    assert runs["total"] == 4 * racers and len(runs["items"]) == 5
    second = client.get("/api/runs", params={"race_id": race_id, "limit": 5, "offset": 5}).json()
    assert not {r["run_id"] for r in runs["items"]} & {r["run_id"] for r in second["items"]}
    task = runs["items"][0]["task"]
    by_task = client.get("/api/runs", params={"race_id": race_id, "task": task, "limit": 500}).json()
    assert by_task["total"] >= 1 and all(r["task"] == task for r in by_task["items"])
    miner = runs["items"][0]["hotkey"]
    mine = client.get("/api/runs", params={"miner": miner, "limit": 500}).json()
    # its 4 runs of the race and its 3 of the qualifying round it passed first
    assert mine["total"] == 4 + 3 and all(r["hotkey"] == miner for r in mine["items"])
    offline = [
        r
        for r in client.get("/api/runs", params={"limit": 500}).json()["items"]
        if r["tool_calls"] and not r["llm_calls"] and r["task"] != "session"
    ][0]  # a rule-based agent on a ShoppingBench problem: its steps are its tool calls
    run = client.get(f"/api/runs/{offline['run_id']}").json()
    assert run["problem"]["query"] and "reward" not in run["problem"]  # the public part only
    assert len(run["steps"]) == offline["tool_calls"] and run["steps"][0]["seq"] == 0
    assert run["strict"]["answer"] is not None and run["judge"]["gate"] in {
        "no_reasoning",
        "no_analysis",
        "no_datum",
        "no_comparison",
        "sound",
    }
    assert run["ruleset"] == {"name": "shoppingbench", "version": "1"} and run["score_revisions"] == []
    assert run["strict"]["extras"]["title_model"].startswith("WordLlama")
    trajectory = client.get(f"/api/runs/{offline['run_id']}/trajectory").json()
    assert trajectory == run["steps"]


def test_the_demo_race_shows_its_pooling_with_the_other_validator(client: TestClient) -> None:
    race_id = client.get("/api/races", params={"status": "closed"}).json()["items"][0]["race_id"]
    pool = client.get(f"/api/races/{race_id}").json()["pool"]
    assert pool["status"] == "pooled" and pool["bundle_sha256"] and pool["committed_block"] <= pool["cutoff_block"]
    assert [v["status"] for v in pool["validators"].values()] == ["verified", "verified"]
    assert {s["miner"] for s in pool["standings"]} == {
        r["hotkey"] for r in client.get(f"/api/races/{race_id}").json()["results"]
    }
    assert all(s["validators"] == 2 for s in pool["standings"])


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


def test_metrics_scrape_and_health(client: TestClient, demo_store: Store) -> None:
    text = client.get("/metrics").text
    finished = len(demo_store.runs(status="finished"))
    assert f'shoparena_runs{{status="finished"}} {finished}.0' in text and finished >= 12
    # the hostile agent's 4 race and 3 qualifying runs, and any session a rule-based agent ended without a commit
    errored = len(demo_store.runs(status="errored"))
    assert errored >= 7 and f'shoparena_runs{{status="errored"}} {errored}.0' in text
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


def test_the_task_families_and_their_task_types_come_from_the_registry(tmp_path: Path) -> None:
    from arena.tasks import all_tasks, families

    url = f"sqlite:///{tmp_path / 'empty.sqlite'}"
    engine = make_engine(url)
    upgrade(engine)
    engine.dispose()
    store = Store.open(url)
    body = TestClient(create_app(store)).get("/api/tasks").json()
    store.close()
    assert [f["name"] for f in body["families"]] == [f.name for f in families()]
    shopping = body["families"][0]
    assert shopping["name"] == "shoppingbench" and shopping["tasks"] == ["product", "shop", "voucher", "web"]
    # no family declares a run page of its own: every run page is the sections its family draws (`run_sections`)
    assert not any("run_page" in f for f in body["families"])
    colors = {t["task"]: t["color"] for t in body["tasks"]}
    assert list(colors) == list(all_tasks())
    # the four ShoppingBench tasks keep the dashboard's colors; any later task takes a palette color
    assert {t: colors[t] for t in ("product", "shop", "voucher", "web")} == {
        "product": "#2f6fdf",
        "shop": "#1f8a4c",
        "voucher": "#b7791f",
        "web": "#8e44ad",
    }
    assert all(c.startswith("#") and len(c) == 7 for c in colors.values())


# --- across races, over a store with a history (the demo's race, two more closed, one running) -----------------------


def _live_content(store: Store, race_id: str) -> list[str]:
    """What must not leak while `race_id` is open: its problem ids and queries."""
    race = store.race(race_id)
    assert race is not None
    problems = {p.problem_id: p for p in store.problems(race.pack_id)}
    return [x for pid in race.problem_ids for x in (pid, problems[pid].data["query"])]


def test_an_open_race_shows_its_runs_status_timing_and_score_counts_only(
    history: tuple[Store, History], hclient: TestClient
) -> None:
    store, made = history
    live = made.live_race
    race = hclient.get(f"/api/races/{live}").json()
    assert race["status"] == "running" and race["revealed"] is False
    assert race["problem_ids"] == [] and race["problem_count"] == 4
    runs = hclient.get("/api/runs", params={"race_id": live, "limit": 500}).json()["items"]
    assert len(runs) == 16 and all(r["hidden"] for r in runs)
    content_keys = {
        "problem_id",
        "task",
        "final",
        "success",
        "error",
        "judge_gate",
        "judge_quality",
        "cost",
        "tool_calls",
        "tokens",
    }
    assert not content_keys & {k for r in runs for k in r}
    assert {r["status"] for r in runs} == {"pending", "running", "finished", "errored"}
    # a finished run of the open race: status and timing, no problem, steps, answer, checks or verdict
    finished = next(r for r in runs if r["status"] == "finished")
    page = hclient.get(f"/api/runs/{finished['run_id']}").json()
    assert page["hidden"] and "closes" in page["hidden_reason"]
    assert not {"problem", "steps", "strict", "gold", "answer", "judge", "sandbox", "final"} & set(page)
    assert page["finished_at"] and page["seconds"] is not None
    for path in (f"/api/runs/{finished['run_id']}/trajectory", f"/api/runs/{finished['run_id']}/trajectory?download=1"):
        denied = hclient.get(path)
        assert denied.status_code == 403 and "still open" in denied.json()["detail"]
    # an errored run of the open race: its code and the sandbox's exit code and OOM, not its stderr
    errored = next(r for r in runs if r["status"] == "errored")
    page = hclient.get(f"/api/runs/{errored['run_id']}").json()
    assert page["error_code"] == 1004 and page["blame"] == "agent" and "error" not in page
    assert page["sandbox_facts"]["exit_code"] == 137 and page["sandbox_facts"]["oom"] is True
    assert "stderr_tail" not in page["sandbox_facts"]
    # a task filter and a score sort never reach into the open race
    by_task = hclient.get("/api/runs", params={"task": "product", "limit": 500}).json()["items"]
    assert by_task and all(r["race_id"] != live for r in by_task)
    by_score = hclient.get(
        "/api/runs", params={"race_id": live, "sort": "score", "order": "desc", "limit": 500}
    ).json()["items"]
    assert [r["run_id"] for r in by_score] == [r["run_id"] for r in runs]  # created order: scores are blank
    # its grid numbers the problems and shows statuses only
    grid = hclient.get(f"/api/races/{live}/grid").json()
    assert [p["label"] for p in grid["problems"]] == ["#1", "#2", "#3", "#4"]
    assert all(p["problem_id"] is None and p["task"] is None for p in grid["problems"])
    cells = [c for row in grid["rows"] for c in row["cells"] if c]
    assert len(cells) == 16 and not {"final", "success"} & {k for c in cells for k in c}
    # the live view: progress by miner, score counts, the queue
    view = hclient.get("/api/live").json()
    (entry,) = view["races"]
    by_hotkey = {m["hotkey"]: m for m in entry["miners"]}
    lite = by_hotkey[made.names["offline-lite"]]
    assert lite["by_status"] == {"finished": 3, "running": 1} and (lite["scored"], lite["succeeded"]) == (3, 3)
    assert lite["done"] == 3 and entry["done"] == 5 and entry["runs"] == 16
    assert view["queue"]["ready"] == 10 and view["queue"]["in_sandbox"] == 1
    # nothing anywhere names the open race's problems or quotes their queries
    secret = _live_content(store, live)
    paths = [
        "/api/races",
        f"/api/races/{live}",
        f"/api/races/{live}/grid",
        "/api/live",
        "/api/charts",
        "/api/standings",
        "/api/leaderboard",
        f"/api/leaderboard?race_id={live}",
        "/api/miners",
        "/api/runs?limit=500",
    ] + [f"/api/runs/{r['run_id']}" for r in runs]
    paths += [f"/api/miners/{hk}" for hk in made.names.values()]
    for path in paths:
        body = hclient.get(path).text
        assert not [s for s in secret if s in body], path


def test_standings_across_races_rolling_mean_movement_champion_and_ties(
    hclient: TestClient, history: tuple[Store, History]
) -> None:
    names = history[1].names
    st = hclient.get("/api/standings").json()
    assert [r["race_id"] for r in st["races"]] == history[1].races[:3]
    rows = {r["hotkey"]: r for r in st["rows"]}
    lite, offline, deep = rows[names["offline-lite"]], rows[names["offline"]], rows[names["offline-deep"]]
    first = {r.hotkey: r for r in history[0].race_results(history[1].races[0])}
    assert lite["rolling_mean"] == pytest.approx((first[names["offline-lite"]].score + 2 * 0.3875) / 3)
    assert (lite["wins"], lite["latest_rank"], lite["movement"]) == (2 + (first[names["offline-lite"]].rank == 1), 1, 0)
    # race 2: lite, deep, offline; race 3: lite, offline (tied with deep, committed earlier), deep
    assert (offline["previous_rank"], offline["latest_rank"], offline["movement"]) == (3, 2, 1)
    assert (deep["previous_rank"], deep["latest_rank"], deep["movement"]) == (2, 3, -1)
    assert deep["rolling_mean"] == pytest.approx((first[names["offline-deep"]].score + 0.3875 * 3 / 4 + 0.3875 / 2) / 3)
    means = [r["rolling_mean"] for r in st["rows"]]
    assert means == sorted(means, reverse=True)
    won_first = first[names["offline-lite"]].rank == 1
    assert st["champion"]["hotkey"] == names["offline-lite"] and st["champion"]["races"] == 2 + won_first
    assert st["champion"]["since_race"] == history[1].races[1 - won_first]
    (tie,) = st["ties"]
    assert tie["ranks"] == [2, 3] and tie["hotkeys"] == [names["offline"], names["offline-deep"]]
    assert tie["commitment_blocks"][0] < tie["commitment_blocks"][1] and "commitment block" in tie["broken_by"]
    assert hclient.get("/api/standings", params={"window": 1}).json()["rows"][0]["races_in_window"] == 1
    # the race's own results mark the tie; the demo's race had a three-way tie
    results = hclient.get(f"/api/races/{history[1].races[2]}").json()["results"]
    assert [r["tied_with"] for r in results] == [[], [3], [2], []]
    demo_race = {r["hotkey"]: r for r in hclient.get(f"/api/leaderboard?race_id={history[1].races[0]}").json()["rows"]}
    for row in demo_race.values():  # the rule-based agents score alike: ties
        same = sorted(r["rank"] for r in demo_race.values() if r is not row and abs(r["score"] - row["score"]) < 1e-9)
        assert sorted(row["tied_with"]) == same
    assert any(row["tied_with"] for row in demo_race.values())


def test_a_miners_page_has_its_submissions_races_weights_and_runs(
    hclient: TestClient, history: tuple[Store, History]
) -> None:
    names = history[1].names
    copycat = hclient.get(f"/api/miners/{names['copycat']}").json()
    (sub,) = copycat["submissions"]
    assert sub["status"] == "copy" and "same normalized source" in sub["reason"]
    assert sub["copy_of_hotkey"] == names["offline"] and copycat["races"] == []
    lite = hclient.get(f"/api/miners/{names['offline-lite']}").json()
    assert [r["race_id"] for r in lite["races"]] == history[1].races[:3]
    first = {r.hotkey: r for r in history[0].race_results(history[1].races[0])}
    assert [(r["rank"], r["of"]) for r in lite["races"]] == [
        (first[names["offline-lite"]].rank, len(first)),
        (1, 4),
        (1, 4),
    ]
    uid = first[names["offline-lite"]].uid
    assert [w["weight"] for w in lite["weights"]] == [ws.vector.get(str(uid), 0.0) for ws in history[0].weight_sets()]
    assert lite["weights"][1:] == [{**w, "weight": 0.5, "uid": uid} for w in lite["weights"][1:]]
    assert lite["open_races"] == [
        {
            "race_id": history[1].live_race,
            "status": "running",
            "seed_block": 1800,
            "opened_at": lite["open_races"][0]["opened_at"],
            "runs_by_status": {"finished": 3, "running": 1},
        }
    ]
    # its 16 race runs and 3 qualifying runs: all finished but the live race's running one, and any shopping session
    # it ended without a commit (1006)
    gave_up = [r for r in history[0].runs(hotkey=names["offline-lite"]) if r.status == "errored"]
    assert all(r.error_code == 1006 and not _is_shoppingbench(history[0], r.problem_id) for r in gave_up)
    errored = {"errored": len(gave_up)} if gave_up else {}
    assert lite["runs_by_status"] == {"finished": 15 + 3 - len(gave_up), "running": 1, **errored}
    hostile = hclient.get(f"/api/miners/{names['hostile']}").json()
    assert [r["rank"] for r in hostile["races"]] == [first[names["hostile"]].rank, 4, 4]
    assert hostile["races"][2]["errored"] == 4
    listed = {m["hotkey"]: m for m in hclient.get("/api/miners").json()["items"]}
    assert listed[names["offline-lite"]]["races"] == 3 and listed[names["offline-lite"]]["best_rank"] == 1
    assert listed[names["copycat"]]["submissions"] == 1 and listed[names["copycat"]]["races"] == 0
    assert hclient.get("/api/miners/nobody").status_code == 404


def test_weight_history_per_uid_with_the_ties_of_each_race(hclient: TestClient, history: tuple[Store, History]) -> None:
    store, made = history
    weights = hclient.get("/api/weights/history").json()
    assert [s["race_id"] for s in weights["sets"]] == made.races[:3]
    uid = next(m.uid for m in store.miners() if m.hotkey == made.names["offline-lite"])
    assert [p["weight"] for p in weights["uids"][str(uid)]] == [
        ws.vector.get(str(uid), 0.0) for ws in store.weight_sets()
    ]
    assert [p["weight"] for p in weights["uids"][str(uid)]][1:] == [0.5, 0.5]
    assert [p["block"] for p in weights["uids"][str(uid)]] == [s["block"] for s in weights["sets"]]
    assert weights["hotkeys"][str(uid)] == made.names["offline-lite"]
    scores = [r.score for r in store.race_results(made.races[0])]
    tied = [s for s in set(scores) if scores.count(s) > 1]
    assert sorted(g["score"] for g in weights["sets"][0]["ties"]) == sorted(tied) and tied
    assert [g["ranks"] for g in weights["sets"][2]["ties"]] == [[2, 3]] and weights["sets"][1]["ties"] == []


def test_runs_filter_sort_and_page(hclient: TestClient, history: tuple[Store, History]) -> None:
    total = len(history[0].runs())
    everything = hclient.get("/api/runs", params={"limit": 500}).json()
    qualifying = sum(len(history[0].runs(race_id=r.race_id)) for r in history[0].races(kind="qualifying"))
    assert qualifying == 3 * 5  # each of the demo's five accepted submissions ran the 3 qualifying problems
    assert everything["total"] == total == len(history[0].runs(race_id=history[1].races[0])) + 3 * 16 + qualifying
    seen: list[str] = []
    for offset in range(0, total, 25):
        page = hclient.get("/api/runs", params={"limit": 25, "offset": offset, "sort": "ended", "order": "desc"})
        seen += [r["run_id"] for r in page.json()["items"]]
    assert len(seen) == len(set(seen)) == total
    by_score = hclient.get("/api/runs", params={"sort": "score", "order": "desc", "limit": 500}).json()["items"]
    scores = [r.get("final") for r in by_score]
    shown = [s for s in scores if s is not None]
    assert shown == sorted(shown, reverse=True) and scores[: len(shown)] == shown  # blanks (open, errored) last
    oom = hclient.get("/api/runs", params={"error_code": 1004, "limit": 500}).json()
    assert oom["total"] == 5 and all(r["error_code"] == 1004 and r["blame"] == "agent" for r in oom["items"])
    closed_oom = hclient.get("/api/runs", params={"error_code": 1004, "race_id": history[1].races[2]}).json()
    assert {r["run_id"] for r in closed_oom["items"]} == set(history[1].oom_runs)
    mine = hclient.get(
        "/api/runs",
        params={
            "miner": history[1].names["hostile"],
            "status": "errored",
            "sort": "race",
            "order": "desc",
            "limit": 500,
        },
    ).json()["items"]
    # its errored runs of two closed races and the running one, and of its qualifying round
    assert mine[0]["race_id"] == history[1].live_race and len(mine) == 4 + 4 + 1 + 3
    assert hclient.get("/api/runs", params={"sort": "nonsense"}).status_code == 422
    assert hclient.get("/api/runs", params={"blame": "nobody"}).status_code == 422


def test_a_closed_races_run_shows_the_answer_beside_the_gold_and_its_sandbox(
    hclient: TestClient, history: tuple[Store, History]
) -> None:
    store = history[0]
    run = next(
        r for r in store.runs(race_id=history[1].races[0]) if r.tool_calls and _is_shoppingbench(store, r.problem_id)
    )
    page = hclient.get(f"/api/runs/{run.run_id}").json()
    problem = next(p for p in store.problems(store.race(run.race_id).pack_id) if p.problem_id == run.problem_id)
    gold = {s["id"]: s for s in page["sections"]}["gold"]  # ShoppingBench's run page: the answer beside the gold
    assert [row[1][0]["text"] for row in gold["rows"]] == [str(r["product_id"]) for r in problem.data["reward"]]
    assert gold["rows"][0][1][1] and page["answer"] == run.sandbox["answer"]
    assert page["sandbox_facts"]["exit_code"] == 0 and page["sandbox_facts"]["oom"] is False
    oom = hclient.get(f"/api/runs/{history[1].oom_runs[0]}").json()
    assert oom["sandbox_facts"] == {
        "backend": "process-bwrap",
        "status": "killed",
        "exit_code": 137,
        "oom": True,
        "timed_out": False,
        "elapsed_s": 0.4,
        "stderr_tail": oom["sandbox"]["stderr_tail"],
    }
    assert "MemoryError" in oom["sandbox_facts"]["stderr_tail"]
    download = hclient.get(f"/api/runs/{run.run_id}/trajectory", params={"download": True})
    assert download.status_code == 200 and "attachment" in download.headers["content-disposition"]
    lines = [json.loads(line) for line in download.text.splitlines()]
    assert lines == page["steps"] and len(lines) == len(store.events(run.run_id)) >= run.tool_calls


# --- the dashboard in a headless Chromium -----------------------------------------------------------------------------


def chromium() -> tuple[str, str]:
    browser = shutil.which("chromium") or "/usr/bin/chromium"
    driver = shutil.which("chromedriver") or "/usr/bin/chromedriver"
    assert Path(browser).exists() and Path(driver).exists(), "install chromium and chromium-driver (scripts/test does)"
    return browser, driver


@contextmanager
def browsing(store: Store, tmp_path: Path) -> Iterator[tuple[Any, str]]:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    browser, driver_path = chromium()
    options = webdriver.ChromeOptions()
    options.binary_location = browser
    for flag in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        f"--user-data-dir={tmp_path / 'profile'}",
        "--window-size=1400,1000",
    ):
        options.add_argument(flag)
    server = ThreadedServer(create_app(store)).start()
    driver = webdriver.Chrome(service=Service(driver_path), options=options)
    try:
        yield driver, server.url
    finally:
        driver.quit()
        server.stop()


# every <text> of every chart: inside its chart, and no two overlapping
CHART_LAYOUT = """
const out = [];
for (const svg of document.querySelectorAll('#app svg')) {
  const box = svg.getBoundingClientRect();
  const texts = [...svg.querySelectorAll('text')].map((t) => [t.textContent, t.getBoundingClientRect()]);
  for (const [text, r] of texts) {
    if (r.left < box.left - 1 || r.right > box.right + 1 || r.top < box.top - 1 || r.bottom > box.bottom + 1)
      out.push(`${svg.id}: '${text}' outside the chart`);
  }
  for (let i = 0; i < texts.length; i++) for (let j = i + 1; j < texts.length; j++) {
    const [a, ra] = texts[i], [b, rb] = texts[j];
    if (ra.left < rb.right - 0.5 && rb.left < ra.right - 0.5 && ra.top < rb.bottom - 0.5 && rb.top < ra.bottom - 0.5)
      out.push(`${svg.id}: '${a}' overlaps '${b}'`);
  }
  if (svg.querySelectorAll('text.axis-title').length !== 2) out.push(`${svg.id}: not two axis titles`);
}
return out;
"""


def check_page(driver: Any, name: str) -> None:
    """The page's charts are laid out cleanly, nothing is wider than the window, and a screenshot is kept."""
    assert driver.execute_script(CHART_LAYOUT) == [], name
    width = driver.execute_script("return [document.documentElement.scrollWidth, window.innerWidth]")
    assert width[0] <= width[1], f"{name}: the page scrolls sideways ({width[0]} > {width[1]})"
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    height = driver.execute_script("return document.documentElement.scrollHeight")
    size = driver.get_window_size()
    driver.set_window_size(size["width"], min(max(height + 120, 600), 6000))  # the whole page in one shot
    driver.save_screenshot(str(SCREENSHOTS / f"{name}.png"))
    driver.set_window_size(size["width"], size["height"])
    assert (SCREENSHOTS / f"{name}.png").stat().st_size > 10_000


def test_a_browser_sees_every_page(browsed: tuple[Store, History], tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as ec
    from selenium.webdriver.support.ui import Select, WebDriverWait

    store, made = browsed
    names = made.names
    with browsing(store, tmp_path) as (driver, url):
        wait = WebDriverWait(driver, 30)

        def visit(hash_: str, ready: str) -> None:
            driver.get("about:blank")  # a fresh load: nothing of the page before can satisfy the wait
            driver.get(f"{url}/{hash_}")
            wait.until(ec.presence_of_element_located((By.CSS_SELECTOR, ready)))

        def rows(selector: str) -> list[Any]:
            return driver.find_elements(By.CSS_SELECTOR, f"{selector} tbody tr")

        # the leaderboard: the latest race with its tie, the standings, the champion, charts with legends
        visit("#/", "#leaderboard tbody tr")
        wait.until(ec.presence_of_element_located((By.CSS_SELECTOR, "#rank-chart circle")))
        race3 = made.races[2]
        assert len(rows("#leaderboard")) == 4
        shown = {el.get_attribute("title") for el in driver.find_elements(By.CSS_SELECTOR, "#leaderboard .hotkey")}
        assert shown == {r.hotkey for r in store.race_results(race3)}
        assert len(driver.find_elements(By.CSS_SELECTOR, "#leaderboard .tie")) == 2
        assert "rank 2" in driver.find_element(By.ID, "ties").text
        # every standing says how sure it is: its 95% interval and P(rank 1), and whether the top is within noise
        heads = [th.text for th in driver.find_elements(By.CSS_SELECTOR, "#leaderboard thead th")]
        assert "95% interval" in heads and "P(rank 1)" in heads
        top = store.race_results(race3)[0]
        first_row = rows("#leaderboard")[0].text
        assert f"{top.low:.2f}–{top.high:.2f}" in first_row and f"{100 * top.p_rank1:.0f}%" in first_row
        assert "within noise" in driver.find_element(By.ID, "noise").text  # two miners tie at the top
        assert "95% interval" in [th.text for th in driver.find_elements(By.CSS_SELECTOR, "#standings thead th")]
        ranked = {r.hotkey for race in made.races[:3] for r in store.race_results(race)}
        assert len(rows("#standings")) == len(ranked)
        assert driver.find_element(By.CSS_SELECTOR, "#champion .hotkey").get_attribute("title") == names["offline-lite"]
        assert "since" in driver.find_element(By.ID, "champion").text
        assert driver.find_elements(By.CSS_SELECTOR, "svg[aria-label='final scores'] rect")
        assert len(driver.find_elements(By.CSS_SELECTOR, "#rank-chart .series")) == len(ranked)
        assert len(driver.find_elements(By.CSS_SELECTOR, ".chart-slot ul.legend li")) >= len(ranked) + 4
        check_page(driver, "leaderboard")

        # the live race: progress by miner, the queue, and it refreshes by itself
        visit("#/live", "#live-progress tbody tr")
        assert len(rows("#live-progress")) == 4
        done = driver.find_element(By.CSS_SELECTOR, ".done-count").text
        assert done == "5" and driver.find_element(By.CSS_SELECTOR, "#queue b").text == "10"
        deep = store.runs(race_id=made.live_race, hotkey=names["offline-deep"])[0]
        store.transition(deep.run_id, "starting")  # the node moves a run on
        wait.until(lambda d: d.find_element(By.CSS_SELECTOR, "#queue b").text == "9")
        page = driver.find_element(By.TAG_NAME, "body").text
        assert not [s for s in _live_content(store, made.live_race) if s in page]
        check_page(driver, "live")

        # a closed race: results with the tie, the miner x problem grid, its runs
        visit(f"#/race/{race3}", "#grid tbody tr")
        assert len(rows("#grid")) == 4 and all(len(r.find_elements(By.CSS_SELECTOR, "td")) == 4 for r in rows("#grid"))
        assert len(driver.find_elements(By.CSS_SELECTOR, "#grid td.cell.errored")) == 4
        assert len(driver.find_elements(By.CSS_SELECTOR, "#results .tie")) == 2
        assert "P(rank 1)" in [th.text for th in driver.find_elements(By.CSS_SELECTOR, "#results thead th")]
        assert "within noise" in driver.find_element(By.ID, "noise").text
        wait.until(lambda d: d.find_element(By.ID, "run-total").text == "16")
        check_page(driver, "race")

        # the demo's race, pooled by its two validators: both bundles verified, and the pooled standings
        visit(f"#/race/{made.races[0]}", "#pool-validators tbody tr")
        assert len(rows("#pool-validators")) == 2 and "pooled" in driver.find_element(By.ID, "pool").text
        assert all("verified" in r.text for r in rows("#pool-validators"))
        assert len(rows("#pool-standings")) == len(store.race_results(made.races[0]))
        check_page(driver, "race-pooled")

        # the running race: numbered problems, statuses, the notice
        visit(f"#/race/{made.live_race}", "#grid tbody tr")
        assert "hidden until it closes" in driver.find_element(By.ID, "hidden").text
        heads = [th.text for th in driver.find_elements(By.CSS_SELECTOR, "#grid thead th")]
        assert heads[1:] == ["#1", "#2", "#3", "#4"]
        check_page(driver, "race-running")

        # runs: filter with the form, sort by a column, page
        visit("#/runs", "#runs tbody tr")
        total = len(store.runs())
        pages = -(-total // 25)
        assert driver.find_element(By.ID, "run-total").text == str(total) and len(rows("#runs")) == 25
        Select(driver.find_element(By.CSS_SELECTOR, "#run-filters select[name=status]")).select_by_visible_text(
            "errored"
        )
        driver.find_element(By.CSS_SELECTOR, "#run-filters button").click()
        errored = len(store.runs(status="errored"))
        wait.until(lambda d: d.find_element(By.ID, "run-total").text == str(errored))
        assert all("errored" in r.text for r in rows("#runs"))
        visit("#/runs", "#runs tbody tr")
        first_page = [r.text for r in rows("#runs")]
        driver.find_element(By.ID, "next").click()
        wait.until(lambda d: f"page 2 of {pages}" in d.find_element(By.ID, "pager").text)
        assert not set(first_page) & {r.text for r in rows("#runs")}
        driver.find_element(By.CSS_SELECTOR, "#runs th a[data-sort=score]").click()
        wait.until(
            lambda d: "sort=score" in d.current_url and f"page 1 of {pages}" in d.find_element(By.ID, "pager").text
        )
        scores = [float(r.find_elements(By.CSS_SELECTOR, "td")[5].text) for r in rows("#runs")]
        assert scores == sorted(scores) and "▲" in driver.find_element(By.CSS_SELECTOR, "#runs thead").text
        assert "block" in rows("#runs")[0].find_elements(By.CSS_SELECTOR, "td")[0].text  # relative time, block
        check_page(driver, "runs")

        # a run of the demo's race: the answer beside the gold with each check, readable steps, the download
        run = [r for r in store.runs(race_id=made.races[0]) if r.tool_calls and _is_shoppingbench(store, r.problem_id)][
            0
        ]
        visit(f"#/run/{run.run_id}", "#steps .step")
        steps = driver.find_elements(By.CSS_SELECTOR, "#steps .step")
        assert len(steps) == len(store.events(run.run_id))
        verdict = driver.find_element(By.ID, "verdict").text
        assert "gate" in verdict and "offline" in verdict
        cited = store.score(run.run_id).judge_evidence or []  # type: ignore[union-attr]
        assert len(driver.find_elements(By.CSS_SELECTOR, "#steps .step.cited")) == len(set(cited))
        assert driver.find_elements(By.CSS_SELECTOR, "#checks tbody tr")  # the strict breakdown, field by field
        gold = rows("#gold")
        problem = next(
            p
            for p in store.problems(store.race(run.race_id).pack_id)  # type: ignore[union-attr]
            if p.problem_id == run.problem_id
        )
        assert len(gold) == len(problem.data["reward"])
        assert str(problem.data["reward"][0]["product_id"]) in gold[0].text and (
            "✓" in gold[0].text or "✗" in gold[0].text
        )
        for step in steps:  # each step's result is a table, a list or text: never a raw JSON dump
            body = step.find_element(By.CSS_SELECTOR, ".step-body").text.strip()
            assert body and body[0] not in "[{", body[:80]
            assert not step.find_element(By.CSS_SELECTOR, "details pre").is_displayed()
        assert any(s.find_elements(By.CSS_SELECTOR, "table.result") for s in steps)
        page = driver.find_element(By.TAG_NAME, "body").text
        assert "ruleset shoppingbench v1" in page and "WordLlama" in page and "Qwen3-Embedding-0.6B" in page
        assert "race block" in page and "ago" in page
        href = driver.find_element(By.ID, "download").get_attribute("href")
        fetched = driver.execute_async_script(
            "const done = arguments[1]; fetch(arguments[0])"
            ".then(r => r.text().then(t => done([r.headers.get('content-disposition'), t])))",
            href,
        )
        assert "attachment" in fetched[0] and len(fetched[1].splitlines()) == len(steps)
        check_page(driver, "run")

        # an errored run: the sandbox's facts, always
        visit(f"#/run/{made.oom_runs[0]}", "#sandbox")
        assert driver.find_element(By.ID, "exit-code").text == "137" and driver.find_element(By.ID, "oom").text == "yes"
        assert (
            "MemoryError" in driver.find_element(By.ID, "stderr").text
            and "1004" in driver.find_element(By.ID, "blame").text
        )
        check_page(driver, "run-errored")

        # a run of the running race: its status and timing, nothing of its content
        hidden = next(r for r in store.runs(race_id=made.live_race) if r.status == "finished")
        visit(f"#/run/{hidden.run_id}", "#hidden")
        assert not driver.find_elements(By.ID, "query") and not driver.find_elements(By.ID, "steps")
        page = driver.find_element(By.TAG_NAME, "body").text
        assert not [s for s in _live_content(store, made.live_race) if s in page] and "finished" in page
        check_page(driver, "run-hidden")

        # a miner: its races, submissions, weights, charts, and a link to its runs
        visit(f"#/miner/{names['offline-lite']}", "#miner-races tbody tr")
        assert len(rows("#miner-races")) == 3 and len(rows("#miner-weights")) == 3
        assert "95% interval" in [th.text for th in driver.find_elements(By.CSS_SELECTOR, "#miner-races thead th")]
        first = {r.hotkey: r for r in store.race_results(made.races[0])}
        assert [r.find_elements(By.CSS_SELECTOR, "td")[2].text for r in rows("#miner-races")] == [
            f"{first[names['offline-lite']].rank} of {len(first)}",
            "1 of 4",
            "1 of 4",
        ]
        assert len(driver.find_elements(By.CSS_SELECTOR, "#miner-score-chart circle")) == 3
        assert made.live_race in driver.find_element(By.ID, "miner-open").text
        check_page(driver, "miner")
        driver.find_element(By.ID, "miner-runs").click()
        # its 16 race runs and its 3 qualifying runs
        wait.until(lambda d: d.find_elements(By.ID, "run-total") and d.find_element(By.ID, "run-total").text == "19")
        visit(f"#/miner/{names['copycat']}", "#miner-submissions tbody tr")
        copy = rows("#miner-submissions")[0].text
        assert "copy" in copy and "same normalized source" in copy
        check_page(driver, "miner-copycat")

        # weights: the history per uid, in a chart and a table, with the ties of each race
        visit("#/weights", "#weight-chart circle")
        uids = {u for ws in store.weight_sets() for u in ws.vector}
        assert len(rows("#weights")) == 3 and len(rows("#weight-history")) == len(uids)
        groups = 0
        for ws in store.weight_sets():
            scores = [r.score for r in store.race_results(ws.race_id)]  # type: ignore[arg-type]
            groups += len({s for s in scores if scores.count(s) > 1})
        assert len(driver.find_elements(By.CSS_SELECTOR, "#weights .tie")) == groups >= 2
        check_page(driver, "weights")
        visit("#/miners", "#miners tbody tr")
        check_page(driver, "miners")
        visit("#/submissions", "#submissions tbody tr")
        check_page(driver, "submissions")

        # on a phone: every page fits the screen's width and its charts are still clean
        driver.set_window_size(390, 844)
        for name, hash_, ready in (
            ("leaderboard", "#/", "#rank-chart circle"),
            ("live", "#/live", "#live-progress"),
            ("race", f"#/race/{race3}", "#grid"),
            ("runs", "#/runs", "#runs tbody tr"),
            ("run", f"#/run/{run.run_id}", "#steps .step"),
            ("miner", f"#/miner/{names['offline-lite']}", "#miner-score-chart circle"),
            ("weights", "#/weights", "#weight-chart circle"),
        ):
            visit(hash_, ready)
            assert driver.execute_script("return window.innerWidth") <= 400
            check_page(driver, f"phone-{name}")


def test_once_the_race_closes_its_runs_are_shown_in_full(history: tuple[Store, History], hclient: TestClient) -> None:
    """Runs last: it closes the running race."""
    store, made = history
    for run in store.runs(race_id=made.live_race):
        if run.status in {"pending", "starting", "running"}:
            if run.status == "pending":
                store.transition(run.run_id, "starting")
            if run.status != "running":
                store.transition(run.run_id, "running")
            store.record_run(run.run_id, "errored", [], error_code=1003, error="timed out")
    close(store, made.live_race)
    race = hclient.get(f"/api/races/{made.live_race}").json()
    assert race["revealed"] and len(race["problem_ids"]) == 4 and len(race["results"]) == 4
    runs = hclient.get("/api/runs", params={"race_id": made.live_race, "limit": 500}).json()["items"]
    assert not any(r["hidden"] for r in runs) and all(r["problem_id"] in race["problem_ids"] for r in runs)
    finished = next(r for r in runs if r["status"] == "finished" and r["success"])
    page = hclient.get(f"/api/runs/{finished['run_id']}").json()
    assert page["problem"]["query"] and page["strict"]["extras"]["products"][0]["checks"]
    gold = {s["id"]: s for s in page["sections"]}.get("gold")  # ShoppingBench's answer beside the gold
    assert gold is not None, [(s["id"], s.get("note")) for s in page["sections"]]
    assert page["answer"] == gold["rows"][0][1][0]["text"] == gold["rows"][0][2][0]["text"]
    assert hclient.get(f"/api/runs/{finished['run_id']}/trajectory").status_code == 200
    grid = hclient.get(f"/api/races/{made.live_race}/grid").json()
    assert [p["problem_id"] for p in grid["problems"]] == race["problem_ids"]


# --- a shopping session's run (docs/sessions.md): the conversation, the shopper's reveals, the attribution ---


def _session_secrets(problem: SessionProblem) -> list[str]:
    """What the session's plan holds that the agent is never told up front: the shopper's lines, the gold."""
    lines = [c.say for c in problem.constraints if c.say] + [e.say for e in problem.events]
    return [*lines, *problem.gold_ids]


def test_a_session_run_shows_its_plan_once_its_race_closed(sessions: tuple[Store, str, SessionProblem]) -> None:
    store, run_id, problem = sessions
    client = TestClient(create_app(store))
    page = client.get(f"/api/runs/{run_id}").json()
    assert page["task"] == "session" and page["problem"]["query"] == problem.query
    sections = {s["id"]: s for s in page["sections"]}  # the session family's run page (`Family.run_sections`)
    assert sections["session-verdict"]["facts"]["gold"] == ", ".join(problem.gold_ids)
    rows = sections["attribution"]["rows"]
    assert [(r[0][0]["text"], r[1]) for r in rows] == [(c.cid, c.src) for c in problem.constraints]
    assert all(f"{e.update.cid} →" in sections["attribution"]["note"] for e in problem.events)
    assert sections["conversation"]["entries"][0] == {
        "who": "shopper",
        "kind": "opening",
        "label": "opening",
        "text": problem.query,
    }
    strict = page["strict"]
    assert strict["task"] == "session" and strict["success"] is True
    names = [c["name"] for c in strict["checks"]]
    assert {f"constraint {c.cid}" for c in problem.constraints} <= set(names) and "score" in names
    assert {s["name"] for s in page["steps"]} >= {"get_user_profile", "ask_user", "respond", "recommend_product"}
    # while its race runs, nothing of the session is shown: no plan, no steps, no shopper line, no gold
    store.set_race_status(page["race_id"], "running")
    try:
        hidden = client.get(f"/api/runs/{run_id}")
        assert hidden.json()["hidden"] and "sections" not in hidden.json() and "steps" not in hidden.json()
        assert not [s for s in _session_secrets(problem) if s in hidden.text]
        assert client.get(f"/api/runs/{run_id}/trajectory").status_code == 403
    finally:
        store.set_race_status(page["race_id"], "closed")


def test_a_browser_sees_a_sessions_conversation_and_attribution(
    sessions: tuple[Store, str, SessionProblem], tmp_path: Path
) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as ec
    from selenium.webdriver.support.ui import WebDriverWait

    store, run_id, problem = sessions
    events = store.events(run_id)
    talk = [e for e in events if e.name in ("ask_user", "respond")]
    strict = store.score(run_id).strict  # type: ignore[union-attr]
    records = {
        c["name"].removeprefix("constraint "): json.loads(c["evidence"])
        for c in strict["checks"]
        if c["name"].startswith("constraint ")
    }
    with browsing(store, tmp_path) as (driver, url):
        wait = WebDriverWait(driver, 30)
        driver.get(f"{url}/#/run/{run_id}")
        wait.until(ec.presence_of_element_located((By.CSS_SELECTOR, "#conversation li.turn.commit")))
        turns = driver.find_elements(By.CSS_SELECTOR, "#conversation li.turn")
        # the opening first, then the profile read, the questions and proposals each with the shopper's reply
        assert "opening" in turns[0].get_attribute("class") and problem.query in turns[0].text
        assert driver.find_elements(By.CSS_SELECTOR, "#conversation li.turn.profile")
        replies = driver.find_elements(By.CSS_SELECTOR, "#conversation li.turn.reply")
        assert [r.find_element(By.CSS_SELECTOR, ".said").text for r in replies] == [e.result["user"] for e in talk]
        asked = driver.find_elements(By.CSS_SELECTOR, "#conversation li.turn.question, #conversation li.turn.proposal")
        assert len(asked) == len(talk)
        proposed = [i for e in talk if e.name == "respond" for i in e.arguments["product_ids"]]
        assert all(i in driver.find_element(By.ID, "conversation").text for i in proposed)
        # the replies that revealed a constraint are marked with it, at the turn the attribution gives
        revealed = {cid: r["revealed_at"] for cid, r in records.items() if r["revealed_at"]}
        assert revealed, "the reference agent's session reveals a constraint when asked"
        for cid, turn in revealed.items():
            reply = driver.find_element(By.CSS_SELECTOR, f"#conversation li.reply[data-turn='{turn}']")
            assert "revealed" in reply.get_attribute("class") and f"reveals {cid}" in reply.text
        if problem.events:  # the change of mind is marked too
            assert any(f"changes {e.update.cid}" in r.text for e in problem.events for r in replies)
        commit = driver.find_element(By.CSS_SELECTOR, "#conversation li.turn.commit").text
        assert strict["answer"][0] in commit
        # beside it: one attribution row per constraint, the rubric items, the score formula
        rows = driver.find_elements(By.CSS_SELECTOR, "#attribution tbody tr")
        assert [r.find_elements(By.CSS_SELECTOR, "td")[0].text.split("\n")[0] for r in rows] == [
            c.cid for c in problem.constraints
        ]
        assert [r.find_elements(By.CSS_SELECTOR, "td")[1].text for r in rows] == [c.src for c in problem.constraints]
        rubric = [c for c in strict["checks"] if c["name"].startswith("rubric ")]
        assert len(driver.find_elements(By.CSS_SELECTOR, "#rubric tbody tr")) == len(rubric) > 0
        formula = driver.find_element(By.ID, "score-formula").text
        assert "weighted_pass" in formula and "final" in formula
        # ShoppingBench's answer-beside-the-gold table and field checks are not drawn for a session
        assert not driver.find_elements(By.ID, "gold") and not driver.find_elements(By.ID, "checks")
        assert len(driver.find_elements(By.CSS_SELECTOR, "#steps .step")) == len(events)
        check_page(driver, "run-session")
        # the demo's own sessions (its races mix them with ShoppingBench problems), raced by the offline template
        # through the gateway: each reply shown, in order
        raced = [
            r
            for race in store.races(status="closed")
            if race.race_id != store.run(run_id).race_id  # type: ignore[union-attr]
            for r in store.runs(race_id=race.race_id)
            if r.status == "finished" and not _is_shoppingbench(store, r.problem_id)
        ]
        for other in raced[:2]:
            talked = [e for e in store.events(other.run_id) if e.name in ("ask_user", "respond") and e.error is None]
            said = [e.result["user"] for e in talked]
            driver.get("about:blank")
            driver.get(f"{url}/#/run/{other.run_id}")
            wait.until(ec.presence_of_element_located((By.CSS_SELECTOR, "#attribution tbody tr")))
            shown = driver.find_elements(By.CSS_SELECTOR, "#conversation li.turn.reply .said")
            assert [r.text for r in shown] == said and said
        driver.set_window_size(390, 844)
        driver.get("about:blank")
        driver.get(f"{url}/#/run/{run_id}")
        wait.until(ec.presence_of_element_located((By.CSS_SELECTOR, "#attribution tbody tr")))
        check_page(driver, "phone-run-session")
