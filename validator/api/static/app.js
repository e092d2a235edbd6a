// ShopArena dashboard: a small single-page app over the node's read-only API. No framework, no CDN.
// Pages: leaderboard and standings (#/), live race (#/live), races (#/races, #/race/ID), runs (#/runs?...),
// a run (#/run/ID: the sections its task family draws, the judge, the steps), miners (#/miners, #/miner/HOTKEY),
// submissions, weights.
"use strict";

const app = document.getElementById("app");
// the task types, their colors and their families' own run pages: filled from /api/tasks (the registry) before the
// first page is drawn (`loadTasks`); filled in place, so the filters that list TASKS see them
const TASKS = [];
const COLORS = {};
const PALETTE = ["#2f6fdf", "#1f8a4c", "#b7791f", "#8e44ad", "#c0392b", "#16a2b8", "#6b7383", "#d35400", "#2c3e50", "#7f8c8d"];
const RUN_STATUSES = ["pending", "starting", "running", "scoring", "judged", "finished", "errored"];
const PAGE_SIZE = 25;
const LIVE_REFRESH_MS = 3000;
let timer = null; // the live page's refresh

function esc(value) {
  return String(value ?? "").replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c]));
}
const short = (hotkey) => (hotkey ? `${hotkey.slice(0, 6)}…${hotkey.slice(-4)}` : "");
const num = (x, digits = 3) => (x === null || x === undefined ? "–" : Number(x).toFixed(digits));
const pct = (x) => (x === null || x === undefined ? "–" : `${(100 * x).toFixed(0)}%`);
const enc = encodeURIComponent;
const minerLink = (hotkey, uid) => (hotkey ? `<a class="hotkey" href="#/miner/${enc(hotkey)}" title="${esc(hotkey)}">${esc(short(hotkey))}</a>${uid !== undefined && uid !== null ? ` <span class="muted">uid ${uid}</span>` : ""}` : "");
const raceLink = (id) => `<a href="#/race/${enc(id)}">${esc(id)}</a>`;
const badge = (status) => `<span class="badge ${esc(status)}">${esc(status)}</span>`;

// "3 min ago", with the exact time on hover
function ago(iso) {
  if (!iso) return "";
  const seconds = (Date.now() - new Date(iso).getTime()) / 1000;
  const abs = Math.abs(seconds);
  const [n, unit] = abs < 60 ? [abs, "s"] : abs < 3600 ? [abs / 60, "min"] : abs < 86400 ? [abs / 3600, "h"] : [abs / 86400, "d"];
  const text = `${Math.round(n)} ${unit}`;
  return `<time datetime="${esc(iso)}" title="${esc(new Date(iso).toISOString())}">${seconds >= 0 ? `${text} ago` : `in ${text}`}</time>`;
}
const when = (iso, block, what = "block") => `${ago(iso)}${block !== null && block !== undefined ? ` <span class="block">· ${what} ${block}</span>` : ""}`;

let tasksLoaded = null;
function loadTasks() {
  tasksLoaded = tasksLoaded || api("/api/tasks").then((body) => {
    for (const t of body.tasks) {
      TASKS.push(t.task);
      COLORS[t.task] = t.color;
    }
  }).catch((error) => { tasksLoaded = null; throw error; });
  return tasksLoaded;
}
// a task's color; a task the registry does not list (a family no longer loaded) takes a palette color by its name
function taskColor(task) {
  if (COLORS[task]) return COLORS[task];
  let h = 0;
  for (const c of String(task)) h = (h * 31 + c.charCodeAt(0)) >>> 0;
  return PALETTE[h % PALETTE.length];
}

async function api(path) {
  const response = await fetch(path);
  const body = await response.json().catch(() => ({}));
  if (!response.ok) throw new Error(body.detail || `${response.status} on ${path}`);
  return body;
}

function table(columns, rows, id = "", sort = null) {
  const head = columns.map((c) => {
    const cls = `${c.num ? "num" : ""}${c.wide ? " wide" : ""}`;
    if (sort && c.sort) {
      const active = sort.key === c.sort;
      const next = active && sort.order === "asc" ? "desc" : "asc";
      return `<th class="${cls}"><a href="${sort.href(c.sort, next)}" data-sort="${c.sort}">${esc(c.title)}${active ? (sort.order === "asc" ? " ▲" : " ▼") : ""}</a></th>`;
    }
    return `<th class="${cls}">${esc(c.title)}</th>`;
  }).join("");
  const body = rows.map((r) => `<tr>${columns.map((c) => `<td class="${c.num ? "num" : ""}${c.wide ? " wide" : ""}">${c.html ? c.html(r) : esc(c.value(r))}</td>`).join("")}</tr>`).join("");
  return `<div class="scroll"><table${id ? ` id="${id}"` : ""}><thead><tr>${head}</tr></thead><tbody>${body}</tbody></table></div>`;
}

// --- charts (inline SVG) ---------------------------------------------------------------------------------------------
// Every chart has axes with ticks, an axis title on each, and its legend as HTML below it, so nothing overlaps; it is
// drawn at the width of the page (a phone included) and drawn again when the window is resized.

// A chart is placed as an empty slot, then drawn at the slot's own width once the page is laid out.
let charts = [];
function chart(draw, options) {
  charts.push({ draw, options });
  return `<div class="chart-slot" data-chart="${charts.length - 1}"></div>`;
}
function drawCharts() {
  for (const slot of app.querySelectorAll(".chart-slot")) {
    const spec = charts[Number(slot.dataset.chart)];
    if (spec) slot.innerHTML = spec.draw({ ...spec.options, width: Math.max(240, Math.min(720, slot.clientWidth)) });
  }
}

function niceTicks(lo, hi, count = 5) {
  if (hi === lo) return [lo];
  const raw = (hi - lo) / count;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * mag).find((s) => s >= raw) || raw;
  const out = [];
  for (let v = Math.ceil(lo / step) * step; v <= hi + step * 1e-9; v += step) out.push(Number(v.toFixed(10)));
  return out;
}

function legend(items) {
  if (items.length < 2) return "";
  return `<ul class="legend">${items.map((s) => `<li><span class="swatch" style="background:${s.color}"></span>${esc(s.name)}</li>`).join("")}</ul>`;
}

// series: [{name, color, points: [{x: index, y, title}]}]; xLabels: text per index
function lineChart({ id, label, series, xLabels, xTitle, yTitle, yMin = 0, yMax = 1, yFormat = (v) => num(v, 2), invert = false, yTicks = null, width = 480 }) {
  if (!series.length || !xLabels.length) return `<p class="muted">no data yet</p>`;
  const height = 220;
  const m = { left: 52, right: 26, top: 12, bottom: 46 };
  const pw = width - m.left - m.right, ph = height - m.top - m.bottom;
  const n = xLabels.length;
  const x = (i) => m.left + (n > 1 ? (i / (n - 1)) * pw : pw / 2);
  const span = yMax - yMin || 1;
  const y = (v) => (invert ? m.top + ((v - yMin) / span) * ph : m.top + ph - ((v - yMin) / span) * ph);
  const ticks = yTicks || niceTicks(yMin, yMax, 4);
  const grid = ticks.map((t) => `<line class="grid" x1="${m.left}" x2="${m.left + pw}" y1="${y(t)}" y2="${y(t)}"/><text class="tick" x="${m.left - 6}" y="${y(t) + 4}" text-anchor="end">${esc(yFormat(t))}</text>`).join("");
  // x tick labels: as many as fit without touching (a label is about 7 px a character, plus a gap)
  const labelWidth = 7 * Math.max(...xLabels.map((l) => String(l).length)) + 14;
  const every = Math.max(1, Math.ceil(n / Math.max(1, Math.floor(pw / labelWidth))));
  // the first label starts at the y axis and the last ends at the plot's edge, clear of the y axis's labels
  const anchor = (i) => (n === 1 ? "middle" : i === 0 ? "start" : i === n - 1 ? "end" : "middle");
  const xt = xLabels.map((l, i) => i % every === 0 ? `<line class="axis" x1="${x(i)}" x2="${x(i)}" y1="${m.top + ph}" y2="${m.top + ph + 4}"/><text class="tick" x="${x(i)}" y="${m.top + ph + 17}" text-anchor="${anchor(i)}">${esc(l)}</text>` : "").join("");
  const paths = series.map((s) => {
    const pts = s.points.filter((p) => p.y !== null && p.y !== undefined);
    const line = pts.length > 1 ? `<polyline fill="none" stroke="${s.color}" stroke-width="2" points="${pts.map((p) => `${x(p.x)},${y(p.y)}`).join(" ")}"/>` : "";
    return `<g class="series" data-name="${esc(s.name)}">${line}${pts.map((p) => `<circle cx="${x(p.x)}" cy="${y(p.y)}" r="3.5" fill="${s.color}"><title>${esc(p.title || `${s.name}: ${yFormat(p.y)}`)}</title></circle>`).join("")}</g>`;
  }).join("");
  return `<figure class="chart"><svg id="${esc(id)}" width="${width}" height="${height}" role="img" aria-label="${esc(label)}">
    ${grid}<line class="axis" x1="${m.left}" x2="${m.left}" y1="${m.top}" y2="${m.top + ph}"/><line class="axis" x1="${m.left}" x2="${m.left + pw}" y1="${m.top + ph}" y2="${m.top + ph}"/>
    ${xt}${paths}
    <text class="axis-title" x="${m.left + pw / 2}" y="${height - 6}" text-anchor="middle">${esc(xTitle)}</text>
    <text class="axis-title" transform="translate(13,${m.top + ph / 2}) rotate(-90)" text-anchor="middle">${esc(yTitle)}</text>
  </svg>${legend(series)}</figure>`;
}

