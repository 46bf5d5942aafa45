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
	"os"
	"slices"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/netfork/netfork/test/bench/internal/ranges"
)

// Usage is printed above the flags by --help.
const Usage = `Usage: bench-services [flags]

Creates and deletes N Services against each contender's kube-apiserver, each run on a
fresh embedded etcd, and writes results.csv, results.json, chart.json and (with
--chart-binary) latency.png to --output-dir. With --report it runs nothing: it reads
earlier runs' results.json files and prints their targets table together. With
--cluster it measures a running cluster's apiserver once (kind/bench.sh), and with
--cluster-report prints the table of such measurements.

Flags:
`

const (
	// maxServices bounds --n: the ClusterIPs fill under a tenth of ranges.ServiceCIDR, so
	// the allocators never search a nearly full range (see ranges.MaxNodePorts for the
	// NodePorts).
	maxServices = 100000
	// maxApiservers bounds --apiservers: each apiserver holds every Service and
	// IPAddress in its watch cache, and the machine has two cores.
	maxApiservers = 5
	// maxProfileDuration keeps a profile request under the apiserver's 60s request timeout.
	maxProfileDuration = 50 * time.Second
	// PhaseCreate names the timed create phase, for --profile-phase.
	PhaseCreate = "create"
	// PhaseDelete names the timed delete phase, for --profile-phase.
	PhaseDelete = "delete"
)

var (
	// shortNs, shortCIDRs and shortRounds are `make bench`: small enough for 10 minutes on 2 cores.
	shortNs, shortCIDRs, shortRounds = []int{1000, 10000}, []int{0}, 1
	// fullRounds is --full's default number of rounds, enough to show the spread.
	fullRounds = 3
	// fullMatrix is --full: each cell with the contenders whose runs a target needs, so that
	// three rounds take under an hour on 2 cores. The floor runs at 10k, 30k and 100k, where
	// netfork's creates, deletes and memory are held to it; dual-write, upstream and netfork
	// at upstream's pace at 10k; every contender at 1000 and netfork with 1000 extra
	// ServiceCIDRs at 100k once, for the chart and that cell's targets. A run whose deletes no
	// target reads ends after its create phase (CreateOnly): upstream's and its paced
	// follower's at 10k (150 s each on 2 cores) and the floor's at 100k. What does not fit
	// has an invocation of its own (report.OutsideFull): upstream at 30k, whose create
	// phase alone takes 15 to 25 minutes, and the runs with three apiservers. Three rounds
	// took 38m49s.
	fullMatrix = []Cell{
		{N: 1000, CIDRs: 0, Contenders: ContenderNames(), Rounds: 1},
		{N: 10000, CIDRs: 0, Contenders: []string{"netfork", "netfork-dualwrite", "upstream", "netfork-upstream-pace", "floor-headless"},
			CreateOnly: []string{"upstream", "netfork-upstream-pace"}},
		{N: 30000, CIDRs: 0, Contenders: []string{"netfork", "floor-headless"}},
		{N: 100000, CIDRs: 0, Contenders: []string{"netfork", "floor-headless"}, CreateOnly: []string{"floor-headless"}},
		{N: 100000, CIDRs: 1000, Contenders: []string{"netfork"}, Rounds: 1, CreateOnly: []string{"netfork"}},
	}
)

// Cell is one (N, K) cell of the matrix and the contenders that run it.
type Cell struct {
	N, CIDRs   int
	Contenders []string
	// Rounds, when positive, limits the cell to the first Rounds rounds.
	Rounds int
	// CreateOnly names the cell's contenders whose runs end after the create phase and
	// its checks: no target reads their deletes.
	CreateOnly []string
}

// inRound says whether the cell runs in the given round (1-based).
func (c Cell) inRound(round int) bool {
	return c.Rounds <= 0 || round <= c.Rounds
}

