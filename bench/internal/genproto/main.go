// Command genproto generates Go code for .proto files without protoc: it
// compiles them with the pure-Go compiler github.com/bufbuild/protocompile,
// builds the CodeGeneratorRequest that protoc would send to a plugin, and
// pipes it to protoc-gen-go, run as `go tool protoc-gen-go` so its version is
// the one pinned in this module's go.mod.
//
// Usage (from the bench module's root; see the go:generate line in doc.go):
//
//	go run ./internal/genproto -I proto -out proto/benchpb packet.proto
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"

	"github.com/bufbuild/protocompile"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/pluginpb"
)

func main() {
	importPath := flag.String("I", ".", "directory the .proto files are relative to")
	out := flag.String("out", ".", "directory to write the generated files to")
	flag.Parse()
	if flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: genproto [-I dir] [-out dir] file.proto...")
		os.Exit(2)
	}
	if err := run(*importPath, *out, flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "genproto:", err)
		os.Exit(1)
	}
}

func run(importPath, out string, files []string) error {
	c := protocompile.Compiler{
		Resolver:       &protocompile.SourceResolver{ImportPaths: []string{importPath}},
		SourceInfoMode: protocompile.SourceInfoStandard, // keeps comments for the generated code
	}
	compiled, err := c.Compile(context.Background(), files...)
	if err != nil {
		return err
	}

	// A plugin receives every file it needs to know about, dependencies
	// before the files that import them, as protoc sends them.
	req := &pluginpb.CodeGeneratorRequest{
		FileToGenerate: files,
		Parameter:      proto.String("paths=source_relative"),
	}
	seen := map[string]bool{}
	var add func(fd protoreflect.FileDescriptor)
	add = func(fd protoreflect.FileDescriptor) {
		if seen[fd.Path()] {
			return
		}
		seen[fd.Path()] = true
		imports := fd.Imports()
		for i := range imports.Len() {
			add(imports.Get(i).FileDescriptor)
		}
		req.ProtoFile = append(req.ProtoFile, protodesc.ToFileDescriptorProto(fd))
	}
	for _, fd := range compiled {
		add(fd)
	}
	for _, fdp := range req.ProtoFile {
		// protoc sends source info only for the files to generate.
		if !slices.Contains(files, fdp.GetName()) {
			fdp.SourceCodeInfo = nil
		}
	}
	in, err := proto.Marshal(req)
	if err != nil {
		return err
	}

	var stdout bytes.Buffer
	cmd := exec.Command("go", "tool", "protoc-gen-go")
	cmd.Stdin = bytes.NewReader(in)
	cmd.Stdout = &stdout
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("protoc-gen-go: %w", err)
	}
	var resp pluginpb.CodeGeneratorResponse
	if err := proto.Unmarshal(stdout.Bytes(), &resp); err != nil {
		return fmt.Errorf("protoc-gen-go response: %w", err)
	}
	if resp.Error != nil {
		return fmt.Errorf("protoc-gen-go: %s", resp.GetError())
	}
	for _, f := range resp.File {
		name := filepath.Join(out, filepath.FromSlash(f.GetName()))
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(name, []byte(f.GetContent()), 0o644); err != nil {
			return err
		}
		fmt.Println("genproto: wrote", name)
	}
	return nil
}