function histogram({ values, id, label, xTitle, bins = 10, width = 480 }) {
  if (!values.length) return `<p class="muted">no data yet</p>`;
  const height = 200;
  const m = { left: 48, right: 14, top: 12, bottom: 44 };
  const pw = width - m.left - m.right, ph = height - m.top - m.bottom;
  const lo = Math.min(...values), hi = Math.max(...values);
  const span = hi - lo || 1;
  const counts = new Array(bins).fill(0);
  for (const v of values) counts[Math.min(bins - 1, Math.floor(((v - lo) / span) * bins))]++;
  const top = Math.max(...counts), w = pw / bins;
  const bars = counts.map((c, i) => {
    const h = (c / top) * ph;
    const from = lo + (i * span) / bins, to = lo + ((i + 1) * span) / bins;
    return `<rect x="${m.left + i * w + 1}" y="${m.top + ph - h}" width="${Math.max(1, w - 2)}" height="${h}" fill="#2f6fdf"><title>${c} run(s) from ${num(from, 2)} to ${num(to, 2)}</title></rect>`;
  }).join("");
  const yt = niceTicks(0, top, Math.min(4, top)).filter((t) => Number.isInteger(t)).map((t) => `<text class="tick" x="${m.left - 6}" y="${m.top + ph - (t / top) * ph + 4}" text-anchor="end">${t}</text>`).join("");
  const xt = [[0, "start"], [bins / 2, "middle"], [bins, "end"]].map(([b, a]) => `<line class="axis" x1="${m.left + b * w}" x2="${m.left + b * w}" y1="${m.top + ph}" y2="${m.top + ph + 4}"/><text class="tick" x="${m.left + b * w}" y="${m.top + ph + 17}" text-anchor="${a}">${num(lo + (b * span) / bins, 2)}</text>`).join("");
  return `<figure class="chart"><svg id="${esc(id)}" width="${width}" height="${height}" role="img" aria-label="${esc(label)}">${bars}
    <line class="axis" x1="${m.left}" x2="${m.left}" y1="${m.top}" y2="${m.top + ph}"/><line class="axis" x1="${m.left}" x2="${m.left + pw}" y1="${m.top + ph}" y2="${m.top + ph}"/>${yt}${xt}
    <text class="axis-title" x="${m.left + pw / 2}" y="${height - 6}" text-anchor="middle">${esc(xTitle)}</text>
    <text class="axis-title" transform="translate(13,${m.top + ph / 2}) rotate(-90)" text-anchor="middle">runs</text></svg></figure>`;
}

// --- leaderboard and standings ---------------------------------------------------------------------------------------

function tieNote(row) {
  return row.tied_with && row.tied_with.length ? ` <span class="tie" title="same score as rank ${row.tied_with.join(", ")}; broken by the earlier commitment block">tie · block ${row.commitment_block}</span>` : "";
}

// how sure a standing is: its 95% interval, P(rank 1) and the samples it rests on (arena.sampling)
const interval = (r) => (r.low === null || r.low === undefined ? "–" : `${num(r.low, 2)}–${num(r.high, 2)}`);
const certaintyColumns = () => [
  { title: "95% interval", value: interval, num: true },
  { title: "P(rank 1)", value: (r) => pct(r.p_rank1), num: true },
  { title: "samples", value: (r) => r.samples ?? "–", num: true },
];
const passK = (r) => Object.keys(r.pass_at_k || {}).map((t) => `${esc(t)} ${pct(r.pass_at_k[t])} / ${pct((r.pass_hat_k || {})[t])}`).join(" · ") || "–";
function noiseHtml(noise, certainty) {
  if (!noise) return "";
  const cls = noise.within_noise.length ? "card notice" : "muted";
  return `<p class="${cls}" id="noise">${esc(noise.note)}.</p>${certainty ? `<p class="muted" id="certainty">${esc(certainty)}.</p>` : ""}`;
}

function tiesHtml(groups, tieBreak) {
  if (!groups || !groups.length) return `<p class="muted" id="ties">No ties in the latest race.</p>`;
  return `<div class="card" id="ties"><b>Ties</b> <span class="muted">(${esc(tieBreak)})</span><ul>${groups.map((g) => `<li>score ${num(g.score)}: ${g.ranks.map((r, i) => `rank ${r} ${minerLink(g.hotkeys[i])} <span class="block">(block ${g.commitment_blocks[i]})</span>`).join(", ")}</li>`).join("")}</ul></div>`;
}

async function leaderboard() {
  const [board, standings, data, races] = await Promise.all([api("/api/leaderboard"), api("/api/standings"), api("/api/charts"), api("/api/races?limit=10")]);
  if (!board.race) {
    app.innerHTML = `<h1>Leaderboard</h1><div class="card" id="empty"><p>No race has closed yet.</p>
      <p class="muted">${esc(board.hint)}. Races open on the pack's rotation once miners' submissions are synced. <a href="#/live">Live race</a>.</p></div>`;
    return;
  }
  const tasks = TASKS.filter((t) => board.rows.some((r) => t in (r.per_task || {})));
  const columns = [
    { title: "#", value: (r) => r.rank, num: true },
    { title: "miner", html: (r) => `${minerLink(r.hotkey)}${tieNote(r)}` },
    { title: "uid", value: (r) => r.uid, num: true },
    { title: "score", value: (r) => num(r.score), num: true },
    ...certaintyColumns(),
    { title: "success", value: (r) => pct(r.success_rate), num: true },
    { title: "judge quality", value: (r) => num(r.judge_quality, 2), num: true },
    { title: "errors", value: (r) => r.errored, num: true },
    ...tasks.map((t) => ({ title: t, value: (r) => num((r.per_task || {})[t], 2), num: true })),
  ];
  const champ = standings.champion;
  app.innerHTML = `<h1>Leaderboard</h1>
    ${champ ? `<div class="card" id="champion">Champion ${minerLink(champ.hotkey, champ.uid)} — rank 1 in the last <b>${champ.races}</b> race(s), since ${raceLink(champ.since_race)} (${when(champ.since, champ.since_block, "seed block")})</div>` : ""}
    <h2>Latest race · ${raceLink(board.race.race_id)} <span class="muted">closed ${when(board.race.closed_at, board.race.seed_block, "seed block")}</span></h2>
    <p class="muted">${board.race.problem_count} problems drawn with block ${board.race.seed_block}'s hash; score = mean of success × judge coefficient; ${esc(board.tie_break)}.</p>
    ${table(columns, board.rows, "leaderboard")}
    ${noiseHtml(board.noise, board.certainty)}
    ${tiesHtml(standings.ties, standings.tie_break)}
    <h2>Standings across races</h2>
    <p class="muted">Rolling mean: a miner's mean score over the last ${standings.window} closed races it ran in; standing, interval and P(rank 1): as of the latest race; movement: its rank in the latest race against the race before.</p>
    ${standingsTable(standings)}
    <div class="grid">
      <div class="card"><h3>Rank by race</h3>${rankChart(standings)}</div>
      <div class="card"><h3>Success by task over races</h3>${successChart(data.success_by_task, standings.races)}</div>
      <div class="card"><h3>Final score distribution</h3>${chart(histogram, { values: data.final_scores, id: "final-chart", label: "final scores", xTitle: "final score" })}</div>
      <div class="card"><h3>Run duration</h3>${chart(histogram, { values: data.durations, id: "duration-chart", label: "run durations", xTitle: "seconds in the sandbox" })}</div>
    </div>
    <h2>Recent races</h2>${racesTable(races.items)}`;
}

