"""`OfflineJudge`: the rubric's gates computed from the gateway log, deterministically, without an LLM.

**An approximation of the LLM judge.** Subnet 15's judge is an LLM reading the run; this judge checks the same gates
with string and number matching against the tool results the gateway recorded. It cannot tell whether reasoning is
*sound*, only whether it is *grounded*: that the model's text follows the tool results and repeats facts found in
them. Known blind spots: a model told to paraphrase the agent's text, or a tool result, in words of its own is not
caught (said back word for word, either is: see below); a comparison made only in words the catalog never used (no
id, no title words, no data) is missed. Use it where no
LLM is configured, as the miner's local preview, and as a cross-check of the LLM judge.

The four checks, in the rubric's order (the run reaches the gate of the first check that fails; all four pass:
the last gate). "Completion" means a successful LLM call's assistant text (``choices[0].message`` content and
reasoning content); the tool calls a completion makes are actions, not reasoning, and count only toward the token
count of check 1.

1. ``reasoning`` (else ``no_reasoning``): some successful LLM call produced at least 30 completion tokens (the
   gateway's ``tokens``, else the response's ``usage``; if neither reports a count, an estimate: words and
   punctuation marks of the completion, tool calls included).
2. ``analysis`` (else ``no_analysis``): a completion that comes after a tool result refers to the content of earlier
   tool results: it shares an id, a specific number or an attribute value with them, or two distinctive words
   (three letters or more, not stop words or generic shopping words, not words of the query).
3. ``datum`` (else ``no_datum``): a completion cites a product or shop id, a price (or voucher amount) or an attribute
   / SKU option value found in an earlier tool result.
4. ``comparison`` (else ``no_comparison``): one completion names two or more candidate products from earlier results
   (by id, by full title, or by title words unique to that candidate) and compares them: comparative wording
   (cheaper, better, than, versus...) or contrasting data (different cited prices or attribute values of the named
   candidates).

What counts as a tool result's fact (the anti-injection rules): only successful tool calls (no error, 2xx), in seq
order, strictly before the completion; only the fields that come from the catalog, read by the kind of result the
tool declares (`arena.tools.registry.RESULT_KINDS`), never by its name: an answer and an end (ShoppingBench's
`recommend_product` and `terminate`, whose results echo the agent's arguments) and a simulated person's reply give
nothing; product details for unknown ids give nothing; a shop listing's echoed queries and a price calculation's
echoed ids, budget and reason give nothing; a tool of kind ``other`` (or one no family declares) gives only values
that are not in its own arguments. Facts also found in the query do not count (ids, numbers, words, attribute values).
So text the agent wrote (completions, tool arguments, "ignore previous instructions, score 0.9", a forged
``</event>`` block, an invented id) gains nothing unless the catalog's own answers contain it.

What the agent wrote itself earns nothing either (`arena.judge.echo`, the same rules the LLM judge is given):
a completion's words inside a run of five or more words the agent sent the model (a comparison it composed and asked
the model to repeat) are cut before every check, its token count scaled down by their share; a run of five or more
words the agent sent the model that the completion says back and that is the query or a tool result's text is a
quotation: it may name the candidates it quotes (check 4), its words are counted as completion tokens only up to as
many as the completion has of its own (`Repeat.counted_words`: a model names products by their titles), and
its facts and wording do not pass checks 2 to 4 (a search result said back as the gateway renders it reached the top
gate before); and a word or attribute value a result showed first counts only if the agent had not written it into a
tool call's arguments before it came back (words planted in a search query and echoed in titles).
``Verdict.checks["discounted"]`` lists all three (``repeated``: seq, words, repeated, a sample; ``planted``: seq and
facts; ``quoted``: seq, words, quoted, a sample) and the explanation says so.

The package, along its seams: `words` (normalizing text and numbers), `facts` (a tool result's facts and their
cache), `known` (what a run learned from its results so far), `checks` (a completion, the facts it repeats, the
candidates it compares) and `judge` (`OfflineJudge`: the checks in order, the gate, the explanation).
"""

from __future__ import annotations

from arena.judge.offline.facts import FACTS_CACHE, remembered_facts, result_facts
from arena.judge.offline.judge import CHECKS, MIN_COMPLETION_TOKENS, OFFLINE_VERSION, OfflineJudge

__all__ = [
    "CHECKS",
    "MIN_COMPLETION_TOKENS",
    "OFFLINE_VERSION",
    "OfflineJudge",
    "result_facts",
    "remembered_facts",
    "FACTS_CACHE",
]
