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

package metrics

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"time"

	"k8s.io/client-go/kubernetes"
)

// CPUProfile fetches a CPU profile of duration from the apiserver's /debug/pprof
// (--profiling=true) into path, so a missed target can be explained from where the
// apiserver spent its time.
func CPUProfile(ctx context.Context, client kubernetes.Interface, duration time.Duration, path string) error {
	ctx, cancel := context.WithTimeout(ctx, duration+30*time.Second)
	defer cancel()
	return fetchProfile(ctx, client, "profile", "seconds", strconv.Itoa(int(duration/time.Second)), path)
}

// heapProfile fetches the apiserver's heap profile right after a forced garbage
// collection, so its in-use space is the live heap; upstream's binary serves it too.
func heapProfile(ctx context.Context, client kubernetes.Interface) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	return getProfile(ctx, client, "heap", "gc", "1")
}

// getProfile returns GET /debug/pprof/<kind>?<param>=<value>.
func getProfile(ctx context.Context, client kubernetes.Interface, kind, param, value string) ([]byte, error) {
	data, err := client.CoreV1().RESTClient().Get().AbsPath("/debug/pprof/"+kind).
		Param(param, value).DoRaw(ctx)
	if err != nil {
		return nil, fmt.Errorf("%s profile: GET /debug/pprof/%s?%s=%s: %w", kind, kind, param, value, err)
	}
	return data, nil
}

// fetchProfile writes GET /debug/pprof/<kind>?<param>=<value> to path.
func fetchProfile(ctx context.Context, client kubernetes.Interface, kind, param, value, path string) error {
	data, err := getProfile(ctx, client, kind, param, value)
	if err != nil {
		return err
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		return fmt.Errorf("%s profile: %w", kind, err)
	}
	return nil
}
