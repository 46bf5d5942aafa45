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
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apiserver/pkg/storage/value"
)

// TestNormalizeKeepsEqualityNotValues checks that two runs that differ only in addresses,
// UIDs, times and resource versions normalize to the same leaves, and that a real
// difference survives.
func TestNormalizeKeepsEqualityNotValues(t *testing.T) {
	runOf := func(ip, uid, rv, when, message string) []record {
		return []record{
			{key: []string{"client", "create", "create Service a"}, value: map[string]any{"object": map[string]any{
				"metadata": map[string]any{"name": "a", "uid": uid, "resourceVersion": rv, "creationTimestamp": when},
				"spec":     map[string]any{"clusterIPs": []any{ip}},
			}}},
			{key: []string{"watch", "create", "ipaddresses", "ADDED", "/" + ip}, value: map[string]any{"message": message + " " + ip + " for " + uid + " in 10.96.0.0/16"}},
		}
	}
	aKeys, a := normalize(runOf("10.96.1.2", "0a6b3c1e-1111-4222-8333-444455556666", "17", "2026-01-02T03:04:05Z", "took 1m0.5s"))
	bKeys, b := normalize(runOf("10.96.200.7", "9f9e9d9c-aaaa-4bbb-8ccc-ddddeeeeffff", "912", "2026-07-08T09:10:11Z", "took 12s"))
	if diffs := compare(aKeys, a, bKeys, b); len(diffs) != 0 {
		t.Fatalf("runs that differ only in what is normalized show differences: %v", diffs)
	}
	want := leaves{"message": "took <duration> <ip-1> for <uid:a> in 10.96.0.0/16"}
	if got := b["watch | create | ipaddresses | ADDED | /<ip-1>"]; !reflect.DeepEqual(got, want) {
		t.Errorf("normalized watch record = %v, want %v", got, want)
	}

	_, c := normalize(runOf("fd00:10:96::2b", "0a6b3c1e-1111-4222-8333-444455556666", "17", "2026-01-02T03:04:05Z", "refused"))
	diffs := compare(aKeys, a, aKeys, c)
	if len(diffs) != 1 || diffs[0].Netfork != "took <duration> <ip-1> for <uid:a> in 10.96.0.0/16" || diffs[0].Upstream != "refused <ip-1> for <uid:a> in 10.96.0.0/16" {
		t.Errorf("a changed message shows as %v, want one difference of the message", diffs)
	}
}

// TestFamilyOrderNumbersAddressesAlike checks that a step whose IPAddress admission came
// IPv6 first numbers its addresses as one that came IPv4 first, and that records of other
// resources stay where they were.
func TestFamilyOrderNumbersAddressesAlike(t *testing.T) {
	rec := func(step, resource, name string) record {
		family := "IPv4"
		if strings.Contains(name, ":") {
			family = "IPv6"
		}
		return record{key: []string{"admission", step, "mutating", "CREATE", resource, "/" + name}, value: map[string]any{"name": name, "family": family}}
	}
	v6First := []record{rec("a", "services", "x"), rec("b", "ipaddresses", "fd00::1"), rec("b", "services", "y"), rec("b", "ipaddresses", "10.0.0.1"), rec("c", "ipaddresses", "fd00::2")}
	v4First := []record{rec("a", "services", "x"), rec("b", "ipaddresses", "10.0.0.9"), rec("b", "services", "y"), rec("b", "ipaddresses", "fd00::9"), rec("c", "ipaddresses", "fd00::2")}
	familyOrder(v6First)
	familyOrder(v4First)
	if got := v6First[2].key[5]; got != "/y" {
		t.Errorf("the Service's record moved: %v at its place", got)
	}
	aKeys, a := normalize(v6First)
	bKeys, b := normalize(v4First)
	if diffs := compare(aKeys, a, bKeys, b); len(diffs) != 0 {
		t.Errorf("the family the apiserver asked about first shows as differences: %v", diffs)
	}
	if want := "admission | b | mutating | CREATE | ipaddresses | /<ip-1>"; aKeys[1] != want || a[want]["family"] != "IPv4" {
		t.Errorf("the IPv4 address is not the step's first: keys %v, %v", aKeys, a[want])
	}
}

