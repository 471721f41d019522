"""The board's one script and one style sheet, served from the board itself.

The script keeps a page live: it listens to `/events`, and on a change fetches the page's
own main part again and puts it in place (keeping what the person was typing); when the
stream breaks and the board answers again without this session, it says the board
restarted and how to log in again. It raises
a browser notification when a task starts waiting for approval, and when an active task
has shown no activity for the board's set time (checked in the browser once a minute:
the server does nothing for it). It uses no inline code, so the Content-Security-Policy
can forbid every script but this one.
"""

from __future__ import annotations

from automaton_rules.report.html import CSS as REPORT_CSS

SCRIPT = r"""
"use strict";
(() => {
  const main = () => document.querySelector("main");
  const live = document.getElementById("live");
  const staleMinutes = Number(document.querySelector('meta[name="stale-minutes"]')?.content || 0);
  const awaiting = () => new Set([...document.querySelectorAll("[data-awaiting]")]
    .map((e) => e.closest("[data-project]")?.dataset.project + "/" + e.dataset.awaiting));
  let known = awaiting();
  const told = new Set();

  function notify(title, body) {
    if (!("Notification" in window) || Notification.permission !== "granted") return;
    try { new Notification(title, { body }); } catch (e) { /* a closed page */ }
  }

  const button = document.getElementById("notify");
  if (button && "Notification" in window && Notification.permission === "default") {
    button.hidden = false;
    button.addEventListener("click", async () => {
      await Notification.requestPermission();
      button.hidden = Notification.permission !== "default";
    });
  }

  let asking = 0;  // passkey ceremonies under way: the page is not swapped under them
  let missed = false;
  async function refresh(change) {
    if (asking) { missed = true; return; }
    const answer = await fetch(location.href, {
      headers: { "X-Board-Fragment": "1" }, credentials: "same-origin", cache: "no-store",
    });
    if (!answer.ok) return;
    const html = await answer.text();
    if (asking) { missed = true; return; }
    const target = main();
    target.dataset.generation = answer.headers.get("X-Board-Generation") || "";
    if (html === target.innerHTML) return;  // nothing shown changed: keep the page as it is
    // What the person is typing, read at the moment of the swap (not before the fetch).
    const kept = {};
    document.querySelectorAll("[data-keep]").forEach((e) => { kept[e.id] = e.value; });
    const focused = document.activeElement && document.activeElement.id;
    target.innerHTML = html;
    Object.entries(kept).forEach(([id, value]) => {
      const e = document.getElementById(id);
      if (e) e.value = value;
    });
    if (focused) document.getElementById(focused)?.focus();
    const now = awaiting();
    const fresh = new Set();
    for (const name of now) if (!known.has(name)) fresh.add(name.split("/").slice(1).join("/"));
    if (!document.querySelector("[data-lane]")) {
      (change?.awaiting || []).forEach((t) => fresh.add(t));
    }
    fresh.forEach((task) => notify("Awaiting approval", task));
    known = now;
    document.dispatchEvent(new CustomEvent("board:updated", { detail: change }));
  }

  function connect() {
    const events = new EventSource("/events");
    events.addEventListener("hello", (e) => {
      live.textContent = "live";
      let hello = {};
      try { hello = JSON.parse(e.data); } catch (err) { hello = {}; }
      if (hello.generation && hello.generation !== main().dataset.generation) refresh(null);
    });
    events.addEventListener("change", (e) => {
      let change = null;
      try { change = JSON.parse(e.data); } catch (err) { change = null; }
      refresh(change).catch(() => { live.textContent = "reload the page"; });
    });
    events.onerror = async () => {
      live.textContent = "reconnecting…";
      // A board that restarted holds none of the sessions it had: say so, and how back in.
      try {
        const answer = await fetch("/board.css", { credentials: "same-origin", cache: "no-store" });
        if (!answer.ok) return;
        const page = await fetch(location.href, {
          headers: { "X-Board-Fragment": "1" }, credentials: "same-origin", cache: "no-store",
        });
        if (page.status === 403) {
          events.close();
          live.textContent = "The board restarted (or this session ended): open the link it " +
            "printed on its terminal; press Enter there for a fresh one.";
          live.className = "alert";
          live.dataset.restarted = "1";
        }
      } catch (err) { /* the board is down: EventSource keeps trying */ }
    };
  }

  function checkStale() {
    if (!staleMinutes) return;
    const limit = Date.now() / 1000 - staleMinutes * 60;
    document.querySelectorAll("[data-activity]").forEach((card) => {
      const key = card.dataset.task + "@" + card.dataset.activity;
      const idle = Number(card.dataset.activity) < limit && card.dataset.state !== "complete";
      if (idle && !told.has(key)) {
        told.add(key);
        const what = `${card.dataset.task} (${card.dataset.state})`;
        notify("No activity", `${what} for ${staleMinutes} minutes`);
      }
    });
  }

  document.addEventListener("click", (e) => {
    const block = e.target.closest(".markdown [data-line]");
    const field = document.getElementById("line");
    if (block && field) {
      field.value = block.dataset.line;
      document.getElementById("comment")?.focus();
    }
  });

  // Passkeys: WebAuthn's options and answers travel as JSON, binary fields in base64url.
  const csrf = document.querySelector('meta[name="csrf"]')?.content || "";
  const enc = (buf) => btoa(String.fromCharCode(...new Uint8Array(buf)))
    .replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  const dec = (text) => Uint8Array.from(
    atob(text.replace(/-/g, "+").replace(/_/g, "/") + "===".slice((text.length + 3) % 4)),
    (c) => c.charCodeAt(0));
  function encoded(credential) {
    const r = credential.response;
    const response = { clientDataJSON: enc(r.clientDataJSON) };
    if (r.authenticatorData) {
      response.authenticatorData = enc(r.authenticatorData);
      response.signature = enc(r.signature);
      if (r.userHandle) response.userHandle = enc(r.userHandle);
    }
    if (r.attestationObject) {
      response.attestationObject = enc(r.attestationObject);
      if (r.getTransports) response.transports = r.getTransports();
    }
    return JSON.stringify({
      id: credential.id, rawId: enc(credential.rawId), type: credential.type, response,
      clientExtensionResults: credential.getClientExtensionResults(),
    });
  }
  async function ask(url, fields) {
    const answer = await fetch(url, {
      method: "POST", credentials: "same-origin",
      body: new URLSearchParams({ csrf, ...fields }),
    });
    const body = await answer.text();
    if (!answer.ok) {
      const page = new DOMParser().parseFromString(body, "text/html");
      throw new Error(page.querySelector(".refusal")?.textContent || `refused (${answer.status})`);
    }
    return JSON.parse(body);
  }
  function failed(form, error) {
    // Outside the part a refresh replaces, so the message stays until the next try.
    const shown = document.getElementById("alert");
    if (!shown) return;
    shown.textContent = error.message || String(error);
    shown.hidden = false;
  }
  async function approveWithPasskey(form) {
    const options = await ask(form.dataset.passkey, { task: form.elements.task.value });
    options.challenge = dec(options.challenge);
    (options.allowCredentials || []).forEach((c) => { c.id = dec(c.id); });
    const credential = await navigator.credentials.get({ publicKey: options });
    form.elements.assertion.value = encoded(credential);
    form.submit();
  }
  async function registerPasskey(form) {
    const options = await ask("/passkeys/options", {});
    options.challenge = dec(options.challenge);
    options.user.id = dec(options.user.id);
    (options.excludeCredentials || []).forEach((c) => { c.id = dec(c.id); });
    const credential = await navigator.credentials.create({ publicKey: options });
    form.elements.credential.value = encoded(credential);
    form.submit();
  }
  async function ceremony(form, run) {
    asking += 1;
    try {
      await run(form);
    } catch (error) {
      failed(form, error);
    } finally {
      asking -= 1;
      if (!asking && missed) { missed = false; refresh(null).catch(() => {}); }
    }
  }
  document.addEventListener("submit", (e) => {
    const form = e.target;
    if (form.matches("form.approve[data-passkey]")) {
      e.preventDefault();
      if (form.dataset.confirm && !window.confirm(form.dataset.confirm)) return;
      ceremony(form, approveWithPasskey);
    } else if (form.id === "register") {
      e.preventDefault();
      ceremony(form, registerPasskey);
    }
  });

  // The filter: cards and waiting tasks whose name or state hold what is typed.
  function applyFilter() {
    const field = document.getElementById("filter");
    const words = (field?.value || "").trim().toLowerCase();
    document.querySelectorAll(".card, [data-awaiting]").forEach((item) => {
      const said = `${item.dataset.task || item.dataset.awaiting} ${item.dataset.state || ""}`;
      item.hidden = Boolean(words) && !said.toLowerCase().includes(words);
    });
  }
  document.addEventListener("input", (e) => { if (e.target.id === "filter") applyFilter(); });
  document.addEventListener("board:updated", applyFilter);

  connect();
  setInterval(checkStale, 60000);
})();
"""

