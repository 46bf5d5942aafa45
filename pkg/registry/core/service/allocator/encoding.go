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
	"bytes"
	"encoding/binary"
)

// This file reads and writes upstream's stored form of a bitmap: the bytes of
// big.Int.Bytes() for the integer whose bit i is offset i (big-endian, no
// leading zero bytes), as upstream's AllocationBitmap.Snapshot writes it.

// encode is the stored form of the set, with stray (bits at or past size, as
// load returned them) merged back in so a restored snapshot round-trips.
func (b *bitset) encode(stray []byte) []byte {
	n := max(8*len(b.words), len(stray))
	buf := make([]byte, n)
	for w, word := range b.words {
		binary.BigEndian.PutUint64(buf[n-8*(w+1):], word)
	}
	for i, c := range stray {
		buf[n-len(stray)+i] |= c
	}
	return trimLeadingZeros(buf)
}

// load replaces the set with the offsets below size in data and returns the
// bits of data at or past size, in stored form, or nil when there are none.
func (b *bitset) load(data []byte) []byte {
	stray := false
	for w := range b.words {
		v, valid := wordAt(data, w), b.validMask(w)
		stray = stray || v&^valid != 0
		b.setWord(w, v&valid)
	}
	if extra := len(data) - 8*len(b.words); !stray && extra > 0 {
		stray = len(trimLeadingZeros(data[:extra])) != 0
	}
	if !stray {
		return nil
	}
	return strayBits(data, b.size)
}

// strayBits is data with the bits of offsets below size cleared, in stored form.
func strayBits(data []byte, size int) []byte {
	out := bytes.Clone(data)
	for j := 0; j < len(out) && j <= size/8; j++ {
		c := &out[len(out)-1-j]
		if j < size/8 {
			*c = 0
		} else {
			*c &^= byte(1)<<(size%8) - 1
		}
	}
	return trimLeadingZeros(out)
}

// wordAt is bits [64w, 64w+64) of the big-endian integer data.
func wordAt(data []byte, w int) uint64 {
	end := len(data) - 8*w
	switch {
	case end <= 0:
		return 0
	case end >= 8:
		return binary.BigEndian.Uint64(data[end-8 : end])
	}
	var v uint64
	for _, c := range data[:end] {
		v = v<<8 | uint64(c)
	}
	return v
}

func trimLeadingZeros(buf []byte) []byte {
	i := 0
	for i < len(buf) && buf[i] == 0 {
		i++
	}
	return buf[i:]
}
