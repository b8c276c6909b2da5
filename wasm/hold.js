// A translator's engine and its module, held until dispose().

// The engine and its module until dispose(). use(fn) runs fn against the
// engine. A JavaScript exception thrown inside it (a value Embind cannot
// convert) unwinds the wasm frames without restoring their stack pointer,
// so use() restores it, or each such call would leak wasm stack until the
// module fails for good. dispose() from inside a call (its onSentence)
// cannot free the engine under it: the call is told to stop at its next
// step (stopping()), and the engine is freed when it returns.
export function holdEngine(module, engine) {
  // Calls under way: onSentence may call the translator again (info(),
  // split()), so a count, not a flag, says when the engine is free.
  let depth = 0, disposeAfter = false;
  const free = () => {
    engine?.delete();
    module?.heedWorkers?.().forEach((w) => w.terminate());
    engine = null;
    module = null;
  };
  const live = () => {
    if (!engine) throw new Error("heed: this translator was disposed");
  };
  return {
    live,
    stopping: () => disposeAfter,
    heapBytes: () => module.heapBytes(),
    use(fn) {
      live();
      const held = module;
      const sp = held.stackSave();
      ++depth;
      try {
        return fn(engine);
      } finally {
        --depth;
        held.stackRestore(sp);
        if (disposeAfter && depth === 0) free();
      }
    },
    dispose() {
      if (depth > 0) disposeAfter = true;
      else free();
    },
  };
}
