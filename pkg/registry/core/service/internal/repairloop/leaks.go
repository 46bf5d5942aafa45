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
