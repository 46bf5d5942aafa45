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

package measure

import (
	"context"
	"fmt"
	"net/netip"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/netfork/netfork/test/internal/clustercheck"

	"github.com/netfork/netfork/test/bench/internal/cluster"
	"github.com/netfork/netfork/test/bench/internal/consistency"
	"github.com/netfork/netfork/test/bench/internal/plan"
	"github.com/netfork/netfork/test/bench/internal/ranges"
	"github.com/netfork/netfork/test/bench/internal/workload"
)

// settleTimeout bounds the wait for extra ServiceCIDRs to reach the allocator and for the
// post-delete state to settle.
const settleTimeout = 30 * time.Second

// prepare creates the bench namespace and the extra ServiceCIDRs, and waits until the
// allocator can use the latter.
func prepare(ctx context.Context, o *plan.Options, cl *cluster.Cluster, spec plan.Spec) error {
	if err := workload.CreateNamespace(ctx, cl.Client); err != nil {
		return err
	}
	if spec.CIDRs == 0 {
		return nil
	}
	if err := workload.CreateExtraCIDRs(ctx, cl.Client, spec.CIDRs, o.Workers); err != nil {
		return err
	}
	if !spec.Contender.UsesServiceCIDRs {
		return nil
	}
	for _, client := range cl.Clients() {
		if err := workload.WaitExtraCIDRsUsable(ctx, client, spec.CIDRs, settleTimeout); err != nil {
			return err
		}
	}
	return nil
}

// checkNow takes one snapshot and checks it.
func checkNow(ctx context.Context, cl *cluster.Cluster, exp consistency.Expectations) (consistency.Snapshot, []string, error) {
	snap, err := consistency.TakeSnapshot(ctx, cl.Client, clustercheck.EtcdBitmaps{Client: cl.EtcdClient})
	if err != nil {
		return snap, nil, err
	}
	return snap, consistency.Check(snap, exp), nil
}

// checkSettled checks until the snapshot is consistent or settleTimeout passes, since a
// release may reach etcd a moment after the delete call returns; a leak outlasts it.
func checkSettled(ctx context.Context, cl *cluster.Cluster, exp consistency.Expectations) ([]string, error) {
	deadline := time.Now().Add(settleTimeout)
	for {
		_, problems, err := checkNow(ctx, cl, exp)
		if err != nil || len(problems) == 0 || time.Now().After(deadline) {
			return problems, err
		}
		select {
		case <-ctx.Done():
			return problems, ctx.Err()
		case <-time.After(time.Second):
		}
	}
}

// compact compacts etcd to its current revision between the phases, so the delete phase
// reuses the space the create phase's bitmap revisions took instead of growing the database.
func compact(ctx context.Context, client *clientv3.Client) error {
	resp, err := client.Get(ctx, clustercheck.DefaultEtcdPrefix+clustercheck.NodePortBitmapKey)
	if err != nil {
		return fmt.Errorf("compacting etcd: %w", err)
	}
	if _, err := client.Compact(ctx, resp.Header.Revision, clientv3.WithCompactPhysical()); err != nil {
		return fmt.Errorf("compacting etcd at revision %d: %w", resp.Header.Revision, err)
	}
	return nil
}

// outsideDefaultRange counts the ClusterIPs the allocator took from the extra ServiceCIDRs.
func outsideDefaultRange(s consistency.Snapshot) int {
	def := netip.MustParsePrefix(ranges.ServiceCIDR)
	n := 0
	for _, svc := range s.Services {
		for _, ip := range clustercheck.ServiceClusterIPs(svc) {
			if addr, err := netip.ParseAddr(ip); err == nil && !def.Contains(addr) {
				n++
			}
		}
	}
	return n
}
