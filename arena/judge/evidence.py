"""The judge's input: a run's gateway log rendered as quoted, delimited text.

Built only from the gateway's events (the agent cannot touch them; nothing the agent prints or returns is used):

```
<problem id=p-1 task=product>
query:
| I need a rattan storage basket under 400
</problem>
<events count=6>
<event seq=0 kind=llm_call name=gpt-4o status=200>
request: 2 messages, 7 tools, 812 prompt tokens, 3456 chars of message text
completion: 64 tokens, finish_reason=tool_calls
content:
| I will search for rattan baskets first.
tool_calls:
| find_product {"q":"rattan storage basket"}
</event>
<event seq=1 kind=tool_call name=find_product status=200>
arguments:
| {"q":"rattan storage basket"}
result:
| [{"price":349.0,"product_id":"5001000001",...
[truncated: 1500 of 9876 chars]
</event>
[dropped: 12 events (seq 10 to 21) to keep the evidence under 60000 chars]
...
</events>
<answer seq=4>
| 5001000001
</answer>
```

Quoting rules (what keeps an agent inside its block):

- every line of text that comes from the trajectory or the problem (arguments, results, completions, errors, the
  answer, the query) is prefixed with ``| ``; lines without the prefix (tags, labels, ``[truncated: ...]`` and
  ``[dropped: ...]`` notes) are written by this module only, so data cannot forge a note or a label;
- inside quoted text, ``&``, ``<`` and ``>`` are escaped as ``&amp;``, ``&lt;``, ``&gt;`` after NFKC normalization
  (so full-width and small-form look-alikes of ``<`` are caught too), and control and invisible format characters
  (bidi overrides, zero-width characters, Unicode tag characters) are removed; every line break (CR, LS, PS, NEL...)
  starts a new prefixed line. No text from a run can therefore open or close a tag (``</event>``, ``<event``,
  ``</evidence>``...);
- values inside tags (event names, model names, problem id, finish reason) are reduced to ``[A-Za-z0-9._:/@+-]``.

Sizes: tool results, tool arguments, errors, the query and the answer are cut to ``max_result_chars`` each (LLM
completion text to twice that), with the original length noted; JSON is rendered compactly with sorted keys, so the
same events give the same text whether they come from memory or from a JSONB column. When the whole would exceed
``max_total_chars``, events are dropped from the middle (the first and last ones are kept, then alternately the next
from the front and from the back) and one note says which. For an LLM call only the new assistant output is shown
(content, reasoning content, tool calls), the request by its size. The LLM judge's is focused: `arena.judge.focus`.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Mapping
from typing import Any, Protocol

from arena.tasks.answer import answer_tools, final_recommendation, raw_product_ids
from arena.trajectory import TrajectoryEvent

QUOTE = "| "
#: Completion text is cut at this multiple of ``max_result_chars``.
COMPLETION_FACTOR = 2

# control characters (Cc) and invisible format characters (Cf) that could hide or reorder text
_INVISIBLE = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u00ad\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u180e\u200b-\u200f"
    "\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb\U000110bd\U000110cd\U00013430-\U0001343f"
    "\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0001\U000e0020-\U000e007f]"
)
_UNSAFE_LABEL = re.compile(r"[^A-Za-z0-9._:/@+\-]")
_LABEL_MAX = 80


class Lens(Protocol):
    """What a focused evidence shows of a tool result (`arena.judge.focus.Focus`)."""

    def result(self, name: str, seq: int, result: Any) -> tuple[Any, list[str]]: ...

    def made(self, ordered: list[TrajectoryEvent]) -> dict[int, dict[tuple[str, str], int]]: ...

    def content(self, seq: int, text: str, limit: int) -> list[str]: ...

    def same(self, event: TrajectoryEvent) -> int | None: ...


def _neutral(text: str) -> str:
    """Normalize, strip invisible characters, escape ``& < >``. Line breaks are kept (as ``\\n``)."""
    text = unicodedata.normalize("NFKC", text)
    text = "\n".join(text.splitlines())
    text = _INVISIBLE.sub("", text.replace("\t", " "))
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def quote(text: str) -> list[str]:
    """Quoted data lines: neutralized, each prefixed with ``| ``."""
    return [QUOTE + line for line in _neutral(text).split("\n")]


def label(value: Any) -> str:
    """A value safe to place inside a tag or a label line."""
    text = _UNSAFE_LABEL.sub("_", unicodedata.normalize("NFKC", str(value)))[:_LABEL_MAX]
    return text or "-"


def render(value: Any) -> str:
    """A value as text: strings as they are, anything else as compact JSON with sorted keys."""
    if isinstance(value, str):
        return value
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str)


def _field(name: str, value: Any, limit: int) -> list[str]:
    text = render(value)
    lines = [f"{name}:", *quote(text[:limit])]
    if len(text) > limit:
        lines.append(f"[truncated: {limit} of {len(text)} chars]")
    return lines


def completion_message(result: Any) -> dict[str, Any]:
    """The assistant message of an OpenAI chat completion response (``choices[0].message``), or ``{}``."""
    if not isinstance(result, dict):
        return {}
    choices = result.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        return {}
    message = choices[0].get("message")
    return message if isinstance(message, dict) else {}


def message_text(message: dict[str, Any]) -> str:
    """The text an assistant message carries: its content (string or text parts) and any reasoning content."""
    parts: list[str] = []
    for key in ("reasoning_content", "reasoning"):
        if isinstance(message.get(key), str) and message[key].strip():
            parts.append(message[key])
    content = message.get("content")
    if isinstance(content, str):
        parts.append(content)
    elif isinstance(content, list):
        parts.extend(p["text"] for p in content if isinstance(p, dict) and isinstance(p.get("text"), str))
    return "\n".join(parts)


def message_tool_calls(message: dict[str, Any]) -> list[tuple[str, str]]:
    """``(name, arguments)`` of each tool call an assistant message makes; JSON arguments in canonical form."""
    out = []
    calls = message.get("tool_calls")
    for call in calls if isinstance(calls, list) else []:
        function = call.get("function") if isinstance(call, dict) else None
        if isinstance(function, dict):
            arguments = function.get("arguments") or ""
            if isinstance(arguments, str):  # a JSON text: canonical form, its \u escapes decoded (then neutralized)
                try:
                    arguments = json.loads(arguments)
                except ValueError:
                    pass
            out.append((render(function.get("name") or ""), render(arguments)))
    return out


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def usage_tokens(event: TrajectoryEvent, key: str) -> int | None:
    """A token count of an LLM call: the gateway's ``tokens`` entry, else the response's ``usage``; ``None`` when
    neither reports a positive count (the gateway records 0 when the upstream sent no usage)."""
    value = event.tokens.get(key)
    if not value and isinstance(event.result, dict) and isinstance(event.result.get("usage"), dict):
        value = event.result["usage"].get(key)
    try:
        count = int(value or 0)
    except (TypeError, ValueError):
        return None
    return count if count > 0 else None


def _message_chars(messages: Any) -> int:
    """The text size of a chat request's messages (contents and tool-call arguments), without rendering it."""
    total = 0
    for message in messages if isinstance(messages, list) else []:
        if not isinstance(message, dict):
            continue
        content = message.get("content")
        if isinstance(content, str):
            total += len(content)
        elif isinstance(content, list):
            total += sum(len(p["text"]) for p in content if isinstance(p, dict) and isinstance(p.get("text"), str))
        total += sum(len(args) for _, args in message_tool_calls(message))
    return total


