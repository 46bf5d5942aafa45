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

package rest

import (
	"net"
	"os"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	utilnet "k8s.io/apimachinery/pkg/util/net"
	"k8s.io/apiserver/pkg/registry/generic"
	"k8s.io/apiserver/pkg/server/egressselector"
	"k8s.io/klog/v2/ktesting"
	api "k8s.io/kubernetes/pkg/apis/core"
	_ "k8s.io/kubernetes/pkg/apis/networking/install" // the IPAddresses' storage config, as the apiserver registers it

	"github.com/netfork/netfork/pkg/registry/core/service/allocator/storage/storagetest"
	"github.com/netfork/netfork/pkg/registry/internal/jointwrite"
)

func TestMain(m *testing.M) {
	os.Exit(storagetest.Main(m))
}

// egress is an egress selector whose lookup of network context etcd gives
// etcdDialer (nil: no etcd entry, the storage dials etcd directly).
func egress(etcdDialer utilnet.DialFunc) egressselector.Lookup {
	return func(c egressselector.NetworkContext) (utilnet.DialFunc, error) {
		if c.EgressSelectionName == egressselector.Etcd {
			return etcdDialer, nil
		}
		return (&net.Dialer{}).DialContext, nil
	}
}

// TestJointWritesDecision builds the Service storage as the core provider
// does, with the Services' etcd transport changed as flags would change it,
// and checks when the IPAddresses ride in the Services' transactions, and
// that the apiserver says once, with the reason, when they do not.
func TestJointWritesDecision(t *testing.T) {
	st := storagetest.New(t)
	for _, tc := range []struct {
		name string
		// configure changes the Services' storage config; IPAddresses keep the flags'.
		configure  func(opts *generic.RESTOptions)
		wantJoint  bool
		wantReason string
	}{
		{name: "one etcd", configure: func(*generic.RESTOptions) {}, wantJoint: true},
		{name: "egress selector without an etcd entry", configure: func(o *generic.RESTOptions) {
			o.StorageConfig.Transport.EgressLookup = egress(nil)
		}, wantJoint: true},
		{name: "egress selector with an etcd entry", configure: func(o *generic.RESTOptions) {
			o.StorageConfig.Transport.EgressLookup = egress((&net.Dialer{}).DialContext)
		}, wantReason: "egress selector's etcd entry"},
		{name: "--etcd-servers-overrides", configure: func(o *generic.RESTOptions) {
			o.StorageConfig.Transport.ServerList = []string{"http://127.0.0.1:1"}
		}, wantReason: "--etcd-servers-overrides"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			joint, err := newJointStorage(st.Factory)
			if err != nil {
				t.Fatal(err)
			}
			logger := ktesting.NewLogger(t, ktesting.NewConfig(ktesting.BufferLogs(true)))
			joint.logger = logger
			config, err := st.Factory.NewConfig(api.Resource("services"), &api.Service{})
			if err != nil {
				t.Fatal(err)
			}
			opts := generic.RESTOptions{StorageConfig: config, ResourcePrefix: "services/specs"}
			tc.configure(&opts)
			wrap := joint.decorate(nil).(jointwrite.Decorating).Wrap
			built, destroy, err := wrap(jointwrite.Built{Storage: nil, Options: opts,
				NewFunc: func() runtime.Object { return &api.Service{} }, NewListFunc: func() runtime.Object { return &api.ServiceList{} }})
			if err != nil {
				t.Fatalf("building the Service storage: %v", err)
			}
			if destroy != nil {
				t.Cleanup(destroy)
			}
			_, isJoint := built.(*jointwrite.ServiceStorage)
			if isJoint != tc.wantJoint || (joint.servers != nil) != tc.wantJoint {
				t.Errorf("joint Service storage: %t (servers %v), want %t", isJoint, joint.servers, tc.wantJoint)
			}
			var lines []string
			for _, line := range strings.Split(logger.GetSink().(ktesting.Underlier).GetBuffer().String(), "\n") {
				if strings.Contains(line, separateWritesLog) {
					lines = append(lines, line)
				}
			}
			switch {
			case tc.wantReason == "" && len(lines) > 0:
				t.Errorf("logged %q for joint writes", lines)
			case tc.wantReason != "" && (len(lines) != 1 || !strings.Contains(lines[0], tc.wantReason)):
				t.Errorf("logged %q, want one line %q with a reason naming %q", lines, separateWritesLog, tc.wantReason)
			}
		})
	}
}
