// ShopArena dashboard: the run page of a shopping session (the family "session" declares run_page "session").
// Loaded before app.js; its functions use app.js's helpers (esc, num, table, titlesSeen) when called.
// The conversation comes from the run's steps (the gateway's log): the opening, each profile read, each question
// (ask_user) and proposal (respond) with the shopper's reply, then the commit (recommend_product). The shopper's
// reveals come from the strict verdict's per-constraint attribution ("constraint <cid>" checks, JSON evidence:
// revealed_at is the shopper turn that revealed it, counted as the scorer replays the log); its rubric items and
// score formula from the "rubric <item>" and "score" checks.
"use strict";

// the HTTP statuses of a call the gateway refused before the tool ran (arena.scoring.answer.REFUSED): not a move
const REFUSED_STATUSES = [400, 401, 413, 429];

function evidenceJson(text) {
  try { const value = JSON.parse(text); return value && typeof value === "object" ? value : {}; } catch { return {}; }
}

// the strict verdict's checks, parsed: the session's end, the final truth, one record per constraint, the rubric
function sessionVerdict(strict) {
  const out = { end: null, truth: null, constraints: [], rubric: [], score: null };
  for (const c of (strict && strict.checks) || []) {
    const name = String(c.name || "");
    if (name === "session end") out.end = c;
    else if (name === "final truth") out.truth = c;
    else if (name.startsWith("constraint ")) out.constraints.push({ cid: name.slice(11), passed: c.passed, ...evidenceJson(c.evidence) });
    else if (name.startsWith("rubric ")) out.rubric.push({ item: name.slice(7), passed: c.passed, ...evidenceJson(c.evidence) });
    else if (name === "score") out.score = { passed: c.passed, ...evidenceJson(c.evidence) };
  }
  return out;
}

function stepArgs(step) {
  let args = step.arguments;
  if (typeof args === "string") { try { args = JSON.parse(args); } catch { args = {}; } }
  return args && typeof args === "object" && !Array.isArray(args) ? args : {};
}

function idsOf(value) {
  const parts = Array.isArray(value) ? value : typeof value === "string" ? value.split(",") : [];
  return parts.map((p) => String(p).trim()).filter(Boolean);
}

// the conversation as entries, in the order of the log; `turn` numbers the shopper's moves as the scorer does
// (ask_user and respond that ran, and every recommend_product the gateway did not refuse)
function conversation(run) {
  const entries = [{ who: "shopper", kind: "opening", text: run.problem.query }];
  let turn = 0;
  const steps = [...(run.steps || [])].filter((s) => s.kind === "tool_call").sort((a, b) => a.seq - b.seq);
  for (const step of steps) {
    const args = stepArgs(step);
    const refused = REFUSED_STATUSES.includes(step.status);
    if (step.name === "get_user_profile") {
      entries.push({ who: "agent", kind: "profile", seq: step.seq, error: step.error, result: step.result || {} });
    } else if (step.name === "ask_user" || step.name === "respond") {
      const ran = !refused && !step.error;
      if (ran) turn += 1;
      const ids = step.name === "respond" ? idsOf(args.product_ids) : [];
      entries.push({ who: "agent", kind: step.name === "ask_user" ? "question" : ids.length ? "proposal" : "message", seq: step.seq, text: step.name === "ask_user" ? args.question : args.message, ids, error: refused ? `refused by the gateway (HTTP ${step.status})` : step.error });
      if (ran) {
        const reply = step.result && typeof step.result === "object" ? step.result : { user: String(step.result ?? "") };
        entries.push({ who: "shopper", kind: "reply", seq: step.seq, turn, text: reply.user, turnsLeft: reply.turns_left, closed: !!reply.closed });
      }
    } else if (step.name === "recommend_product" && !refused) {
      turn += 1;
      entries.push({ who: "agent", kind: "commit", seq: step.seq, turn, ids: idsOf(args.product_ids), error: step.error });
    } else if (step.name === "find_product" && !step.error) {
      // a search read page after page is one line
      const text = String(args.q ?? args.query ?? "");
      const hits = Array.isArray(step.result) ? step.result.length : 0;
      const last = entries[entries.length - 1];
      if (last.kind === "search" && last.text === text) { last.pages += 1; last.hits += hits; last.lastSeq = step.seq; }
      else entries.push({ who: "agent", kind: "search", seq: step.seq, lastSeq: step.seq, text, pages: 1, hits });
    }
  }
  return entries;
}