function movement(r) {
  if (r.movement === null || r.movement === undefined) return r.new ? `<span class="new">new</span>` : "–";
  if (r.movement > 0) return `<span class="up" title="up ${r.movement}">▲ ${r.movement}</span>`;
  if (r.movement < 0) return `<span class="down" title="down ${-r.movement}">▼ ${-r.movement}</span>`;
  return `<span class="muted">=</span>`;
}

function standingsTable(st) {
  return table([
    { title: "#", value: (r) => r.position, num: true },
    { title: "miner", html: (r) => minerLink(r.hotkey, r.uid) },
    { title: "rolling mean", value: (r) => num(r.rolling_mean), num: true },
    { title: "standing", value: (r) => num(r.score), num: true },
    ...certaintyColumns(),
    { title: "races (in window)", value: (r) => `${r.races} (${r.races_in_window})`, num: true },
    { title: "latest rank", value: (r) => r.latest_rank ?? "–", num: true },
    { title: "move", html: movement, num: true },
    { title: "wins", value: (r) => r.wins, num: true },
    { title: "best", value: (r) => r.best_rank ?? "–", num: true },
  ], st.rows, "standings");
}

function seriesByMiner(st, value) {
  const index = Object.fromEntries(st.races.map((r, i) => [r.race_id, i]));
  return Object.entries(st.history).map(([hotkey, points], i) => ({
    name: short(hotkey), color: PALETTE[i % PALETTE.length],
    points: points.map((p) => ({ x: index[p.race_id], y: value(p), title: `${short(hotkey)} in ${p.race_id}: rank ${p.rank}, score ${num(p.score)}` })),
  }));
}

function rankChart(st) {
  const worst = Math.max(1, ...Object.values(st.history).flat().map((p) => p.rank || 1));
  return chart(lineChart, { id: "rank-chart", label: "rank by race", series: seriesByMiner(st, (p) => p.rank), xLabels: st.races.map((r) => String(r.seed_block)),
    xTitle: "race (seed block)", yTitle: "rank", yMin: 1, yMax: worst, invert: true, yFormat: (v) => String(v),
    yTicks: niceTicks(1, worst, Math.min(4, worst - 1 || 1)).filter((t) => Number.isInteger(t)) });
}

function successChart(byTask, races) {
  const ids = races.length ? races.map((r) => r.race_id) : [...new Set(Object.values(byTask).flat().map((p) => p.race_id))];
  const index = Object.fromEntries(ids.map((id, i) => [id, i]));
  const labels = races.length ? races.map((r) => String(r.seed_block)) : ids;
  const series = Object.entries(byTask).map(([task, points]) => ({ name: task, color: taskColor(task),
    points: points.filter((p) => p.race_id in index).map((p) => ({ x: index[p.race_id], y: p.success, title: `${task} in ${p.race_id}: ${pct(p.success)} of ${p.runs} runs` })) }));
  return chart(lineChart, { id: "success-chart", label: "success by task over races", series, xLabels: labels, xTitle: "race (seed block)", yTitle: "success", yFormat: pct });
}

// --- races -----------------------------------------------------------------------------------------------------------

function racesTable(items) {
  return table([
    { title: "race", html: (r) => raceLink(r.race_id) },
    { title: "status", html: (r) => `${badge(r.status)}${r.reason ? ` <span class="muted">${esc(r.reason)}</span>` : ""}` },
    { title: "problems", value: (r) => r.problem_count ?? r.problem_ids.length, num: true },
    { title: "opened", html: (r) => when(r.opened_at, r.seed_block, "seed block") },
    { title: "closed", html: (r) => ago(r.closed_at) },
  ], items, "races");
}

async function racesPage() {
  const races = await api("/api/races?limit=200");
  app.innerHTML = `<h1>Races</h1><p><a href="#/live">Live race →</a></p>${races.items.length ? racesTable(races.items) : `<p class="muted">No race yet.</p>`}`;
}

function gridHtml(grid) {
  if (!grid.rows.length) return `<p class="muted">no runs</p>`;
  const head = grid.problems.map((p) => `<th title="${esc(p.problem_id || "hidden until the race closes")}">${esc(p.task || p.label)}${p.problem_id ? `<br><span class="muted">${esc(p.problem_id.slice(-6))}</span>` : ""}</th>`).join("");
  // one link per sample of the (miner, problem); k samples share the cell, each colored by its own outcome
  const cellClass = (c) => (c.status === "finished" ? (grid.revealed ? (c.success ? "ok" : "fail") : "done") : c.status);
  const sampleLink = (c, own) => {
    const text = c.status === "finished" && grid.revealed ? num(c.final, 2) : c.status === "errored" ? String(c.error_code ?? "err") : c.status;
    return `<a${own ? ` class="cell ${cellClass(c)}"` : ""} href="#/run/${enc(c.run_id)}" title="sample ${c.sample ?? 0}: ${esc(c.status)}${c.error_code ? ` ${c.error_code} (${c.blame})` : ""}">${esc(text)}</a>`;
  };
  const rows = grid.rows.map((row) => `<tr><th>${row.rank ? `#${row.rank} ` : ""}${minerLink(row.hotkey)}</th>${row.cells.map((c) => {
    if (!c) return `<td class="cell empty">–</td>`;
    if (c.samples && c.samples.length > 1) return `<td class="cell samples">${c.samples.map((x) => sampleLink(x, true)).join("")}</td>`;
    return `<td class="cell ${cellClass(c)}">${sampleLink(c, false)}</td>`;
  }).join("")}</tr>`).join("");
  return `<div class="scroll"><table id="grid" class="grid-table"><thead><tr><th>miner \\ problem</th>${head}</tr></thead><tbody>${rows}</tbody></table></div>
    <p class="muted legend-line"><span class="cell ok">0.39</span> success (final score) · <span class="cell fail">0.00</span> answered, not a success · <span class="cell errored">1006</span> error code${grid.revealed ? "" : " · problems are numbered until the race closes"}</p>`;
}

async function racePage(raceId, params) {
  const [race, grid] = await Promise.all([api(`/api/races/${enc(raceId)}`), api(`/api/races/${enc(raceId)}/grid`)]);
  const counts = Object.entries(race.runs_by_status).map(([s, n]) => `<span class="badge ${esc(s)}">${esc(s)} ${n}</span>`).join(" ");
  const hidden = race.revealed ? "" : `<div class="card notice" id="hidden">This race is <b>${esc(race.status)}</b>: its problems, queries, steps, answers and checks are hidden until it closes. <a href="#/live">Follow it live →</a></div>`;
  app.innerHTML = `<h1>Race ${esc(race.race_id)}</h1>
    <p>${badge(race.status)} ${counts}</p>
    <p class="muted">${race.problem_count} problems · seed block ${race.seed_block}, hash <code>${esc(race.seed_hash)}</code> · opened ${ago(race.opened_at)}${race.closed_at ? ` · closed ${ago(race.closed_at)}` : ""}${race.reason ? ` · ${esc(race.reason)}` : ""}</p>
    ${(race.providers_dropped || []).map((d) => `<p class="card notice">${d.runs} run(s) left out: ${esc(d.reason)}</p>`).join("")}
    ${hidden}
    ${race.results.length ? `<h2>Results</h2>${table([
      { title: "#", value: (r) => r.rank, num: true }, { title: "miner", html: (r) => `${minerLink(r.hotkey, r.uid)}${tieNote(r)}` },
      { title: "score", value: (r) => num(r.score), num: true }, ...certaintyColumns(), { title: "success", value: (r) => pct(r.success_rate), num: true },
      { title: "pass@k / pass^k", html: passK },
      { title: "runs", value: (r) => r.runs, num: true }, { title: "errors", value: (r) => r.errored, num: true },
      { title: "committed", value: (r) => `block ${r.commitment_block}` },
    ], race.results, "results")}${noiseHtml(race.noise, race.certainty)}<p class="muted">${esc(race.tie_break)}.</p>` : ""}
    ${poolHtml(race.pool)}
    <h2>Miner × problem</h2>${gridHtml(grid)}
    <h2>Runs</h2><div id="explorer"></div>`;
  await runsExplorer(document.getElementById("explorer"), { ...params, race: raceId }, `#/race/${enc(raceId)}`, ["race"]);
}

