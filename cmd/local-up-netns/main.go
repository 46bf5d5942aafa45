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
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/netfork/netfork/internal/cmdutil"
)

const usage = `local-up-netns runs one netfork kube-apiserver per network namespace, dual-stack, on one
embedded etcd. hack/local-up-netns.sh makes the namespaces and runs it.

usage: local-up-netns --apiserver-binary PATH --host NETNS,IPV4,IPV6 ... [-- kube-apiserver flags]

`

func main() {
	os.Exit(netnsMain(os.Args[1:], os.Stdout, os.Stderr))
}

// netnsMain runs the command and returns its exit code: 0 after a clean stop on
// SIGINT or SIGTERM, 1 on bad flags or when a component fails.
func netnsMain(args []string, stdout, stderr io.Writer) int {
	o := newOptions()
	if code, ok := cmdutil.ParseFlags("local-up-netns", usage, args, stderr, o.parse); !ok {
		return code
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	// A parent that dies without stopping this command (hack/local-up-netns.sh
	// killed) sends it SIGTERM, so it still stops what it started.
	if err := unix.Prctl(unix.PR_SET_PDEATHSIG, uintptr(syscall.SIGTERM), 0, 0, 0); err != nil {
		fmt.Fprintf(stderr, "local-up-netns: error: asking for SIGTERM on the parent's exit: %v\n", err)
		return 1
	}
	if err := run(ctx, o, stdout, stderr); err != nil {
		fmt.Fprintf(stderr, "local-up-netns: error: %v\n", err)
		return 1
	}
	return 0
}
