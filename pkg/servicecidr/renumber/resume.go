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

package renumber

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	utilnet "k8s.io/apimachinery/pkg/util/net"
)

// defaultRetries is how often Renumber, Rollback and Finish continue from the
// record after a transient error when Options.Retries is zero.
const defaultRetries = 5

// The pause before each retry doubles from firstRetryPause up to lastRetryPause:
// together about a minute, long enough for an etcd leader election or an
// apiserver's restart behind a load balancer.
const (
	firstRetryPause = time.Second
	lastRetryPause  = 30 * time.Second
)

// resume runs run and, while it fails with a transient error, runs it again
// after a pause, at most r.opts.Retries times. Every run derives its steps
// from the cluster and the record again, as a run of the plugin after a kill
// does, so a write whose answer was lost (it may have landed) is not repeated
// blindly. Each retry is one line in the log naming the error.
func (r *Runner) resume(ctx context.Context, command string, run func() error) error {
	pause := firstRetryPause
	for retry := 1; ; retry++ {
		err := run()
		if err == nil || retry > r.opts.Retries || !Transient(err) || ctx.Err() != nil {
			return err
		}
		r.closeWindow()
		fmt.Fprintf(r.opts.Log, "%s: %v: transient, continuing from the record in %s (retry %d of %d)\n", command, err, pause, retry, r.opts.Retries)
		if err := r.sleep(ctx, pause); err != nil {
			return err
		}
		pause = min(2*pause, lastRetryPause)
	}
}

// storageFailures are what the Service storage puts in the 422 it answers
// when an IPAddress write failed on the storage, not on the address: upstream
// answers any failure of the allocator's write as "failed to allocate IP ...:
// <cause>" on spec.clusterIPs, so an etcd timeout during a leader election
// reads as an invalid Service.
var storageFailures = []string{
	"etcdserver: ",
	"context deadline exceeded",
	"Timeout: request did not complete",
	"the server is currently unable to handle the request",
}

// Transient tells whether err is one a later try may not meet: the apiserver
// timed out, is overloaded or unavailable, failed internally or on its storage,
// or the connection to it broke (an apiserver restarting behind a load
// balancer). Refusals (Invalid for the request itself, Forbidden, Conflict,
// NotFound, AlreadyExists) and the caller's own cancellation are not.
func Transient(err error) bool {
	var status apierrors.APIStatus
	switch {
	case err == nil, errors.Is(err, context.Canceled):
		return false
	case apierrors.IsServerTimeout(err), apierrors.IsTimeout(err), apierrors.IsTooManyRequests(err),
		apierrors.IsServiceUnavailable(err), apierrors.IsInternalError(err):
		return true
	case apierrors.IsInvalid(err):
		for _, f := range storageFailures {
			if strings.Contains(err.Error(), f) {
				return true
			}
		}
		return false
	case errors.As(err, &status):
		return false
	}
	return utilnet.IsConnectionRefused(err) || utilnet.IsConnectionReset(err) || utilnet.IsProbableEOF(err) ||
		utilnet.IsHTTP2ConnectionLost(err) || errors.Is(err, context.DeadlineExceeded)
}
