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

// Package renumber moves a live cluster from its Service range to another
// (KEP-1880, "Default ServiceCIDR can be migrated"), for the kubectl plugin
// kubectl-servicecidr. It is not upstream code and stands in for none.
//
// A ClusterIP cannot be edited, but a Service may change type: a holder
// Service takes the new addresses a kube-proxy sync ahead, each Service is
// flipped to ExternalName (a CNAME to its holder, so its name keeps resolving
// to served addresses), a bridge Service takes the old address with the same
// ports, the CNAME turns to the bridge, the holder is deleted and the Service
// is flipped back to its type with its addresses in the target range (the
// same host offset where free). The Service keeps its UID,
// metadata, EndpointSlices and the rest of its spec; the bridges keep
// old-address clients working until Finish removes them. Bridges and holders
// have no selector: the apiservers' service-bridge controller
// (github.com/netfork/netfork/pkg/controlplane/controller/servicebridge) keeps
// each a copy of the moved Service's EndpointSlices, which the renumber writes
// itself just before it frees the old address, so that kube-proxy sees the
// bridge with its endpoints.
//
// The `kubernetes` Service is the apiservers', who recreate it at their range's
// first address and never move it: before the cut-over the renumber deletes
// it and at once creates its bridge at the old address, so pods holding the
// old KUBERNETES_SERVICE_HOST keep reaching the apiservers.
//
// Every change is recorded first in one ConfigMap (kube-system/
// servicecidr-renumber), and every step is derived again from the cluster and
// that record, so a run killed at any point continues when run again.
package renumber
