// bench.mjs: the TypeScript part of gen's performance report
// (perf_test.go), next to the compiled perf.js. It reads and writes the
// reference packet n times each way and prints one row of the report: ns
// per packet.
import { BitReader, BitWriter, newBenchPacket, readBenchPacket, readBenchPacketFrom, writeBenchPacket, writeBenchPacketTo } from "./perf.js";

const packet = new Uint8Array([/*PACKET*/]);
const n = Number(process.argv[2] || 1000000);
const hex = (p) => Array.from(p, (b) => b.toString(16).padStart(2, "0")).join("");

const v = readBenchPacket(packet);
if (hex(writeBenchPacket(v)) !== hex(packet)) {
  console.error("the packet written back differs");
  process.exit(1);
}

function time(f) {
  for (let i = 0; i < n / 10; i++) {
    f();
  }
  const start = process.hrtime.bigint();
  for (let i = 0; i < n; i++) {
    f();
  }
  return (Number(process.hrtime.bigint() - start) / n).toFixed(0);
}

const again = newBenchPacket();
const w = new BitWriter(256);
let sink = 0;
const read = time(() => {
  sink += readBenchPacket(packet).Health;
});
const readAgain = time(() => {
  const r = new BitReader(packet);
  if (!readBenchPacketFrom(r, again) || !r.finish()) {
    throw r.error("BenchPacket");
  }
});
const write = time(() => {
  sink += writeBenchPacket(v).length;
});
const writeAgain = time(() => {
  w.reset();
  if (!writeBenchPacketTo(w, v)) {
    throw w.error("BenchPacket");
  }
});
console.log(`| TypeScript (node ${process.version}; readT; readTFrom; writeT; writeTTo) | ${read} | ${readAgain} | ${write} | ${writeAgain} |`);
if (sink < 0) {
  console.log(sink);
}