// the race's pooling with the other validators: each committed bundle verified, refused (why) or not fetched
function poolHtml(pool) {
  if (!pool) return "";
  const rows = Object.entries(pool.validators || {}).map(([hotkey, v]) => ({ hotkey, ...v }));
  return `<h2>Pooled with the other validators</h2><div id="pool">
    <p>${badge(pool.status)} cut-off block ${pool.cutoff_block} · weights due by block ${pool.due_block}${pool.bundle_sha256 ? ` · this node's bundle <code>${esc(pool.bundle_sha256.slice(0, 16))}</code>${pool.committed_block ? ` committed at block ${pool.committed_block}` : ""}` : ""}</p>
    ${pool.commit_error ? `<p class="muted">commitment refused: ${esc(pool.commit_error)} (tried again until the cut-off)</p>` : ""}
    ${rows.length ? `<div class="scroll">${table([
      { title: "validator", html: (r) => `<code title="${esc(r.hotkey)}">${esc(short(r.hotkey))}</code>` }, { title: "bundle", value: (r) => r.status },
      { title: "runs", value: (r) => r.runs ?? "", num: true }, { title: "why", value: (r) => r.reason ? `${r.kind}: ${r.reason}` : "" },
    ], rows, "pool-validators")}</div>` : `<p class="muted">no bundle checked yet</p>`}
    ${pool.note ? `<p class="muted">${esc(pool.note)}</p>` : ""}
    ${(pool.standings || []).length ? `<h3>Pooled standings (the weights come from these)</h3><div class="scroll">${table([
      { title: "#", value: (s) => s.rank, num: true }, { title: "miner", html: (s) => minerLink(s.miner) },
      { title: "score", value: (s) => num(s.score), num: true }, { title: "95% interval", value: (s) => `${num(s.low)}–${num(s.high)}` },
      { title: "P(rank 1)", value: (s) => pct(s.p_rank1), num: true }, { title: "samples", value: (s) => s.samples, num: true },
      { title: "validators", value: (s) => s.validators, num: true },
    ], pool.standings, "pool-standings")}</div>` : ""}</div>`;
}

// --- live ------------------------------------------------------------------------------------------------------------

async function livePage() {
  const render = async () => {
    const live = await api("/api/live");
    if (!location.hash.startsWith("#/live")) return;
    const q = live.queue;
    const races = live.races.map((race) => `<div class="card race-live" data-race="${esc(race.race_id)}">
      <h2>${raceLink(race.race_id)} ${badge(race.status)}</h2>
      <p><b class="done-count">${race.done}</b> of ${race.runs} runs done · ${race.problem_count} problems · opened ${when(race.opened_at, race.seed_block, "seed block")} · ${Math.round(race.elapsed_s)} s elapsed</p>
      <div class="bar" title="${race.done} of ${race.runs} done"><span style="width:${race.runs ? (100 * race.done) / race.runs : 0}%"></span></div>
      ${Object.keys(race.runs_by_worker || {}).length ? `<p class="runs-by-worker">runs per worker: ${Object.entries(race.runs_by_worker).map(([w, n]) => `<span class="badge">${esc(w)} ${n}</span>`).join(" ")}</p>` : ""}
      ${table([
        { title: "miner", html: (r) => minerLink(r.hotkey, r.uid) },
        { title: "progress", html: (r) => `<div class="bar small"><span style="width:${r.runs ? (100 * r.done) / r.runs : 0}%"></span></div> ${r.done}/${r.runs}` },
        ...RUN_STATUSES.map((s) => ({ title: s, value: (r) => r.by_status[s] || "", num: true })),
        { title: "scored", value: (r) => r.scored, num: true }, { title: "succeeded", value: (r) => r.succeeded, num: true },
        { title: "last move", html: (r) => ago(r.last_move) },
      ], race.miners, "live-progress")}</div>`).join("");
    app.innerHTML = `<h1>Live race</h1>
      <p class="muted" id="refreshed" data-at="${esc(live.now)}">updated ${esc(new Date().toLocaleTimeString())} · refreshes every ${LIVE_REFRESH_MS / 1000} s · while a race is open only its runs' status, timing and score counts are shown</p>
      <div class="stats" id="queue"><div><b>${q.ready}</b><span>ready to start (queue depth)</span></div><div><b>${q.backoff}</b><span>waiting to retry</span></div>
        <div><b>${q.in_sandbox}</b><span>in a sandbox</span></div><div><b>${q.scoring}</b><span>being scored or judged</span></div></div>
      ${races || `<div class="card" id="no-live"><p>No race is running.</p><p class="muted">${live.last_closed ? `The last race, ${raceLink(live.last_closed.race_id)}, closed ${ago(live.last_closed.closed_at)}.` : "No race has run yet."} The next opens on the pack's rotation.</p></div>`}`;
  };
  await render();
  timer = setInterval(() => render().catch((e) => { app.innerHTML = `<p class="bad">${esc(e.message)}</p>`; }), LIVE_REFRESH_MS);
}

// --- runs: filter, sort, page ----------------------------------------------------------------------------------------

const FILTERS = [
  { key: "race", api: "race_id", label: "race" }, { key: "miner", api: "miner", label: "miner hotkey" },
  { key: "status", api: "status", label: "status", options: RUN_STATUSES }, { key: "task", api: "task", label: "task", options: TASKS },
  { key: "error_code", api: "error_code", label: "error code" }, { key: "blame", api: "blame", label: "blame", options: ["agent", "validator"] },
];

async function runsExplorer(target, params, base, fixed = []) {
  const sort = params.sort || "created", order = params.order || (params.sort ? "asc" : "desc");
  const pageNo = Math.max(1, Number(params.page) || 1);
  const query = new URLSearchParams({ sort, order, limit: PAGE_SIZE, offset: (pageNo - 1) * PAGE_SIZE });
  for (const f of FILTERS) if (params[f.key]) query.set(f.api, params[f.key]);
  const runs = await api(`/api/runs?${query}`);
  const href = (changes) => {
    const next = new URLSearchParams();
    for (const [k, v] of Object.entries({ ...params, ...changes })) if (v && !fixed.includes(k)) next.set(k, v);
    const text = next.toString();
    return `${base}${text ? `?${text}` : ""}`;
  };
  const form = `<form class="filters" id="run-filters">${FILTERS.filter((f) => !fixed.includes(f.key)).map((f) => f.options
    ? `<label>${esc(f.label)}<select name="${f.key}"><option value="">any</option>${f.options.map((o) => `<option${params[f.key] === o ? " selected" : ""}>${o}</option>`).join("")}</select></label>`
    : `<label>${esc(f.label)}<input name="${f.key}" value="${esc(params[f.key] || "")}" size="12"></label>`).join("")}
    <button type="submit">filter</button> <a href="${base}">clear</a></form>`;
  const first = runs.total ? runs.offset + 1 : 0, last = runs.offset + runs.items.length;
  const pages = Math.max(1, Math.ceil(runs.total / PAGE_SIZE));
  const pager = `<p class="pager" id="pager">${pageNo > 1 ? `<a id="prev" href="${href({ page: pageNo - 1 })}">← previous</a>` : ""}
    <span>runs ${first}–${last} of <b id="run-total">${runs.total}</b> · page ${pageNo} of ${pages}</span>
    ${pageNo < pages ? `<a id="next" href="${href({ page: pageNo + 1 })}">next →</a>` : ""}</p>`;
  const sorter = { key: sort, order, href: (key, next) => href({ sort: key, order: next, page: "" }) };
  target.innerHTML = `${form}${table([
    { title: "created", sort: "created", html: (r) => when(r.created_at, r.seed_block, "race block") },
    ...(fixed.includes("race") ? [] : [{ title: "race", sort: "race", html: (r) => raceLink(r.race_id) }]),
    { title: "miner", sort: "miner", html: (r) => minerLink(r.hotkey) },
    { title: "problem", sort: "problem", html: (r) => (r.hidden ? `<span class="muted">hidden until close</span>` : `${esc(r.problem_id)} <span class="muted">${esc(r.task || "")}</span>`) },
    { title: "status", sort: "status", html: (r) => `<a href="#/run/${enc(r.run_id)}">${badge(r.status)}</a>${r.error_code ? ` <span class="bad" title="${esc(r.blame)}">${r.error_code}</span>` : ""}` },
    { title: "score", sort: "score", value: (r) => (r.hidden ? "–" : num(r.final)), num: true },
    { title: "time (s)", value: (r) => num(r.seconds, 2), num: true },
    { title: "tools", sort: "tools", value: (r) => (r.hidden ? "–" : r.tool_calls), num: true, wide: true },
    { title: "cost ($)", sort: "cost", value: (r) => (r.hidden ? "–" : num(r.cost, 4)), num: true, wide: true },
    { title: "ended", sort: "ended", html: (r) => ago(r.ended_at), wide: true },
  ], runs.items, "runs", sorter)}${pager}`;
  target.querySelector("form").addEventListener("submit", (event) => {
    event.preventDefault();
    const data = Object.fromEntries(new FormData(event.target).entries());
    location.hash = href({ ...data, page: "" });
  });
}

async function runsPage(params) {
  app.innerHTML = `<h1>Runs</h1><div id="explorer"></div>`;
  await runsExplorer(document.getElementById("explorer"), params, "#/runs");
}

// --- a run -----------------------------------------------------------------------------------------------------------

// the sections a run's family draws (Family.run_sections, sent by the API as run.sections): facts, tables, checks,
// text, JSON and conversations, every cell text or {text, tone} or a list of lines; the one run page of every family
function cellHtml(cell, inline = false) {
  if (cell === null || cell === undefined) return "";
  if (Array.isArray(cell)) {
    return inline ? cell.map((c) => cellHtml(c, true)).join(" ") : cell.map((c) => `<div class="line">${cellHtml(c, true)}</div>`).join("");
  }
  if (typeof cell === "object") {
    const text = esc(cell.text ?? "");
    if (cell.tone === "code") return `<code>${text}</code>`;
    if (cell.tone === "bold") return `<b>${text}</b>`;
    return cell.tone ? `<span class="${esc(cell.tone)}">${text}</span>` : text;
  }
  return esc(String(cell));
}

function seqLink(runId, seq) {
  return seq === null || seq === undefined ? "" : `<a class="seq" href="#/run/${enc(runId)}" onclick="document.getElementById('step-${seq}').scrollIntoView();return false;">#${seq}</a>`;
}

