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

package rest

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"slices"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/registry/generic/registry"
	"k8s.io/apiserver/pkg/util/dryrun"
	api "k8s.io/kubernetes/pkg/apis/core"

	"github.com/netfork/netfork/pkg/registry/core/service/ipallocator"
	"github.com/netfork/netfork/pkg/registry/internal/jointwrite"
)

// commitAttempts bounds how often a Service create or update is retried after
// losing the race for a dynamically chosen ClusterIP to another apiserver.
const commitAttempts = 8

// serviceCommitter creates the IPAddresses of the ClusterIPs the allocators reserved for a Service.
type serviceCommitter interface {
	CommitService(ctx context.Context, svc *api.Service, ips []string) error
}

// wrapServiceStore makes the Service storage commit its ClusterIP
// reservations. Upstream's storage hands the Service to the allocator only
// when that is upstream's own *ipallocator.MetaAllocator; netfork's allocator
// reserves an address in AllocateNext/Allocate instead, and this wrapper,
// which sees the Service once upstream's BeginCreate/BeginUpdate filled its
// ClusterIPs, creates the IPAddresses with the Service as parent before the
// Service is written. A dynamic address another apiserver took first is
// retried with a fresh allocation; anything else fails the request with the
// reason (upstream #135333). A store without both hooks is an error: upstream
// has stopped allocating in them and netfork would commit nothing.
func wrapServiceStore(store *registry.Store, committer serviceCommitter) error {
	if store.BeginCreate == nil || store.BeginUpdate == nil {
		return fmt.Errorf("upstream's Service storage no longer sets BeginCreate and BeginUpdate, where netfork commits ClusterIPs: netfork's Service storage needs porting")
	}
	beginCreate := store.BeginCreate
	store.BeginCreate = func(ctx context.Context, obj runtime.Object, options *metav1.CreateOptions) (registry.FinishFunc, error) {
		svc, ok := obj.(*api.Service)
		if !ok || dryrun.IsDryRun(options.DryRun) {
			return beginCreate(ctx, obj, options)
		}
		// Re-POSTing an existing Service would allocate, create IPAddresses
		// and release them again when the write fails (upstream #132321).
		if svc.Name != "" && exists(ctx, store.Get, svc.Name) {
			return nil, apierrors.NewAlreadyExists(store.DefaultQualifiedResource, svc.Name)
		}
		return commitWithRetry(ctx, svc, committer, func() (registry.FinishFunc, error) {
			return beginCreate(ctx, svc, options)
		}, func() []string { return svc.Spec.ClusterIPs })
	}

	beginUpdate := store.BeginUpdate
	store.BeginUpdate = func(ctx context.Context, obj, oldObj runtime.Object, options *metav1.UpdateOptions) (registry.FinishFunc, error) {
		svc, ok := obj.(*api.Service)
		oldSvc, oldOK := oldObj.(*api.Service)
		if !ok || !oldOK || dryrun.IsDryRun(options.DryRun) {
			return beginUpdate(ctx, obj, oldObj, options)
		}
		return commitWithRetry(ctx, svc, committer, func() (registry.FinishFunc, error) {
			return beginUpdate(ctx, svc, oldSvc, options)
		}, func() []string { return newClusterIPs(svc, oldSvc) })
	}
	return nil
}

// getFunc is registry.Store.Get.
type getFunc func(ctx context.Context, name string, options *metav1.GetOptions) (runtime.Object, error)

// exists tells whether the Service name is stored. The watch cache answers
// first, at no cost for the usual create of a new name; when it holds the
// name, a consistent read confirms it, since the cache may not have seen a
// delete that just returned, and a create right after it must not fail.
func exists(ctx context.Context, get getFunc, name string) bool {
	if _, err := get(ctx, name, &metav1.GetOptions{ResourceVersion: "0"}); err != nil {
		return false
	}
	_, err := get(ctx, name, &metav1.GetOptions{})
	return err == nil
}

