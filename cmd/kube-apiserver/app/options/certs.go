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

package options

import (
	"fmt"
	"net"
	"strings"

	netutils "k8s.io/utils/net"

	controlplaneoptions "k8s.io/kubernetes/pkg/controlplane/apiserver/options"
)

// serviceDNSNames are the names upstream's Complete puts in a self-signed serving certificate.
var serviceDNSNames = []string{"kubernetes.default.svc", "kubernetes.default", "kubernetes"}

// maybeSelfSignedCertsForBothFamilies generates the self-signed serving
// certificate before upstream's Complete would, when the apiserver serves or
// advertises both families, so the certificate also names the secondary
// family's addresses and service IP; upstream's call then finds it made.
func (s *ServerRunOptions) maybeSelfSignedCertsForBothFamilies(plan dualStackPlan) error {
	if len(plan.bind) < 2 && len(plan.advertise) < 2 {
		return nil
	}
	if err := s.GenericServerRunOptions.DefaultAdvertiseAddress(s.SecureServing.SecureServingOptions); err != nil {
		return err
	}
	ips := append(serviceIPs(s.ServiceClusterIPRanges), plan.advertise...)
	for _, ip := range plan.bind[min(1, len(plan.bind)):] {
		if !ip.IsUnspecified() {
			ips = append(ips, ip)
		}
	}
	publicAddress := s.GenericServerRunOptions.AdvertiseAddress.String()
	if err := s.SecureServing.MaybeDefaultWithSelfSignedCerts(publicAddress, serviceDNSNames, ips); err != nil {
		return fmt.Errorf("error creating self-signed certificates: %w", err)
	}
	return nil
}

// serviceIPs are the kubernetes Service's IPs, the first of each service range,
// found by upstream's ServiceIPRange; ranges that do not parse are left to upstream's Complete.
func serviceIPs(ranges string) []net.IP {
	cidrs, err := netutils.ParseCIDRs(strings.Split(ranges, ","))
	if err != nil {
		return nil
	}
	var ips []net.IP
	for _, c := range cidrs {
		if _, ip, err := controlplaneoptions.ServiceIPRange(*c); err == nil {
			ips = append(ips, ip)
		}
	}
	return ips
}
