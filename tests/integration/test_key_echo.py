"""A provider that reflects the miner's key in every form it could (`arena.keymask`): whole, JSON-escaped, split across
fields and tokens, percent-encoded, as HTML entities, upper-cased, base64-encoded, in a repeated field, in an error
body and in its headers. The agent behind the gateway never gets it, nor does the trajectory or the log (grepped for
every form)."""

from __future__ import annotations

import base64
import json
import logging
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx
import pytest
from pydantic import SecretStr

from arena.keymask import KeyMask, key_problem
from arena.spend import Price, Provider
from sandbox.gateway import Gateway, GatewayServer, MinerRoute, Upstream
from tests.support.keyleak import entities, escaped, leaks, percent

pytestmark = pytest.mark.slow  # the gateway's server and a provider on loopback

KEY = "sk-miner-own-key-abcdefghijklmnop"
NODE_KEY = "node-secret-key-0123456789"
MODEL = "miner-model"


def completion(content: Any, **extra: Any) -> dict[str, Any]:
    message = {"role": "assistant", "content": content}
    usage = {"prompt_tokens": 3, "completion_tokens": 5, "total_tokens": 8}
    return {
        "id": "c1",
        "object": "chat.completion",
        "model": MODEL,
        "usage": usage,
        **extra,
        "choices": [{"index": 0, "finish_reason": "stop", "message": message}],
    }


def answer_for(form: str, key: str) -> tuple[int, bytes]:
    """What a provider that reflects `key` answers when asked for `form`: (status, raw body)."""
    if form == "escaped":  # every character of the key JSON-escaped: the raw body never holds the key's bytes
        raw = json.dumps(completion("KEY")).replace('"KEY"', f'"{escaped(key)}"')
        return 200, raw.encode()
    if form == "split":  # the key in pieces: two fields apart, and in small adjacent tokens
        pieces = [{"token": key[i : i + 4]} for i in range(0, len(key), 4)]
        return 200, json.dumps(completion(key[:16], system_fingerprint=key[16:], logprobs={"content": pieces})).encode()
    if form == "duplicate":  # a repeated field: a parser keeps the last, another the first
        raw = json.dumps(completion("clean")).replace('"content": "clean"', f'"content": "{key}", "content": "clean"')
        return 200, raw.encode()
    if form == "error":  # a bad request whose error body quotes the header it got
        return 400, json.dumps({"error": {"message": f"bad request; Authorization: Bearer {key}"}}).encode()
    forms = {
        "base64": "Basic " + base64.b64encode(f"user:{key}".encode()).decode(),
        "plain": key,
        "percent": percent(key),
        "entities": entities(key),
        "upper": key.upper(),
        "query": f"https://provider.example/v1?api_key={percent(key)}&x=1",
    }
    return 200, json.dumps(completion(f"the key you sent: {forms[form]}", **{key: "a field named after it"})).encode()


class EchoProvider:
    """An OpenAI-compatible server that requires the key and reflects it as the user message asks, and in a header."""

    def __init__(self, key: str) -> None:
        self.key = key
        provider = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:  # noqa: N802
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)))
                given = self.headers.get("Authorization", "").removeprefix("Bearer ")
                if given != provider.key:
                    status, raw = 401, json.dumps({"error": {"message": f"Incorrect API key: {given}"}}).encode()
                else:
                    status, raw = answer_for(body["messages"][-1]["content"], given)
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("X-Echo-Authorization", f"Bearer {given}")
                self.send_header("Set-Cookie", f"session={percent(given)}")
                self.send_header("Content-Length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        self.base_url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


FORMS = ["plain", "escaped", "split", "duplicate", "error", "percent", "entities", "upper", "query", "base64"]


@pytest.fixture
def echo() -> Iterator[EchoProvider]:
    server = EchoProvider(KEY)
    yield server
    server.close()


def test_no_form_of_the_key_a_provider_reflects_reaches_the_agent_the_trajectory_or_the_log(
    tiny_catalog, tmp_path, echo, caplog, capfd
) -> None:
    caplog.set_level(logging.DEBUG)
    gw = Gateway(tiny_catalog, upstream=Upstream(api_key=NODE_KEY))
    route = MinerRoute("local", Provider(base_url=echo.base_url, models={MODEL: Price()}), SecretStr(KEY))
    seen: list[str] = []
    with GatewayServer(gw, tmp_path / "gw" / "gateway.sock") as server:
        run = gw.open_run("echo", route=route)
        transport = httpx.HTTPTransport(uds=str(server.socket_path))
        with httpx.Client(
            transport=transport, base_url="http://gw", headers={"Authorization": f"Bearer {run.token}"}
        ) as c:
            for form in FORMS:
                reply = c.post(
                    "/v1/chat/completions", json={"model": MODEL, "messages": [{"role": "user", "content": form}]}
                )
                assert reply.status_code == (400 if form == "error" else 200), (form, reply.text)
                # cut out, and the agent told so (a repeated field is dropped as the answer is written anew)
                assert "[miner key]" in reply.text or form == "duplicate", form
                seen += [reply.text, json.dumps(dict(reply.headers))]
        record = gw.close_run("echo")
    seen += [e.model_dump_json() for e in record.events]
    seen += [caplog.text, *capfd.readouterr()]
    for text in seen:
        assert leaks(text, KEY) == [], text[:300]
    # what the agent still gets: the answer around the key, the provider's usage counted as before
    assert sum(e.cost is not None and bool(e.tokens) for e in record.events) == len(FORMS) - 1


def test_a_key_outside_the_token_alphabet_is_refused_in_one_line() -> None:
    assert key_problem(KEY) is None
    assert "outside A-Z a-z 0-9" in (key_problem('sk-abc"def0123456789') or "")
    assert "outside A-Z a-z 0-9" in (key_problem("sk-abc def0123456789") or "")
    assert "outside A-Z a-z 0-9" in (key_problem("sk-abc%2Fdef0123456789") or "")
    assert "at least 16" in (key_problem("sk-short") or "")
    assert "empty" in (key_problem("") or "")


def test_the_mask_leaves_an_answer_without_the_key_alone() -> None:
    doc = completion("a cotton shirt, size M, 420 pesos; sk-proj is a prefix, not a key")
    assert KeyMask(KEY).mask(doc) == (doc, False)


def test_a_key_of_digits_is_cut_out_of_the_answers_numbers() -> None:
    """The alphabet allows a key of digits only; a provider that reflects it as a JSON number (an id, a user field)
    has it cut out like a string, whole or inside a longer number; other numbers are left alone."""
    key = "1234567890123456789"
    assert key_problem(key) is None
    doc = completion("fine", user=int(key), seed=int("9" + key[:12]), logprobs=[3, 1234567, 7654321])
    masked, cut = KeyMask(key).mask(json.loads(json.dumps(doc)))
    assert cut and masked["user"] == "[miner key]" and masked["seed"] == "[miner key]"
    assert masked["usage"] == doc["usage"] and masked["logprobs"] == [3, 1234567, 7654321]
    assert leaks(json.dumps(masked), key) == []
    assert KeyMask(key).mask(int(key)) == ("[miner key]", True)
    assert KeyMask(KEY).mask(json.loads(json.dumps(doc))) == (doc, False)  # a key with no run of digits: untouched
