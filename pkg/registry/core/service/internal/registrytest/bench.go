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

package registrytest

import (
	"testing"

	upstreamallocator "k8s.io/kubernetes/pkg/registry/core/service/allocator"
)

// BenchAllocateNextRelease measures one AllocateNext and the Release of what it
// returned per iteration, so a's fill level stays where the caller set it.
func BenchAllocateNextRelease(b *testing.B, a upstreamallocator.Interface) {
	b.ReportAllocs()
	for b.Loop() {
		o, ok, err := a.AllocateNext()
		if !ok || err != nil {
			b.Fatalf("AllocateNext = %d, %v, %v", o, ok, err)
		}
		if err := a.Release(o); err != nil {
			b.Fatal(err)
		}
	}
}
