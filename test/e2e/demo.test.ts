// Slow: the whole demo in a tmux pane, with a real Chromium clicking through it.
// The demo's promise, end to end: `npm run demo` in a real terminal (a tmux pane of the test's
// own) shows the three outcomes, prints the review URL and a login link for the waiting program,
// and a person who opens them in a real headless Chromium and clicks "Approve once" sees that
// program finish: the demo prints its end and exits 0. Waits are stall guards, not timing targets.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { chromium, type Browser } from "playwright-core";
import { afterAll, describe, expect, it } from "vitest";
import { packageRoot } from "../../src/model/paths.js";
import { Tmux } from "../cli/approve/tmux.js";

const ARTIFACTS = join(packageRoot, "test-artifacts");
const LAUNCH_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
];
// The demo starts an authority and three `countersign run` processes; on a loaded machine each takes tens of seconds.
const STALL_MS = 240_000;

const tmux = new Tmux();
let browser: Browser | undefined;

afterAll(async () => {
  await browser?.close();
  tmux.kill();
});

describe("npm run demo", () => {
  it("shows the three outcomes; approving in the browser lets the waiting program finish, and the demo exits 0", {
    timeout: 3 * STALL_MS,
  }, async () => {
    // Wide, so that the login link stays on one row.
    tmux.start(["npm", "run", "--silent", "demo"], {
      cwd: packageRoot,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, TMPDIR: process.env.TMPDIR, LANG: "C.UTF-8" },
      width: 400,
      height: 80,
    });
    const waiting = await tmux.waitFor(
      (s) => /log in\s+http:\S+/.test(s) && s.includes("Approve it as the person"),
      "the review URL and the login link",
      STALL_MS,
    );

    // The first two outcomes, as the demo shows them before the third waits.
    expect(waiting).toMatch(
      /1\. A program the policy approves[\s\S]*policy: auto_approved[\s\S]*\(exit 0\)[\s\S]*provider: sent "Reminder" to me@example\.com/,
    );
    expect(waiting).toMatch(
      /2\. A program the policy denies[\s\S]*policy: auto_rejected \(fs\.write-outside-sandbox\)[\s\S]*\(exit 3\)/,
    );
    expect(waiting).toMatch(/3\. A program the policy asks you about[\s\S]*policy: ask/);
    const review = /review URL\s+(http:\/\/127\.0\.0\.1:\d+\/requests\/req_[A-Za-z0-9_-]+)/.exec(waiting)?.[1];
    const login = /log in\s+(http:\/\/127\.0\.0\.1:\d+\/login\?link=\S+)/.exec(waiting)?.[1];
    expect(review, waiting).toBeDefined();
    expect(login, waiting).toBeDefined();
    expect(waiting).not.toContain("Weekly report ready"); // the third has not run

    // The person: open the login link, then the review page, and approve once.
    browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: LAUNCH_ARGS });
    const page = await browser.newPage({ viewport: { width: 1100, height: 900 } });
    page.setDefaultTimeout(60_000);
    expect((await page.goto(login!))?.status()).toBe(200);
    expect(await page.textContent("h1")).toBe("Inbox");
    await page.goto(review!);
    await page.waitForSelector("#approve-once");
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS, "demo-request.png"), fullPage: true });
    await Promise.all([page.waitForURL(review!), page.click("#approve-once")]);
    await page.waitForSelector('#status[data-live="approved"]');

    // The waiting program finishes: executed, the provider got the team's mail, the demo exits 0.
    const finished = await tmux.waitFor(
      (s) => /Weekly report ready" to alice@example\.com, bob@example\.com/.test(s),
      "the waiting program's mail",
      STALL_MS,
    );
    expect(finished).toMatch(/approval: approved_once receipt=\S+ \(expires in \d+ s\)/);
    expect(finished).toMatch(/executed: main \(1 trusted call\)/);
    expect(await tmux.exitStatus(STALL_MS)).toBe("0");
  });
});
