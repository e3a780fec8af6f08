import { Kind, MAX_MESSAGE_BYTES, openChannel, TO_MAIN, TO_WORKER } from "./plugin-channel.js";

/**
 * The code of a plugin worker thread (plain CommonJS, started with `eval: true` so that it runs
 * the same from src/ under a TypeScript loader and from dist/). It instantiates one Extism plugin
 * in the foreground of its own thread and then serves calls one at a time over the channel of
 * plugin-channel.ts:
 *
 * - the host writes a message and raises flag TO_WORKER; the worker sleeps in Atomics.wait on
 *   that flag between calls, so a call wakes it without a trip through its event loop;
 * - the worker answers the same way on flag TO_MAIN, which the host awaits with Atomics.waitAsync;
 * - a host function is a synchronous function in the worker that writes its request, raises
 *   TO_MAIN and sleeps until the host (which may take its time: fetch, file I/O) writes the response.
 *
 * Every call starts with Extism's call state reset (its memory blocks are never freed otherwise,
 * and run out after some thousands of calls). A `freshCall` first replaces a plugin instance that
 * has served calls with a new one, so that nothing a plugin kept (globals, linear memory, Extism
 * variables) reaches a call of another scope. A runaway plugin is stopped by terminating the thread.
 */
export const PLUGIN_WORKER_SOURCE = `
"use strict";
const { workerData } = require("node:worker_threads");
const createPlugin = require(workerData.extism);
const { module, hostNames } = workerData;
const Kind = ${JSON.stringify(Kind)};
const channel = (${openChannel.toString()})(workerData.channel);
const flags = channel.flags;
const send = (kind, parts) => {
  if (!channel.write(kind, parts)) throw new Error("a message to the host is larger than ${MAX_MESSAGE_BYTES} bytes");
  Atomics.store(flags, ${TO_MAIN}, 1);
  Atomics.notify(flags, ${TO_MAIN});
};
// A wake-up proves nothing: the host's notify for a message already taken may arrive late, while
// the worker waits for the next one. Only the flag says that a message is there.
const receive = () => {
  while (Atomics.exchange(flags, ${TO_WORKER}, 0) === 0) Atomics.wait(flags, ${TO_WORKER}, 0);
  return channel.read();
};
const text = (err) => String((err && err.message) || err);
const user = {};
for (const name of hostNames) {
  user[name] = (context, offset) => {
    const request = context.read(offset);
    send(Kind.host, [name, request === null ? "null" : request.text()]);
    return context.store(receive().parts[0]);
  };
}
const instantiate = () => createPlugin({ wasm: [{ module }] }, { useWasi: false, runInWorker: false, functions: { "extism:host/user": user } });
(async () => {
  let plugin = await instantiate();
  let used = false;
  send(Kind.ready, []);
  for (;;) {
    const { kind, parts } = receive();
    try {
      if (kind === Kind.freshCall && used) {
        await plugin.close();
        plugin = await instantiate();
      }
      used = true;
      await plugin.reset();
      const output = await plugin.call(parts[0], parts[1]);
      send(Kind.done, [output === null ? "" : output.text()]);
    } catch (err) {
      send(Kind.error, [text(err)]);
    }
  }
})().catch((err) => send(Kind.fatal, [text(err)]));
`;
