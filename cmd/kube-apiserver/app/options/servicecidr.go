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
