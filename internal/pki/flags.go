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

package pki

// ServiceAccountIssuer is the issuer local control planes sign service-account tokens as.
const ServiceAccountIssuer = "https://kubernetes.default.svc.cluster.local"

// APIServerFlags are the kube-apiserver flags that point it at these files:
// client CA, serving pair and service-account keys, so every tool that starts
// an apiserver on this PKI (local-up, the test framework, the benchmark) passes
// the same ones.
func (p Paths) APIServerFlags() []string {
	return []string{
		"--client-ca-file=" + p.CACert,
		"--tls-cert-file=" + p.ServingCert,
		"--tls-private-key-file=" + p.ServingKey,
		"--service-account-key-file=" + p.ServiceAccountPublicKey,
		"--service-account-signing-key-file=" + p.ServiceAccountKey,
		"--service-account-issuer=" + ServiceAccountIssuer,
	}
}