def _request_line(event: TrajectoryEvent, focused: bool) -> str:
    """An LLM call's request by its size (focused: tokens, or characters when none are reported; tools if any)."""
    request = event.arguments if isinstance(event.arguments, dict) else {}
    messages = request.get("messages")
    tools = request.get("tools")
    size = [_count(len(messages) if isinstance(messages, list) else 0, "message")]
    if isinstance(tools, list) and (tools or not focused):
        size.append(_count(len(tools), "tool"))
    prompt_tokens = usage_tokens(event, "prompt_tokens")
    if prompt_tokens is not None:
        size.append(f"{prompt_tokens} {'' if focused else 'prompt '}tokens")
    if not focused or prompt_tokens is None:
        size.append(f"{_message_chars(messages)} chars of message text")
    return "request: " + ", ".join(size)


def _llm_lines(
    event: TrajectoryEvent, limit: int, made: dict[tuple[str, str], int] | None = None, focus: Lens | None = None
) -> list[str]:
    """An LLM call's lines; ``made``, ``focus``: focused (`arena.judge.focus`: a logged tool call named by its seq)."""
    lines = [_request_line(event, made is not None)]
    message = completion_message(event.result)
    if message:
        finish = (event.result.get("choices") or [{}])[0].get("finish_reason")
        tokens = usage_tokens(event, "completion_tokens")
        text, calls = message_text(message), message_tool_calls(message)
        logged = [made.get(call) for call in calls] if made is not None else []
        named = bool(logged) and all(seq is not None for seq in logged)  # focused: calls the gateway logged
        completion = "completion: " + (f"{tokens} tokens" if tokens is not None else "tokens not reported")
        if finish is not None and not (named and finish == "tool_calls"):
            completion += f", finish_reason={label(finish)}"
        if named:
            completion += "; tool calls: seq " + ", ".join(str(seq) for seq in logged)
            calls = []
        if made is None:
            lines.append(completion)
        else:  # focused: one line, the request's size and the completion's
            lines[-1] += "; " + completion
        if text and focus is not None:
            lines.extend(["content:", *focus.content(event.seq, text, limit * COMPLETION_FACTOR)])
        elif text:
            lines.extend(_field("content", text, limit * COMPLETION_FACTOR))
        if calls:
            lines.extend(_field("tool_calls", "\n".join(f"{name} {args}" for name, args in calls), limit))
    elif event.result is not None and event.error is None:
        lines.extend(_field("response", event.result, limit))
    return lines


