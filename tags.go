package bitpack

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// The bits tag grammar (SPEC §6):
//
//	tag     = "-" | option { "," option }
//	option  = "range=" INT ".." INT | "bits=" N | "float" | "min=" FLOAT
//	        | "max=" FLOAT | "res=" FLOAT | "clamp" | "maxlen=" N
//	        | "quat" | "sparse" | "check=" NAME
//
// No spaces, except inside a check name ("check=end of packet"). Integers use Go syntax (-100, 0x7f, 1_000); floats are parsed
// at the field's precision. parseTag checks the syntax and the combinations
// that are wrong whatever the field's type; whether an option applies to
// the field's type, and whether its numbers fit, is checked by the plan
// compiler (cache.go), which knows the type.

// tagOptions is a parsed bits tag. Numbers whose meaning depends on the
// field's type (range bounds, float bounds) stay as text until then.
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
	maxlenSet      bool
	maxlen         int
	quat, sparse   bool
	checkSet       bool
	check          string
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
	add(o.maxlenSet, "maxlen")
	add(o.quat, "quat")
	add(o.sparse, "sparse")
	add(o.checkSet, "check")
	return strings.Join(n, ", ")
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
	for _, opt := range strings.Split(text, ",") {
		name, value, hasValue := strings.Cut(opt, "=")
		if name == "" {
			return nil, fmt.Errorf("empty option")
		}
		if name != "check" && strings.ContainsAny(opt, " \t\n") {
			return nil, fmt.Errorf("option %q contains spaces", opt)
		}
		if seen[name] {
			return nil, fmt.Errorf("option %q given twice", name)
		}
		seen[name] = true
		needValue := func() error {
			if !hasValue || value == "" {
				return fmt.Errorf("option %q needs a value (%s=...)", name, name)
			}
			return nil
		}
		noValue := func() error {
			if hasValue {
				return fmt.Errorf("option %q takes no value", name)
			}
			return nil
		}
		var err error
		switch name {
		case "range":
			if err = needValue(); err != nil {
				return nil, err
			}
			lo, hi, ok := strings.Cut(value, "..")
			if !ok || lo == "" || hi == "" {
				return nil, fmt.Errorf("range %q must be A..B", value)
			}
			for _, s := range []string{lo, hi} {
				if !isIntLiteral(s) {
					return nil, fmt.Errorf("range bound %q is not an integer", s)
				}
			}
			o.rangeSet, o.rangeLo, o.rangeHi = true, lo, hi
		case "bits":
			if err = needValue(); err != nil {
				return nil, err
			}
			if o.bits, err = parseCount(name, value); err != nil {
				return nil, err
			}
			o.bitsSet = true
		case "maxlen":
			if err = needValue(); err != nil {
				return nil, err
			}
			if o.maxlen, err = parseCount(name, value); err != nil {
				return nil, err
			}
			o.maxlenSet = true
		case "min", "max", "res":
			if err = needValue(); err != nil {
				return nil, err
			}
			if _, perr := strconv.ParseFloat(value, 64); perr != nil {
				if isRangeErr(perr) {
					return nil, fmt.Errorf("%s=%s is not a finite number", name, value)
				}
				return nil, fmt.Errorf("%s=%s is not a number", name, value)
			}
			switch name {
			case "min":
				o.min, o.minSet = value, true
			case "max":
				o.max, o.maxSet = value, true
			case "res":
				o.res, o.resSet = value, true
			}
		case "float":
			err = noValue()
			o.float = true
		case "clamp":
			err = noValue()
			o.clamp = true
		case "quat":
			err = noValue()
			o.quat = true
		case "sparse":
			err = noValue()
			o.sparse = true
		case "check":
			if err = needValue(); err != nil {
				return nil, err
			}
			for i := 0; i < len(value); i++ {
				if value[i] < 0x20 || value[i] > 0x7e {
					return nil, fmt.Errorf("check name %q must be printable ASCII", value)
				}
			}
			o.checkSet, o.check = true, value
		default:
			return nil, fmt.Errorf("unknown option %q", name)
		}
		if err != nil {
			return nil, err
		}
	}
	if o.rangeSet && !rangeOrdered(o.rangeLo, o.rangeHi) {
		return nil, fmt.Errorf("range %s..%s: A > B", o.rangeLo, o.rangeHi)
	}
	if o.float && !(o.minSet && o.maxSet && o.resSet) {
		return nil, fmt.Errorf("float needs min=, max= and res=")
	}
	if o.float {
		// Checked here, whatever the field's precision, so the message
		// names the tag rather than a leaf it reached.
		min, _ := strconv.ParseFloat(o.min, 64)
		max, _ := strconv.ParseFloat(o.max, 64)
		res, _ := strconv.ParseFloat(o.res, 64)
		switch {
		case math.IsInf(min, 0) || math.IsInf(max, 0) || math.IsNaN(min) || math.IsNaN(max):
			return nil, fmt.Errorf("min and max must be finite")
		case !(min < max):
			return nil, fmt.Errorf("min must be < max")
		case math.IsInf(res, 0) || math.IsNaN(res) || !(res > 0):
			return nil, fmt.Errorf("res must be finite and > 0")
		}
	}
	switch {
	case o.rangeSet && o.bitsSet && !o.quat:
		return nil, fmt.Errorf("range and bits are alternatives; give one")
	case (o.minSet || o.maxSet || o.resSet || o.clamp) && !o.float:
		return nil, fmt.Errorf("min, max, res and clamp belong to a compressed float: add \"float\"")
	case o.quat && !o.bitsSet:
		return nil, fmt.Errorf("quat needs bits= (bits per component, 4..22)")
	case o.quat && o.rangeSet:
		return nil, fmt.Errorf("quat and range do not combine")
	}
	return o, nil
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
