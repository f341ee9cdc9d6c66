// bench.mjs: the TypeScript part of gen's performance report
// (perf_test.go), next to the compiled perf.js and the generated
// hostile.mjs. It reads and writes the reference packet n times each way
// and prints one row of the report: ns per packet. Run as "bench.mjs
// hostile rounds", it prints the hostile packets' rows instead
// (perf_hostile_test.go).
import { BitReader, BitWriter, newBenchPacket, readBenchPacket, readBenchPacketFrom, writeBenchPacket, writeBenchPacketTo } from "./perf.js";
import { cases, readSnapshot } from "./hostile.mjs";

// cpuMicros is the process's CPU time (user and system), in µs: the
// machine is shared, and wall time counts the other work (node has no
// clock of one thread's; its GC helpers' time counts here too).
function cpuMicros() {
  const u = process.cpuUsage();
  return u.user + u.system;
}

// hostile prints a row for each hostile case: its cost as a multiple of a
// decode of the snapshot, the median of rounds alternating k of each,
// timed in CPU time.
function hostile(rounds) {
  const k = 16;
  let snap = 0;
  for (const c of cases) {
    const accepted = c.read();
    const ratios = [];
    for (let r = 0; r < rounds; r++) {
      const start = cpuMicros();
      for (let i = 0; i < k; i++) {
        readSnapshot();
      }
      const mid = cpuMicros();
      for (let i = 0; i < k; i++) {
        c.read();
      }
      const end = cpuMicros();
      ratios.push((end - mid) / (mid - start));
      snap += (1000 * (mid - start)) / k;
    }
    ratios.sort((a, b) => a - b);
    console.log(`| TypeScript | ${c.name} | ${c.bytes} | ${accepted ? "accepted" : "refused"} | ${ratios[rounds >> 1].toFixed(2)} (${ratios[0].toFixed(2)}-${ratios[rounds - 1].toFixed(2)}) |`);
  }
  console.log(`| TypeScript | the snapshot | - | ${(snap / (rounds * cases.length)).toFixed(0)} ns a decode | 1 |`);
}

if (process.argv[2] === "hostile") {
  hostile(Number(process.argv[3]));
  process.exit(0);
}

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
