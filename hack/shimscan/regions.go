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
	"bufio"
	"bytes"
	"strings"
)

// Region markers, as hack/verify-upstream-shims.sh reads them.
const (
	beginMarker = "// upstream-shim begin: "
	endMarker   = "// upstream-shim end"
)

// regions are the line spans of a file's upstream-shim regions, markers included.
type regions [][2]int

// findRegions reads the regions of src. An unclosed region runs to the end of
// the file; verify-upstream-shims.sh reports it.
func findRegions(src []byte) regions {
	var rs regions
	open := 0
	sc := bufio.NewScanner(bytes.NewReader(src))
	sc.Buffer(nil, len(src)+1)
	n := 0
	for sc.Scan() {
		n++
		text := strings.TrimSpace(sc.Text())
		switch {
		case strings.HasPrefix(text, beginMarker) && open == 0:
			open = n
		case strings.HasPrefix(text, endMarker) && open > 0:
			rs = append(rs, [2]int{open, n})
			open = 0
		}
	}
	if open > 0 {
		rs = append(rs, [2]int{open, n})
	}
	return rs
}

// contains says whether lines first to last lie in one region.
func (rs regions) contains(first, last int) bool {
	for _, r := range rs {
		if r[0] <= first && last <= r[1] {
			return true
		}
	}
	return false
}
