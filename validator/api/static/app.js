// ShopArena dashboard: a small single-page app over the node's read-only API. No framework, no CDN.
"use strict";

const app = document.getElementById("app");
const TASKS = ["product", "shop", "voucher", "web"];
const COLORS = { product: "#2f6fdf", shop: "#1f8a4c", voucher: "#b7791f", web: "#8e44ad" };

function esc(value) {
  return String(value ?? "").replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c]));
}
const short = (hotkey) => (hotkey ? `${hotkey.slice(0, 6)}…${hotkey.slice(-4)}` : "");
const num = (x, digits = 3) => (x === null || x === undefined ? "–" : Number(x).toFixed(digits));
const pct = (x) => (x === null || x === undefined ? "–" : `${(100 * x).toFixed(0)}%`);

async function api(path) {
  const response = await fetch(path);
  const body = await response.json().catch(() => ({}));
  if (!response.ok) throw new Error(body.detail || `${response.status} on ${path}`);
  return body;
}

function table(columns, rows, id = "") {
  const head = columns.map((c) => `<th class="${c.num ? "num" : ""}">${esc(c.title)}</th>`).join("");
  const body = rows.map((r) => `<tr>${columns.map((c) => `<td class="${c.num ? "num" : ""}">${c.html ? c.html(r) : esc(c.value(r))}</td>`).join("")}</tr>`).join("");
  return `<table${id ? ` id="${id}"` : ""}><thead><tr>${head}</tr></thead><tbody>${body}</tbody></table>`;
}

// --- charts (inline SVG) ---------------------------------------------------------------------------------------------

function histogram(values, { bins = 12, width = 360, height = 160, label = "" } = {}) {
  if (!values.length) return `<p class="muted">no data yet</p>`;
  const lo = Math.min(...values), hi = Math.max(...values);
  const span = hi - lo || 1;
  const counts = new Array(bins).fill(0);
  for (const v of values) counts[Math.min(bins - 1, Math.floor(((v - lo) / span) * bins))]++;
  const top = Math.max(...counts), w = (width - 40) / bins;
  const bars = counts.map((c, i) => {
    const h = (c / top) * (height - 30);
    return `<rect x="${30 + i * w}" y="${height - 20 - h}" width="${w - 2}" height="${h}" fill="#2f6fdf"><title>${c}</title></rect>`;
  }).join("");
  return `<svg width="${width}" height="${height}" role="img" aria-label="${esc(label)}">${bars}
    <text x="30" y="${height - 5}">${num(lo, 2)}</text><text x="${width - 40}" y="${height - 5}">${num(hi, 2)}</text>
    <text x="0" y="12">${top}</text></svg>`;
}

function lines(series, { width = 360, height = 160 } = {}) {
  const tasks = Object.keys(series);
  if (!tasks.length) return `<p class="muted">no data yet</p>`;
  const races = [...new Set(tasks.flatMap((t) => series[t].map((p) => p.race_id)))];
  const x = (i) => 30 + (races.length > 1 ? (i / (races.length - 1)) * (width - 50) : (width - 50) / 2);
  const y = (v) => height - 20 - v * (height - 30);
  const paths = tasks.map((task) => {
    const points = series[task].map((p) => `${x(races.indexOf(p.race_id))},${y(p.success)}`);
    const dots = series[task].map((p) => `<circle cx="${x(races.indexOf(p.race_id))}" cy="${y(p.success)}" r="3" fill="${COLORS[task] || "#555"}"><title>${esc(task)} ${esc(p.race_id)}: ${pct(p.success)}</title></circle>`).join("");
    return `<polyline fill="none" stroke="${COLORS[task] || "#555"}" stroke-width="2" points="${points.join(" ")}"/>${dots}`;
  }).join("");
  const legend = tasks.map((t, i) => `<text x="${40 + i * 80}" y="12" style="fill:${COLORS[t] || "#555"}">${esc(t)}</text>`).join("");
  return `<svg width="${width}" height="${height}" role="img" aria-label="success by task over races">${paths}${legend}
    <text x="0" y="${y(1) + 4}">100%</text><text x="0" y="${y(0) + 4}">0%</text></svg>`;
}

// --- pages -------------------------------------------------------------------------------------------------------

