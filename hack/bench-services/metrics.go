package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"strconv"
	"strings"
)

// collisionMetric counts, per ServiceCIDR and scope, the ClusterIP allocations that
// failed; a dynamic one whose Service was still created lost its address to another
// apiserver and was retried. netfork keeps upstream's name for it.
const collisionMetric = "kube_apiserver_clusterip_allocator_allocation_errors_total"

// dynamicAllocationErrors sums collisionMetric{scope="dynamic"} over the cluster's apiservers.
func dynamicAllocationErrors(ctx context.Context, cl *cluster) (int64, error) {
	var total int64
	for _, a := range cl.apiservers {
		data, err := a.client.CoreV1().RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
		if err != nil {
			return 0, fmt.Errorf("reading /metrics of apiserver pid %d: %w", a.process.Pid(), err)
		}
		n, err := sumDynamicCollisions(data)
		if err != nil {
			return 0, fmt.Errorf("/metrics of apiserver pid %d: %w", a.process.Pid(), err)
		}
		total += n
	}
	return total, nil
}

// sumDynamicCollisions sums the samples of collisionMetric, in Prometheus text format,
// with the label scope="dynamic"; a counter with no sample yet is 0.
func sumDynamicCollisions(text []byte) (int64, error) {
	const name, label = collisionMetric, `scope="dynamic"`
	var total int64
	scanner := bufio.NewScanner(bytes.NewReader(text))
	scanner.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for scanner.Scan() {
		line := scanner.Text()
		labels, ok := strings.CutPrefix(line, name+"{")
		if !ok {
			continue
		}
		end := strings.LastIndex(labels, "}")
		if end < 0 || !strings.Contains(labels[:end], label) {
			continue
		}
		fields := strings.Fields(labels[end+1:])
		if len(fields) == 0 {
			return 0, fmt.Errorf("%s: sample %q has no value", name, line)
		}
		v, err := strconv.ParseFloat(fields[0], 64)
		if err != nil {
			return 0, fmt.Errorf("%s: sample %q: %w", name, line, err)
		}
		total += int64(v)
	}
	if err := scanner.Err(); err != nil {
		return 0, fmt.Errorf("reading %s: %w", name, err)
	}
	return total, nil
}