def event_block(
    event: TrajectoryEvent,
    max_result_chars: int,
    notes: list[str] | None = None,
    focus: Lens | None = None,
    made: dict[tuple[str, str], int] | None = None,
) -> str:
    """One event as a delimited block; ``notes`` (lines this module wrote: what the judge discounts) at its end. With
    ``focus`` (`arena.judge.focus`), a tool result shows the products the run's completions refer to in full and
    names the others; ``made``: see `_llm_lines`."""
    head = f"<event seq={int(event.seq)} kind={label(event.kind)} name={label(event.name)} status={int(event.status)}>"
    lines = [head]
    if event.kind == "llm_call":
        lines.extend(_llm_lines(event, max_result_chars, made, focus))
    else:
        if event.arguments is not None:
            lines.extend(_field("arguments", event.arguments, max_result_chars))
        same = focus.same(event) if focus is not None and event.result is not None else None
        if same is not None:
            lines.append(f"result: the same as seq {same}'s")
        elif event.result is not None:
            result, cut = (event.result, []) if focus is None else focus.result(event.name, event.seq, event.result)
            lines.extend(_field("result", result, max_result_chars))
            lines.extend(cut)
    if event.error is not None:
        lines.extend(_field("error", event.error, max_result_chars))
    lines.extend(notes or ())
    lines.append("</event>")
    return "\n".join(lines)


def final_answer(events: list[TrajectoryEvent], task: str | None = None) -> TrajectoryEvent | None:
    """The run's final call of its family's answer tool, the one its answer is read from (`arena.tasks.answer`)."""
    return final_recommendation(events, answer_tools(task))


#: the keys of a judge context that are the problem's tag, not fields
TAG_KEYS = ("problem_id", "task")


def context_fields(problem: dict[str, Any]) -> list[tuple[str, Any]]:
    """What the judge is shown of a problem (`Family.judge_context`): the query first, then every other field but
    the id and task, in the family's order."""
    rest = [(k, v) for k, v in problem.items() if k not in (*TAG_KEYS, "query")]
    return [("query", problem.get("query", "")), *rest]


