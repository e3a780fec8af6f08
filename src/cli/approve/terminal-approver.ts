import { emitKeypressEvents, type Key } from "node:readline";
import type { RequestPage } from "../../app/index.js";
import type { ApproverClient, DecisionRequest, LiveEvent } from "./approver-client.js";
import type { ApproverRequest } from "./approver-view.js";
import { line, type Line } from "./lines.js";
import { listLines } from "./list-view.js";
import { cannotRemember, LIFETIMES, rememberBody, rememberLines, SCOPES, shownOf, type Lifetime, type Scope } from "./remember.js";
import { requestLines } from "./request-view.js";
import { ENTER_SCREEN, frame, layout, LEAVE_SCREEN, maxScroll, truncate, type Row } from "./screen.js";

/** The terminal the approver runs in: a TTY in raw mode. */
export interface TerminalIo {
  input: NodeJS.ReadStream;
  output: NodeJS.WriteStream;
  color: boolean;
}

/** A question over the request: free text (a reason, feedback), or a choice by one key. */
type Overlay =
  | { kind: "input"; label: string; text: string; submit: (text: string) => void }
  | { kind: "choice"; lines: Line[]; prompt: string; keys: Record<string, () => void> };

interface Opened {
  id: string;
  view: RequestPage | undefined; // undefined while it loads
  showSource: boolean;
  scroll: number;
  laidOut?: { key: string; rows: Row[] }; // a 256 KiB source takes a while to lay out: once per view, width and second
}

const LIST_KEYS = "j/k move · Enter open · q quit";
const REQUEST_KEYS = "a approve once · A approve and remember · r reject · m request changes · v source · j/k scroll · Space/b page · Esc back · q quit";
const TICK_MS = 1000;

/**
 * `countersign approve` on screen: the pending requests, live; one opened with the same content
 * in the same order as the browser page; decisions by single keys, with prompts for the texts
 * a decision needs. All drawing goes through screen.ts, which neutralises every line.
 */
export class TerminalApprover {
  private requests: ApproverRequest[] = [];
  private selected = 0;
  private opened: Opened | undefined;
  private overlay: Overlay | undefined;
  private status: Line = line("");
  private live = false;
  private lastFrame = "";
  private quit: () => void = () => undefined;
  private closed = false; // the terminal is given back: a reply still on its way draws nothing

  constructor(
    private readonly client: ApproverClient,
    private readonly io: TerminalIo,
    private readonly approver: string,
  ) {}

  /** Run until the person quits; the terminal is given back as it was, whatever happens. */
  async run(initial: ApproverRequest[]): Promise<void> {
    this.requests = initial;
    const { input, output } = this.io;
    const stop = new AbortController();
    const onKey = (text: string | undefined, key: Key | undefined) => this.key(text ?? "", key ?? {});
    const render = () => this.render();
    emitKeypressEvents(input);
    input.setRawMode(true);
    input.on("keypress", onKey);
    output.on("resize", render);
    input.resume();
    output.write(ENTER_SCREEN);
    const ticker = setInterval(() => this.opened === undefined && this.render(), TICK_MS); // the list's ages and times left
    try {
      const done = new Promise<void>((resolve) => (this.quit = resolve));
      const watching = this.client.watch(
        {
          onEvent: (event) => this.changed(event),
          onConnected: () => {
            this.live = true;
            void this.refresh();
          },
          onDropped: (err) => {
            this.live = false;
            this.say(`live updates interrupted (${(err as Error).message}); reconnecting`, "warn");
          },
        },
        stop.signal,
      );
      this.render();
      await done;
      stop.abort();
      // Quitting never waits on the network: the event stream gets a moment to close, no more.
      await Promise.race([watching.catch(() => undefined), new Promise<void>((resolve) => setTimeout(resolve, 1000).unref())]);
    } finally {
      this.closed = true;
      clearInterval(ticker);
      input.off("keypress", onKey);
      output.off("resize", render);
      input.setRawMode(false);
      input.pause();
      output.write(LEAVE_SCREEN);
    }
  }

  private key(text: string, key: Key): void {
    if (key.ctrl === true && key.name === "c") return this.quit();
    if (this.overlay?.kind === "input") this.typed(this.overlay, text, key);
    else if (this.overlay?.kind === "choice") this.chose(this.overlay, text, key);
    else if (this.opened !== undefined) this.inRequest(this.opened, text, key);
    else this.inList(text, key);
    this.render();
  }

