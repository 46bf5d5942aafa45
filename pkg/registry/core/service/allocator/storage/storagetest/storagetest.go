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

// Package storagetest gives tests the storage config the apiserver builds for
// its range allocations, on an embedded etcd the test binary starts on first
// use (github.com/netfork/netfork/internal/etcd), so allocator, seam and
// repair-loop tests run against real etcd without a shared fixture.
package storagetest

import (
	"context"
	"fmt"
	"os"
	"path"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	serveroptions "k8s.io/apiserver/pkg/server/options"
	serverstorage "k8s.io/apiserver/pkg/server/storage"
	"k8s.io/apiserver/pkg/storage/storagebackend"
	api "k8s.io/kubernetes/pkg/apis/core"
	"k8s.io/kubernetes/pkg/kubeapiserver"

	"github.com/netfork/netfork/internal/etcd"
)

var (
	startOnce sync.Once
	server    *etcd.Server
	dataDir   string
	startErr  error
	// prefixes makes each Storage's prefix unique, so tests share etcd and nothing else.
	prefixes atomic.Int64
)

// Main runs a package's tests and then stops the etcd they started, if any:
// call it from TestMain as os.Exit(storagetest.Main(m)).
func Main(m *testing.M) int {
	code := m.Run()
	if server != nil {
		server.Stop()
	}
	if dataDir != "" {
		_ = os.RemoveAll(dataDir)
	}
	return code
}

// ClientURL is the embedded etcd's client URL, starting it on first use.
func ClientURL(t testing.TB) string {
	t.Helper()
	startOnce.Do(func() {
		if dataDir, startErr = os.MkdirTemp("", "netfork-storagetest-"); startErr != nil {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		server, startErr = etcd.Start(ctx, etcd.Config{DataDir: dataDir, UnsafeNoFsync: true, LogFile: os.DevNull})
	})
	if startErr != nil {
		t.Fatalf("starting embedded etcd: %v", startErr)
	}
	return server.ClientURL
}

// Storage is one test's slice of etcd.
type Storage struct {
	// ServiceIPs and NodePorts are what netfork's core storage passes its
	// ClusterIP and NodePort seams: the services' storage config for
	// serviceipallocations and servicenodeportallocations.
	ServiceIPs, NodePorts *storagebackend.ConfigForResource
	// Prefix is where the test's keys live in etcd.
	Prefix string
	// Factory is the storage factory the configs came from, for the configs of other resources.
	Factory serverstorage.StorageFactory
}

// New builds the storage configs the way the apiserver builds them (its
// storage factory, protobuf) under a prefix of the test's own.
func New(t testing.TB) Storage {
	t.Helper()
	prefix := fmt.Sprintf("/registry-%s-%d", strings.ReplaceAll(t.Name(), "/", "_"), prefixes.Add(1))
	backend := storagebackend.NewDefaultConfig(prefix, nil)
	backend.Transport.ServerList = []string{ClientURL(t)}
	completed := kubeapiserver.NewStorageFactoryConfig().Complete(serveroptions.NewEtcdOptions(backend))
	completed.APIResourceConfig = serverstorage.NewResourceConfig()
	factory, err := completed.New()
	if err != nil {
		t.Fatalf("storage factory: %v", err)
	}
	services, err := factory.NewConfig(api.Resource("services"), &api.Service{})
	if err != nil {
		t.Fatalf("storage config for services: %v", err)
	}
	return Storage{
		ServiceIPs: services.ForResource(api.Resource("serviceipallocations")),
		NodePorts:  services.ForResource(api.Resource("servicenodeportallocations")),
		Prefix:     prefix,
		Factory:    factory,
	}
}

// RawKey is where key (e.g. /ranges/serviceips) is in etcd, for tests that write it directly.
func (s Storage) RawKey(key string) string {
	return path.Join(s.Prefix, key)
}
