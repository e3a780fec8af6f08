// threadModule: a compiled thread starts from the .js beside its starter; one started from src/
// from the .ts, with tsx's loader preloaded, whatever flags it was given.
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import { describe, expect, it } from "vitest";
import { threadModule } from "../../src/model/thread-module.js";

const PRELOAD = new URL("../../src/model/tsx-in-thread.mjs", import.meta.url).href;

/** The first message of a worker started with `args`, or its error. */
function firstMessage(args: [URL, ConstructorParameters<typeof Worker>[1]]): Promise<unknown> {
  const worker = new Worker(...args);
  return new Promise<unknown>((resolve, reject) => {
    worker.once("message", resolve);
    worker.once("error", reject);
  }).finally(() => worker.terminate());
}

describe("threadModule", () => {
  it("compiled: the .js file beside the caller, with the options as given", () => {
    const options = { workerData: { n: 1 }, execArgv: [] };
    const [url, given] = threadModule(
      "file:///pkg/dist/src/store/wal-checkpointer.js",
      "./wal-checkpointer-thread",
      options,
    );
    expect(url.href).toBe("file:///pkg/dist/src/store/wal-checkpointer-thread.js");
    expect(given).toBe(options);
  });

  it("from src/: the .ts file, with the preload after the flags given, or the parent's", () => {
    const [url, given] = threadModule("file:///pkg/src/store/wal-checkpointer.ts", "./wal-checkpointer-thread", {
      execArgv: [],
      workerData: 1,
    });
    expect(url.href).toBe("file:///pkg/src/store/wal-checkpointer-thread.ts");
    expect(given).toEqual({ execArgv: ["--import", PRELOAD], workerData: 1 });
    expect(threadModule(import.meta.url, "./x", {})[1].execArgv).toEqual([...process.execArgv, "--import", PRELOAD]);
    expect(existsSync(fileURLToPath(PRELOAD))).toBe(true);
  });

  it("starts a TypeScript module from src/ with its workerData and resource limits, with or without the parent's flags", async () => {
    const resourceLimits = { maxOldGenerationSizeMb: 48 };
    expect(
      await firstMessage(threadModule(import.meta.url, "./typed-thread", { workerData: { n: 21 }, resourceLimits })),
    ).toEqual({ doubled: 42, maxOldGenerationSizeMb: 48 });
    expect(
      await firstMessage(
        threadModule(import.meta.url, "./typed-thread", { execArgv: [], workerData: { n: 2 }, resourceLimits }),
      ),
    ).toEqual({ doubled: 4, maxOldGenerationSizeMb: 48 });
  });

  it("without the preload, the same module does not load: the loader is what the preload brings", async () => {
    await expect(
      firstMessage([new URL("./typed-thread.ts", import.meta.url), { execArgv: [], workerData: { n: 1 } }]),
    ).rejects.toMatchObject({ code: "ERR_UNKNOWN_FILE_EXTENSION" });
  });
});
