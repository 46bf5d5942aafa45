package main

import (
	"context"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// readyPollInterval is short because a fresh apiserver is ready in seconds.
const readyPollInterval = 250 * time.Millisecond

// waitReady polls until the apiserver's /readyz passes and the kubernetes Service has its
// ClusterIP, which shows the ClusterIP allocator serves; it gives up when the apiserver
// exits, the timeout passes or ctx ends.
func waitReady(ctx context.Context, cl *cluster, timeout time.Duration) error {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	ticker := time.NewTicker(readyPollInterval)
	defer ticker.Stop()
	for {
		why := notReady(ctx, cl)
		if why == "" {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-cl.apiserver.done:
			return cl.apiserver.exitError()
		case <-deadline.C:
			return fmt.Errorf("apiserver pid %d not ready after %s: %s (log: %s)", cl.apiserver.pid(), timeout, why, cl.apiserver.logPath)
		case <-ticker.C:
		}
	}
}

// notReady returns "" when the apiserver is ready for the benchmark, else why not.
func notReady(ctx context.Context, cl *cluster) string {
	reqCtx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	if _, err := cl.client.Discovery().RESTClient().Get().AbsPath("/readyz").DoRaw(reqCtx); err != nil {
		return "/readyz: " + err.Error()
	}
	svc, err := cl.client.CoreV1().Services(metav1.NamespaceDefault).Get(reqCtx, "kubernetes", metav1.GetOptions{})
	if err != nil {
		return "kubernetes Service: " + err.Error()
	}
	if svc.Spec.ClusterIP != kubernetesServiceIP {
		return fmt.Sprintf("kubernetes Service has ClusterIP %q, not yet %s", svc.Spec.ClusterIP, kubernetesServiceIP)
	}
	return ""
}
