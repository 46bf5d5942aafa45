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

	"github.com/google/pprof/profile"

	"github.com/netfork/netfork/test/bench/internal/cluster"
)

// Heap is what the apiservers' heap profiles, taken right after a forced garbage
// collection, say at one moment, summed over the apiservers.
type Heap struct {
	// Inuse is the live heap in bytes (inuse_space).
	Inuse int64
	// Alloc is every byte allocated since the process started (alloc_space), so the
	// difference of two readings is what happened in between.
	Alloc int64
}

// parseHeap sums a Go heap profile's inuse_space and alloc_space samples.
func parseHeap(data []byte) (Heap, error) {
	p, err := profile.ParseData(data)
	if err != nil {
		return Heap{}, fmt.Errorf("heap profile: %w", err)
	}
	inuse, alloc := -1, -1
	for i, st := range p.SampleType {
		switch st.Type {
		case "inuse_space":
			inuse = i
		case "alloc_space":
			alloc = i
		}
	}
	if inuse < 0 || alloc < 0 {
		return Heap{}, fmt.Errorf("heap profile: no inuse_space and alloc_space samples (sample types %v)", sampleTypes(p))
	}
	var h Heap
	for _, s := range p.Sample {
		h.Inuse += s.Value[inuse]
		h.Alloc += s.Value[alloc]
	}
	return h, nil
}

// sampleTypes names a profile's sample types, for an error.
func sampleTypes(p *profile.Profile) []string {
	names := make([]string, len(p.SampleType))
	for i, st := range p.SampleType {
		names[i] = st.Type
	}
	return names
}

// ReadHeap reads every apiserver's heap after a forced collection and sums them; the
// first apiserver's raw profile is returned too, for --profile to keep.
func ReadHeap(ctx context.Context, cl *cluster.Cluster) (Heap, []byte, error) {
	var sum Heap
	var first []byte
	for i, client := range cl.Clients() {
		data, err := heapProfile(ctx, client)
		if err != nil {
			return sum, nil, err
		}
		h, err := parseHeap(data)
		if err != nil {
			return sum, nil, err
		}
		if i == 0 {
			first = data
		}
		sum.Inuse += h.Inuse
		sum.Alloc += h.Alloc
	}
	return sum, first, nil
}

// PerServiceKB is how many KiB each of n Services accounts for between two readings.
func PerServiceKB(before, after int64, n int) float64 {
	if n <= 0 {
		return 0
	}
	return float64(after-before) / float64(n) / 1024
}