// TestKeyringNamesTheKey checks that the harness decrypts a value written before the
// key's rotation and one written after, and names the key of each.
func TestKeyringNamesTheKey(t *testing.T) {
	ctx := context.Background()
	before, err := decrypters(encryptionConfig)
	if err != nil {
		t.Fatal(err)
	}
	after, err := decrypters(rotatedEncryptionConfig)
	if err != nil {
		t.Fatal(err)
	}
	const key = "/registry/services/specs/default/a"
	for _, tc := range []struct {
		writer *keyring
		want   string
	}{{before, "k8s:enc:aescbc:v1:key1:"}, {after, "k8s:enc:aescbc:v1:key2:"}} {
		stored, err := tc.writer.transformer.TransformToStorage(ctx, []byte("value"), value.DefaultContext(key))
		if err != nil {
			t.Fatal(err)
		}
		got, prefix, err := after.decrypt(ctx, key, stored)
		if err != nil || string(got) != "value" || prefix != tc.want {
			t.Errorf("decrypting a value written with %s: %q, %q, %v", tc.want, got, prefix, err)
		}
	}
	if got, prefix, err := after.decrypt(ctx, key, []byte("k8s\x00clear")); err != nil || prefix != "" || string(got) != "k8s\x00clear" {
		t.Errorf("a value in clear: %q, %q, %v; want it as it is, no key", got, prefix, err)
	}
}

// TestQuietSeesOtherExemptRequests checks that a window in which the request log shows an
// exempt request other than an IPAddress write start, or the handler a watch start, is not
// quiet, and that requests of other levels, or that started before the window or after it,
// do not count.
func TestQuietSeesOtherExemptRequests(t *testing.T) {
	from := time.Date(2026, 11, 28, 18, 44, 12, 0, time.Local)
	line := func(ended, latency time.Duration, verb, uri, level string) string {
		return fmt.Sprintf(`I%s   26261 httplog.go:135] "HTTP" verb="%s" URI="%s" latency="%s" userAgent="x" apf_pl="%s" apf_fs="%s" resp=200`,
			from.Add(ended).Format("0102 15:04:05.000000"), verb, uri, latency, level, level)
	}
	window := []string{
		line(-time.Second, time.Millisecond, "GET", "/openapi/v3", "exempt"),
		line(10*time.Millisecond, 200*time.Millisecond, "PUT", "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/a", "exempt"),
		line(10*time.Millisecond, time.Millisecond, "POST", "/api/v1/namespaces/kube-system/services", "global-default"),
		line(20*time.Millisecond, time.Millisecond, "POST", "/apis/networking.k8s.io/v1/ipaddresses", "exempt"),
		line(30*time.Millisecond, time.Millisecond, "DELETE", "/apis/networking.k8s.io/v1/ipaddresses/10.96.0.7", "exempt"),
		line(40*time.Millisecond, time.Millisecond, "GET", "/metrics", "global-default"),
		`I1128 18:44:12.050000   26261 cidrallocator.go:1] unrelated`,
		line(1100*time.Millisecond, 50*time.Millisecond, "PUT", "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/a", "exempt"),
	}
	// watch is the handler's line for a watch started at, whose request line comes only when it ends.
	watch := func(at time.Duration) string {
		return fmt.Sprintf(`I%s   26261 get.go:280] "Starting watch" path="/apis/networking.k8s.io/v1/ipaddresses" resourceVersion="812" labels="" fields="" sendInitialEvents=null timeout="7m41s" audit-ID="ab12"`,
			from.Add(at).Format("0102 15:04:05.000000"))
	}
	window = append(window, watch(-time.Millisecond), watch(time.Second+2*apfSettle))
	to := from.Add(time.Second)
	if !quiet(strings.Join(window, "\n"), from, to) {
		t.Errorf("a window with only the probe's requests and exempt IPAddress writes is not quiet")
	}
	for _, noise := range []string{
		line(50*time.Millisecond, time.Millisecond, "GET", "/openapi/v3", "exempt"),
		line(1500*time.Millisecond, 700*time.Millisecond, "PUT", "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/a", "exempt"),
		watch(500 * time.Millisecond),
		watch(time.Second + apfSettle/2),
	} {
		if quiet(strings.Join(append(window, noise), "\n"), from, to) {
			t.Errorf("a window in which this started is quiet: %s", noise)
		}
	}
}

// TestNormalizeIPv6BeforeAColon checks that an IPv6 address the message
// follows with a colon is normalized as the address alone.
func TestNormalizeIPv6BeforeAColon(t *testing.T) {
	n := newNormalizer()
	if got, want := n.str("can not create IPAddress fd00:10:96::f:af31: forbidden"), "can not create IPAddress <ip-1>: forbidden"; got != want {
		t.Errorf("normalized %q, want %q", got, want)
	}
}

