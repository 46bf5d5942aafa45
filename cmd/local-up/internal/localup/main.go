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

Runs a local control plane: an embedded etcd and N kube-apiservers on 127.0.0.1..N,
all on --port. Flags after -- go verbatim to every kube-apiserver, after local-up's
defaults, so they override them. Ctrl-C stops everything.

Flags:
`

// Main runs local-up with args (without the program name) and returns its exit code:
// 0 when it stopped on SIGINT or SIGTERM, 1 on any error, which it prints as one line.
func Main(args []string, stdout, stderr io.Writer) int {
	start := time.Now()
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
