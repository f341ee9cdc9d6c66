package gen_test

import (
	"bytes"
	"fmt"
	"log"
	"strings"

	"github.com/bitpack-go/bitpack/gen"
)

// printDeclaration prints, trimmed, the lines of src from the first that
// starts (trimmed) with first through the next that is (trimmed) last,
// blank lines left out.
func printDeclaration(src, first, last string) {
	in := false
	for _, line := range strings.Split(src, "\n") {
		line = strings.TrimSpace(line)
		in = in || strings.HasPrefix(line, first)
		if in && line != "" {
			fmt.Println(line)
		}
		if in && line == last {
			return
		}
	}
}

// CPP writes a C++11 header for serialize (bitpack gen -lang cpp -o net.h
// . Input runs it): a plain struct per type with a Serialize method, its
// tags as comments, and its fingerprint.
func ExampleCPP() {
	var b bytes.Buffer
	if err := gen.CPP(&b, gen.Options{Namespace: "game"}, &Input{}); err != nil {
		log.Fatal(err)
	}
	printDeclaration(b.String(), "struct Input", "bool Fire; // bool")
	printDeclaration(b.String(), "const uint32_t Input_fingerprint", "const uint32_t Input_fingerprint = 0x279c8a4cu; // bitpack.Fingerprint(gen_test.Input)")
	// Output:
	// struct Input
	// {
	// uint16_t Seq; // int [0, 1023]
	// float Aim; // compressed float [-1, 1] res 0.001
	// bool Fire; // bool
	// const uint32_t Input_fingerprint = 0x279c8a4cu; // bitpack.Fingerprint(gen_test.Input)
}

// CSharp writes one C# file for Unity (bitpack gen -lang cs -o Net.cs .
// Input): a class per type, with TryRead, Write and their delta forms.
func ExampleCSharp() {
	var b bytes.Buffer
	if err := gen.CSharp(&b, gen.Options{Namespace: "Game.Net"}, &Input{}); err != nil {
		log.Fatal(err)
	}
	printDeclaration(b.String(), "public sealed class Input", "public bool Fire; // bool")
	// Output:
	// public sealed class Input
	// {
	// /// <summary>bitpack.Fingerprint(gen_test.Input): mix it into the protocol id as the Go side does.</summary>
	// public const uint Fingerprint = 0x279c8a4cu;
	// public ushort Seq; // int [0, 1023]
	// public float Aim; // compressed float [-1, 1] res 0.001
	// public bool Fire; // bool
}

// TypeScript writes one module for the browser (bitpack gen -lang ts -o
// net.ts . Input): an interface per type, readInput and writeInput, and
// their delta forms.
func ExampleTypeScript() {
	var b bytes.Buffer
	if err := gen.TypeScript(&b, gen.Options{}, &Input{}); err != nil {
		log.Fatal(err)
	}
	printDeclaration(b.String(), "export interface Input {", "}")
	printDeclaration(b.String(), "export const InputFingerprint", "export const InputFingerprint = 0x279c8a4c;")
	printDeclaration(b.String(), "export function readInput(", "export function readInput(packet: Uint8Array): Input {")
	// Output:
	// export interface Input {
	// Seq: number; // int [0, 1023]
	// Aim: number; // compressed float [-1, 1] res 0.001
	// Fire: boolean; // bool
	// }
	// export const InputFingerprint = 0x279c8a4c;
	// export function readInput(packet: Uint8Array): Input {
}

// Rust writes one module (bitpack gen -lang rust -o net.rs . Input): a
// struct per type with read, write and their delta forms.
func ExampleRust() {
	var b bytes.Buffer
	if err := gen.Rust(&b, gen.Options{}, &Input{}); err != nil {
		log.Fatal(err)
	}
	printDeclaration(b.String(), "pub struct Input {", "}")
	// Output:
	// pub struct Input {
	// pub seq: u16, // int [0, 1023]
	// pub aim: f32, // compressed float [-1, 1] res 0.001
	// pub fire: bool, // bool
	// }
}
