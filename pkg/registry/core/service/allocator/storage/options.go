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
