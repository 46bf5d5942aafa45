package controlplane

import (
	"context"
	"fmt"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/netfork/netfork/test/integration/framework"
)

// TestSkewWithUpstream runs a netfork and an upstream v1.37.1 kube-apiserver on
// one etcd: each sees the Services the other created, accepts updates to them,
// and neither's repair loop flags or removes the other's IPAddresses.
func TestSkewWithUpstream(t *testing.T) {
	ctx := context.Background()
	prefix := framework.NewEtcdPrefix(t)
	netfork := framework.StartAPIServer(t, framework.WithEtcdPrefix(prefix))
	upstream := framework.StartUpstreamAPIServer(t, framework.WithEtcdPrefix(prefix))

	servers := map[string]*framework.APIServer{"netfork": netfork, "upstream": upstream}
	for name, s := range servers {
		created := createService(ctx, t, s.Client, clusterIPService("from-"+name))
		waitIPAddress(ctx, t, s.Client, created.Spec.ClusterIP, created)
	}

	for reader, s := range servers {
		for creator := range servers {
			name := "from-" + creator
			svc, err := s.Client.CoreV1().Services(metav1.NamespaceDefault).Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				t.Fatalf("%s cannot read Service %s created through %s: %v", reader, name, creator, err)
			}
			waitIPAddress(ctx, t, s.Client, svc.Spec.ClusterIP, svc)
			patch := fmt.Sprintf(`{"metadata":{"labels":{"touched-by-%s":"true"}}}`, reader)
			if _, err := s.Client.CoreV1().Services(metav1.NamespaceDefault).Patch(ctx, name, types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
				t.Errorf("%s rejects an update of Service %s created through %s: %v", reader, name, creator, err)
			}
		}
	}

	// Each apiserver's repair loop made its first pass over the shared cluster at
	// start-up (upstream's after netfork's Service existed); give the informer-driven
	// IPAddress repair time to react, then check nothing was flagged or collected.
	time.Sleep(5 * time.Second)
	events, err := netfork.Client.EventsV1().Events(metav1.NamespaceDefault).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatalf("listing events: %v", err)
	}
	for _, e := range events.Items {
		if e.Type == "Warning" {
			t.Errorf("warning event %s on %s/%s: %s", e.Reason, e.Regarding.Kind, e.Regarding.Name, e.Note)
		}
	}
	for creator := range servers {
		name := "from-" + creator
		svc, err := netfork.Client.CoreV1().Services(metav1.NamespaceDefault).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			t.Fatalf("Service %s disappeared: %v", name, err)
		}
		err = wait.PollUntilContextTimeout(ctx, time.Second, 5*time.Second, true, func(ctx context.Context) (bool, error) {
			_, err := upstream.Client.NetworkingV1().IPAddresses().Get(ctx, svc.Spec.ClusterIP, metav1.GetOptions{})
			return err == nil, nil
		})
		if err != nil {
			t.Errorf("IPAddress %s of Service %s is gone: %v", svc.Spec.ClusterIP, name, err)
		}
	}
}
