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

package pki

import (
	"slices"
	"testing"
)

func TestAPIServerFlags(t *testing.T) {
	p := PathsIn("/pki")
	got := p.APIServerFlags()
	want := []string{
		"--client-ca-file=/pki/ca.crt",
		"--tls-cert-file=/pki/apiserver.crt",
		"--tls-private-key-file=/pki/apiserver.key",
		"--service-account-key-file=/pki/sa.pub",
		"--service-account-signing-key-file=/pki/sa.key",
		"--service-account-issuer=https://kubernetes.default.svc.cluster.local",
	}
	if !slices.Equal(got, want) {
		t.Errorf("APIServerFlags() = %q, want %q", got, want)
	}
}
