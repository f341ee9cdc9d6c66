package snapshot

import (
	"fmt"
	"slices"

	"github.com/bitpack-go/bitpack"
)

// Fitting a budget. The delta encoder is the only thing that knows what an
// entity costs, and running it is what a packet costs, so the Sender runs
// it as few times as it can:
//
//   - no budget, or a packet expected to fit whole: one encoding of every
//     candidate (as without a budget);
//   - a budget that binds: one encoding of the skeleton (the non-entity
//     fields and the removals, whose entity slots are the base's own
//     pointers, which the encoder passes over), then the candidates in
//     order of accumulated priority until their expected bits fill what
//     is left, and one encoding of that; if it came out too big (rare: the
//     expectation keeps a margin), the lowest-priority entities come out
//     and it is encoded again.
//
// An entity's expected bits are its set's bound (entering whole, with its
// index) scaled by a ratio learned from the packets sent: what the
// entities took, over what their bounds said. Entering and changing
// entities learn their own ratios: a change sends differences, often a
// fraction of the entity.

// fill is the part of the room left after the skeleton the expected bits
// of the chosen entities may take: the margin makes a second encoding
// rare.
const fill = 0.92

// planner holds what the Sender learned of its entities' sizes.
type planner struct {
	ratio [][2]float64 // per set: entering, changing
	raw   []float64    // per set: its bound, in bits
	share []float64    // learn's scratch: per set and kind
	skel  int          // bits of the last skeleton measured; -1: none yet
}

func (p *planner) init(sets []*entitySet) {
	p.ratio = make([][2]float64, len(sets))
	p.raw = make([]float64, len(sets))
	p.share = make([]float64, 2*len(sets))
	for i, s := range sets {
		p.ratio[i] = [2]float64{1, 1}
		whole := s.wholeBits
		if whole < 0 {
			whole = 256 // unbounded: a guess the ratio corrects
		}
		p.raw[i] = float64(whole + 8) // its index: most take a few bits
	}
	p.skel = -1
}

// kind is the ratio a candidate uses: 0 entering, 1 changing.
func kind(c *cand) int {
	if c.enter {
		return 0
	}
	return 1
}

// estimate returns c's expected bits.
func (p *planner) estimate(c *cand) float64 {
	return p.raw[c.set] * p.ratio[c.set][kind(c)]
}

// learn moves the ratios of the chosen entities' kinds towards what they
// took: got bits where est were expected. Each kind moves by its share of
// the expectation, so that a packet of mostly entering crates teaches
// what crates cost and little else.
func (p *planner) learn(cands []cand, got, est float64) {
	if est <= 0 || got <= 0 {
		return
	}
	share := p.share
	clear(share)
	for i := range cands {
		if c := &cands[i]; c.chosen {
			share[2*int(c.set)+kind(c)] += c.est / est
		}
	}
	g := got / est
	for i, f := range share {
		if f > 0 {
			r := &p.ratio[i/2][i%2]
			*r = max(0.02, min(4, *r*(1+0.5*f*(g-1))))
		}
	}
}

// build appends the delta of the next packet to dst (which holds its
// header, hsize bytes) and returns it.
func (s *Sender[T]) build(dst []byte, world, base *T, hsize int) ([]byte, error) {
	removed := s.scan(world, base)
	s.stats.Removed, s.stats.Encodes = removed, 0
	budget := s.opts.Budget
	if budget == 0 {
		for i := range s.cands {
			s.choose(&s.cands[i], world, true)
		}
		return s.encode(dst, base, world)
	}
	// Accumulate: every waiting entity gains its priority.
	total := 0.0
	for i := range s.cands {
		c := &s.cands[i]
		st := &s.states[c.set]
		prio := 1.0
		if s.opts.Priority != nil {
			prio = s.opts.Priority(world, Entity{Field: s.sets[c.set].path, Key: c.key})
		}
		if !(prio > 0) {
			prio = 0 // negative or NaN: it gains nothing
		}
		c.acc = st.ents[c.state].acc + prio
		c.est = s.plan.estimate(c)
		total += c.est
	}
	room := float64(8 * (budget - hsize))
	if s.plan.skel >= 0 && float64(s.plan.skel)+total <= fill*room {
		for i := range s.cands {
			s.choose(&s.cands[i], world, true)
		}
		out, err := s.encode(dst, base, world)
		if err != nil || len(out) <= budget {
			if err == nil {
				s.plan.learn(s.cands, float64(8*(len(out)-len(dst))-s.plan.skel), total)
			}
			return out, err
		}
		for i := range s.cands {
			s.choose(&s.cands[i], world, false)
		}
	}
	// The budget binds: measure the skeleton.
	skel, err := s.encode(s.scratch[:0], base, world)
	if err != nil {
		return dst, err
	}
	s.scratch = skel
	s.plan.skel = 8 * len(skel)
	if hsize+len(skel) > budget {
		return dst, fmt.Errorf("snapshot: packet %d: its header, non-entity fields and %d removals take %d bytes, more than Budget %d: %w",
			s.seq, removed, hsize+len(skel), budget, bitpack.ErrRange)
	}
	left := room - float64(s.plan.skel)
	n := selectTop(s.cands, fill*left)
	if n == 0 && len(s.cands) > 0 {
		n = 1 // the first always tries: an estimate must not starve it
	}
	est, sorted := 0.0, false
	for i := range n {
		s.choose(&s.cands[i], world, true)
		est += s.cands[i].est
	}
	for {
		out, err := s.encode(dst, base, world)
		if err != nil {
			return dst, err
		}
		if len(out) <= budget {
			s.plan.learn(s.cands, float64(8*(len(out)-len(dst))-s.plan.skel), est)
			return out, nil
		}
		if n == 1 {
			c := &s.cands[0]
			return dst, fmt.Errorf("snapshot: packet %d: entity %s[%d] alone makes it %d bytes, more than Budget %d: %w",
				s.seq, s.sets[c.set].path, c.key, len(out), budget, bitpack.ErrRange)
		}
		// Too big: take out the lowest-priority entities the excess is
		// expected to need, at least one, and encode again.
		if !sorted {
			slices.SortFunc(s.cands[:n], order)
			sorted = true
		}
		over := float64(8 * (len(out) - budget))
		for n > 1 && over > 0 {
			n--
			c := &s.cands[n]
			s.choose(c, world, false)
			over -= c.est
			est -= c.est
		}
	}
}

