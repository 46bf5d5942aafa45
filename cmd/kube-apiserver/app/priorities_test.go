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

package app

import (
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"
	controlplaneapiserver "k8s.io/kubernetes/pkg/controlplane/apiserver"
)

// TestAPIVersionPrioritiesLinked checks the linkname resolved to upstream's
// populated table, covering the groups netfork serves and the generic ones.
func TestAPIVersionPrioritiesLinked(t *testing.T) {
	if len(apiVersionPriorities) == 0 {
		t.Fatal("apiVersionPriorities is empty: the go:linkname to upstream's table did not resolve")
	}
	for gv := range controlplaneapiserver.DefaultGenericAPIServicePriorities() {
		if _, ok := apiVersionPriorities[gv]; !ok {
			t.Errorf("generic group version %s missing from the kube-apiserver priorities", gv)
		}
	}
	for _, gv := range []schema.GroupVersion{
		{Group: "", Version: "v1"},
		{Group: "networking.k8s.io", Version: "v1"},
		{Group: "apps", Version: "v1"},
	} {
		if p, ok := apiVersionPriorities[gv]; !ok || p.Group == 0 {
			t.Errorf("group version %s has no priority (%+v)", gv, p)
		}
	}
}
