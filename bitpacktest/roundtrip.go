package bitpacktest

import (
	"bytes"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/bitpack-go/bitpack"
	"github.com/bitpack-go/bitpack/bitio"
	"github.com/google/go-cmp/cmp"
	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/prop"
)

// CheckRoundTrip checks bitpack's guarantees for T on generated values
// (Gen[T]), as four gopter properties:
//
//  1. Marshal accepts every value that satisfies T's tags.
//  2. Unmarshal(Marshal(x)) equals x, except that compressed floats come
//     back as their quantum, clamped integers at the nearer bound,
//     quaternions within the documented angle (4·√3·m/(2^b−2) radians,
//     package quant), and nil and empty slices (and maps) are equal.
//     Maps are compared entry by entry. Raw floats must keep every bit.
//  3. Marshal(Unmarshal(b)) == b for b = Marshal(x).
//  4. len(b) lies within the layout's bounds: at least MinBits and at most
//     MaxBits, each rounded up to whole bytes.
//
// Each property runs Count values (default 1000) from a seed fixed per
// type, or Seed's. A failure is shrunk to a small counterexample and
// reported with the seed and how to replay it.
func CheckRoundTrip[T any](t *testing.T, opts ...Option) {
	t.Helper()
	typ := reflect.TypeFor[T]()
	rep, err := runRoundTrip(typ, newConfig(typ, opts))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range rep.props {
		if p.result.Passed() {
			t.Logf("%s: passed %d tests (seed %d)", p.name, p.result.Succeeded, rep.seed)
		} else {
			t.Error(rep.message(p))
		}
	}
}

// propReport is one property's outcome.
type propReport struct {
	name   string
	result *gopter.TestResult
}

// roundTripReport is the outcome of the round-trip properties of a type.
type roundTripReport struct {
	typ   reflect.Type
	seed  int64
	props []propReport
	what  string // "round trip" or "delta"
}

// ReportTestResult implements gopter.Reporter.
func (r *roundTripReport) ReportTestResult(name string, result *gopter.TestResult) {
	r.props = append(r.props, propReport{name, result})
}

// failed returns the properties that did not pass.
func (r *roundTripReport) failed() []propReport {
	var out []propReport
	for _, p := range r.props {
		if !p.result.Passed() {
			out = append(out, p)
		}
	}
	return out
}

// message explains a failed property: what broke, the shrunk value and
// the original one, and how to replay the run.
func (r *roundTripReport) message(p propReport) string {
	res := p.result
	var b strings.Builder
	what := r.what
	if what == "" {
		what = "round trip"
	}
	fmt.Fprintf(&b, "bitpacktest: %s of %s: property %q ", what, r.typ, p.name)
	switch res.Status {
	case gopter.TestFailed:
		fmt.Fprintf(&b, "falsified after %d passed tests", res.Succeeded)
	case gopter.TestError:
		fmt.Fprintf(&b, "panicked after %d passed tests: %v", res.Succeeded, res.Error)
	default:
		fmt.Fprintf(&b, "gave up (%v) after %d passed tests", res.Status, res.Succeeded)
	}
	fmt.Fprintf(&b, " (seed %d; replay with bitpacktest.Seed(%d))\n", r.seed, r.seed)
	for _, l := range res.Labels {
		fmt.Fprintf(&b, "%s\n", l)
	}
	for _, a := range res.Args {
		fmt.Fprintf(&b, "value (shrunk %d times): %s\n", a.Shrinks, show(reflect.ValueOf(a.Arg)))
		if a.Shrinks > 0 {
			fmt.Fprintf(&b, "original value: %s\n", show(reflect.ValueOf(a.OrigArg)))
		}
	}
	if res.Status == gopter.TestError && len(res.ErrorStack) > 0 {
		fmt.Fprintf(&b, "%s\n", res.ErrorStack)
	}
	return strings.TrimRight(b.String(), "\n")
}

// runRoundTrip runs the round-trip properties of typ and reports every
// property's result.
func runRoundTrip(typ reflect.Type, cfg *config) (*roundTripReport, error) {
	m, err := compileModel(typ, cfg)
	if err != nil {
		return nil, err
	}
	c := newRoundTripper(m, cfg)
	params := gopter.DefaultTestParametersWithSeed(cfg.seed)
	params.MinSuccessfulTests = cfg.count
	props := gopter.NewProperties(params)
	g := m.gen(cfg)
	props.Property("Marshal accepts every valid value", prop.ForAll(c.marshals, g))
	props.Property("Unmarshal(Marshal(x)) == x", prop.ForAll(c.decodes, g))
	props.Property("Marshal(Unmarshal(b)) == b", prop.ForAll(c.reencodes, g))
	props.Property("len(Marshal(x)) within the layout's bounds", prop.ForAll(c.sized, g))
	rep := &roundTripReport{typ: typ, seed: cfg.seed}
	props.Run(rep)
	return rep, nil
}