// encode appends the delta from base to the target to dst.
func (s *Sender[T]) encode(dst []byte, base, world *T) ([]byte, error) {
	s.buildMaps()
	s.stats.Encodes++
	out, err := s.codec.AppendDelta(dst, base, &s.target)
	if err != nil {
		return dst, fmt.Errorf("snapshot: packet %d: %w", s.seq, err)
	}
	return out, nil
}

// settle updates the entities' accumulators after a packet: those it
// carried start again from nothing, the others keep what they gathered.
func (s *Sender[T]) settle() {
	waiting, stalest := 0, 0
	sent := 0
	for i := range s.cands {
		c := &s.cands[i]
		e := &s.states[c.set].ents[c.state]
		if e.idle { // it changed since the last packet: current until then
			e.since, e.idle = s.seq-1, false
		}
		if c.chosen {
			e.acc, e.since = 0, s.seq
			sent++
			continue
		}
		e.acc = c.acc
		waiting++
		stalest = max(stalest, int(s.seq-e.since))
	}
	s.stats.Sent, s.stats.Waiting, s.stats.Stalest = sent, waiting, stalest
}

// selectTop reorders cands so that the first n are those of highest
// accumulated priority (ties broken by set and key, so that the choice
// depends on nothing but the candidates) whose expected bits add up to at
// most room, and returns n. It runs in expected linear time: a quickselect
// that keeps the side of the pivot that still fits.
func selectTop(cands []cand, room float64) int {
	taken := 0
	lo, hi := 0, len(cands) // cands[:lo] are taken; cands[lo:hi] are undecided
	for lo < hi {
		// Partition cands[lo:hi] around a pivot: those before it first.
		p := median3(cands, lo, lo+(hi-lo)/2, hi-1)
		cands[p], cands[hi-1] = cands[hi-1], cands[p]
		pivot := &cands[hi-1]
		m := lo
		sum := 0.0
		for i := lo; i < hi-1; i++ {
			if before(&cands[i], pivot) {
				cands[i], cands[m] = cands[m], cands[i]
				sum += cands[m].est
				m++
			}
		}
		cands[m], cands[hi-1] = cands[hi-1], cands[m] // the pivot, at m
		if sum > room {
			hi = m // the answer is among those before the pivot
			continue
		}
		room -= sum
		taken = m
		if cands[m].est > room {
			return taken
		}
		room -= cands[m].est
		taken = m + 1
		lo = m + 1
	}
	return taken
}

// before orders candidates: higher accumulated priority first, then by
// set and key.
func before(a, b *cand) bool {
	if a.acc != b.acc {
		return a.acc > b.acc
	}
	if a.set != b.set {
		return a.set < b.set
	}
	return a.key < b.key
}

// order is before as a comparison function.
func order(a, b cand) int {
	switch {
	case before(&a, &b):
		return -1
	case before(&b, &a):
		return 1
	}
	return 0
}

// median3 returns the index of the median of three candidates.
func median3(c []cand, i, j, k int) int {
	if before(&c[j], &c[i]) {
		i, j = j, i
	}
	if before(&c[k], &c[j]) {
		j = k
		if before(&c[j], &c[i]) {
			j = i
		}
	}
	return j
}

// checkBudget refuses a budget some packet could never fit.
func checkBudget(budget int, layout bitpack.Layout, sets []*entitySet) error {
	if budget == 0 {
		return nil
	}
	// The first packets are from the zero base: its header is the
	// largest.
	hsize := zeroHeader
	if budget < hsize+1 {
		return fmt.Errorf("snapshot: Budget %d: a packet from the zero base is at least %d bytes (an %d-byte header and a delta)", budget, hsize+1, hsize)
	}
	// The root's items: one changed bit each, and the packet's own.
	items := 1 + countItems(layout.Root)
	// The non-entity fields, at their largest, from the zero base.
	rest := layout.Root.MaxBits
	for _, s := range sets {
		if rest >= 0 {
			rest -= s.layout.MaxBits
		}
	}
	if rest >= 0 {
		if need := hsize + (items+rest+7)/8; need > budget {
			return fmt.Errorf("snapshot: Budget %d: the non-entity fields of %s take up to %d bytes with the header", budget, layout.Type, need)
		}
	}
	for _, s := range sets {
		if s.wholeBits < 0 || s.overheadBits < 0 {
			return fmt.Errorf("snapshot: Budget %d: entities of %s have no bound on their size (a hook or a recursive type), so no budget can be sure to fit one",
				budget, s.path)
		}
		if need := hsize + (items+s.overheadBits+s.wholeBits+7)/8; need > budget {
			return fmt.Errorf("snapshot: Budget %d: one entity of %s, entering alone, takes up to %d bytes with the header", budget, s.path, need)
		}
	}
	return nil
}

// countItems counts f's leaves (structs flattened, arrays one each): the
// changed bits of its delta are at most that many.
func countItems(f *bitpack.Field) int {
	if f.Kind != bitpack.KindStruct {
		return 1
	}
	n := 0
	for _, c := range f.Fields {
		n += countItems(c)
	}
	return n
}
