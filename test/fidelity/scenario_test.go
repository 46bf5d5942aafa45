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

package fidelity

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/wait"
	auditv1 "k8s.io/apiserver/pkg/apis/audit/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
)

// userName is who the scenario's requests come from: an ordinary cluster-admin, not
// system:masters, so its requests are classified, audited and admitted as a user's.
const userName = "fidelity-user"

// servicesOnlyUser may create, get and delete Services and nothing else (testdata/setup.yaml),
// no IPAddresses; noServicesUser has no binding at all.
const (
	servicesOnlyUser = "fidelity-services-only"
	noServicesUser   = "fidelity-no-services"
)

// step is one action of the scenario; what it causes is attributed to it.
type step struct {
	name string
	do   func(ctx context.Context, r *run)
}

// window is when a step ran and the etcd revision the cluster had reached once it ended.
type window struct {
	name       string
	start, end time.Time
	revision   int64
}

// run is one pass of the scenario on one cluster.
type run struct {
	t       *testing.T
	cluster *cluster
	admin   kubernetes.Interface
	user    kubernetes.Interface
	// users are the clients of the other users, by name.
	users map[string]kubernetes.Interface
	rec   *recorder
	// auditLog is the apiserver's audit log.
	auditLog string
	windows  []window
	// client holds one record per call the scenario made; etcd the raw values read.
	client []record
	etcd   []record
}

// steps is the scenario: creates of single and dual-stack Services, a dry run, creates
// whose IPAddress the policy refuses, one whose IPAddresses a webhook changes, creates
// whose IPAddress's webhook times out (failing closed, and open), creates the client
// cancels (single and dual-stack), creates by a user who may not write IPAddresses and by
// one who may not write Services, a create over quota, deletes, one of them with its
// IPAddress's delete refused, one with its IPAddress's webhook timing out failing closed
// and one failing open, one by the user who may not write IPAddresses, one of a Service
// stored with the encryption key rotated out, one the client cancels, and etcd read after
// the creates and after the deletes.
var steps = []step{
	{"create-single", func(ctx context.Context, r *run) { r.create(ctx, service("single", nil), false) }},
	{"create-dual", func(ctx context.Context, r *run) { r.create(ctx, service("dual", dualStack), false) }},
	{"create-dry-run", func(ctx context.Context, r *run) { r.create(ctx, service("dry", dualStack), true) }},
	{"create-refused-by-policy", func(ctx context.Context, r *run) { r.create(ctx, service("deny-single", nil), false) }},
	{"create-dual-refused-by-policy", func(ctx context.Context, r *run) { r.create(ctx, service("deny-dual", dualStack), false) }},
	{"create-keep", func(ctx context.Context, r *run) { r.create(ctx, service("keep-single", nil), false) }},
	{"create-dual-mutated-by-webhook", func(ctx context.Context, r *run) { r.create(ctx, service(mutatePrefix+"dual", dualStack), false) }},
	{"create-webhook-timeout-fail", func(ctx context.Context, r *run) { r.create(ctx, service("slow-create-fail", nil), false) }},
	{"create-webhook-timeout-ignore", func(ctx context.Context, r *run) { r.create(ctx, service("slow-ignore", nil), false) }},
	{"create-release-webhook-timeout-fail", func(ctx context.Context, r *run) { r.create(ctx, service("slow-delete-fail", nil), false) }},
	{"create-canceled-by-client", func(ctx context.Context, r *run) { r.createCanceled(ctx, service("slow-ignore-canceled", nil)) }},
	{"create-dual-canceled-by-client", func(ctx context.Context, r *run) { r.createCanceled(ctx, service("slow-ipv6-canceled", dualStack)) }},
	{"create-release-canceled", func(ctx context.Context, r *run) { r.create(ctx, service("slow-release-canceled", nil), false) }},
	{"create-by-user-without-ipaddresses", func(ctx context.Context, r *run) {
		r.createAs(ctx, servicesOnlyUser, service("services-only", dualStack))
	}},
	{"create-ipaddress-refused-to-that-user", func(ctx context.Context, r *run) { r.createIPAddressAs(ctx, servicesOnlyUser, "10.96.255.254") }},
	{"create-refused-to-user-without-services", func(ctx context.Context, r *run) { r.createAs(ctx, noServicesUser, service("no-services", nil)) }},
	{"etcd-after-creates", func(ctx context.Context, r *run) { r.readEtcd(ctx, "etcd-after-creates") }},
	{"create-over-quota", func(ctx context.Context, r *run) { r.create(ctx, service("over-quota", nil), false) }},
	{"delete-single", func(ctx context.Context, r *run) { r.delete(ctx, "single") }},
	{"delete-dual", func(ctx context.Context, r *run) { r.delete(ctx, "dual") }},
	{"delete-release-refused-by-policy", func(ctx context.Context, r *run) { r.delete(ctx, "keep-single") }},
	{"delete-dual-mutated-by-webhook", func(ctx context.Context, r *run) { r.delete(ctx, mutatePrefix+"dual") }},
	{"delete-webhook-timeout-ignore", func(ctx context.Context, r *run) { r.delete(ctx, "slow-ignore") }},
	{"delete-release-webhook-timeout-fail", func(ctx context.Context, r *run) { r.delete(ctx, "slow-delete-fail") }},
	{"delete-by-user-without-ipaddresses", func(ctx context.Context, r *run) { r.deleteAs(ctx, servicesOnlyUser, "services-only") }},
	{"delete-dual-stored-with-old-key", func(ctx context.Context, r *run) { r.delete(ctx, beforeRotationPrefix+"dual") }},
	{"delete-canceled-by-client", func(ctx context.Context, r *run) { r.deleteCanceled(ctx, "slow-release-canceled") }},
	{"etcd-after-deletes", func(ctx context.Context, r *run) { r.readEtcd(ctx, "etcd-after-deletes") }},
}