  private inList(text: string, key: Key): void {
    if (text === "q") return this.quit();
    if (text === "j" || key.name === "down") this.selected = Math.min(this.selected + 1, Math.max(0, this.requests.length - 1));
    else if (text === "k" || key.name === "up") this.selected = Math.max(0, this.selected - 1);
    else if (key.name === "return" || key.name === "enter" || text === "o" || text === "l") {
      const chosen = this.requests[this.selected];
      if (chosen !== undefined) void this.open(chosen.id);
    } else if (/^[aArmv]$/.test(text)) this.say("open a request first (Enter)", "warn");
  }

  private inRequest(opened: Opened, text: string, key: Key): void {
    const page = Math.max(1, (this.io.output.rows ?? 24) - 4);
    if (text === "q") return this.quit();
    if (key.name === "escape" || key.name === "backspace" || key.name === "left" || text === "h") {
      this.opened = undefined;
      this.say("");
    } else if (text === "j" || key.name === "down") opened.scroll += 1;
    else if (text === "k" || key.name === "up") opened.scroll -= 1;
    else if (text === " " || key.name === "pagedown") opened.scroll += page;
    else if (text === "b" || key.name === "pageup") opened.scroll -= page;
    else if (text === "g" || key.name === "home") opened.scroll = 0;
    else if (text === "G" || key.name === "end") opened.scroll = Number.MAX_SAFE_INTEGER;
    else if (text === "v") opened.showSource = !opened.showSource;
    else if (/^[aArm]$/.test(text)) this.act(opened, text);
    opened.scroll = Math.max(0, opened.scroll);
  }

  private act(opened: Opened, text: string): void {
    const view = opened.view;
    if (view === undefined) return this.say("the request is still loading", "warn");
    if (view.final) return this.say(`this request is already ${view.decision?.kind ?? view.status}: no second decision`, "warn");
    if (text === "a") void this.decide(opened, { decision: "approved_once", ...shownOf(view) }, "Approved once.");
    else if (text === "A") this.remember(opened, view);
    else if (text === "r") this.ask("Reason for rejecting (sent to the agent)", (reason) => void this.decide(opened, { decision: "rejected", reason }, "Rejected."));
    else if (text === "m") this.ask("Changes to ask the agent for", (feedback) => void this.decide(opened, { decision: "request_more", feedback }, "Sent back to the agent for changes."));
  }

  /** Approve and remember: the rules first, then who they cover and for how long, then a last yes. */
  private remember(opened: Opened, view: RequestPage): void {
    const lines = rememberLines(view);
    if (cannotRemember(view) !== undefined) {
      this.overlay = { kind: "choice", lines, prompt: "Esc back", keys: {} };
      return;
    }
    const confirm = (scope: Scope, lifetime: Lifetime) => {
      this.overlay = {
        kind: "choice",
        lines,
        prompt: `Save for ${SCOPES[scope]} (${scope === "agent" ? `agent ${view.submitter}` : "any token"}), ${LIFETIMES[lifetime]}, and approve?  y yes · n no`,
        keys: {
          y: () => {
            void this.decide(opened, rememberBody(scope, lifetime, view), `Approved; the rules are remembered for ${SCOPES[scope]}, ${LIFETIMES[lifetime]}.`);
          },
          n: () => this.say("nothing was saved"),
        },
      };
    };
    const lifetime = (scope: Scope) => {
      this.overlay = { kind: "choice", lines, prompt: `For how long?  1 ${LIFETIMES.hour} · 2 ${LIFETIMES.day} · 3 ${LIFETIMES.forever} · Esc cancel`, keys: { "1": () => confirm(scope, "hour"), "2": () => confirm(scope, "day"), "3": () => confirm(scope, "forever") } };
    };
    this.overlay = { kind: "choice", lines, prompt: `Who may it let through?  1 ${SCOPES.agent} (${view.submitter}) · 2 ${SCOPES.everyone} · Esc cancel`, keys: { "1": () => lifetime("agent"), "2": () => lifetime("everyone") } };
  }

  private ask(label: string, submit: (text: string) => void): void {
    this.overlay = { kind: "input", label, text: "", submit };
  }

  private typed(overlay: Extract<Overlay, { kind: "input" }>, text: string, key: Key): void {
    if (key.name === "escape") {
      this.overlay = undefined;
      return this.say("cancelled; nothing was sent");
    }
    if (key.name === "return" || key.name === "enter") {
      if (overlay.text.trim() === "") return this.say("this needs some text (Esc cancels)", "warn");
      this.overlay = undefined;
      return overlay.submit(overlay.text.trim());
    }
    if (key.name === "backspace") overlay.text = Array.from(overlay.text).slice(0, -1).join("");
    else if (text !== "" && key.ctrl !== true && key.meta !== true && !/\p{Cc}/u.test(text)) overlay.text += text;
  }