// roundTripper holds what the properties share.
type roundTripper struct {
	m    *model
	opts []cmp.Option
}

func newRoundTripper(m *model, cfg *config) *roundTripper {
	return &roundTripper{m: m, opts: m.cmpOptions(cfg)}
}

// pointer returns a *T holding x.
func (c *roundTripper) pointer(x any) reflect.Value {
	p := reflect.New(c.m.typ)
	if x != nil {
		p.Elem().Set(reflect.ValueOf(x))
	}
	return p
}

// The properties return "" when they hold and an explanation otherwise
// (gopter records it as the failure's label).

func (c *roundTripper) marshals(x any) string {
	if _, err := bitpack.Marshal(c.pointer(x).Interface()); err != nil {
		return fmt.Sprintf("Marshal refused a value that satisfies the tags: %v", err)
	}
	return ""
}

func (c *roundTripper) decodes(x any) string {
	b, err := bitpack.Marshal(c.pointer(x).Interface())
	if err != nil {
		return fmt.Sprintf("Marshal: %v", err)
	}
	y := reflect.New(c.m.typ)
	if err := bitpack.Unmarshal(b, y.Interface()); err != nil {
		return fmt.Sprintf("Unmarshal refused Marshal's own packet %x: %v", b, err)
	}
	want := c.m.expected(reflect.ValueOf(x))
	if equal(c.m.root, want, y.Elem()) {
		return ""
	}
	if diff := cmp.Diff(want.Interface(), y.Elem().Interface(), c.opts...); diff != "" {
		return fmt.Sprintf("packet %x decodes to a different value (-want +got; want has compressed floats at their quantum):\n%s", b, diff)
	}
	return ""
}

func (c *roundTripper) reencodes(x any) string {
	b, err := bitpack.Marshal(c.pointer(x).Interface())
	if err != nil {
		return fmt.Sprintf("Marshal: %v", err)
	}
	y := reflect.New(c.m.typ)
	if err := bitpack.Unmarshal(b, y.Interface()); err != nil {
		return fmt.Sprintf("Unmarshal refused Marshal's own packet %x: %v", b, err)
	}
	return c.sameEncoding(b, y, false)
}

// sameEncoding checks that y, decoded from b, re-encodes to b. With
// padding set, the bits of b's last byte past the value's last bit do not
// count: they are padding, which a reader ignores.
func (c *roundTripper) sameEncoding(b []byte, y reflect.Value, padding bool) string {
	b2, err := bitpack.Marshal(y.Interface())
	if err != nil {
		return fmt.Sprintf("Marshal refused the value decoded from %x: %v\ndecoded value: %s", b, err, show(y.Elem()))
	}
	if bytes.Equal(b, b2) {
		return ""
	}
	if padding && len(b) == len(b2) {
		// Rare (the packet has non-zero padding): count the value's bits.
		var w bitio.Writer
		w.Reset(nil)
		if bitpack.Encode(&w, y.Interface()) == nil && equalBits(b, b2, w.BitsWritten()) {
			return ""
		}
	}
	return fmt.Sprintf("packet %x decodes to a value that re-encodes as %x\ndecoded value: %s", b, b2, show(y.Elem()))
}

// equalBits reports whether a and b have the same length and the same
// first used bits.
func equalBits(a, b []byte, used int) bool {
	if len(a) != len(b) {
		return false
	}
	if len(a) == 0 {
		return true
	}
	last := len(a) - 1
	if !bytes.Equal(a[:last], b[:last]) {
		return false
	}
	mask := byte(0xff)
	if r := used - 8*last; r > 0 && r < 8 {
		mask = 1<<r - 1
	}
	return a[last]&mask == b[last]&mask
}

func (c *roundTripper) sized(x any) string {
	b, err := bitpack.Marshal(c.pointer(x).Interface())
	if err != nil {
		return fmt.Sprintf("Marshal: %v", err)
	}
	l := c.m.layout
	lo, hi := (l.MinBits+7)/8, (l.MaxBits+7)/8
	if len(b) < lo || (l.MaxBits >= 0 && len(b) > hi) {
		return fmt.Sprintf("packet of %d bytes (%x) is outside the layout's %d..%d bits (%d..%d bytes)", len(b), b, l.MinBits, l.MaxBits, lo, hi)
	}
	return ""
}