// TestNormalizePorts checks that a port after an address is normalized, as the
// recording webhook's and the apiserver's differ from test to test.
func TestNormalizePorts(t *testing.T) {
	n := newNormalizer()
	in := `Post "https://127.0.0.1:38161/slow?timeout=1s": context deadline exceeded`
	if got, want := n.str(in), `Post "https://<ip-1>:<port>/slow?timeout=<duration>": context deadline exceeded`; got != want {
		t.Errorf("normalized %q to %q, want %q", in, got, want)
	}
}

// TestCheckFailsOnUnlistedAndStale checks that the list must match the differences both ways.
func TestCheckFailsOnUnlistedAndStale(t *testing.T) {
	shown := difference{Key: "client | x | create Service a | code", Netfork: "500", Upstream: "422"}
	other := difference{Key: "audit | x | create | ipaddresses", Netfork: absent, Upstream: "{}"}
	list := []accepted{{Reason: "r", Differences: []difference{shown, other}}}

	if unlisted, stale := check([]difference{shown, other}, list); len(unlisted)+len(stale) != 0 {
		t.Errorf("every difference listed: unlisted %v, stale %v", unlisted, stale)
	}
	changed := shown
	changed.Netfork = "422 "
	unlisted, stale := check([]difference{changed, other}, list)
	if !reflect.DeepEqual(unlisted, []difference{changed}) || !reflect.DeepEqual(stale, []difference{shown}) {
		t.Errorf("a changed value: unlisted %v, stale %v; want the new one unlisted and the old one stale", unlisted, stale)
	}
	msg := report(unlisted, stale, "differences.yaml")
	for _, want := range []string{"1 difference(s) between netfork and upstream that differences.yaml does not list", "netfork:  422 ", "no longer show", "reason:"} {
		if !strings.Contains(msg, want) {
			t.Errorf("report lacks %q:\n%s", want, msg)
		}
	}
}

// TestCheckSometimes checks that a difference listed as showing only sometimes is accepted
// when it shows and not missed when it does not, and that it makes no other entry optional.
func TestCheckSometimes(t *testing.T) {
	varies := difference{Key: "admission | x | mutating | CREATE | ipaddresses | /<ip-N> | family", Netfork: "IPvN", Upstream: "IPvN"}
	always := difference{Key: "client | x | create Service a | code", Netfork: "500", Upstream: "422"}
	list := []accepted{{Reason: "upstream varies", Sometimes: true, Differences: []difference{varies}}, {Reason: "r", Differences: []difference{always}}}

	for _, shown := range [][]difference{{always, varies}, {always}} {
		if unlisted, stale := check(shown, list); len(unlisted)+len(stale) != 0 {
			t.Errorf("shown %v: unlisted %v, stale %v; want neither", shown, unlisted, stale)
		}
	}
	if _, stale := check([]difference{varies}, list); !reflect.DeepEqual(stale, []difference{always}) {
		t.Errorf("an entry without sometimes that did not show: stale %v, want %v", stale, []difference{always})
	}
	changed := varies
	changed.Upstream = "IPv4"
	if unlisted, _ := check([]difference{always, changed}, list); !reflect.DeepEqual(unlisted, []difference{changed}) {
		t.Errorf("a sometimes difference with another value: unlisted %v, want it", unlisted)
	}
}

// TestGroupFoldsSteps checks that one difference shown in several steps is listed once,
// naming them, and that a different value stays apart.
func TestGroupFoldsSteps(t *testing.T) {
	got := group([]difference{
		{Key: "admission | create-a | CREATE | /<ip-1> | options.kind", Netfork: absent, Upstream: "CreateOptions"},
		{Key: "admission | create-b | CREATE | /<ip-2> | options.kind", Netfork: absent, Upstream: "CreateOptions"},
		{Key: "admission | create-b | CREATE | /<ip-4> | options.kind", Netfork: absent, Upstream: "CreateOptions"},
		{Key: "admission | create-b | CREATE | /<ip-3> | family", Netfork: absent, Upstream: "IPv6 <ip-3>"},
		{Key: "admission | create-a | CREATE | /<ip-1> | family", Netfork: absent, Upstream: "IPv4 <ip-1>"},
		{Key: "admission | create-c | CREATE | /<ip-3> | options.kind", Netfork: "CreateOptions", Upstream: "CreateOptions "},
	})
	want := []difference{
		{Key: "admission | * | CREATE | /<ip-N> | options.kind", Steps: "create-a, create-b", Netfork: absent, Upstream: "CreateOptions"},
		{Key: "admission | * | CREATE | /<ip-N> | family", Steps: "create-b, create-a", Netfork: absent, Upstream: "IPvN <ip-N>"},
		{Key: "admission | * | CREATE | /<ip-N> | options.kind", Steps: "create-c", Netfork: "CreateOptions", Upstream: "CreateOptions "},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("group = %v, want %v", got, want)
	}
}

