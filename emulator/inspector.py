"""`GET /_emulator/`: the inspector, a page that lists requests live as they arrive, newest first, and opens
each to its request and answer bodies and its stream's timing.

One server-rendered page with a small script and no build step, CDN or external file, so that it works
offline. It polls the journal (`/_emulator/requests?since=ID&bodies=false`) once a second, from the oldest
entry still being delivered, and reads one entry in full (`/_emulator/requests/ID`) when a row is opened.
Everything a client sent is shown as text (`textContent`), never as markup: a request body cannot script
the page. A `?token=` in the page's address is passed on to its reads.
"""

from __future__ import annotations

PAGE = b"""<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>emulator: requests</title>
<style>
  :root { color-scheme: light dark; --line: #8884; --dim: #888; --bad: #d33; --good: #2a2; }
  body { font: 14px/1.4 system-ui, sans-serif; margin: 0; }
  header { display: flex; gap: 1em; align-items: center; padding: .6em 1em; border-bottom: 1px solid var(--line); }
  header h1 { font-size: 1.1em; margin: 0; }
  header label { color: var(--dim); }
  header input { font: inherit; padding: .15em .4em; }
  #status { margin-left: auto; color: var(--dim); }
  table { border-collapse: collapse; width: 100%; }
  th, td { text-align: left; padding: .3em .8em; border-bottom: 1px solid var(--line); white-space: nowrap; }
  th { position: sticky; top: 0; background: Canvas; font-weight: 600; }
  td.num { text-align: right; font-variant-numeric: tabular-nums; }
  tr.entry { cursor: pointer; }
  tr.entry:hover { background: #8881; }
  tr.failed td.status { color: var(--bad); font-weight: 600; }
  tr.ok td.status { color: var(--good); }
  tr.detail > td { white-space: normal; background: #8880; padding: .6em 1em 1em; }
  .panes { display: grid; grid-template-columns: 1fr 1fr; gap: 1em; }
  .panes h3 { font-size: 1em; margin: .4em 0; }
  pre.headers { max-height: 10em; }
  pre { margin: 0 0 .5em; padding: .6em; max-height: 28em; overflow: auto; background: #8881; border-radius: 4px;
        font: 12px/1.35 ui-monospace, monospace; white-space: pre-wrap; word-break: break-word; }
  .empty { color: var(--dim); padding: 2em 1em; }
</style>
</head>
<body>
<header>
  <h1>emulator</h1>
  <label>test id <input id="test_id" placeholder="any" size="16"></label>
  <label>source <input id="source" placeholder="any" size="16"></label>
  <span id="status">connecting\xe2\x80\xa6</span>
</header>
<table>
  <thead><tr>
    <th>#</th><th>time</th><th>test id</th><th>endpoint</th><th>model</th><th>source</th><th>fault</th>
    <th>status</th><th>first token</th><th>duration</th>
  </tr></thead>
  <tbody id="rows"></tbody>
</table>
<p class="empty" id="empty">No requests yet. Point a client at this server and they appear here.</p>
<script>
"use strict";
const token = new URLSearchParams(location.search).get("token");
const KEEP = 2000;          // rows the page holds, the newest
const entries = new Map();  // id -> summary
const open = new Set();     // ids whose detail is shown
let since = 0;

function url(path, params) {
  const query = new URLSearchParams(params || {});
  if (token) query.set("token", token);
  const text = query.toString();
  return path + (text ? "?" + text : "");
}

function cell(row, text, cls) {
  const td = document.createElement("td");
  td.textContent = text === null || text === undefined ? "" : String(text);
  if (cls) td.className = cls;
  row.appendChild(td);
}

function ms(value) { return value === null || value === undefined ? "" : value.toFixed(1) + " ms"; }

function shown(e) {
  const testId = document.getElementById("test_id").value.trim();
  const source = document.getElementById("source").value.trim();
  return (!testId || e.test_id === testId) && (!source || (e.source || "").includes(source)
    || e.source_kind === source);
}

function render() {
  const body = document.getElementById("rows");
  body.replaceChildren();
  const ids = [...entries.keys()].sort((a, b) => b - a);
  let any = false;
  for (const id of ids) {
    const e = entries.get(id);
    if (!shown(e)) continue;
    any = true;
    const row = document.createElement("tr");
    row.className = "entry " + (e.status === null || e.status >= 400 || e.fault ? "failed" : "ok");
    row.dataset.id = id;
    cell(row, id, "num");
    cell(row, new Date(e.time * 1000).toLocaleTimeString());
    cell(row, e.test_id);
    cell(row, e.endpoint);
    cell(row, e.model);
    cell(row, e.source);
    cell(row, e.fault);
    cell(row, e.status === null ? "none" : e.status, "status");
    cell(row, ms(e.ttft_ms), "num");
    cell(row, e.duration_ms === null ? "\\u2026" : ms(e.duration_ms), "num");
    row.addEventListener("click", () => toggle(id));
    body.appendChild(row);
    if (open.has(id)) body.appendChild(detailRow(id));
  }
  document.getElementById("empty").hidden = any;
}

function pre(value, cls) {
  const block = document.createElement("pre");
  if (cls) block.className = cls;
  block.textContent = typeof value === "string" ? value : JSON.stringify(value, null, 2);
  return block;
}

function pane(title, ...parts) {
  const div = document.createElement("div");
  const h = document.createElement("h3");
  h.textContent = title;
  div.append(h, ...parts);
  return div;
}

const details = new Map();  // id -> full entry, once read

function detailRow(id) {
  const row = document.createElement("tr");
  row.className = "detail";
  const td = document.createElement("td");
  td.colSpan = 10;
  row.appendChild(td);
  const full = details.get(id);
  if (!full) { td.textContent = "loading\\u2026"; return row; }
  const request = pane("request " + full.method + " " + full.path,
    pre(full.headers, "headers"), pre(full.body !== null ? full.body : (full.body_text || "")));
  const answer = full.response;
  let response;
  if (!answer) {
    response = pane("answer", pre("still being delivered"));
  } else if (answer.events) {
    const lines = answer.events.map(ev => "+" + ev.t.toFixed(1) + " ms  " + (ev.event ? ev.event + "  " : "")
      + (ev.data !== undefined ? (typeof ev.data === "string" ? ev.data : JSON.stringify(ev.data))
         : ev.comment !== undefined ? ": " + ev.comment : "(partial) " + ev.partial));
    const title = "answer " + answer.status + ", " + answer.events.length + " events, first token "
      + ms(answer.ttft_ms) + ", done " + ms(answer.duration_ms);
    response = pane(title, pre(answer.headers, "headers"), pre(lines.join("\\n")));
  } else {
    response = pane("answer " + (answer.status === null ? "none" : answer.status) + ", " + ms(answer.duration_ms),
      pre(answer.headers, "headers"), pre(answer.body !== null ? answer.body : (answer.body_text || "")));
  }
  const panes = document.createElement("div");
  panes.className = "panes";
  panes.append(request, response);
  td.appendChild(panes);
  return row;
}

async function toggle(id) {
  if (open.has(id)) { open.delete(id); render(); return; }
  open.add(id);
  render();
  await readDetail(id);
}

async function readDetail(id) {
  const answer = await fetch(url("/_emulator/requests/" + id));
  if (answer.ok) details.set(id, await answer.json());
  render();
}

async function poll() {
  const pending = [...entries.values()].filter(e => e.duration_ms === null).map(e => e.id);
  const from = pending.length ? Math.min(...pending) - 1 : since;
  try {
    const answer = await fetch(url("/_emulator/requests", {since: from, bodies: "false"}));
    if (!answer.ok) throw new Error("HTTP " + answer.status);
    const page = await answer.json();
    for (const e of page.requests) {
      const was = entries.get(e.id);
      entries.set(e.id, e);
      if (was && was.duration_ms === null && e.duration_ms !== null && open.has(e.id)) readDetail(e.id);
    }
    since = Math.max(since, page.last);
    for (const id of [...entries.keys()].sort((a, b) => a - b).slice(0, Math.max(0, entries.size - KEEP))) {
      entries.delete(id); details.delete(id); open.delete(id);
    }
    document.getElementById("status").textContent = entries.size + " requests"
      + (page.dropped ? ", " + page.dropped + " dropped" : "") + " \\u00b7 live";
    render();
  } catch (error) {
    document.getElementById("status").textContent = "not reachable: " + error.message;
  }
  setTimeout(poll, 1000);
}

for (const id of ["test_id", "source"]) document.getElementById(id).addEventListener("input", render);
poll();
</script>
</body>
</html>
"""
