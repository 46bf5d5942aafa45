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

package framework

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/netfork/netfork/internal/etcd"
)

// etcdURL is the client URL of the test package's etcd, set by EtcdMain.
var etcdURL string

// EtcdMain starts the package's etcd, runs its tests and stops it; call it as
// os.Exit(framework.EtcdMain(m)) from TestMain.
func EtcdMain(m *testing.M) int {
	dir, err := os.MkdirTemp("", "netfork-integration-etcd")
	if err != nil {
		fmt.Fprintf(os.Stderr, "framework: creating etcd data dir: %v\n", err)
		return 1
	}
	defer os.RemoveAll(dir)

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	server, err := etcd.Start(ctx, etcd.Config{DataDir: dir, UnsafeNoFsync: true})
	if err != nil {
		fmt.Fprintf(os.Stderr, "framework: starting etcd: %v\n", err)
		return 1
	}
	defer server.Stop()

	etcdURL = server.ClientURL
	return m.Run()
}

// EtcdURL is the client URL of the test package's etcd.
func EtcdURL(t testing.TB) string {
	t.Helper()
	if etcdURL == "" {
		t.Fatal("framework: no etcd: the test package's TestMain must call framework.EtcdMain")
	}
	return etcdURL
}
