// What every part of the inspector shares: the admin token, reading the admin API, building elements (always
// as text, never as markup: what a client sent cannot script the page) and formatting times.
"use strict";

const TOKEN_KEY = "emulator-admin-token";

// A `?token=` the page was opened with moves into this tab's sessionStorage and out of the address bar, so that
// no link copied from the page, and no history entry, carries it.
(function takeToken() {
  const query = new URLSearchParams(location.search);
  if (!query.has("token")) return;
  sessionStorage.setItem(TOKEN_KEY, query.get("token"));
  query.delete("token");
  const rest = query.toString();
  history.replaceState(null, "", location.pathname + (rest ? "?" + rest : "") + location.hash);
})();

class Refused extends Error {}

// GET an admin route (relative to the page, `requests?since=3`) as JSON, with the token when the tab has one.
async function api(path, params) {
  const query = new URLSearchParams();
  for (const [k, v] of Object.entries(params || {})) if (v !== "" && v !== null && v !== undefined) query.set(k, v);
  const text = query.toString();
  const token = sessionStorage.getItem(TOKEN_KEY);
  const answer = await fetch(path + (text ? "?" + text : ""), {
    headers: token ? {authorization: "Bearer " + token} : {},
    cache: "no-store",
  });
  if (answer.status === 401) {
    askForToken();
    throw new Refused("the admin token is needed");
  }
  if (!answer.ok) throw new Error("HTTP " + answer.status + " from " + path);
  return answer.json();
}

function askForToken() {
  const box = document.getElementById("token-box");
  if (!box.hidden) return;
  box.hidden = false;
  document.getElementById("token").focus();
}

document.getElementById("token-box").addEventListener("submit", (event) => {
  event.preventDefault();
  sessionStorage.setItem(TOKEN_KEY, document.getElementById("token").value.trim());
  document.getElementById("token-box").hidden = true;
  window.dispatchEvent(new Event("emulator:token"));
});

// An element: `el("span", {className: "mark"}, "text", child, …)`. Strings become text nodes.
function el(tag, props, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(props || {})) {
    if (k === "dataset") Object.assign(node.dataset, v);
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else node[k] = v;
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : String(child));
  }
  return node;
}

function pretty(value) {
  return typeof value === "string" ? value : JSON.stringify(value, null, 2);
}

function pad(n, width) { return String(n).padStart(width, "0"); }

// A journal time (seconds since the epoch) as local wall time to the millisecond: 14:03:07.042.
function clock(seconds) {
  const d = new Date(seconds * 1000);
  return pad(d.getHours(), 2) + ":" + pad(d.getMinutes(), 2) + ":" + pad(d.getSeconds(), 2) + "."
    + pad(d.getMilliseconds(), 3);
}

function day(seconds) { return new Date(seconds * 1000).toLocaleDateString(); }

function ms(value) {
  if (value === null || value === undefined) return "";
  return value >= 10000 ? (value / 1000).toFixed(2) + " s" : value.toFixed(1) + " ms";
}

function failed(e) { return e.status === null || e.status >= 400 || Boolean(e.fault); }

// What a row marks: a streamed answer, each tool called, reasoning, a fault and its kind, a truncation.
const CUT = new Set(["length", "max_tokens", "max_output_tokens", "model_context_window_exceeded"]);

function marks(e) {
  const p = e.preview || {};
  const found = [];
  if (e.stream) found.push(el("span", {className: "mark stream", title: "streamed answer"}, "stream"));
  for (const name of p.tools || []) found.push(el("span", {className: "mark tool", title: "tool call"}, "\u2692 " + name));
  if (p.reasoning) found.push(el("span", {className: "mark reasoning", title: "the answer reasoned"}, "reasoning"));
  if (e.kind) found.push(el("span", {className: "mark fault", title: e.fault || ""}, "fault: " + e.kind));
  if (CUT.has(p.finish_reason)) found.push(el("span", {className: "mark cut", title: "finish reason " + p.finish_reason}, "cut: " + p.finish_reason));
  if (p.complete === false && !e.kind) found.push(el("span", {className: "mark fault", title: "the stream ended before its end"}, "broken off"));
  if (e.truncated) found.push(el("span", {className: "mark cut", title: "the journal kept the body cut at 1 MiB"}, "body cut"));
  if (p.error && !e.kind) found.push(el("span", {className: "mark fault", title: p.error}, "error"));
  return found;
}

// A request's two preview lines: what was asked (or the tool result it carried back) and what came back.
function previewLines(e) {
  const p = e.preview || {};
  const asked = p.prompt_kind === "tool_result"
    ? el("div", {className: "asked from-tool"}, el("span", {className: "who"}, "tool result"), p.prompt || "")
    : el("div", {className: "asked"}, el("span", {className: "who"}, "\u203a"), p.prompt || "");
  let said = p.answer || "";
  if (!said && p.tools && p.tools.length) said = "calls " + p.tools.join(", ");
  if (p.error) said = p.error;
  const answered = el("div", {className: "answered" + (p.error ? " bad" : "")}, el("span", {className: "who"}, "\u2039"),
    e.duration_ms === null ? "\u2026" : said);
  return [asked, answered];
}

function link(id) { return "#/requests/" + id; }

function copyText(text, button) {
  const done = () => { const was = button.textContent; button.textContent = "copied"; setTimeout(() => { button.textContent = was; }, 1200); };
  if (navigator.clipboard && window.isSecureContext) {
    navigator.clipboard.writeText(text).then(done, () => fallbackCopy(text, done));
  } else {
    fallbackCopy(text, done);
  }
}

// Without a secure context (an emulator reached by address, over plain HTTP) there is no clipboard API.
function fallbackCopy(text, done) {
  const area = el("textarea", {value: text});
  document.body.append(area);
  area.select();
  document.execCommand("copy");
  area.remove();
  done();
}
