// The native CLI as the JavaScript tests' reference.
import { execFileSync } from "node:child_process";
import { join } from "node:path";

const root = new URL("..", import.meta.url).pathname;
export const heed = join(root, "build/release/heed");

// The SIMD targets the native build dispatches to on this CPU, best first.
export function nativeTargets(model) {
  return execFileSync(heed, ["info", "--model", model]).toString()
    .match(/^simd: .*\(this CPU and build: (.*)\)$/m)[1].split(" ");
}

// What `heed info` says of a model: its parameters, file bytes and config.
export function nativeModelInfo(model) {
  const info = execFileSync(heed, ["info", "--model", model]).toString();
  return {
    parameters: Number(/^parameters: (\d+)$/m.exec(info)[1]),
    bytes: Number(/\((\d+) bytes\)/.exec(info)[1]),
    config: JSON.parse(/^config: (\{[\s\S]*?^\})$/m.exec(info)[1]),
  };
}

// The --simd flags that give the native build the WebAssembly module's int8
// arithmetic (8-bit activations, int16 products): SSE4 where the CPU has
// it, since AVX2 rounds activations to 7 bits.
export function wasmArithmetic(model) {
  return nativeTargets(model).includes("SSE4") ? ["--simd", "SSE4"] : [];
}
