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

package main

import (
	"encoding/binary"
	"hash/fnv"
	"os"
	"runtime"
	"sort"
	"sync"
)

// window is window consecutive significant lines of a file, from line first to line last.
type window struct {
	hash        uint64
	first, last int
}

// windows hashes every run of size consecutive lines.
func windows(lines []line, size int) []window {
	if len(lines) < size {
		return nil
	}
	out := make([]window, 0, len(lines)-size+1)
	buf := make([]byte, 8)
	for i := 0; i+size <= len(lines); i++ {
		h := fnv.New64a()
		for _, l := range lines[i : i+size] {
			binary.LittleEndian.PutUint64(buf, l.hash)
			h.Write(buf)
		}
		out = append(out, window{hash: h.Sum64(), first: lines[i].num, last: lines[i+size-1].num})
	}
	return out
}

// scanned is a netfork file's windows.
type scanned struct {
	src     source
	windows []window
}

// place is where a window occurs upstream.
type place struct {
	file        int // index into the upstream files
	first, last int
}

// scanAll reads and windows every file, on every CPU; read errors are returned.
func scanAll(files []source, size int) ([]scanned, error) {
	out := make([]scanned, len(files))
	errs := make([]error, len(files))
	var wg sync.WaitGroup
	next := make(chan int)
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for i := range next {
				src, err := os.ReadFile(files[i].path)
				if err != nil {
					errs[i] = err
					continue
				}
				out[i] = scanned{src: files[i], windows: windows(significantLines(files[i].name, src), size)}
			}
		})
	}
	for i := range files {
		next <- i
	}
	close(next)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// findPlaces looks up every upstream window that some netfork window has and
// returns where each such hash occurs upstream.
func findPlaces(upstream []scanned, wanted map[uint64]bool) map[uint64][]place {
	places := map[uint64][]place{}
	for i, f := range upstream {
		for _, w := range f.windows {
			if wanted[w.hash] {
				places[w.hash] = append(places[w.hash], place{file: i, first: w.first, last: w.last})
			}
		}
	}
	return places
}

// run is a maximal stretch of a netfork file whose windows all occur upstream.
type run struct {
	file        string
	first, last int
	// upstream is the upstream file most of the run's windows come from, and
	// the lines they span there; others counts the other upstream files.
	upstream        string
	upFirst, upLast int
	others          int
	// marked says every window of the run lies in an upstream-shim region.
	marked bool
}

// runs merges the netfork windows found upstream into maximal runs: windows
// that share a line belong to one run.
func runs(f scanned, marked regions, places map[uint64][]place, upstream []scanned) []run {
	var out []run
	var cur []window
	flush := func() {
		if len(cur) > 0 {
			r := newRun(f.src.name, cur, places, upstream)
			r.marked = true
			for _, w := range cur {
				r.marked = r.marked && marked.contains(w.first, w.last)
			}
			out = append(out, r)
			cur = nil
		}
	}
	for _, w := range f.windows {
		if _, ok := places[w.hash]; !ok {
			continue
		}
		if len(cur) > 0 && w.first > cur[len(cur)-1].last {
			flush()
		}
		cur = append(cur, w)
	}
	flush()
	return out
}

// newRun makes the run of windows ws, naming the upstream file most of them
// come from and the lines there from the first window's first occurrence to
// the last window's next one.
func newRun(file string, ws []window, places map[uint64][]place, upstream []scanned) run {
	count := map[int]int{}
	for _, w := range ws {
		for _, p := range places[w.hash] {
			count[p.file]++
		}
	}
	best := -1
	for i, n := range count {
		if best < 0 || n > count[best] || (n == count[best] && upstream[i].src.name < upstream[best].src.name) {
			best = i
		}
	}
	r := run{file: file, first: ws[0].first, last: ws[0].last, upstream: upstream[best].src.name, others: len(count) - 1}
	r.upFirst, r.upLast = -1, -1
	for _, w := range ws {
		r.last = max(r.last, w.last)
		for _, p := range places[w.hash] {
			if p.file != best {
				continue
			}
			if r.upFirst < 0 {
				r.upFirst, r.upLast = p.first, p.last
			}
			if p.first >= r.upFirst {
				r.upLast = max(r.upLast, p.last)
				break
			}
		}
	}
	return r
}

// sortRuns orders runs by file and line.
func sortRuns(rs []run) {
	sort.Slice(rs, func(i, j int) bool {
		if rs[i].file != rs[j].file {
			return rs[i].file < rs[j].file
		}
		return rs[i].first < rs[j].first
	})
}