// createdBeforeOverQuota is how many Services the steps before "create-over-quota" create
// in "default"; the quota on Services there is them and those there before the scenario,
// so "over-quota" is refused.
const createdBeforeOverQuota = 8

var dualStack = func(s *corev1.Service) {
	policy := corev1.IPFamilyPolicyRequireDualStack
	s.Spec.IPFamilyPolicy = &policy
}

func service(name string, mutate func(*corev1.Service)) *corev1.Service {
	s := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: metav1.NamespaceDefault},
		Spec: corev1.ServiceSpec{
			Ports: []corev1.ServicePort{{Name: "http", Port: 80, TargetPort: intstr.FromInt32(8080), Protocol: corev1.ProtocolTCP}},
		},
	}
	if mutate != nil {
		mutate(s)
	}
	return s
}

// create records a create of svc as the user sees it.
func (r *run) create(ctx context.Context, svc *corev1.Service, dryRun bool) {
	opts := metav1.CreateOptions{}
	action := "create Service " + svc.Name
	if dryRun {
		opts.DryRun = []string{metav1.DryRunAll}
		action += " (dry run)"
	}
	got, err := r.user.CoreV1().Services(svc.Namespace).Create(ctx, svc, opts)
	r.record(action, got, err)
}

// createAs records a create of svc as user sees it.
func (r *run) createAs(ctx context.Context, user string, svc *corev1.Service) {
	got, err := r.users[user].CoreV1().Services(svc.Namespace).Create(ctx, svc, metav1.CreateOptions{})
	r.record("create Service "+svc.Name+" as "+user, got, err)
}

// createIPAddressAs records a create of an IPAddress of address as user sees it.
func (r *run) createIPAddressAs(ctx context.Context, user, address string) {
	ip := &networkingv1.IPAddress{
		ObjectMeta: metav1.ObjectMeta{Name: address},
		Spec:       networkingv1.IPAddressSpec{ParentRef: &networkingv1.ParentReference{Resource: "services", Namespace: metav1.NamespaceDefault, Name: "single"}},
	}
	got, err := r.users[user].NetworkingV1().IPAddresses().Create(ctx, ip, metav1.CreateOptions{})
	r.record("create IPAddress as "+user, got, err)
}

// createCanceled records a create of svc that the client cancels while the slow
// webhook holds the admission of an IPAddress's create, and waits until the apiserver
// finished the request (see canceled).
func (r *run) createCanceled(ctx context.Context, svc *corev1.Service) {
	r.canceled(ctx, "create", svc.Name, func(ctx context.Context) error {
		_, err := r.user.CoreV1().Services(svc.Namespace).Create(ctx, svc, metav1.CreateOptions{})
		return err
	})
}

// deleteCanceled records a delete of Service name that the client cancels while the
// slow webhook holds the admission of its IPAddress's delete, and waits until the
// apiserver finished the request (see canceled).
func (r *run) deleteCanceled(ctx context.Context, name string) {
	r.canceled(ctx, "delete", name, func(ctx context.Context) error {
		return r.user.CoreV1().Services(metav1.NamespaceDefault).Delete(ctx, name, metav1.DeleteOptions{})
	})
}

