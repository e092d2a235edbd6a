"""Who pays for a run's LLM calls, and the miners' keys where they pay (`docs/validator.md`, "Who pays for inference").

`KeyRing.route_for(run)` is asked before each attempt: under the payer policy ``validator`` (the pack's rotation
``payer`` wins over ``--gateway.payer``) the node's key pays (None); under ``miner`` and ``either`` the run's miner
is asked once per race for its key, sealed (`validator.submissions.llmkey`), at its axon (or the host of its
commitment's URL), and the run goes to the miner's provider with it (`sandbox.gateway.MinerRoute`). A miner that
cannot hand a usable key (none, a provider the operator does not allow, an answer that does not open) pays nothing
under ``either`` (the node's key pays) and under ``miner`` is refused at qualifying, before its round opens
(`KeyRing.refusal`, one line), and has any run refused (`KeyRefused`: the run ends 1009, one line, never the key). A
miner's server that does not answer at all is never held against it: a blip on the node's side looks the same, so it
is not kept for the race (`KeyUnreachable`: under ``miner`` the attempt ends 2011, nobody's fault, and is tried
again, asking again; under ``either`` the node's key pays that attempt). The keys live in this object's memory only,
per race, and are forgotten as soon as their race is no longer running."""

from __future__ import annotations

import threading
from types import SimpleNamespace
from typing import Any

from arena import blame
from arena.spend import PayerPolicy, Provider
from sandbox.gateway import MinerRoute
from validator.chain.sealedkey import MinerUnreachable, OpenedKey, SealedKeyError
from validator.submissions.llmkey import request_key


class KeyRefused(Exception):
    """The miner pays and handed no usable key: one line saying why (never a key)."""

    code = blame.MINER_KEY_REFUSED


class KeyUnreachable(Exception):
    """The miner pays and its server did not answer the key request: nobody's fault (a blip on the node's side looks
    the same), never kept for the race; the run is tried again and asks again."""

    code = blame.PROVIDER_DOWN


class ProviderDropped(Exception):
    """The miner pays at a provider this race goes on without (it failed `drop_after` times): one line saying which
    and why."""

    code = blame.PROVIDER_DROPPED


