// worker.js, ending itself when asked to translate "crash" (an exception
// outside any request) or "exit" (the thread ends), as a worker lost to a
// bug in the engine or the browser would; other requests it serves as is.
import { parentPort } from "node:worker_threads";
import "../../build/wasm/dist/worker.js";

parentPort.addEventListener("message", (event) => {
  const { op, args } = event.data;
  if (op !== "translate" || !["crash", "exit"].includes(args[0])) return;
  // worker.js never answers it: its listener comes after this one, once
  // its dynamic import of worker_threads resolves.
  event.stopImmediatePropagation();
  if (args[0] === "exit") process.exit(7);
  setTimeout(() => {
    throw new Error("lost");
  });
});
