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

package family

import (
	"bytes"
	"fmt"
	"net/netip"
	"sort"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/utils/ptr"

	"github.com/netfork/netfork/pkg/servicecidr/renumber"
)

const (
	v4Range = "10.96.0.0/16"
	v6Range = "fd00:10:96::/108"
)

var (
	servicesResource    = corev1.SchemeGroupVersion.WithResource("services")
	serviceCIDRResource = networkingv1.SchemeGroupVersion.WithResource("servicecidrs")
)

// answer is how the fake registry answers an update that asks for a family it has no range of.
type answer int

const (
	// allocate: the apiserver serves both ranges.
	allocate answer = iota
	// refuseFamily: one range, upstream's registry: Invalid, "not configured on this cluster".
	refuseFamily
	// oneFamily: one range, an apiserver that drops the family it lacks.
	oneFamily
)

// fakeCluster is a fake clientset whose update of a Service behaves as
// upstream's registry does with the IP family fields, and whose
// ServiceCIDRs behave as netfork's apiservers keep them: created Ready,
// deleted into Terminating, released and (`kubernetes`) recreated from
// ranges when next read.
type fakeCluster struct {
	*fake.Clientset
	// ranges are the apiservers' --service-cluster-ip-range.
	ranges []string
	answer answer
	// conflicts is how many Service updates to answer Conflict first.
	conflicts int
	// stopped means no apiserver releases or recreates a ServiceCIDR.
	stopped bool
	// grace is how many reads a Terminating ServiceCIDR stays for; left counts them down.
	grace int
	left  map[string]int
	uids  int
	log   bytes.Buffer
}

func newFakeCluster(t *testing.T, ranges []string, objects ...runtime.Object) *fakeCluster {
	t.Helper()
	f := &fakeCluster{Clientset: fake.NewClientset(objects...), ranges: ranges, grace: 2, left: map[string]int{}}
	f.PrependReactor("update", "services", f.updateService)
	f.PrependReactor("create", "servicecidrs", f.createCIDR)
	f.PrependReactor("delete", "servicecidrs", f.deleteCIDR)
	f.PrependReactor("get", "servicecidrs", f.getCIDR)
	return f
}

func (f *fakeCluster) uid() types.UID {
	f.uids++
	return types.UID(fmt.Sprintf("uid-%d", f.uids))
}

// updateService is the registry's initIPFamilyFields and ClusterIP
// allocation, reduced to the cases the conversions meet.
func (f *fakeCluster) updateService(a k8stesting.Action) (bool, runtime.Object, error) {
	u := a.(k8stesting.UpdateActionImpl)
	svc := u.GetObject().(*corev1.Service).DeepCopy()
	if f.conflicts > 0 {
		f.conflicts--
		// another writer got there first
		live, _ := f.Tracker().Get(servicesResource, svc.Namespace, svc.Name)
		l := live.(*corev1.Service).DeepCopy()
		l.Annotations = map[string]string{"other": "writer"}
		if err := f.Tracker().Update(servicesResource, l, l.Namespace); err != nil {
			return true, nil, err
		}
		return true, nil, apierrors.NewConflict(servicesResource.GroupResource(), svc.Name, fmt.Errorf("the object has been modified"))
	}
	policy := ptr.Deref(svc.Spec.IPFamilyPolicy, corev1.IPFamilyPolicySingleStack)
	switch {
	case policy == corev1.IPFamilyPolicySingleStack && len(svc.Spec.IPFamilies) == 2:
		svc.Spec.IPFamilies = svc.Spec.IPFamilies[:1]
		svc.Spec.ClusterIPs = svc.Spec.ClusterIPs[:1]
	case policy != corev1.IPFamilyPolicySingleStack && len(svc.Spec.IPFamilies) == 2 && len(f.ranges) < 2:
		if f.answer == refuseFamily {
			return true, nil, apierrors.NewInvalid(corev1.SchemeGroupVersion.WithKind("Service").GroupKind(), svc.Name, field.ErrorList{
				field.Invalid(field.NewPath("spec", "ipFamilies").Index(1), svc.Spec.IPFamilies[1], "not configured on this cluster")})
		}
		svc.Spec.IPFamilies = svc.Spec.IPFamilies[:1]
	case policy != corev1.IPFamilyPolicySingleStack && len(svc.Spec.IPFamilies) == 2 && len(svc.Spec.ClusterIPs) == 1 && svc.Spec.ClusterIP != corev1.ClusterIPNone:
		// the registry's pick: the primary's host part in the IPv6 range
		host, six := netip.MustParseAddr(svc.Spec.ClusterIPs[0]).As4(), netip.MustParsePrefix(v6Range).Addr().As16()
		six[14], six[15] = host[2], host[3]
		svc.Spec.ClusterIPs = append(svc.Spec.ClusterIPs, netip.AddrFrom16(six).String())
	}
	if len(u.UpdateOptions.DryRun) == 0 {
		if err := f.Tracker().Update(servicesResource, svc, svc.Namespace); err != nil {
			return true, nil, err
		}
	}
	return true, svc, nil
}

