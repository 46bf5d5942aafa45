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
	"math/bits"
)

// bitset is the set of allocated offsets in [0, size): a plain bitmap plus a
// summary bitmap of the words that still have a free offset, so a search for a
// free offset skips 64 full words per summary word instead of testing bits.
// It is not safe for concurrent use; AllocationMap guards it.
type bitset struct {
	size int
	// words holds offset o at bit o%64 of words[o/64]; bits at or past size stay clear.
	words []uint64
	// nonFull holds bit w%64 of nonFull[w/64] set while words[w] has a free offset.
	nonFull []uint64
}

func newBitset(size int) bitset {
	n := (size + 63) / 64
	b := bitset{size: size, words: make([]uint64, n), nonFull: make([]uint64, (n+63)/64)}
	b.reset()
	return b
}

// reset frees every offset.
func (b *bitset) reset() {
	clear(b.words)
	clear(b.nonFull)
	for w := range b.words {
		b.nonFull[w>>6] |= 1 << (w & 63)
	}
}

// validMask has a bit set for each offset of word w that is inside [0, size).
func (b *bitset) validMask(w int) uint64 {
	if w == len(b.words)-1 && b.size&63 != 0 {
		return 1<<(b.size&63) - 1
	}
	return ^uint64(0)
}

func (b *bitset) has(o int) bool {
	return b.words[o>>6]&(1<<(o&63)) != 0
}

func (b *bitset) set(o int) {
	w := o >> 6
	b.words[w] |= 1 << (o & 63)
	if b.words[w] == b.validMask(w) {
		b.nonFull[w>>6] &^= 1 << (w & 63)
	}
}

func (b *bitset) unset(o int) {
	w := o >> 6
	b.words[w] &^= 1 << (o & 63)
	b.nonFull[w>>6] |= 1 << (w & 63)
}

// setWord replaces word w, keeping its summary bit true to it.
func (b *bitset) setWord(w int, v uint64) {
	b.words[w] = v
	if v == b.validMask(w) {
		b.nonFull[w>>6] &^= 1 << (w & 63)
	} else {
		b.nonFull[w>>6] |= 1 << (w & 63)
	}
}

// count is the number of offsets set in [0, to).
func (b *bitset) count(to int) int {
	n := 0
	for w := 0; w < to>>6; w++ {
		n += bits.OnesCount64(b.words[w])
	}
	if to&63 != 0 {
		n += bits.OnesCount64(b.words[to>>6] & (1<<(to&63) - 1))
	}
	return n
}

// firstFree is the lowest free offset in [from, to), or -1.
func (b *bitset) firstFree(from, to int) int {
	if from >= to {
		return -1
	}
	last := (to - 1) >> 6
	w := from >> 6
	free := ^b.words[w] & (^uint64(0) << (from & 63))
	if free == 0 {
		if w == last {
			return -1
		}
		if w = b.nextNonFull(w+1, last); w < 0 {
			return -1
		}
		free = ^b.words[w]
	}
	if w == last {
		free &= ^uint64(0) >> (63 - ((to - 1) & 63))
	}
	if free == 0 {
		return -1
	}
	return w<<6 | bits.TrailingZeros64(free)
}

// nextNonFull is the lowest word index in [from, to] with a free offset, or -1.
func (b *bitset) nextNonFull(from, to int) int {
	if from > to {
		return -1
	}
	i := from >> 6
	s := b.nonFull[i] & (^uint64(0) << (from & 63))
	for s == 0 {
		if i++; i > to>>6 {
			return -1
		}
		s = b.nonFull[i]
	}
	if w := i<<6 | bits.TrailingZeros64(s); w <= to {
		return w
	}
	return -1
}

// randomFree is the first free offset in [lo, hi) at or after start, wrapping
// around to lo: upstream's random-scan order, found a word at a time.
func (b *bitset) randomFree(lo, hi, start int) int {
	if o := b.firstFree(start, hi); o >= 0 {
		return o
	}
	return b.firstFree(lo, start)
}

// forEach calls fn for each set offset, lowest first.
func (b *bitset) forEach(fn func(int)) {
	for w, word := range b.words {
		for word != 0 {
			fn(w<<6 | bits.TrailingZeros64(word))
			word &= word - 1
		}
	}
}
