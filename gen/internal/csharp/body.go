package csharp

import (
	"fmt"
	"strconv"
	"strings"
)

// body collects the statements of a function body: four-space indents,
// braces on lines of their own.
type body struct {
	b      strings.Builder
	indent int    // in units of four spaces
	loops  int    // loop variables in use: i0, i1, ...
	locals int    // locals declared (see local)
	temps  []bool // per temporary kind (see temp): used by the body
}

func (c *body) line(format string, args ...any) {
	c.b.WriteString(strings.Repeat("    ", c.indent))
	fmt.Fprintf(&c.b, format, args...)
	c.b.WriteByte('\n')
}

func (c *body) open()  { c.line("{"); c.indent++ }
func (c *body) close() { c.indent--; c.line("}") }

// loop renders for (int i = 0; i < n; i++) around inner, with a fresh
// index variable.
func (c *body) loop(n string, inner func(i string)) {
	i := "i" + strconv.Itoa(c.loops)
	c.loops++
	c.line("for (int %s = 0; %s < %s; %s++)", i, i, n, i)
	c.open()
	inner(i)
	c.close()
	c.loops--
}

// fresh returns a new local name with prefix (n0, p1, ...), unique among
// the loop levels in use.
func (c *body) fresh(prefix string) string { return prefix + strconv.Itoa(c.loops) }

// local returns a local name with prefix that no other local of the
// function has (a0, e1, ...): a value built inside another's block must
// not shadow it.
func (c *body) local(prefix string) string {
	c.locals++
	return prefix + strconv.Itoa(c.locals-1)
}