func readyCIDR(name string, uid types.UID, cidrs ...string) *networkingv1.ServiceCIDR {
	return &networkingv1.ServiceCIDR{
		ObjectMeta: metav1.ObjectMeta{Name: name, UID: uid},
		Spec:       networkingv1.ServiceCIDRSpec{CIDRs: cidrs},
		Status: networkingv1.ServiceCIDRStatus{Conditions: []metav1.Condition{{
			Type: networkingv1.ServiceCIDRConditionReady, Status: metav1.ConditionTrue, Reason: "ServiceCIDRReady"}}},
	}
}

func (f *fakeCluster) createCIDR(a k8stesting.Action) (bool, runtime.Object, error) {
	sc := a.(k8stesting.CreateAction).GetObject().(*networkingv1.ServiceCIDR).DeepCopy()
	sc.UID = f.uid()
	sc.Status = readyCIDR("", "").Status
	return true, sc, f.Tracker().Create(serviceCIDRResource, sc, "")
}

// deleteCIDR leaves the ServiceCIDR Terminating, as the deletion controller's finalizer does.
func (f *fakeCluster) deleteCIDR(a k8stesting.Action) (bool, runtime.Object, error) {
	obj, err := f.Tracker().Get(serviceCIDRResource, "", a.(k8stesting.DeleteAction).GetName())
	if err != nil {
		return true, nil, err
	}
	sc := obj.(*networkingv1.ServiceCIDR).DeepCopy()
	if sc.DeletionTimestamp == nil {
		sc.DeletionTimestamp = ptr.To(metav1.Now())
	}
	return true, nil, f.Tracker().Update(serviceCIDRResource, sc, "")
}

// getCIDR releases a Terminating ServiceCIDR and has the apiservers
// recreate `kubernetes` from their ranges, as if the grace period had passed.
func (f *fakeCluster) getCIDR(a k8stesting.Action) (bool, runtime.Object, error) {
	if f.stopped {
		return false, nil, nil
	}
	name := a.(k8stesting.GetAction).GetName()
	obj, err := f.Tracker().Get(serviceCIDRResource, "", name)
	switch {
	case err == nil && obj.(*networkingv1.ServiceCIDR).DeletionTimestamp != nil:
		if n, ok := f.left[name]; !ok || n > 0 {
			if !ok {
				n = f.grace
			}
			f.left[name] = n - 1
			return false, nil, nil
		}
		delete(f.left, name)
		if err := f.Tracker().Delete(serviceCIDRResource, "", name); err != nil {
			return true, nil, err
		}
	case apierrors.IsNotFound(err):
	default:
		return false, nil, nil
	}
	if name != renumber.DefaultServiceCIDRName {
		return true, nil, apierrors.NewNotFound(serviceCIDRResource.GroupResource(), name)
	}
	sc := readyCIDR(name, f.uid(), f.ranges...)
	return true, sc, f.Tracker().Create(serviceCIDRResource, sc, "")
}

