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

// Package cli is kubectl-servicecidr's command line: kubectl's connection
// flags, the subcommands, and the printing of plans. The work is
// github.com/netfork/netfork/pkg/servicecidr/renumber's and, for the IP
// family commands, github.com/netfork/netfork/pkg/servicecidr/family's.
package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/signal"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/yaml"

	"github.com/netfork/netfork/pkg/servicecidr/family"
	"github.com/netfork/netfork/pkg/servicecidr/renumber"
)

// options are the flags of every subcommand.
type options struct {
	loading   *clientcmd.ClientConfigLoadingRules
	overrides *clientcmd.ConfigOverrides
	to        string
	output    string
	dryRun    string
	includeLB bool
	// stopBeforeCutOver is renumber's --stop-before-cut-over.
	stopBeforeCutOver bool
	force             bool
	// kubeProxySync is kube-proxy's minimum sync period, which sets the windows Services move in; 0 for none.
	kubeProxySync time.Duration
	// retries is --retries: how often a run continues from the record after a transient error.
	retries int
	// policy and selector are dual-stack's --policy and the family commands' -l.
	policy    string
	selector  string
	newClient func() (kubernetes.Interface, *rest.Config, error)
}

// Main runs the plugin with args and returns its exit code: 0, or 1 after
// one line on stderr.
func Main(args []string, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	return run(ctx, args, stdout, stderr, nil)
}

// run is Main with a client factory tests may replace.
func run(ctx context.Context, args []string, stdout, stderr io.Writer, newClient func(*options) (kubernetes.Interface, *rest.Config, error)) int {
	o := &options{loading: clientcmd.NewDefaultClientConfigLoadingRules(), overrides: &clientcmd.ConfigOverrides{}}
	if newClient == nil {
		newClient = (*options).client
	}
	o.newClient = func() (kubernetes.Interface, *rest.Config, error) { return newClient(o) }
	root := newRoot(ctx, o, stdout, stderr)
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(stderr)
	cmd, err := root.ExecuteC()
	if err != nil {
		fmt.Fprintf(stderr, "%s: %s\n", cmd.CommandPath(), strings.ReplaceAll(err.Error(), "\n", " "))
		return 1
	}
	return 0
}

