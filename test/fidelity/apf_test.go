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

package fidelity

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/component-base/metrics/testutil"
)

// apfProbePrefix names the Services of the quiet windows, created in kube-system, which has
// no quota and is outside every step.
const apfProbePrefix = "apf-probe-"

// apfAttempts bounds how often apfWindow looks for a quiet window; apfSettle is how long
// after a window the sentinel reads the request log, for the requests that started in it
// to end and be logged.
const (
	apfAttempts = 20
	apfSettle   = 200 * time.Millisecond
)

// exemptLevel is the priority level of system:masters, upstream's loopback identity
// included: no FlowSchema but the mandatory "exempt" may match before it (matching
// precedence 1 is that one's alone), so the loopback's IPAddress writes share it with the
// harness's admin and the apiserver's own loops.
const exemptLevel = "exempt"

// apfWindow measures how API Priority and Fairness counts the IPAddress writes of one
// Service's create and delete. It runs after the scenario, as the scenario's user (whose
// requests, metric reads included, go to the global-default level): it reads the metrics,
// creates and deletes a ClusterIP Service and reads them again, parsing both reads only
// then, so the window is short. The window is quiet when the apiserver's request log, read
// apfSettle later (the sentinel), shows no request that started in it and that flow
// control put in the exempt level but an IPAddress write: then nothing else was dispatched
// there (apiserver_request_total cannot tell: it counts neither /metrics nor /openapi
// reads, and the apiserver's own loops renew leases every few seconds). It tries again,
// with another Service, until a window is quiet, and records the changes of the exempt
// level's flow-control counters of requests in that window.
func (r *run) apfWindow(ctx context.Context) []record {
	for i := 1; i <= apfAttempts; i++ {
		svc := service(fmt.Sprintf("%s%d", apfProbePrefix, i), nil)
		svc.Namespace = metav1.NamespaceSystem
		start := time.Now()
		before := r.rawMetrics(ctx, r.user)
		if _, err := r.user.CoreV1().Services(svc.Namespace).Create(ctx, svc, metav1.CreateOptions{}); err != nil {
			r.t.Fatalf("creating Service %s for priority and fairness: %v", svc.Name, err)
		}
		if err := r.user.CoreV1().Services(svc.Namespace).Delete(ctx, svc.Name, metav1.DeleteOptions{}); err != nil {
			r.t.Fatalf("deleting Service %s for priority and fairness: %v", svc.Name, err)
		}
		after := r.rawMetrics(ctx, r.user)
		end := time.Now()
		select {
		case <-ctx.Done():
			r.t.Fatalf("waiting for the sentinel: %v", ctx.Err())
		case <-time.After(apfSettle):
		}
		log, err := os.ReadFile(r.cluster.apiserverLog)
		if err != nil {
			r.t.Fatalf("reading the apiserver's log: %v", err)
		}
		if quiet(string(log), start, end) {
			r.t.Logf("priority and fairness: window %d of %s was quiet", i, end.Sub(start))
			return apfRecords(r.parseMetrics(before), r.parseMetrics(after))
		}
	}
	r.t.Fatalf("priority and fairness: no quiet window in %d tries", apfAttempts)
	return nil
}

// httpLine is the request log's line of one request (k8s.io/apiserver's httplog, at -v=3
// and above, written as the request ends): its verb, path, latency and priority level.
var httpLine = regexp.MustCompile(`"HTTP" verb="([A-Z]+)" URI="([^"]*)" latency="([^"]*)".* apf_pl="([^"]*)"`)

// ipAddressesPath is the path of the IPAddress collection.
const ipAddressesPath = "/apis/networking.k8s.io/v1/ipaddresses"

// watchStart is the handler's line for a watch it starts serving (k8s.io/apiserver's
// endpoints/handlers, at -v=3 and above), logged right after flow control dispatched it.
// The request log has a watch's line only when it ends, minutes later, and this one names
// no priority level.
const watchStart = `"Starting watch"`

// quiet tells whether log shows no request that started between from and to (its line's
// time less its latency) in the exempt level but creates and deletes of IPAddresses. A
// request that only ended in the window was dispatched before it, and counted before it.
// Any watch that started in the window, or up to apfSettle after it (its line follows its
// dispatch), makes it not quiet, whatever its level: its line does not say.
func quiet(log string, from, to time.Time) bool {
	year := strconv.Itoa(from.Year())
	for _, line := range strings.Split(log, "\n") {
		m := klogLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		if m[3] == "get.go" && strings.HasPrefix(m[4], watchStart) {
			logged, err := time.ParseInLocation("2006 0102 15:04:05.000000", year+" "+m[2], time.Local)
			if err != nil || (!logged.Before(from) && logged.Before(to.Add(apfSettle))) {
				return false
			}
			continue
		}
		if m[3] != "httplog.go" {
			continue
		}
		h := httpLine.FindStringSubmatch(m[4])
		if h == nil || h[4] != exemptLevel {
			continue
		}
		ended, err := time.ParseInLocation("2006 0102 15:04:05.000000", year+" "+m[2], time.Local)
		if err != nil {
			return false
		}
		latency, err := time.ParseDuration(h[3])
		if err != nil {
			return false
		}
		if started := ended.Add(-latency); started.Before(from) || started.After(to) {
			continue
		}
		write := (h[1] == "POST" && h[2] == ipAddressesPath) || (h[1] == "DELETE" && strings.HasPrefix(h[2], ipAddressesPath+"/"))
		if !write {
			return false
		}
	}
	return true
}

// apfRecords are the changes between before and after of the exempt level's flow-control
// counters (totals and counts) of requests, those by flow schema; the level's periodic
// samples are left out.
func apfRecords(before, after testutil.Metrics) []record {
	series := func(m testutil.Metrics) metricSeries {
		out := metricSeries{}
		for name, samples := range m {
			if !strings.HasPrefix(name, "apiserver_flowcontrol_") || !isCounter(name) {
				continue
			}
			for _, s := range samples {
				if string(s.Metric["priority_level"]) != exemptLevel || s.Metric["flow_schema"] == "" {
					continue
				}
				labels := map[string]string{}
				for k, v := range s.Metric {
					if k != "__name__" {
						labels[string(k)] = string(v)
					}
				}
				out[seriesName(name, labels)] += float64(s.Value)
			}
		}
		return out
	}
	var records []record
	for _, rec := range metricRecords(series(before), series(after)) {
		rec.key[0], rec.key[1] = "apf", "quiet-window"
		records = append(records, rec)
	}
	return records
}
