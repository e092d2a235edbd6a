"""A real OpenAI-compatible HTTP server on loopback, for tests: the one allowed double (an upstream LLM we cannot
reach here). It is the product's scripted server (`demo.scripted_llm`, which the demo's model runs on too): it
answers ``POST /v1/chat/completions`` and ``GET /v1/models`` with deterministic completions computed by a responder
function from the request, and records every request it received.

A responder returns the assistant's text, or a whole assistant message (a dict with ``content`` and optionally
``tool_calls`` in OpenAI's shape) to script a tool-calling model; it raises `Fail` to answer with an HTTP error (JSON,
or a proxy's HTML page), `Drop` to close the connection unanswered, `Trickle` to send its answer a byte at a time."""

from __future__ import annotations

from demo.scripted_llm import Drop, Fail, OpenAIServer, Responder, Trickle

__all__ = ["Drop", "Fail", "OpenAIServer", "Responder", "Trickle"]
