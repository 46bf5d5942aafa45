package repairloop

// LeakGrace is how many consecutive passes must find a value allocated with no
// Service before it is released, as upstream's numRepairsBeforeLeakCleanup: an
// allocation made just before the bitmap was read can belong to a Service that
// is created after the Services were listed.
const LeakGrace = 3

// Leaks counts, per value, the consecutive passes that found it allocated with
// no Service behind it. A pass builds a new Leaks from the previous one and
// keeps it only once its bitmap write succeeded, so a pass that fails (and is
// retried at once on a conflict) does not shorten the grace, and a value that is
// used again or released meanwhile starts from zero.
type Leaks[K comparable] map[K]int

// Observe records in next that this pass found k leaked, and reports whether k
// must still be held in the bitmap (true) or is released now (false), with the
// number of consecutive passes that found it.
func (l Leaks[K]) Observe(k K, next Leaks[K]) (hold bool, seen int) {
	seen = l[k] + 1
	if seen >= LeakGrace {
		return false, seen
	}
	next[k] = seen
	return true, seen
}
