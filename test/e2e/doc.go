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

// Package e2e is netfork's ginkgo suite, run against any cluster named by
// $KUBECONFIG or --kubeconfig (a local-up control plane, a kind cluster with
// netfork's or upstream's kube-apiservers) with `make test-e2e`. It is not part
// of `make test`.
//
// Specs carry one label per KEP they check (KEP-1880, KEP-3070, KEP-3668,
// KEP-2438, KEP-1669), plus "datapath" (needs nodes; skipped where there are
// none), "netns" (hack/local-up-netns.sh's cluster), "disruptive" (stops and
// starts apiservers) and "live-ranges" (the [Feature:LiveRanges] specs, which fill the
// cluster's Service range; they skip unless NETFORK_E2E_LIVE_RANGES is set, as
// kind/live-ranges.sh does). Every expectation is derived from what the cluster says:
// its ServiceCIDRs or the allocation errors that name its ranges, the
// kubernetes Service and its EndpointSlices, the kubernetes_feature_enabled
// metric, and how the allocator answers a probe Service (IPAddress objects or
// bitmaps); never from local-up's defaults.
//
// # The disruptive hook
//
// Disruptive specs stop and start apiservers through an executable named by
// $NETFORK_E2E_HOOK, which the harness that made the cluster provides
// (hack/local-up-hook.sh for local-up, kind's for kind). Without it they
// skip with a message. The contract:
//
//	$NETFORK_E2E_HOOK count        prints the number of apiservers (N), nothing else on stdout
//	$NETFORK_E2E_HOOK stop INDEX   sends apiserver INDEX (0..N-1) SIGTERM, a graceful
//	                               shutdown, and returns once it has exited
//	$NETFORK_E2E_HOOK start INDEX  starts apiserver INDEX again with the same binary and
//	                               flags and returns once its /readyz is ok
//
// Each exits 0 on success and non-zero with one line on stderr otherwise. The
// suite's client keeps working while one apiserver is stopped (local-up's front,
// kind's load balancer); a spec stops only apiserver N-1 and starts it again
// before it ends, also when it fails.
//
// Optional expectations a harness may set, when it knows them:
// NETFORK_E2E_APISERVER_FAMILIES=dual|single says whether every apiserver
// advertises one address per family, so the kubernetes Service must be
// RequireDualStack, or one address, so it must be single-stack; without it the
// KEP-2438 spec accepts either shape but checks it whole.
package e2e
