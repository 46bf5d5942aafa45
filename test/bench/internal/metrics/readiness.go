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
	"crypto/tls"
	"net/http"
	"sync"
	"time"
)

// readyzTimeout bounds one /readyz poll: an apiserver that takes longer is not ready.
const readyzTimeout = 2 * time.Second

// Readiness polls each apiserver's /readyz, directly and not through a load balancer,
// and counts its flaps: each time it answers not ready (or not at all) after being ready.
type Readiness struct {
	cancel context.CancelFunc
	done   sync.WaitGroup
	mu     sync.Mutex
	flaps  map[string]int
	down   map[string]int
}

// WatchReadiness starts polling every endpoint (https://HOST:PORT) each interval until Stop.
// /readyz is open to anonymous requests (system:public-info-viewer), so no credentials
// are sent, and the apiservers' self-signed serving certificates are not verified.
func WatchReadiness(ctx context.Context, endpoints []string, interval time.Duration) *Readiness {
	ctx, cancel := context.WithCancel(ctx)
	r := &Readiness{cancel: cancel, flaps: map[string]int{}, down: map[string]int{}}
	client := &http.Client{
		Timeout:   readyzTimeout,
		Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}},
	}
	for _, endpoint := range endpoints {
		r.done.Go(func() { r.poll(ctx, client, endpoint, interval) })
	}
	return r
}

// poll polls one endpoint until ctx ends.
func (r *Readiness) poll(ctx context.Context, client *http.Client, endpoint string, interval time.Duration) {
	wasReady := true // An apiserver not ready at the first poll has flapped too.
	ticker := time.NewTicker(interval)
	defer ticker.Stop()
	for {
		ready := readyz(ctx, client, endpoint)
		if ctx.Err() != nil {
			return // A poll cut short by Stop says nothing.
		}
		r.mu.Lock()
		if !ready {
			r.down[endpoint]++
			if wasReady {
				r.flaps[endpoint]++
			}
		}
		r.mu.Unlock()
		wasReady = ready
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
		}
	}
}

// readyz says whether endpoint's /readyz answered 200.
func readyz(ctx context.Context, client *http.Client, endpoint string) bool {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, endpoint+"/readyz", nil)
	if err != nil {
		return false
	}
	resp, err := client.Do(req)
	if err != nil {
		return false
	}
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}

// Stop ends the polls and returns, per endpoint that was ever not ready, how many times it
// went from ready to not ready (flaps) and how many polls found it not ready.
func (r *Readiness) Stop() (flaps, notReadyPolls map[string]int) {
	r.cancel()
	r.done.Wait()
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.flaps, r.down
}
