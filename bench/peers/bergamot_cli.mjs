// Translates stdin, one sentence per line, with Bergamot's WebAssembly
// engine and a model from models/recipe/marian.py export:
//   node bench/peers/bergamot_cli.mjs DIR de [--batch 32] [--beam 1]
//       [--precision float32] < in > out
// Each line is one sentence (config.yml's ssplit-mode), prefixed with the
// model's language tag, "<2de> ".
import { readFileSync } from "node:fs";
import { loadBergamot } from "./bergamot.mjs";

const [dir, to, ...rest] = process.argv.slice(2);
const flag = (name, fallback) => {
  const i = rest.indexOf(name);
  return i >= 0 ? rest[i + 1] : fallback;
};
const batch = Number(flag("--batch", "32"));
const beam = flag("--beam", "1");
const precision = flag("--precision", undefined);  // config.yml's: int8shiftAll
const lines = readFileSync(0, "utf8").split("\n");
if (lines.at(-1) === "") lines.pop();
const bergamot = await loadBergamot({
  dir, config: { "beam-size": beam, ...(precision ? { "gemm-precision": precision } : {}) },
});
try {
  for (let i = 0; i < lines.length; i += batch) {
    const out = await bergamot.translate(lines.slice(i, i + batch).map((s) => `<2${to}> ${s}`));
    process.stdout.write(out.map((s) => s.replace(/\n/g, " ")).join("\n") + "\n");
  }
} finally {
  await bergamot.close();
}