// newRoot is the command tree. Plans and what is left go to stdout; the
// changes as they are made go there too, or to stderr when -o asks for a plan
// a program reads.
func newRoot(ctx context.Context, o *options, stdout, stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:   "kubectl-servicecidr",
		Short: "Renumber a live cluster's Services from one Service range to another (KEP-1880)",
		Long: `kubectl servicecidr moves every Service of a live cluster from its Service range
to another: it flips each Service through ExternalName to a ClusterIP in the
target range (the same host offset where free), keeping its name, UID and the
rest of it, while a bridge Service keeps its old address alive until finish.
It records every change in ConfigMap kube-system/servicecidr-renumber first, so
a run killed at any point continues when run again.

The kubernetes Service moves last: the plugin deletes it, a bridge takes its
old address (the apiservers give the bridge their endpoints) and the apiservers
recreate it in the target range.

Roll every kube-apiserver with --service-cluster-ip-range set to the target
range first, and its serving certificate to name the kubernetes Service's
address in the target.

dual-stack, single-stack and replace-default change the IP families of a live
cluster's Services instead, in place, around a roll of the apiservers to two
ranges or back to one (see their help).`,
		SilenceUsage:      true,
		SilenceErrors:     true,
		CompletionOptions: cobra.CompletionOptions{DisableDefaultCmd: true},
	}
	pf := root.PersistentFlags()
	pf.StringVar(&o.loading.ExplicitPath, clientcmd.RecommendedConfigPathFlag, "", "path to the kubeconfig file")
	clientcmd.BindOverrideFlags(o.overrides, pf, clientcmd.RecommendedConfigOverrideFlags(""))
	root.PersistentPreRunE = func(cmd *cobra.Command, _ []string) error {
		if o.overrides.Context.Namespace == "" || cmd.Annotations[namespacedAnnotation] != "" {
			return nil
		}
		if cmd.Name() == replaceDefaultName {
			return errors.New("-n/--namespace: the `kubernetes` ServiceCIDR is cluster-wide")
		}
		return errors.New("-n/--namespace: a renumber is cluster-wide")
	}

	toFlag := func(fs *pflag.FlagSet) {
		fs.StringVar(&o.to, "to", "", "the target Service range, one CIDR per IP family of the current one, primary first (e.g. 10.200.0.0/16,fd00:10:200::/108); a renumber in progress continues without it")
		fs.BoolVar(&o.includeLB, "include-load-balancers", false, "move type LoadBalancer Services too (ExternalName drops their load balancers until they are back)")
	}
	kubeProxyFlag := func(fs *pflag.FlagSet) {
		fs.DurationVar(&o.kubeProxySync, "kube-proxy-sync-period", time.Second, "kube-proxy's minimum sync period (its iptables or nftables minSyncPeriod): Services move in windows between two of its syncs, each after a pause of two periods, so that kube-proxy never syncs between freeing an old address and taking it again; 0 for no windows and no pause")
	}
	retriesFlag := func(fs *pflag.FlagSet) {
		fs.IntVar(&o.retries, "retries", 5, "how often to continue from the record after a transient error (a server timeout, an etcd timeout, a broken connection), pausing 1s, 2s, 4s... up to 30s; 0 for none")
	}
	outputFlag := func(fs *pflag.FlagSet) {
		fs.StringVarP(&o.output, "output", "o", "", "plan output format: yaml or json (default: text)")
	}
	// withRunner is a subcommand's body: do, with a Runner built from the flags.
	withRunner := func(do func(*renumber.Runner) error) func(*cobra.Command, []string) error {
		return func(*cobra.Command, []string) error {
			log := stdout
			if o.output != "" {
				log = stderr
			}
			r, err := o.runner(log)
			if err != nil {
				return err
			}
			return do(r)
		}
	}

	plan := &cobra.Command{
		Use:   "plan",
		Short: "Print every object and step of the renumber; change nothing",
		Args:  cobra.NoArgs,
		RunE: withRunner(func(r *renumber.Runner) error {
			pl, err := r.Plan(ctx)
			if err != nil {
				return err
			}
			return printPlan(stdout, pl, o.output)
		}),
	}
	toFlag(plan.Flags())
	outputFlag(plan.Flags())

	renum := &cobra.Command{
		Use:   "renumber",
		Short: "Print the plan, then move every Service to the target range (or continue the recorded renumber)",
		Args:  cobra.NoArgs,
		PreRunE: func(*cobra.Command, []string) error {
			_, err := parseDryRun(o.dryRun)
			return err
		},
		RunE: withRunner(func(r *renumber.Runner) error {
			dry, _ := parseDryRun(o.dryRun)
			pl, err := r.Plan(ctx)
			if err != nil {
				return err
			}
			if err := printPlan(stdout, pl, o.output); err != nil || dry {
				return err
			}
			if o.output == "" {
				fmt.Fprintln(stdout)
			}
			if pl, err = r.Renumber(ctx); err != nil {
				return err
			}
			if o.output == "" {
				printLeft(stdout, pl.LeftToOperator)
			}
			return nil
		}),
	}
	toFlag(renum.Flags())
	outputFlag(renum.Flags())
	kubeProxyFlag(renum.Flags())
	retriesFlag(renum.Flags())
	renum.Flags().BoolVar(&o.stopBeforeCutOver, "stop-before-cut-over", false, "stop once every Service, the kubernetes Service too, is at its new addresses, before the step rollback cannot undo; renumber again to cut over")
	renum.Flags().StringVar(&o.dryRun, "dry-run", "none", `"none" to act; "client" or "server" to print the plan only`)
	renum.Flags().Lookup("dry-run").NoOptDefVal = "client"

	// printingLeft is a subcommand's body that prints what do left.
	printingLeft := func(do func(*renumber.Runner) ([]string, error)) func(*cobra.Command, []string) error {
		return withRunner(func(r *renumber.Runner) error {
			left, err := do(r)
			if err == nil {
				printLeft(stdout, left)
			}
			return err
		})
	}

	finish := &cobra.Command{
		Use:   "finish",
		Short: "End the grace period: delete the bridge Services (refused while pods started before the cut-over run)",
		Args:  cobra.NoArgs,
		RunE:  printingLeft(func(r *renumber.Runner) ([]string, error) { return r.Finish(ctx) }),
	}
	retriesFlag(finish.Flags())
	finish.Flags().BoolVar(&o.force, "force", false, "delete the bridges even while pods started before the cut-over run")

	rollback := &cobra.Command{
		Use:   "rollback",
		Short: "Undo a renumber before its cut-over: every Service back to its old addresses (the kubernetes Service once the apiservers serve the old range)",
		Args:  cobra.NoArgs,
		RunE:  printingLeft(func(r *renumber.Runner) ([]string, error) { return r.Rollback(ctx) }),
	}
	kubeProxyFlag(rollback.Flags())
	retriesFlag(rollback.Flags())
	root.AddCommand(plan, renum, finish, rollback)
	root.AddCommand(newFamilyCommands(ctx, o, stdout)...)
	return root
}

