/**
 * The code of a plugin worker thread (plain CommonJS, started with `eval: true` so that it runs
 * the same from src/ under a TypeScript loader and from dist/). It instantiates one Extism plugin
 * in the foreground of its own thread and then serves calls one at a time:
 *
 * - the host posts a message on the port and raises flag TO_WORKER; the worker sleeps in
 *   Atomics.wait on that flag between calls, so a call wakes it without a trip through its event
 *   loop;
 * - the worker answers the same way on flag TO_MAIN, which the host awaits with Atomics.waitAsync;
 * - a host function is a synchronous function in the worker that posts its request, raises
 *   TO_MAIN and sleeps until the host (which may take its time: fetch, file I/O) posts the response.
 *
 * A runaway plugin is stopped by terminating the thread.
 */
export const PLUGIN_WORKER_SOURCE = `
"use strict";
const { workerData, receiveMessageOnPort } = require("node:worker_threads");
const createPlugin = require(workerData.extism);
const { port, module, hostNames } = workerData;
const flags = new Int32Array(workerData.flags);
const TO_WORKER = 0;
const TO_MAIN = 1;
const send = (message) => {
  port.postMessage(message);
  Atomics.store(flags, TO_MAIN, 1);
  Atomics.notify(flags, TO_MAIN);
};
const receive = () => {
  Atomics.wait(flags, TO_WORKER, 0);
  Atomics.store(flags, TO_WORKER, 0);
  return receiveMessageOnPort(port).message;
};
const text = (err) => String((err && err.message) || err);
const user = {};
for (const name of hostNames) {
  user[name] = (context, offset) => {
    const request = context.read(offset);
    send({ kind: "host", name, request: request === null ? "null" : request.text() });
    return context.store(receive().response);
  };
}
(async () => {
  const plugin = await createPlugin({ wasm: [{ module }] }, { useWasi: false, runInWorker: false, functions: { "extism:host/user": user } });
  send({ kind: "ready" });
  for (;;) {
    const call = receive();
    try {
      const output = await plugin.call(call.fn, call.input);
      send({ kind: "done", output: output === null ? "" : output.text() });
    } catch (err) {
      send({ kind: "error", message: text(err) });
    }
  }
})().catch((err) => send({ kind: "fatal", message: text(err) }));
`;
