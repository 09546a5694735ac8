// The operator's console: approvals, decisions, sessions, costs and the policy, kept live
// by the server's event stream (/console/api/events). Every value is put
// into the page as text, never as markup.
"use strict";

let csrf = "";

async function api(path, opts = {}) {
  const headers = Object.assign({}, opts.headers || {});
  if (opts.method && opts.method !== "GET") headers["X-CSRF-Token"] = csrf;
  const r = await fetch("/console/api/" + path, Object.assign({ credentials: "same-origin" }, opts, { headers }));
  if (r.status === 401) {
    window.location.assign("/console/login");
    throw new Error("session ended");
  }
  const body = await r.json().catch(() => ({}));
  if (!r.ok) throw new Error((body.error && body.error.message) || "HTTP " + r.status);
  return body;
}

function text(el, v) {
  el.textContent = v === undefined || v === null || v === "" ? "-" : String(v);
}

function cell(tr, v, cls) {
  const td = document.createElement("td");
  text(td, v);
  if (cls) td.className = cls;
  tr.appendChild(td);
  return td;
}

function ago(iso) {
  const s = Math.max(0, Math.round((Date.now() - Date.parse(iso)) / 1000));
  if (s < 60) return s + "s";
  if (s < 3600) return Math.floor(s / 60) + "m " + (s % 60) + "s";
  return Math.floor(s / 3600) + "h " + Math.floor((s % 3600) / 60) + "m";
}

function when(iso) {
  return iso ? new Date(iso).toLocaleString() : "";
}

// ---------------------------------------------------------------- approvals

let approvals = [];

function renderApprovals(list) {
  approvals = list || [];
  const pending = approvals.filter((a) => a.status === "pending");
  const answered = approvals.filter((a) => a.status !== "pending");
  document.getElementById("pending-count").textContent = String(pending.length);
  document.getElementById("no-pending").hidden = pending.length > 0;
  const box = document.getElementById("pending");
  const tpl = document.getElementById("approval-card");
  // A re-render must not lose a comment being typed.
  const typed = {};
  let focused = "";
  for (const c of box.querySelectorAll("article[data-id]")) {
    const input = c.querySelector(".comment");
    typed[c.dataset.id] = input.value;
    if (document.activeElement === input) focused = c.dataset.id;
  }
  box.replaceChildren();
  for (const a of pending) {
    const card = tpl.content.firstElementChild.cloneNode(true);
    card.dataset.id = a.id;
    text(card.querySelector(".tool"), a.tool);
    card.querySelector(".waited").dataset.since = a.created_at;
    text(card.querySelector(".waited"), "waiting " + ago(a.created_at));
    text(card.querySelector(".args"), a.arguments);
    text(card.querySelector(".hook"), a.hook);
    text(card.querySelector(".tenant"), a.tenant);
    text(card.querySelector(".agent"), a.agent);
    text(card.querySelector(".session"), a.session);
    text(card.querySelector(".expires"), when(a.expires_at));
    const input = card.querySelector(".comment");
    input.value = typed[a.id] || "";
    card.querySelector(".session").classList.add("link");
    card.querySelector(".session").addEventListener("click", () => openSession(a.session));
    card.querySelector(".approve").addEventListener("click", () => answer(card, a.id, "approve"));
    card.querySelector(".reject").addEventListener("click", () => answer(card, a.id, "reject"));
    box.appendChild(card);
    if (focused === a.id) input.focus();
  }
  const tbody = document.getElementById("answered");
  tbody.replaceChildren();
  for (const a of answered) {
    const tr = document.createElement("tr");
    tr.dataset.id = a.id;
    cell(tr, a.tool);
    cell(tr, a.status, "status-" + a.status);
    cell(tr, a.responded_by);
    cell(tr, a.comment, "comment");
    cell(tr, a.tenant);
    cell(tr, a.session);
    cell(tr, when(a.responded_at));
    tbody.appendChild(tr);
  }
}

async function answer(card, id, verb) {
  for (const b of card.querySelectorAll("button")) b.disabled = true;
  try {
    const comment = card.querySelector(".comment").value.trim();
    const opts = { method: "POST" };
    if (comment) {
      opts.headers = { "Content-Type": "application/json" };
      opts.body = JSON.stringify({ comment });
    }
    await api("approvals/" + encodeURIComponent(id) + "/" + verb, opts);
    await loadApprovals();
  } catch (e) {
    text(card.querySelector(".answer-error"), e.message);
    for (const b of card.querySelectorAll("button")) b.disabled = false;
  }
}

async function loadApprovals() {
  const r = await api("approvals?status=recent");
  renderApprovals(r.approvals);
}

setInterval(() => {
  for (const el of document.querySelectorAll(".waited[data-since]")) {
    el.textContent = "waiting " + ago(el.dataset.since);
  }
}, 1000);

