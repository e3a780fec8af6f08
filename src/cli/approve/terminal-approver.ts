import { emitKeypressEvents, type Key } from "node:readline";
import type { RequestPage } from "../../app/index.js";
import type { ApproverClient, DecisionRequest, LiveEvent } from "./approver-client.js";
import type { ApproverRequest } from "./approver-view.js";
import { line, type Line } from "./lines.js";
import { listLines, ROWS_PER_REQUEST, type ListMode } from "./list-view.js";
import {
  cannotRemember,
  LIFETIMES,
  rememberBody,
  rememberLines,
  SCOPES,
  shownOf,
  type Lifetime,
  type ScopeChoice,
} from "./remember.js";
import { requestLines, type ShownAnswer } from "./request-view.js";
import { ENTER_SCREEN, frame, wrapToRows, LEAVE_SCREEN, maxScroll, truncate, type ScreenRow } from "./screen.js";

/** The terminal the approver runs in: a TTY in raw mode. */
export interface TerminalIo {
  input: NodeJS.ReadStream;
  output: NodeJS.WriteStream;
  color: boolean;
}

/**
 * A question over the request: free text (a reason, feedback, a question), or a choice by one key over lines that
 * scroll.
 */
type Overlay =
  | { kind: "input"; label: string; text: string; submit: (text: string) => void }
  | { kind: "choice"; lines: Line[]; prompt: string; keys: Record<string, () => void>; scroll: number };

interface Opened {
  id: string;
  view: RequestPage | undefined; // undefined while it loads
  showSource: boolean;
  fullPreviews: boolean;
  answer?: ShownAnswer; // the last question asked here and its answer
  scroll: number;
  // a 256 KiB source takes a while to lay out: once per view, width and second
  laidOut?: { key: string; rows: ScreenRow[] };
}

// The keys, most important first and short enough for 80 columns: the decisions on one row, moving about on the next.
const LIST_KEYS: Readonly<Record<ListMode, string>> = {
  pending: "j/k move · Enter open · H history · q quit",
  history: "j/k move · Enter open (read-only) · H pending requests · q quit",
};
export const DECISION_KEYS = "a approve once · A approve+remember · r reject · m request changes · ? ask";
export const MOVE_KEYS = "j/k/Space/b scroll · p full preview · v source · Esc back · q quit";
export const READ_ONLY_KEYS = "decided: read-only · ? ask · j/k/Space/b scroll · v source · Esc back · q quit";
const SCROLL_KEYS = "more below and above: j/k/Space/b scroll";
const TICK_MS = 1000;

/**
 * `countersign approve` on screen: the pending requests, live; one opened with the same content
 * in the same order as the browser page; decisions by single keys, with prompts for the texts
 * a decision needs. All drawing goes through screen.ts, which neutralises every line.
 */
export class TerminalApprover {
  #requests: ApproverRequest[] = [];
  #history: ApproverRequest[] | undefined; // read when the history is first shown
  #mode: ListMode = "pending";
  #selected = 0;
  #opened: Opened | undefined;
  #overlay: Overlay | undefined;
  #status: Line = line("");
  #live = false;
  #lastFrame = "";
  #quit: () => void = () => undefined;
  #closed = false; // the terminal is given back: a reply still on its way draws nothing

  readonly #client: ApproverClient;
  readonly #io: TerminalIo;
  readonly #approver: string;

  constructor(client: ApproverClient, io: TerminalIo, approver: string) {
    this.#client = client;
    this.#io = io;
    this.#approver = approver;
  }

