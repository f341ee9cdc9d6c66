// Command readmecheck is not a tool to run: it is package main only so that
// the types its test declares print as main.Player, main.Snapshot, ... —
// the names the README's examples use. Its test checks that every output
// the README quotes (sizes, layout tables, error messages) is what bitpack
// prints today.
package main

func main() {}
