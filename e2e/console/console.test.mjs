// The operator's console in a real browser: Debian's headless Chromium,
// driven by playwright-core, against a hookgate that
// e2e/console_browser_test.go started (a mock upstream behind it, an
// approval hook on the tool `pay`, one refused reload).
//
// It talks to the Go test over stdout: "STEP logged-in" asks it to send
// the agent's call that the approval hook holds; "STEP approved <id>"
// says the console answered it. A failure exits non-zero with the reason.
//
// Environment: CONSOLE_URL (the admin listener), CONSOLE_TOKEN (an admin
// token), CONSOLE_SHOTS (a folder for the PNG screenshots), CHROMIUM
// (default /usr/bin/chromium), CAPTURED_URL (the admin listener of a
// second hookgate with audit.capture_events on, whose session
// CAPTURED_SESSION ran a prompt, an allowed and a blocked call and the
// allowed call's result).
import { chromium } from "playwright-core";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const base = process.env.CONSOLE_URL;
const token = process.env.CONSOLE_TOKEN;
const shots = process.env.CONSOLE_SHOTS;
const executablePath = process.env.CHROMIUM || "/usr/bin/chromium";
const captured = process.env.CAPTURED_URL;
const capturedSession = process.env.CAPTURED_SESSION;
if (!base || !token || !shots || !captured || !capturedSession) {
  throw new Error("CONSOLE_URL, CONSOLE_TOKEN, CONSOLE_SHOTS, CAPTURED_URL and CAPTURED_SESSION are required");
}
const origin = new URL(base).origin;
const capturedOrigin = new URL(captured).origin;
const step = (s) => console.log("STEP " + s);
const timeout = 30_000;

function check(cond, msg) {
  if (!cond) throw new Error(msg);
}

// Outside the browser: no cookie is no session.
for (const p of ["/console/api/approvals", "/console/api/events"]) {
  const r = await fetch(base + p);
  check(r.status === 401, `GET ${p} without a cookie answered ${r.status}, want 401`);
}

