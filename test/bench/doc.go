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

// Command bench-services measures how fast a kube-apiserver creates and deletes Services
// with ClusterIPs and NodePorts, comparing netfork in each allocator mode with upstream
// kube-apiserver at the release go.mod pins and with a headless floor that allocates nothing.
//
// Every run (one contender, one N, one K, one round) gets a fresh embedded etcd in this
// process and fresh kube-apiserver child processes (--apiservers, default one, the
// workers spread over them) with the same flags, so no contender inherits another's
// objects, revisions or memory. A run creates N Services with W
// concurrent client-go workers (QPS limits off), half of them NodePort, checks that what
// the apiserver stored is consistent, then deletes them and checks again; a run that is
// not consistent, or whose requests failed, is reported with consistent=false.
//
// K extra ServiceCIDRs are created before the Services, each a /24 carved from
// 10.128.0.0/12, which is disjoint from the default 10.96.0.0/12. The Services do not ask
// for addresses: "spread over K ServiceCIDRs" means the allocator may pick any of the
// K+1 ranges, as it would in a real cluster (KEP-1880 leaves the choice to it), so the
// run measures what K ranges cost the allocator; how many ClusterIPs landed outside the
// default range is reported per run. The bitmap contender ignores ServiceCIDRs.
//
// Outputs go to _output/bench: results.csv (one row per run), results.json (every
// measurement, including delete percentiles and consistency problems), chart.json (the
// medians latency.png shows) and latency.png, drawn from it by test/bench/chart, a module
// of its own so the plotting library stays out of the apiserver's graph, apiserver logs
// and, with --profile, CPU profiles of netfork's apiserver.
//
// This package only wires the others in internal/: flags into plan's options, runner to
// run them, report for --report. Each imports only packages below it (README.md draws the
// layers; layers_test.go holds them).
package main