// commitWithRetry runs begin, then commits the ClusterIPs allocated() names.
// A lost race for a dynamic address reverts the transaction, restores svc and
// begins again.
func commitWithRetry(ctx context.Context, svc *api.Service, committer serviceCommitter, begin func() (registry.FinishFunc, error), allocated func() []string) (registry.FinishFunc, error) {
	original := svc.DeepCopy()
	var lost []string
	for attempt := 1; ; attempt++ {
		// What an earlier attempt prepared for the Service's transaction is void.
		jointwrite.From(ctx).Reset()
		finish, err := begin()
		if err != nil {
			return nil, err
		}
		err = committer.CommitService(ctx, svc, allocated())
		if err == nil {
			return finish, nil
		}
		requested := requestedClusterIPs(original, svc)
		finish(ctx, false)
		jointwrite.From(ctx).Reset()
		if err = collisionOutcome(svc.Name, requested, err, &lost, attempt); err != nil {
			return nil, err
		}
		*svc = *original.DeepCopy()
	}
}

// collisionOutcome is the error a Service create or update fails with after
// attempt failed with err, or nil to try again: only a lost race for a
// dynamic address, whose address is added to lost, is tried again. requested
// are the Service's ClusterIPs as upstream's allocator sees them (see
// requestedClusterIPs).
func collisionOutcome(name string, requested []string, err error, lost *[]string, attempt int) error {
	var (
		collision *ipallocator.CollisionError
		commit    *ipallocator.CommitError
	)
	switch {
	case errors.As(err, &collision) && collision.Static:
		return allocationFailed(name, requested, collision.IP, ipallocator.ErrAllocated)
	case errors.As(err, &collision):
		*lost = append(*lost, collision.IP)
		if attempt < commitAttempts {
			return nil
		}
		return apierrors.NewInternalError(fmt.Errorf("failed to allocate a serviceIP for Service %q: other apiservers took each of %v first", name, *lost))
	case errors.As(err, &commit):
		return allocationFailed(name, requested, commit.IP, commit.Err)
	default:
		return apierrors.NewInternalError(err)
	}
}

// allocationFailed is the error upstream's Service storage answers when its
// allocator's IPAddress create for ip fails with cause (alloc.go allocIPs,
// where upstream writes the IPAddress): 422 Invalid on spec.clusterIPs with
// the requested ClusterIPs as the value, "failed to allocate IP <ip>: <cause>"
// for an address the Service asked for, as it asked for it, and "failed to
// allocate IP: <cause>" for one chosen for it. A ValidatingAdmissionPolicy or
// webhook that refuses the IPAddress thus fails the Service as upstream's does.
func allocationFailed(name string, requested []string, ip string, cause error) error {
	detail := fmt.Sprintf("failed to allocate IP: %v", cause)
	if asked, ok := requestedAs(requested, ip); ok {
		detail = fmt.Sprintf("failed to allocate IP %v: %v", asked, cause)
	}
	el := field.ErrorList{field.Invalid(field.NewPath("spec", "clusterIPs"), requested, detail)}
	return apierrors.NewInvalid(api.Kind("Service"), name, el)
}

// requestedAs is ip as the Service's requested ClusterIPs spell it, if it is one of them.
func requestedAs(requested []string, ip string) (string, bool) {
	want, err := netip.ParseAddr(ip)
	if err != nil {
		return "", false
	}
	for _, r := range requested {
		if got, err := netip.ParseAddr(r); err == nil && got.Unmap() == want.Unmap() {
			return r, true
		}
	}
	return "", false
}

// requestedClusterIPs are the ClusterIPs of request (the Service as the
// client sent it) as upstream's allocator sees them once the storage filled
// allocated's: the ones the request named, clusterIP alone standing for
// clusterIPs on a create (normalizeClusterIPs), and an empty marker for each
// IP family allocated fills in.
func requestedClusterIPs(request, allocated *api.Service) []string {
	named := request.Spec.ClusterIPs
	if len(named) == 0 && request.Spec.ClusterIP != "" {
		named = []string{request.Spec.ClusterIP}
	}
	out := make([]string, max(len(allocated.Spec.ClusterIPs), len(named)))
	copy(out, named)
	return out
}

// newClusterIPs are the ClusterIPs an update gives svc that old did not have.
func newClusterIPs(svc, old *api.Service) []string {
	var ips []string
	for _, ip := range svc.Spec.ClusterIPs {
		if !slices.Contains(old.Spec.ClusterIPs, ip) {
			ips = append(ips, ip)
		}
	}
	return ips
}
