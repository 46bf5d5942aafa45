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

package ipaddressindex

import (
	"fmt"
	"testing"

	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/cache"
)

// benchEachType runs bench for each type the Index takes (the storage's
// internal one, the loopback client's v1), with n IPAddresses of that type
// and a new Index's store.
func benchEachType(b *testing.B, n int, bench func(b *testing.B, store cache.ReflectorStore, objs []any)) {
	for _, typ := range []string{"internal", "v1"} {
		b.Run(typ, func(b *testing.B) {
			objs := make([]any, n)
			for i := range n {
				obj := ipAddress(fmt.Sprintf("10.0.%d.%d", i/256, i%256), fmt.Sprintf("svc-%d", i))
				objs[i] = obj
				if typ == "internal" {
					objs[i] = internal(b, obj)
				}
			}
			store := New(fake.NewClientset()).ReflectorStore()
			b.ReportAllocs()
			bench(b, store, objs)
		})
	}
}

// BenchmarkIndexAddDelete is the Index's cost of a watched create and delete
// of one IPAddress, as the Reflector hands them over (no handlers).
func BenchmarkIndexAddDelete(b *testing.B) {
	benchEachType(b, 1024, func(b *testing.B, store cache.ReflectorStore, objs []any) {
		i := 0
		for b.Loop() {
			obj := objs[i%len(objs)]
			if err := store.Add(obj); err != nil {
				b.Fatal(err)
			}
			if err := store.Delete(obj); err != nil {
				b.Fatal(err)
			}
			i++
		}
	})
}

// BenchmarkIndexDelete is the Index's cost of a watched delete of an
// IPAddress it does not hold: what remove does before it finds no entry.
func BenchmarkIndexDelete(b *testing.B) {
	benchEachType(b, 1024, func(b *testing.B, store cache.ReflectorStore, objs []any) {
		i := 0
		for b.Loop() {
			if err := store.Delete(objs[i%len(objs)]); err != nil {
				b.Fatal(err)
			}
			i++
		}
	})
}

// BenchmarkIndexReplace is the Index's cost of a relist of 10k IPAddresses
// that finds nothing changed.
func BenchmarkIndexReplace(b *testing.B) {
	benchEachType(b, 10_000, func(b *testing.B, store cache.ReflectorStore, objs []any) {
		if err := store.Replace(objs, "1"); err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			if err := store.Replace(objs, "1"); err != nil {
				b.Fatal(err)
			}
		}
	})
}
