// Package snapshot sends a game world to each client as a stream of
// packets: each a delta (bitpack's AppendDelta) from a view of the world
// the client acknowledged, within a byte budget, the entities that matter
// most to that client first, and only those it may see. It is everything
// between a bitpack Codec and the socket that a server and its clients
// would otherwise write by hand: the per-client history of what was sent,
// the choice of base, the identity of that base, the client's ring of
// views and its ack.
//
//	opts := snapshot.Options[World]{Budget: 1200, Entities: []string{"Players", "Crates"}}
//	sender, _ := snapshot.NewSender(opts)     // the server: one per client
//	receiver, _ := snapshot.NewReceiver(opts) // the client
//
//	packet, err := sender.Append(buf[:0], &world) // every tick, at most 1200 bytes
//	seq, err := receiver.Read(packet, &view)      // view is now what the server meant it to be
//	sender.Ack(receiver.Ack())                    // the ack travels in the client's input packets
//
// The wire format — the header, and how a Receiver decides what to accept
// — is specified in docs/wire.md ("Snapshot streams"), precisely enough
// for a Receiver in another language; internal/snapcorpus records a
// stream for such a Receiver to replay.
//
// # The model
//
// For each client the Sender keeps views: what that client holds after
// applying a packet. A packet is a header and a delta from the newest view
// the client acknowledged (the zero value of T before any ack) to a target
// view: the acknowledged view with the world's non-entity fields, and
// with the entities chosen for this packet set to their current values.
// The Sender records each packet under its sequence; an Ack makes its
// view the base of later packets. Entities not chosen keep the
// acknowledged view's value, and their accumulated priority grows, so
// that they win a later packet. Entities a client may not see are absent
// from its views (a nil slot, a missing key): one that leaves relevance
// is removed, one that enters travels whole.
//
// Every view is something the client can rebuild exactly whatever was
// lost, duplicated or reordered on the way: the Sender does not keep the
// target views it builds but the packets, and on Ack it decodes the
// acknowledged packet on its base as the client did. Its views are the
// client's to the bit — quantized by the decoding, so an entity holds the
// value the client decoded, never a value the client could not have.
//
// # Base identity
//
// Each view has an id, the CRC-32 of the packet that produced it; the
// packet's header holds its base's id, so ids chain back to the stream's
// zero base, whose id comes from a per-stream random value (Options.Stream)
// that the packets from it carry. A Receiver applies a packet only to the
// view it holds under the base's sequence and only if that view's id is
// the header's: a wrong base — another client's stream with the same
// sequences, a view evicted and replaced, a damaged base reference, a
// packet of a stream from before a reconnect — passes with probability
// 2^-32, and is otherwise refused with ErrNoBase. The id is computed from
// the packet's bytes, so it costs a CRC of each packet, not an encoding
// of the view.
//
// # The budget and the priority accumulator
//
// With Options.Budget set, no packet exceeds it. The entities that differ
// from the acknowledged view are the candidates; each packet, each gains
// its priority (Options.Priority, 1 by default) in an accumulator, and
// the packet carries the candidates of highest accumulated priority that
// fit, whose accumulators start again from nothing — Glenn Fiedler's
// priority accumulator. An entity of priority 4 is sent about four times
// as often as one of priority 1; with equal priorities the candidates
// take turns. Removals (entities gone from the world or from relevance)
// and the non-entity fields go in every packet, before any entity; if
// they alone cannot fit, Append fails naming the budget. A new client's
// world arrives over several packets, highest priority first; at rest (the
// world equal to the acknowledged view) a packet is 8 bytes.
//
// To fit the budget without encoding the packet many times, the Sender
// expects each entity to take what its kind (entering whole, or changing)
// took lately, learned from the packets it sent, chooses what that fills
// with a margin, and encodes once; if that comes out too big, which the
// margin makes rare, it takes the lowest-priority entities out and
// encodes again. A packet where the budget binds costs less than the one
// it would be without the budget (it encodes less).
//
// While acks lag by r packets, the r packets in flight build on bases
// that lack each other's content, so a world larger than a packet takes
// up to about r times as many packets to arrive as it would with acks at
// once; the Sender resends what a lost packet carried (it is a candidate
// until a view that holds it is acknowledged). Once the world stops
// changing, a client converges on it within 2·⌈D/(Budget−16)⌉+8 packets
// under 10% loss each way, D the size of the delta from its newest view
// (TestLossyChannel and TestConvergenceProperty check it).
//
// # Relevance
//
// Options.Relevant is asked about every entity of the world, every packet.
// A view never holds an entity Relevant rejected for that packet (the
// removal goes in the packet whatever the budget), and an entity that
// becomes relevant is a candidate like any change: it appears with its
// current value, at its priority, within the bound above. A client learns
// nothing of an irrelevant entity but that its slot or key is empty.
//
// # Costs
//
// An entity is a candidate when it differs in memory from the view's
// (strings and slices of plain data by content): quantize the world once
// per tick (bitpack's Codec.Quantize) for all clients, and an entity that
// did not move is found with one comparison. A world that is not quantized
// works too: the Sender remembers, for entities of plain data, the raw
// value it sent and what it decoded to, so a still entity is not sent
// again; entities holding pointers, maps or interfaces cannot be compared
// in memory and are candidates whenever relevant (their deltas still send
// only what changed, but under a binding budget they take turns with the
// entities that did change). A map set costs a few map operations per
// entry per packet; a sparse array, a comparison per slot.
//
// Append allocates nothing once its history is full. Ack decodes the
// acknowledged packet into a view it no longer needs (in place on the base
// when nothing else needs that), and Read into the slot of the view it
// evicts; docs/performance.md has the measurements.
//
// # Beyond the stream
//
// Sender.Stats reports the last packet (its size, entities sent, removed
// and waiting, the age of the stalest) and the stream's counts, for a
// server's metrics and for examples/udpsnap's chart. Sender.Reset and
// Receiver.Reset start over after a reconnect: the Sender draws a new
// stream value and goes on numbering (so that the old stream's Acks are
// told from the new one's), the Receiver forgets its views and refuses
// the streams it left. Sender.View and Receiver.View decode a view the
// stream holds, for tests and tools. Options.Stream makes a stream
// reproducible.
//
// A Sender and a Receiver are not safe for concurrent use: a server keeps
// a Sender per client, and may run different clients' Senders in
// parallel (Options.Priority and Options.Relevant must then allow it).
package snapshot
