// driver.mjs: runs the TypeScript side of package gen's cross-language
// tests (see driver_cases.ts): one answer per line of standard input.
import { readFileSync } from "node:fs";
import { answer } from "./cases.js";

const lines = readFileSync(0, "utf8").split("\n");
if (lines[lines.length - 1] === "") {
  lines.pop();
}
const out = lines.map(answer);
process.stdout.write(out.join("\n") + "\n");
