module github.com/bitpack-go/bitpack

go 1.24
