// The arena's page: reads the server's snapshot stream with the client
// bitpack generated for world.World (net.ts), draws the entities and the
// bandwidth, and acknowledges every packet it reads.

import { WorldReceiver, crc32, writeWorld } from "./net.js";
import type { World } from "./net.js";

/** The server's snapshot History (main.go's History). */
const history = 64;
/** The arena's side, in world units (world.Size): a canvas pixel each. */
const size = 640;
const colors = ["#e6194b", "#3cb44b", "#4363d8", "#f58231"];

/** What the page exposes to its test (arena_test.go), and to a curious console. */
interface Arena {
  packets: number; // packets read
  refused: number; // packets refused
  errors: string[]; // why
  tick(): number; // the view's Tick, -1 before the first packet
  hex(): string; // the view's full encoding (writeWorld), hex
}

declare global {
  interface Window {
    arena: Arena;
  }
}

const receiver = new WorldReceiver(history);
let view: World | null = null; // the receiver's: valid until its history evicts it, and never changed here
const arena: Arena = {
  packets: 0,
  refused: 0,
  errors: [],
  tick: () => (view === null ? -1 : view.Tick),
  hex: () => (view === null ? "" : Array.from(writeWorld(view), (b) => b.toString(16).padStart(2, "0")).join("")),
};
window.arena = arena;

// Bandwidth: the bytes a second of the packets read, measured every
// quarter second, over the last 30 seconds.
const rates: number[] = [];
let bytes = 0;
setInterval(() => {
  rates.push(bytes * 4);
  bytes = 0;
  if (rates.length > 120) {
    rates.shift();
  }
}, 250);

const ws = new WebSocket((location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/ws");
ws.binaryType = "arraybuffer";
ws.onmessage = (ev: MessageEvent<ArrayBuffer>) => {
  const packet = new Uint8Array(ev.data);
  bytes += packet.length;
  try {
    const got = receiver.read(packet);
    view = got.value;
    arena.packets++;
    // The ack: the sequence, and the CRC-32 of the view's full encoding,
    // which the server checks against the view it meant.
    const ack = new Uint8Array(6);
    const dv = new DataView(ack.buffer);
    dv.setUint16(0, got.seq, true);
    dv.setUint32(2, crc32(0, writeWorld(got.value)), true);
    ws.send(ack);
  } catch (e) {
    arena.refused++;
    arena.errors.push(e instanceof Error ? e.message : String(e));
  }
};
ws.onclose = () => {
  status("disconnected");
};

function status(text: string): void {
  const el = document.getElementById("status");
  if (el !== null) {
    el.textContent = text;
  }
}

function draw(): void {
  const a = (document.getElementById("world") as HTMLCanvasElement | null)?.getContext("2d");
  const b = (document.getElementById("bandwidth") as HTMLCanvasElement | null)?.getContext("2d");
  if (a && view !== null) {
    a.clearRect(0, 0, size, size);
    for (const e of view.Entities) {
      if (e === null) {
        continue;
      }
      const r = 3 + (e.HP / 100) * 6;
      a.fillStyle = colors[e.Kind] ?? "#fff";
      a.beginPath();
      a.arc(e.X, size - e.Y, r, 0, 2 * Math.PI);
      a.fill();
      a.strokeStyle = "#ddd";
      a.beginPath();
      a.moveTo(e.X, size - e.Y);
      a.lineTo(e.X + Math.cos(e.Heading) * (r + 2 * e.Speed), size - e.Y - Math.sin(e.Heading) * (r + 2 * e.Speed));
      a.stroke();
    }
  }
  if (b) {
    const w = 640;
    const h = 120;
    b.clearRect(0, 0, w, h);
    const top = Math.max(1024, ...rates);
    b.strokeStyle = "#7fdbff";
    b.beginPath();
    rates.forEach((v, i) => {
      const x = (i / 119) * (w - 1);
      const y = h - 4 - (v / top) * (h - 24);
      if (i === 0) {
        b.moveTo(x, y);
      } else {
        b.lineTo(x, y);
      }
    });
    b.stroke();
    b.fillStyle = "#ddd";
    const last = rates.length > 0 ? rates[rates.length - 1]! : 0;
    b.fillText("bandwidth " + (last / 1024).toFixed(2) + " KiB/s (scale " + (top / 1024).toFixed(1) + " KiB/s)", 8, 14);
  }
  status("tick " + arena.tick() + ", " + arena.packets + " packets read, " + arena.refused + " refused, ack " + receiver.ack);
  requestAnimationFrame(draw);
}
requestAnimationFrame(draw);