// ---------------------------------------------------------------- decisions

function filters() {
  const q = new URLSearchParams();
  for (const name of ["hook", "tool", "tenant", "agent", "session", "decision"]) {
    const v = document.getElementById("f-" + name).value.trim();
    if (v) q.set(name, v);
  }
  if (q.get("decision") === "dry_run") {
    q.delete("decision");
    q.set("dry_run", "1");
  }
  return q;
}

async function loadDecisions() {
  const r = await api("decisions?" + filters().toString());
  const tbody = document.getElementById("decisions");
  tbody.replaceChildren();
  for (const d of r.decisions || []) {
    const tr = document.createElement("tr");
    tr.dataset.id = d.id;
    cell(tr, when(d.created_at));
    cell(tr, d.hook);
    cell(tr, d.event);
    cell(tr, d.tool);
    cell(tr, d.decision, "decision-" + d.decision);
    cell(tr, d.tenant);
    cell(tr, d.agent);
    const s = cell(tr, d.session, "session");
    if (d.session) {
      s.classList.add("link");
      s.title = "show this session's timeline";
      s.addEventListener("click", () => openSession(d.session));
    }
    cell(tr, d.duration_ms);
    cell(tr, d.reason || d.error || (d.side_effects || []).join("; "));
    tbody.appendChild(tr);
  }
}

document.getElementById("decision-filters").addEventListener("submit", (ev) => {
  ev.preventDefault();
  loadDecisions().catch(showError);
});

// ---------------------------------------------------------------- session

function openSession(id) {
  location.hash = "session=" + encodeURIComponent(id);
}

// The fields of a timeline entry shown under its heading, in this order.
const loopParts = [
  ["prompt", "Prompt"],
  ["arguments", "Arguments"],
  ["result", "Result"],
  ["response", "Response"],
  ["reason", "Reason"],
  ["sealed", "Sealed"],
];

async function loadSession(id) {
  text(document.getElementById("session-id"), id);
  const r = await api("timeline?session=" + encodeURIComponent(id));
  const source = document.getElementById("session-source");
  if (r.source === "captured_events") {
    source.textContent = "From the captured events (audit.capture_events): prompts, calls, decisions and results in order.";
  } else {
    source.textContent = "From the audit records: ids, tools and decisions only (turn on audit.capture_events to see prompts and results).";
  }
  const list = document.getElementById("timeline");
  list.replaceChildren();
  const events = r.events || [];
  if (events.length === 0) {
    const li = document.createElement("li");
    li.className = "muted";
    li.textContent = "Nothing recorded for this session that you may see.";
    list.appendChild(li);
  }
  for (const e of events) {
    const li = document.createElement("li");
    li.className = "step event-" + e.event;
    li.dataset.id = e.id;
    const head = document.createElement("div");
    head.className = "row";
    for (const [v, cls] of [[when(e.at), "muted"], [e.event, "event"], [e.tool, "tool"], [e.call_id, "muted call"], [e.decision, "decision-" + e.decision], [e.hook, "muted hook"]]) {
      if (!v) continue;
      const span = document.createElement("span");
      span.className = cls;
      span.textContent = v;
      head.appendChild(span);
    }
    li.appendChild(head);
    for (const [key, label] of loopParts) {
      if (!e[key]) continue;
      const pre = document.createElement("pre");
      pre.className = "part part-" + key;
      pre.dataset.label = label;
      pre.textContent = e[key];
      li.appendChild(pre);
    }
    list.appendChild(li);
  }
}

// ---------------------------------------------------------------- costs

const svgNS = "http://www.w3.org/2000/svg";

// chart draws counts as bars, with each bar's p99 as its title.
function chart(counts, p99s, label) {
  const w = 240, h = 48, n = counts.length;
  const peak = Math.max(1, ...counts);
  const svg = document.createElementNS(svgNS, "svg");
  svg.setAttribute("viewBox", "0 0 " + w + " " + h);
  svg.setAttribute("width", String(w));
  svg.setAttribute("height", String(h));
  svg.setAttribute("role", "img");
  svg.setAttribute("aria-label", label);
  const base = document.createElementNS(svgNS, "line");
  base.setAttribute("x1", "0");
  base.setAttribute("x2", String(w));
  base.setAttribute("y1", String(h - 0.5));
  base.setAttribute("y2", String(h - 0.5));
  base.setAttribute("class", "axis");
  svg.appendChild(base);
  const bw = w / n;
  counts.forEach((c, i) => {
    const bh = c === 0 ? 0 : Math.max(1, Math.round((c / peak) * (h - 4)));
    const r = document.createElementNS(svgNS, "rect");
    r.setAttribute("x", String(i * bw + 1));
    r.setAttribute("y", String(h - bh));
    r.setAttribute("width", String(Math.max(1, bw - 2)));
    r.setAttribute("height", String(bh));
    r.setAttribute("class", "bar");
    const t = document.createElementNS(svgNS, "title");
    t.textContent = c + " runs, p99 " + (p99s[i] || 0) + " ms";
    r.appendChild(t);
    svg.appendChild(r);
  });
  return svg;
}

