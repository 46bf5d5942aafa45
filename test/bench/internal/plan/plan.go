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

package plan

import (
	"fmt"
	"slices"

	"github.com/netfork/netfork/test/bench/internal/result"
)

// Spec is one cell of the matrix in one round.
type Spec struct {
	Contender Contender
	N, CIDRs  int
	Round     int
	// CreatePace and DeletePace hold the phases to that many requests per second; 0 is
	// as fast as the workers go. A paced contender's are set just before it runs.
	CreatePace, DeletePace float64
	// CreateOnly ends the run after the create phase and its checks.
	CreateOnly bool
}

// Name identifies the run in file names.
func (s Spec) Name() string {
	return fmt.Sprintf("%s-n%d-k%d-r%d", s.Contender.Name, s.N, s.CIDRs, s.Round)
}

// Plan lists the runs in order: rounds outermost, so every contender runs once per round
// in each of its cells, and each cell's contenders rotate each round so none always runs
// first; paced contenders run last in their cell, after the contender that sets their pace.
func Plan(o *Options) []Spec {
	var specs []Spec
	for round := 1; round <= o.Rounds; round++ {
		for _, cell := range o.Matrix() {
			if !cell.inRound(round) {
				continue
			}
			var free, paced []Spec
			for _, name := range cell.Contenders {
				c, _ := LookupContender(name) // validate checked every name.
				spec := Spec{Contender: c, N: cell.N, CIDRs: cell.CIDRs, Round: round, CreatePace: o.Rate, DeletePace: o.Rate,
					CreateOnly: slices.Contains(cell.CreateOnly, name)}
				if c.PacedBy != "" {
					paced = append(paced, spec)
				} else {
					free = append(free, spec)
				}
			}
			free = rotate(free, round-1)
			specs = append(append(specs, free...), paced...)
		}
	}
	return specs
}

// SetPace holds a paced contender's run to the creates/s and deletes/s its pacer reached
// in the same cell and round; it fails when the pacer has no consistent run there.
func (s *Spec) SetPace(results []result.Result) error {
	by := s.Contender.PacedBy
	if by == "" {
		return nil
	}
	for _, r := range results {
		if r.Contender == by && r.N == s.N && r.CIDRs == s.CIDRs && r.Round == s.Round && r.Consistent {
			s.CreatePace, s.DeletePace = r.CreatesPerSec, r.DeletesPerSec
			return nil
		}
	}
	return fmt.Errorf("%s takes its pace from %s, which has no consistent run at n=%d k=%d in round %d", s.Contender.Name, by, s.N, s.CIDRs, s.Round)
}

// rotate returns items started at index by, wrapping around.
func rotate[T any](items []T, by int) []T {
	if len(items) == 0 {
		return items
	}
	by %= len(items)
	return append(slices.Clone(items[by:]), items[:by]...)
}