async function leaderboard() {
  const [board, charts, races] = await Promise.all([api("/api/leaderboard"), api("/api/charts"), api("/api/races?limit=20")]);
  if (!board.race) {
    app.innerHTML = `<h1>Leaderboard</h1><div class="card" id="empty"><p>No race has closed yet.</p>
      <p class="muted">${esc(board.hint)}. Races open on the pack's rotation once miners' submissions are synced.</p></div>`;
    return;
  }
  const tasks = TASKS.filter((t) => board.rows.some((r) => t in (r.per_task || {})));
  const columns = [
    { title: "#", value: (r) => r.rank, num: true },
    { title: "miner", html: (r) => `<span class="hotkey" title="${esc(r.hotkey)}">${esc(short(r.hotkey))}</span>` },
    { title: "uid", value: (r) => r.uid, num: true },
    { title: "score", value: (r) => num(r.score), num: true },
    { title: "success", value: (r) => pct(r.success_rate), num: true },
    { title: "judge quality", value: (r) => num(r.judge_quality, 2), num: true },
    { title: "errors", value: (r) => r.errored, num: true },
    ...tasks.map((t) => ({ title: t, value: (r) => num((r.per_task || {})[t], 2), num: true })),
  ];
  app.innerHTML = `<h1>Leaderboard · <a href="#/race/${encodeURIComponent(board.race.race_id)}">${esc(board.race.race_id)}</a></h1>
    <p class="muted">${board.race.problem_ids.length} problems drawn with block ${board.race.seed_block}'s hash; score = mean of success × judge coefficient.</p>
    ${table(columns, board.rows, "leaderboard")}
    <div class="grid">
      <div class="card"><h2>Success by task over races</h2>${lines(charts.success_by_task)}</div>
      <div class="card"><h2>Final score distribution</h2>${histogram(charts.final_scores, { label: "final scores" })}</div>
      <div class="card"><h2>Run duration (s)</h2>${histogram(charts.durations, { label: "run durations" })}</div>
    </div>
    <h2>Recent races</h2>${racesTable(races.items)}`;
}

function racesTable(items) {
  return table([
    { title: "race", html: (r) => `<a href="#/race/${encodeURIComponent(r.race_id)}">${esc(r.race_id)}</a>` },
    { title: "status", html: (r) => `<span class="badge">${esc(r.status)}</span>${r.reason ? ` <span class="muted">${esc(r.reason)}</span>` : ""}` },
    { title: "problems", value: (r) => r.problem_ids.length, num: true },
    { title: "seed block", value: (r) => r.seed_block, num: true },
    { title: "opened", value: (r) => r.opened_at }, { title: "closed", value: (r) => r.closed_at || "" },
  ], items, "races");
}

async function racesPage() {
  const races = await api("/api/races?limit=200");
  app.innerHTML = `<h1>Races</h1>${races.items.length ? racesTable(races.items) : `<p class="muted">No race yet.</p>`}`;
}

async function racePage(raceId) {
  const [race, runs] = await Promise.all([api(`/api/races/${encodeURIComponent(raceId)}`), api(`/api/runs?race_id=${encodeURIComponent(raceId)}&limit=500`)]);
  const counts = Object.entries(race.runs_by_status).map(([s, n]) => `<span class="badge ${esc(s)}">${esc(s)} ${n}</span>`).join(" ");
  app.innerHTML = `<h1>Race ${esc(race.race_id)}</h1>
    <p>${counts} <span class="muted">seed block ${race.seed_block}, hash <code>${esc(race.seed_hash)}</code>${race.reason ? ` · ${esc(race.reason)}` : ""}</span></p>
    <h2>Results</h2>${table([
      { title: "#", value: (r) => r.rank, num: true }, { title: "miner", html: (r) => `<span title="${esc(r.hotkey)}">${esc(short(r.hotkey))}</span>` },
      { title: "score", value: (r) => num(r.score), num: true }, { title: "success", value: (r) => pct(r.success_rate), num: true },
      { title: "runs", value: (r) => r.runs, num: true }, { title: "errors", value: (r) => r.errored, num: true },
    ], race.results, "results")}
    <h2>Runs (per miner, per problem)</h2>${table([
      { title: "miner", html: (r) => `<span title="${esc(r.hotkey)}">${esc(short(r.hotkey))}</span>` },
      { title: "problem", value: (r) => r.problem_id }, { title: "task", value: (r) => r.task },
      { title: "status", html: (r) => `<a href="#/run/${encodeURIComponent(r.run_id)}"><span class="badge ${esc(r.status)}">${esc(r.status)}</span></a>${r.error_code ? ` <span class="bad">${r.error_code}</span>` : ""}` },
      { title: "score", value: (r) => num(r.final), num: true }, { title: "judge", value: (r) => r.judge_gate || "" },
      { title: "time (s)", value: (r) => num(r.seconds, 2), num: true }, { title: "tools", value: (r) => r.tool_calls, num: true },
      { title: "cost ($)", value: (r) => num(r.cost, 4), num: true },
    ], runs.items, "runs")}`;
}