// TestDifferencesFileReads checks the checked-in list parses and gives every entry a reason.
func TestDifferencesFileReads(t *testing.T) {
	if _, err := readAccepted(differencesFile); err != nil {
		t.Fatal(err)
	}
}

// TestRegistrySourcesLeaveOutGenericStorage keeps a line of the generic storage (its
// conflict retries are logged by etcd3's store.go) out of the comparison, whatever netfork
// names its own files.
func TestRegistrySourcesLeaveOutGenericStorage(t *testing.T) {
	names, err := registrySources()
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"store.go", "cacher.go"} {
		if names[name] {
			t.Errorf("registrySources has %s, a file name of k8s.io/apiserver's storage", name)
		}
	}
	for _, name := range []string{"cidrallocator.go", "alloc.go"} {
		if !names[name] {
			t.Errorf("registrySources lacks %s, an allocator's file", name)
		}
	}
}

// TestInModeKeepsEntriesOfTheMode checks that an entry naming modes holds in those only,
// and one naming none in every mode.
func TestInModeKeepsEntriesOfTheMode(t *testing.T) {
	every := accepted{Reason: "every mode"}
	one := accepted{Reason: "without the watch cache", Modes: []string{"no-watch-cache"}}
	list := []accepted{every, one}
	if got := inMode(list, "watch-cache"); len(got) != 1 || got[0].Reason != every.Reason {
		t.Errorf("inMode(watch-cache) = %v, want only the entry naming no mode", got)
	}
	if got := inMode(list, "no-watch-cache"); len(got) != 2 {
		t.Errorf("inMode(no-watch-cache) = %v, want both entries", got)
	}
	if _, err := selectModes("watch-cache,nonsense"); err == nil {
		t.Errorf("selectModes took a mode that does not exist")
	}
	if got, err := selectModes(" no-watch-cache"); err != nil || len(got) != 1 || got[0].name != "no-watch-cache" {
		t.Errorf("selectModes(no-watch-cache) = %v, %v", got, err)
	}
}

// TestMutationChangesOnlyTheCreateOfMutateIPAddresses checks that the recorder's mutating
// endpoint patches the create of a mutate- Service's IPAddress and nothing else.
func TestMutationChangesOnlyTheCreateOfMutateIPAddresses(t *testing.T) {
	request := func(op admissionv1.Operation, resource, parent string) *admissionv1.AdmissionRequest {
		obj, err := json.Marshal(&networkingv1.IPAddress{Spec: networkingv1.IPAddressSpec{ParentRef: &networkingv1.ParentReference{Resource: "services", Name: parent}}})
		if err != nil {
			t.Fatal(err)
		}
		req := &admissionv1.AdmissionRequest{Operation: op, Resource: metav1.GroupVersionResource{Resource: resource}}
		if op == admissionv1.Delete {
			req.OldObject.Raw = obj
		} else {
			req.Object.Raw = obj
		}
		return req
	}
	patch := mutation(request(admissionv1.Create, "ipaddresses", mutatePrefix+"dual"))
	for _, want := range []string{`"/metadata/labels/fidelity.netfork.io~1mutated"`, `"fidelity.netfork.io/parent":"mutate-dual"`} {
		if !strings.Contains(string(patch), want) {
			t.Errorf("patch %s lacks %s", patch, want)
		}
	}
	for _, req := range []*admissionv1.AdmissionRequest{
		request(admissionv1.Create, "ipaddresses", "single"),
		request(admissionv1.Delete, "ipaddresses", mutatePrefix+"dual"),
		request(admissionv1.Create, "services", mutatePrefix+"dual"),
	} {
		if patch := mutation(req); patch != nil {
			t.Errorf("mutation(%s %s) = %s, want none", req.Operation, req.Resource.Resource, patch)
		}
	}
}
