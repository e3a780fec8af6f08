// The part of the browser's DOM the script uses, declared here rather than through the DOM lib,
// which would declare browser globals for every file of the program (the server's code too).
interface PageElement {
  id: string;
  className: string;
  textContent: string; // never null on an element
  readonly tagName: string;
  readonly dataset: Record<string, string | undefined>;
  readonly isContentEditable: boolean;
  getAttribute(name: string): string | null;
  querySelector(selectors: string): PageElement | null;
  querySelectorAll(selectors: "textarea"): Iterable<TextField>;
  closest(selectors: "details"): Details | null;
  append(...nodes: PageElement[]): void;
  replaceWith(node: PageElement): void;
  replaceChildren(node: PageElement): void;
  focus(): void;
  scrollIntoView(options: { block: "center" }): void;
}
interface TextField extends PageElement {
  value: string;
}
interface TimeElement extends PageElement {
  readonly dateTime: string;
}
interface Details extends PageElement {
  open: boolean;
}
interface Form extends PageElement {
  readonly elements: { namedItem(name: string): TextField };
  submit(): void;
}
interface Page {
  title: string;
  readonly body: PageElement;
  readonly readyState: string;
  querySelector(selectors: string): PageElement | null;
  querySelectorAll(selectors: "textarea"): Iterable<TextField>;
  querySelectorAll(selectors: "time[data-ago]" | "time[data-left]"): Iterable<TimeElement>;
  querySelectorAll(selectors: string): Iterable<PageElement>;
  getElementById(id: string): PageElement | null;
  importNode(node: PageElement, deep: true): PageElement;
  createElement(tag: string): PageElement;
  addEventListener(type: "submit" | "keydown", listener: (event: PageEvent) => void): void;
}
interface PageEvent {
  readonly target: unknown;
  readonly key: string;
  readonly ctrlKey: boolean;
  readonly metaKey: boolean;
  readonly altKey: boolean;
  preventDefault(): void;
}
declare const document: Page;
declare const location: { readonly pathname: string; readonly search: string; readonly hash: string };
declare const DOMParser: new () => { parseFromString(text: string, type: "text/html"): Page };
declare const EventSource: new (
  url: string,
) => { addEventListener(type: string, listener: (event: { data: string }) => void): void };
declare const HTMLFormElement: abstract new () => Form;
declare const HTMLElement: abstract new () => PageElement;
declare function addEventListener(type: "hashchange" | "DOMContentLoaded", listener: () => void): void;

/** What the approver API answers to a question from the ask box. */
interface QuestionAnswer {
  answered?: boolean;
  question: string;
  lines: string[];
}

/**
 * The UI's one script, run in the browser (assets.ts gives it its text): it keeps relative times
 * current, swaps in the parts of the page marked `data-live` whose version changed when the event
 * stream says something happened (no reload, so a half-typed reason survives) — a request's page
 * only for its own request's events (showing it again fetches its previews), the inbox for every
 * event — and announces what changed in the polite status region. It gives the a / r / m keys,
 * answers the ask box's questions in place through the approver API (text it cannot answer goes
 * to the server's form, which asks the person to confirm it as a request for changes), and opens
 * the source when a fact links into it. It never builds HTML from data: the replacement parts are
 * the server's own escaped page, and what it writes itself is text. `span` is layout.ts's own
 * function, so that both sides word times alike.
 */
