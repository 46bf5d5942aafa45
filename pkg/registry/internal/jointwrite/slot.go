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

package jointwrite

import (
	"context"
	"errors"
	"slices"
	"sync"

	"k8s.io/apimachinery/pkg/runtime"
)

// ErrCannotPrepare says an IPAddress cannot be written with its Service: the
// IPAddresses are written through the loopback client, or on other etcd
// servers than the Services.
var ErrCannotPrepare = errors.New("the IPAddress cannot be written with its Service")

// Outcome is what became of a prepared write.
type Outcome int

const (
	// Written is the outcome of a write that was stored (a delete that was done).
	Written Outcome = iota
	// AddressTaken is the outcome of an IPAddress create whose key already
	// existed: nothing was stored.
	AddressTaken
	// NotWritten is the outcome of a write that was not stored for another
	// reason (the Service existed, etcd failed, an earlier write failed).
	NotWritten
)

// Write is an IPAddress prepared to ride in a Service's transaction.
type Write struct {
	// Key is the IPAddress's etcd key and Data its stored value, encoded and
	// transformed as the IPAddress storage would write them.
	Key  string
	Data []byte
	// Done is told the outcome once the transaction ran. Its error, for
	// AddressTaken, is the Service create's.
	Done func(Outcome) error
}

// Slot carries the IPAddress writes of one Service create, from the
// allocator that prepares them to the Service storage that stores them: the
// first held rides in the Service's transaction, any other is written on its
// own just before it. A Slot is used by one request at a time.
type Slot struct {
	servers []string

	mu     sync.Mutex
	owner  runtime.Object
	writes []*Write
}

type slotKey struct{}

type prepareKey struct{}

// WithSlot returns ctx with a new, empty Slot for a create of the Service
// storage whose etcd servers are servers.
func WithSlot(ctx context.Context, servers []string) (context.Context, *Slot) {
	s := &Slot{servers: slices.Clone(servers)}
	return context.WithValue(ctx, slotKey{}, s), s
}

// From is ctx's Slot, or nil.
func From(ctx context.Context) *Slot {
	s, _ := ctx.Value(slotKey{}).(*Slot)
	return s
}

// Accepts tells whether the slot's Service is stored on the etcd servers
// the IPAddresses are: one transaction cannot span two etcd clusters
// (--etcd-servers-overrides).
func (s *Slot) Accepts(servers []string) bool {
	return s != nil && slices.Equal(s.servers, servers)
}

// Hold adds w to the writes of the Service owner (the object the Service
// storage will be asked to create). Writes held for another object are dropped.
func (s *Slot) Hold(owner runtime.Object, w *Write) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.owner != owner {
		s.owner, s.writes = owner, nil
	}
	s.writes = append(s.writes, w)
}

// Take removes and returns the writes held for owner, or nil.
func (s *Slot) Take(owner runtime.Object) []*Write {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.owner != owner {
		return nil
	}
	w := s.writes
	s.owner, s.writes = nil, nil
	return w
}

// Reset drops what the slot holds, for a request that begins again. The
// writes' owner releases their addresses on its own.
func (s *Slot) Reset() {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.owner, s.writes = nil, nil
}

// Prepared is where PreparingStorage puts the encoded object of a create run
// with ctx, or the key and revision of a delete.
type Prepared struct {
	Key      string
	Data     []byte
	Revision int64
}

// WithPrepare returns ctx, whose creates and deletes on a PreparingStorage
// are prepared into p instead of written.
func WithPrepare(ctx context.Context, p *Prepared) context.Context {
	return context.WithValue(ctx, prepareKey{}, p)
}

func preparedFrom(ctx context.Context) *Prepared {
	p, _ := ctx.Value(prepareKey{}).(*Prepared)
	return p
}

// Delete is an IPAddress delete prepared to ride in its Service's delete transaction.
type Delete struct {
	// Key is the IPAddress's etcd key and Revision the one to delete it at.
	Key      string
	Revision int64
	// Done is told Written once the transaction deleted it; a delete that
	// did not ride is never told anything.
	Done func(Outcome)
}

// DeletePreparer prepares the IPAddress deletes of the Service svc, about to
// be deleted, for the Service storage of slot.
type DeletePreparer func(ctx context.Context, slot *Slot, svc runtime.Object) []*Delete

type deleteKey struct{}

// WithDeletes returns ctx, whose Service deletes on a ServiceStorage take
// along one IPAddress delete that prepare prepares, and the Slot that
// carries them.
func WithDeletes(ctx context.Context, servers []string, prepare DeletePreparer) (context.Context, *Slot) {
	ctx, slot := WithSlot(ctx, servers)
	return context.WithValue(ctx, deleteKey{}, prepare), slot
}

func deletePreparerFrom(ctx context.Context) DeletePreparer {
	p, _ := ctx.Value(deleteKey{}).(DeletePreparer)
	return p
}
