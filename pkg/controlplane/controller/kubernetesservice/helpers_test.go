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

package kubernetesservice

import (
	"context"
	"net"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	netutils "k8s.io/utils/net"

	"github.com/netfork/netfork/pkg/controlplane/controller/internal/fakewatch"
	"github.com/netfork/netfork/pkg/controlplane/reconcilers"
)

var (
	serviceIP          = netutils.ParseIPSloppy("10.96.0.1")
	secondaryServiceIP = netutils.ParseIPSloppy("fd00:10:96::1")
)

// fakeReconciler returns scripted decisions and records what it was asked, with when.
type fakeReconciler struct {
	mu       sync.Mutex
	decision reconcilers.Decision
	// removed is what Remove decides for the apiservers left.
	removed reconcilers.Decision
	calls   []call
	stopped bool
	// reconcileErr fails every Reconcile, as a peer's write in between does.
	reconcileErr error
}

type call struct {
	name string
	at   time.Time
}

var _ reconcilers.Reconciler = (*fakeReconciler)(nil)

func (f *fakeReconciler) record(name string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, call{name, time.Now()})
}

func (f *fakeReconciler) callNames() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var names []string
	for _, c := range f.calls {
		names = append(names, c.name)
	}
	return names
}

func (f *fakeReconciler) Reconcile(context.Context, []corev1.EndpointPort) (reconcilers.Decision, error) {
	f.record("Reconcile")
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.stopped {
		return reconcilers.Decision{}, reconcilers.ErrStopped
	}
	if f.reconcileErr != nil {
		return reconcilers.Decision{}, f.reconcileErr
	}
	return f.decision, nil
}

func (f *fakeReconciler) MarkTerminating(context.Context, []corev1.EndpointPort) (reconcilers.Decision, error) {
	f.record("MarkTerminating")
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.decision, nil
}

func (f *fakeReconciler) Remove(context.Context, []corev1.EndpointPort) (reconcilers.Decision, error) {
	f.record("Remove")
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.removed, nil
}

func (f *fakeReconciler) ValidateIP(net.IP) error { return nil }
func (f *fakeReconciler) ReconcileEndpoints(string, net.IP, []corev1.EndpointPort, bool) error {
	return nil
}
func (f *fakeReconciler) RemoveEndpoints(string, net.IP, []corev1.EndpointPort) error { return nil }
func (f *fakeReconciler) StopReconciling() {
	f.record("StopReconciling")
	f.mu.Lock()
	defer f.mu.Unlock()
	f.stopped = true
}
func (f *fakeReconciler) Destroy() { f.record("Destroy") }

type testController struct {
	*Controller
	client *fake.Clientset
	rec    *fakeReconciler
}

func newTestController(t *testing.T, cfg Config, objects ...runtime.Object) *testController {
	t.Helper()
	client := fake.NewClientset(objects...)
	watching := fakewatch.Started(client, "services")
	factory := informers.NewSharedInformerFactory(client, 0)
	rec := &fakeReconciler{decision: reconcilers.Decision{Shape: reconcilers.ShapeUpstream}}
	cfg.Reconciler = rec
	if cfg.Interval == 0 {
		cfg.Interval = time.Second
	}
	cfg.ServiceIP, cfg.ServicePort, cfg.PublicServicePort = serviceIP, 443, 6443
	c, err := New(cfg, client, factory.Core().V1().Services())
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	factory.Start(ctx.Done())
	factory.WaitForCacheSync(ctx.Done())
	watching(t)
	return &testController{Controller: c, client: client, rec: rec}
}

// decide makes the reconciler decide shape and runs one endpoint reconcile.
func (tc *testController) decide(t *testing.T, shape reconcilers.Shape) {
	t.Helper()
	tc.rec.mu.Lock()
	tc.rec.decision = reconcilers.Decision{Shape: shape}
	tc.rec.mu.Unlock()
	tc.reconcileEndpoints(context.Background())
}

// service reads the Service from the API and waits until the lister has it too.
func (tc *testController) service(t *testing.T) *corev1.Service {
	t.Helper()
	svc, err := tc.client.CoreV1().Services(metav1.NamespaceDefault).Get(context.Background(), ServiceName, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("reading the kubernetes Service: %v", err)
	}
	err = wait.PollUntilContextTimeout(context.Background(), 10*time.Millisecond, 10*time.Second, true, func(context.Context) (bool, error) {
		cached, err := tc.lister.Services(metav1.NamespaceDefault).Get(ServiceName)
		return err == nil && cached.ResourceVersion == svc.ResourceVersion, nil
	})
	if err != nil {
		t.Fatalf("the Service cache never caught up with resourceVersion %s", svc.ResourceVersion)
	}
	return svc
}

func dualStackService() *corev1.Service {
	return &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: ServiceName, Namespace: metav1.NamespaceDefault},
		Spec: corev1.ServiceSpec{
			ClusterIP:      serviceIP.String(),
			ClusterIPs:     []string{serviceIP.String(), secondaryServiceIP.String()},
			IPFamilies:     []corev1.IPFamily{corev1.IPv4Protocol, corev1.IPv6Protocol},
			IPFamilyPolicy: ptrPolicy(corev1.IPFamilyPolicyRequireDualStack),
			Ports:          []corev1.ServicePort{{Name: "https", Port: 443, Protocol: corev1.ProtocolTCP}},
		},
	}
}

func ptrPolicy(p corev1.IPFamilyPolicy) *corev1.IPFamilyPolicy { return &p }

// processNextAfterDelete waits for the informer to report the deletion, then
// runs the worker once.
func (tc *testController) processNextAfterDelete(t *testing.T) bool {
	t.Helper()
	err := wait.PollUntilContextTimeout(context.Background(), 10*time.Millisecond, 10*time.Second, true, func(context.Context) (bool, error) {
		return tc.queue.Len() > 0, nil
	})
	if err != nil {
		t.Fatal("the deletion never reached the queue")
	}
	return tc.processNext(context.Background())
}
