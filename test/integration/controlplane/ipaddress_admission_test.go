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
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	auditv1 "k8s.io/apiserver/pkg/apis/audit/v1"

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

// TestIPAddressAuditAnnotationsKept checks that the audit annotations a
// ValidatingAdmissionPolicy attaches to an in-process IPAddress write are not
// lost: they are recorded on the audit event of the Service create that made
// the write (upstream records them on its loopback request's own event).
func TestIPAddressAuditAnnotationsKept(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	policyFile, logFile := filepath.Join(dir, "audit-policy.yaml"), filepath.Join(dir, "audit.log")
	if err := os.WriteFile(policyFile, []byte("apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s := framework.StartAPIServer(t, framework.WithFlags("--service-cluster-ip-range=10.100.0.0/24",
		"--audit-policy-file="+policyFile, "--audit-log-path="+logFile))
	defer s.Stop()
	waitKubernetesService(ctx, t, s.Client)

	// The policy is made in two steps so that its refusal of "probe", which
	// the test waits for, comes with the annotation in one version of it.
	const name = "annotate-ipaddresses"
	denyIPAddresses(ctx, t, s.Client, name, admissionregistrationv1.Create, admissionregistrationv1.Validation{Expression: "true"})
	policies := s.Client.AdmissionregistrationV1().ValidatingAdmissionPolicies()
	policy, err := policies.Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	policy.Spec.Validations = append(policy.Spec.Validations, admissionregistrationv1.Validation{
		Expression: "object.spec.parentRef.name != 'probe'", Message: deniedParentMessage})
	policy.Spec.AuditAnnotations = []admissionregistrationv1.AuditAnnotation{{Key: "parent", ValueExpression: "string(object.spec.parentRef.name)"}}
	if _, err := policies.Update(ctx, policy, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("updating ValidatingAdmissionPolicy %s: %v", name, err)
	}
	waitRefused(ctx, t, s.Client, metav1.NamespaceDefault, clusterIPService("probe"), deniedParentMessage)

	createService(ctx, t, s.Client, clusterIPService("audited"))
	key := name + "/parent"
	var seen []string
	err = wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, pollTimeout, true, func(context.Context) (bool, error) {
		data, err := os.ReadFile(logFile)
		if err != nil {
			return false, nil
		}
		seen = nil
		for _, line := range strings.Split(string(data), "\n") {
			var ev auditv1.Event
			if json.Unmarshal([]byte(line), &ev) != nil || ev.ObjectRef == nil || ev.ObjectRef.Resource != "services" ||
				ev.ObjectRef.Name != "audited" || ev.Verb != "create" || ev.Stage != auditv1.StageResponseComplete {
				continue
			}
			seen = append(seen, fmt.Sprint(ev.Annotations))
			if ev.Annotations[key] == "audited" {
				return true, nil
			}
		}
		return false, nil
	})
	if err != nil {
		t.Errorf("no audit event of the create of Service audited with annotation %s=audited (events of it: %q)", key, seen)
	}
}