class KeyRing:
    """The miners' LLM keys of the races running now, in memory only."""

    def __init__(
        self,
        *,
        store: Any,
        chain: Any,
        wallet: Any,
        providers: dict[str, Provider],
        payer: PayerPolicy,
        pack: Any = None,
        timeout: float = 10.0,
        log: Any = None,
        drop_after: int = 8,
    ) -> None:
        self.store, self.chain, self.wallet, self.pack, self.log = store, chain, wallet, pack, log
        self.providers, self.payer, self.timeout = providers, payer, timeout
        #: (race id, miner hotkey) -> its opened key, or the one line saying why it has none
        self._held: dict[tuple[str, str], OpenedKey | str] = {}
        self._lock = threading.Lock()
        self._asking: dict[tuple[str, str], threading.Lock] = {}  # one request per miner and race at a time
        #: a provider's failures (2011) in a race, counted per miner paying there: past `drop_after` (0: never) the
        #: race goes on without that miner's runs there. Never over every miner paying there: an agent can make its
        #: own calls fail (a long completion it hangs up on is a stall), and would drop its rivals' runs with its own
        self.drop_after = drop_after
        self._failures: dict[tuple[str, str, str], int] = {}
        #: (race id, provider, miner hotkey) -> why the race goes on without that miner's runs there
        self._dropped: dict[tuple[str, str, str], str] = {}

    def policy(self) -> PayerPolicy:
        """The pack's rotation ``payer`` where it sets one, else the operator's setting."""
        rotation = getattr(self.pack, "rotation", None)
        return getattr(rotation, "payer", None) or self.payer

    def route_for(self, run: Any) -> MinerRoute | None:
        """Where `run`'s LLM calls go: None (the node's key), or the miner's provider with its key; `KeyRefused`
        when the miner must pay and cannot."""
        policy = self.policy()
        if policy == "validator":
            return None
        try:
            held = self._key(run)
        except KeyUnreachable:
            if policy == "miner":
                raise
            return None  # `either`: the node's key pays for this attempt; the next run asks again
        if isinstance(held, str):
            if policy == "miner":
                raise KeyRefused(f"the miner pays for its LLM calls in this race and handed no usable key: {held}")
            return None
        dropped = self._dropped.get((run.race_id, held.provider, run.hotkey))
        if dropped is not None:
            if policy == "miner":
                raise ProviderDropped(dropped)
            return None  # `either`: the node's key pays at its own upstream
        return MinerRoute(held.provider, self.providers[held.provider], held.key, held.model)

    def refusal(self, race_id: str, submission: Any) -> str | None:
        """Before `submission`'s qualifying round `race_id` opens: under the payer policy ``miner``, the one line
        refusing a miner that hands no usable key (none, a provider the operator does not allow, an answer that does
        not open); None when it may race. The key opened is held for the round. `MinerUnreachable` when the miner's
        server does not answer (nothing decided: asked again at the next tick)."""
        if self.policy() != "miner":
            return None
        asked = SimpleNamespace(race_id=race_id, hotkey=submission.hotkey, submission_id=submission.id)
        try:
            held = self._key(asked)
        except KeyUnreachable as exc:
            raise MinerUnreachable(str(exc)) from None
        return held if isinstance(held, str) else None

    def provider_failed(self, race_id: str, provider: str, hotkey: str, error: str | None) -> str | None:
        """Count one failure (2011) of `provider` in `race_id` on a run of miner `hotkey`; returns the one line saying
        why the race goes on without that miner's runs there when this failure is its `drop_after`-th (None
        otherwise). Another miner's runs at the same provider are not touched: each miner's count is its own."""
        with self._lock:
            at = (race_id, provider, hotkey)
            count = self._failures[at] = self._failures.get(at, 0) + 1
            if not self.drop_after or count != self.drop_after:
                return None
            line = (
                f"the race goes on without this miner's runs paid at provider {provider!r}: it failed {count} times on "
                f"them in this race (--gateway.provider_failures {self.drop_after}; the latest: {error})"
            )[:500]
            self._dropped[at] = line
        if self.log is not None:
            self.log(
                "races.provider_dropped", race_id=race_id, provider=provider, hotkey=hotkey, failures=count, reason=line
            )
        return line

    def dropped(self, race_id: str) -> dict[tuple[str, str], str]:
        """The (provider, miner hotkey) pairs `race_id` goes on without, and why."""
        return {(p, h): line for (race, p, h), line in self._dropped.items() if race == race_id}

    def forget(self, race_id: str | None = None) -> None:
        """Drop the keys of `race_id` (None: of every race no longer running)."""
        with self._lock:
            races = {race for race, _ in self._held}
            gone = {race_id} if race_id is not None else {r for r in races if not self._running(r)}
            for key in [k for k in self._held if k[0] in gone]:
                del self._held[key]
            tables: tuple[dict[Any, Any], ...] = (self._asking, self._failures, self._dropped)
            for table in tables:
                for key in [k for k in table if k[0] in gone]:
                    del table[key]

    def held(self) -> int:
        """How many miners' keys are held now (for a status line: never the keys)."""
        return sum(1 for v in self._held.values() if not isinstance(v, str))

    def _running(self, race_id: str) -> bool:
        race = self.store.race(race_id)
        return race is not None and race.status == "running"

    def _key(self, run: Any) -> OpenedKey | str:
        race_id, hotkey = run.race_id, run.hotkey
        with self._lock:
            asking = self._asking.setdefault((race_id, hotkey), threading.Lock())
        with asking:  # the miner's runs in flight at once ask it once
            with self._lock:
                if (race_id, hotkey) in self._held:
                    return self._held[(race_id, hotkey)]
            return self._ask(run)

    def _ask(self, run: Any) -> OpenedKey | str:
        race_id, hotkey = run.race_id, run.hotkey
        self.forget()
        try:
            held: OpenedKey | str = request_key(
                self._source(run), wallet=self.wallet, miner_hotkey=hotkey, allowed=self.providers, timeout=self.timeout
            )
        except MinerUnreachable as exc:  # not kept: asked again by the miner's next attempt
            if self.log is not None:
                self.log("races.miner_key_unreachable", race_id=race_id, hotkey=hotkey, reason=str(exc))
            raise KeyUnreachable(f"the miner pays for its LLM calls in this race and {exc}") from None
        except SealedKeyError as exc:
            held = str(exc)
            if self.log is not None:
                self.log("races.miner_key_refused", race_id=race_id, hotkey=hotkey, reason=held)
        with self._lock:
            return self._held.setdefault((race_id, hotkey), held)

    def _source(self, run: Any) -> Any:
        """The miner's axon, else the URL its run's submission was fetched from."""
        try:
            neuron = next((n for n in self.chain.metagraph().neurons if n.hotkey == run.hotkey), None)
        except Exception:  # noqa: BLE001 - the chain away: the submission's URL may still serve
            neuron = None
        if neuron is not None and neuron.axon is not None and neuron.axon.port > 0:
            return neuron.axon
        source = str(getattr(self.store.submission(run.submission_id), "source", "") or "")
        return source.removeprefix("axon ").strip() or None


__all__ = ["KeyRefused", "KeyRing", "KeyUnreachable", "ProviderDropped"]