// writes lists the create, update, patch and delete calls made, in order.
func (f *fakeCluster) writes() []string {
	var out []string
	for _, a := range f.Actions() {
		switch a.GetVerb() {
		case "create", "update", "patch", "delete":
			name := ""
			switch x := a.(type) {
			case interface{ GetObject() runtime.Object }: // create and update
				name = objectName(x.GetObject())
			case k8stesting.DeleteAction:
				name = x.GetName()
			}
			out = append(out, fmt.Sprintf("%s %s %s", a.GetVerb(), a.GetResource().Resource, name))
		}
	}
	return out
}

func objectName(o runtime.Object) string {
	if m, ok := o.(metav1.Object); ok {
		if m.GetNamespace() != "" {
			return m.GetNamespace() + "/" + m.GetName()
		}
		return m.GetName()
	}
	return ""
}

func (f *fakeCluster) runner(opts Options) *Runner {
	opts.Log = &f.log
	if opts.Timeout == 0 {
		opts.Timeout = 10 * time.Second // a failing test fails in seconds, not in defaultTimeout
	}
	r := New(f, opts)
	r.poll = time.Millisecond
	return r
}

// services are the cluster's Services by namespace/name.
func (f *fakeCluster) services(t *testing.T) map[string]*corev1.Service {
	t.Helper()
	l, err := f.CoreV1().Services("").List(t.Context(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*corev1.Service{}
	for i := range l.Items {
		out[key(&l.Items[i])] = &l.Items[i]
	}
	return out
}

func svc(ns, name string, mutate func(*corev1.Service)) *corev1.Service {
	s := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, UID: types.UID("svc-" + ns + "-" + name), Labels: map[string]string{"app": name}},
		Spec: corev1.ServiceSpec{
			Type: corev1.ServiceTypeClusterIP, Selector: map[string]string{"app": name},
			IPFamilyPolicy: ptr.To(corev1.IPFamilyPolicySingleStack), IPFamilies: []corev1.IPFamily{corev1.IPv4Protocol},
		},
	}
	if mutate != nil {
		mutate(s)
	}
	return s
}

func at(ips ...string) func(*corev1.Service) {
	return func(s *corev1.Service) {
		s.Spec.ClusterIP, s.Spec.ClusterIPs = ips[0], ips
		if len(ips) == 2 {
			s.Spec.IPFamilyPolicy = ptr.To(corev1.IPFamilyPolicyPreferDualStack)
			s.Spec.IPFamilies = []corev1.IPFamily{corev1.IPv4Protocol, corev1.IPv6Protocol}
		}
	}
}

// mixed are Services of every kind the conversions meet, on an IPv4 cluster:
// the ones dual-stack changes are named in toConvert.
func mixed() []runtime.Object {
	return []runtime.Object{
		svc("default", "kubernetes", at("10.96.0.1")),
		svc("default", "web", at("10.96.0.5")),
		svc("default", "np", func(s *corev1.Service) { at("10.96.1.7")(s); s.Spec.Type = corev1.ServiceTypeNodePort }),
		svc("default", "hl", at(corev1.ClusterIPNone)),
		svc("default", "prefer", func(s *corev1.Service) {
			at("10.96.0.9")(s)
			s.Spec.IPFamilyPolicy = ptr.To(corev1.IPFamilyPolicyPreferDualStack)
		}),
		svc("default", "ext", func(s *corev1.Service) {
			s.Spec = corev1.ServiceSpec{Type: corev1.ServiceTypeExternalName, ExternalName: "example.invalid"}
		}),
		svc("default", "web-renumber-bridge", func(s *corev1.Service) {
			at("10.96.0.44")(s)
			s.Labels = map[string]string{renumber.BridgeLabel: "web"}
			s.Spec.Selector = nil
		}),
		svc("default", "going", func(s *corev1.Service) {
			at("10.96.0.45")(s)
			s.DeletionTimestamp, s.Finalizers = ptr.To(metav1.Now()), []string{"example.com/keep"}
		}),
		svc("apps", "a1", at("10.96.2.1")),
	}
}

var toConvert = []string{"apps/a1", "default/hl", "default/np", "default/prefer", "default/web"}

func keys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
