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

// Package apiserverranges publishes which Service ClusterIP ranges an
// apiserver serves, and reads back what every live apiserver publishes.
//
// No upstream API shows an apiserver's --service-cluster-ip-range, so a tool
// cannot tell whether a change of it has reached every apiserver. A netfork
// apiserver writes the flag's value, as it parsed it (primary first,
// comma-separated), into the annotation Annotation of its identity Lease
// (kube-system/<apiserver ID>, label apiserver.kubernetes.io/identity=kube-apiserver),
// which upstream's lease controller keeps and renews. Check lists the live
// identity Leases and sorts them by what they publish; an apiserver that
// publishes nothing (upstream's, in skew) counts as not rolled.
package apiserverranges
