package bitpack

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// The bits tag grammar:
//
//	tag     = "-" | option { "," option }
//	option  = "range=" INT ".." INT | "bits=" N | "float" | "min=" FLOAT
//	        | "max=" FLOAT | "res=" FLOAT | "clamp" | "unit=" UNIT
//	        | "maxlen=" N | "quat" | "wxyz" | "xyzw" | "sparse" | "check=" NAME
//	        | "elem." option | "key." option
//
// No spaces, except inside a check name ("check=end of packet"). Integers
// use Go syntax (-100, 0x7f, 1_000); floats are parsed at the field's
// precision; a UNIT is a count, or a Go duration (1ms) on a time.Duration.
// "elem." and "key." address the elements (of a slice, array, map or
// pointer) and the keys (of a map): []string takes "maxlen=4,elem.maxlen=15",
// and prefixes nest ("elem.elem.maxlen=15"). Unprefixed options other
// than maxlen and sparse also reach elements, as they always have.
// parseTag checks the syntax and the combinations that are wrong whatever
// the field's type; whether an option applies to the field's type, and
// whether its numbers fit, is checked by its kind when the plan compiles
// (kind_*.go), which knows the type.

// tagOptions is a parsed bits tag. Numbers whose meaning depends on the
// field's type (range bounds, float bounds, units) stay as text until then;
// so do the elem. and key. options (parsed again where they apply), which
// keeps tagOptions comparable: plans are memoised by it.
type tagOptions struct {
	text string // the tag as written
	skip bool   // "-"

	rangeSet         bool
	rangeLo, rangeHi string

	bitsSet bool
	bits    int

	float          bool
	minSet, maxSet bool
	min, max, res  string
	resSet         bool
	clamp          bool
	unit           string // unit=: the text
	maxlenSet      bool
	maxlen         int
	quat, wxyz     bool
	xyzw           bool
	sparse         bool
	checkSet       bool
	check          string
	elem, key      string // the elem. and key. options, unprefixed, comma-joined
}

// isZero reports whether the tag carries no option at all.
func (o *tagOptions) isZero() bool { return o == nil || *o == tagOptions{text: o.text} }

// hasInt reports options aimed at integer leaves: range, or bits without quat.
func (o *tagOptions) hasInt() bool { return o.rangeSet || (o.bitsSet && !o.quat) }

// names lists the options present, for "does not apply" messages.
func (o *tagOptions) names() string {
	var n []string
	add := func(set bool, name string) {
		if set {
			n = append(n, name)
		}
	}
	add(o.rangeSet, "range")
	add(o.bitsSet, "bits")
	add(o.float, "float")
	add(o.clamp, "clamp")
	add(o.unit != "", "unit")
	add(o.maxlenSet, "maxlen")
	add(o.quat, "quat")
	add(o.wxyz, "wxyz")
	add(o.xyzw, "xyzw")
	add(o.sparse, "sparse")
	add(o.checkSet, "check")
	add(o.elem != "", "elem.")
	add(o.key != "", "key.")
	return strings.Join(n, ", ")
}

// elemOptions returns the options a container's elements take: its elem.
// options, with the unprefixed ones it hands down (all but maxlen,
// sparse and key.; see parseTag). An option given both ways is an error.
// keepMaxlen hands maxlen down too (arrays and pointers have no length of
// their own).
func (o *tagOptions) elemOptions(keepMaxlen bool) (*tagOptions, error) {
	down := *o
	down.sparse, down.key, down.elem = false, "", ""
	if !keepMaxlen {
		down.maxlenSet, down.maxlen = false, 0
	}
	if o.elem == "" {
		return &down, nil
	}
	e, err := parseTag(o.elem)
	if err != nil {
		return nil, fmt.Errorf("elem.: %v", err)
	}
	if e.skip {
		return nil, fmt.Errorf("elem.- does not skip elements; skip the field with bits:\"-\"")
	}
	if both := (tagOptions{rangeSet: down.rangeSet && e.rangeSet, bitsSet: down.bitsSet && e.bitsSet, float: down.float && e.float,
		clamp: down.clamp && e.clamp, quat: down.quat && e.quat, checkSet: down.checkSet && e.checkSet,
		maxlenSet: down.maxlenSet && e.maxlenSet}); both != (tagOptions{}) {
		return nil, fmt.Errorf("%s given both for the field and with the elem. prefix", both.names())
	}
	// Merge: the elem. options, plus the unprefixed ones handed down.
	merged := *e
	if down.rangeSet {
		merged.rangeSet, merged.rangeLo, merged.rangeHi = true, down.rangeLo, down.rangeHi
	}
	if down.bitsSet {
		merged.bitsSet, merged.bits = true, down.bits
	}
	if down.float {
		merged.float, merged.minSet, merged.maxSet, merged.resSet, merged.min, merged.max, merged.res = true, true, true, true, down.min, down.max, down.res
	}
	merged.clamp = merged.clamp || down.clamp
	if down.unit != "" {
		merged.unit = down.unit
	}
	merged.quat, merged.wxyz, merged.xyzw = merged.quat || down.quat, merged.wxyz || down.wxyz, merged.xyzw || down.xyzw
	if down.maxlenSet {
		merged.maxlenSet, merged.maxlen = true, down.maxlen
	}
	if down.checkSet {
		merged.checkSet, merged.check = true, down.check
	}
	merged.text = o.text
	return &merged, merged.validate()
}

