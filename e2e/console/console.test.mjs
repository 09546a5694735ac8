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
// (default /usr/bin/chromium).
import { chromium } from "playwright-core";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const base = process.env.CONSOLE_URL;
const token = process.env.CONSOLE_TOKEN;
const shots = process.env.CONSOLE_SHOTS;
const executablePath = process.env.CHROMIUM || "/usr/bin/chromium";
if (!base || !token || !shots) throw new Error("CONSOLE_URL, CONSOLE_TOKEN and CONSOLE_SHOTS are required");
const origin = new URL(base).origin;
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
    if (!u.startsWith(origin + "/") && !u.startsWith("data:")) external.push(u);
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

  // Logging out ends the page's session.
  await page.click("#logout");
  await page.waitForURL(base + "/console/login");
  const after = await page.evaluate(async () => (await fetch("/console/api/approvals")).status);
  check(after === 401, `after logout the API answered ${after}`);

  check(external.length === 0, "requests left hookgate: " + external.join(", "));
  check(cspErrors.length === 0, "CSP violations: " + cspErrors.join(" | "));
  step("done");
} finally {
  await browser.close();
  rmSync(profile, { recursive: true, force: true });
}
