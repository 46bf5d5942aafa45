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

package main

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// createThrough sends one Service create through client-go to a server whose handler
// answers it, and returns client-go's error.
func createThrough(t *testing.T, host string) error {
	t.Helper()
	cs, err := kubernetes.NewForConfig(&rest.Config{Host: host})
	if err != nil {
		t.Fatal(err)
	}
	_, err = cs.CoreV1().Services("ns").Create(context.Background(), &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "s"}}, metav1.CreateOptions{})
	if err == nil {
		t.Fatal("the create succeeded")
	}
	return err
}

// statusServer answers every request with an API status of code and reason.
func statusServer(t *testing.T, code int, reason metav1.StatusReason) string {
	t.Helper()
	return statusServerSaying(t, code, reason, "planted")
}

// statusServerSaying answers every request with an API status of code, reason and message.
func statusServerSaying(t *testing.T, code int, reason metav1.StatusReason, message string) string {
	t.Helper()
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		_ = json.NewEncoder(w).Encode(metav1.Status{TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"},
			Status: metav1.StatusFailure, Code: int32(code), Reason: reason, Message: message})
	}))
	t.Cleanup(s.Close)
	return s.URL
}

func TestClassify(t *testing.T) {
	hangUp := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		conn, _, err := w.(http.Hijacker).Hijack()
		if err == nil {
			_ = conn.Close()
		}
	}))
	defer hangUp.Close()
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	refused := "http://" + closed.Addr().String()
	_ = closed.Close()

	tests := []struct {
		name, host, want string
		transport        bool
	}{
		{name: "500", host: statusServer(t, http.StatusInternalServerError, metav1.StatusReasonInternalError), want: "HTTP 500 InternalError"},
		{name: "409", host: statusServer(t, http.StatusConflict, metav1.StatusReasonAlreadyExists), want: "HTTP 409 AlreadyExists"},
		{name: "422", host: statusServer(t, http.StatusUnprocessableEntity, metav1.StatusReasonInvalid), want: "HTTP 422 Invalid"},
		{name: "422 of upstream's loopback lost while stopping",
			host: statusServerSaying(t, http.StatusUnprocessableEntity, metav1.StatusReasonInvalid,
				`Service "load-1-000042" is invalid: spec.clusterIPs: Invalid value: null: failed to allocate IP: Post "https://127.0.0.1:6443/apis/networking.k8s.io/v1/ipaddresses": dial tcp 127.0.0.1:6443: connect: connection refused`),
			want: "HTTP 422 Invalid: upstream's loopback IPAddress create lost its connection", transport: true},
		{name: "422 of another allocation error",
			host: statusServerSaying(t, http.StatusUnprocessableEntity, metav1.StatusReasonInvalid,
				`Service "load-1-000042" is invalid: spec.clusterIPs: Invalid value: null: failed to allocate IP: IPAddress 10.0.0.7 already exists`),
			want: "HTTP 422 Invalid"},
		{name: "422 naming the URL but not in transport",
			host: statusServerSaying(t, http.StatusUnprocessableEntity, metav1.StatusReasonInvalid,
				`spec.clusterIPs: Invalid value: null: failed to allocate IP: the server rejected /apis/networking.k8s.io/v1/ipaddresses`),
			want: "HTTP 422 Invalid"},
		{name: "connection closed mid-request", host: hangUp.URL, want: "transport: EOF or closed connection", transport: true},
		{name: "nothing listens", host: refused, want: "transport: connection refused", transport: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := createThrough(t, tc.host)
			if got := classify(err); got.name != tc.want || got.transport != tc.transport {
				t.Fatalf("classify(%v) = %+v, want %q, transport %t", err, got, tc.want, tc.transport)
			}
		})
	}
}

func TestLoadRow(t *testing.T) {
	eof := errorKind{name: "transport: EOF or closed connection", transport: true}
	tests := []struct {
		name   string
		byKind map[errorKind]int
		stops  int
		want   string
	}{
		{name: "no failure", stops: 0, want: "ok"},
		{name: "one 500", byKind: map[errorKind]int{{name: "HTTP 500 InternalError"}: 1}, stops: 1, want: "FAIL"},
		{name: "one 409", byKind: map[errorKind]int{{name: "HTTP 409 Conflict"}: 1}, stops: 0, want: "FAIL"},
		{name: "other error", byKind: map[errorKind]int{{name: "other: context deadline exceeded"}: 1}, stops: 1, want: "FAIL"},
		{name: "transport errors within the stops' share", byKind: map[errorKind]int{eof: 2 * transportErrorsPerStop}, stops: 2, want: "ok"},
		{name: "transport error without a stop", byKind: map[errorKind]int{eof: 1}, stops: 0, want: "FAIL"},
		{name: "more transport errors than the stops allow", byKind: map[errorKind]int{eof: transportErrorsPerStop + 1}, stops: 1, want: "FAIL"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			row := loadRow(loadCounts{ops: 100, byKind: tc.byKind}, tc.stops)
			if row.Status != tc.want {
				t.Fatalf("status %s (%s), want %s", row.Status, row.Detail, tc.want)
			}
			for k, n := range tc.byKind {
				if want := k.name; !strings.Contains(row.Detail, want) || n == 0 {
					t.Errorf("detail %q does not name %q", row.Detail, want)
				}
			}
		})
	}
}

func TestLoadRowSaysWhatTheAPIServerAnswered(t *testing.T) {
	c := newLoadCounts()
	c.ops = 10
	invalid := createThrough(t, statusServer(t, http.StatusUnprocessableEntity, metav1.StatusReasonInvalid))
	c.add(classify(invalid), invalid.Error())
	c.add(classify(invalid), "a later message of the same kind")
	c.add(errorKind{name: "transport: EOF or closed connection", transport: true}, "EOF")
	row := loadRow(c, 1)
	if row.Status != "FAIL" {
		t.Fatalf("status %s (%s), want FAIL", row.Status, row.Detail)
	}
	if !strings.Contains(row.Detail, `2x HTTP 422 Invalid (first: "planted")`) {
		t.Errorf("detail %q does not give the first 422's message", row.Detail)
	}
	if strings.Contains(row.Detail, "later message") || strings.Contains(row.Detail, `"EOF"`) {
		t.Errorf("detail %q gives a message other than each non-transport kind's first", row.Detail)
	}
}
