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

package allocator

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestBitsetFirstFree compares the word-skipping search with a bit-by-bit one
// over sizes around word (64) and summary-word (4096) edges.
func TestBitsetFirstFree(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, size := range []int{1, 63, 64, 65, 4095, 4096, 4097, 9000} {
		for _, density := range []float64{0, 0.5, 0.99, 1} {
			t.Run(fmt.Sprintf("size %d density %g", size, density), func(t *testing.T) {
				b := newBitset(size)
				for o := range size {
					if r.Float64() < density {
						b.set(o)
					}
				}
				// Free one offset in an otherwise full word range, the case the summary exists for.
				if density == 1 && size > 100 {
					b.unset(size - 70)
				}
				for range 2000 {
					from, to := r.IntN(size+1), r.IntN(size+1)
					if got, want := b.firstFree(from, to), bruteFirstFree(&b, from, to); got != want {
						t.Fatalf("firstFree(%d, %d) = %d, want %d", from, to, got, want)
					}
				}
			})
		}
	}
}

func bruteFirstFree(b *bitset, from, to int) int {
	for o := from; o < to; o++ {
		if !b.has(o) {
			return o
		}
	}
	return -1
}
