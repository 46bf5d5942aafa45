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

package clustercheck

import "fmt"

// MaxProblems bounds how many problems a check reports; one is enough to fail.
const MaxProblems = 20

// Problems collects what a check finds, up to MaxProblems plus a count of the rest.
type Problems struct {
	list    []string
	dropped int
}

// Addf records one problem.
func (p *Problems) Addf(format string, args ...any) {
	if len(p.list) < MaxProblems {
		p.list = append(p.list, fmt.Sprintf(format, args...))
		return
	}
	p.dropped++
}

// Len is how many problems were found, kept or not.
func (p *Problems) Len() int { return len(p.list) + p.dropped }

// Result returns the problems found, the last one counting those left out.
func (p *Problems) Result() []string {
	if p.dropped > 0 {
		return append(append([]string(nil), p.list...), fmt.Sprintf("... and %d more problems", p.dropped))
	}
	return p.list
}