// Options are the benchmark's flags.
type Options struct {
	// Ns are the Service counts to run, each a run of its own.
	Ns []int
	// Workers is how many client goroutines create and delete concurrently.
	Workers int
	// Rate, when positive, holds every run's phases to that many requests per second
	// across the workers, so contenders can be compared at one pace.
	Rate float64
	// Apiservers is how many kube-apiservers each run starts on its one etcd; worker w
	// sends its requests to apiserver w mod Apiservers.
	Apiservers int
	// CIDRs are the numbers of extra ServiceCIDRs to create before the Services.
	CIDRs []int
	// Rounds repeats the whole matrix, contenders interleaved, so noise shows as spread.
	Rounds int
	// Full runs the full matrix instead of every contender in every cell of Ns by CIDRs, for
	// Rounds rounds (fullRounds unless set).
	Full bool
	// Contenders names the contenders to run, in order.
	Contenders []string
	// CreateOnly names contenders whose runs end after the create phase and its checks,
	// without deleting: their deletes are not measured.
	CreateOnly []string
	// OutputDir receives results, the chart, logs, profiles and the runs' etcd data.
	OutputDir string
	// NetforkBinary and UpstreamBinary are the kube-apiservers the contenders run.
	NetforkBinary, UpstreamBinary string
	// Profile grabs a CPU profile of each run's (first) apiserver from the start of each
	// ProfilePhase and its heap profiles before and after each phase.
	Profile bool
	// ProfileDuration is the length of that profile.
	ProfileDuration time.Duration
	// ProfilePhase is the phase the CPU profile starts with: create or delete.
	ProfilePhase string
	// PhaseTimeout bounds one create or delete phase; a run past it failed.
	PhaseTimeout time.Duration
	// ReadyTimeout bounds the wait for a new apiserver to serve.
	ReadyTimeout time.Duration
	// KeepData keeps each run's etcd data dir instead of removing it when the run ends.
	KeepData bool
	// ChartBinary is test/bench/chart, which draws chart.json as latency.png; empty skips it.
	ChartBinary string
	// Report names results.json files of earlier runs to evaluate the targets over, together
	// (e.g. a --full run and an --apiservers 3 run); nothing is run.
	Report []string
	// Cluster measures a running cluster instead of the matrix (--cluster), or prints the
	// table of such measurements (--cluster-report).
	Cluster ClusterOptions
}

// NewOptions returns the defaults `make bench` relies on.
func NewOptions() *Options {
	upstream := os.Getenv("NETFORK_UPSTREAM_APISERVER")
	if upstream == "" {
		upstream = "_output/upstream/kube-apiserver"
	}
	return &Options{
		Ns:              shortNs,
		Workers:         100,
		Apiservers:      1,
		CIDRs:           shortCIDRs,
		Rounds:          shortRounds,
		Contenders:      ContenderNames(),
		OutputDir:       "_output/bench",
		NetforkBinary:   "_output/bin/kube-apiserver",
		UpstreamBinary:  upstream,
		ProfileDuration: 30 * time.Second,
		ProfilePhase:    PhaseCreate,
		PhaseTimeout:    15 * time.Minute,
		ReadyTimeout:    3 * time.Minute,
	}
}

// addFlags binds the options to fs.
func (o *Options) addFlags(fs *pflag.FlagSet) {
	fs.IntSliceVar(&o.Ns, "n", o.Ns, "numbers of Services to create and delete, one run each")
	fs.IntVar(&o.Workers, "workers", o.Workers, "concurrent client workers")
	fs.Float64Var(&o.Rate, "rate", o.Rate, "requests per second across the workers in each phase of every run; 0 is as fast as they go (a paced contender keeps its pacer's rate)")
	fs.IntVar(&o.Apiservers, "apiservers", o.Apiservers, fmt.Sprintf("kube-apiservers (1-%d) per run, all on the run's etcd, the workers spread over them", maxApiservers))
	fs.IntSliceVar(&o.CIDRs, "cidrs", o.CIDRs, fmt.Sprintf("numbers of extra /24 ServiceCIDRs (0-%d) to create before the Services, one run each", ranges.MaxExtraCIDRs))
	fs.IntVar(&o.Rounds, "rounds", o.Rounds, "rounds over the whole matrix, contenders interleaved; 3 or more show the machine's noise")
	fs.BoolVar(&o.Full, "full", o.Full, fmt.Sprintf("run the full matrix, %d rounds unless --rounds is set: %s", fullRounds, DescribeMatrix(fullMatrix)))
	fs.StringSliceVar(&o.Contenders, "contenders", o.Contenders, "contenders to run, in this order within a round")
	fs.StringSliceVar(&o.CreateOnly, "create-only", o.CreateOnly, "contenders whose runs end after the create phase and its checks, without a delete phase")
	fs.StringVar(&o.OutputDir, "output-dir", o.OutputDir, "directory for results, chart, logs, profiles and etcd data")
	fs.StringVar(&o.NetforkBinary, "netfork-binary", o.NetforkBinary, "netfork's kube-apiserver (make build)")
	fs.StringVar(&o.UpstreamBinary, "upstream-binary", o.UpstreamBinary, "upstream's kube-apiserver at the release go.mod pins, built from this module's graph; $NETFORK_UPSTREAM_APISERVER sets the default")
	fs.BoolVar(&o.Profile, "profile", o.Profile, "save a CPU profile of every run's apiserver, taken from the start of each --profile-phase, and its heap profiles before and after each phase; with --cluster, CPU profiles of the first --apiserver-endpoints back to back through --profile-phase")
	fs.DurationVar(&o.ProfileDuration, "profile-duration", o.ProfileDuration, "length of each --profile CPU profile")
	fs.StringVar(&o.ProfilePhase, "profile-phase", o.ProfilePhase, "phase each --profile CPU profile starts with: create or delete")
	fs.DurationVar(&o.PhaseTimeout, "phase-timeout", o.PhaseTimeout, "bound on one create or delete phase; a run past it is reported failed")
	fs.DurationVar(&o.ReadyTimeout, "ready-timeout", o.ReadyTimeout, "bound on a new apiserver becoming ready")
	fs.BoolVar(&o.KeepData, "keep-data", o.KeepData, "keep each run's etcd data dir (several GiB for the bitmap contenders at 10k)")
	fs.StringSliceVar(&o.Report, "report", o.Report, "results.json files of earlier runs: print the targets table of their runs together and run nothing")
	fs.StringVar(&o.ChartBinary, "chart-binary", o.ChartBinary, "test/bench/chart binary that draws chart.json as latency.png (make bench builds it); empty writes chart.json only")
	o.Cluster.addFlags(fs)
}