// parseDryRun tells whether renumber's --dry-run asks for the plan only.
func parseDryRun(s string) (bool, error) {
	d, err := family.ParseDryRun(s)
	return err == nil && d != family.DryRunNone, err
}

// client builds a clientset from kubectl's flags and kubeconfig, and returns
// the connection's config too, whose serving certificate the plan checks.
func (o *options) client() (kubernetes.Interface, *rest.Config, error) {
	cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(o.loading, o.overrides).ClientConfig()
	if err != nil {
		return nil, nil, fmt.Errorf("kubeconfig: %w", err)
	}
	cfg.UserAgent = renumber.FieldManager
	// client-go's default of 5 requests a second would hold each Service's old address
	// unserved for two throttled requests (about 400 ms) between its flip to ExternalName and
	// its bridge's create, long enough for kube-proxy to sync the gap; kubectl asks for 50.
	if cfg.QPS == 0 {
		cfg.QPS, cfg.Burst = clientQPS, clientBurst
	}
	client, err := kubernetes.NewForConfig(cfg)
	return client, cfg, err
}

// clientQPS and clientBurst are the plugin's client-side rate limit, kubectl's own.
const (
	clientQPS   = 50
	clientBurst = 300
)

func (o *options) runner(log io.Writer) (*renumber.Runner, error) {
	switch o.output {
	case "", "yaml", "json":
	default:
		return nil, fmt.Errorf("-o %q: want yaml or json", o.output)
	}
	var to renumber.Ranges
	if o.to != "" {
		var err error
		if to, err = renumber.ParseRanges(o.to); err != nil {
			return nil, fmt.Errorf("--to: %w", err)
		}
	}
	client, cfg, err := o.newClient()
	if err != nil {
		return nil, err
	}
	pause := o.kubeProxySync
	switch {
	case pause < 0:
		return nil, fmt.Errorf("--kube-proxy-sync-period %s: want 0 or more", pause)
	case pause == 0:
		pause = -1 // Options: none
	}
	retries := o.retries
	switch {
	case retries < 0:
		return nil, fmt.Errorf("--retries %d: want 0 or more", retries)
	case retries == 0:
		retries = -1 // Options: none
	}
	return renumber.New(client, renumber.Options{To: to, IncludeLoadBalancers: o.includeLB, StopBeforeCutOver: o.stopBeforeCutOver, Force: o.force, Log: log, Config: cfg, KubeProxySyncPeriod: pause, Retries: retries}), nil
}

// printPlan writes pl as text, YAML or JSON.
func printPlan(w io.Writer, pl *renumber.Plan, format string) error {
	switch format {
	case "json":
		b, err := json.MarshalIndent(pl, "", "  ")
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(w, "%s\n", b)
		return err
	case "yaml":
		b, err := yaml.Marshal(pl)
		if err != nil {
			return err
		}
		_, err = w.Write(b)
		return err
	}
	phase := string(pl.Phase)
	if phase == "" {
		phase = "not started"
	}
	fmt.Fprintf(w, "Renumber %s -> %s (phase: %s)\n\nServices:\n", strings.Join(pl.From, ","), strings.Join(pl.To, ","), phase)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "  NAMESPACE\tNAME\tTYPE\tWHAT\tOLD\tNEW\tBRIDGE")
	for _, s := range pl.Services {
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\t%s\t%s\n", s.Namespace, s.Name, s.Type, s.Disposition,
			orDash(strings.Join(s.OldClusterIPs, ",")), orDash(strings.Join(s.NewClusterIPs, ",")), orDash(s.Bridge))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w, "\nSteps:")
	for i, s := range pl.Steps {
		fmt.Fprintf(w, "%3d. %s\n", i+1, s)
	}
	printLeft(w, pl.LeftToOperator)
	if len(pl.Notes) > 0 {
		fmt.Fprintln(w, "\nNotes:")
		for _, n := range pl.Notes {
			fmt.Fprintf(w, "  - %s\n", n)
		}
	}
	return nil
}

func printLeft(w io.Writer, left []string) {
	if len(left) == 0 {
		return
	}
	fmt.Fprintln(w, "\nLeft to the operator and the apiservers:")
	for _, l := range left {
		fmt.Fprintf(w, "  - %s\n", l)
	}
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
