// Word-level difference of two translations (longest common subsequence),
// to mark what switching heads off changed.

/**
 * Returns, for each of `a` and `b`, its words with `changed` set on those
 * outside the longest common subsequence of the two.
 */
export function diffWords(a, b) {
  const x = a.split(/\s+/).filter(Boolean), y = b.split(/\s+/).filter(Boolean);
  const n = x.length, m = y.length;
  // lcs[i][j]: length of the LCS of x[i..] and y[j..].
  const lcs = Array.from({ length: n + 1 }, () => new Uint16Array(m + 1));
  for (let i = n - 1; i >= 0; --i) {
    for (let j = m - 1; j >= 0; --j) {
      lcs[i][j] = x[i] === y[j] ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
    }
  }
  const left = x.map((word) => ({ word, changed: true }));
  const right = y.map((word) => ({ word, changed: true }));
  for (let i = 0, j = 0; i < n && j < m;) {
    if (x[i] === y[j]) {
      left[i++].changed = false;
      right[j++].changed = false;
    } else if (lcs[i + 1][j] >= lcs[i][j + 1]) {
      ++i;
    } else {
      ++j;
    }
  }
  return [left, right];
}

/**
 * Writes `text` into `el` with the words that differ from `other` marked
 * (none when `other` is null), followed by its score.
 */
export function markDiff(el, text, score, other) {
  const words = other === null ? text.split(/\s+/).filter(Boolean).map((word) => ({ word, changed: false }))
    : diffWords(other, text)[1];
  el.replaceChildren(...words.flatMap(({ word, changed }, i) => {
    const node = changed ? Object.assign(document.createElement("mark"), { textContent: word })
      : document.createTextNode(word);
    return i ? [document.createTextNode(" "), node] : [node];
  }), Object.assign(document.createElement("small"), { className: "muted", textContent: `  (score ${score.toFixed(3)})` }));
}
