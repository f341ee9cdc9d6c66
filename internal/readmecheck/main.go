// Command readmecheck is not a tool to run: it is package main only so that
// the types its tests declare print as main.Player, main.Snapshot, ... —
// the names the README's examples use. Its tests check the README against
// the code: every Go block compiles (as a reader pasting it would use it),
// the C++ client it quotes is examples/cppclient's, every output it quotes
// (sizes, layout tables, error messages, the example program's table) is
// what bitpack prints today, the allocations it states are measured, and
// every test it names exists.
package main

func main() {}
