package main

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"time"

	"k8s.io/client-go/kubernetes"
)

// cpuProfile fetches a CPU profile of duration from the apiserver's /debug/pprof
// (--profiling=true) into path, so a missed target can be explained from where the
// apiserver spent its time.
func cpuProfile(ctx context.Context, client kubernetes.Interface, duration time.Duration, path string) error {
	seconds := strconv.Itoa(int(duration / time.Second))
	ctx, cancel := context.WithTimeout(ctx, duration+30*time.Second)
	defer cancel()
	data, err := client.CoreV1().RESTClient().Get().AbsPath("/debug/pprof/profile").
		Param("seconds", seconds).DoRaw(ctx)
	if err != nil {
		return fmt.Errorf("CPU profile: GET /debug/pprof/profile?seconds=%s: %w", seconds, err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		return fmt.Errorf("CPU profile: %w", err)
	}
	return nil
}
