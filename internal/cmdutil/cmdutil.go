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

// Package cmdutil holds what netfork's small commands (cmd/local-up,
// hack/bench-services, hack/local-up-netns) do alike before their real work.
package cmdutil

import (
	"errors"
	"fmt"
	"io"

	"github.com/spf13/pflag"
)

// ParseFlags parses args with parse into a flag set named name whose usage is
// usage followed by the flags. ok is false when the command must exit at once
// with code: 0 for --help, 1 for bad flags, reported on stderr as one line.
func ParseFlags(name, usage string, args []string, stderr io.Writer, parse func(*pflag.FlagSet, []string) error) (code int, ok bool) {
	fs := pflag.NewFlagSet(name, pflag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, usage+fs.FlagUsages()) }
	if err := parse(fs, args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return 0, false
		}
		fmt.Fprintf(stderr, "%s: error: %v\n", name, err)
		return 1, false
	}
	return 0, true
}
