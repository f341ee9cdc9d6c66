// Package code holds what several renderers print alike: the preamble of
// a generated client file, the path expressions of error messages and
// string literals in the syntax C# and TypeScript share, the names of the
// generated loop variables, and the table of printable characters Go's
// quoting uses.
package code

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/bitpack-go/bitpack/internal/rules"
	"github.com/bitpack-go/bitpack/internal/snapwire"
)

// PathExpr is the expression of a value's field path for an error
// message: its model path (Players[].Pos.X) with the loop indices in
// place of each [], e.g. "Players[" + i0 + "].Pos.X". The syntax is the
// same in C# and TypeScript.
func PathExpr(path string, idx []string) string {
	parts := strings.Split(path, "[]")
	if len(parts)-1 != len(idx) {
		panic(fmt.Sprintf("gen: path %q has %d indices, %d loop variables", path, len(parts)-1, len(idx)))
	}
	if len(idx) == 0 {
		return strconv.Quote(path)
	}
	var b strings.Builder
	for k, p := range parts {
		if k > 0 {
			fmt.Fprintf(&b, " + %s + ", idx[k-1])
			p = "]" + p
		}
		if k < len(parts)-1 {
			p += "["
		}
		b.WriteString(strconv.Quote(p))
	}
	return b.String()
}

// Quote is a C# or TypeScript string literal of s.
func Quote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, "\\u%04x", r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// RuntimeEnd closes the runtime part of a C# or TypeScript file.
const RuntimeEnd = "// ---------------------------------------------------------------------------"

// PrintableRanges is the table of characters Go's strconv.IsPrint
// accepts, as the generated quoting code reads it: for each range of
// printable code points, its distance from the end of the range before
// and its length minus one, in hex, comma-separated.
func PrintableRanges() string {
	var parts []string
	end := 0
	for r := 0; r <= unicode.MaxRune; {
		if !strconv.IsPrint(rune(r)) {
			r++
			continue
		}
		start := r
		for r <= unicode.MaxRune && strconv.IsPrint(rune(r)) {
			r++
		}
		parts = append(parts, strconv.FormatInt(int64(start-end), 16), strconv.FormatInt(int64(r-1-start), 16))
		end = r - 1
	}
	return strings.Join(parts, ",")
}

