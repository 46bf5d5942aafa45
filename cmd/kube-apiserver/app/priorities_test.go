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