def context_text(problem: dict[str, Any]) -> str:
    """The text of every field the judge is shown of a problem (a fact found in it was given, not learned)."""
    return "\n".join(render(value) for _, value in context_fields(problem))


def _answer_block(answer: TrajectoryEvent | None, limit: int) -> str:
    if answer is None:
        return "\n".join(["</events>", "<answer>", "none: no answer call", "</answer>"])
    ids = raw_product_ids(answer) or ""  # the raw answer exactly as the scorer reads it
    cut = [f"[truncated: {limit} of {len(ids)} chars]"] if len(ids) > limit else []
    return "\n".join(["</events>", f"<answer seq={int(answer.seq)}>", *quote(ids[:limit]), *cut, "</answer>"])


def build_evidence(
    problem: dict[str, Any],
    events: list[TrajectoryEvent],
    *,
    max_result_chars: int = 1500,
    max_total_chars: int = 60000,
    notes: Mapping[int, list[str]] | None = None,
    focus: Lens | None = None,
) -> str:
    """The judge's input for one run: the problem as its family shows it to the judge (`Family.judge_context`: the
    query and what else the agent was given), each gateway event as a quoted block, the final answer.

    ``notes``: lines ending an event's block, by seq (`arena.judge.echo.Discounts.notes`: what the judge discounts).
    ``focus``: the LLM judge's lens (`arena.judge.focus.Focus`): the products the run refers to in full, each once.
    Deterministic. Raises `ValueError` if ``max_total_chars`` cannot hold even the problem and the answer.
    """
    if max_result_chars < 1:
        raise ValueError("max_result_chars must be at least 1")
    ordered = sorted(events, key=lambda e: e.seq)
    head = "\n".join(
        [
            f"<problem id={label(problem.get('problem_id', '-'))} task={label(problem.get('task', '-'))}>",
            *(line for key, value in context_fields(problem) for line in _field(label(key), value, max_result_chars)),
            "</problem>",
            f"<events count={len(ordered)}>",
        ]
    )
    task = problem.get("task")
    tail = _answer_block(final_answer(ordered, task if isinstance(task, str) else None), max_result_chars)
    made = focus.made(ordered) if focus is not None else {}
    blocks = [
        event_block(e, max_result_chars, (notes or {}).get(e.seq), focus, made.get(e.seq) if focus else None)
        for e in ordered
    ]

    def size(parts: list[str]) -> int:  # joined by newlines
        return sum(len(p) + 1 for p in parts) - 1 if parts else 0

    if size([head, *blocks, tail]) <= max_total_chars:
        return "\n".join([head, *blocks, tail])

    def note(first: int, last: int) -> str:
        return (
            f"[dropped: {_count(last - first + 1, 'event')} (seq {ordered[first].seq} to "
            f"{ordered[last].seq}) to keep the evidence under {max_total_chars} chars]"
        )

    widest = max((e.seq for e in ordered), default=0)
    longest_note = (
        f"[dropped: {len(ordered)} events (seq {widest} to {widest}) to keep the evidence under "
        f"{max_total_chars} chars]"
    )
    budget = max_total_chars - size([head, longest_note, tail]) - 3  # three joining newlines
    if budget < 0:
        raise ValueError(f"max_total_chars={max_total_chars} cannot hold the problem and the answer; raise it")
    front, back = 0, len(ordered)  # kept: blocks[:front] and blocks[back:]
    used = 0
    open_front = open_back = True
    take_front = True
    while front < back and (open_front or open_back):
        if take_front and open_front:
            cost = len(blocks[front]) + 1
            if used + cost <= budget:
                used += cost
                front += 1
            else:
                open_front = False
        elif not take_front and open_back:
            cost = len(blocks[back - 1]) + 1
            if used + cost <= budget:
                used += cost
                back -= 1
            else:
                open_back = False
        take_front = not take_front
    parts = [head, *blocks[:front], note(front, back - 1), *blocks[back:], tail]
    return "\n".join(parts)


__all__ = [
    "build_evidence",
    "completion_message",
    "event_block",
    "final_answer",
    "label",
    "message_text",
    "message_tool_calls",
    "quote",
    "render",
    "usage_tokens",
]