// tagParsers parse one option each into o; value and hasValue are what
// follows its name.
var tagParsers = map[string]func(o *tagOptions, name, value string) error{
	"range": func(o *tagOptions, _, value string) error {
		lo, hi, ok := strings.Cut(value, "..")
		if !ok || lo == "" || hi == "" {
			return fmt.Errorf("range %q must be A..B", value)
		}
		for _, s := range []string{lo, hi} {
			if !isIntLiteral(s) {
				return fmt.Errorf("range bound %q is not an integer", s)
			}
		}
		o.rangeSet, o.rangeLo, o.rangeHi = true, lo, hi
		return nil
	},
	"bits": func(o *tagOptions, name, value string) (err error) {
		o.bitsSet = true
		o.bits, err = parseCount(name, value)
		return err
	},
	"maxlen": func(o *tagOptions, name, value string) (err error) {
		o.maxlenSet = true
		o.maxlen, err = parseCount(name, value)
		return err
	},
	"min": parseFloatOption, "max": parseFloatOption, "res": parseFloatOption,
	"unit": func(o *tagOptions, _, value string) error {
		o.unit = value // its meaning depends on the field: see appendInt
		return nil
	},
	"check": func(o *tagOptions, _, value string) error {
		for i := 0; i < len(value); i++ {
			if value[i] < 0x20 || value[i] > 0x7e {
				return fmt.Errorf("check name %q must be printable ASCII", value)
			}
		}
		o.checkSet, o.check = true, value
		return nil
	},
}

// tagFlags are the options that take no value.
var tagFlags = map[string]func(o *tagOptions){
	"float":  func(o *tagOptions) { o.float = true },
	"clamp":  func(o *tagOptions) { o.clamp = true },
	"quat":   func(o *tagOptions) { o.quat = true },
	"wxyz":   func(o *tagOptions) { o.wxyz = true },
	"xyzw":   func(o *tagOptions) { o.xyzw = true },
	"sparse": func(o *tagOptions) { o.sparse = true },
}

func parseFloatOption(o *tagOptions, name, value string) error {
	if _, err := strconv.ParseFloat(value, 64); err != nil {
		if isRangeErr(err) {
			return fmt.Errorf("%s=%s is not a finite number", name, value)
		}
		return fmt.Errorf("%s=%s is not a number", name, value)
	}
	switch name {
	case "min":
		o.min, o.minSet = value, true
	case "max":
		o.max, o.maxSet = value, true
	default:
		o.res, o.resSet = value, true
	}
	return nil
}

// parseTag parses the text of a bits tag. The error is a problem
// description; the caller wraps it in a TagError naming the field.
func parseTag(text string) (*tagOptions, error) {
	o := &tagOptions{text: text}
	if text == "" {
		return o, nil
	}
	if text == "-" {
		o.skip = true
		return o, nil
	}
	seen := map[string]bool{}
	var elem, key []string
	for _, opt := range strings.Split(text, ",") {
		if rest, ok := strings.CutPrefix(opt, "elem."); ok {
			elem = append(elem, rest)
			continue
		}
		if rest, ok := strings.CutPrefix(opt, "key."); ok {
			key = append(key, rest)
			continue
		}
		name, value, hasValue := strings.Cut(opt, "=")
		switch {
		case name == "":
			return nil, fmt.Errorf("empty option")
		case name != "check" && strings.ContainsAny(opt, " \t\n"):
			return nil, fmt.Errorf("option %q contains spaces", opt)
		case seen[name]:
			return nil, fmt.Errorf("option %q given twice", name)
		}
		seen[name] = true
		if set, ok := tagFlags[name]; ok {
			if hasValue {
				return nil, fmt.Errorf("option %q takes no value", name)
			}
			set(o)
			continue
		}
		parse, ok := tagParsers[name]
		if !ok {
			return nil, fmt.Errorf("unknown option %q", name)
		}
		if !hasValue || value == "" {
			return nil, fmt.Errorf("option %q needs a value (%s=...)", name, name)
		}
		if err := parse(o, name, value); err != nil {
			return nil, err
		}
	}
	for _, sub := range []struct {
		prefix string
		opts   []string
		into   *string
	}{{"elem.", elem, &o.elem}, {"key.", key, &o.key}} {
		if len(sub.opts) == 0 {
			continue
		}
		*sub.into = strings.Join(sub.opts, ",")
		if _, err := parseTag(*sub.into); err != nil {
			return nil, fmt.Errorf("%s: %v", sub.prefix, err)
		}
	}
	return o, o.validate()
}

