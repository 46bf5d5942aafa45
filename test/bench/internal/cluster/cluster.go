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

package cluster

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"k8s.io/client-go/kubernetes"
	restclient "k8s.io/client-go/rest"

	"github.com/netfork/netfork/internal/etcd"
	"github.com/netfork/netfork/internal/pki"
	"github.com/netfork/netfork/internal/proc"
)

// stopTimeout bounds an apiserver's graceful shutdown before it is killed.
const stopTimeout = 20 * time.Second

// etcdQuotaBytes lets the bitmap contenders, which rewrite a 128 KiB bitmap on every
// allocation and release, keep every revision of a 30k run between compactions.
const etcdQuotaBytes = 8 << 30

// Config is what one run's cluster is started with.
type Config struct {
	// Name names the run in log and directory names.
	Name string
	// Binary is the kube-apiserver to run, FeatureGates its --feature-gates (empty for the
	// binary's defaults).
	Binary, FeatureGates string
	// APIServers is how many kube-apiservers share the run's etcd (--apiservers).
	APIServers int
	// ReadyTimeout bounds the wait for each apiserver to serve.
	ReadyTimeout time.Duration
	// DataDir holds the run's etcd data and certificates below Name; LogDir its logs.
	DataDir, LogDir string
	// KeepData keeps the etcd data when the cluster stops.
	KeepData bool
	// PKI is the local PKI every apiserver serves and authenticates with.
	PKI *pki.PKI
}

// Cluster is one run's fresh etcd and its kube-apiservers.
type Cluster struct {
	etcd *etcd.Server
	// EtcdClient talks to the run's etcd, for the bitmaps and compaction.
	EtcdClient *clientv3.Client
	// APIServers are the kube-apiservers on etcd, in start order.
	APIServers []*APIServer
	// Client is the first apiserver's, which sets up, checks and profiles.
	Client   kubernetes.Interface
	dataDir  string
	keepData bool
}

// APIServer is one of a cluster's kube-apiservers.
type APIServer struct {
	Process *proc.Process
	// config talks to it as the admin with client-side rate limits off.
	config *restclient.Config
	Client kubernetes.Interface
}

// Clients are the apiservers' clients in start order, which the workers are spread over.
func (cl *Cluster) Clients() []kubernetes.Interface {
	out := make([]kubernetes.Interface, 0, len(cl.APIServers))
	for _, a := range cl.APIServers {
		out = append(out, a.Client)
	}
	return out
}

// Start starts an etcd in this process and c.APIServers apiservers on it, and returns
// once each serves and the kubernetes Service has its ClusterIP; on error nothing it
// started is left running.
func Start(ctx context.Context, c Config) (cl *Cluster, err error) {
	cl = &Cluster{dataDir: filepath.Join(c.DataDir, c.Name), keepData: c.KeepData}
	defer func() {
		if err != nil {
			cl.Stop()
		}
	}()
	// A leftover dir from an interrupted earlier run would not be a fresh etcd.
	if err := os.RemoveAll(cl.dataDir); err != nil {
		return cl, fmt.Errorf("clearing %s: %w", cl.dataDir, err)
	}
	cl.etcd, err = etcd.Start(ctx, etcd.Config{
		DataDir:           filepath.Join(cl.dataDir, "etcd"),
		LogFile:           filepath.Join(c.LogDir, c.Name+"-etcd.log"),
		UnsafeNoFsync:     true,
		QuotaBackendBytes: etcdQuotaBytes,
	})
	if err != nil {
		return cl, err
	}
	cl.EtcdClient, err = clientv3.New(clientv3.Config{Endpoints: []string{cl.etcd.ClientURL}, DialTimeout: 5 * time.Second})
	if err != nil {
		return cl, fmt.Errorf("etcd client for %s: %w", cl.etcd.ClientURL, err)
	}

	for i := range c.APIServers {
		a, err := cl.startAPIServer(c, apiserverName(c.Name, i, c.APIServers), i)
		if a != nil {
			cl.APIServers = append(cl.APIServers, a)
		}
		if err != nil {
			return cl, err
		}
	}
	cl.Client = cl.APIServers[0].Client
	for _, a := range cl.APIServers {
		if err := waitReady(ctx, a, c.ReadyTimeout); err != nil {
			return cl, err
		}
	}
	return cl, nil
}

