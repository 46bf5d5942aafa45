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

package controlplane

import (
	"context"
	"fmt"
	"sync"

	apiserverfeatures "k8s.io/apiserver/pkg/features"
	genericapiserver "k8s.io/apiserver/pkg/server"
	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/controlplane/controller/kubernetesservice"

	"github.com/netfork/netfork/pkg/controlplane/apiserverranges"
	"github.com/netfork/netfork/pkg/controlplane/controller/defaultservicecidr"
	"github.com/netfork/netfork/pkg/controlplane/controller/servicebridge"
	"github.com/netfork/netfork/pkg/controlplane/controller/servicecidrs"
	"github.com/netfork/netfork/pkg/controlplane/controller/servicecidrusage"
	netforkreconcilers "github.com/netfork/netfork/pkg/controlplane/reconcilers"
	"github.com/netfork/netfork/pkg/features"
)

// Hook names are upstream's, so /readyz and /livez list the same checks.
const (
	KubernetesServiceHookName     = "bootstrap-controller"
	KubernetesServiceStopHookName = "stop-kubernetes-service-controller"
	DefaultServiceCIDRHookName    = "start-kubernetes-service-cidr-controller"
)

// addKubernetesServiceController is the one place the controller of the
// `kubernetes` Service and its endpoints is built and started.
func (c CompletedConfig) addKubernetesServiceController(server *genericapiserver.GenericAPIServer, client kubernetes.Interface) error {
	// upstream-shim begin: k8s.io/kubernetes/pkg/controlplane/instance.go CompletedConfig.New
	_, publicServicePort, err := c.Upstream.ControlPlane.Generic.SecureServing.HostPort()
	if err != nil {
		return fmt.Errorf("failed to get listener address: %w", err)
	}
	// upstream-shim end
	if r, ok := c.Upstream.EndpointReconcilerConfig.Reconciler.(netforkreconcilers.Reconciler); ok {
		return c.addDualStackKubernetesServiceController(server, client, r, publicServicePort)
	}
	// upstream-shim begin: k8s.io/kubernetes/pkg/controlplane/instance.go CompletedConfig.New
	publicIP := c.Upstream.ControlPlane.Generic.PublicAddress
	if err := c.Upstream.EndpointReconcilerConfig.Reconciler.ValidateIP(publicIP); err != nil {
		return fmt.Errorf("cannot use --advertise-address %s with the endpoint reconciler: %w", publicIP, err)
	}

	ctrl := kubernetesservice.New(kubernetesservice.Config{
		PublicIP:                  publicIP,
		EndpointReconciler:        c.Upstream.EndpointReconcilerConfig.Reconciler,
		EndpointInterval:          c.Upstream.EndpointReconcilerConfig.Interval,
		ServiceIP:                 c.Upstream.APIServerServiceIP,
		ServicePort:               c.Upstream.APIServerServicePort,
		PublicServicePort:         publicServicePort,
		KubernetesServiceNodePort: c.Upstream.KubernetesServiceNodePort,
	}, client, c.Upstream.ControlPlane.Extra.VersionedInformers.Core().V1().Services())
	// upstream-shim end
	return addKubernetesServiceHooks(server, ctrl)
}

// kubernetesServiceController is what upstream's and netfork's controllers of
// the kubernetes Service offer the generic apiserver.
type kubernetesServiceController interface {
	Start(stopCh <-chan struct{})
	Stop()
}

// addKubernetesServiceHooks starts ctrl after the apiserver starts and stops it
// when shutdown starts, under upstream's hook names.
func addKubernetesServiceHooks(server *genericapiserver.GenericAPIServer, ctrl kubernetesServiceController) error {
	// upstream-shim begin: k8s.io/kubernetes/pkg/controlplane/instance.go CompletedConfig.New
	if err := server.AddPostStartHook(KubernetesServiceHookName, func(hookContext genericapiserver.PostStartHookContext) error {
		ctrl.Start(hookContext.Done())
		return nil
	}); err != nil {
		return err
	}
	return server.AddPreShutdownHook(KubernetesServiceStopHookName, func() error {
		ctrl.Stop()
		return nil
	})
	// upstream-shim end
}

// addDefaultServiceCIDRController is the one place the controller of the
// `kubernetes` ServiceCIDR is built. Every apiserver runs one, only with
// MultiCIDRServiceAllocator, and is not ready before the ServiceCIDR exists.
func (c CompletedConfig) addDefaultServiceCIDRController(server *genericapiserver.GenericAPIServer, client kubernetes.Interface) error {
	if !c.FeatureGate.Enabled(features.MultiCIDRServiceAllocator) {
		return nil
	}
	ctrl := defaultservicecidr.New(c.Upstream.ServiceIPRange, c.Upstream.SecondaryServiceIPRange, client)
	return server.AddPostStartHook(DefaultServiceCIDRHookName, func(hookContext genericapiserver.PostStartHookContext) error {
		// The default ServiceCIDR must exist before the apiserver is ready, or no
		// Service could get a ClusterIP.
		ctrl.Start(hookContext)
		return nil
	})
}

