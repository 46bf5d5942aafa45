package main

import (
	"os"

	"github.com/netfork/netfork/cmd/local-up/internal/localup"
)

func main() {
	os.Exit(localup.Main(os.Args[1:], os.Stdout, os.Stderr))
}
