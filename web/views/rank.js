// Rank correlation, to say how well two rankings of the same items agree.

// Ranks of xs from 0, ties given their average rank.
function ranks(xs) {
  const order = xs.map((_, i) => i).sort((a, b) => xs[a] - xs[b]);
  const r = new Array(xs.length);
  for (let i = 0; i < order.length;) {
    let j = i;
    while (j + 1 < order.length && xs[order[j + 1]] === xs[order[i]]) ++j;
    for (let k = i; k <= j; ++k) r[order[k]] = (i + j) / 2;
    i = j + 1;
  }
  return r;
}

/** Spearman's ρ of xs and ys (Pearson's of their ranks); null where either is constant. */
export function spearman(xs, ys) {
  const a = ranks(xs), b = ranks(ys), n = a.length;
  const ma = a.reduce((s, v) => s + v, 0) / n, mb = b.reduce((s, v) => s + v, 0) / n;
  let sab = 0, saa = 0, sbb = 0;
  for (let i = 0; i < n; ++i) {
    sab += (a[i] - ma) * (b[i] - mb);
    saa += (a[i] - ma) ** 2;
    sbb += (b[i] - mb) ** 2;
  }
  return saa > 0 && sbb > 0 ? sab / Math.sqrt(saa * sbb) : null;
}
