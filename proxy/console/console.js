// The operator's console: approvals, decisions and the policy, kept live
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
    card.querySelector(".approve").addEventListener("click", () => answer(card, a.id, "approve"));
    card.querySelector(".reject").addEventListener("click", () => answer(card, a.id, "reject"));
    box.appendChild(card);
  }
  const tbody = document.getElementById("answered");
  tbody.replaceChildren();
  for (const a of answered) {
    const tr = document.createElement("tr");
    tr.dataset.id = a.id;
    cell(tr, a.tool);
    cell(tr, a.status, "status-" + a.status);
    cell(tr, a.responded_by);
    cell(tr, a.tenant);
    cell(tr, a.session);
    cell(tr, when(a.responded_at));
    tbody.appendChild(tr);
  }
}

async function answer(card, id, verb) {
  for (const b of card.querySelectorAll("button")) b.disabled = true;
  try {
    await api("approvals/" + encodeURIComponent(id) + "/" + verb, { method: "POST" });
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
  for (const name of ["hook", "session", "decision"]) {
    const v = document.getElementById("f-" + name).value.trim();
    if (v) q.set(name, v);
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
    cell(tr, d.decision, "decision-" + d.decision);
    const s = cell(tr, d.session);
    s.classList.add("link");
    s.title = "show this session's decisions";
    s.addEventListener("click", () => {
      document.getElementById("f-session").value = d.session;
      loadDecisions();
    });
    cell(tr, d.duration_ms);
    cell(tr, d.error || (d.side_effects || []).join("; "));
    tbody.appendChild(tr);
  }
}

document.getElementById("decision-filters").addEventListener("submit", (ev) => {
  ev.preventDefault();
  loadDecisions().catch(showError);
});

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

function show(page) {
  if (!["approvals", "decisions", "policy"].includes(page)) page = "approvals";
  for (const s of document.querySelectorAll(".page")) s.hidden = s.id !== "page-" + page;
  for (const a of document.querySelectorAll("nav a")) a.classList.toggle("active", a.dataset.page === page);
  if (page === "decisions") loadDecisions().catch(showError);
  if (page === "policy") loadPolicy().catch(showError);
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