// canceled records call, the verb of Service name, which the client cancels once the
// slow webhook and the validating recorder were both called for an IPAddress of the Service, and waits until the apiserver
// finished the request: what it does after the client left is the step's too. The
// request's audit event ends it, unless that event is the 504 the apiserver answers a
// request it gave up on, while its handler still runs; then the handler's return, which
// apiserver_request_post_timeout_total{source="rest-handler"} counts, does.
func (r *run) canceled(ctx context.Context, verb, name string, call func(context.Context) error) {
	postTimeouts := r.postTimeouts(ctx)
	callCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- call(callCtx) }()
	err := wait.PollUntilContextTimeout(ctx, 20*time.Millisecond, time.Minute, true, func(context.Context) (bool, error) {
		return r.rec.heldAndValidated(name), nil
	})
	if err != nil {
		r.t.Fatalf("the slow and validating webhooks never both saw an IPAddress of Service %s: %v", name, err)
	}
	cancel()
	r.record(verb+" Service "+name+" (canceled)", nil, <-done)
	err = wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		e := r.audited(auditv1.StageResponseComplete, verb, "services", metav1.NamespaceDefault, name)
		switch {
		case e == nil:
			return false, nil
		case e.ResponseStatus != nil && e.ResponseStatus.Code == http.StatusGatewayTimeout:
			return r.postTimeouts(ctx) > postTimeouts, nil
		}
		return true, nil
	})
	if err != nil {
		r.t.Fatalf("the audit log never showed the end of the %s of Service %s: %v", verb, name, err)
	}
}

// delete records a delete of Service name as the user sees it.
func (r *run) delete(ctx context.Context, name string) {
	err := r.user.CoreV1().Services(metav1.NamespaceDefault).Delete(ctx, name, metav1.DeleteOptions{})
	r.record("delete Service "+name, nil, err)
}

// deleteAs records a delete of Service name as user sees it.
func (r *run) deleteAs(ctx context.Context, user, name string) {
	err := r.users[user].CoreV1().Services(metav1.NamespaceDefault).Delete(ctx, name, metav1.DeleteOptions{})
	r.record("delete Service "+name+" as "+user, nil, err)
}

// record keeps a call's outcome: the object returned, or the error's status with its causes.
func (r *run) record(action string, obj runtime.Object, err error) {
	value := map[string]any{}
	var status apierrors.APIStatus
	switch {
	case err == nil:
		value["outcome"] = "success"
		if obj != nil {
			value["object"] = toJSON(obj)
		}
	case errors.As(err, &status):
		s := status.Status()
		value["code"] = s.Code
		value["reason"] = string(s.Reason)
		value["message"] = s.Message
		if s.Details != nil {
			value["causes"] = toJSON(s.Details.Causes)
		}
	default:
		value["error"] = err.Error()
	}
	step := r.windows[len(r.windows)-1].name
	r.client = append(r.client, record{key: []string{"client", step, action}, value: toJSON(value)})
}

// runSteps runs the scenario, noting each step's window and the revision it ended at.
func (r *run) runSteps(ctx context.Context) {
	for _, s := range steps {
		r.windows = append(r.windows, window{name: s.name, start: time.Now()})
		s.do(ctx, r)
		w := &r.windows[len(r.windows)-1]
		w.revision = r.revision(ctx)
		w.end = time.Now()
	}
}

// revision is etcd's current revision as the apiserver reports it for a quorum list.
func (r *run) revision(ctx context.Context) int64 {
	list, err := r.admin.CoreV1().Services(metav1.NamespaceDefault).List(ctx, metav1.ListOptions{Limit: 1})
	if err != nil {
		r.t.Fatalf("listing Services for the current revision: %v", err)
	}
	rv, err := strconv.ParseInt(list.ResourceVersion, 10, 64)
	if err != nil {
		r.t.Fatalf("list resourceVersion %q: %v", list.ResourceVersion, err)
	}
	return rv
}

// stepAt names the step whose window holds t, "" outside every step.
func (r *run) stepAt(t time.Time) string {
	for _, w := range r.windows {
		if !t.Before(w.start) && t.Before(w.end) {
			return w.name
		}
	}
	return ""
}

// stepOfRevision names the step that ended at or after revision rv, "" past the last one.
func (r *run) stepOfRevision(rv int64) string {
	for _, w := range r.windows {
		if rv <= w.revision {
			return w.name
		}
	}
	return ""
}

// beforeRotationPrefix names the Services created before the encryption key's rotation.
const beforeRotationPrefix = "key1-"

