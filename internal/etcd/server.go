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

package etcd

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"go.etcd.io/etcd/server/v3/embed"
)

// startAttempts bounds retries when a port picked by freePort is taken before etcd binds it.
const startAttempts = 5

// Server is a running embedded etcd member.
type Server struct {
	// ClientURL is the http URL clients (apiservers, clientv3) dial, e.g. http://127.0.0.1:2379.
	ClientURL string
	// PeerURL is the member's peer URL; callers persist its port to restart on the same one.
	PeerURL string
	// ClusterID is the etcd cluster ID in hex, stable across restarts on the same DataDir.
	ClusterID string

	etcd     *embed.Etcd
	stopOnce sync.Once
}

// Start runs etcd as Config describes and returns once it serves clients; ctx bounds only
// the start, the member runs until Stop.
func Start(ctx context.Context, cfg Config) (*Server, error) {
	cfg, err := cfg.complete()
	if err != nil {
		return nil, err
	}
	for _, port := range []int{cfg.ClientPort, cfg.PeerPort} {
		if port != 0 {
			if err := checkFree(port); err != nil {
				return nil, err
			}
		}
	}
	if err := prepareDirs(cfg); err != nil {
		return nil, err
	}
	for attempt := 1; ; attempt++ {
		s, err := startOnce(ctx, cfg)
		var inUse *PortInUseError
		if err == nil || !errors.As(err, &inUse) || attempt == startAttempts {
			return s, err
		}
	}
}

// prepareDirs creates the data dir and the log file's dir, private to the user as etcd wants.
func prepareDirs(cfg Config) error {
	if err := os.MkdirAll(cfg.DataDir, 0o700); err != nil {
		return fmt.Errorf("etcd: creating data dir: %w", err)
	}
	if cfg.LogFile == os.DevNull {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(cfg.LogFile), 0o755); err != nil {
		return fmt.Errorf("etcd: creating log dir: %w", err)
	}
	return nil
}

// startOnce picks any unset port, starts etcd and waits for it to be ready.
func startOnce(ctx context.Context, cfg Config) (*Server, error) {
	clientPort, peerPort := cfg.ClientPort, cfg.PeerPort
	var err error
	if clientPort == 0 {
		if clientPort, err = freePort(); err != nil {
			return nil, err
		}
	}
	for peerPort == 0 || peerPort == clientPort {
		if peerPort, err = freePort(); err != nil {
			return nil, err
		}
	}
	ec := embedConfig(cfg, loopbackURL(clientPort), loopbackURL(peerPort))
	e, err := embed.StartEtcd(ec)
	if err != nil {
		return nil, startError(err)
	}
	if err := waitReady(ctx, e, cfg); err != nil {
		e.Close()
		return nil, err
	}
	return &Server{
		ClientURL: ec.AdvertiseClientUrls[0].String(),
		PeerURL:   ec.AdvertisePeerUrls[0].String(),
		ClusterID: e.Server.Cluster().ID().String(),
		etcd:      e,
	}, nil
}

// embedConfig is a single-member cluster on loopback, gRPC only, whose logs go to cfg.LogFile only.
func embedConfig(cfg Config, clientURL, peerURL url.URL) *embed.Config {
	ec := embed.NewConfig()
	ec.Name = memberName
	ec.Dir = cfg.DataDir
	ec.InitialClusterToken = cfg.ClusterToken
	ec.ListenClientUrls = []url.URL{clientURL}
	ec.AdvertiseClientUrls = []url.URL{clientURL}
	ec.ListenPeerUrls = []url.URL{peerURL}
	ec.AdvertisePeerUrls = []url.URL{peerURL}
	ec.InitialCluster = ec.InitialClusterFromName(ec.Name)
	ec.LogLevel = cfg.LogLevel
	ec.LogOutputs = []string{cfg.LogFile}
	ec.UnsafeNoFsync = cfg.UnsafeNoFsync
	ec.QuotaBackendBytes = cfg.QuotaBackendBytes
	// Every client here speaks gRPC. The JSON gateway would only add a listener-side
	// logrus logger that reads os.Stderr while it starts, which races with go test -json
	// setting os.Stderr once the tests begin.
	ec.EnableGRPCGateway = false
	return ec
}

// loopbackURL is the plain-http URL etcd serves on for a loopback port.
func loopbackURL(port int) url.URL {
	return url.URL{Scheme: "http", Host: net.JoinHostPort(loopbackHost, strconv.Itoa(port))}
}

// startError turns a bind failure into a PortInUseError naming the address.
func startError(err error) error {
	if !isAddrInUse(err) {
		return fmt.Errorf("etcd: starting: %w", err)
	}
	var opErr *net.OpError
	if errors.As(err, &opErr) && opErr.Addr != nil {
		return &PortInUseError{Addr: opErr.Addr.String()}
	}
	return &PortInUseError{Addr: loopbackHost}
}

// waitReady blocks until etcd has joined its one-member cluster and serves clients.
func waitReady(ctx context.Context, e *embed.Etcd, cfg Config) error {
	timer := time.NewTimer(cfg.ReadyTimeout)
	defer timer.Stop()
	select {
	case <-e.Server.ReadyNotify():
		return nil
	case err := <-e.Err():
		return fmt.Errorf("etcd: failed while starting (log: %s): %w", cfg.LogFile, err)
	case <-timer.C:
		return fmt.Errorf("etcd: not ready after %s (log: %s)", cfg.ReadyTimeout, cfg.LogFile)
	case <-ctx.Done():
		return fmt.Errorf("etcd: start interrupted: %w", ctx.Err())
	}
}

// Err delivers an error if etcd fails after it became ready.
func (s *Server) Err() <-chan error {
	return s.etcd.Err()
}

// Stop closes etcd and waits until its listeners and goroutines are gone; calling it again
// does nothing.
func (s *Server) Stop() {
	s.stopOnce.Do(s.etcd.Close)
}