// validate checks the combinations of options that are wrong whatever the
// field's type.
func (o *tagOptions) validate() error {
	if o.rangeSet && !rangeOrdered(o.rangeLo, o.rangeHi) {
		return fmt.Errorf("range %s..%s: A > B", o.rangeLo, o.rangeHi)
	}
	if o.float && !(o.minSet && o.maxSet && o.resSet) {
		return fmt.Errorf("float needs min=, max= and res=")
	}
	if o.float {
		// Checked here, whatever the field's precision, so the message
		// names the tag rather than a leaf it reached.
		min, _ := strconv.ParseFloat(o.min, 64)
		max, _ := strconv.ParseFloat(o.max, 64)
		res, _ := strconv.ParseFloat(o.res, 64)
		switch {
		case math.IsInf(min, 0) || math.IsInf(max, 0) || math.IsNaN(min) || math.IsNaN(max):
			return fmt.Errorf("min and max must be finite")
		case !(min < max):
			return fmt.Errorf("min must be < max")
		case math.IsInf(res, 0) || math.IsNaN(res) || !(res > 0):
			return fmt.Errorf("res must be finite and > 0")
		}
	}
	switch {
	case o.rangeSet && o.bitsSet && !o.quat:
		return fmt.Errorf("range and bits are alternatives; give one")
	case (o.minSet || o.maxSet || o.resSet) && !o.float:
		return fmt.Errorf("min, max and res belong to a compressed float: add \"float\"")
	case o.clamp && !o.float && !o.hasInt():
		return fmt.Errorf("clamp needs what to clamp to: a compressed float (float,min=,max=,res=) or an integer range (range= or bits=)")
	case o.unit != "" && !o.hasInt():
		return fmt.Errorf("unit=%s needs range= or bits= (in units) to say how the value travels", o.unit)
	case o.unit != "" && o.float:
		return fmt.Errorf("unit applies to integers; a compressed float has res")
	case o.quat && !o.bitsSet:
		return fmt.Errorf("quat needs bits= (bits per component, 4..22)")
	case o.quat && o.rangeSet:
		return fmt.Errorf("quat and range do not combine")
	case (o.wxyz || o.xyzw) && !o.quat:
		return fmt.Errorf("wxyz and xyzw belong to a quaternion: add quat,bits=B")
	case o.wxyz && o.xyzw:
		return fmt.Errorf("wxyz and xyzw are alternatives")
	}
	return nil
}

// rangeOrdered reports whether A <= B for two integer literals.
func rangeOrdered(a, b string) bool {
	if x, err := strconv.ParseInt(a, 0, 64); err == nil {
		if y, err := strconv.ParseInt(b, 0, 64); err == nil {
			return x <= y
		}
		return true // b only fits uint64: above every int64
	}
	x, _ := strconv.ParseUint(a, 0, 64)
	if y, err := strconv.ParseUint(b, 0, 64); err == nil {
		return x <= y
	}
	return false // a above MaxInt64, b negative
}

func isRangeErr(err error) bool {
	ne, ok := err.(*strconv.NumError)
	return ok && ne.Err == strconv.ErrRange
}

// isIntLiteral reports whether s parses as a Go integer literal of any
// size we support (int64 or uint64).
func isIntLiteral(s string) bool {
	if _, err := strconv.ParseInt(s, 0, 64); err == nil {
		return true
	}
	_, err := strconv.ParseUint(s, 0, 64)
	return err == nil
}

// parseCount parses a non-negative count (bits=, maxlen=).
func parseCount(name, s string) (int, error) {
	n, err := strconv.ParseInt(s, 0, 64)
	if err != nil || n < 0 || n > math.MaxInt32 {
		return 0, fmt.Errorf("%s=%s is not a count (0..%d)", name, s, math.MaxInt32)
	}
	return int(n), nil
}

// signedRange parses range=A..B for a signed integer of the given width;
// ok is false when a bound does not fit. (A <= B is checked by parseTag.)
func (o *tagOptions) signedRange(width int) (lo, hi int64, ok bool) {
	lo, err1 := strconv.ParseInt(o.rangeLo, 0, width)
	hi, err2 := strconv.ParseInt(o.rangeHi, 0, width)
	return lo, hi, err1 == nil && err2 == nil
}

// unsignedRange parses range=A..B for an unsigned integer of the given
// width; ok is false when a bound does not fit.
func (o *tagOptions) unsignedRange(width int) (lo, hi uint64, ok bool) {
	lo, err1 := strconv.ParseUint(o.rangeLo, 0, width)
	hi, err2 := strconv.ParseUint(o.rangeHi, 0, width)
	return lo, hi, err1 == nil && err2 == nil
}

// floatParams parses min, max and res at the given precision (32 or 64).
func (o *tagOptions) floatParams(width int) (min, max, res float64, err error) {
	parse := func(name, s string) (float64, error) {
		f, err := strconv.ParseFloat(s, width)
		if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
			return 0, fmt.Errorf("%s=%s is not a finite float%d", name, s, width)
		}
		return f, nil
	}
	if min, err = parse("min", o.min); err != nil {
		return
	}
	if max, err = parse("max", o.max); err != nil {
		return
	}
	if res, err = parse("res", o.res); err != nil {
		return
	}
	switch {
	case !(min < max):
		err = fmt.Errorf("min must be < max")
	case !(res > 0):
		err = fmt.Errorf("res must be > 0")
	}
	return
}
