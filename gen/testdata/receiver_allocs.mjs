// receiver_allocs.mjs: counts the objects the generated WorldReceiver
// allocates per packet once warm (receiver_test.go). Standard input is
// the packets of one stream, hex, one a line; the first half warms the
// receiver up (its history fills), the second is counted. It prints one
// JSON line: the objects per packet counted for the receiver and for
// readWorldDelta on the same deltas (which builds a new world each time,
// the control), the most frequent allocation sites, and the last view
// (writeWorld, hex).
//
// Counting: V8's sampling heap profiler with a mean interval of one byte
// samples every allocation, collected ones included. Run with --jitless
// (no optimizer to remove allocations, so the count is the code's own),
// every number the interpreter computes is a 16-byte heap number; those
// are left out, and so is what the script itself allocates: an object is
// a sample of more than 16 bytes made under a function of world.js.
import { Session } from "node:inspector";
import { readFileSync } from "node:fs";
import * as t from "./world.js";

const packets = readFileSync(0, "utf8")
  .trim()
  .split("\n")
  .map((h) => Uint8Array.from(h.match(/../g), (x) => parseInt(x, 16)));
const warm = packets.length >> 1;

const session = new Session();
session.connect();
const post = (method, params) =>
  new Promise((resolve, reject) => session.post(method, params, (err, res) => (err ? reject(err) : resolve(res))));
await post("HeapProfiler.enable");

const hex = (p) => Array.from(p, (b) => b.toString(16).padStart(2, "0")).join("");

// count runs step over the counted packets and returns the objects made
// per packet and the busiest sites.
async function count(step) {
  await post("HeapProfiler.startSampling", {
    samplingInterval: 1,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  });
  for (let i = warm; i < packets.length; i++) {
    step(packets[i]);
  }
  const { profile } = await post("HeapProfiler.stopSampling");
  const stacks = new Map();
  const walk = (node, stack) => {
    const frame = node.callFrame.functionName + "@" + node.callFrame.url.split("/").pop();
    const s = [...stack, frame];
    stacks.set(node.id, s);
    node.children.forEach((c) => walk(c, s));
  };
  walk(profile.head, []);
  let objects = 0;
  const sites = new Map();
  for (const sample of profile.samples) {
    const stack = stacks.get(sample.nodeId);
    if (sample.size <= 16 || !stack.some((f) => f.endsWith("@world.js"))) {
      continue;
    }
    objects++;
    const site = stack.slice(-2).join(" < ") + " (" + sample.size + " bytes)";
    sites.set(site, (sites.get(site) ?? 0) + 1);
  }
  const top = [...sites].sort((a, b) => b[1] - a[1]).slice(0, 8);
  return { perPacket: objects / (packets.length - warm), top };
}

const receiver = new t.WorldReceiver(16);
let last = null;
for (let i = 0; i < warm; i++) {
  last = receiver.read(packets[i]).value;
}
const counted = await count((p) => {
  last = receiver.read(p).value;
});

// The control: each packet's delta (after its 7-byte header: every packet
// of this stream builds on the one before) applied by readWorldDelta.
let world = t.newWorld();
for (let i = 0; i < warm; i++) {
  world = t.readWorldDelta(packets[i].subarray(packets[i][2] === 0 ? 11 : 7), world);
}
const control = await count((p) => {
  world = t.readWorldDelta(p.subarray(7), world);
});

process.stdout.write(
  JSON.stringify({ receiver: counted, control, view: hex(t.writeWorld(last)), controlView: hex(t.writeWorld(world)) }) + "\n",
);