async function loadCosts() {
  const win = document.getElementById("f-window").value;
  const r = await api("costs?window=" + encodeURIComponent(win));
  const now = document.getElementById("now");
  now.hidden = !r.now;
  if (r.now) {
    text(document.getElementById("now-streams"), r.now.active_streams);
    text(document.getElementById("now-held"), r.now.held_tool_calls);
  }
  const hooks = r.hooks || [];
  document.getElementById("no-costs").hidden = hooks.length > 0;
  const box = document.getElementById("costs");
  const tpl = document.getElementById("cost-card");
  box.replaceChildren();
  for (const h of hooks) {
    const card = tpl.content.firstElementChild.cloneNode(true);
    card.dataset.hook = h.hook;
    text(card.querySelector(".hook"), h.hook);
    text(card.querySelector(".execs"), h.executions + " runs" + (r.truncated ? " (newest runs only)" : ""));
    text(card.querySelector(".p50"), h.p50_ms + " ms");
    text(card.querySelector(".p99"), h.p99_ms + " ms");
    text(card.querySelector(".decisions"), Object.entries(h.decisions || {}).map(([k, v]) => k + " " + v).join(", "));
    card.querySelector(".chart").appendChild(chart(h.series || [], h.series_p99_ms || [], h.hook + ": runs over the window"));
    box.appendChild(card);
  }
}

document.getElementById("f-window").addEventListener("change", () => loadCosts().catch(showError));

// ---------------------------------------------------------------- policy

async function loadPolicy() {
  const p = await api("policy");
  const v = p.version || {};
  text(document.getElementById("policy-hash"), v.hash);
  text(document.getElementById("policy-applied"), when(v.applied_at));
  text(document.getElementById("policy-files"), (v.files || []).join(", "));
  const refused = document.getElementById("refused");
  refused.hidden = !p.last_refused;
  if (p.last_refused) {
    text(document.getElementById("refused-at"), "Refused " + when(p.last_refused.at) + "; the configuration above kept serving.");
    text(document.getElementById("refused-error"), p.last_refused.error);
  }
  const tbody = document.getElementById("hooks");
  tbody.replaceChildren();
  for (const h of p.hooks || []) {
    const tr = document.createElement("tr");
    cell(tr, h.id);
    cell(tr, h.event);
    cell(tr, h.class);
    cell(tr, h.priority);
    cell(tr, h.tenant);
    cell(tr, h.version);
    tbody.appendChild(tr);
  }
}

// ---------------------------------------------------------------- pages

function show(hash) {
  let page = hash;
  let sessionID = "";
  if (hash.startsWith("session=")) {
    page = "session";
    sessionID = decodeURIComponent(hash.slice("session=".length));
  }
  if (!["approvals", "decisions", "costs", "policy", "session"].includes(page)) page = "approvals";
  for (const s of document.querySelectorAll(".page")) s.hidden = s.id !== "page-" + page;
  const tab = page === "session" ? "decisions" : page;
  for (const a of document.querySelectorAll("nav a")) a.classList.toggle("active", a.dataset.page === tab);
  if (page === "decisions") loadDecisions().catch(showError);
  if (page === "costs") loadCosts().catch(showError);
  if (page === "policy") loadPolicy().catch(showError);
  if (page === "session") loadSession(sessionID).catch(showError);
}

function showError(e) {
  console.error(e);
}

window.addEventListener("hashchange", () => show(location.hash.slice(1)));

document.getElementById("logout").addEventListener("click", async () => {
  try {
    await api("logout", { method: "POST" });
  } finally {
    window.location.assign("/console/login");
  }
});

function live() {
  const dot = document.getElementById("live");
  const es = new EventSource("/console/api/events");
  es.addEventListener("open", () => dot.classList.add("on"));
  es.addEventListener("error", () => dot.classList.remove("on"));
  es.addEventListener("approvals", (ev) => renderApprovals(JSON.parse(ev.data).approvals));
  es.addEventListener("decisions", () => {
    if (!document.getElementById("page-decisions").hidden) loadDecisions().catch(showError);
    if (!document.getElementById("page-costs").hidden) loadCosts().catch(showError);
  });
  es.addEventListener("session_expired", () => {
    es.close();
    window.location.assign("/console/login");
  });
}

(async () => {
  const s = await api("session");
  csrf = s.csrf;
  document.getElementById("who").textContent = s.name + (s.tenants && s.tenants.length ? " (" + s.tenants.join(", ") + ")" : "");
  show(location.hash.slice(1));
  await loadApprovals();
  live();
})().catch(showError);