STYLE = (
    REPORT_CSS
    + """
main { display: block; }
.topbar { display: flex; gap: 1rem; align-items: center; }
.project { margin-bottom: 2rem; }
.column { background: var(--card); border: 1px solid var(--line); border-radius: .5rem;
  padding: .5rem; }
.column summary { display: flex; justify-content: space-between; font-weight: 600;
  cursor: pointer; }
.card a, .waiting a { overflow-wrap: normal; word-break: normal; }
.card .state, .mono { overflow-wrap: normal; word-break: normal; }
.waiting li { display: flex; flex-wrap: wrap; gap: .4rem; align-items: baseline; }
.waited { font-weight: 600; color: var(--warning); }
form.inline { display: inline; }
form.changes { display: grid; gap: .4rem; max-width: 40rem; margin: .6rem 0; }
form.changes textarea { width: 100%; font: inherit; }
.markdown { border: 1px solid var(--line); border-radius: .5rem; padding: .4rem 1rem; }
.markdown [data-line] { cursor: pointer; }
.markdown [data-line]:hover { background: #fffbeb; }
pre.diff .d-add { color: var(--ok); } pre.diff .d-del { color: var(--error); }
pre.diff .d-hunk { color: var(--note); } pre.diff .d-head { color: var(--muted); }
.requests li.open { border-left: 3px solid var(--error); padding-left: .4rem; }
.requests li.answered { border-left: 3px solid var(--ok); padding-left: .4rem; }
.refusal, .alert { color: var(--error); font-weight: 600; }
.banner.truth { border: 1px solid var(--error); background: #fef2f2; padding: .5rem .8rem;
  border-radius: .4rem; }
.badge.truth { background: #fee2e2; color: var(--error); }
.badge.review { background: #e0f2fe; color: var(--note); }
details.fold > summary { list-style: none; cursor: pointer; }
details.fold > summary h2 { display: inline; }
details.fold > summary::before { content: "▾ "; color: var(--muted); }
details.fold:not([open]) > summary::before { content: "▸ "; }
.note { background: #ecfdf5; border: 1px solid var(--ok); border-radius: .4rem;
  padding: .4rem .8rem; }

.crumbs { font-size: .9rem; color: var(--muted); margin: .4rem 0; }
.header-actions { display: flex; gap: .6rem; align-items: center; flex-wrap: wrap;
  position: sticky; top: 0; background: var(--bg, #fff); padding: .4rem 0; z-index: 1; }
.markdown .commented { border-left: 3px solid var(--warning); padding-left: .4rem; }
.threads li.thread { border-left: 3px solid var(--line); padding-left: .6rem; margin: .6rem 0; }
.threads li.open { border-left-color: var(--error); }
.threads li.resolved { border-left-color: var(--ok); opacity: .8; }
form.reply { display: inline-flex; gap: .3rem; }
"""
)