  private chose(overlay: Extract<Overlay, { kind: "choice" }>, text: string, key: Key): void {
    const chosen = overlay.keys[text];
    if (chosen === undefined && key.name !== "escape") return;
    this.overlay = undefined;
    if (chosen === undefined) return this.say("cancelled; nothing was sent");
    chosen();
  }

  private async decide(opened: Opened, body: DecisionRequest, done: string): Promise<void> {
    this.say("sending…");
    this.render();
    try {
      await this.client.decide(opened.id, body);
      this.say(done, "ok");
    } catch (err) {
      this.say(`not decided: ${(err as Error).message}`, "warn");
    }
    await this.reload(opened);
    await this.refresh();
  }

  private show(opened: Opened, view: RequestPage): void {
    opened.view = view;
    delete opened.laidOut;
  }

  private async open(id: string): Promise<void> {
    const opened: Opened = { id, view: undefined, showSource: false, scroll: 0 };
    this.opened = opened;
    this.say("");
    await this.reload(opened);
  }

  /** Read the opened request again (a decision made elsewhere shows up in it). */
  private async reload(opened: Opened): Promise<void> {
    try {
      this.show(opened, await this.client.page(opened.id));
    } catch (err) {
      this.say(`cannot read ${opened.id}: ${(err as Error).message}`, "warn");
    }
    this.render();
  }

  private async refresh(): Promise<void> {
    try {
      const current = this.requests[this.selected]?.id;
      this.requests = await this.client.pending();
      const again = this.requests.findIndex((r) => r.id === current);
      this.selected = again === -1 ? Math.min(this.selected, Math.max(0, this.requests.length - 1)) : again;
    } catch (err) {
      this.say(`cannot list the pending requests: ${(err as Error).message}`, "warn");
    }
    this.render();
  }

  private changed(event: LiveEvent): void {
    void this.refresh();
    if (this.opened?.id === event.request_id) void this.reload(this.opened);
  }

  private say(text: string, style?: Line["style"]): void {
    this.status = line(text, style);
  }

  private requestRows(opened: Opened, width: number, now: number): Row[] {
    const { view, showSource } = opened;
    if (view === undefined) return [{ text: "loading…" }];
    const key = `${width} ${showSource} ${Math.floor(now / 1000)}`;
    if (opened.laidOut?.key !== key) opened.laidOut = { key, rows: layout(requestLines(view, { now, showSource }), width) };
    return opened.laidOut.rows;
  }

  private render(): void {
    if (this.closed) return;
    const { output } = this.io;
    const width = Math.max(20, (output.columns ?? 80) - 1); // the last column is never written: no wrap at the edge
    const height = Math.max(5, output.rows ?? 24);
    const now = Date.now();
    const overlay = this.overlay;
    const status = layout([this.status], width);
    let body: Row[];
    let footer: Row[];
    let scroll = 0;
    if (overlay?.kind === "choice") {
      body = layout(overlay.lines, width);
      footer = [...status, ...layout([line(overlay.prompt, "title")], width)];
    } else if (this.opened !== undefined) {
      body = this.requestRows(this.opened, width, now);
      footer = [...status, ...truncate([overlay === undefined ? line(REQUEST_KEYS, "dim") : promptLine(overlay, width)], width)];
      this.opened.scroll = Math.min(this.opened.scroll, maxScroll(body, height, footer.length));
      scroll = this.opened.scroll;
    } else {
      const title = line(`countersign approve · ${this.requests.length} pending · ${this.client.url} · as ${this.approver} · ${this.live ? "live" : "connecting…"}`, "title");
      body = truncate([title, line(""), ...listLines(this.requests, this.selected, now)], width);
      footer = [...status, ...truncate([line(LIST_KEYS, "dim")], width)];
      scroll = Math.max(0, this.selected + 3 - (height - footer.length)); // the selected row (after the title and a blank) in view
    }
    const text = frame(body, { width, height, scroll, footer, color: this.io.color });
    if (text === this.lastFrame) return;
    this.lastFrame = text;
    output.write(text);
  }
}

/** The text being typed, its end in view. */
function promptLine(overlay: Extract<Overlay, { kind: "input" }>, width: number): Line {
  const room = Math.max(1, width - overlay.label.length - 16);
  const chars = Array.from(overlay.text);
  const shown = chars.length > room ? "…" + chars.slice(-room + 1).join("") : overlay.text;
  return line(`${overlay.label}: ${shown}_  (Enter send · Esc cancel)`, "title");
}