// proposed or committed products: id, title (when the run saw it) and, for proposals, the constraints (rules in force
// then) the attribution says it broke
function productsHtml(ids, titles, breaks = {}) {
  return ids.map((id) => `<span class="product"><code>${esc(id)}</code>${titles[id] ? ` ${esc(titles[id])}` : ""}${(breaks[id] || []).length ? ` <span class="bad breaks">breaks ${esc(breaks[id].join(", "))}</span>` : ""}</span>`).join("");
}

function revealedWhen(record) {
  if (record.revealed_at === null || record.revealed_at === undefined) return "never";
  if (record.revealed_at === 0) return record.src === "profile" ? "in the profile" : "in the opening";
  return `turn ${record.revealed_at}`;
}

function turnHtml(entry, ctx) {
  const seq = entry.seq !== undefined ? `<a class="seq" href="#/run/${enc(ctx.runId)}" onclick="document.getElementById('step-${entry.seq}').scrollIntoView();return false;">#${entry.seq}</a>` : "";
  const error = entry.error ? ` <span class="bad">error: ${esc(entry.error)}</span>` : "";
  if (entry.kind === "opening") return `<li class="turn shopper opening"><span class="who">shopper</span> <span class="muted">opening</span><div class="said">${esc(entry.text)}</div></li>`;
  if (entry.kind === "profile") {
    const about = Object.entries((entry.result && entry.result.about) || {}).map(([k, v]) => `${k}: ${typeof v === "string" ? v : JSON.stringify(v)}`).join("; ");
    const notes = ((entry.result && entry.result.notes) || []).map((n) => `<li>${esc(n)}</li>`).join("");
    return `<li class="turn agent profile"><span class="who">agent</span> <span class="muted">reads the profile</span> ${seq}${error}
      ${about ? `<div class="said muted">${esc(about)}</div>` : ""}${notes ? `<ul class="plain notes">${notes}</ul>` : ""}</li>`;
  }
  if (entry.kind === "search") return `<li class="turn agent search muted">agent searches “${esc(entry.text)}” (${entry.pages > 1 ? `${entry.pages} pages, ` : ""}${entry.hits} hits) ${seq}${entry.lastSeq !== entry.seq ? `–#${entry.lastSeq}` : ""}</li>`;
  if (entry.kind === "question" || entry.kind === "message" || entry.kind === "proposal") {
    const label = entry.kind === "question" ? "asks" : entry.kind === "proposal" ? "proposes" : "says";
    return `<li class="turn agent ${entry.kind}"><span class="who">agent</span> <span class="muted">${label}</span> ${seq}${error}<div class="said">${esc(entry.text ?? "")}</div>
      ${entry.ids.length ? `<div class="proposed">${productsHtml(entry.ids, ctx.titles, ctx.breaks)}</div>` : ""}</li>`;
  }
  if (entry.kind === "reply") {
    const reveals = ctx.records.filter((r) => r.revealed_at === entry.turn);
    const updates = ctx.updates.filter((u) => u.say && entry.text && entry.text.includes(u.say));
    const marks = [
      ...reveals.map((r) => `<span class="reveal" title="constraint ${esc(r.cid)} (${esc(r.src)})">reveals ${esc(r.cid)} · ${esc(r.src)}</span>`),
      ...updates.map((u) => `<span class="reveal update" title="a change of mind">changes ${esc(u.cid)}</span>`),
      ...(entry.closed ? [`<span class="closed-mark">conversation closed</span>`] : []),
    ].join(" ");
    const cls = `${reveals.length || updates.length ? " revealed" : ""}${entry.closed ? " closed" : ""}`;
    return `<li class="turn shopper reply${cls}" data-turn="${entry.turn}"><span class="who">shopper</span> <span class="muted">turn ${entry.turn}${entry.turnsLeft !== undefined ? ` · ${esc(entry.turnsLeft)} left` : ""}</span> ${marks}
      <div class="said">${esc(entry.text ?? "")}</div></li>`;
  }
  // the commit
  return `<li class="turn agent commit"><span class="who">agent</span> <span class="muted">commits (turn ${entry.turn})</span> ${seq}${error}
    <div class="proposed">${entry.ids.length ? productsHtml(entry.ids, ctx.titles) : `<span class="muted">nothing</span>`}</div></li>`;
}

function ruleText(rule) {
  if (!rule || typeof rule !== "object") return "";
  const parts = [];
  for (const [field, values] of Object.entries(rule)) {
    if (!Array.isArray(values) || !values.length) continue;
    const shown = values.map((v) => (v && typeof v === "object" ? Object.entries(v).filter(([, x]) => x !== null && x !== undefined).map(([k, x]) => `${k} ${Array.isArray(x) ? x.join("/") : x}`).join(", ") : v));
    parts.push(`${field}: ${shown.join("; ")}`);
  }
  return parts.join(" · ");
}

