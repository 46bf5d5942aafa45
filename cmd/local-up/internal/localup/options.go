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
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/netfork/netfork/internal/cmdutil"
)

const (
	// maxAPIServers keeps every bind address inside 127.0.0.1-127.0.0.200 and every
	// advertise address inside 198.18.0.1-198.18.0.200.
	maxAPIServers = 200
	// defaultDataDir is where `make run` keeps the local cluster.
	defaultDataDir = "_output/local"
	// defaultPort is the apiserver's usual secure port.
	defaultPort = 6443
	// defaultReadyTimeout bounds the wait for every apiserver's /readyz.
	defaultReadyTimeout = 60 * time.Second
)

// Options are local-up's own flags plus the kube-apiserver flags given after "--".
type Options struct {
	// APIServers is how many kube-apiserver processes to run.
	APIServers int
	// DataDir holds etcd data, the PKI, logs, the kubeconfig and local-up.json.
	DataDir string
	// Clean wipes what local-up created in DataDir before starting.
	Clean bool
	// Port is the secure port every apiserver listens on, each on its own loopback address.
	Port int
	// APIServerBinary is the kube-apiserver to run; empty means the default lookup.
	APIServerBinary string
	// ReadyTimeout bounds the wait until every apiserver's /readyz returns 200.
	ReadyTimeout time.Duration
	// EtcdLogLevel is the embedded etcd's log level; its logs go to logs/etcd.log.
	EtcdLogLevel string
	// APIServerArgs follow "--" and are appended after local-up's defaults, so they win.
	APIServerArgs []string
	// BinaryAt ("--binary-at I=PATH") runs another binary as apiserver I.
	BinaryAt []string
	// FlagAt ("--flag-at I=FLAG") appends one flag to apiserver I's, after APIServerArgs.
	FlagAt []string
	// binaryAt and flagsAt are BinaryAt and FlagAt by index, filled by Validate.
	binaryAt map[int]string
	flagsAt  map[int][]string
}

// NewOptions returns the defaults `make run` relies on.
func NewOptions() *Options {
	return &Options{
		APIServers:   1,
		DataDir:      defaultDataDir,
		Port:         defaultPort,
		ReadyTimeout: defaultReadyTimeout,
		EtcdLogLevel: "warn",
	}
}

// AddFlags binds the options to fs.
func (o *Options) AddFlags(fs *pflag.FlagSet) {
	fs.IntVar(&o.APIServers, "apiservers", o.APIServers, fmt.Sprintf("number of kube-apiservers to run (1-%d); apiserver i binds 127.0.0.(i+1)", maxAPIServers))
	fs.StringVar(&o.DataDir, "data-dir", o.DataDir, "directory for etcd data, PKI, logs and the kubeconfig; reused on restart")
	fs.BoolVar(&o.Clean, "clean", o.Clean, "wipe what local-up created in --data-dir first, starting a new cluster")
	fs.IntVar(&o.Port, "port", o.Port, "secure port of every kube-apiserver")
	fs.StringVar(&o.APIServerBinary, "apiserver-binary", o.APIServerBinary, "kube-apiserver binary (default: kube-apiserver next to local-up, else _output/bin/kube-apiserver)")
	fs.DurationVar(&o.ReadyTimeout, "ready-timeout", o.ReadyTimeout, "how long to wait for every kube-apiserver's /readyz")
	fs.StringVar(&o.EtcdLogLevel, "etcd-log-level", o.EtcdLogLevel, "embedded etcd's log level (debug, info, warn, error), logged to <data-dir>/logs/etcd.log")
	fs.StringArrayVar(&o.BinaryAt, "binary-at", o.BinaryAt, "I=PATH: run PATH as apiserver I instead of --apiserver-binary (repeatable)")
	fs.StringArrayVar(&o.FlagAt, "flag-at", o.FlagAt, "I=FLAG: give apiserver I one more kube-apiserver flag, after the ones after -- (repeatable, e.g. --flag-at 2=--feature-gates=DisableAllocatorDualWrite=false)")
}

// Parse reads args (without the program name) into o: local-up flags, then "--", then
// kube-apiserver flags, which are kept verbatim.
func (o *Options) Parse(fs *pflag.FlagSet, args []string) error {
	o.AddFlags(fs)
	var err error
	o.APIServerArgs, err = cmdutil.ArgsAfterDash(fs, args, "kube-apiserver")
	return err
}

// Validate rejects options local-up cannot run with, naming the flag at fault.
func (o *Options) Validate() error {
	if o.APIServers < 1 || o.APIServers > maxAPIServers {
		return fmt.Errorf("--apiservers %d is out of range: use 1 to %d", o.APIServers, maxAPIServers)
	}
	if o.Port < 1 || o.Port > 65535 {
		return fmt.Errorf("--port %d is not a valid port", o.Port)
	}
	if strings.TrimSpace(o.DataDir) == "" {
		return fmt.Errorf("--data-dir must not be empty")
	}
	if o.ReadyTimeout <= 0 {
		return fmt.Errorf("--ready-timeout %s must be positive", o.ReadyTimeout)
	}
	switch o.EtcdLogLevel {
	case "debug", "info", "warn", "error":
	default:
		return fmt.Errorf("--etcd-log-level %q is not one of debug, info, warn, error", o.EtcdLogLevel)
	}
	o.binaryAt, o.flagsAt = map[int]string{}, map[int][]string{}
	for _, v := range o.BinaryAt {
		i, path, err := o.indexed("--binary-at", v)
		if err != nil {
			return err
		}
		if _, dup := o.binaryAt[i]; dup {
			return fmt.Errorf("--binary-at %s: apiserver %d already has a binary", v, i)
		}
		o.binaryAt[i] = path
	}
	for _, v := range o.FlagAt {
		i, flag, err := o.indexed("--flag-at", v)
		if err != nil {
			return err
		}
		if !strings.HasPrefix(flag, "-") {
			return fmt.Errorf("--flag-at %s: %q is not a flag (one --flag-at per flag, e.g. %d=--v=4)", v, flag, i)
		}
		o.flagsAt[i] = append(o.flagsAt[i], flag)
	}
	return nil
}

// indexed splits an "I=VALUE" flag value and checks I names one of the apiservers.
func (o *Options) indexed(flag, v string) (int, string, error) {
	index, value, found := strings.Cut(v, "=")
	i, err := strconv.Atoi(index)
	if !found || err != nil || value == "" {
		return 0, "", fmt.Errorf("%s %q: want INDEX=VALUE, e.g. 1=--v=4", flag, v)
	}
	if i < 0 || i >= o.APIServers {
		return 0, "", fmt.Errorf("%s %s: apiserver %d does not exist (--apiservers %d runs 0 to %d)", flag, v, i, o.APIServers, o.APIServers-1)
	}
	return i, value, nil
}

// binaryFor is the binary flag value for apiserver i: its --binary-at, else --apiserver-binary.
func (o *Options) binaryFor(i int) string {
	if b, ok := o.binaryAt[i]; ok {
		return b
	}
	return o.APIServerBinary
}

// userArgsFor are apiserver i's flags after local-up's defaults: those after --, then its --flag-at.
func (o *Options) userArgsFor(i int) []string {
	return append(append([]string(nil), o.APIServerArgs...), o.flagsAt[i]...)
}
