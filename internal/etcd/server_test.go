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
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// startForTest starts etcd on dir with free ports and stops it when the test ends.
func startForTest(t *testing.T, cfg Config) *Server {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s, err := Start(ctx, cfg)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(s.Stop)
	return s
}

// newClient dials s and closes the client when the test ends.
func newClient(t *testing.T, s *Server) *clientv3.Client {
	t.Helper()
	c, err := clientv3.New(clientv3.Config{Endpoints: []string{s.ClientURL}, DialTimeout: 10 * time.Second})
	if err != nil {
		t.Fatalf("clientv3.New(%s): %v", s.ClientURL, err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

func TestStartPutGetRestart(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()

	first := startForTest(t, Config{DataDir: dir})
	if !strings.HasPrefix(first.ClientURL, "http://127.0.0.1:") {
		t.Fatalf("ClientURL = %q, want a loopback URL", first.ClientURL)
	}
	if _, err := newClient(t, first).Put(ctx, "/netfork/key", "value"); err != nil {
		t.Fatalf("Put: %v", err)
	}
	first.Stop()
	first.Stop() // Stop is idempotent.

	offline, err := ClusterID(dir)
	if err != nil {
		t.Fatalf("ClusterID on a stopped member: %v", err)
	}
	if offline != first.ClusterID {
		t.Fatalf("ClusterID(dir) = %s, want %s", offline, first.ClusterID)
	}

	second := startForTest(t, Config{DataDir: dir})
	resp, err := newClient(t, second).Get(ctx, "/netfork/key")
	if err != nil {
		t.Fatalf("Get after restart: %v", err)
	}
	if len(resp.Kvs) != 1 || string(resp.Kvs[0].Value) != "value" {
		t.Fatalf("Get after restart = %v, want value", resp.Kvs)
	}
	if second.ClusterID != first.ClusterID {
		t.Fatalf("cluster ID changed across restart: %s -> %s", first.ClusterID, second.ClusterID)
	}
}

func TestLogsStayInLogFile(t *testing.T) {
	dir := t.TempDir()
	s := startForTest(t, Config{DataDir: dir, LogLevel: "info"})
	s.Stop()
	data, err := os.ReadFile(filepath.Join(dir, "etcd.log"))
	if err != nil {
		t.Fatalf("reading the default log file: %v", err)
	}
	if len(data) == 0 {
		t.Fatalf("etcd.log is empty at level info")
	}
}

func TestClusterTokenChangesClusterID(t *testing.T) {
	a := startForTest(t, Config{DataDir: t.TempDir(), ClusterToken: "a", UnsafeNoFsync: true})
	b := startForTest(t, Config{DataDir: t.TempDir(), ClusterToken: "b", UnsafeNoFsync: true})
	if a.ClusterID == b.ClusterID {
		t.Fatalf("clusters with different tokens share cluster ID %s", a.ClusterID)
	}
}

func TestPortInUse(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	port := l.Addr().(*net.TCPAddr).Port
	dir := filepath.Join(t.TempDir(), "etcd")

	for name, cfg := range map[string]Config{
		"client": {DataDir: dir, ClientPort: port},
		"peer":   {DataDir: dir, PeerPort: port},
	} {
		t.Run(name, func(t *testing.T) {
			s, err := Start(context.Background(), cfg)
			if err == nil {
				s.Stop()
				t.Fatalf("Start on a taken port succeeded")
			}
			var inUse *PortInUseError
			if !errors.As(err, &inUse) || inUse.Addr != l.Addr().String() {
				t.Fatalf("Start error = %v, want PortInUseError for %s", err, l.Addr())
			}
			if strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), l.Addr().String()) {
				t.Fatalf("error %q is not one line naming %s", err, l.Addr())
			}
			if _, statErr := os.Stat(dir); !os.IsNotExist(statErr) {
				t.Fatalf("data dir was created before the port check failed")
			}
		})
	}
}

func TestConfigValidation(t *testing.T) {
	for name, cfg := range map[string]Config{
		"no data dir":    {},
		"bad port":       {DataDir: "x", ClientPort: 70000},
		"negative peer":  {DataDir: "x", PeerPort: -1},
		"same ports":     {DataDir: "x", ClientPort: 2379, PeerPort: 2379},
		"negative quota": {DataDir: "x", QuotaBackendBytes: -1},
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := Start(context.Background(), cfg); err == nil {
				t.Fatalf("Start(%+v) succeeded", cfg)
			}
		})
	}
}

func TestClusterIDWithoutData(t *testing.T) {
	if _, err := ClusterID(t.TempDir()); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("ClusterID(empty dir) error = %v, want fs.ErrNotExist", err)
	}
}

func TestStartInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	s, err := Start(ctx, Config{DataDir: t.TempDir()})
	if err == nil {
		// A member can be ready before the canceled context is noticed.
		s.Stop()
		return
	}
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Start with a canceled context: %v", err)
	}
}