function checksHtml(strict) {
  if (!strict) return `<p class="muted">not scored</p>`;
  const rows = [];
  for (const product of strict.products || []) {
    for (const check of product.checks || []) rows.push({ where: `slot ${product.slot + 1} (gold ${product.gold_id}, answer ${product.answer_id ?? "none"})`, ...check });
  }
  for (const check of strict.checks || []) rows.push({ where: "answer", ...check });
  const ids = (strict.answer || []).map((id) => JSON.stringify(id)).join(", ") || "none";
  const ruleset = strict.ruleset ? `ruleset <b>${esc(strict.ruleset)}</b> v${esc(strict.ruleset_version || "?")}` : "ruleset shoppingbench (stored before rulesets)";
  return `<p>success <b class="${strict.success ? "ok" : "bad"}">${strict.success ? "yes" : "no"}</b> · gt ${num(strict.gt, 2)} · rule ${num(strict.rule, 2)} · answer ${esc(ids)}</p>
    <p class="muted">${ruleset} · title similarity by ${esc(strict.title_model || "WordLlama 256-d")} (the references use Qwen3-Embedding-0.6B, which cannot run offline; only a substitute product's title check can differ)</p>
    ${table([{ title: "where", value: (r) => r.where }, { title: "check", value: (r) => r.name },
             { title: "result", html: (r) => `<span class="${r.passed ? "ok" : "bad"}">${r.passed ? "pass" : "FAIL"}</span>` },
             { title: "evidence", value: (r) => r.evidence }], rows, "checks")}`;
}

function stepHtml(step, cited) {
  const body = step.error ? `error: ${step.error}` : JSON.stringify(step.result, null, 1);
  let text = body || "";
  if (text.length > 4000) text = `${text.slice(0, 4000)}… [${text.length} chars]`;
  return `<div class="step${cited.has(step.seq) ? " cited" : ""}" id="step-${step.seq}">
    <header><span>#${step.seq}</span><span class="badge">${esc(step.kind)}</span><span>${esc(step.name)}</span>
    <span class="muted">${num(step.duration_ms, 1)} ms${step.tokens && step.tokens.total_tokens ? ` · ${step.tokens.total_tokens} tokens` : ""}</span>
    ${cited.has(step.seq) ? `<span class="warn">cited by the judge</span>` : ""}</header>
    <pre>${esc(JSON.stringify(step.arguments))}</pre><pre>${esc(text)}</pre></div>`;
}

