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

package kubernetesservice

import (
	"net"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	netutils "k8s.io/utils/net"
	"k8s.io/utils/ptr"

	"github.com/netfork/netfork/pkg/controlplane/reconcilers"
)

// newService is the Service upstream's controller creates, in the given shape.
func (c *Controller) newService(dual bool) *corev1.Service {
	port := corev1.ServicePort{
		Name:       portName,
		Protocol:   corev1.ProtocolTCP,
		Port:       int32(c.ServicePort),
		TargetPort: intstr.FromInt32(int32(c.PublicServicePort)),
	}
	serviceType := corev1.ServiceTypeClusterIP
	if c.KubernetesServiceNodePort > 0 {
		port.NodePort = int32(c.KubernetesServiceNodePort)
		serviceType = corev1.ServiceTypeNodePort
	}
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{
			Name:      ServiceName,
			Namespace: metav1.NamespaceDefault,
			Labels:    map[string]string{"provider": "kubernetes", "component": "apiserver"},
		},
		Spec: corev1.ServiceSpec{
			Ports:           []corev1.ServicePort{port},
			ClusterIP:       c.ServiceIP.String(),
			SessionAffinity: corev1.ServiceAffinityNone,
			Type:            serviceType,
		},
	}
	setShape(svc, dual, c.SecondaryServiceIP)
	return svc
}

// reshaped returns a copy of svc in the given shape, or nil when it has it
// already. A dual-stack Service keeps whatever secondary address it holds,
// and a headless one is left alone.
func reshaped(svc *corev1.Service, dual bool, secondaryIP net.IP) *corev1.Service {
	if svc.Spec.ClusterIP == corev1.ClusterIPNone || svc.Spec.ClusterIP == "" {
		return nil
	}
	policy := svc.Spec.IPFamilyPolicy
	ips := len(svc.Spec.ClusterIPs)
	switch {
	case dual && policy != nil && *policy == corev1.IPFamilyPolicyRequireDualStack && ips == 2:
		return nil
	case !dual && policy != nil && *policy == corev1.IPFamilyPolicySingleStack && ips <= 1:
		return nil
	}
	updated := svc.DeepCopy()
	setShape(updated, dual, secondaryIP)
	return updated
}

// setShape sets the family policy, ClusterIPs and families; the primary ClusterIP never changes.
func setShape(svc *corev1.Service, dual bool, secondaryIP net.IP) {
	spec := &svc.Spec
	if len(spec.ClusterIPs) == 0 {
		spec.ClusterIPs = []string{spec.ClusterIP}
	}
	if len(spec.IPFamilies) == 0 {
		spec.IPFamilies = []corev1.IPFamily{reconcilers.IPFamily(netutils.ParseIPSloppy(spec.ClusterIPs[0]))}
	}
	if !dual {
		spec.IPFamilyPolicy = ptr.To(corev1.IPFamilyPolicySingleStack)
		spec.ClusterIPs, spec.IPFamilies = spec.ClusterIPs[:1], spec.IPFamilies[:1]
		return
	}
	spec.IPFamilyPolicy = ptr.To(corev1.IPFamilyPolicyRequireDualStack)
	if len(spec.ClusterIPs) < 2 {
		spec.ClusterIPs = append(spec.ClusterIPs, secondaryIP.String())
	}
	if len(spec.IPFamilies) < 2 {
		spec.IPFamilies = append(spec.IPFamilies, reconcilers.IPFamily(secondaryIP))
	}
}
