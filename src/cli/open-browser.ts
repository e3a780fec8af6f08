import { spawn } from "node:child_process";

/**
 * The command that opens a URL on this machine: $BROWSER when set (the first of a `:` list),
 * else the desktop's opener when there is a desktop; null over SSH or on a server.
 */
export function browserCommand(env: NodeJS.ProcessEnv, platform: NodeJS.Platform = process.platform): string | null {
  const chosen = env.BROWSER?.split(":")[0]?.trim();
  if (chosen) return chosen;
  if (platform === "darwin") return "open";
  if (platform === "win32") return null; // `start` is a shell built-in: the printed link is enough
  return env.DISPLAY || env.WAYLAND_DISPLAY ? "xdg-open" : null;
}

/**
 * Open `url` in the background; true when a browser was started (a failure to start it is no error: the link is
 * printed).
 */
export function openBrowser(url: string, env: NodeJS.ProcessEnv): Promise<boolean> {
  const command = browserCommand(env);
  if (command === null) return Promise.resolve(false);
  return new Promise((resolve) => {
    const child = spawn(command, [url], { detached: true, stdio: "ignore", env });
    child.once("error", () => resolve(false));
    child.once("spawn", () => {
      child.unref();
      resolve(true);
    });
  });
}
