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
	"github.com/netfork/netfork/pkg/features"
)

// NewAPIServerCommand returns the kube-apiserver command with upstream's flags
// and netfork's feature gates.
func NewAPIServerCommand() *cobra.Command {
	s := options.NewServerRunOptions()
	ctx := genericapiserver.SetupSignalContext()
	featureGate := s.GenericServerRunOptions.ComponentGlobalsRegistry.FeatureGateFor(basecompatibility.DefaultKubeComponent)
	if err := features.AddToGate(featureGate.(featuregate.MutableVersionedFeatureGate)); err != nil {
		panic(fmt.Sprintf("registering netfork's feature gates: %v", err))
	}

	cmd := &cobra.Command{
		Use: "kube-apiserver",
		Long: `The Kubernetes API server validates and configures data
for the api objects which include pods, services, replicationcontrollers, and
others. This is netfork's build: upstream's kube-apiserver with netfork's
Service networking (multi-CIDR ClusterIPs, allocation bands, dual-stack apiserver).`,

		// stop printing usage when the command errors
		SilenceUsage: true,
		PersistentPreRunE: func(*cobra.Command, []string) error {
			if err := s.GenericServerRunOptions.ComponentGlobalsRegistry.Set(); err != nil {
				return err
			}
			// loopback clients should not log warnings the apiserver issued to itself
			rest.SetDefaultWarningHandler(rest.NoWarnings{})
			return nil
		},
		RunE: func(cmd *cobra.Command, _ []string) error {
			verflag.PrintAndExitIfRequested()
			if err := logsapi.ValidateAndApply(s.Logs, featureGate); err != nil {
				return err
			}
			cliflag.PrintFlags(cmd.Flags())

			completed, err := s.Complete(ctx)
			if err != nil {
				return err
			}
			if errs := completed.Validate(); len(errs) != 0 {
				return utilerrors.NewAggregate(errs)
			}
			featureGate.(featuregate.MutableFeatureGate).AddMetrics()
			s.GenericServerRunOptions.ComponentGlobalsRegistry.AddMetrics()
			return Run(ctx, completed)
		},
		Args: func(cmd *cobra.Command, args []string) error {
			for _, arg := range args {
				if len(arg) > 0 {
					return fmt.Errorf("%q does not take any arguments, got %q", cmd.CommandPath(), args)
				}
			}
			return nil
		},
	}
	cmd.SetContext(ctx)

	namedFlagSets := s.Flags()
	s.Flagz = flagz.NamedFlagSetsReader{FlagSets: namedFlagSets}
	verflag.AddFlags(namedFlagSets.FlagSet("global"))
	globalflag.AddGlobalFlags(namedFlagSets.FlagSet("global"), cmd.Name(), logs.SkipLoggingConfigurationFlags())
	for _, f := range namedFlagSets.FlagSets {
		cmd.Flags().AddFlagSet(f)
	}
	if err := features.WrapFeatureGatesFlag(cmd.Flags()); err != nil {
		panic(fmt.Sprintf("unlocking netfork's feature gates: %v", err))
	}
	cols, _, _ := term.TerminalSize(cmd.OutOrStdout())
	cliflag.SetUsageAndHelpFunc(cmd, namedFlagSets, cols)
	return cmd
}

// Run builds the server chain from completed options and serves until ctx ends.
func Run(ctx context.Context, opts options.CompletedOptions) error {
	klog.InfoS("Version", "version", utilversion.Get())
	klog.InfoS("Golang settings", "GOGC", os.Getenv("GOGC"), "GOMAXPROCS", os.Getenv("GOMAXPROCS"), "GOTRACEBACK", os.Getenv("GOTRACEBACK"))

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
	if opts.InformerName == nil {
		informerName, err := cache.NewInformerName("kube-apiserver")
		if err != nil {
			return nil, err
		}
		opts.InformerName = informerName
	}
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
	completed, err := config.Complete()
	if err != nil {
		return nil, err
	}
	server, err := CreateServerChain(completed)
	if err != nil {
		return nil, err
	}
	prepared, err := server.PrepareRun()
	if err != nil {
		return nil, err
	}
	return prepared, nil
}
