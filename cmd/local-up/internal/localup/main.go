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
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/netfork/netfork/internal/cmdutil"
)

// usage is printed above the flags by --help.
const usage = `Usage: local-up [flags] [-- kube-apiserver flags]
       local-up status|stop|start|restart|replace [--data-dir DIR] ... (see local-up status --help)

Runs a local control plane: an embedded etcd and N kube-apiservers on 127.0.0.1..N,
all on --port, behind a TCP front on 127.0.0.254 when N > 1. Flags after -- go verbatim
to every kube-apiserver, after local-up's defaults, so they override them; --flag-at adds
flags for one apiserver and --binary-at runs another binary as one. An apiserver that
exits is reported and can be started again. Ctrl-C stops everything.

Flags:
`

// Main runs local-up with args (without the program name) and returns its exit code:
// 0 when it stopped on SIGINT or SIGTERM, 1 on any error, which it prints as one line.
func Main(args []string, stdout, stderr io.Writer) int {
	start := time.Now()
	if isSubcommand(args) {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		defer stop()
		return runSubcommand(ctx, args, stdout, stderr)
	}
	o := NewOptions()
	if code, ok := cmdutil.ParseFlags("local-up", usage, args, stderr, o.Parse); !ok {
		return code
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := Run(ctx, o, start, stdout, stderr)
	switch {
	case ctx.Err() != nil:
		progress(stderr, "stopped")
		return 0
	case err != nil:
		fmt.Fprintf(stderr, "local-up: error: %v\n", err)
		return 1
	}
	return 0
}
