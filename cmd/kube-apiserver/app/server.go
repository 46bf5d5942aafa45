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

package app

import (
	"context"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	genericapiserver "k8s.io/apiserver/pkg/server"
	"k8s.io/apiserver/pkg/server/flagz"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	cliflag "k8s.io/component-base/cli/flag"
	"k8s.io/component-base/cli/globalflag"
	basecompatibility "k8s.io/component-base/compatibility"
	"k8s.io/component-base/featuregate"
	"k8s.io/component-base/logs"
	logsapi "k8s.io/component-base/logs/api/v1"
	_ "k8s.io/component-base/metrics/prometheus/workqueue" // workqueue metrics
	"k8s.io/component-base/term"
	utilversion "k8s.io/component-base/version"
	"k8s.io/component-base/version/verflag"
	"k8s.io/klog/v2"

	"github.com/netfork/netfork/cmd/kube-apiserver/app/options"
)

// long is the command's description.
const long = `The Kubernetes API server validates and configures data
for the api objects which include pods, services, replicationcontrollers, and
others. This is netfork's build: upstream's kube-apiserver with netfork's
Service networking (multi-CIDR ClusterIPs, allocation bands, dual-stack apiserver).`

// NewAPIServerCommand returns the kube-apiserver command with upstream's flags
// and netfork's feature gates.
func NewAPIServerCommand() *cobra.Command {
	if err := options.RegisterFeatureGate(); err != nil {
		panic(fmt.Sprintf("registering netfork's feature gates: %v", err)) // upstream's specs are constant; this is a programming error
	}
	c := &command{s: options.NewServerRunOptions()}
	c.registry = c.s.GenericServerRunOptions.ComponentGlobalsRegistry
	c.gate = c.registry.FeatureGateFor(basecompatibility.DefaultKubeComponent).(featuregate.MutableFeatureGate)
	ctx := genericapiserver.SetupSignalContext()
	cmd := &cobra.Command{
		Use:  "kube-apiserver",
		Long: long,
		// upstream-shim begin: k8s.io/kubernetes/cmd/kube-apiserver/app/server.go NewAPIServerCommand
		// stop printing usage when the command errors
		SilenceUsage:      true,
		PersistentPreRunE: c.preRun,
		RunE:              func(cmd *cobra.Command, _ []string) error { return c.run(ctx, cmd) },
		Args:              c.args,
	}
	cmd.SetContext(ctx)
	namedFlagSets := c.s.Flags()
	c.s.Flagz = flagz.NamedFlagSetsReader{FlagSets: namedFlagSets}
	verflag.AddFlags(namedFlagSets.FlagSet("global"))
	globalflag.AddGlobalFlags(namedFlagSets.FlagSet("global"), cmd.Name(), logs.SkipLoggingConfigurationFlags())
	for _, f := range namedFlagSets.FlagSets {
		cmd.Flags().AddFlagSet(f)
	}
	cols, _, _ := term.TerminalSize(cmd.OutOrStdout())
	cliflag.SetUsageAndHelpFunc(cmd, namedFlagSets, cols)
	// upstream-shim end
	return cmd
}

// command holds what the command's steps share.
type command struct {
	s        *options.ServerRunOptions
	registry basecompatibility.ComponentGlobalsRegistry
	gate     featuregate.MutableFeatureGate
	// gatesSet tells preRun that args has set the gates already.
	gatesSet bool
}

// args runs after the flags are parsed and before logging starts, so a bad
// value there reads as upstream's flag parse errors do.
func (c *command) args(cmd *cobra.Command, args []string) error {
	// upstream-shim begin: k8s.io/kubernetes/cmd/kube-apiserver/app/server.go NewAPIServerCommand
	for _, arg := range args {
		if len(arg) > 0 {
			return fmt.Errorf("%q does not take any arguments, got %q", cmd.CommandPath(), args)
		}
	}
	// upstream-shim end
	// A gate error is left to preRun, which reports it as upstream does.
	if err := c.registry.Set(); err != nil {
		return nil
	}
	c.gatesSet = true
	if err := c.validateGates(); err != nil {
		return err
	}
	return c.s.ValidateAddressFlags()
}