// Parse reads args into o, applies --full and validates the result.
func (o *Options) Parse(fs *pflag.FlagSet, args []string) error {
	o.addFlags(fs)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if o.Cluster.On() {
		return o.parseCluster(fs)
	}
	if len(o.Report) > 0 {
		var runFlags []string
		fs.Visit(func(f *pflag.Flag) {
			// hack/bench-services.sh passes the binaries to every invocation.
			if !slices.Contains([]string{"report", "netfork-binary", "upstream-binary", "chart-binary"}, f.Name) {
				runFlags = append(runFlags, "--"+f.Name)
			}
		})
		if len(runFlags) > 0 {
			return fmt.Errorf("--report runs nothing; drop %s", strings.Join(runFlags, ", "))
		}
		return nil
	}
	if o.Full {
		for _, flag := range []string{"n", "cidrs", "contenders", "create-only"} {
			if fs.Changed(flag) {
				return fmt.Errorf("--%s: --full runs its own matrix (%s); drop --full to choose", flag, DescribeMatrix(fullMatrix))
			}
		}
		if !fs.Changed("rounds") {
			o.Rounds = fullRounds
		}
	}
	return o.validate()
}

// Matrix is the cells to run each round: the full matrix for --full, otherwise every
// contender in every cell of Ns by CIDRs.
func (o *Options) Matrix() []Cell {
	if o.Full {
		return fullMatrix
	}
	var cells []Cell
	for _, n := range o.Ns {
		for _, k := range o.CIDRs {
			cells = append(cells, Cell{N: n, CIDRs: k, Contenders: o.Contenders, CreateOnly: o.CreateOnly})
		}
	}
	return cells
}

// ContenderOrder is every contender the matrix runs, in default order where --full chose
// them, so the report lists them as --contenders would.
func (o *Options) ContenderOrder() []string {
	if !o.Full {
		return o.Contenders
	}
	var names []string
	for _, name := range ContenderNames() {
		for _, c := range fullMatrix {
			if slices.Contains(c.Contenders, name) {
				names = append(names, name)
				break
			}
		}
	}
	return names
}

// DescribeMatrix spells cells for --help and errors: n=1000 k=0 (netfork, upstream); ...
func DescribeMatrix(cells []Cell) string {
	parts := make([]string, len(cells))
	for i, c := range cells {
		parts[i] = fmt.Sprintf("n=%d k=%d (%s)", c.N, c.CIDRs, strings.Join(c.Contenders, ", "))
		if len(c.CreateOnly) > 0 {
			parts[i] += fmt.Sprintf(" (no delete phase: %s)", strings.Join(c.CreateOnly, ", "))
		}
		if c.Rounds > 0 {
			parts[i] += fmt.Sprintf(" in the first %d round(s)", c.Rounds)
		}
	}
	return strings.Join(parts, "; ")
}

