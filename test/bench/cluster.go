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

// etcdQuotaBytes lets the bitmap contenders, which rewrite a 128 KiB bitmap on every
// allocation and release, keep every revision of a 30k run between compactions.
const etcdQuotaBytes = 8 << 30

// cluster is one run's fresh etcd and its kube-apiservers.
type cluster struct {
	etcd       *etcd.Server
	etcdClient *clientv3.Client
	// apiservers are --apiservers kube-apiservers on etcd, in start order.
	apiservers []*apiserver
	// config and client are the first apiserver's, which sets up, checks and profiles.
	config  *restclient.Config
	client  kubernetes.Interface
	dataDir string
}

// apiserver is one of a cluster's kube-apiservers.
type apiserver struct {
	process *proc.Process
	// config talks to it as the admin with client-side rate limits off.
	config *restclient.Config
	client kubernetes.Interface
}

// clients are the apiservers' clients in start order, which the workers are spread over.
func (cl *cluster) clients() []kubernetes.Interface {
	out := make([]kubernetes.Interface, 0, len(cl.apiservers))
	for _, a := range cl.apiservers {
		out = append(out, a.client)
	}
	return out
}

// startCluster starts an etcd in this process and --apiservers of the contender's
// apiservers on it, and returns once each serves and the kubernetes Service has its
// ClusterIP; on error nothing it started is left running.
func startCluster(ctx context.Context, o *options, c contender, p *pki.PKI, dirs layout, name string) (cl *cluster, err error) {
	cl = &cluster{dataDir: filepath.Join(dirs.data, name)}
	defer func() {
		if err != nil {
			cl.stop(!o.KeepData)
		}
	}()
	// A leftover dir from an interrupted earlier run would not be a fresh etcd.
	if err := os.RemoveAll(cl.dataDir); err != nil {
		return cl, fmt.Errorf("clearing %s: %w", cl.dataDir, err)
	}
	cl.etcd, err = etcd.Start(ctx, etcd.Config{
		DataDir:           filepath.Join(cl.dataDir, "etcd"),
		LogFile:           filepath.Join(dirs.logs, name+"-etcd.log"),
		UnsafeNoFsync:     true,
		QuotaBackendBytes: etcdQuotaBytes,
	})
	if err != nil {
		return cl, err
	}
	cl.etcdClient, err = clientv3.New(clientv3.Config{Endpoints: []string{cl.etcd.ClientURL}, DialTimeout: 5 * time.Second})
	if err != nil {
		return cl, fmt.Errorf("etcd client for %s: %w", cl.etcd.ClientURL, err)
	}

	for i := range o.Apiservers {
		a, err := startAPIServer(o, c, p, cl, dirs, apiserverName(name, i, o.Apiservers), i)
		if a != nil {
			cl.apiservers = append(cl.apiservers, a)
		}
		if err != nil {
			return cl, err
		}
	}
	cl.config, cl.client = cl.apiservers[0].config, cl.apiservers[0].client
	for _, a := range cl.apiservers {
		if err := waitReady(ctx, a, o.ReadyTimeout); err != nil {
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
func startAPIServer(o *options, c contender, p *pki.PKI, cl *cluster, dirs layout, name string, i int) (*apiserver, error) {
	port, err := freeLoopbackPort()
	if err != nil {
		return nil, err
	}
	certDir := filepath.Join(cl.dataDir, "certs")
	if i > 0 {
		certDir = filepath.Join(cl.dataDir, fmt.Sprintf("certs-%d", i))
	}
	args := apiserverArgs(c, cl.etcd.ClientURL, port, p.Paths, certDir)
	process, err := startChild(c.binary(o), args, filepath.Join(dirs.logs, name+".log"))
	if err != nil {
		return nil, err
	}
	a := &apiserver{process: process, config: adminConfig("https://"+net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), p.Paths)}
	a.client, err = kubernetes.NewForConfig(a.config)
	if err != nil {
		return a, fmt.Errorf("client for apiserver pid %d: %w", process.Pid(), err)
	}
	return a, nil
}

// stop stops the apiservers by their PIDs, then etcd, and removes the etcd data when asked;
// it copes with a cluster that only partly started.
func (cl *cluster) stop(removeData bool) {
	for i := len(cl.apiservers) - 1; i >= 0; i-- {
		cl.apiservers[i].process.Stop(defaultStopTimeout)
	}
	if cl.etcdClient != nil {
		_ = cl.etcdClient.Close() // Closing an idle client has nothing to report.
	}
	if cl.etcd != nil {
		cl.etcd.Stop()
	}
	if removeData {
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