function entryHtml(e, runId) {
  const marks = (e.marks || []).map((m) => `<span class="${esc(m.cls || "reveal")}"${m.title ? ` title="${esc(m.title)}"` : ""}>${esc(m.text)}</span>`).join(" ");
  const cls = ["turn", e.who, e.kind, ...(e.classes || [])].map((c) => esc(c || "")).join(" ");
  return `<li class="${cls}"${e.turn !== null && e.turn !== undefined ? ` data-turn="${esc(e.turn)}"` : ""}><span class="who">${esc(e.who || "")}</span> <span class="muted">${esc(e.label || "")}</span> ${seqLink(runId, e.seq)}${e.error ? ` <span class="bad">error: ${esc(e.error)}</span>` : ""} ${marks}
    ${e.text ? `<div class="said">${esc(e.text)}</div>` : ""}${(e.items || []).length ? `<div class="proposed">${cellHtml(e.items)}</div>` : ""}</li>`;
}

function sectionHtml(s, run) {
  const id = s.id ? ` id="${esc(s.id)}"` : "";
  let body = s.text && s.kind !== "text" ? `<p>${esc(s.text)}</p>` : "";
  if (s.kind === "facts") {
    body += `<dl class="facts"${id}>${Object.entries(s.facts || {}).map(([k, v]) => `<dt>${esc(k)}</dt><dd>${cellHtml(v)}</dd>`).join("")}</dl>`;
  } else if (s.kind === "table") {
    body += (s.rows || []).length ? table((s.columns || []).map((c, i) => ({ title: c, html: (r) => cellHtml(r[i]) })), s.rows, s.id || "") : `<p class="muted">none</p>`;
  } else if (s.kind === "checks") {
    body += table([{ title: "check", value: (c) => c.name }, { title: "result", html: (c) => `<span class="${c.passed ? "ok" : "bad"}">${c.passed ? "pass" : "FAIL"}</span>` },
                   { title: "evidence", value: (c) => c.evidence || "" }], s.checks || [], s.id || "");
  } else if (s.kind === "conversation") {
    body += `<ol class="conversation"${id}>${(s.entries || []).map((e) => entryHtml(e, run.run_id)).join("")}</ol>`;
  } else if (s.kind === "json") {
    body += `<pre${id}>${esc(JSON.stringify(s.value, null, 1))}</pre>`;
  } else {
    body += `<p${id}>${esc(s.text || "")}</p>`;
  }
  return `<div class="card section-${esc(s.kind)}"><h2>${esc(s.title)}</h2>${body}${s.note ? `<p class="muted">${esc(s.note)}</p>` : ""}</div>`;
}

function sectionsHtml(run) {
  return (run.sections || []).map((s) => sectionHtml(s, run)).join("") || `<p class="muted">not scored</p>`;
}

function sandboxHtml(facts, run) {
  if (!facts) return "";
  const flag = (v) => (v ? `<b class="bad">yes</b>` : "no");
  return `<div class="card${run.status === "errored" ? " errored-card" : ""}" id="sandbox"><h2>Sandbox</h2>
    <dl class="facts"><dt>exit code</dt><dd id="exit-code">${facts.exit_code ?? "–"}</dd><dt>out of memory</dt><dd id="oom">${flag(facts.oom)}</dd>
    <dt>timed out</dt><dd>${flag(facts.timed_out)}</dd><dt>harness status</dt><dd>${esc(facts.status ?? "–")}</dd>
    <dt>backend</dt><dd>${esc(facts.backend ?? "–")}</dd><dt>time</dt><dd>${num(facts.elapsed_s, 2)} s</dd></dl>
    ${"stderr_tail" in facts ? `<p><b>stderr (tail)</b></p><pre id="stderr">${facts.stderr_tail ? esc(facts.stderr_tail) : `<span class="muted">(empty)</span>`}</pre>` : `<p class="muted">stderr is shown once the race closes</p>`}</div>`;
}

// --- steps, rendered as what they are: a search's products as a table, a page's facts as a list, a chat as turns ------

function scalar(v, inCell = false) {
  if (v === null || v === undefined) return `<span class="muted">–</span>`;
  if (Array.isArray(v)) return v.every((x) => x === null || typeof x !== "object") ? esc(v.join(", ")) : valueHtml(v, 2);
  if (typeof v === "object") return inCell ? compact(v) : valueHtml(v, 2);
  return esc(String(v).length > 400 ? `${String(v).slice(0, 400)}…` : v);
}