const profile = mkdtempSync(join(tmpdir(), "hookgate-chromium-"));
const browser = await chromium.launchPersistentContext(profile, {
  executablePath,
  headless: true,
  viewport: { width: 1280, height: 860 },
  args: [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
  ],
});
try {
  const page = browser.pages()[0] || (await browser.newPage());
  page.setDefaultTimeout(timeout);
  const external = [];
  const cspErrors = [];
  page.on("request", (req) => {
    const u = req.url();
    if (!u.startsWith(origin + "/") && !u.startsWith(capturedOrigin + "/") && !u.startsWith("data:")) external.push(u);
  });
  page.on("console", (msg) => {
    if (/Content Security Policy|Refused to/i.test(msg.text())) cspErrors.push(msg.text());
  });

  // Not logged in: the console sends the browser to the login page.
  await page.goto(base + "/console/");
  check(new URL(page.url()).pathname === "/console/login", `without a session the console showed ${page.url()}`);
  await page.fill("#token", "not-a-token");
  await page.click("#login-button");
  await page.waitForSelector("#login-error:not([hidden])");
  await page.screenshot({ path: join(shots, "console-login.png") });

  await page.fill("#token", token);
  await page.click("#login-button");
  await page.waitForURL(base + "/console/");
  await page.waitForSelector("#live.on"); // the event stream is open
  const cookies = await browser.cookies(base + "/console/");
  const session = cookies.find((c) => c.name === "hookgate_console");
  check(session && session.httpOnly && session.sameSite === "Strict", `session cookie ${JSON.stringify(session)}`);
  const stored = await page.evaluate(() => JSON.stringify(localStorage) + JSON.stringify(sessionStorage) + document.cookie);
  check(!stored.includes(token), "the admin token is in the browser's storage");
  step("logged-in");

  // The held call appears without a reload.
  const card = page.locator("#pending article.approval");
  await card.first().waitFor({ timeout: 60_000 });
  const tool = await card.first().locator(".tool").textContent();
  check(tool === "pay", `the pending card shows tool ${tool}`);
  const args = await card.first().locator(".args").textContent();
  check(args.includes("5000"), `the card's arguments: ${args}`);
  const id = await card.first().getAttribute("data-id");
  await page.screenshot({ path: join(shots, "console-approvals.png") });

  // A write with a forged CSRF token, or none, is refused by hookgate.
  const forged = await page.evaluate(async (id) => {
    const one = await fetch(`/console/api/approvals/${id}/reject`, { method: "POST", headers: { "X-CSRF-Token": "forged" } });
    const two = await fetch(`/console/api/approvals/${id}/reject`, { method: "POST" });
    return [one.status, two.status];
  }, id);
  check(forged[0] === 403 && forged[1] === 403, `forged and missing CSRF tokens answered ${forged}`);

  // The answer carries a comment, listed with who answered.
  await card.first().locator("input.comment").fill("checked with finance");
  await card.first().locator("button.approve").click();
  await page.locator(`#answered tr[data-id="${id}"] .status-approved`).waitFor();
  const by = await page.locator(`#answered tr[data-id="${id}"] td:nth-child(3)`).textContent();
  check(by === "alice", `answered by ${by}, want alice (the token's name)`);
  const comment = await page.locator(`#answered tr[data-id="${id}"] td.comment`).textContent();
  check(comment === "checked with finance", `the answer's comment shows as ${comment}`);
  check((await card.count()) === 0, "the answered question is still pending");
  step("approved " + id);

  // Decisions: the approval hook's allow shows up live; filters narrow it.
  await page.click('nav a[data-page="decisions"]');
  const row = page.locator("#decisions tr", { hasText: "pay-approval" });
  await row.first().waitFor({ timeout: 60_000 });
  await page.selectOption("#f-decision", "block");
  await page.click("#decision-filters button");
  await page.waitForFunction(() => !document.querySelector("#decisions tr .decision-allow"));
  await page.selectOption("#f-decision", "allow");
  await page.fill("#f-hook", "pay-approval");
  await page.click("#decision-filters button");
  await page.locator("#decisions tr .decision-allow").first().waitFor();
  // By tool: the approval's row names its tool; another tool shows none.
  await page.fill("#f-tool", "pay");
  await page.click("#decision-filters button");
  const payRow = page.locator("#decisions tr", { hasText: "pay-approval" }).first();
  await payRow.waitFor();
  check((await payRow.locator("td:nth-child(4)").textContent()) === "pay", "the decision row does not name its tool");
  await page.screenshot({ path: join(shots, "console-decisions.png") });
  await page.fill("#f-tool", "no-such-tool");
  await page.click("#decision-filters button");
  await page.waitForFunction(() => document.querySelectorAll("#decisions tr").length === 0);
  const decisionChoices = await page.evaluate(() => [...document.querySelectorAll("#f-decision option")].map((o) => o.value));
  check(decisionChoices.includes("would_block") && decisionChoices.includes("dry_run"), `decision filters ${decisionChoices}`);
  await page.fill("#f-tool", "pay");
  await page.click("#decision-filters button");
  await payRow.waitFor();

  // Each decision links to its session's timeline, in order.
  const sessionID = await payRow.locator("td.session").textContent();
  await payRow.locator("td.session").click();
  await page.waitForURL(/#session=/);
  await page.locator("#page-session:not([hidden]) #timeline li.step", { hasText: "pay" }).first().waitFor();
  check((await page.locator("#session-id").textContent()) === sessionID, "the timeline is of another session");
  const source = await page.locator("#session-source").textContent();
  check(source.includes("audit records"), `the timeline's source: ${source}`);
  // Without captured events: ids, tools and decisions, no texts.
  const plainSteps = page.locator("#timeline li.step");
  check((await plainSteps.locator(".decision-allow").count()) > 0, "the audit-record timeline shows no decision");
  check((await plainSteps.first().getAttribute("data-id")) !== "", "the audit-record timeline shows no ids");
  const texts = await page.locator("#timeline .part-prompt, #timeline .part-arguments, #timeline .part-result").count();
  check(texts === 0, `the audit-record timeline shows ${texts} prompts, arguments or results`);
  const timelineText = await page.locator("#timeline").textContent();
  check(!timelineText.includes(token), "the timeline shows the admin token");
  await page.screenshot({ path: join(shots, "console-session.png"), fullPage: true });

  // Costs: the approval hook's runs, its chart, and the live figures.
  await page.click('nav a[data-page="costs"]');
  const cost = page.locator('#costs article.cost[data-hook="pay-approval"]');
  await cost.waitFor();
  check((await cost.locator("svg rect.bar").count()) === 24, "the cost chart does not have 24 bars");
  check(/ms$/.test(await cost.locator(".p99").textContent()), "no p99");
  await page.locator("#now:not([hidden])").waitFor();
  await page.selectOption("#f-window", "24h");
  await cost.waitFor();
  await page.screenshot({ path: join(shots, "console-costs.png"), fullPage: true });

  // Policy: the hash, the hooks and the refused reload.
  await page.click('nav a[data-page="policy"]');
  await page.locator("#hooks tr", { hasText: "pay-approval" }).waitFor();
  const hash = await page.locator("#policy-hash").textContent();
  check(/^[0-9a-f]{64}$/.test(hash), `policy hash ${hash}`);
  await page.locator("#refused:not([hidden])").waitFor();
  const refusal = await page.locator("#refused-error").textContent();
  check(refusal.length > 0, "the refused reload has no error text");
  await page.screenshot({ path: join(shots, "console-policy.png"), fullPage: true });

  // Logging out ends the page's session, and revokes it: a copy of the
  // cookie taken before, replayed from outside the browser, is refused.
  const copied = (await browser.cookies(base + "/console/")).find((c) => c.name === "hookgate_console");
  const replay = async () => (await fetch(base + "/console/api/session", { headers: { Cookie: "hookgate_console=" + copied.value } })).status;
  check((await replay()) === 200, "the copied cookie does not work before logout");
  await page.click("#logout");
  await page.waitForURL(base + "/console/login");
  const after = await page.evaluate(async () => (await fetch("/console/api/approvals")).status);
  check(after === 401, `after logout the API answered ${after}`);
  const replayed = await replay();
  check(replayed === 401, `the copied cookie replayed after logout answered ${replayed}, want 401`);

  // The captured-events timeline, on the hookgate that keeps them:
  // prompt, calls with their arguments and decisions, result, in order.
  // (The login replaces this host's console cookie: the first hookgate
  // is logged out already.)
  await page.goto(captured + "/console/login");
  await page.fill("#token", token);
  await page.click("#login-button");
  await page.waitForURL(captured + "/console/");
  await page.goto(captured + "/console/#session=" + encodeURIComponent(capturedSession));
  await page.locator("#page-session:not([hidden]) #timeline li.step .part-result").first().waitFor();
  const capturedSource = await page.locator("#session-source").textContent();
  check(capturedSource.includes("captured events"), `the captured timeline's source: ${capturedSource}`);
  const loop = await page.evaluate(() =>
    [...document.querySelectorAll("#timeline li.step")].map((li) => {
      const part = (k) => (li.querySelector(".part-" + k) || {}).textContent || "";
      const decision = [...li.querySelectorAll("span")].find((s) => s.className.startsWith("decision-"));
      return {
        event: (li.querySelector(".event") || {}).textContent || "",
        tool: (li.querySelector(".tool") || {}).textContent || "",
        call: (li.querySelector(".call") || {}).textContent || "",
        decision: decision ? decision.textContent : "",
        prompt: part("prompt"), args: part("arguments"), result: part("result"), reason: part("reason"),
      };
    }));
  const want = [
    { event: "user_prompt_submit", prompt: "list the files", decision: "allow" },
    { event: "pre_tool_use", tool: "exec", call: "call_ls", args: '{"command":"ls -l"}', decision: "allow" },
    { event: "pre_tool_use", tool: "exec", call: "call_sudo", args: '{"command":"sudo rm -rf /tmp/x"}', decision: "block", reason: "no sudo" },
    { event: "post_tool_use", tool: "exec", call: "call_ls", result: "total 0 (listing-result)", decision: "allow" },
  ];
  check(loop.length === want.length, `the captured timeline has ${loop.length} steps: ${JSON.stringify(loop)}`);
  // The two calls of one answer are judged side by side: either may be
  // recorded first, both after the prompt and before the result.
  const calls = loop.slice(1, 3).sort((x, y) => x.call.localeCompare(y.call));
  loop.splice(1, 2, ...calls);
  want.forEach((w, i) => {
    for (const [k, v] of Object.entries(w)) {
      check(loop[i][k] === v, `captured step ${i + 1}: ${k} is ${JSON.stringify(loop[i][k])}, want ${JSON.stringify(v)} (${JSON.stringify(loop)})`);
    }
  });
  await page.screenshot({ path: join(shots, "console-session-captured.png"), fullPage: true });
  await page.click("#logout");
  await page.waitForURL(captured + "/console/login");

  // Throttling: wrong tokens from this address (one was tried at the
  // start) are refused with 429 and a Retry-After within five tries, and
  // the right token is then refused too until the bucket refills.
  const wrong = async (t) => fetch(base + "/console/login", {
    method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ token: t }),
  });
  let throttled = null;
  for (let i = 0; i < 5 && !throttled; i++) {
    const r = await wrong("not-a-token-" + i);
    if (r.status === 429) throttled = r;
    else check(r.status === 401, `wrong token ${i + 1} answered ${r.status}`);
  }
  check(throttled, "five wrong tokens were never answered 429");
  const retry = Number(throttled.headers.get("retry-after"));
  check(retry >= 1 && retry <= 30, `Retry-After ${throttled.headers.get("retry-after")}`);
  const right = await wrong(token);
  check(right.status === 429, `the right token while throttled answered ${right.status}, want 429`);

  check(external.length === 0, "requests left hookgate: " + external.join(", "));
  check(cspErrors.length === 0, "CSP violations: " + cspErrors.join(" | "));
  step("done");
} finally {
  await browser.close();
  rmSync(profile, { recursive: true, force: true });
}
