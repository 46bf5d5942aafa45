package controlplane

import (
	"fmt"
	"net"

	genericapiserver "k8s.io/apiserver/pkg/server"
	"k8s.io/client-go/kubernetes"

	netforkkubernetesservice "github.com/netfork/netfork/pkg/controlplane/controller/kubernetesservice"
	netforkreconcilers "github.com/netfork/netfork/pkg/controlplane/reconcilers"
)

// addDualStackKubernetesServiceController starts netfork's kubernetes-Service
// controller, which goes with netfork's lease reconciler (DualStackAPIServer).
func (c CompletedConfig) addDualStackKubernetesServiceController(server *genericapiserver.GenericAPIServer, client kubernetes.Interface, r netforkreconcilers.Reconciler, publicServicePort int) error {
	addresses := c.DualStack.AdvertiseAddresses
	if len(addresses) == 0 {
		addresses = []net.IP{c.Upstream.ControlPlane.Generic.PublicAddress}
	}
	for _, ip := range addresses {
		if err := r.ValidateIP(ip); err != nil {
			return fmt.Errorf("cannot use --advertise-address %s with the endpoint reconciler: %w", ip, err)
		}
	}
	ctrl, err := netforkkubernetesservice.New(netforkkubernetesservice.Config{
		Reconciler:                r,
		Interval:                  c.Upstream.EndpointReconcilerConfig.Interval,
		ServiceIP:                 c.Upstream.APIServerServiceIP,
		SecondaryServiceIP:        c.Upstream.SecondaryAPIServerServiceIP,
		ServicePort:               c.Upstream.APIServerServicePort,
		PublicServicePort:         publicServicePort,
		KubernetesServiceNodePort: c.Upstream.KubernetesServiceNodePort,
		ShutdownDelay:             c.Upstream.ControlPlane.Generic.ShutdownDelayDuration,
	}, client, c.Upstream.ControlPlane.Extra.VersionedInformers.Core().V1().Services())
	if err != nil {
		return err
	}
	return addKubernetesServiceHooks(server, ctrl)
}
