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
