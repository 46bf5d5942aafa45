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
// test/bench, cmd/local-up-netns) do alike before their real work:
// parse their flags, and split off the flags they pass on after "--".
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

// ArgsAfterDash parses args into fs and returns what follows "--", verbatim:
// the flags a command passes on to the programs it runs. An argument before
// "--" is refused, naming it and target, the program the flags go to.
func ArgsAfterDash(fs *pflag.FlagSet, args []string, target string) ([]string, error) {
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	rest, dash := fs.Args(), fs.ArgsLenAtDash()
	if dash < 0 {
		dash = len(rest)
	}
	if dash > 0 {
		return nil, fmt.Errorf("unexpected argument %q: %s flags go after --", rest[0], target)
	}
	return rest[dash:], nil
}
