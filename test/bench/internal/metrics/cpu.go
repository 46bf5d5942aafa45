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

package metrics

import (
	"fmt"
	"time"

	"github.com/netfork/netfork/test/bench/internal/cluster"
	"github.com/netfork/netfork/test/bench/internal/result"
)

// CPUReading is the CPU time used so far by a run's apiservers (summed) and by the
// benchmark's own process, which holds the client workers and the embedded etcd.
type CPUReading struct{ apiservers, harness time.Duration }

// ReadCPU takes a CPUReading of the cluster's processes.
func ReadCPU(cl *cluster.Cluster) (CPUReading, error) {
	var c CPUReading
	for _, a := range cl.APIServers {
		t, err := cpuTime(a.Process.Pid())
		if err != nil {
			return c, fmt.Errorf("apiserver pid %d: %w", a.Process.Pid(), err)
		}
		c.apiservers += t
	}
	var err error
	c.harness, err = selfCPUTime()
	return c, err
}

// CPUPerService reads the CPU time again and divides what was used since before (taken
// with error beforeErr) by n Services.
func CPUPerService(before CPUReading, beforeErr error, cl *cluster.Cluster, n int) (result.CPUMS, error) {
	if beforeErr != nil {
		return result.CPUMS{}, beforeErr
	}
	after, err := ReadCPU(cl)
	if err != nil || n <= 0 {
		return result.CPUMS{}, err
	}
	perService := func(d time.Duration) float64 { return d.Seconds() * 1000 / float64(n) }
	return result.CPUMS{APIServers: perService(after.apiservers - before.apiservers), Harness: perService(after.harness - before.harness)}, nil
}
