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

package runner

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/netfork/netfork/test/bench/internal/measure"
	"github.com/netfork/netfork/test/bench/internal/plan"
	"github.com/netfork/netfork/test/bench/internal/report"
)

// RunCluster measures a running cluster's apiserver once (--cluster), adds the measurement
// to cluster-results.json and .csv in --output-dir, and prints the table of every
// measurement there so far. It returns 1 when the measurement failed.
func RunCluster(ctx context.Context, o *plan.Options, stdout, stderr io.Writer) (int, error) {
	if err := os.MkdirAll(o.OutputDir, 0o755); err != nil {
		return 0, fmt.Errorf("--output-dir: %w", err)
	}
	c := o.Cluster
	fmt.Fprintf(stderr, "bench-services: %s on %s, round %d: %d Services, %d workers, %d node(s), %d apiserver endpoint(s)\n",
		c.APIServer, c.Topology, c.Round, o.Ns[0], o.Workers, len(c.Nodes), len(c.Endpoints))
	r := measure.Cluster(ctx, o, stderr)
	if ctx.Err() != nil {
		return 1, ctx.Err() // An interrupted measurement is not kept.
	}
	fmt.Fprintf(stderr, "bench-services: %s\n", report.DescribeCluster(r))
	results, err := report.AppendClusterResult(o.ClusterJSON(), o.ClusterCSV(), r)
	if err != nil {
		return 0, err
	}
	report.PrintClusterTable(stdout, results)
	if !r.Consistent {
		return 1, nil
	}
	return 0, nil
}