// rotateKey creates a single and a dual-stack Service while the apiserver encrypts with
// key1 alone, then, if rotate, rotates the key as an operator does: the run's copy of the
// encryption configuration becomes rotatedEncryptionConfig (key2 first, key1 still read)
// and the apiserver restarts with it. Every later write is encrypted with key2; readEtcd
// tells which key encrypted each value, and that the API reads each back.
func (r *run) rotateKey(ctx context.Context, localUp, encryption string, rotate bool) {
	for _, svc := range []*corev1.Service{service(beforeRotationPrefix+"single", nil), service(beforeRotationPrefix+"dual", dualStack)} {
		if _, err := r.admin.CoreV1().Services(svc.Namespace).Create(ctx, svc, metav1.CreateOptions{}); err != nil {
			r.t.Fatalf("creating Service %s before the key's rotation: %v", svc.Name, err)
		}
	}
	if !rotate {
		return
	}
	if err := copyFile(rotatedEncryptionConfig, encryption); err != nil {
		r.t.Fatalf("%v", err)
	}
	if err := restartAPIServer(ctx, localUp, r.cluster.dataDir); err != nil {
		r.t.Fatalf("restarting the apiserver with %s: %v", rotatedEncryptionConfig, err)
	}
}

// setUp creates the users' roles and bindings, the recording webhooks and the policy,
// waits until each of them bites, then puts the quota on Services.
func (r *run) setUp(ctx context.Context, rec *recorder) {
	manifest, err := os.ReadFile("testdata/setup.yaml")
	if err != nil {
		r.t.Fatalf("%v", err)
	}
	text := strings.NewReplacer("RECORDER_URL", rec.url, "RECORDER_CA_BUNDLE", base64.StdEncoding.EncodeToString(rec.caBundle)).Replace(string(manifest))
	for i, doc := range strings.Split(text, "\n---\n") {
		obj, _, err := scheme.Codecs.UniversalDeserializer().Decode([]byte(doc), nil, nil)
		if err != nil {
			r.t.Fatalf("testdata/setup.yaml document %d: %v", i+1, err)
		}
		if err := createObject(ctx, r.admin, obj); err != nil {
			r.t.Fatalf("creating %T from testdata/setup.yaml: %v", obj, err)
		}
	}
	r.waitRBAC(ctx)
	r.waitWebhooks(ctx, rec)
	r.waitSlowWebhooks(ctx, rec)
	r.waitPolicy(ctx)
	r.setQuota(ctx)
	rec.take()
}

// createObject creates one of the kinds testdata/setup.yaml holds.
func createObject(ctx context.Context, c kubernetes.Interface, obj runtime.Object) error {
	var err error
	opts := metav1.CreateOptions{}
	switch o := obj.(type) {
	case *rbacv1.ClusterRole:
		_, err = c.RbacV1().ClusterRoles().Create(ctx, o, opts)
	case *rbacv1.ClusterRoleBinding:
		_, err = c.RbacV1().ClusterRoleBindings().Create(ctx, o, opts)
	case *admissionregistrationv1.MutatingWebhookConfiguration:
		_, err = c.AdmissionregistrationV1().MutatingWebhookConfigurations().Create(ctx, o, opts)
	case *admissionregistrationv1.ValidatingWebhookConfiguration:
		_, err = c.AdmissionregistrationV1().ValidatingWebhookConfigurations().Create(ctx, o, opts)
	case *admissionregistrationv1.ValidatingAdmissionPolicy:
		_, err = c.AdmissionregistrationV1().ValidatingAdmissionPolicies().Create(ctx, o, opts)
	case *admissionregistrationv1.ValidatingAdmissionPolicyBinding:
		_, err = c.AdmissionregistrationV1().ValidatingAdmissionPolicyBindings().Create(ctx, o, opts)
	default:
		err = fmt.Errorf("the harness does not create a %T", obj)
	}
	return err
}

// waitRBAC waits until the authorizer lets servicesOnlyUser create Services: its binding
// is then in the apiserver's informers.
func (r *run) waitRBAC(ctx context.Context) {
	review := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
		User:               servicesOnlyUser,
		ResourceAttributes: &authorizationv1.ResourceAttributes{Namespace: metav1.NamespaceDefault, Verb: "create", Resource: "services"},
	}}
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		got, err := r.admin.AuthorizationV1().SubjectAccessReviews().Create(ctx, review, metav1.CreateOptions{})
		return err == nil && got.Status.Allowed, err
	})
	if err != nil {
		r.t.Fatalf("%s was never allowed to create Services: %v", servicesOnlyUser, err)
	}
}

