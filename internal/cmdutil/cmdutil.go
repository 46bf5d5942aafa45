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