export function liveScript(span: (ms: number) => string): void {
  // biome-ignore lint/suspicious/noRedundantUseStrict: the page runs this text as a classic script, not a module
  "use strict";
  const body = document.body;
  const request = body.dataset.request;
  const tick = (): void => {
    const now = Date.now();
    for (const t of document.querySelectorAll("time[data-ago]"))
      t.textContent = span(now - Date.parse(t.dateTime)) + " ago";
    for (const t of document.querySelectorAll("time[data-left]")) {
      const at = Date.parse(t.dateTime);
      t.textContent = at <= now ? "expired" : span(at - now) + " left";
    }
  };
  setInterval(tick, 10000);

  const announce = (text: string): void => {
    const region = document.getElementById("announce");
    if (region !== null) region.textContent = text;
  };
  const pendingCount = (root: Page): number | null => {
    const count = root.querySelector("#pending-count");
    return count === null ? null : Number(count.textContent);
  };
  // The page this is, to fetch again: a request's own page (not the form post that showed it), or the list.
  const source =
    request === undefined ? location.pathname + location.search : "/requests/" + encodeURIComponent(request);
  let running = false;
  let again = false;
  const refresh = async (): Promise<void> => {
    if (running) {
      again = true;
      return;
    }
    running = true;
    try {
      const answer = await fetch(source, { credentials: "same-origin", headers: { accept: "text/html" } });
      if (!answer.ok) return;
      const fresh = new DOMParser().parseFromString(await answer.text(), "text/html");
      document.title = fresh.title;
      const before = pendingCount(document);
      for (const part of fresh.querySelectorAll("[data-live]")) {
        const old = document.getElementById(part.id);
        if (old === null || old.getAttribute("data-live") === part.getAttribute("data-live")) continue;
        // Text typed into a part that goes away (a decision made elsewhere) stays on the page, unsent.
        const typed = [...old.querySelectorAll("textarea")].map((t) => t.value.trim()).filter((t) => t !== "");
        const next = document.importNode(part, true);
        if (typed.length > 0 && next.querySelector("textarea") === null) {
          const label = document.createElement("p");
          label.className = "label";
          label.textContent = "What you typed was not sent:";
          const kept = document.createElement("pre");
          kept.className = "scroll";
          kept.id = "unsent";
          kept.textContent = typed.join("\n\n");
          next.append(label, kept);
        }
        old.replaceWith(next);
        if (part.id === "actions") {
          const decided = next.querySelector(".decided");
          announce(
            "This request was decided: " +
              (decided === null ? next.textContent : decided.textContent).replace(/\s+/g, " ").trim(),
          );
        }
      }
      const after = pendingCount(document);
      if (before !== null && after !== null && after > before) {
        const n = after - before;
        announce(n + " new request" + (n === 1 ? "" : "s") + " waiting, " + after + " in all");
      }
      tick();
      body.dataset.updates = String(Number(body.dataset.updates || "0") + 1);
    } finally {
      running = false;
      if (again) {
        again = false;
        void refresh();
      }
    }
  };
  const events = new EventSource("/v1/events");
  const onEvent = (e: { data: string }): void => {
    body.dataset.events = String(Number(body.dataset.events || "0") + 1);
    if (request !== undefined) {
      let about = null;
      try {
        about = (JSON.parse(e.data) as { request_id?: unknown }).request_id;
      } catch {
        about = null;
      }
      if (about !== request) return;
    }
    void refresh();
  };
  for (const type of ["pending", "resolved", "expired"]) events.addEventListener(type, onEvent);
  events.addEventListener("open", () => {
    body.dataset.live = "on";
  });

  // The ask box: a question the facts answer is answered here, without reloading (nor fetching the previews again).
  document.addEventListener("submit", async (e) => {
    const form = e.target;
    if (!(form instanceof HTMLFormElement) || form.id !== "ask-form" || request === undefined) return;
    e.preventDefault();
    const text = form.elements.namedItem("text").value;
    const csrf = form.elements.namedItem("csrf").value;
    let answer: QuestionAnswer | null = null;
    try {
      const sent = await fetch("/v1/requests/" + encodeURIComponent(request) + "/question", {
        method: "POST",
        credentials: "same-origin",
        headers: { "content-type": "application/json", "x-csrf-token": csrf },
        body: JSON.stringify({ question: text }),
      });
      if (sent.ok) answer = (await sent.json()) as QuestionAnswer;
    } catch {
      answer = null;
    }
    if (answer === null || answer.answered !== true) {
      form.submit();
      return;
    } // the server asks the person to confirm it as a request for changes
    const shown = document.createElement("section");
    shown.className = "banner answer";
    shown.id = "answer";
    const asked = document.createElement("h3");
    asked.textContent = "You asked: " + answer.question;
    const note = document.createElement("p");
    const strong = document.createElement("b");
    strong.textContent = "Answered from the analysis; the agent was not asked.";
    note.append(strong);
    const lines = document.createElement("ul");
    for (const line of answer.lines) {
      const item = document.createElement("li");
      item.textContent = line;
      lines.append(item);
    }
    shown.append(asked, note, lines);
    (document.getElementById("ask-answer") as PageElement).replaceChildren(shown);
    body.dataset.answers = String(Number(body.dataset.answers || "0") + 1);
  });

  const KEYS: Record<string, string> = { a: "approve-once", r: "reject-text", m: "ask-text" };
  document.addEventListener("keydown", (e) => {
    if (e.ctrlKey || e.metaKey || e.altKey || !(e.key in KEYS)) return;
    const at = e.target;
    if (at instanceof HTMLElement && (at.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(at.tagName))) return;
    const target = document.getElementById(KEYS[e.key] as string);
    if (target === null) return;
    e.preventDefault();
    const box = target.closest("details");
    if (box !== null) box.open = true;
    target.focus();
  });

  const reveal = (): void => {
    const target =
      location.hash.length > 1 ? document.getElementById(decodeURIComponent(location.hash.slice(1))) : null;
    const details = target === null ? null : target.closest("details");
    if (details !== null && !details.open) {
      details.open = true;
      (target as PageElement).scrollIntoView({ block: "center" });
    }
  };
  addEventListener("hashchange", reveal);
  if (document.readyState === "loading") addEventListener("DOMContentLoaded", reveal);
  else reveal();
}
