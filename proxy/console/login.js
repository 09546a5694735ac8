// The console's login page: trades an admin token for a session cookie.
"use strict";
document.getElementById("login-form").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  const err = document.getElementById("login-error");
  err.hidden = true;
  const token = document.getElementById("token").value;
  try {
    const r = await fetch("/console/login", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ token }),
      credentials: "same-origin",
    });
    if (r.ok) {
      window.location.assign("/console/");
      return;
    }
    err.textContent = r.status === 401 ? "That token is not an admin token of this hookgate." : "Login refused (" + r.status + ").";
  } catch (e) {
    err.textContent = "hookgate did not answer: " + e;
  }
  err.hidden = false;
});