// waitWebhooks creates headless probe Services (no IPAddress) until both phases of the
// recorder see one: the webhooks' configuration is then in the apiserver's informers.
func (r *run) waitWebhooks(ctx context.Context, rec *recorder) {
	i := 0
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		i++
		name := fmt.Sprintf("probe-webhook-%d", i)
		probe := service(name, func(s *corev1.Service) { s.Spec.ClusterIP = corev1.ClusterIPNone })
		if _, err := r.admin.CoreV1().Services(metav1.NamespaceDefault).Create(ctx, probe, metav1.CreateOptions{}); err != nil {
			return false, err
		}
		if err := r.admin.CoreV1().Services(metav1.NamespaceDefault).Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
			return false, err
		}
		return rec.seen("mutating", name) && rec.seen(validatingPhase, name), nil
	})
	if err != nil {
		r.t.Fatalf("the recording webhooks never saw a probe Service: %v", err)
	}
}

// waitSlowWebhooks creates "slow-probe" Services, whose IPAddress's create the webhook
// failing open is asked about, until the slow endpoint sees one: the configuration of both
// slow webhooks is then in the apiserver's informer.
func (r *run) waitSlowWebhooks(ctx context.Context, rec *recorder) {
	i := 0
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		i++
		name := fmt.Sprintf("slow-probe-%d", i)
		if _, err := r.admin.CoreV1().Services(metav1.NamespaceDefault).Create(ctx, service(name, nil), metav1.CreateOptions{}); err != nil {
			return false, err
		}
		if err := r.admin.CoreV1().Services(metav1.NamespaceDefault).Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
			return false, err
		}
		return rec.seenParent(slowPhase, name), nil
	})
	if err != nil {
		r.t.Fatalf("the slow webhooks never saw a probe Service's IPAddress: %v", err)
	}
}

// waitPolicy creates "deny-" probe Services until the policy refuses one's IPAddress,
// deleting those it let through.
func (r *run) waitPolicy(ctx context.Context) {
	i := 0
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		i++
		name := fmt.Sprintf("deny-probe-%d", i)
		_, err := r.admin.CoreV1().Services(metav1.NamespaceDefault).Create(ctx, service(name, nil), metav1.CreateOptions{})
		if err == nil {
			return false, r.admin.CoreV1().Services(metav1.NamespaceDefault).Delete(ctx, name, metav1.DeleteOptions{})
		}
		return strings.Contains(err.Error(), "IPAddresses of deny- Services are refused"), nil
	})
	if err != nil {
		r.t.Fatalf("the policy never refused a deny- Service's IPAddress: %v", err)
	}
}

// setQuota puts the quota on Services and writes its status as the quota controller
// (which local-up does not run) would, counting the Services there are now: room for
// createdBeforeOverQuota more.
func (r *run) setQuota(ctx context.Context) {
	services, err := r.admin.CoreV1().Services(metav1.NamespaceDefault).List(ctx, metav1.ListOptions{})
	if err != nil {
		r.t.Fatalf("listing Services: %v", err)
	}
	quantity := int64(len(services.Items) + createdBeforeOverQuota)
	hard := corev1.ResourceList{corev1.ResourceServices: *resource.NewQuantity(quantity, resource.DecimalSI)}
	quota := &corev1.ResourceQuota{
		ObjectMeta: metav1.ObjectMeta{Name: "services", Namespace: metav1.NamespaceDefault},
		Spec:       corev1.ResourceQuotaSpec{Hard: hard},
	}
	quota, err = r.admin.CoreV1().ResourceQuotas(metav1.NamespaceDefault).Create(ctx, quota, metav1.CreateOptions{})
	if err != nil {
		r.t.Fatalf("creating the quota: %v", err)
	}
	quota.Status = corev1.ResourceQuotaStatus{
		Hard: hard,
		Used: corev1.ResourceList{corev1.ResourceServices: *resource.NewQuantity(int64(len(services.Items)), resource.DecimalSI)},
	}
	if _, err := r.admin.CoreV1().ResourceQuotas(metav1.NamespaceDefault).UpdateStatus(ctx, quota, metav1.UpdateOptions{}); err != nil {
		r.t.Fatalf("writing the quota's status: %v", err)
	}
}

// userConfig is config impersonating user.
func userConfig(config *rest.Config, user string) *rest.Config {
	c := rest.CopyConfig(config)
	c.Impersonate = rest.ImpersonationConfig{UserName: user}
	return c
}
