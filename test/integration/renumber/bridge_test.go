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

package renumber

import (
	"context"
	"reflect"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/component-base/featuregate"
	"k8s.io/utils/ptr"

	"github.com/netfork/netfork/pkg/controlplane/controller/servicebridge"
	"github.com/netfork/netfork/pkg/features"
	"github.com/netfork/netfork/pkg/servicecidr/renumber"
	"github.com/netfork/netfork/test/integration/framework"
)

// TestKubernetesBridgeDualStack checks the service-bridge controller runs
// with DualStackAPIServer on too, where netfork's own controller keeps the
// kubernetes Service dual-stack with one EndpointSlice per family: a bridge
// gets both, and loses them when it is deleted.
func TestKubernetesBridgeDualStack(t *testing.T) {
	ctx := context.Background()
	s := framework.StartAPIServer(t,
		framework.WithFeatureGates(map[featuregate.Feature]bool{features.DualStackAPIServer: true}),
		withTestGracePeriod,
		framework.WithFlags("--endpoint-reconciler-type=lease", "--advertise-address=198.18.0.11,fd4e:6574:666b:1::11"))
	var kubernetesSlices map[discoveryv1.AddressType]string
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		var err error
		kubernetesSlices, err = endpointsByType(ctx, s.Client, "kubernetes", "")
		return err == nil && strings.Contains(kubernetesSlices[discoveryv1.AddressTypeIPv6], "fd4e:6574:666b:1::11"), nil
	})
	if err != nil {
		t.Fatalf("the kubernetes Service has no IPv6 EndpointSlice: %v", kubernetesSlices)
	}

	bridge := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: renumber.KubernetesBridgeName, Namespace: metav1.NamespaceDefault, Labels: map[string]string{renumber.BridgeLabel: "kubernetes"}},
		Spec: corev1.ServiceSpec{
			IPFamilyPolicy: ptr.To(corev1.IPFamilyPolicyRequireDualStack),
			Ports:          []corev1.ServicePort{{Name: "https", Port: 443, TargetPort: intstr.FromInt32(6443), Protocol: corev1.ProtocolTCP}},
		},
	}
	if _, err := s.Client.CoreV1().Services(metav1.NamespaceDefault).Create(ctx, bridge, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	var got map[discoveryv1.AddressType]string
	err = wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		if kubernetesSlices, err = endpointsByType(ctx, s.Client, "kubernetes", ""); err != nil {
			return false, err
		}
		got, err = endpointsByType(ctx, s.Client, bridge.Name, servicebridge.ManagedBy)
		return err == nil && len(got) == 2 && reflect.DeepEqual(got, kubernetesSlices), nil
	})
	if err != nil {
		t.Fatalf("the bridge's EndpointSlices %v; want the kubernetes Service's %v", got, kubernetesSlices)
	}

	if err := s.Client.CoreV1().Services(metav1.NamespaceDefault).Delete(ctx, bridge.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	err = wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		got, err = endpointsByType(ctx, s.Client, bridge.Name, "")
		return err == nil && len(got) == 0, nil
	})
	if err != nil {
		t.Fatalf("the deleted bridge's EndpointSlices are still there: %v", got)
	}
}
