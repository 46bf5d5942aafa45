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

package cli

import (
	"context"
	"io"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/netfork/netfork/pkg/servicecidr/family"
)

const (
	// namespacedAnnotation marks the subcommands -n/--namespace may narrow.
	namespacedAnnotation = "netfork.io/namespaced"
	replaceDefaultName   = "replace-default"
)

// newFamilyCommands are the subcommands that change the IP families of a
// live cluster: dual-stack, single-stack and replace-default.
func newFamilyCommands(ctx context.Context, o *options, stdout io.Writer) []*cobra.Command {
	// withFamily is a subcommand's body: do, with a family.Runner built from the flags.
	withFamily := func(do func(*family.Runner) error) func(*cobra.Command, []string) error {
		return func(*cobra.Command, []string) error {
			r, err := o.familyRunner(stdout)
			if err != nil {
				return err
			}
			return do(r)
		}
	}
	dryRunFlag := func(fs *pflag.FlagSet) {
		fs.StringVar(&o.dryRun, "dry-run", "none", `"none" to act; "client" to print what would change; "server" to send each update as a dry run`)
		fs.Lookup("dry-run").NoOptDefVal = "client"
	}
	selectFlags := func(fs *pflag.FlagSet) {
		fs.StringVarP(&o.selector, "selector", "l", "", "only the Services this label selector matches (kubectl's -l)")
		dryRunFlag(fs)
	}
	namespaced := map[string]string{namespacedAnnotation: "true"}

	dual := &cobra.Command{
		Use:   "dual-stack",
		Short: "Give every single-family Service the other IP family too, in place",
		Long: `dual-stack gives every Service with one IP family the other one too, in
place: it sets ipFamilyPolicy (--policy) and ipFamilies to its family and the
other, and the apiserver keeps the Service's UID and primary ClusterIP and
allocates it a ClusterIP of the other family (a headless Service gains the
family only). ExternalName Services, the apiservers' own default/kubernetes
Service (they make it dual-stack themselves) and renumber bridges are left
alone; -n/--namespace and -l/--selector narrow the run. It prints one line per
Service changed and a summary; run again, it changes nothing.

Run it after every kube-apiserver is rolled to two ranges
(--service-cluster-ip-range=<primary CIDR>,<CIDR of the other family>), once
the apiservers have added the second CIDR to the kubernetes ServiceCIDR: it
refuses before that, and while a renumber is in progress. A Service that comes
back with one family was answered by an apiserver still on one range: it names
it and fails; finish the roll and run dual-stack again.`,
		Args:        cobra.NoArgs,
		Annotations: namespaced,
		RunE: withFamily(func(r *family.Runner) error {
			_, err := r.DualStack(ctx)
			return err
		}),
	}
	dual.Flags().StringVar(&o.policy, "policy", "PreferDualStack", "the ipFamilyPolicy the Services get: PreferDualStack or RequireDualStack")
	selectFlags(dual.Flags())

	single := &cobra.Command{
		Use:   "single-stack",
		Short: "Take every dual-stack Service back to its primary IP family, in place",
		Long: `single-stack sets ipFamilyPolicy SingleStack on every Service with two IP
families, in place: the apiserver keeps its UID, primary ClusterIP and family,
and releases the secondary ClusterIP. The same Services as dual-stack's are
left alone, -n/--namespace and -l/--selector narrow the run the same way, and
run again it changes nothing.

The way back to one IP family is: single-stack first, while the apiservers
still serve two ranges; then roll every kube-apiserver to one range (the
apiservers make the kubernetes Service single-stack themselves); then
replace-default.`,
		Args:        cobra.NoArgs,
		Annotations: namespaced,
		RunE: withFamily(func(r *family.Runner) error {
			_, err := r.SingleStack(ctx)
			return err
		}),
	}
	selectFlags(single.Flags())

	replace := &cobra.Command{
		Use:   replaceDefaultName,
		Short: "Replace the two-CIDR kubernetes ServiceCIDR with the apiservers' one-CIDR one",
		Long: `replace-default replaces the kubernetes ServiceCIDR, which the apiservers keep
from their --service-cluster-ip-range and whose CIDRs cannot shrink, once they
serve one range: it creates ServiceCIDR ` + family.HoldName + ` with its primary CIDR,
so every address in use stays covered, deletes kubernetes, waits until the
apiservers have recreated it with one CIDR (the ServiceCIDR deletion controller
releases the old one after its grace period, 60 s), then deletes the hold and
waits until it is gone.

Run it last on the way back to one IP family: after single-stack and after
every kube-apiserver is rolled to one range. It refuses while any address of
the secondary CIDR is in use, the kubernetes Service's own included. If
kubernetes comes back with two CIDRs, an apiserver still serves two ranges: it
fails and leaves the hold; roll that apiserver and run it again. Killed at any
point, it continues when run again; with one CIDR and no hold it has nothing to do.`,
		Args: cobra.NoArgs,
		RunE: withFamily(func(r *family.Runner) error { return r.ReplaceDefault(ctx) }),
	}
	dryRunFlag(replace.Flags())
	return []*cobra.Command{dual, single, replace}
}

// familyRunner checks the family commands' flags and builds their Runner.
func (o *options) familyRunner(log io.Writer) (*family.Runner, error) {
	dry, err := family.ParseDryRun(o.dryRun)
	if err != nil {
		return nil, err
	}
	opts := family.Options{Namespace: o.overrides.Context.Namespace, Selector: o.selector, DryRun: dry, Log: log}
	if o.policy != "" {
		if opts.Policy, err = family.ParsePolicy(o.policy); err != nil {
			return nil, err
		}
	}
	client, _, err := o.newClient()
	if err != nil {
		return nil, err
	}
	return family.New(client, opts), nil
}
