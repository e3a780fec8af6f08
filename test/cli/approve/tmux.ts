// A real pseudo-terminal for the terminal approver's tests: a tmux server of the test's own
// (its own socket name, so nothing else's sessions are touched), keys sent as a person types
// them, and the screen read back as text.
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";

export class Tmux {
  private readonly socket = `countersign-test-${randomBytes(6).toString("hex")}`;

  /** Run `command` (argv) in a new session of `width` × `height` with `env`; the pane stays after it exits, to read its status. */
  start(command: string[], options: { env: NodeJS.ProcessEnv; cwd: string; width?: number; height?: number }): void {
    const { env, cwd, width = 120, height = 50 } = options;
    const line = ["exec", "env", ...Object.entries(env).map(([k, v]) => `${k}=${v}`), ...command].map(quote).join(" ");
    this.tmux(
      "-f",
      "/dev/null",
      "new-session",
      "-d",
      "-c",
      cwd,
      "-x",
      String(width),
      "-y",
      String(height),
      line,
      ";",
      "set-option",
      "remain-on-exit",
      "on",
    );
  }

  /** The screen as text, one row a line. */
  screen(): string {
    return this.tmux("capture-pane", "-p");
  }

  /** Keys by tmux name (Enter, Escape, BSpace) or single characters. */
  keys(...keys: string[]): void {
    this.tmux("send-keys", ...keys);
  }

  /** Text typed as it is. */
  type(text: string): void {
    this.tmux("send-keys", "-l", text);
  }

  /** A pane format value, e.g. #{pane_title} or #{pane_dead_status}. */
  format(name: string): string {
    return this.tmux("display-message", "-p", name).trim();
  }

  /** Wait until the screen satisfies `ready`, or fail with what it shows. */
  async waitFor(ready: (screen: string) => boolean, what: string, timeoutMs = 180_000): Promise<string> {
    // a stall guard: the first screen waits for a Node process to start
    const until = Date.now() + timeoutMs;
    for (;;) {
      const screen = this.screen();
      if (ready(screen)) return screen;
      if (Date.now() > until) throw new Error(`the screen never showed ${what}; it shows:\n${screen}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  async waitForText(text: string, timeoutMs?: number): Promise<string> {
    return this.waitFor((screen) => screen.includes(text), JSON.stringify(text), timeoutMs);
  }

  /**
   * The exit status of the pane's process, once it has exited. tmux sets it when it reaps the
   * process on SIGCHLD, and tmux built with libutempter can lose that signal: when the pane's pty
   * closes, tmux runs utempter's helper under utempter's own SIGCHLD handler, and a process whose
   * exit is signalled in that window (a large one tearing down its memory, on a loaded machine)
   * stays a zombie with no status for ever. A SIGCHLD sent to the server makes it reap again.
   */
  async exitStatus(timeoutMs = 60_000): Promise<string> {
    await this.waitFor(() => this.format("#{pane_dead}") === "1", "the process exiting", timeoutMs);
    const server = Number(this.format("#{pid}"));
    const until = Date.now() + timeoutMs;
    for (;;) {
      const status = this.format("#{pane_dead_status}");
      const signal = this.format("#{pane_dead_signal}");
      if (status !== "" || signal !== "") return status === "" ? `signal ${signal}` : status;
      if (Date.now() > until)
        throw new Error(`tmux never reaped the pane's process; the screen shows:\n${this.screen()}`);
      process.kill(server, "SIGCHLD");
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  kill(): void {
    try {
      this.tmux("kill-server");
    } catch {} // already gone
  }

  private tmux(...args: string[]): string {
    return execFileSync("tmux", ["-L", this.socket, ...args], { encoding: "utf8" });
  }
}

const quote = (s: string): string => (/^[A-Za-z0-9_./:=@+-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);
