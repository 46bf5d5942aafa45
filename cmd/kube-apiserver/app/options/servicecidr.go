package options

import (
	"github.com/spf13/pflag"

	"github.com/netfork/netfork/pkg/controlplane/controller/servicecidrs"
)

// EnableServiceCIDRControllerFlag turns netfork's ServiceCIDR deletion
// controller on or off in this apiserver.
const EnableServiceCIDRControllerFlag = "enable-servicecidr-controller"

// addServiceCIDRControllerFlag registers the flag beside upstream's
// --service-cluster-ip-range. A bool needs no validation of netfork's: pflag
// already rejects anything but a boolean, naming the flag.
func (s *ServerRunOptions) addServiceCIDRControllerFlag(fs *pflag.FlagSet) {
	fs.BoolVar(&s.EnableServiceCIDRController, EnableServiceCIDRControllerFlag, s.EnableServiceCIDRController, ""+
		"Run netfork's ServiceCIDR deletion controller, which keeps the finalizer "+servicecidrs.Finalizer+" on "+
		"ServiceCIDRs and removes it once no IPAddress depends on a ServiceCIDR being deleted. One apiserver runs it at a "+
		"time, elected with the Lease "+servicecidrs.LeaseNamespace+"/"+servicecidrs.LeaseName+". Set it to false where "+
		"kube-controller-manager runs its service-cidr-controller. Only with the MultiCIDRServiceAllocator feature gate.")
}
