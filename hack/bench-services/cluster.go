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

// cluster is one run's fresh etcd and kube-apiserver.
type cluster struct {
	etcd       *etcd.Server
	etcdClient *clientv3.Client
	apiserver  *proc.Process
	// config talks to the apiserver as the admin with client-side rate limits off.
	config  *restclient.Config
	client  kubernetes.Interface
	dataDir string
}

// startCluster starts an etcd in this process and the contender's apiserver on it, and
// returns once the apiserver serves and its kubernetes Service has its ClusterIP; on
// error nothing it started is left running.
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

	port, err := freeLoopbackPort()
	if err != nil {
		return cl, err
	}
	args := apiserverArgs(c, cl.etcd.ClientURL, port, p.Paths, filepath.Join(cl.dataDir, "certs"))
	cl.apiserver, err = startChild(c.binary(o), args, filepath.Join(dirs.logs, name+"-apiserver.log"))
	if err != nil {
		return cl, err
	}
	cl.config = adminConfig("https://"+net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), p.Paths)
	cl.client, err = kubernetes.NewForConfig(cl.config)
	if err != nil {
		return cl, fmt.Errorf("client for the apiserver: %w", err)
	}
	if err := waitReady(ctx, cl, o.ReadyTimeout); err != nil {
		return cl, err
	}
	return cl, nil
}

// stop stops the apiserver by its PID, then etcd, and removes the etcd data when asked;
// it copes with a cluster that only partly started.
func (cl *cluster) stop(removeData bool) {
	if cl.apiserver != nil {
		cl.apiserver.Stop(defaultStopTimeout)
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