// a nested object inside a table cell: one "key: value" line each
function compact(obj) {
  const entries = Object.entries(obj);
  if (!entries.length) return `<span class="muted">(none)</span>`;
  const text = (v) => (v && typeof v === "object" ? (Array.isArray(v) ? v.map((x) => (x && typeof x === "object" ? Object.values(x).join(" ") : x)).join(", ") : Object.entries(v).map(([k, x]) => `${k} ${x}`).join(", ")) : String(v ?? ""));
  return entries.slice(0, 12).map(([k, v]) => `<div class="line"><span class="muted">${esc(k)}:</span> ${esc(text(v))}</div>`).join("");
}

function valueHtml(value, depth = 0) {
  if (value === null || value === undefined || typeof value !== "object") return `<span class="text">${scalar(value)}</span>`;
  if (Array.isArray(value)) {
    if (!value.length) return `<span class="muted">(none)</span>`;
    if (value.every((v) => v && typeof v === "object" && !Array.isArray(v))) {
      const keys = [...new Set(value.flatMap((v) => Object.keys(v)))].slice(0, 8);
      const shown = value.slice(0, 20);
      return `<div class="scroll"><table class="result"><thead><tr>${keys.map((k) => `<th>${esc(k)}</th>`).join("")}</tr></thead><tbody>${shown.map((v) => `<tr>${keys.map((k) => `<td>${depth > 2 ? esc(JSON.stringify(v[k] ?? "")) : scalar(v[k], true)}</td>`).join("")}</tr>`).join("")}</tbody></table></div>${value.length > shown.length ? `<p class="muted">… ${value.length - shown.length} more</p>` : ""}`;
    }
    return `<ul class="plain">${value.slice(0, 30).map((v) => `<li>${valueHtml(v, depth + 1)}</li>`).join("")}</ul>`;
  }
  const entries = Object.entries(value);
  if (!entries.length) return `<span class="muted">(empty)</span>`;
  return `<dl class="kv">${entries.slice(0, 30).map(([k, v]) => `<dt>${esc(k)}</dt><dd>${depth > 3 ? esc(JSON.stringify(v)) : scalar(v)}</dd>`).join("")}</dl>`;
}

function chatHtml(step) {
  const args = step.arguments || {};
  const messages = Array.isArray(args.messages) ? args.messages : [];
  const last = messages.slice(-3);
  const content = (m) => (typeof m.content === "string" ? m.content : Array.isArray(m.content) ? m.content.map((p) => p.text || "").join(" ") : "");
  const reply = step.result && step.result.choices && step.result.choices[0] ? step.result.choices[0].message || {} : null;
  const calls = reply && reply.tool_calls ? reply.tool_calls.map((c) => `<li>calls <b>${esc(c.function && c.function.name)}</b>(${esc((c.function && c.function.arguments) || "")})</li>`).join("") : "";
  return `<p class="muted">${messages.length} message(s) sent${messages.length > last.length ? `, the last ${last.length}:` : ":"}</p>
    <ul class="chat">${last.map((m) => `<li><b>${esc(m.role)}</b> ${esc(content(m).slice(0, 600))}</li>`).join("")}</ul>
    ${reply ? `<p><b>reply</b> ${esc((reply.content || "").slice(0, 1200))}</p>${calls ? `<ul class="chat">${calls}</ul>` : ""}` : ""}`;
}

function stepHtml(step, cited) {
  const args = step.arguments && typeof step.arguments === "object" && !Array.isArray(step.arguments) ? step.arguments : null;
  const call = step.kind === "llm_call" ? "" : `<p class="call"><b>${esc(step.name)}</b>(${args ? Object.entries(args).map(([k, v]) => `<span class="arg">${esc(k)} = <code>${esc(typeof v === "string" ? v : JSON.stringify(v))}</code></span>`).join(", ") : esc(JSON.stringify(step.arguments ?? ""))})</p>`;
  const body = step.error ? `<p class="bad">error: ${esc(step.error)}</p>` : step.kind === "llm_call" ? chatHtml(step) : valueHtml(step.result);
  let raw = JSON.stringify({ arguments: step.arguments, result: step.result }, null, 1) || "";
  if (raw.length > 20000) raw = `${raw.slice(0, 20000)}… [${raw.length} chars]`;
  return `<div class="step${cited.has(step.seq) ? " cited" : ""}" id="step-${step.seq}">
    <header><span>#${step.seq}</span><span class="badge">${esc(step.kind)}</span><span>${esc(step.name)}</span>
    <span class="muted">${num(step.duration_ms, 1)} ms${step.tokens && step.tokens.total_tokens ? ` · ${step.tokens.prompt_tokens ?? 0} in / ${step.tokens.completion_tokens ?? 0} out tokens · $${Number(step.cost || 0).toFixed(6)}` : ""}${step.status && step.status !== 200 ? ` · HTTP ${step.status}` : ""}</span>
    ${cited.has(step.seq) ? `<span class="warn">cited by the judge</span>` : ""}</header>
    ${call}<div class="step-body">${body}</div><details><summary>raw JSON</summary><pre>${esc(raw)}</pre></details></div>`;
}

async function runPage(runId) {
  const run = await api(`/api/runs/${enc(runId)}`);
  const blame = run.error_code ? `<p class="bad" id="blame">error ${run.error_code} (${esc(run.blame)} is to blame${run.blame === "validator" ? ": retried, never a zero" : ""})${run.error ? `: ${esc(run.error)}` : ""}${run.error_description ? ` <span class="muted">— ${esc(run.error_description)}</span>` : ""}</p>` : (run.error ? `<p class="warn">${esc(run.error)}</p>` : "");
  const head = `<h1>Run ${esc(run.run_id)}</h1>
    <p>${raceLink(run.race_id)} · miner ${minerLink(run.hotkey)} · ${badge(run.status)} · sample ${run.sample ?? 0} · attempt ${run.attempt} · ${num(run.seconds, 2)} s${run.hidden ? "" : ` · final ${num(run.final)}`}</p>
    <p class="muted">created ${when(run.created_at, run.seed_block, "race block")}${run.ended_at ? ` · ended ${ago(run.ended_at)}` : ""}</p>`;
  if (run.hidden) {
    const reason = run.hidden_reason.charAt(0).toUpperCase() + run.hidden_reason.slice(1);
    app.innerHTML = `${head}<div class="card notice" id="hidden">${esc(reason)}. <a href="#/live">Follow the race live →</a></div>
      ${blame}${run.status === "errored" ? sandboxHtml(run.sandbox_facts, run) : ""}`;
    return;
  }
  const cited = new Set(run.judge_evidence || []);
  const judge = run.judge;
  // every attempt the upstream failed in ended 2005 and is listed in run.attempts, with its upstream errors
  const upstream = (run.attempts || []).flatMap((a) => (a.upstream_errors || []).map((e) => ({ attempt: a.attempt, ...e })));
  const attempts = (run.attempts || []).length ? `<div class="card" id="attempts"><h2>Attempts that ended in an error</h2>${table([
    { title: "attempt", value: (a) => a.attempt, num: true }, { title: "code", value: (a) => a.code, num: true },
    { title: "blame", value: (a) => a.blame }, { title: "error", value: (a) => a.error || "" },
    { title: "upstream errors", value: (a) => a.upstream_error_count || 0, num: true }], run.attempts, "attempts-table")}</div>` : "";
  const upstreamHtml = upstream.length ? `<div class="card" id="upstream-errors"><h2>Upstream LLM errors (${upstream.length})</h2>
    <p class="muted">The node's upstream LLM failed during these calls: the node's fault, never the miner's (code 2005, retried).</p>${table([
    { title: "attempt", value: (e) => e.attempt, num: true }, { title: "step", value: (e) => e.seq, num: true },
    { title: "status", value: (e) => e.status, num: true }, { title: "error", value: (e) => e.error || "" },
    { title: "at", value: (e) => e.at }], upstream, "upstream")}</div>` : "";
  // what the run's LLM calls cost and who paid (tokens in and out at the operator's prices)
  const spend = run.spend ? `<p id="spend">cost: ${esc(run.spend.line)}</p>` : "";
  app.innerHTML = `${head}
    ${blame}${spend}${run.status === "errored" ? sandboxHtml(run.sandbox_facts, run) : ""}${upstreamHtml}${attempts}
    <div class="card"><b>${esc(run.problem.task)}</b> · ${esc(run.problem.difficulty)} · <code>${esc(run.problem.problem_id)}</code>${run.problem.shown_id ? ` <span class="muted">shown to the agent as <code>${esc(run.problem.shown_id)}</code></span>` : ""}<p id="query">${esc(run.problem.query)}</p></div>
    ${sectionsHtml(run)}
    <div class="card verdict" id="verdict"><h2>Judge</h2>${judge ? `<p>gate <b>${esc(judge.gate)}</b> (quality ${num(judge.quality, 1)}, coefficient ${num(judge.coefficient, 3)}) by ${esc(judge.judge)} · rubric ${esc(judge.rubric_version)}</p>
      <p>${esc(judge.explanation)}</p>${discountedHtml(judge)}<p class="muted">cited steps: ${[...cited].map((s) => `<a href="#/run/${enc(run.run_id)}" onclick="document.getElementById('step-${s}').scrollIntoView();return false;">#${s}</a>`).join(" ") || "none"}</p>` : `<p class="muted">not judged yet</p>`}</div>
    ${(run.score_revisions || []).length ? `<h2>Earlier verdicts (replaced by a rescore)</h2>${table([
      { title: "ruleset", value: (r) => `${r.ruleset ?? "?"} v${r.ruleset_version ?? "?"}` },
      { title: "rubric", value: (r) => r.rubric_version ?? "" },
      { title: "success", value: (r) => (r.success ? "yes" : "no") },
      { title: "final", value: (r) => num(r.final, 3) },
      { title: "replaced", value: (r) => r.replaced_at }], run.score_revisions, "revisions")}` : ""}
    <h2>Steps (${run.steps.length}) <a class="download" id="download" href="/api/runs/${enc(run.run_id)}/trajectory?download=true" download="trajectory-${esc(run.run_id)}.jsonl">download the trajectory (JSONL)</a></h2>
    <div id="steps">${run.steps.map((s) => stepHtml(s, cited)).join("") || `<p class="muted">no calls reached the gateway</p>`}</div>
    ${run.status !== "errored" ? sandboxHtml(run.sandbox_facts, run) : ""}`;
}

