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
	"math/rand/v2"
)

// Option configures an AllocationMap at construction.
type Option func(*AllocationMap)

// WithRandSource makes AllocateNext draw its random start points from src, so
// tests and fuzzing can replay an allocation sequence; the map calls src only
// while holding its lock, so src need not be safe for concurrent use.
func WithRandSource(src rand.Source) Option {
	return func(m *AllocationMap) {
		m.rand = rand.New(src)
	}
}