function sessionHtml(run) {
  const strict = run.strict;
  const verdict = sessionVerdict(strict);
  const plan = run.session || { constraints: [], events: [], gold_ids: [] };
  const byCid = Object.fromEntries((plan.constraints || []).map((c) => [c.cid, c]));
  const breaks = {};
  for (const r of verdict.constraints) for (const id of r.violating_proposals || []) if (!(breaks[id] || []).includes(r.cid)) (breaks[id] = breaks[id] || []).push(r.cid);
  const ctx = { runId: run.run_id, titles: titlesSeen(run.steps || []), records: verdict.constraints, updates: plan.events || [], breaks };
  const entries = conversation(run);
  const talk = `<div class="card" id="conversation"><h2>Conversation</h2>
    <ol class="conversation">${entries.map((e) => turnHtml(e, ctx)).join("")}</ol>
    ${entries.some((e) => e.kind === "commit") ? "" : `<p class="bad">the agent never committed</p>`}</div>`;
  const answer = (strict && strict.answer) || [];
  const head = strict ? `<p>success <b class="${strict.success ? "ok" : "bad"}">${strict.success ? "yes" : "no"}</b>
      · committed ${answer.length ? answer.map((a) => `<code>${esc(a)}</code>${ctx.titles[a] ? ` ${esc(ctx.titles[a])}` : ""}`).join(", ") : `<span class="muted">nothing</span>`}
      · gold ${(plan.gold_ids || []).map((g) => `<code>${esc(g)}</code>`).join(", ") || "–"}
      ${strict.ruleset ? ` · ruleset <b>${esc(strict.ruleset)}</b> v${esc(strict.ruleset_version || "?")}` : ""}</p>
    <p class="muted">${verdict.end ? `session end: ${esc(verdict.end.evidence)}` : ""}${verdict.truth ? ` · final truth: ${esc(verdict.truth.evidence)}` : ""}</p>` : `<p class="muted">not scored</p>`;
  const attribution = verdict.constraints.length ? table([
    { title: "constraint", html: (r) => `<b>${esc(r.cid)}</b>${byCid[r.cid] ? `<br><span class="muted">${esc(ruleText(byCid[r.cid].rule))}</span>` : ""}` },
    { title: "source", value: (r) => r.src ?? "" },
    { title: "revealed", value: (r) => revealedWhen(r) },
    { title: "met at the end", html: (r) => `<span class="${r.satisfied_final ? "ok" : "bad"}">${r.satisfied_final ? "yes" : "no"}</span>` },
    { title: "violating proposals", html: (r) => (r.violating_proposals || []).map((id) => `<code>${esc(id)}</code>`).join(", ") || `<span class="muted">none</span>` },
    { title: "reason", html: (r) => (r.reason ? `<span class="bad">${esc(r.reason)}</span>` : `<span class="muted">–</span>`) },
  ], verdict.constraints, "attribution") : `<p class="muted">no attribution in the verdict</p>`;
  const rubric = verdict.rubric.length ? table([
    { title: "item", value: (r) => r.item }, { title: "tier", value: (r) => r.tier ?? "" },
    { title: "weight", value: (r) => (r.weight ?? ""), num: true },
    { title: "result", html: (r) => `<span class="${r.passed ? "ok" : "bad"}">${r.passed ? "pass" : "FAIL"}</span>` },
    { title: "why", value: (r) => r.why ?? "" },
  ], verdict.rubric, "rubric") : `<p class="muted">no rubric items</p>`;
  const score = verdict.score ? `<p id="score-formula"><code>${esc(verdict.score.formula || "")}</code> · weighted pass ${num(verdict.score.weighted_pass, 3)} · final ${num(verdict.score.final, 3)}${verdict.score.version ? ` <span class="muted">(rubric ${esc(verdict.score.version)})</span>` : ""}</p>` : "";
  const changes = (plan.events || []).length ? `<p class="muted">changes of mind: ${(plan.events || []).map((u) => `${esc(u.cid)} → ${esc(ruleText(u.rule))}`).join("; ")}</p>` : "";
  return `<div class="session-grid">${talk}
    <div class="card" id="session-verdict"><h2>Strict session check</h2>${head}
      <h3>Per-constraint attribution</h3>${attribution}${changes}
      <h3>Rubric</h3>${rubric}${score}</div></div>`;
}