async function runPage(runId) {
  const run = await api(`/api/runs/${encodeURIComponent(runId)}`);
  const cited = new Set(run.judge_evidence || []);
  const judge = run.judge;
  const blame = run.error_code ? `<p class="bad">error ${run.error_code} (${esc(run.blame)} is to blame${run.blame === "validator" ? ": retried, never a zero" : ""}): ${esc(run.error)}${run.error_description ? ` <span class="muted">— ${esc(run.error_description)}</span>` : ""}</p>` : (run.error ? `<p class="warn">${esc(run.error)}</p>` : "");
  // every attempt the upstream failed in ended 2005 and is listed in run.attempts, with its upstream errors
  const upstream = (run.attempts || []).flatMap((a) => (a.upstream_errors || []).map((e) => ({ attempt: a.attempt, ...e })));
  const attempts = (run.attempts || []).length ? `<div class="card" id="attempts"><h2>Attempts that ended in an error</h2>${table([
    { title: "attempt", value: (a) => a.attempt, num: true }, { title: "code", value: (a) => a.code, num: true },
    { title: "blame", value: (a) => a.blame }, { title: "error", value: (a) => a.error || "" },
    { title: "upstream errors", value: (a) => a.upstream_error_count || 0, num: true }], run.attempts, "attempts")}</div>` : "";
  const upstreamHtml = upstream.length ? `<div class="card" id="upstream-errors"><h2>Upstream LLM errors (${upstream.length})</h2>
    <p class="muted">The node's upstream LLM failed during these calls: the node's fault, never the miner's (code 2005, retried).</p>${table([
    { title: "attempt", value: (e) => e.attempt, num: true }, { title: "step", value: (e) => e.seq, num: true },
    { title: "status", value: (e) => e.status, num: true }, { title: "error", value: (e) => e.error || "" },
    { title: "at", value: (e) => e.at }], upstream, "upstream")}</div>` : "";
  app.innerHTML = `<h1>Run ${esc(run.run_id)}</h1>
    <p><a href="#/race/${encodeURIComponent(run.race_id)}">race ${esc(run.race_id)}</a> · miner <span title="${esc(run.hotkey)}">${esc(short(run.hotkey))}</span> ·
      <span class="badge ${esc(run.status)}">${esc(run.status)}</span> · attempt ${run.attempt} · ${num(run.seconds, 2)} s · final ${num(run.final)}</p>
    ${blame}${upstreamHtml}${attempts}
    <div class="card"><b>${esc(run.problem.task)}</b> · ${esc(run.problem.difficulty)} · ${run.problem.n_products} product(s)<p id="query">${esc(run.problem.query)}</p></div>
    <div class="card verdict" id="verdict"><h2>Judge</h2>${judge ? `<p>gate <b>${esc(judge.gate)}</b> (quality ${num(judge.quality, 1)}, coefficient ${num(judge.coefficient, 3)}) by ${esc(judge.judge)} · rubric ${esc(judge.rubric_version)}</p>
      <p>${esc(judge.explanation)}</p><p class="muted">cited steps: ${[...cited].map((s) => `<a href="#/run/${encodeURIComponent(run.run_id)}" onclick="document.getElementById('step-${s}').scrollIntoView();return false;">#${s}</a>`).join(" ") || "none"}</p>` : `<p class="muted">not judged yet</p>`}</div>
    <h2>Strict checks</h2>${checksHtml(run.strict)}
    ${(run.score_revisions || []).length ? `<h2>Earlier verdicts (replaced by a rescore)</h2>${table([
      { title: "ruleset", value: (r) => `${r.ruleset ?? "?"} v${r.ruleset_version ?? "?"}` },
      { title: "rubric", value: (r) => r.rubric_version ?? "" },
      { title: "success", value: (r) => (r.success ? "yes" : "no") },
      { title: "final", value: (r) => num(r.final, 3) },
      { title: "replaced", value: (r) => r.replaced_at }], run.score_revisions, "revisions")}` : ""}
    <h2>Steps (${run.steps.length})</h2><div id="steps">${run.steps.map((s) => stepHtml(s, cited)).join("") || `<p class="muted">no calls reached the gateway</p>`}</div>
    ${run.sandbox && run.sandbox.stderr_tail ? `<h2>Agent stderr (tail)</h2><pre>${esc(run.sandbox.stderr_tail)}</pre>` : ""}`;
}

async function submissionsPage() {
  const subs = await api("/api/submissions?limit=500");
  app.innerHTML = `<h1>Submissions</h1>${table([
    { title: "block", value: (r) => r.commitment_block, num: true }, { title: "uid", value: (r) => r.uid ?? "", num: true },
    { title: "miner", html: (r) => `<span title="${esc(r.hotkey)}">${esc(short(r.hotkey))}</span>` },
    { title: "sha256", html: (r) => `<code>${esc(r.sha256.slice(0, 12))}</code>` },
    { title: "status", html: (r) => `<span class="badge">${esc(r.status)}</span>` },
    { title: "reason", value: (r) => r.reason || "" }, { title: "source", value: (r) => r.source },
  ], subs.items, "submissions")}`;
}

async function weightsPage() {
  const sets = await api("/api/weights?limit=100");
  app.innerHTML = `<h1>Weight sets</h1>${table([
    { title: "id", value: (r) => r.id, num: true }, { title: "race", value: (r) => r.race_id || "" },
    { title: "policy", value: (r) => r.policy }, { title: "status", html: (r) => `<span class="badge">${esc(r.status)}</span>` },
    { title: "block", value: (r) => r.block ?? "", num: true },
    { title: "vector", value: (r) => Object.entries(r.vector).map(([u, w]) => `${u}: ${Number(w).toFixed(3)}`).join(", ") },
  ], sets.items, "weights")}`;
}

async function route() {
  const [, page, id] = (location.hash || "#/").split("/");
  try {
    if (page === "race" && id) await racePage(decodeURIComponent(id));
    else if (page === "run" && id) await runPage(decodeURIComponent(id));
    else if (page === "races") await racesPage();
    else if (page === "submissions") await submissionsPage();
    else if (page === "weights") await weightsPage();
    else await leaderboard();
  } catch (error) {
    app.innerHTML = `<p class="bad">${esc(error.message)}</p>`;
  }
}
window.addEventListener("hashchange", route);
route();
