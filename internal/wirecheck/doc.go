// Package wirecheck holds no code: its test reads docs/wire.md and checks
// that every worked example there — declaration, value, packet bytes,
// decoded value, schema, fingerprint and refused packets — is what bitpack
// does today.
package wirecheck
