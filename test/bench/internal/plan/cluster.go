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

package plan

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/spf13/pflag"
)

// clusterN is --n's default with --cluster: a kind cluster on 2 cores creates a few dozen
// Services a second.
const clusterN = 1000

// nameRE is what --apiserver and --topology accept: they name rows and files.
var nameRE = regexp.MustCompile(`^[a-z0-9][-a-z0-9]*$`)

// ClusterOptions measure a running cluster's apiserver once (--cluster), or print the
// table of such measurements (--cluster-report): kind/bench.sh switches the cluster's
// control planes between apiservers and calls the benchmark once per apiserver and round.
type ClusterOptions struct {
	// Kubeconfig is the cluster's: the Services go through its endpoint (kind's load
	// balancer with several control planes).
	Kubeconfig string
	// Nodes are the node containers whose components' CPU time is read (docker exec).
	Nodes []string
	// Endpoints are the apiservers' own https://HOST:PORT, polled for readiness flaps.
	Endpoints []string
	// APIServer and Topology name what is measured, for the table.
	APIServer, Topology string
	// Round numbers the measurement among the rounds of its apiserver.
	Round int
	// DualStack makes every third Service PreferDualStack (a dual-stack cluster).
	DualStack bool
	// SettleTimeout bounds the wait for the cluster to pass its checks after a phase.
	SettleTimeout time.Duration
	// Report names cluster-results.json files to print the table of; nothing is run.
	Report []string
}

// On says whether the options measure a cluster or report on such measurements.
func (c *ClusterOptions) On() bool {
	return c.Kubeconfig != "" || len(c.Report) > 0
}

// addFlags binds the cluster options to fs.
func (c *ClusterOptions) addFlags(fs *pflag.FlagSet) {
	fs.StringVar(&c.Kubeconfig, "cluster", c.Kubeconfig, "kubeconfig of a running cluster: create and delete --n Services through its endpoint once, append the measurement to cluster-results.json in --output-dir, and run nothing else")
	fs.StringSliceVar(&c.Nodes, "nodes", c.Nodes, "with --cluster: node containers whose components' CPU time is read with docker exec")
	fs.StringSliceVar(&c.Endpoints, "apiserver-endpoints", c.Endpoints, "with --cluster: each apiserver's own https://HOST:PORT, whose /readyz is polled for flaps")
	fs.StringVar(&c.APIServer, "apiserver", c.APIServer, "with --cluster: the apiserver the control planes run (netfork, upstream), naming the measurement")
	fs.StringVar(&c.Topology, "topology", c.Topology, "with --cluster: the cluster's topology (single, ha), naming the measurement")
	fs.IntVar(&c.Round, "round", 1, "with --cluster: the measurement's round")
	fs.BoolVar(&c.DualStack, "dual-stack", c.DualStack, "with --cluster: make every third Service PreferDualStack")
	fs.DurationVar(&c.SettleTimeout, "settle-timeout", 3*time.Minute, "with --cluster: bound on the wait for the checks to pass after a phase (EndpointSlices are deleted after their Services)")
	fs.StringSliceVar(&c.Report, "cluster-report", c.Report, "cluster-results.json files: print their table of apiservers, ratios and spread, and run nothing")
}

// clusterFlags are the flags a --cluster measurement reads besides its own.
var clusterFlags = []string{"n", "workers", "phase-timeout", "output-dir", "profile", "profile-duration", "profile-phase", "netfork-binary", "upstream-binary", "chart-binary"}

// parseCluster validates the options of --cluster or --cluster-report, refusing the flags
// they do not read, by name.
func (o *Options) parseCluster(fs *pflag.FlagSet) error {
	c := &o.Cluster
	own := []string{"cluster", "nodes", "apiserver-endpoints", "apiserver", "topology", "round", "dual-stack", "settle-timeout"}
	allowed := append(slices.Clone(own), clusterFlags...)
	if len(c.Report) > 0 {
		allowed = []string{"cluster-report", "netfork-binary", "upstream-binary", "chart-binary"}
	}
	var refused []string
	fs.Visit(func(f *pflag.Flag) {
		if !slices.Contains(allowed, f.Name) {
			refused = append(refused, "--"+f.Name)
		}
	})
	if len(refused) > 0 {
		mode := "--cluster"
		if len(c.Report) > 0 {
			mode = "--cluster-report"
		}
		return fmt.Errorf("%s does not read %s; drop it", mode, strings.Join(refused, ", "))
	}
	if len(c.Report) > 0 {
		return nil
	}
	if !fs.Changed("n") {
		o.Ns = []int{clusterN}
	}
	return o.validateCluster()
}

// validateCluster rejects a --cluster measurement that could not complete, naming the flag.
func (o *Options) validateCluster() error {
	c := &o.Cluster
	if len(o.Ns) != 1 || o.Ns[0] < 1 || o.Ns[0] > maxServices {
		return fmt.Errorf("--n: --cluster measures one Service count, 1-%d, not %v", maxServices, o.Ns)
	}
	if o.Workers < 1 {
		return fmt.Errorf("--workers: %d is not a positive number of workers", o.Workers)
	}
	if o.PhaseTimeout <= 0 || c.SettleTimeout <= 0 {
		return fmt.Errorf("--phase-timeout and --settle-timeout must be positive")
	}
	if _, err := os.Stat(c.Kubeconfig); err != nil {
		return fmt.Errorf("--cluster: %w", err)
	}
	for flag, name := range map[string]string{"apiserver": c.APIServer, "topology": c.Topology} {
		if !nameRE.MatchString(name) {
			return fmt.Errorf("--%s: %q is not a lower-case name (e.g. netfork, single)", flag, name)
		}
	}
	if err := o.validateProfile(); err != nil {
		return err
	}
	if c.Round < 1 {
		return fmt.Errorf("--round: %d is not a positive round", c.Round)
	}
	for _, node := range c.Nodes {
		if node == "" {
			return fmt.Errorf("--nodes: an empty node name")
		}
	}
	for _, e := range c.Endpoints {
		if u, err := url.Parse(e); err != nil || u.Scheme != "https" || u.Host == "" || (u.Path != "" && u.Path != "/") {
			return fmt.Errorf("--apiserver-endpoints: %q is not https://HOST:PORT", e)
		}
	}
	return nil
}

// ClusterJSON is cluster-results.json in --output-dir: every --cluster measurement made there.
func (o *Options) ClusterJSON() string { return filepath.Join(o.OutputDir, "cluster-results.json") }

// ClusterCSV is cluster-results.csv, one row per measurement.
func (o *Options) ClusterCSV() string { return filepath.Join(o.OutputDir, "cluster-results.csv") }

// ClusterProfiles is the directory of a --cluster measurement's --profile CPU profiles.
func (o *Options) ClusterProfiles() string { return filepath.Join(o.OutputDir, "profiles") }
