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
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/spf13/pflag"

	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/apiserver/pkg/util/compatibility"
	"k8s.io/client-go/kubernetes"
	restclient "k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"

	"github.com/netfork/netfork/cmd/kube-apiserver/app"
	"github.com/netfork/netfork/cmd/kube-apiserver/app/options"
	"github.com/netfork/netfork/pkg/features"
)

// shutdownTimeout bounds how long a stopping apiserver may take before the test fails.
const shutdownTimeout = time.Minute

// APIServer is a kube-apiserver a test started, netfork's in-process or upstream's as a process.
type APIServer struct {
	// Config authenticates as a cluster admin.
	Config *restclient.Config
	Client kubernetes.Interface
	// EtcdPrefix is where the apiserver keeps the cluster, for tests that read etcd or share it.
	EtcdPrefix string

	stop func()
}

// Stop shuts the apiserver down and waits for it; the test's cleanup calls it too.
func (s *APIServer) Stop() { s.stop() }

// serverCounter names in-process apiservers apart; several may share an etcd prefix.
var serverCounter atomic.Int64

// StartAPIServer starts a netfork kube-apiserver in this process on a random
// loopback port, waits until /readyz passes, and stops it when the test ends.
func StartAPIServer(t *testing.T, opts ...Option) *APIServer {
	t.Helper()
	o := newServerOptions(t, opts)

	dir := t.TempDir()
	creds := newCredentials(t, dir, o.servingIPs)
	s, fs := newServerRunOptions()

	listener, err := listen(s, o.listenerFromFlags)
	if err != nil {
		t.Fatalf("framework: listening on loopback: %v", err)
	}
	s.SecureServing.ServerCert.CertDirectory = dir

	args := append(append(defaultFlags(EtcdURL(t), o.etcdPrefix, creds), o.flags...), featureGateFlag(o)...)
	informerName, err := cache.NewInformerName(fmt.Sprintf("kube-apiserver-%d", serverCounter.Add(1)))
	if err != nil {
		t.Fatalf("framework: %v", err)
	}
	server, err := newInProcessServer(s, fs, args, informerName, o.configure)
	if err != nil {
		if listener != nil {
			_ = listener.Close()
		}
		informerName.Release()
		t.Fatalf("framework: starting netfork apiserver with %v: %v", o.flags, err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	run := &exitStatus{done: make(chan struct{})}
	go func() { run.exit(server.Run(ctx)) }()

	var once sync.Once
	stop := func() {
		once.Do(func() {
			defer informerName.Release()
			cancel()
			select {
			case <-run.done:
				if run.err != nil {
					t.Errorf("framework: netfork apiserver stopped with: %v", run.err)
				}
			case <-time.After(shutdownTimeout):
				t.Errorf("framework: netfork apiserver did not stop within %s", shutdownTimeout)
			}
		})
	}
	t.Cleanup(stop)

	result := newAPIServer(t, creds.adminConfig(servingURL(s)), o.etcdPrefix, stop)
	waitReady(t, result, run.exitsOn())
	return result
}

// newServerRunOptions returns netfork's kube-apiserver options bound to a flag
// set, with a component registry and feature gate of their own, so one
// apiserver's flags, feature gates included, never touch another's.
func newServerRunOptions() (*options.ServerRunOptions, *pflag.FlagSet) {
	registry, err := features.NewRegistry(compatibility.DefaultKubeEffectiveVersionForTest())
	if err != nil {
		panic(fmt.Sprintf("registering the kube component: %v", err))
	}

	s := options.NewServerRunOptions()
	s.GenericServerRunOptions.ComponentGlobalsRegistry = registry
	fs := pflag.NewFlagSet("kube-apiserver", pflag.ContinueOnError)
	for _, f := range s.Flags().FlagSets {
		fs.AddFlagSet(f)
	}
	return s, fs
}

// newInProcessServer runs the command's steps: parse, complete, validate, build.
func newInProcessServer(s *options.ServerRunOptions, fs *pflag.FlagSet, args []string, informerName *cache.InformerName, configure []func(*app.Config)) (app.PreparedServer, error) {
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if err := s.GenericServerRunOptions.ComponentGlobalsRegistry.Set(); err != nil {
		return nil, err
	}
	completed, err := s.Complete(context.Background())
	if err != nil {
		return nil, err
	}
	if errs := completed.Validate(); len(errs) != 0 {
		return nil, utilerrors.NewAggregate(errs)
	}
	// each in-process apiserver needs its own informer name: names are process-wide
	completed.InformerName = informerName
	return app.NewServer(completed, configure...)
}

func newAPIServer(t testing.TB, config *restclient.Config, prefix string, stop func()) *APIServer {
	t.Helper()
	client, err := kubernetes.NewForConfig(config)
	if err != nil {
		t.Fatalf("framework: building client for %s: %v", config.Host, err)
	}
	return &APIServer{Config: config, Client: client, EtcdPrefix: prefix, stop: stop}
}
