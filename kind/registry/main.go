/*
Copyright 2026 The netfork Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package main

import (
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stderr))
}

// run loads the archives and serves them until the listener fails; it returns 2 for bad
// input and 1 when serving fails.
func run(args []string, stderr io.Writer) int {
	fs := flag.NewFlagSet("registry", flag.ContinueOnError)
	fs.SetOutput(stderr)
	listen := fs.String("listen", ":5000", "address to serve on")
	domain := fs.String("domain", "registry.k8s.io", "serve the archives' tags under this registry host")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() == 0 {
		fmt.Fprintln(stderr, "registry: no archive given (usage: registry [--listen ADDR] [--domain DOMAIN] ARCHIVE...)")
		return 2
	}
	r := newRegistry(*domain)
	for _, a := range fs.Args() {
		if err := r.load(a); err != nil {
			fmt.Fprintf(stderr, "registry: %v\n", err)
			return 2
		}
	}
	tags := r.tags()
	if len(tags) == 0 {
		fmt.Fprintf(stderr, "registry: the archives hold no tag under %s/\n", *domain)
		return 2
	}
	l, err := net.Listen("tcp", *listen)
	if err != nil {
		fmt.Fprintf(stderr, "registry: %v\n", err)
		return 1
	}
	fmt.Fprintf(stderr, "registry: serving %d tags on %s: %s\n", len(tags), l.Addr(), strings.Join(tags, " "))
	if err := http.Serve(l, r); err != nil {
		fmt.Fprintf(stderr, "registry: %v\n", err)
		return 1
	}
	return 0
}
