// The helpers of the web-platform-tests' ai/resources/util.js that the
// ai/translator tests use, ported to this harness (testharness.js here).
// Changes: readStream and kTestPrompt2, used by the concurrent tests, are
// defined here (heed: their definitions were not at hand).

const kValidAvailabilities = ["unavailable", "downloadable", "downloading", "available"];
const kTestPrompt = "Please write a sentence in English.";
const kTestPrompt2 = "A dog runs in the park.";  // heed: a second, different input

// heed: a stream's chunks, joined.
async function readStream(stream) {
  let text = "";
  for await (const chunk of stream) text += chunk;
  return text;
}

// method(signal) returns a promise: aborting rejects it with an AbortError,
// or with the reason given; so does a second call with the aborted signal.
async function testAbortPromise(t, method) {
  {
    const controller = new AbortController();
    const promise = method(controller.signal);
    controller.abort();
    await promise_rejects_dom(t, "AbortError", promise);
    const anotherPromise = method(controller.signal);
    await promise_rejects_dom(t, "AbortError", anotherPromise);
  }
  {
    const err = new Error("test");
    const controller = new AbortController();
    const promise = method(controller.signal);
    controller.abort(err);
    await promise_rejects_exactly(t, err, promise);
    const anotherPromise = method(controller.signal);
    await promise_rejects_exactly(t, err, anotherPromise);
  }
}

// Aborts create() on its downloadprogress event at `loadedToAbortAt`: it
// rejects with the reason, and no second event with that value comes.
async function testCreateMonitorWithAbortAt(t, loadedToAbortAt, method, options = {}) {
  const { promise: eventPromise, resolve } = Promise.withResolvers();
  let hadEvent = false;
  function monitor(m) {
    m.addEventListener("downloadprogress", (e) => {
      if (e.loaded != loadedToAbortAt) return;
      if (hadEvent) {
        assert_unreached("This should never be reached since the create() operation was aborted.");
        return;
      }
      resolve();
      hadEvent = true;
    });
  }
  const controller = new AbortController();
  const createPromise = method({ ...options, monitor, signal: controller.signal });
  await eventPromise;
  const err = new Error("test");
  controller.abort(err);
  await promise_rejects_exactly(t, err, createPromise);
}

async function testCreateMonitorWithAbort(t, method, options = {}) {
  await testCreateMonitorWithAbortAt(t, 0, method, options);
  await testCreateMonitorWithAbortAt(t, 1, method, options);
}

// create() fires downloadprogress: at least two events, 0 first and 1 last,
// each lengthComputable with total 1, loaded in steps of 1/65536 and
// rising, and none after create() resolves.
async function testMonitor(createFunc, options = {}) {
  let created = false;
  const progressEvents = [];
  function monitor(m) {
    m.addEventListener("downloadprogress", (e) => {
      assert_false(created);
      progressEvents.push(e);
    });
  }
  const result = await createFunc({ ...options, monitor });
  created = true;
  assert_greater_than_equal(progressEvents.length, 2);
  assert_equals(progressEvents.at(0).loaded, 0);
  assert_equals(progressEvents.at(-1).loaded, 1);
  let lastProgressEventLoaded = -1;
  for (const progressEvent of progressEvents) {
    assert_equals(progressEvent.lengthComputable, true);
    assert_equals(progressEvent.total, 1);
    assert_less_than_equal(progressEvent.loaded, progressEvent.total);
    assert_equals(progressEvent.loaded % (1 / 0x10000), 0);
    assert_greater_than(progressEvent.loaded, lastProgressEventLoaded);
    lastProgressEventLoaded = progressEvent.loaded;
  }
  return result;
}

// A monitor callback that throws makes create() reject with what it threw.
async function testCreateMonitorCallbackThrowsError(t, createFunc, options = {}) {
  const error = new Error("CreateMonitorCallback threw an error");
  function monitor(m) {
    m.addEventListener("downloadprogress", () => {
      assert_unreached("This should never be reached since monitor throws an error.");
    });
    throw error;
  }
  await promise_rejects_exactly(t, error, createFunc({ ...options, monitor }));
}

// destroy() rejects the calls under way and every later one with an AbortError.
async function testDestroy(t, createMethod, options, instanceMethods) {
  const instance = await createMethod(options);
  const promises = instanceMethods.map((method) => method(instance));
  instance.destroy();
  promises.push(...instanceMethods.map((method) => method(instance)));
  for (const promise of promises) await promise_rejects_dom(t, "AbortError", promise);
}

// Aborting create()'s signal after it resolved destroys the instance with
// the signal's reason.
async function testCreateAbort(t, createMethod, options, instanceMethods) {
  const controller = new AbortController();
  const instance = await createMethod({ ...options, signal: controller.signal });
  const promises = instanceMethods.map((method) => method(instance));
  const error = new Error("The create abort signal was aborted.");
  controller.abort(error);
  promises.push(...instanceMethods.map((method) => method(instance)));
  for (const promise of promises) await promise_rejects_exactly(t, error, promise);
}
