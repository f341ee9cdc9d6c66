package typescript

import (
	"fmt"
	"strconv"
	"strings"
)

// body collects the statements of a function body: two-space indents,
// braces on the line they open.
type body struct {
	b      strings.Builder
	indent int // in units of two spaces
	loops  int // loop variables in use: i0, i1, ...
	locals int // locals declared (see local)
}

func (c *body) line(format string, args ...any) {
	c.b.WriteString(strings.Repeat("  ", c.indent))
	fmt.Fprintf(&c.b, format, args...)
	c.b.WriteByte('\n')
}

func (c *body) open()  { c.line("{"); c.indent++ }
func (c *body) close() { c.indent--; c.line("}") }

// loop renders for (let i = 0; i < n; i++) around inner, with a fresh
// index variable.
func (c *body) loop(n string, inner func(i string)) {
	i := "i" + strconv.Itoa(c.loops)
	c.loops++
	c.line("for (let %s = 0; %s < %s; %s++) {", i, i, n, i)
	c.indent++
	inner(i)
	c.close()
	c.loops--
}

// elem is element i of array x, read or filled in place: the index is in
// range by construction, which "!" tells noUncheckedIndexedAccess.
func elem(x, i string) string { return x + "[" + i + "]!" }

// local returns a local name with prefix that no other local of the
// function has (a0, e1, ...): a value built inside another's block must
// not shadow it.
func (c *body) local(prefix string) string {
	c.locals++
	return prefix + strconv.Itoa(c.locals-1)
}
