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
	"slices"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/component-base/featuregate"

	"github.com/netfork/netfork/pkg/controlplane"
	"github.com/netfork/netfork/pkg/features"
	corerest "github.com/netfork/netfork/pkg/registry/core/rest"
	"github.com/netfork/netfork/test/integration/framework"
)

// TestMultiCIDRServiceAllocatorOff checks the gate upstream 1.37 locks can be
// turned off on netfork: ClusterIPs then come from the legacy bitmap alone, so
// no IPAddress is created and no default ServiceCIDR is bootstrapped.
//
// Nothing is waited for in vain: the allocator writes a ClusterIP's IPAddress
// before the create returns; the default-ServiceCIDR controller and the
// ServiceCIDR deletion controller start from post-start hooks, which /readyz
// lists, and the first keeps the apiserver unready until its object exists;
// and the repair loops' first passes, which also gate readiness, have seen a
// Service stored in etcd without an IPAddress: an IPAddress repair loop
// would have given it one, while the bitmap repair loop only marks its
// address used in the bitmap.
func TestMultiCIDRServiceAllocatorOff(t *testing.T) {
	ctx := context.Background()
	prefix := framework.NewEtcdPrefix(t)
	stored := storeService(ctx, t, etcdClient(t), prefix, "stored", "10.96.0.200")
	s := framework.StartAPIServer(t, framework.WithEtcdPrefix(prefix), framework.WithFeatureGates(map[featuregate.Feature]bool{
		features.MultiCIDRServiceAllocator: false,
	}))

	checks := readyzChecks(ctx, t, s.Client)
	if !slices.Contains(checks, "poststarthook/"+corerest.RepairHookName) {
		t.Errorf("/readyz checks %v lack %s: the repair loops' first passes are not what made the apiserver ready", checks, corerest.RepairHookName)
	}
	for _, hook := range []string{controlplane.DefaultServiceCIDRHookName, controlplane.ServiceCIDRControllerHookName, controlplane.ServiceCIDRUsageHookName} {
		if slices.Contains(checks, "poststarthook/"+hook) {
			t.Errorf("/readyz checks %v hold %s with the gate off", checks, hook)
		}
	}

	created := createService(ctx, t, s.Client, clusterIPService("bitmap"))
	if !mustPrefix(t, "10.96.0.0/16").Contains(mustAddr(t, created.Spec.ClusterIP)) {
		t.Fatalf("ClusterIP %s is outside 10.96.0.0/16", created.Spec.ClusterIP)
	}
	for _, ip := range []string{created.Spec.ClusterIP, stored.Spec.ClusterIP} {
		if _, err := s.Client.NetworkingV1().IPAddresses().Get(ctx, ip, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			t.Errorf("IPAddress %s: got err %v, want NotFound: the bitmap allocator and its repair loop create no IPAddresses", ip, err)
		}
	}
	if _, err := s.Client.NetworkingV1().ServiceCIDRs().Get(ctx, defaultServiceCIDRName, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("ServiceCIDR %q: got err %v, want NotFound with the gate off", defaultServiceCIDRName, err)
	}
	// the bitmap repair loop's first pass did look at the stored Service
	if bitmap := readRangeAllocation(ctx, t, etcdClient(t), prefix+"/ranges/serviceips"); !bitSet(t, bitmap, stored.Spec.ClusterIP) {
		t.Errorf("the ClusterIP bitmap does not hold %s of the stored Service after the first repair pass", stored.Spec.ClusterIP)
	}
}