// apiserverName names the i-th of n apiservers of run in log and directory names.
func apiserverName(run string, i, n int) string {
	if n == 1 {
		return run + "-apiserver"
	}
	return fmt.Sprintf("%s-apiserver-%d", run, i)
}

// startAPIServer starts the i-th apiserver of cl on its etcd, with a port and serving
// certificate directory of its own; a started process is returned even with an error.
func (cl *Cluster) startAPIServer(c Config, name string, i int) (*APIServer, error) {
	port, err := freeLoopbackPort()
	if err != nil {
		return nil, err
	}
	certDir := filepath.Join(cl.dataDir, "certs")
	if i > 0 {
		certDir = filepath.Join(cl.dataDir, fmt.Sprintf("certs-%d", i))
	}
	args := apiserverArgs(c.FeatureGates, cl.etcd.ClientURL, port, c.PKI.Paths, certDir)
	process, err := startChild(c.Binary, args, filepath.Join(c.LogDir, name+".log"))
	if err != nil {
		return nil, err
	}
	a := &APIServer{Process: process, config: adminConfig("https://"+net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), c.PKI.Paths)}
	a.Client, err = kubernetes.NewForConfig(a.config)
	if err != nil {
		return a, fmt.Errorf("client for apiserver pid %d: %w", process.Pid(), err)
	}
	return a, nil
}

// Stop stops the apiservers by their PIDs, then etcd, and removes the etcd data unless
// Config.KeepData; it copes with a cluster that only partly started.
func (cl *Cluster) Stop() {
	for i := len(cl.APIServers) - 1; i >= 0; i-- {
		cl.APIServers[i].Process.Stop(stopTimeout)
	}
	if cl.EtcdClient != nil {
		_ = cl.EtcdClient.Close() // Closing an idle client has nothing to report.
	}
	if cl.etcd != nil {
		cl.etcd.Stop()
	}
	if !cl.keepData {
		_ = os.RemoveAll(cl.dataDir) // Best effort: a leftover dir is cleared by the next run.
	}
}

// adminConfig is a client config for host as the admin, protobuf-encoded to keep the
// client's share of the machine's two cores small, and with rate limits off.
func adminConfig(host string, p pki.Paths) *restclient.Config {
	return &restclient.Config{
		Host: host,
		TLSClientConfig: restclient.TLSClientConfig{
			CAFile:   p.CACert,
			CertFile: p.AdminCert,
			KeyFile:  p.AdminKey,
		},
		ContentConfig: restclient.ContentConfig{ContentType: "application/vnd.kubernetes.protobuf"},
		QPS:           -1,
		Burst:         -1,
	}
}

// freeLoopbackPort asks the kernel for a port no one listens on.
func freeLoopbackPort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("finding a free loopback port: %w", err)
	}
	defer l.Close()
	addr, ok := l.Addr().(*net.TCPAddr)
	if !ok {
		return 0, errors.New("finding a free loopback port: listener has no TCP address")
	}
	return addr.Port, nil
}

// startChild runs binary with args, logging to logPath; proc puts it in its own process
// group, so a terminal's Ctrl-C reaches only the benchmark, which then stops it, and
// Pdeathsig kills it if the benchmark dies without doing so.
func startChild(binary string, args []string, logPath string) (*proc.Process, error) {
	return proc.Start(proc.Spec{
		Name:      "apiserver",
		Path:      binary,
		Args:      args,
		LogPath:   logPath,
		LogHeader: fmt.Sprintf("bench-services: %s %q", binary, args),
	})
}