  /** Run until the person quits; the terminal is given back as it was, whatever happens. */
  async run(initial: ApproverRequest[]): Promise<void> {
    this.#requests = initial;
    const { input, output } = this.#io;
    const stop = new AbortController();
    const onKey = (text: string | undefined, key: Key | undefined) => this.#key(text ?? "", key ?? {});
    const render = () => this.#render();
    emitKeypressEvents(input);
    input.setRawMode(true);
    input.on("keypress", onKey);
    output.on("resize", render);
    input.resume();
    output.write(ENTER_SCREEN);
    // the list's ages and times left
    const ticker = setInterval(() => this.#opened === undefined && this.#render(), TICK_MS);
    try {
      const done = new Promise<void>((resolve) => (this.#quit = resolve));
      const watching = this.#client.watch(
        {
          onEvent: (event) => this.#changed(event),
          onConnected: () => {
            this.#live = true;
            void this.#refresh();
          },
          onDropped: (err) => {
            this.#live = false;
            this.#say(`live updates interrupted (${(err as Error).message}); reconnecting`, "warn");
          },
        },
        stop.signal,
      );
      this.#render();
      await done;
      stop.abort();
      // Quitting never waits on the network: the event stream gets a moment to close, no more.
      await Promise.race([
        watching.catch(() => undefined),
        new Promise<void>((resolve) => setTimeout(resolve, 1000).unref()),
      ]);
    } finally {
      this.#closed = true;
      clearInterval(ticker);
      input.off("keypress", onKey);
      output.off("resize", render);
      input.setRawMode(false);
      input.pause();
      output.write(LEAVE_SCREEN);
    }
  }

  #key(text: string, key: Key): void {
    if (key.ctrl === true && key.name === "c") return this.#quit();
    if (this.#overlay?.kind === "input") this.#typed(this.#overlay, text, key);
    else if (this.#overlay?.kind === "choice") this.#chose(this.#overlay, text, key);
    else if (this.#opened !== undefined) this.#inRequest(this.#opened, text, key);
    else this.#inList(text, key);
    this.#render();
  }

  /** The requests the list shows now: the pending ones, or the past ones. */
  get #shown(): readonly ApproverRequest[] {
    return this.#mode === "pending" ? this.#requests : (this.#history ?? []);
  }

  #inList(text: string, key: Key): void {
    if (text === "q") return this.#quit();
    if (text === "j" || key.name === "down")
      this.#selected = Math.min(this.#selected + 1, Math.max(0, this.#shown.length - 1));
    else if (text === "k" || key.name === "up") this.#selected = Math.max(0, this.#selected - 1);
    else if (text === "H" || key.name === "tab") {
      this.#mode = this.#mode === "pending" ? "history" : "pending";
      this.#selected = 0;
      this.#say("");
      void this.#refresh();
    } else if (key.name === "return" || key.name === "enter" || text === "o" || text === "l") {
      const chosen = this.#shown[this.#selected];
      if (chosen !== undefined) void this.#open(chosen.id);
    } else if (/^[aArmv?]$/.test(text)) this.#say("open a request first (Enter)", "warn");
  }

  #inRequest(opened: Opened, text: string, key: Key): void {
    const page = Math.max(1, (this.#io.output.rows ?? 24) - 4);
    if (text === "q") return this.#quit();
    if (key.name === "escape" || key.name === "backspace" || key.name === "left" || text === "h") {
      this.#opened = undefined;
      this.#say("");
    } else if (text === "j" || key.name === "down") opened.scroll += 1;
    else if (text === "k" || key.name === "up") opened.scroll -= 1;
    else if (text === " " || key.name === "pagedown") opened.scroll += page;
    else if (text === "b" || key.name === "pageup") opened.scroll -= page;
    else if (text === "g" || key.name === "home") opened.scroll = 0;
    else if (text === "G" || key.name === "end") opened.scroll = Number.MAX_SAFE_INTEGER;
    else if (text === "v") opened.showSource = !opened.showSource;
    else if (text === "p") {
      opened.fullPreviews = !opened.fullPreviews;
      delete opened.laidOut;
    } else if (text === "?")
      this.#ask("Question, answered here from the facts", (question) => void this.#question(opened, question));
    else if (/^[aArm]$/.test(text)) this.#act(opened, text);
    opened.scroll = Math.max(0, opened.scroll);
  }

  #act(opened: Opened, text: string): void {
    const view = opened.view;
    if (view === undefined) return this.#say("the request is still loading", "warn");
    if (view.final)
      return this.#say(`this request is already ${view.decision?.kind ?? view.status}: no second decision`, "warn");
    if (text === "a") this.#approveOnce(opened, view);
    else if (text === "A") this.#remember(opened, view);
    else if (text === "r")
      this.#ask(
        "Reason for rejecting (sent to the agent)",
        (reason) => void this.#decide(opened, { decision: "rejected", reason }, "Rejected."),
      );
    else if (text === "m")
      this.#ask("Changes for the agent (ends the request)", (feedback) =>
        this.#requestChanges(opened, feedback, [
          line("Request changes: the agent gets this text, and this request ends (nothing runs).", "heading"),
          ...quoted(feedback),
        ]),
      );
  }

  /** Approve once; with a danger flagged, only after a yes to the dangers shown again. */
  #approveOnce(opened: Opened, view: RequestPage): void {
    const approve = () => void this.#decide(opened, { decision: "approved_once", ...shownOf(view) }, "Approved once.");
    const dangers = dangerLines(view);
    if (dangers.length === 0) return approve();
    this.#choose(
      [line("Approve although countersign flags a danger?", "heading"), ...dangers, line(""), line(view.headline)],
      "Approve once anyway?  y approve · n no",
      { y: approve, n: () => this.#say("nothing was sent; the request still waits") },
    );
  }

  /** Text for the agent ends the request: said so, and sent only after a yes. */
  #requestChanges(opened: Opened, feedback: string, lines: Line[]): void {
    this.#choose(lines, "Send to the agent as a request for changes (ends the request)?  y send · n no", {
      y: () =>
        void this.#decide(
          opened,
          { decision: "request_more", feedback },
          "Sent to the agent as a request for changes; the request has ended.",
        ),
      n: () => this.#say("nothing was sent; the request still waits"),
    });
  }

  /**
   * A question answered here, from the facts: the answer goes near the top of the request and the
   * request keeps waiting. Text countersign cannot answer is never sent silently: the person is
   * told it would go to the agent as a request for changes, which ends the request, and confirms.
   */
  async #question(opened: Opened, text: string): Promise<void> {
    this.#say("asking…");
    this.#render();
    try {
      const answer = await this.#client.question(opened.id, text);
      if (answer.answered) {
        opened.answer = { question: answer.question, lines: answer.lines };
        delete opened.laidOut;
        opened.scroll = 0;
        this.#say("Answered here from the facts; nothing was sent, the request still waits.", "ok");
      } else if (opened.view === undefined || opened.view.final) {
        this.#say(`countersign cannot answer that from the facts (${EXAMPLES})`, "warn");
      } else {
        this.#say("");
        this.#requestChanges(opened, text, [
          line("countersign cannot answer this from the facts:", "heading"),
          ...quoted(text),
          line(""),
          line(
            "Sent as it is, it goes to the agent as a request for changes: the agent gets your text, and this request ends (nothing runs; the agent may submit a new program).",
            "warn",
          ),
          line(""),
          line(`Questions answered here are like: ${EXAMPLES} Press n, then ? to ask one.`, "dim"),
        ]);
      }
    } catch (err) {
      this.#say(`cannot ask: ${(err as Error).message}`, "warn");
    }
    this.#render();
  }

  #choose(lines: Line[], prompt: string, keys: Record<string, () => void>): void {
    this.#overlay = { kind: "choice", lines, prompt, keys, scroll: 0 };
    this.#say(""); // what was said before is about the screen left
  }

  /** Approve and remember: the rules first, then who they cover and for how long, then a last yes. */
  #remember(opened: Opened, view: RequestPage): void {
    const dangers = dangerLines(view);
    const lines = [
      ...rememberLines(view),
      ...(dangers.length === 0
        ? []
        : [line(""), line("And countersign flags a danger in this request:", "heading"), ...dangers]),
    ];
    if (cannotRemember(view) !== undefined) return this.#choose(lines, "Esc back", {});
    const next = (prompt: string, keys: Record<string, () => void>) => this.#choose(lines, prompt, keys);
    const confirm = (scope: ScopeChoice, lifetime: Lifetime) =>
      next(
        `Save for ${SCOPES[scope]} (${scope === "agent" ? `agent ${view.submitter}` : "any token"}), ${LIFETIMES[lifetime]}, and approve?  y yes · n no`,
        {
          y: () =>
            void this.#decide(
              opened,
              rememberBody(scope, lifetime, view),
              `Approved; the rules are remembered for ${SCOPES[scope]}, ${LIFETIMES[lifetime]}.`,
            ),
          n: () => this.#say("nothing was saved"),
        },
      );
    const lifetime = (scope: ScopeChoice) =>
      next(`For how long?  1 ${LIFETIMES.hour} · 2 ${LIFETIMES.day} · 3 ${LIFETIMES.forever} · Esc cancel`, {
        "1": () => confirm(scope, "hour"),
        "2": () => confirm(scope, "day"),
        "3": () => confirm(scope, "forever"),
      });
    this.#choose(
      lines,
      `Who may it let through?  1 ${SCOPES.agent} (${view.submitter}) · 2 ${SCOPES.everyone} · Esc cancel`,
      { "1": () => lifetime("agent"), "2": () => lifetime("everyone") },
    );
  }

  #ask(label: string, submit: (text: string) => void): void {
    this.#overlay = { kind: "input", label, text: "", submit };
  }

  #typed(overlay: Extract<Overlay, { kind: "input" }>, text: string, key: Key): void {
    if (key.name === "escape") {
      this.#overlay = undefined;
      return this.#say("cancelled; nothing was sent");
    }
    if (key.name === "return" || key.name === "enter") {
      if (overlay.text.trim() === "") return this.#say("this needs some text (Esc cancels)", "warn");
      this.#overlay = undefined;
      return overlay.submit(overlay.text.trim());
    }
    if (key.name === "backspace") overlay.text = Array.from(overlay.text).slice(0, -1).join("");
    else if (text !== "" && key.ctrl !== true && key.meta !== true && !/\p{Cc}/u.test(text)) overlay.text += text;
  }

  #chose(overlay: Extract<Overlay, { kind: "choice" }>, text: string, key: Key): void {
    const page = Math.max(1, (this.#io.output.rows ?? 24) - 4);
    const moved =
      text === "j" || key.name === "down"
        ? 1
        : text === "k" || key.name === "up"
          ? -1
          : text === " " || key.name === "pagedown"
            ? page
            : text === "b" || key.name === "pageup"
              ? -page
              : 0;
    if (moved !== 0 && overlay.keys[text] === undefined) {
      overlay.scroll = Math.max(0, overlay.scroll + moved); // the render keeps it within the lines
      return;
    }
    const chosen = overlay.keys[text];
    if (chosen === undefined && key.name !== "escape") return;
    this.#overlay = undefined;
    if (chosen === undefined) return this.#say("cancelled; nothing was sent");
    chosen();
    // A next step over the same lines (who, then how long, then yes) keeps the place the person scrolled to.
    const after = this.#overlay as Overlay | undefined; // set again by chosen()
    if (after?.kind === "choice" && after.lines === overlay.lines) after.scroll = overlay.scroll;
  }

  async #decide(opened: Opened, body: DecisionRequest, done: string): Promise<void> {
    this.#say("sending…");
    this.#render();
    try {
      await this.#client.decide(opened.id, body);
      this.#say(done, "ok");
    } catch (err) {
      this.#say(`not decided: ${(err as Error).message}`, "warn");
    }
    await this.#reload(opened);
    await this.#refresh();
  }

  #show(opened: Opened, view: RequestPage): void {
    opened.view = view;
    delete opened.laidOut;
  }

  async #open(id: string): Promise<void> {
    const opened: Opened = { id, view: undefined, showSource: false, fullPreviews: false, scroll: 0 };
    this.#opened = opened;
    this.#say("");
    await this.#reload(opened);
  }

  /** Read the opened request again (a decision made elsewhere shows up in it). */
  async #reload(opened: Opened): Promise<void> {
    try {
      this.#show(opened, await this.#client.page(opened.id));
    } catch (err) {
      this.#say(`cannot read ${opened.id}: ${(err as Error).message}`, "warn");
    }
    this.#render();
  }

  /** Read the pending requests again, and the past ones while the history is shown; the cursor stays on its request. */
  async #refresh(): Promise<void> {
    const mode = this.#mode;
    try {
      const current = this.#shown[this.#selected]?.id;
      const [pending, history] = await Promise.all([
        this.#client.pending(),
        mode === "history" ? this.#client.history() : Promise.resolve(this.#history),
      ]);
      this.#requests = pending;
      this.#history = history;
      if (mode !== this.#mode) return; // toggled while reading: that toggle's own read places the cursor
      const again = this.#shown.findIndex((r) => r.id === current);
      this.#selected = again === -1 ? Math.min(this.#selected, Math.max(0, this.#shown.length - 1)) : again;
    } catch (err) {
      this.#say(
        `cannot list the ${mode === "pending" ? "pending" : "past"} requests: ${(err as Error).message}`,
        "warn",
      );
    } finally {
      this.#render();
    }
  }

  #changed(event: LiveEvent): void {
    void this.#refresh();
    if (this.#opened?.id === event.request_id) void this.#reload(this.#opened);
  }

  #say(text: string, style?: Line["style"]): void {
    this.#status = line(text, style);
  }

  #requestRows(opened: Opened, width: number, now: number): ScreenRow[] {
    const { view, showSource } = opened;
    if (view === undefined) return [{ text: "loading…" }];
    const key = `${width} ${showSource} ${Math.floor(now / 1000)}`;
    if (opened.laidOut?.key !== key)
      opened.laidOut = {
        key,
        rows: wrapToRows(
          requestLines(view, {
            now,
            showSource,
            fullPreviews: opened.fullPreviews,
            ...(opened.answer === undefined ? {} : { answer: opened.answer }),
          }),
          width,
        ),
      };
    return opened.laidOut.rows;
  }

  #render(): void {
    if (this.#closed) return;
    const { output } = this.#io;
    const width = Math.max(20, (output.columns ?? 80) - 1); // the last column is never written: no wrap at the edge
    const height = Math.max(5, output.rows ?? 24);
    const now = Date.now();
    const overlay = this.#overlay;
    const status = wrapToRows([this.#status], width);
    let body: ScreenRow[];
    let footer: ScreenRow[];
    let scroll = 0;
    if (overlay?.kind === "choice") {
      // The lines scroll (j/k/Space/b) when they are longer than the screen; the prompt stays at the bottom.
      body = wrapToRows(overlay.lines, width);
      const prompt = wrapToRows([line(overlay.prompt, "title")], width);
      const longer = body.length > height - status.length - prompt.length;
      footer = [...status, ...(longer ? truncate([line(SCROLL_KEYS, "dim")], width) : []), ...prompt];
      overlay.scroll = Math.min(overlay.scroll, maxScroll(body, height, footer.length));
      scroll = overlay.scroll;
    } else if (this.#opened !== undefined) {
      body = this.#requestRows(this.#opened, width, now);
      const keys =
        this.#opened.view?.final === true
          ? [line(READ_ONLY_KEYS, "dim")]
          : [line(DECISION_KEYS, "title"), line(MOVE_KEYS, "dim")];
      footer = [...status, ...(overlay === undefined ? truncate(keys, width) : promptLines(overlay, width))];
      this.#opened.scroll = Math.min(this.#opened.scroll, maxScroll(body, height, footer.length));
      scroll = this.#opened.scroll;
    } else {
      const what =
        this.#mode === "pending"
          ? `${this.#requests.length} pending`
          : `history: ${this.#history === undefined ? "loading…" : `${this.#history.length} past`}`;
      const title = line(
        `countersign approve · ${what} · as ${this.#approver} · ${this.#live ? "live" : "connecting…"} · ${this.#client.url}`,
        "title",
      );
      body = truncate([title, line(""), ...listLines(this.#shown, this.#selected, now, this.#mode)], width);
      footer = [...status, ...truncate([line(LIST_KEYS[this.#mode], "dim")], width)];
      // the selected request's rows (after the title and a blank) in view
      const last = 2 + (this.#selected + 1) * ROWS_PER_REQUEST;
      scroll = Math.max(0, last - (height - footer.length));
    }
    const text = frame(body, { width, height, scroll, footer, color: this.#io.color });
    if (text === this.#lastFrame) return;
    this.#lastFrame = text;
    output.write(text);
  }
}

/** What is asked, then the text being typed with its end in view: two rows, so a long label leaves room to type. */
function promptLines(overlay: Extract<Overlay, { kind: "input" }>, width: number): ScreenRow[] {
  const room = Math.max(1, width - 3);
  const chars = Array.from(overlay.text);
  const shown = chars.length > room ? "…" + chars.slice(-room + 1).join("") : overlay.text;
  return truncate([line(`${overlay.label} · Enter send · Esc cancel`, "dim"), line(`> ${shown}_`, "title")], width);
}

/** The dangers the page flags, in words: shown again before an approval. */
function dangerLines(view: RequestPage): Line[] {
  return view.risks.filter((r) => r.level === "danger").map((r) => line(`DANGER: ${r.text}`, "warn"));
}

/** The person's own text, quoted, as it would be sent. */
const quoted = (text: string): Line[] => [{ gutter: "  │ ", text }];

const EXAMPLES = "Who will be emailed? How many emails? Which files will be written? Which hosts?";
