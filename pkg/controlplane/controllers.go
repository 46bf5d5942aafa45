package controlplane

import (
	"fmt"

	genericapiserver "k8s.io/apiserver/pkg/server"
	"k8s.io/client-go/kubernetes"
	"k8s.io/kubernetes/pkg/controlplane/controller/defaultservicecidr"
	"k8s.io/kubernetes/pkg/controlplane/controller/kubernetesservice"

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
	_, publicServicePort, err := c.ControlPlane.Generic.SecureServing.HostPort()
	if err != nil {
		return fmt.Errorf("failed to get listener address: %w", err)
	}
	publicIP := c.ControlPlane.Generic.PublicAddress
	if err := c.EndpointReconcilerConfig.Reconciler.ValidateIP(publicIP); err != nil {
		return fmt.Errorf("cannot use --advertise-address %s with the endpoint reconciler: %w", publicIP, err)
	}

	ctrl := kubernetesservice.New(kubernetesservice.Config{
		PublicIP:                  publicIP,
		EndpointReconciler:        c.EndpointReconcilerConfig.Reconciler,
		EndpointInterval:          c.EndpointReconcilerConfig.Interval,
		ServiceIP:                 c.APIServerServiceIP,
		ServicePort:               c.APIServerServicePort,
		PublicServicePort:         publicServicePort,
		KubernetesServiceNodePort: c.KubernetesServiceNodePort,
	}, client, c.ControlPlane.Extra.VersionedInformers.Core().V1().Services())

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
}

// addDefaultServiceCIDRController is the one place the controller of the
// `kubernetes` ServiceCIDR is built; it runs only with MultiCIDRServiceAllocator.
func (c CompletedConfig) addDefaultServiceCIDRController(server *genericapiserver.GenericAPIServer, client kubernetes.Interface) error {
	if !features.Enabled(features.MultiCIDRServiceAllocator) {
		return nil
	}
	return server.AddPostStartHook(DefaultServiceCIDRHookName, func(hookContext genericapiserver.PostStartHookContext) error {
		ctrl := defaultservicecidr.NewController(c.ServiceIPRange, c.SecondaryServiceIPRange, client)
		// The default ServiceCIDR must exist before the apiserver is ready, or no
		// Service could get a ClusterIP.
		ctrl.Start(hookContext)
		return nil
	})
}