// what the judge discounted: completions repeating the agent's own messages, facts planted in its own arguments
function discountedHtml(judge) {
  const d = (judge.checks || {}).discounted || {};
  const items = [
    ...(d.repeated || []).map((r) => `step #${r.seq}: ${r.repeated} of ${r.words} words repeat the agent's own messages (“${esc(r.sample)}”)`),
    ...(d.planted || []).map((p) => `step #${p.seq}: planted by the agent's own arguments: ${esc((p.facts || p.words || []).join(", "))}`),
  ];
  return items.length ? `<div id="discounted"><p><b>Discounted</b> (earns nothing):</p><ul>${items.map((i) => `<li>${i}</li>`).join("")}</ul></div>` : "";
}

// --- miners ----------------------------------------------------------------------------------------------------------

async function minersPage() {
  const miners = await api("/api/miners");
  app.innerHTML = `<h1>Miners</h1>${table([
    { title: "uid", value: (m) => m.uid ?? "–", num: true }, { title: "miner", html: (m) => minerLink(m.hotkey) },
    { title: "registered", value: (m) => (m.registered ? "yes" : "no") }, { title: "submissions", value: (m) => m.submissions, num: true },
    { title: "races", value: (m) => m.races, num: true }, { title: "latest rank", value: (m) => m.latest_rank ?? "–", num: true },
    { title: "best rank", value: (m) => m.best_rank ?? "–", num: true }, { title: "mean score", value: (m) => num(m.mean_score), num: true },
  ], miners.items, "miners")}`;
}