// ServiceCIDRControllerHookName is netfork's: upstream runs the ServiceCIDR
// deletion controller in kube-controller-manager. ServiceCIDRUsageHookName
// takes its place when the deletion controller is off (the usage and
// service-bridge controllers still run).
const (
	ServiceCIDRControllerHookName = "start-service-cidr-deletion-controller"
	ServiceCIDRUsageHookName      = "start-service-cidr-usage-controller"
)

// addServiceCIDRController is the one place netfork's ServiceCIDR deletion
// and usage controllers and the service-bridge controller are built. One
// apiserver at a time runs them, elected on a Lease, only with
// MultiCIDRServiceAllocator; the deletion controller unless
// --enable-servicecidr-controller=false, the usage controller always, as
// kube-controller-manager has none, and the bridge controller always, with
// either kubernetes-Service controller (DualStackAPIServer on or off).
func (c CompletedConfig) addServiceCIDRController(server *genericapiserver.GenericAPIServer, client kubernetes.Interface) error {
	if !c.FeatureGate.Enabled(features.MultiCIDRServiceAllocator) {
		return nil
	}
	informers := c.Upstream.ControlPlane.VersionedInformers
	cidrs, ips := informers.Networking().V1().ServiceCIDRs(), c.ipAddresses
	services, slices := informers.Core().V1().Services(), informers.Discovery().V1().EndpointSlices()
	if ips == nil {
		return fmt.Errorf("the ServiceCIDR controllers have no IPAddress index: StorageProviders builds it")
	}
	// ask for the informers now, so that the factory starts them with the others
	cidrs.Informer()
	services.Informer()
	slices.Informer()
	var opts []servicecidrs.Option
	if d := c.ServiceCIDRController.DeletionGracePeriod; d > 0 {
		opts = append(opts, servicecidrs.WithDeletionGracePeriod(d))
	}
	election := &servicecidrs.LeaderElection{Identity: c.Upstream.ControlPlane.Generic.APIServerID}
	deletion, usage := !c.ServiceCIDRController.Disabled, c.clusterIPUsage != nil
	hook := ServiceCIDRControllerHookName
	if !deletion {
		hook = ServiceCIDRUsageHookName
	}

	return server.AddPostStartHook(hook, func(hookContext genericapiserver.PostStartHookContext) error {
		// The core storage's hook starts the index too; whichever runs first does.
		ips.Start(hookContext)
		go func() {
			logger := klog.FromContext(hookContext)
			err := servicecidrs.RunLeading(hookContext, client, election, func(ctx context.Context) {
				var wg sync.WaitGroup
				if usage {
					if ctrl, err := servicecidrusage.New(client, cidrs, ips, c.clusterIPUsage); err != nil {
						logger.Error(err, "Building the ServiceCIDR usage controller")
					} else {
						wg.Go(func() { ctrl.Run(ctx) })
					}
				}
				if deletion {
					if ctrl, err := servicecidrs.New(client, cidrs, ips, opts...); err != nil {
						logger.Error(err, "Building the ServiceCIDR deletion controller")
					} else {
						wg.Go(func() { ctrl.Run(ctx, 1) })
					}
				}
				if ctrl, err := servicebridge.New(client, services, slices); err != nil {
					logger.Error(err, "Building the service-bridge controller")
				} else {
					wg.Go(func() { ctrl.Run(ctx) })
				}
				wg.Wait()
			})
			if err != nil {
				logger.Error(err, "Running the ServiceCIDR controllers")
			}
		}()
		return nil
	})
}

// ServiceRangesHookName publishes the apiserver's Service ClusterIP ranges.
const ServiceRangesHookName = "netfork-publish-service-cluster-ip-range"

// addServiceRangesPublisher writes --service-cluster-ip-range onto this
// apiserver's identity Lease, which upstream's lease controller maintains
// with APIServerIdentity (see package apiserverranges).
func (c CompletedConfig) addServiceRangesPublisher(server *genericapiserver.GenericAPIServer, client kubernetes.Interface) error {
	if !c.FeatureGate.Enabled(apiserverfeatures.APIServerIdentity) {
		return nil
	}
	id := c.Upstream.ControlPlane.Generic.APIServerID
	value := apiserverranges.Format(c.Upstream.ServiceIPRange, c.Upstream.SecondaryServiceIPRange)
	return server.AddPostStartHook(ServiceRangesHookName, func(hookContext genericapiserver.PostStartHookContext) error {
		go apiserverranges.Publish(hookContext, client, id, value)
		return nil
	})
}
