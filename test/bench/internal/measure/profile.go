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

package measure

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/netfork/netfork/test/bench/internal/metrics"
)

// readHeapAt reads the apiservers' heaps at a point of the run and, for --profile, keeps
// the run's (first apiserver's) profile as heap-<point>-<run>.pprof, so that two points
// can be compared (go tool pprof -sample_index=alloc_space -diff_base A B); like the CPU
// profile, a profile that cannot be kept is only a warning.
func (m *run) readHeapAt(point string) (metrics.Heap, error) {
	h, raw, err := metrics.ReadHeap(m.ctx, m.cl)
	if err != nil || !m.o.Profile {
		return h, err
	}
	path := filepath.Join(m.dirs.Profiles, "heap-"+point+"-"+m.spec.Name()+".pprof")
	if err := os.WriteFile(path, raw, 0o644); err != nil {
		fmt.Fprintf(m.log, "bench-services: %s: warning: heap profile: %v\n", m.spec.Name(), err)
		return h, nil
	}
	fmt.Fprintf(m.log, "bench-services: %s: heap profile (%s) in %s\n", m.spec.Name(), point, path)
	return h, nil
}

// startProfile takes a CPU profile of the run's (first) apiserver from now on, in the
// background, when phase is --profile-phase, and returns a function that waits for it; a
// failed profile is a warning, not a failed run, since it says nothing about the contender.
func (m *run) startProfile(phase string) func() {
	if !m.o.Profile || phase != m.o.ProfilePhase {
		return func() {}
	}
	path := filepath.Join(m.dirs.Profiles, "cpu-"+phase+"-"+m.spec.Name()+".pprof")
	var wg sync.WaitGroup
	wg.Go(func() {
		if err := metrics.CPUProfile(m.ctx, m.cl.Client, m.o.ProfileDuration, path); err != nil {
			fmt.Fprintf(m.log, "bench-services: %s: warning: %v\n", m.spec.Name(), err)
			return
		}
		fmt.Fprintf(m.log, "bench-services: %s: CPU profile from the start of the %s phase in %s\n", m.spec.Name(), phase, path)
	})
	return wg.Wait
}
