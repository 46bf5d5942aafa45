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

package localup

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/pflag"
)

// subcommandUsage is printed by a subcommand's --help.
const subcommandUsage = `Usage: local-up status  [--data-dir DIR] [--count | --output json]
       local-up stop    [--data-dir DIR] INDEX
       local-up start   [--data-dir DIR] INDEX
       local-up restart [--data-dir DIR] INDEX
       local-up replace [--data-dir DIR] [--apiserver-binary PATH] INDEX [-- kube-apiserver flags]

Talks to the local-up running on --data-dir. stop sends apiserver INDEX SIGTERM and returns
once it has exited; start (of a stopped or exited one) and restart return once its /readyz
is ok. replace checks the new binary and flags, then stops INDEX and starts it with them
while the others keep serving: flags after -- replace the ones it had after local-up's
defaults (without --, it keeps them).

Flags:
`

// subcommands are the verbs that talk to a running local-up instead of starting one.
var subcommands = []string{"status", "stop", "start", "restart", "replace"}

// isSubcommand tells whether args start with one of the subcommands.
func isSubcommand(args []string) bool {
	return len(args) > 0 && slices.Contains(subcommands, args[0])
}

// subcommandOptions are the subcommands' flags.
type subcommandOptions struct {
	verb, dataDir, binary, output string
	count                         bool
	index                         int
	args                          *[]string
}

// runSubcommand runs one subcommand and returns its exit code.
func runSubcommand(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	o := &subcommandOptions{verb: args[0]}
	fs := pflag.NewFlagSet("local-up "+o.verb, pflag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, subcommandUsage+fs.FlagUsages()) }
	fs.StringVar(&o.dataDir, "data-dir", defaultDataDir, "data dir of the running local-up")
	if o.verb == "status" {
		fs.BoolVar(&o.count, "count", false, "print only the number of apiservers")
		fs.StringVar(&o.output, "output", "", "json prints every apiserver's state as JSON")
	}
	if o.verb == "replace" {
		fs.StringVar(&o.binary, "apiserver-binary", "", "the new kube-apiserver binary (default: the one it runs)")
	}
	if err := fs.Parse(args[1:]); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return 0
		}
		return fail(stderr, err)
	}
	if err := o.complete(fs); err != nil {
		return fail(stderr, err)
	}
	resp, err := o.call(ctx)
	if err != nil {
		return fail(stderr, err)
	}
	if o.verb == "status" {
		return printStatus(stdout, stderr, o, resp.Status)
	}
	fmt.Fprintln(stdout, "local-up: "+resp.Message)
	return 0
}

// complete checks the operands: an index for every verb but status, flags after -- for replace.
func (o *subcommandOptions) complete(fs *pflag.FlagSet) error {
	rest, dash := fs.Args(), fs.ArgsLenAtDash()
	if dash < 0 {
		dash = len(rest)
	}
	operands := rest[:dash]
	if fs.ArgsLenAtDash() >= 0 {
		if o.verb != "replace" {
			return fmt.Errorf("local-up %s takes no kube-apiserver flags", o.verb)
		}
		flags := append([]string{}, rest[dash:]...)
		o.args = &flags
	}
	if o.verb == "status" {
		if len(operands) != 0 {
			return fmt.Errorf("local-up status takes no operands, got %q", operands)
		}
		if o.output != "" && o.output != "json" {
			return fmt.Errorf("--output %q: the only format is json", o.output)
		}
		return nil
	}
	if len(operands) != 1 {
		return fmt.Errorf("local-up %s needs one apiserver INDEX, got %q", o.verb, operands)
	}
	i, err := strconv.Atoi(operands[0])
	if err != nil || i < 0 {
		return fmt.Errorf("apiserver index %q is not a number from 0", operands[0])
	}
	o.index = i
	if o.binary != "" {
		abs, err := filepath.Abs(o.binary)
		if err != nil {
			return fmt.Errorf("--apiserver-binary %s: %w", o.binary, err)
		}
		o.binary = abs
	}
	return nil
}

// call sends the request to the local-up on o.dataDir and returns its answer.
func (o *subcommandOptions) call(ctx context.Context) (*controlResponse, error) {
	dataDir, err := filepath.Abs(o.dataDir)
	if err != nil {
		return nil, fmt.Errorf("--data-dir %s: %w", o.dataDir, err)
	}
	socket := newLayout(dataDir).socket
	if _, err := os.Stat(socket); err != nil {
		return nil, fmt.Errorf("no local-up is running on data dir %s (no control socket %s)", dataDir, socket)
	}
	client := &http.Client{Transport: &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			return (&net.Dialer{}).DialContext(ctx, "unix", socket)
		},
	}}
	method, url, body := http.MethodPost, "http://local-up/"+o.verb+"?index="+strconv.Itoa(o.index), []byte(nil)
	switch o.verb {
	case "status":
		method, url = http.MethodGet, "http://local-up/status"
	case "replace":
		url = "http://local-up/replace"
		body, _ = json.Marshal(replaceRequest{Index: o.index, Binary: o.binary, Args: o.args}) // Plain data always encodes.
	}
	req, err := http.NewRequestWithContext(ctx, method, url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	httpResp, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("no local-up answers on %s: %w", socket, err)
	}
	defer httpResp.Body.Close()
	resp := &controlResponse{}
	if err := json.NewDecoder(httpResp.Body).Decode(resp); err != nil {
		return nil, fmt.Errorf("reading local-up's answer: %w", err)
	}
	if resp.Error != "" {
		return nil, errors.New(resp.Error)
	}
	return resp, nil
}

// printStatus prints the apiservers as a table, as JSON or as a count.
func printStatus(stdout, stderr io.Writer, o *subcommandOptions, status []memberStatus) int {
	switch {
	case o.count:
		fmt.Fprintln(stdout, len(status))
	case o.output == "json":
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(status); err != nil {
			return fail(stderr, err)
		}
	default:
		w := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(w, "INDEX\tSTATE\tPID\tENDPOINT\tVERSION\tFLAGS\tLAST EXIT")
		for _, s := range status {
			pid := "-"
			if s.PID != 0 {
				pid = strconv.Itoa(s.PID)
			}
			fmt.Fprintf(w, "%d\t%s\t%s\t%s\t%s\t%s\t%s\n", s.Index, s.State, pid, s.Endpoint, s.Version, strings.Join(s.Args, " "), s.Exit)
		}
		_ = w.Flush()
	}
	return 0
}

// fail prints err as local-up's one error line and returns the exit code 1.
func fail(stderr io.Writer, err error) int {
	fmt.Fprintf(stderr, "local-up: error: %v\n", err)
	return 1
}
