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
	"time"

	"github.com/spf13/pflag"
	clientv3 "go.etcd.io/etcd/client/v3"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/netfork/netfork/internal/cmdutil"
	"github.com/netfork/netfork/test/internal/clustercheck"
)

// usage is printed above the flags by --help.
const usage = `Usage: cluster-check --kubeconfig FILE [flags]

Checks a cluster's Services, IPAddresses, legacy bitmaps (with --etcd-endpoints), the
kubernetes Service and the Warning events; prints a table and exits 1 when a check fails.

Flags:
`

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run is main with its streams, returning the exit code.
func run(args []string, stdout, stderr io.Writer) int {
	o := &options{}
	if code, ok := cmdutil.ParseFlags("cluster-check", usage, args, stderr, o.parse); !ok {
		return code
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	result, err := check(ctx, o)
	if err != nil {
		fmt.Fprintf(stderr, "cluster-check: error: %v\n", err)
		return 1
	}
	clustercheck.PrintTable(stdout, o.title, result.Rows)
	if o.snapshotOut != "" {
		if err := clustercheck.WriteSnapshot(o.snapshotOut, result.Snapshot); err != nil {
			fmt.Fprintf(stderr, "cluster-check: error: %v\n", err)
			return 1
		}
	}
	if result.Failed() {
		return 1
	}
	return 0
}

// check connects to the cluster (and etcd) and runs the checks.
func check(ctx context.Context, o *options) (*clustercheck.Result, error) {
	var before *clustercheck.Snapshot
	if o.snapshotIn != "" {
		var err error
		if before, err = clustercheck.ReadSnapshot(o.snapshotIn); err != nil {
			return nil, err
		}
	}
	config, err := clientcmd.BuildConfigFromFlags("", o.kubeconfig)
	if err != nil {
		return nil, fmt.Errorf("--kubeconfig %s: %w", o.kubeconfig, err)
	}
	config.QPS, config.Burst = 50, 100
	config.WarningHandler = rest.NoWarnings{} // The Endpoints deprecation warning, on every poll.
	cs, err := kubernetes.NewForConfig(config)
	if err != nil {
		return nil, fmt.Errorf("--kubeconfig %s: %w", o.kubeconfig, err)
	}
	opts := clustercheck.Options{
		Client: cs, EtcdPrefix: o.etcdPrefix, ClusterIPBitmaps: o.clusterIPBitmaps, IPAddresses: o.ipAddresses,
		IgnoreNamespaces: o.ignoreNamespaces, RepairInterval: o.repairInterval, Settle: o.settle,
		Shape:          clustercheck.Shape{APIServers: o.apiservers, Families: o.families},
		ExpectWarnings: o.expectWarnings, ForbidWarnings: o.forbidWarnings,
	}
	opts.Before = before
	if len(o.etcdEndpoints) > 0 {
		etcd, err := clientv3.New(clientv3.Config{Endpoints: o.etcdEndpoints, DialTimeout: 5 * time.Second})
		if err != nil {
			return nil, fmt.Errorf("--etcd-endpoints %v: %w", o.etcdEndpoints, err)
		}
		defer etcd.Close()
		opts.Etcd = etcd
	}
	return clustercheck.Run(ctx, opts)
}

// options are cluster-check's flags.
type options struct {
	kubeconfig, snapshotIn, snapshotOut, title string
	etcdEndpoints                              []string
	etcdPrefix, ipAddresses, families          string
	clusterIPBitmaps                           bool
	ignoreNamespaces                           []string
	repairInterval, settle                     time.Duration
	apiservers                                 int
	expectWarnings, forbidWarnings             []string
}

// parse binds and checks the flags.
func (o *options) parse(fs *pflag.FlagSet, args []string) error {
	fs.StringVar(&o.kubeconfig, "kubeconfig", os.Getenv("KUBECONFIG"), "kubeconfig of the cluster (default $KUBECONFIG)")
	fs.StringVar(&o.snapshotIn, "snapshot-in", "", "snapshot from an earlier run: its Services must all still exist with the same UID, ClusterIPs and NodePorts")
	fs.StringVar(&o.snapshotOut, "snapshot-out", "", "write this run's snapshot here, for the next --snapshot-in")
	fs.StringSliceVar(&o.ignoreNamespaces, "ignore-namespace", nil, "namespaces whose Services may come and go between snapshots (a load's churn)")
	fs.StringSliceVar(&o.etcdEndpoints, "etcd-endpoints", nil, "etcd client URLs: check the legacy bitmaps too")
	fs.StringVar(&o.etcdPrefix, "etcd-prefix", clustercheck.DefaultEtcdPrefix, "the apiservers' --etcd-prefix")
	fs.BoolVar(&o.clusterIPBitmaps, "clusterip-bitmaps", false, "the ClusterIP bitmaps must agree with the Services (a bitmap-only or dual-writing apiserver is live); needs --etcd-endpoints")
	fs.StringVar(&o.ipAddresses, "ipaddresses", "auto", "true: every ClusterIP must have its IPAddress; false: skip; auto: check when any allocator IPAddress exists")
	fs.DurationVar(&o.repairInterval, "repair-interval", 3*time.Minute, "how long IPAddresses and expected warnings may take to appear (upstream's repair interval)")
	fs.DurationVar(&o.settle, "settle", time.Minute, "how long the kubernetes Service and the bitmaps may take to agree")
	fs.IntVar(&o.apiservers, "apiservers", 0, "how many apiservers run: each kubernetes EndpointSlice must list that many (0: unchecked)")
	fs.StringVar(&o.families, "apiserver-families", "", "dual: the kubernetes Service must be RequireDualStack; single: single-stack; empty: either")
	fs.StringSliceVar(&o.expectWarnings, "expect-warning", nil, "Warning event reasons that must appear since the snapshot (or within --repair-interval)")
	fs.StringSliceVar(&o.forbidWarnings, "forbid-warning", nil, "Warning event reasons that must not appear since the snapshot")
	fs.StringVar(&o.title, "title", "", "a line printed above the table")
	if err := fs.Parse(args); err != nil {
		return err
	}
	switch {
	case fs.NArg() > 0:
		return fmt.Errorf("unexpected argument %q", fs.Arg(0))
	case o.kubeconfig == "":
		return fmt.Errorf("--kubeconfig (or $KUBECONFIG) is required")
	case o.ipAddresses != "auto" && o.ipAddresses != "true" && o.ipAddresses != "false":
		return fmt.Errorf("--ipaddresses %q: want auto, true or false", o.ipAddresses)
	case o.families != "" && o.families != "dual" && o.families != "single":
		return fmt.Errorf("--apiserver-families %q: want dual or single", o.families)
	case o.clusterIPBitmaps && len(o.etcdEndpoints) == 0:
		return fmt.Errorf("--clusterip-bitmaps needs --etcd-endpoints")
	case o.apiservers < 0:
		return fmt.Errorf("--apiservers %d must not be negative", o.apiservers)
	case o.repairInterval <= 0 || o.settle < 0:
		return fmt.Errorf("--repair-interval must be positive and --settle not negative")
	}
	if _, err := os.Stat(o.kubeconfig); err != nil {
		return fmt.Errorf("--kubeconfig: %w", err)
	}
	return nil
}
