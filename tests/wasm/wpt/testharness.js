// A small stand-in for the web-platform-tests' testharness.js, enough for
// the ported ai/translator and ai/language_detection tests (nothing is
// fetched from elsewhere): promise_test() queues a test, runTests() runs
// them one after another, each assertion is counted, and an error thrown
// outside a test's promise while it runs (an event listener's) fails that
// test, as in WPT.
"use strict";
(() => {
  const tests = [];
  const stats = { assertions: 0, passed: 0 };
  let current = null;

  const show = (v) => {
    try {
      return typeof v === "string" ? JSON.stringify(v) : String(v);
    } catch {
      return Object.prototype.toString.call(v);
    }
  };

  function check(ok, message, note) {
    ++stats.assertions;
    if (!ok) {
      const e = new Error(note ? `${message}: ${note}` : message);
      e.name = "AssertionError";
      throw e;
    }
    ++stats.passed;
  }

  // Passes when the promise rejects with what `ok` accepts.
  async function rejects(promise, ok, what, note) {
    let error;
    try {
      await promise;
    } catch (e) {
      error = { e };
    }
    if (!error) return check(false, `expected a rejection with ${what}, but it resolved`, note);
    const { e } = error;
    return check(ok(e), `expected a rejection with ${what}, got ${e?.name}: ${e?.message ?? show(e)}`, note);
  }

  Object.assign(self, {
    promise_test(fn, name) {
      tests.push({ fn, name });
    },
    assert_true: (v, note) => check(v === true, `assert_true: got ${show(v)}`, note),
    assert_false: (v, note) => check(v === false, `assert_false: got ${show(v)}`, note),
    assert_equals: (got, want, note) => check(Object.is(got, want), `expected ${show(want)}, got ${show(got)}`, note),
    assert_not_equals: (got, other, note) => check(!Object.is(got, other), `got ${show(got)}, which it must not be`, note),
    assert_array_equals: (got, want, note) => check(
      got?.length === want.length && want.every((v, i) => Object.is(got[i], v)),
      `expected [${Array.from(want, show)}], got [${Array.from(got ?? [], show)}]`, note),
    assert_greater_than: (a, b, note) => check(typeof a === "number" && a > b, `expected a number > ${b}, got ${show(a)}`, note),
    assert_greater_than_equal: (a, b, note) => check(typeof a === "number" && a >= b, `expected a number >= ${b}, got ${show(a)}`, note),
    assert_less_than: (a, b, note) => check(typeof a === "number" && a < b, `expected a number < ${b}, got ${show(a)}`, note),
    assert_less_than_equal: (a, b, note) => check(typeof a === "number" && a <= b, `expected a number <= ${b}, got ${show(a)}`, note),
    assert_in_array: (v, list, note) => check(list.includes(v), `${show(v)} is not in [${list.map(show)}]`, note),
    assert_unreached: (note) => check(false, "reached unreachable code", note),
    promise_rejects_js: (t, type, promise, note) =>
      rejects(promise, (e) => e?.constructor === type, type.name, note),
    promise_rejects_dom: (t, name, promise, note) =>
      rejects(promise, (e) => e instanceof DOMException && e.constructor === DOMException && e.name === name, `DOMException ${name}`, note),
    promise_rejects_exactly: (t, value, promise, note) => rejects(promise, (e) => e === value, show(value), note),
    promise_rejects_quotaexceedederror: (t, promise, requested, quota, note) => rejects(promise, (e) =>
      e instanceof QuotaExceededError && e.name === "QuotaExceededError" && e.quota === quota &&
      (typeof requested === "function" ? requested(e.requested) : e.requested === requested),
    `QuotaExceededError (quota ${quota})`, note),
  });

  const fail = (text) => current?.errors.push(text);
  self.addEventListener("error", (e) => fail(`uncaught ${e.error?.name ?? "error"}: ${e.error?.message ?? e.message}`));
  self.addEventListener("unhandledrejection", (e) => fail(`unhandled rejection: ${e.reason?.name}: ${e.reason?.message ?? show(e.reason)}`));

  // Runs the queued tests in order: { results: [{ name, status, errors,
  // assertions, passed }], assertions, passed }.
  self.runTests = async (timeoutMs = 60000) => {
    const results = [];
    for (const { fn, name } of tests) {
      current = { errors: [] };
      const before = { ...stats };
      let timer;
      const timeout = new Promise((resolve, reject) => {
        timer = setTimeout(() => reject(new Error(`timed out after ${timeoutMs} ms`)), timeoutMs);
      });
      try {
        await Promise.race([fn({ name }), timeout]);
      } catch (e) {
        fail(`${e?.name}: ${e?.message ?? show(e)}`);
      }
      clearTimeout(timer);
      await new Promise((resolve) => setTimeout(resolve, 50));  // what the test left running reports now
      results.push({ name, status: current.errors.length ? "FAIL" : "PASS", errors: current.errors,
                     assertions: stats.assertions - before.assertions, passed: stats.passed - before.passed });
    }
    current = null;
    return { results, ...stats };
  };
})();
