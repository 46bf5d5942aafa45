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

package controlplane

import (
	"context"
	"net"
	"net/url"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	restclient "k8s.io/client-go/rest"
	"k8s.io/component-base/featuregate"

	"github.com/netfork/netfork/pkg/features"
	"github.com/netfork/netfork/test/integration/framework"
)

// TestDualStackBindAddress starts a netfork apiserver bound to 127.0.0.1 and ::1
// behind one server (KEP-2438) and reaches /readyz over each family through
// the same TLS and client-certificate authentication, then checks that stopping
// it frees both sockets.
func TestDualStackBindAddress(t *testing.T) {
	if !framework.IPv6LoopbackAvailable() {
		t.Skip("skipping: the host has no IPv6 loopback to bind ::1, so there is no second family to serve")
	}
	s := framework.StartAPIServer(t,
		framework.WithFeatureGates(map[featuregate.Feature]bool{features.DualStackAPIServer: true}),
		framework.WithListenerFromFlags(),
		framework.WithFlags("--bind-address=127.0.0.1,::1"))

	primary, err := url.Parse(s.Config.Host)
	if err != nil {
		t.Fatal(err)
	}
	for _, ip := range []string{"127.0.0.1", "::1"} {
		t.Run(ip, func(t *testing.T) {
			config := restclient.CopyConfig(s.Config)
			config.Host = "https://" + net.JoinHostPort(ip, primary.Port())
			client, err := kubernetes.NewForConfig(config)
			if err != nil {
				t.Fatal(err)
			}
			body, err := client.Discovery().RESTClient().Get().AbsPath("/readyz").DoRaw(context.Background())
			if err != nil {
				t.Fatalf("/readyz over %s: %v", config.Host, err)
			}
			if string(body) != "ok" {
				t.Errorf("/readyz over %s = %q, want ok", config.Host, body)
			}
			// an authenticated request proves the admin's client certificate passed the same chain
			if _, err := client.CoreV1().Namespaces().Get(context.Background(), "default", metav1.GetOptions{}); err != nil {
				t.Errorf("reading namespace default over %s: %v", config.Host, err)
			}
		})
	}

	// a clean shutdown closes both sockets
	s.Stop()
	for _, ip := range []string{"127.0.0.1", "::1"} {
		addr := net.JoinHostPort(ip, primary.Port())
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			t.Errorf("%s still bound after the apiserver stopped: %v", addr, err)
			continue
		}
		_ = ln.Close()
	}
}