// IsLoopName reports whether n is shaped like a loop variable or local
// the generated code declares (i0, p1, e2): a Go name so shaped gets an
// underscore.
func IsLoopName(n string) bool {
	if len(n) < 2 || !strings.ContainsRune("ipe", rune(n[0])) {
		return false
	}
	for _, r := range n[1:] {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// Rules fills in the wire rules a runtime's text names by placeholder,
// each from its one definition, as a literal every target language reads
// alike: {{QUAT_NORM_TOLERANCE}} is package rules' quaternion norm
// tolerance; {{MAX_FIGURE}} the cap of the figures a refusal names; the
// {{ALLOW_...}} placeholders are the allowances' numbers (see
// rules.WorkBaseValues and the constants after it), {{ALLOC_...}}
// RoundAlloc's steps, {{ALLOW_WORK_WORDS}}
// and {{ALLOW_BYTES_WORDS}} the allowances as bitpack's refusals state
// them, {{SATURATED}} the figures' saturation; the {{SNAP_...}}
// placeholders are the numbers of a snapshot stream's header and Receiver
// (package snapwire).
func Rules(text string) string {
	return rulesReplacer.Replace(text)
}

// Go's Time.String, in which bitpack's refusals print a time, counts its
// calendar in unsigned seconds from March 1 of year timeCalendarYear
// (package time's absoluteYears, negated): an earlier time wraps around
// 2^64 seconds (time.Unix(math.MinInt64, 0) prints as year 292277026596).
// The runtimes that word those refusals (C#, TypeScript, Rust) compute
// the date alike from {{TIME_CALENDAR_YEAR}} and {{TIME_CALENDAR_ORIGIN}},
// its Unix second, and know which seconds are a time.Time's from
// {{TIME_LATEST_UNIX}}: Time.Unix wraps past it.
const timeCalendarYear = -292277022400

var (
	// March 1 of timeCalendarYear, a multiple of 400 as 2000 is: whole
	// 400-year cycles (146097 days) before March 1, 2000 (time.Date takes
	// the year as an int, which a 32-bit host's cannot hold).
	timeCalendarOrigin = time.Date(2000, time.March, 1, 0, 0, 0, 0, time.UTC).Unix() - (2000-timeCalendarYear)/400*146097*86400
	timeLatestUnix     = math.MaxInt64 + time.Time{}.Unix()
)

var rulesReplacer = strings.NewReplacer(
	"{{TIME_CALENDAR_YEAR}}", strconv.FormatInt(timeCalendarYear, 10),
	"{{TIME_CALENDAR_ORIGIN}}", strconv.FormatInt(timeCalendarOrigin, 10),
	"{{TIME_LATEST_UNIX}}", strconv.FormatInt(timeLatestUnix, 10),
	"{{QUAT_NORM_TOLERANCE}}", strconv.FormatFloat(rules.QuatNormTolerance, 'g', -1, 64),
	"{{MAX_FIGURE}}", strconv.FormatInt(rules.MaxFigure, 10), // past int on 32-bit hosts
	"{{SATURATED}}", strconv.FormatInt(rules.Saturated, 10),
	"{{ALLOW_WORK_WORDS}}", rules.WorkWords,
	"{{ALLOW_BYTES_WORDS}}", rules.BytesWords,
	"{{ALLOW_WORK_BASE}}", strconv.Itoa(rules.WorkBaseValues),
	"{{ALLOW_WORK_PER_BIT}}", strconv.Itoa(rules.WorkValuesPerBit),
	"{{ALLOW_BYTES_BASE}}", strconv.Itoa(rules.AllocBaseBytes),
	"{{ALLOW_BYTES_PER_BIT}}", strconv.Itoa(rules.AllocBytesPerBit),
	"{{ALLOW_OVERHEAD}}", strconv.Itoa(rules.DecodeOverheadBytes),
	"{{ALLOW_HOOK_CALL}}", strconv.Itoa(rules.HookCallBytes),
	"{{ALLOW_MAP_HEADER}}", strconv.Itoa(rules.MapHeaderBytes),
	"{{ALLOW_MAP_SLOT_FACTOR}}", strconv.Itoa(rules.MapSlotFactor),
	"{{ALLOW_SLOTS_PER_VALUE}}", strconv.Itoa(rules.SlotsPerValue),
	"{{ALLOW_SLOT_BYTES}}", strconv.Itoa(rules.SlotBytes),
	"{{ALLOC_SMALL}}", strconv.Itoa(rules.AllocSmallBytes),
	"{{ALLOC_CLASS_LIMIT}}", strconv.Itoa(rules.AllocClassLimit),
	"{{ALLOC_PAGE}}", strconv.Itoa(rules.AllocPageBytes),
	"{{SNAP_SHORT_HEADER}}", strconv.Itoa(snapwire.ShortHeader),
	"{{SNAP_LONG_HEADER}}", strconv.Itoa(snapwire.LongHeader),
	"{{SNAP_ZERO_HEADER}}", strconv.Itoa(snapwire.ZeroHeader),
	"{{SNAP_MAX_SHORT}}", strconv.Itoa(snapwire.MaxShort),
	"{{SNAP_MIN_PACKET}}", strconv.Itoa(snapwire.MinPacket),
	"{{SNAP_MIN_HISTORY}}", strconv.Itoa(snapwire.MinHistory),
	"{{SNAP_MAX_HISTORY}}", strconv.Itoa(snapwire.MaxHistory),
	"{{SNAP_DEFAULT_HISTORY}}", strconv.Itoa(snapwire.DefaultHistory),
	"{{SNAP_LEFT_STREAMS}}", strconv.Itoa(snapwire.LeftStreams),
	"{{SNAP_NO_ACK}}", strconv.Itoa(snapwire.NoAck),
	"{{SNAP_SEQ_HALF}}", strconv.Itoa(snapwire.SeqHalf),
)
