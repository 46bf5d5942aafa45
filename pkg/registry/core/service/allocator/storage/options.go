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

package storage

// Option configures an Etcd at construction.
type Option func(*Etcd)

// WithDescription names the object and the flag its range comes from in
// messages, e.g. ("ClusterIP bitmap", "--service-cluster-ip-range").
func WithDescription(what, flag string) Option {
	return func(e *Etcd) {
		e.what, e.flag = what, flag
	}
}

// WithCreateIfMissing makes Init create an empty object when none is stored.
// The dual-write bitmap needs it: with no object every allocation is refused,
// and in dual-write mode no bitmap repair loop runs to create one. Without it
// a missing object is created by the repair loop's first pass, as upstream does.
func WithCreateIfMissing() Option {
	return func(e *Etcd) {
		e.createIfMissing = true
	}
}
