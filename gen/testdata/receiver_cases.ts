// receiver_cases.ts: the TypeScript side of gen's snapshot receiver tests
// (receiver_test.go), type-checked with the module gen.TypeScript
// generated for internal/snapcorpus's World (world.ts). One answer per
// command:
//
//	new H        a new WorldReceiver(H) ("-": no argument): its ack, or the error it throws
//	read HEX     read the packet: ok SEQ VIEW ack A (VIEW: writeWorld of the view, hex), or refused CATEGORY MESSAGE ack A
//	view HEX     the same, the packet a subarray of a larger buffer of other bytes
//	reset        reset(): ack A

import * as t from "./world.js";

// The categories of snapcorpus.Category, by kind.
const categories: Record<t.BitpackErrorKind, string> = {
  NoBase: "no-base",
  Overflow: "overflow",
  Range: "range",
  Padding: "padding",
  InvalidString: "invalid-string",
  Trailing: "trailing",
  Check: "check",
};

function hex(p: Uint8Array): string {
  let s = "";
  for (let i = 0; i < p.length; i++) {
    s += p[i]!.toString(16).padStart(2, "0");
  }
  return s;
}

function bytes(s: string): Uint8Array {
  const p = new Uint8Array(s.length / 2);
  for (let i = 0; i < p.length; i++) {
    p[i] = parseInt(s.slice(2 * i, 2 * i + 2), 16);
  }
  return p;
}

/** p as a view into the middle of a larger buffer whose other bytes are not the packet's. */
function inside(p: Uint8Array): Uint8Array {
  const big = new Uint8Array(p.length + 11).fill(0xa5);
  big.set(p, 5);
  return big.subarray(5, 5 + p.length);
}

let receiver = new t.WorldReceiver();

export function answer(line: string): string {
  const [cmd, arg] = line.split(" ");
  switch (cmd) {
    case "new":
      try {
        receiver = arg === "-" ? new t.WorldReceiver() : new t.WorldReceiver(Number(arg));
        return "ack " + receiver.ack;
      } catch (e) {
        return "throws " + (e instanceof Error ? e.message : String(e));
      }
    case "reset":
      receiver.reset();
      return "ack " + receiver.ack;
    case "read":
    case "view": {
      const p = bytes(arg ?? "");
      try {
        const got = receiver.read(cmd === "view" ? inside(p) : p);
        return "ok " + got.seq + " " + hex(t.writeWorld(got.value)) + " ack " + receiver.ack;
      } catch (e) {
        if (!(e instanceof t.BitpackError)) {
          throw e;
        }
        return "refused " + categories[e.kind] + " " + e.message + " ack " + receiver.ack;
      }
    }
  }
  return "BADCOMMAND " + line;
}
