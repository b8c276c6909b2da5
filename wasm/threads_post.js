// Appended inside the threaded engine's factory: heed.js reaches the pool's
// workers through this, to let Node exit while they idle (unref) and to end
// them when a translator is disposed.
Module["heedWorkers"] = () => PThread.unusedWorkers.concat(PThread.runningWorkers);
