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
	"fmt"
	"io"
	"os"
)

const usage = `usage:
  conformance-compare shard --shard I/N SPECS.json
  conformance-compare compare [--baseline LABEL] LABEL=JUNIT[,JUNIT...]...`

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run executes one subcommand and returns the process's exit code: 0, 1 for a baseline
// spec that did not pass elsewhere, 2 for bad input.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintln(stderr, usage)
		return 2
	}
	var code int
	var err error
	switch args[0] {
	case "shard":
		err = runShard(args[1:], stdout)
	case "compare":
		code, err = runCompare(args[1:], stdout)
	default:
		err = fmt.Errorf("unknown subcommand %q (want shard or compare)", args[0])
	}
	if err != nil {
		fmt.Fprintf(stderr, "conformance-compare: %v\n", err)
		return 2
	}
	return code
}
