package main

import (
	"context"
	"fmt"
	"net/netip"
	"sort"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	restclient "k8s.io/client-go/rest"

	"github.com/netfork/netfork/internal/pki"
)

const (
	// readyPollInterval is short because an apiserver is ready in seconds once etcd is.
	readyPollInterval = 500 * time.Millisecond
	// readyRequestTimeout bounds one /readyz request.
	readyRequestTimeout = 2 * time.Second
)

// readyTarget is one address of one apiserver, probed from inside its host.
type readyTarget struct {
	server *apiserver
	url    string
	client kubernetes.Interface
	// why is the last probe's failure.
	why string
}

// waitReady polls /readyz on both addresses of every apiserver, from inside its
// host's namespace, until all answer 200, an apiserver exits, timeout passes or
// ctx ends.
func waitReady(ctx context.Context, certs *pki.PKI, servers []*apiserver, port int, timeout time.Duration, exited <-chan *apiserver) error {
	var pending []*readyTarget
	for _, a := range servers {
		for _, addr := range a.host.addresses() {
			t, err := newReadyTarget(a, addr, port, certs.Paths)
			if err != nil {
				return err
			}
			pending = append(pending, t)
		}
	}
	err := wait.PollUntilContextTimeout(ctx, readyPollInterval, timeout, true, func(ctx context.Context) (bool, error) {
		select {
		case a := <-exited:
			return false, a.exitError()
		default:
		}
		var still []*readyTarget
		for _, t := range pending {
			if _, err := t.client.Discovery().RESTClient().Get().AbsPath("/readyz").DoRaw(ctx); err != nil {
				t.why = err.Error()
				still = append(still, t)
			}
		}
		pending = still
		return len(pending) == 0, nil
	})
	if err != nil && ctx.Err() == nil && wait.Interrupted(err) {
		sort.Slice(pending, func(i, j int) bool { return pending[i].url < pending[j].url })
		t := pending[0]
		return fmt.Errorf("apiserver in %s (pid %d) not ready at %s after %s: %s (log: %s)",
			t.server.host.Netns, t.server.cmd.Process.Pid, t.url, timeout, t.why, t.server.logPath)
	}
	return err
}

// newReadyTarget is a client for a's apiserver at addr that authenticates as
// the admin, trusts only the local CA and dials from inside a's namespace.
func newReadyTarget(a *apiserver, addr netip.Addr, port int, p pki.Paths) (*readyTarget, error) {
	url := "https://" + hostPort(addr, port)
	client, err := kubernetes.NewForConfig(&restclient.Config{
		Host:            url,
		TLSClientConfig: restclient.TLSClientConfig{CAFile: p.CACert, CertFile: p.AdminCert, KeyFile: p.AdminKey},
		Dial:            dialerIn(a.host.Netns),
		Timeout:         readyRequestTimeout,
	})
	if err != nil {
		return nil, fmt.Errorf("client for %s: %w", url, err)
	}
	return &readyTarget{server: a, url: url, client: client}, nil
}
