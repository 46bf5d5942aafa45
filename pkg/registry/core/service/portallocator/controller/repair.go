package controller

import (
	"time"

	utilnet "k8s.io/apimachinery/pkg/util/net"
	"k8s.io/client-go/kubernetes"
	"k8s.io/kubernetes/pkg/registry/core/rangeallocation"
	upstreamportcontroller "k8s.io/kubernetes/pkg/registry/core/service/portallocator/controller"
)

// Runner runs a repair loop until stopCh closes, calling onFirstSuccess once
// after its first complete pass.
type Runner interface {
	RunUntil(onFirstSuccess func(), stopCh chan struct{})
}

// NewRepair returns the NodePort repair loop over bitmap.
func NewRepair(interval time.Duration, client kubernetes.Interface, portRange utilnet.PortRange, bitmap rangeallocation.RangeRegistry) Runner {
	return upstreamportcontroller.NewRepair(interval, client.CoreV1(), client.EventsV1(), portRange, bitmap)
}