// validate rejects options no run could complete with, naming the flag at fault.
func (o *Options) validate() error {
	if len(o.Ns) == 0 {
		return fmt.Errorf("--n: at least one Service count is required")
	}
	for _, n := range o.Ns {
		if n < 1 || n > maxServices {
			return fmt.Errorf("--n: %d is outside 1-%d Services", n, maxServices)
		}
	}
	if len(o.CIDRs) == 0 {
		return fmt.Errorf("--cidrs: at least one count is required (0 for none)")
	}
	for _, k := range o.CIDRs {
		if k < 0 || k > ranges.MaxExtraCIDRs {
			return fmt.Errorf("--cidrs: %d is outside 0-%d", k, ranges.MaxExtraCIDRs)
		}
	}
	if o.Workers < 1 {
		return fmt.Errorf("--workers: %d is not a positive number of workers", o.Workers)
	}
	if o.Rate < 0 {
		return fmt.Errorf("--rate: %g is not a rate; 0 runs unpaced", o.Rate)
	}
	if o.Apiservers < 1 || o.Apiservers > maxApiservers {
		return fmt.Errorf("--apiservers: %d is outside 1-%d", o.Apiservers, maxApiservers)
	}
	if o.Apiservers > o.Workers {
		return fmt.Errorf("--apiservers: %d apiservers need at least as many --workers, not %d", o.Apiservers, o.Workers)
	}
	if o.Rounds < 1 {
		return fmt.Errorf("--rounds: %d is not a positive number of rounds", o.Rounds)
	}
	if o.PhaseTimeout <= 0 || o.ReadyTimeout <= 0 {
		return fmt.Errorf("--phase-timeout and --ready-timeout must be positive")
	}
	if err := o.validateProfile(); err != nil {
		return err
	}
	if len(o.Contenders) == 0 {
		return fmt.Errorf("--contenders: at least one contender is required")
	}
	seen := map[string]bool{}
	for _, name := range o.ContenderOrder() {
		c, ok := LookupContender(name)
		if !ok {
			return fmt.Errorf("--contenders: unknown contender %q (known: %v)", name, ContenderNames())
		}
		if seen[name] {
			return fmt.Errorf("--contenders: %q is listed twice", name)
		}
		seen[name] = true
		if err := checkBinary(c.BinaryFlag, c.Binary(o)); err != nil {
			return err
		}
	}
	for _, name := range o.CreateOnly {
		if !slices.Contains(o.ContenderOrder(), name) {
			return fmt.Errorf("--create-only: %q is not one of the contenders %v", name, o.ContenderOrder())
		}
	}
	if err := o.validatePacers(); err != nil {
		return err
	}
	return nil
}

// validateProfile rejects a --profile-duration the apiserver would time out and an
// unknown --profile-phase.
func (o *Options) validateProfile() error {
	if o.Profile && (o.ProfileDuration < time.Second || o.ProfileDuration > maxProfileDuration) {
		return fmt.Errorf("--profile-duration: %s is outside 1s-%s (the apiserver times requests out at 60s)", o.ProfileDuration, maxProfileDuration)
	}
	if o.ProfilePhase != PhaseCreate && o.ProfilePhase != PhaseDelete {
		return fmt.Errorf("--profile-phase: %q is neither %s nor %s", o.ProfilePhase, PhaseCreate, PhaseDelete)
	}
	return nil
}

// validatePacers fails when a cell runs a paced contender without the one that sets its pace.
func (o *Options) validatePacers() error {
	for _, cell := range o.Matrix() {
		for _, name := range cell.Contenders {
			c, _ := LookupContender(name)
			if c.PacedBy != "" && !slices.Contains(cell.Contenders, c.PacedBy) {
				return fmt.Errorf("--contenders: %s takes its pace from %s, which is not in its cell n=%d k=%d", name, c.PacedBy, cell.N, cell.CIDRs)
			}
			if c.PacedBy != "" && slices.Contains(cell.CreateOnly, c.PacedBy) && !slices.Contains(cell.CreateOnly, name) {
				return fmt.Errorf("--create-only: %s takes its delete pace from %s, which would not delete; add %s too", name, c.PacedBy, name)
			}
		}
	}
	return nil
}

// checkBinary fails early, naming the flag, when a contender's binary cannot run.
func checkBinary(flag, path string) error {
	info, err := os.Stat(path)
	if err != nil {
		return fmt.Errorf("--%s: %w", flag, err)
	}
	if info.IsDir() || info.Mode()&0o111 == 0 {
		return fmt.Errorf("--%s: %s is not an executable file", flag, path)
	}
	return nil
}
