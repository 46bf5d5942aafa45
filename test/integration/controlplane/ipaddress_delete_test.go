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
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/netfork/netfork/test/integration/framework"
)

// testFinalizer is a finalizer the test puts on an IPAddress, as a controller of a user's might.
const testFinalizer = "test.netfork.io/keep"

// TestReleasedIPAddressDeleteKeepsRegistrySemantics: netfork deletes a released
// ClusterIP's IPAddress with one conditional etcd delete instead of the
// registry's read-then-delete. What the registry does more must still happen:
// an IPAddress with a finalizer gets a deletion timestamp and stays until the
// finalizer goes, and validating admission of the delete still runs. The
// Service delete releases its ClusterIP before it returns (upstream's
// afterDelete), so each check runs once the delete call has.
func TestReleasedIPAddressDeleteKeepsRegistrySemantics(t *testing.T) {
	ctx := context.Background()
	s := framework.StartAPIServer(t, framework.WithFlags("--service-cluster-ip-range=10.100.0.0/24"))
	defer s.Stop()
	waitKubernetesService(ctx, t, s.Client)
	services := s.Client.CoreV1().Services(metav1.NamespaceDefault)
	addresses := s.Client.NetworkingV1().IPAddresses()

	// A plain IPAddress is gone once its Service's delete returns.
	plain := createService(ctx, t, s.Client, clusterIPService("plain"))
	waitIPAddress(ctx, t, s.Client, plain.Spec.ClusterIP, plain)
	if err := services.Delete(ctx, plain.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatalf("deleting Service plain: %v", err)
	}
	if _, err := addresses.Get(ctx, plain.Spec.ClusterIP, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("IPAddress %s of deleted Service plain: %v, want NotFound", plain.Spec.ClusterIP, err)
	}

	// A finalizer keeps it, marked for deletion, until the finalizer is removed.
	kept := createService(ctx, t, s.Client, clusterIPService("kept"))
	ip := waitIPAddress(ctx, t, s.Client, kept.Spec.ClusterIP, kept)
	ip.Finalizers = append(ip.Finalizers, testFinalizer)
	if _, err := addresses.Update(ctx, ip, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("adding a finalizer to IPAddress %s: %v", ip.Name, err)
	}
	if err := services.Delete(ctx, kept.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatalf("deleting Service kept: %v", err)
	}
	marked, err := addresses.Get(ctx, ip.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("IPAddress %s with finalizer %s after its Service's delete: %v, want it kept", ip.Name, testFinalizer, err)
	}
	if marked.DeletionTimestamp == nil || !slices.Contains(marked.Finalizers, testFinalizer) {
		t.Fatalf("IPAddress %s: deletionTimestamp %v, finalizers %v; want it marked for deletion with %s kept", ip.Name, marked.DeletionTimestamp, marked.Finalizers, testFinalizer)
	}
	marked.Finalizers = nil
	if _, err := addresses.Update(ctx, marked, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("removing the finalizer of IPAddress %s: %v", ip.Name, err)
	}
	err = wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, pollTimeout, true, func(ctx context.Context) (bool, error) {
		_, err := addresses.Get(ctx, ip.Name, metav1.GetOptions{})
		return apierrors.IsNotFound(err), nil
	})
	if err != nil {
		t.Errorf("IPAddress %s outlived the removal of its last finalizer: %v", ip.Name, err)
	}

	// Validating admission of the delete still runs: a policy that refuses
	// deleting IPAddresses of Service "guarded" keeps its IPAddress.
	denyGuardedDeletes(ctx, t, s)
	guarded := createService(ctx, t, s.Client, clusterIPService("guarded"))
	waitIPAddress(ctx, t, s.Client, guarded.Spec.ClusterIP, guarded)
	if err := services.Delete(ctx, guarded.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatalf("deleting Service guarded: %v", err)
	}
	switch got, err := addresses.Get(ctx, guarded.Spec.ClusterIP, metav1.GetOptions{}); {
	case err != nil:
		t.Errorf("IPAddress %s of Service guarded after its Service's delete: %v; want it kept, as the policy refuses its delete", guarded.Spec.ClusterIP, err)
	case got.DeletionTimestamp != nil:
		t.Errorf("IPAddress %s of Service guarded is marked for deletion; want it untouched, as the policy refuses its delete", got.Name)
	}
}

// denyGuardedDeletes installs a ValidatingAdmissionPolicy that refuses deleting
// IPAddresses of Service "guarded", and returns once it bites: a probe
// IPAddress of that parent is refused deletion.
func denyGuardedDeletes(ctx context.Context, t *testing.T, s *framework.APIServer) {
	t.Helper()
	denyIPAddresses(ctx, t, s.Client, "guarded-ipaddresses", admissionregistrationv1.Delete,
		admissionregistrationv1.Validation{Expression: "oldObject.spec.parentRef.name != 'guarded'", Message: "IPAddresses of Service guarded may not be deleted"})
	// The probe: an IPAddress of "guarded" outside the Service range, so no allocator owns it.
	probe := ipAddressOf("10.200.0.1", "guarded")
	if _, err := s.Client.NetworkingV1().IPAddresses().Create(ctx, probe, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating probe IPAddress: %v", err)
	}
	err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, pollTimeout, true, func(ctx context.Context) (bool, error) {
		err := s.Client.NetworkingV1().IPAddresses().Delete(ctx, probe.Name, metav1.DeleteOptions{DryRun: []string{metav1.DryRunAll}})
		return apierrors.IsInvalid(err) || apierrors.IsForbidden(err), nil
	})
	if err != nil {
		t.Fatalf("the policy never refused deleting the probe IPAddress: %v", err)
	}
}