// validateGates runs the registry's validation, which Validate runs again later, here
// too, so that a gate combination the apiserver would refuse fails `--version` as a bad
// flag does: tools (local-up) check a flag set that way before anything serves.
func (c *command) validateGates() error {
	return utilerrors.NewAggregate(c.registry.Validate())
}

func (c *command) preRun(*cobra.Command, []string) error {
	if !c.gatesSet {
		if err := c.registry.Set(); err != nil {
			return err
		}
	}
	// upstream-shim begin: k8s.io/kubernetes/cmd/kube-apiserver/app/server.go NewAPIServerCommand
	// loopback clients should not log warnings the apiserver issued to itself
	rest.SetDefaultWarningHandler(rest.NoWarnings{})
	return nil
	// upstream-shim end
}

func (c *command) run(ctx context.Context, cmd *cobra.Command) error {
	// upstream-shim begin: k8s.io/kubernetes/cmd/kube-apiserver/app/server.go NewAPIServerCommand
	verflag.PrintAndExitIfRequested()
	if err := logsapi.ValidateAndApply(c.s.Logs, c.gate); err != nil {
		return err
	}
	cliflag.PrintFlags(cmd.Flags())
	completed, err := c.s.Complete(ctx)
	if err != nil {
		return err
	}
	if errs := completed.Validate(); len(errs) != 0 {
		return utilerrors.NewAggregate(errs)
	}
	c.gate.AddMetrics()
	c.registry.AddMetrics()
	return Run(ctx, completed)
	// upstream-shim end
}

// Run builds the server chain from completed options and serves until ctx ends.
func Run(ctx context.Context, opts options.CompletedOptions) error {
	// upstream-shim begin: k8s.io/kubernetes/cmd/kube-apiserver/app/server.go Run
	klog.InfoS("Version", "version", utilversion.Get())
	klog.InfoS("Golang settings", "GOGC", os.Getenv("GOGC"), "GOMAXPROCS", os.Getenv("GOMAXPROCS"), "GOTRACEBACK", os.Getenv("GOTRACEBACK"))
	// upstream-shim end
	prepared, err := NewServer(opts)
	if err != nil {
		return err
	}
	return prepared.Run(ctx)
}

// PreparedServer is a server chain ready to serve; Run blocks until ctx ends
// and the server has shut down.
type PreparedServer interface {
	Run(ctx context.Context) error
}

// NewServer binds a dual-stack --bind-address, then builds and prepares the
// server chain without serving; tests run it themselves. configure, if any,
// changes the configuration before it is completed, e.g. for a test to
// shorten intervals no flag sets.
func NewServer(opts options.CompletedOptions, configure ...func(*Config)) (PreparedServer, error) {
	// upstream-shim begin: k8s.io/kubernetes/cmd/kube-apiserver/app/server.go Run
	if opts.InformerName == nil {
		informerName, err := cache.NewInformerName("kube-apiserver")
		if err != nil {
			return nil, err
		}
		opts.InformerName = informerName
	}
	// upstream-shim end
	listener, err := opts.Listen(context.Background())
	if err != nil {
		return nil, err
	}
	prepared, err := newServer(opts, configure)
	if err != nil && listener != nil {
		_ = listener.Close()
	}
	return prepared, err
}

// newServer builds the server chain on listeners that are already bound.
func newServer(opts options.CompletedOptions, configure []func(*Config)) (PreparedServer, error) {
	config, err := NewConfig(opts)
	if err != nil {
		return nil, err
	}
	for _, f := range configure {
		f(config)
	}
	// upstream-shim begin: k8s.io/kubernetes/cmd/kube-apiserver/app/server.go Run
	completed, err := config.Complete()
	if err != nil {
		return nil, err
	}
	server, err := CreateServerChain(completed)
	if err != nil {
		return nil, err
	}
	return server.PrepareRun()
	// upstream-shim end
}