async function minerPage(hotkey) {
  const m = await api(`/api/miners/${enc(hotkey)}`);
  const labels = m.races.map((r) => String(r.seed_block));
  const pts = (f) => m.races.map((r, i) => ({ x: i, y: f(r), title: `${r.race_id}: rank ${r.rank} of ${r.of}, score ${num(r.score)}` }));
  const worst = Math.max(1, ...m.races.map((r) => r.of || 1));
  const weightFor = Object.fromEntries(m.weights.map((w) => [w.race_id, w]));
  const wMax = Math.max(0.05, ...m.weights.map((w) => w.weight));
  app.innerHTML = `<h1>Miner ${esc(short(m.hotkey))} ${m.uid !== null ? `<span class="muted">uid ${m.uid}</span>` : ""}</h1>
    <p class="muted"><code>${esc(m.hotkey)}</code> · coldkey <code>${esc(short(m.coldkey))}</code> · ${m.registered ? "registered" : "not registered"} · first seen ${when(m.first_seen_at, m.first_seen_block)}</p>
    <div class="stats" id="miner-stats"><div><b>${m.submissions.length}</b><span>submissions</span></div><div><b>${m.races.length}</b><span>races closed</span></div>
      <div><b>${m.races.length ? Math.min(...m.races.map((r) => r.rank || 99)) : "–"}</b><span>best rank</span></div>
      <div><b>${m.submissions.filter((s) => s.status === "copy" || s.status === "rejected").length}</b><span>copies and rejections</span></div>
      <div id="miner-cost"><b>${m.llm_cost && m.llm_cost.cost_per_solved !== null ? `$${Number(m.llm_cost.cost_per_solved).toFixed(6)}` : "–"}</b><span>LLM cost per solved problem ($${Number((m.llm_cost || {}).cost || 0).toFixed(6)} over ${(m.llm_cost || {}).solved || 0} solved)</span></div></div>
    <p><a id="miner-runs" href="#/runs?miner=${enc(m.hotkey)}">all ${Object.values(m.runs_by_status).reduce((a, b) => a + b, 0)} runs of this miner →</a>
      ${Object.entries(m.runs_by_status).map(([s, n]) => `<a href="#/runs?miner=${enc(m.hotkey)}&status=${enc(s)}">${badge(`${s} ${n}`)}</a>`).join(" ")}</p>
    ${m.open_races.length ? `<div class="card notice" id="miner-open">In races not closed yet: ${m.open_races.map((r) => `${raceLink(r.race_id)} ${Object.entries(r.runs_by_status).map(([s, n]) => `${esc(s)} ${n}`).join(", ")}`).join("; ")} <span class="muted">(content shown after close)</span></div>` : ""}
    <div class="grid">
      <div class="card"><h3>Score by race</h3>${chart(lineChart, { id: "miner-score-chart", label: "score by race", series: [{ name: "score", color: PALETTE[0], points: pts((r) => r.score) }], xLabels: labels, xTitle: "race (seed block)", yTitle: "score" })}</div>
      <div class="card"><h3>Rank by race</h3>${chart(lineChart, { id: "miner-rank-chart", label: "rank by race", series: [{ name: "rank", color: PALETTE[1], points: pts((r) => r.rank) }], xLabels: labels, xTitle: "race (seed block)", yTitle: "rank", yMin: 1, yMax: worst, invert: true, yFormat: (v) => String(v), yTicks: niceTicks(1, worst, Math.min(4, worst - 1 || 1)).filter((t) => Number.isInteger(t)) })}</div>
      <div class="card"><h3>Weight received</h3>${chart(lineChart, { id: "miner-weight-chart", label: "weight received", series: [{ name: "weight", color: PALETTE[3], points: m.weights.map((w, i) => ({ x: i, y: w.weight, title: `weight set ${w.weight_set_id} (${w.status}${w.block ? ` at block ${w.block}` : ""}): ${num(w.weight)}` })) }], xLabels: m.weights.map((w) => (w.block ? String(w.block) : `#${w.weight_set_id}`)), xTitle: "weight set (block)", yTitle: "weight", yMax: wMax })}</div>
    </div>
    <h2>Races</h2>${m.races.length ? table([
      { title: "race", html: (r) => raceLink(r.race_id) }, { title: "closed", html: (r) => when(r.closed_at, r.seed_block, "seed block") },
      { title: "rank", value: (r) => `${r.rank} of ${r.of}`, num: true }, { title: "score", value: (r) => num(r.score), num: true },
      ...certaintyColumns(), { title: "pass@k / pass^k", html: passK },
      { title: "success", value: (r) => pct(r.success_rate), num: true }, { title: "runs", value: (r) => r.runs, num: true }, { title: "errors", value: (r) => r.errored, num: true },
      { title: "weight", value: (r) => (weightFor[r.race_id] ? num(weightFor[r.race_id].weight) : "–"), num: true },
      { title: "", html: (r) => `<a href="#/runs?race=${enc(r.race_id)}&miner=${enc(m.hotkey)}">runs →</a>` },
    ], m.races, "miner-races") : `<p class="muted">No closed race yet.</p>`}
    <h2>Submissions</h2>${table([
      { title: "committed", value: (s) => `block ${s.commitment_block}` }, { title: "sha256", html: (s) => `<code title="${esc(s.sha256)}">${esc(s.sha256.slice(0, 12))}</code>` },
      { title: "status", html: (s) => badge(s.status) },
      { title: "reason", html: (s) => `${esc(s.reason || "")}${s.copy_of_hotkey ? ` <span class="muted">original: ${minerLink(s.copy_of_hotkey)} at block ${s.copy_of_block}</span>` : ""}` },
      { title: "size", value: (s) => (s.size_bytes ? `${s.size_bytes} B` : ""), num: true }, { title: "checked", html: (s) => ago(s.checked_at) },
    ], m.submissions, "miner-submissions")}
    <h2>Weights received</h2>${table([
      { title: "set", value: (w) => w.weight_set_id, num: true }, { title: "race", html: (w) => (w.race_id ? raceLink(w.race_id) : "") },
      { title: "uid", value: (w) => w.uid ?? "–", num: true }, { title: "weight", value: (w) => num(w.weight), num: true },
      { title: "status", html: (w) => badge(w.status) }, { title: "when", html: (w) => when(w.created_at, w.block) },
    ], m.weights, "miner-weights")}`;
}

// --- submissions and weights -----------------------------------------------------------------------------------------

async function submissionsPage() {
  const subs = await api("/api/submissions?limit=500");
  app.innerHTML = `<h1>Submissions</h1>${table([
    { title: "block", value: (r) => r.commitment_block, num: true }, { title: "uid", value: (r) => r.uid ?? "", num: true },
    { title: "miner", html: (r) => minerLink(r.hotkey) },
    { title: "sha256", html: (r) => `<code>${esc(r.sha256.slice(0, 12))}</code>` },
    { title: "status", html: (r) => badge(r.status) },
    { title: "qualifying", html: (r) => qualifyingCell(r.qualifying) },
    { title: "copy evidence", html: copyCell },
    { title: "reason", value: (r) => r.reason || "" }, { title: "source", value: (r) => r.source },
  ], subs.items, "submissions")}`;
}

// The fork rule's verdict on a submission (its latest race's): whom it is close to, by what, and whether it beat
// them beyond noise; then what of its bundle the similarity check could not read.
function copyCell(r) {
  const v = r.copy_verdict;
  const notes = (r.code_notes || []).map((n) => `<div class="muted">not read: ${esc(n)}</div>`).join("");
  if (!v) return notes;
  const close = `${esc(v.kind)} ${v.similarity.toFixed(3)} to ${minerLink(v.copy_of)}${v.via ? ` (via ${esc(v.via)})` : ""}`;
  const probs = v.problems.length ? ` <span class="muted">on ${v.problems.map(esc).join(", ")}</span>` : "";
  return `${badge(v.copy ? "copy" : "fork")} <span title="${esc(v.reason)}">${close}</span>${probs}${notes}`;
}

// A submission's qualifying round on the active pack: its status, then its score against the leader's.
function qualifyingCell(q) {
  if (!q) return "";
  const score = q.score == null ? "" : ` ${q.score.toFixed(3)}`;
  const bar = q.leader_score == null ? "" : ` vs ${q.share} × ${q.leader_score.toFixed(3)}`;
  return `${badge(q.status)}<span class="muted" title="${esc(q.reason || "")}">${esc(score + bar)}</span>`;
}

async function weightsPage() {
  const [sets, history] = await Promise.all([api("/api/weights?limit=100"), api("/api/weights/history")]);
  const uids = Object.keys(history.uids);
  const series = uids.map((uid, i) => ({ name: `uid ${uid}${history.hotkeys[uid] ? ` ${short(history.hotkeys[uid])}` : ""}`, color: PALETTE[i % PALETTE.length],
    points: history.uids[uid].map((p, j) => ({ x: j, y: p.weight, title: `uid ${uid}, set ${p.weight_set_id}: ${num(p.weight)}` })) }));
  const max = Math.max(0.05, ...uids.flatMap((u) => history.uids[u].map((p) => p.weight)));
  const vector = (v) => Object.entries(v || {}).map(([u, w]) => `<span class="pair">${esc(u)}: ${Number(w).toFixed(3)}</span>`).join(" ");
  const tiesOf = Object.fromEntries(history.sets.map((s) => [s.id, s.ties || []]));
  app.innerHTML = `<h1>Weights</h1>
    <p class="muted">Equal race scores are ranked by the earlier commitment block, then by hotkey, before the policy turns ranks into weights.</p>
    <div class="card"><h3>Weight per uid over weight sets</h3>${chart(lineChart, { id: "weight-chart", label: "weight per uid", series, xLabels: history.sets.map((s) => (s.block ? String(s.block) : `#${s.id}`)), xTitle: "weight set (block it landed in)", yTitle: "weight", yMax: max })}</div>
    ${table([
    { title: "id", value: (r) => r.id, num: true }, { title: "race", html: (r) => (r.race_id ? raceLink(r.race_id) : "") },
    { title: "policy", value: (r) => r.policy }, { title: "status", html: (r) => badge(r.status) },
    { title: "when", html: (r) => when(r.updated_at, r.block) },
    { title: "vector (uid: weight)", html: (r) => vector(r.vector) },
    ...(sets.items.some((r) => r.shadow_policy) ? [{ title: "shadow (never sent)", html: (r) => (r.shadow_policy ? `${esc(r.shadow_policy)}: ${vector(r.shadow_vector)}` : "") }] : []),
    { title: "ties in its race", html: (r) => (tiesOf[r.id] || []).map((g) => `<span class="tie" title="${esc(g.broken_by)}">ranks ${g.ranks.join(" = ")} at ${num(g.score)}: blocks ${g.commitment_blocks.join(" < ")}</span>`).join(" ") || `<span class="muted">none</span>` },
  ], sets.items, "weights")}
    <h2>History per uid</h2>${table([
      { title: "uid", value: (u) => u, num: true }, { title: "miner", html: (u) => minerLink(history.hotkeys[u]) },
      ...history.sets.map((s) => ({ title: `set ${s.id}`, value: (u) => num(history.uids[u].find((p) => p.weight_set_id === s.id).weight), num: true })),
    ], uids, "weight-history")}`;
}

// --- routing ---------------------------------------------------------------------------------------------------------

async function route() {
  if (timer) { clearInterval(timer); timer = null; }
  charts = [];
  const [path, search] = (location.hash || "#/").slice(1).split("?");
  const params = Object.fromEntries(new URLSearchParams(search || ""));
  const [, page, id] = path.split("/");
  const key = decodeURIComponent(id || "");
  document.querySelectorAll("nav a").forEach((a) => a.classList.toggle("active", a.getAttribute("href") === `#/${page || ""}`));
  try {
    await loadTasks();
    if (page === "race" && id) await racePage(key, params);
    else if (page === "run" && id) await runPage(key);
    else if (page === "miner" && id) await minerPage(key);
    else if (page === "races") await racesPage();
    else if (page === "runs") await runsPage(params);
    else if (page === "live") await livePage();
    else if (page === "miners") await minersPage();
    else if (page === "submissions") await submissionsPage();
    else if (page === "weights") await weightsPage();
    else await leaderboard();
    drawCharts();
    app.dataset.page = page || "leaderboard";
  } catch (error) {
    app.innerHTML = `<p class="bad">${esc(error.message)}</p>`;
  }
}
let resized = null;
window.addEventListener("resize", () => { clearTimeout(resized); resized = setTimeout(drawCharts, 150); });
window.addEventListener("hashchange", route);
route();
