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

// Package dualstack lets the generic apiserver bind and advertise one address
// per IP family (KEP-2438, which upstream never implemented). It stands in for
// three pieces of k8s.io/apiserver/pkg/server/options at v0.37.1:
//
//   - the --bind-address flag of SecureServingOptions.AddFlags and the
//     --advertise-address flag of ServerRunOptions.AddUniversalFlags, both
//     pflag IPVars that hold one address: AddressFlag replaces their Value, keeps
//     the primary address in upstream's field so every upstream reader still
//     works, and holds the pair until the DualStackAPIServer gate is known;
//   - CreateListener, which SecureServingOptions.ApplyTo calls to bind one
//     address: Listen binds one socket per family and merges them into one
//     net.Listener for SecureServingOptions.Listener, so both families go through
//     upstream's TLS, authentication and graceful shutdown;
//   - ServerRunOptions.DefaultAdvertiseAddress, which resolves one host address:
//     ResolveForFamily asks upstream's utilnet.ResolveBindAddress once per family.
//
// k8s.io/utils/net.MultiListen merges listeners too, but it takes one network
// for all addresses (0.0.0.0 and :: on one port need tcp4 and tcp6), no socket
// options (--permit-port-sharing, --permit-address-sharing), no shared port for
// port 0, and it drops a family for good on a transient accept error.
package dualstack
