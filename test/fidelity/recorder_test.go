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
	"crypto/tls"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	networkingv1 "k8s.io/api/networking/v1"

	"github.com/netfork/netfork/internal/pki"
)

// webhookPaths are the recorder's endpoints: one per admission phase, and one that answers
// too late (testdata/setup.yaml's timeoutSeconds) for the webhooks that time out.
const (
	mutatingPath   = "/mutate"
	validatingPath = "/validate"
	slowPath       = "/slow"
)

// slowPhase and validatingPhase are the phases the slow and validating endpoints' calls are
// recorded as.
const (
	slowPhase       = "slow"
	validatingPhase = "validating"
)

// slowest bounds how long the slow endpoint holds a call whose caller does not give up.
const slowest = 10 * time.Second

// Which IPAddresses the mutating endpoint changes, and how: those of Services named
// mutatePrefix... get mutatedLabel and mutatedAnnotation (the parent's name) on create.
const (
	mutatePrefix      = "mutate-"
	mutatedLabel      = "fidelity.netfork.io/mutated"
	mutatedAnnotation = "fidelity.netfork.io/parent"
)

// admissionCall is one AdmissionReview the recorder received, with when and on which path.
type admissionCall struct {
	at      time.Time
	phase   string
	request *admissionv1.AdmissionRequest
}

// recorder is an admission webhook on loopback TLS that allows everything and keeps
// every request it is sent.
type recorder struct {
	url      string
	caBundle []byte
	server   *http.Server

	mu    sync.Mutex
	calls []admissionCall
}

// startRecorder serves the webhook with a serving cert of a CA of its own until the test ends.
func startRecorder(t *testing.T) *recorder {
	t.Helper()
	p, err := pki.Ensure(t.TempDir(), pki.DefaultServingSANs(nil, nil))
	if err != nil {
		t.Fatalf("webhook PKI: %v", err)
	}
	cert, err := tls.LoadX509KeyPair(p.ServingCert, p.ServingKey)
	if err != nil {
		t.Fatalf("webhook serving cert: %v", err)
	}
	ca, err := os.ReadFile(p.CACert)
	if err != nil {
		t.Fatalf("webhook CA: %v", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("webhook listener: %v", err)
	}
	r := &recorder{url: "https://" + ln.Addr().String(), caBundle: ca}
	mux := http.NewServeMux()
	mux.HandleFunc(mutatingPath, r.handler("mutating"))
	mux.HandleFunc(validatingPath, r.handler(validatingPhase))
	mux.HandleFunc(slowPath, r.handler(slowPhase))
	r.server = &http.Server{Handler: mux, TLSConfig: &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := r.server.ServeTLS(ln, "", ""); err != nil && !errors.Is(err, http.ErrServerClosed) {
			t.Errorf("webhook server: %v", err)
		}
	}()
	t.Cleanup(func() { _ = r.server.Close() })
	return r
}

// handler records the review and allows it; in the mutating phase it changes the
// IPAddresses mutate names, and in the slow one it answers only once its caller gave up
// (or after slowest).
func (r *recorder) handler(phase string) http.HandlerFunc {
	return func(w http.ResponseWriter, req *http.Request) {
		body, err := io.ReadAll(req.Body)
		review := &admissionv1.AdmissionReview{}
		if err == nil {
			err = json.Unmarshal(body, review)
		}
		if err != nil || review.Request == nil {
			http.Error(w, "not an AdmissionReview", http.StatusBadRequest)
			return
		}
		r.mu.Lock()
		r.calls = append(r.calls, admissionCall{at: time.Now(), phase: phase, request: review.Request})
		r.mu.Unlock()
		if phase == slowPhase {
			select {
			case <-req.Context().Done():
			case <-time.After(slowest):
			}
		}
		review.Response = &admissionv1.AdmissionResponse{UID: review.Request.UID, Allowed: true}
		if phase == "mutating" {
			if patch := mutation(review.Request); patch != nil {
				patchType := admissionv1.PatchTypeJSONPatch
				review.Response.Patch, review.Response.PatchType = patch, &patchType
			}
		}
		review.Request = nil
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(review)
	}
}

// mutation is the JSON patch the mutating endpoint answers req with: on the create of an
// IPAddress of a Service named mutatePrefix..., mutatedLabel and mutatedAnnotation; nil
// for every other request.
func mutation(req *admissionv1.AdmissionRequest) []byte {
	parent := ipAddressParent(req)
	if req.Operation != admissionv1.Create || !strings.HasPrefix(parent, mutatePrefix) {
		return nil
	}
	patch, _ := json.Marshal([]map[string]any{
		{"op": "add", "path": "/metadata/labels/" + strings.ReplaceAll(mutatedLabel, "/", "~1"), "value": "true"},
		{"op": "add", "path": "/metadata/annotations", "value": map[string]string{mutatedAnnotation: parent}},
	})
	return patch
}

// ipAddressParent names the Service an IPAddress request's object (or, on delete, old
// object) belongs to, "" for a request of another resource.
func ipAddressParent(req *admissionv1.AdmissionRequest) string {
	if req.Resource.Resource != "ipaddresses" {
		return ""
	}
	raw := req.Object.Raw
	if req.Operation == admissionv1.Delete {
		raw = req.OldObject.Raw
	}
	var obj networkingv1.IPAddress
	if err := json.Unmarshal(raw, &obj); err != nil || obj.Spec.ParentRef == nil {
		return ""
	}
	return obj.Spec.ParentRef.Name
}

// take returns the calls received so far and forgets them.
func (r *recorder) take() []admissionCall {
	r.mu.Lock()
	defer r.mu.Unlock()
	calls := r.calls
	r.calls = nil
	return calls
}

// seenParent reports whether a call for an IPAddress of the Service parent arrived on phase.
func (r *recorder) seenParent(phase, parent string) bool {
	return r.seenWhere(phase, func(req *admissionv1.AdmissionRequest) bool { return ipAddressParent(req) == parent })
}

// heldAndValidated reports whether the slow endpoint holds a call for an IPAddress of
// Service parent whose call to the validating endpoint has arrived too. The apiserver calls
// validating webhooks in parallel, so a client that cancels as soon as the slow endpoint is
// called may cancel netfork's in-process call to the other before it is sent, where upstream's
// loopback request, on a context of its own, still sends it: the step waits for both.
func (r *recorder) heldAndValidated(parent string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, held := range r.calls {
		if held.phase != slowPhase || ipAddressParent(held.request) != parent {
			continue
		}
		for _, c := range r.calls {
			if c.phase == validatingPhase && c.request.Name == held.request.Name && c.request.Operation == held.request.Operation {
				return true
			}
		}
	}
	return false
}

// seen reports whether a call for the named object arrived on phase.
func (r *recorder) seen(phase, name string) bool {
	return r.seenWhere(phase, func(req *admissionv1.AdmissionRequest) bool { return req.Name == name })
}

// seenWhere reports whether a call whose request matches arrived on phase.
func (r *recorder) seenWhere(phase string, matches func(*admissionv1.AdmissionRequest) bool) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, c := range r.calls {
		if c.phase == phase && matches(c.request) {
			return true
		}
	}
	return false
}
