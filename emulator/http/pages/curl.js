// "Copy as curl": a shell command that sends an entry's request again, to this server, with its headers and
// body as they came. The API key is a placeholder ($API_KEY, read from the shell), never the journal's hint of
// it; the SDKs' telemetry and the connection's own headers are left out. The same conversation gets the same
// answer (DESIGN.md, Determinism), so the command reproduces the text, the tool calls and the finish reason.
"use strict";

const CREDENTIALS = ["authorization", "x-api-key", "api-key"];
const LEFT_OUT = new Set(["host", "content-length", "connection", "accept-encoding", "user-agent", "cookie",
  "idempotency-key", "proxy-authorization", "x-admin-token"]);

function quote(text) { return "'" + String(text).replace(/'/g, "'\\''") + "'"; }

function curlCommand(full) {
  const lines = ["curl -sS" + (full.stream ? " -N" : "") + " " + quote(location.origin + full.path)];
  let keyed = false;
  const headers = full.headers || {};
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase();
    if (CREDENTIALS.includes(lower)) {
      if (keyed) continue;
      keyed = true;
      const scheme = /^bearer /i.test(value) ? "Bearer " : "";
      lines.push("-H \"" + lower + ": " + scheme + "$API_KEY\"");
    } else if (!LEFT_OUT.has(lower) && !lower.startsWith("x-stainless-") && !lower.includes("token")
               && !lower.includes("secret")) {
      lines.push("-H " + quote(lower + ": " + value));
    }
  }
  if (full.test_id && !Object.keys(headers).some((k) => k.toLowerCase() === "x-emulator-test-id")) {
    lines.push("-H " + quote("x-emulator-test-id: " + full.test_id));
  }
  if (full.body !== null && full.body !== undefined) lines.push("--data-binary " + quote(JSON.stringify(full.body)));
  else if (full.body_text) lines.push("--data-binary " + quote(full.body_text) + "  # the journal kept this body cut");
  return lines.join(" \\\n  ");
}
