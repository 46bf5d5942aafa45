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
	"strings"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/netfork/netfork/test/integration/framework"
)

// deniedParentMessage is what the test's policy answers for an IPAddress of Service "denied".
const deniedParentMessage = "IPAddresses of Service denied are refused by policy"

// TestIPAddressWritesAreAdmitted checks that netfork, which writes a
// ClusterIP's IPAddress in process rather than through the loopback client,
// still runs it through this apiserver's admission chain as the loopback
// user: a ValidatingAdmissionPolicy that requires system:apiserver lets every
// allocation through, and one that refuses IPAddresses of Service "denied"
// fails that Service's create with the policy's message and leaves no IPAddress.
func TestIPAddressWritesAreAdmitted(t *testing.T) {
	ctx := context.Background()
	s := framework.StartAPIServer(t, framework.WithFlags("--service-cluster-ip-range=10.100.0.0/24"))
	defer s.Stop()
	waitKubernetesService(ctx, t, s.Client)

	denyIPAddresses(ctx, t, s.Client, "ipaddress-writes", admissionregistrationv1.Create,
		admissionregistrationv1.Validation{Expression: "request.userInfo.username == 'system:apiserver'", Message: "IPAddresses must be written by the apiserver"},
		admissionregistrationv1.Validation{Expression: "object.spec.parentRef.name != 'denied'", Message: deniedParentMessage})

	// The policy bites once the admission plugin's informers have it; until
	// then "denied" is created, and deleted again for the next try.
	services := s.Client.CoreV1().Services(metav1.NamespaceDefault)
	var lastErr error
	err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, pollTimeout, true, func(ctx context.Context) (bool, error) {
		_, lastErr = services.Create(ctx, clusterIPService("denied"), metav1.CreateOptions{})
		if lastErr == nil {
			if err := services.Delete(ctx, "denied", metav1.DeleteOptions{}); err != nil {
				return false, err
			}
			return false, nil
		}
		return true, nil
	})
	if err != nil {
		t.Fatalf("the policy never refused Service denied's IPAddress: %v", err)
	}
	if !strings.Contains(lastErr.Error(), deniedParentMessage) {
		t.Fatalf("creating Service denied: %v; want the policy's message %q", lastErr, deniedParentMessage)
	}

	// Admitted as system:apiserver: the first validation lets this one through.
	allowed := createService(ctx, t, s.Client, clusterIPService("allowed"))
	waitIPAddress(ctx, t, s.Client, allowed.Spec.ClusterIP, allowed)

	// Nothing is left of the refused create (nor of the tries before the policy bit).
	err = wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, pollTimeout, true, func(ctx context.Context) (bool, error) {
		list, err := s.Client.NetworkingV1().IPAddresses().List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err
		}
		for _, ip := range list.Items {
			if ref := ip.Spec.ParentRef; ref != nil && ref.Name == "denied" {
				return false, nil
			}
		}
		return true, nil
	})
	if err != nil {
		t.Errorf("an IPAddress of Service denied is left behind: %v", err)
	}
}
