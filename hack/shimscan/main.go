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
	"os"
	"time"
)

func main() {
	os.Exit(scan(os.Args[1:], os.Stdout, os.Stderr))
}

// scan is main with its streams, returning the exit code.
func scan(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("shimscan", flag.ContinueOnError)
	fs.SetOutput(stderr)
	size := fs.Int("window", 6, "the fewest significant lines that make a copy")
	verbose := fs.Bool("v", false, "also list the copies inside upstream-shim regions")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *size < 2 || fs.NArg() > 0 {
		fmt.Fprintf(stderr, "shimscan: -window must be at least 2 and no arguments are taken (got -window=%d %q)\n", *size, fs.Args())
		return 2
	}
	start := time.Now()
	found, err := find(*size)
	if err != nil {
		fmt.Fprintf(stderr, "shimscan: error: %v\n", err)
		return 1
	}
	unmarked := 0
	for _, r := range found.runs {
		if !r.marked {
			unmarked++
		}
		if !r.marked || *verbose {
			fmt.Fprintln(stdout, describe(r))
		}
	}
	fmt.Fprintf(stdout, "shimscan: %d netfork files against %d upstream files in %.1fs: %d runs of %d+ lines match upstream, %d outside an upstream-shim region\n",
		found.netfork, found.upstream, time.Since(start).Seconds(), len(found.runs), *size, unmarked)
	if unmarked > 0 {
		fmt.Fprintln(stdout, "shimscan: call upstream instead, rewrite what is only common Go, or mark and list the shim (hack/upstream-shims.txt)")
		return 1
	}
	return 0
}

// describe is one line per run: where it is, where upstream has it, and whether it is marked.
func describe(r run) string {
	state := "NOT MARKED"
	if r.marked {
		state = "marked"
	}
	others := ""
	if r.others > 0 {
		others = fmt.Sprintf(" (and %d more upstream files)", r.others)
	}
	return fmt.Sprintf("%s:%d-%d matches %s:%d-%d%s: %s", r.file, r.first, r.last, r.upstream, r.upFirst, r.upLast, others, state)
}

// result is what find found.
type result struct {
	runs              []run
	netfork, upstream int
}

// find scans netfork's and upstream's files and returns the runs they share.
func find(size int) (*result, error) {
	netforkSrc, err := netforkFiles()
	if err != nil {
		return nil, err
	}
	upstreamSrc, err := upstreamFiles(netforkSrc)
	if err != nil {
		return nil, err
	}
	netfork, err := scanAll(netforkSrc, size)
	if err != nil {
		return nil, err
	}
	wanted := map[uint64]bool{}
	for _, f := range netfork {
		for _, w := range f.windows {
			wanted[w.hash] = true
		}
	}
	upstream, err := scanAll(upstreamSrc, size)
	if err != nil {
		return nil, err
	}
	places := findPlaces(upstream, wanted)
	res := &result{netfork: len(netfork), upstream: len(upstream)}
	for _, f := range netfork {
		src, err := os.ReadFile(f.src.path)
		if err != nil {
			return nil, err
		}
		res.runs = append(res.runs, runs(f, findRegions(src), places, upstream)...)
	}
	sortRuns(res.runs)
	return res, nil
}
