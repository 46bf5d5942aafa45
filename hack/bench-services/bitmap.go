package main

import (
	"github.com/netfork/netfork/internal/clustercheck"
)

// clusterIPBitmapKey and nodePortBitmapKey are where the legacy bitmaps live below the
// etcd prefix; the benchmark's range is IPv4 only, so it has no secondary bitmap.
const (
	clusterIPBitmapKey = clustercheck.ClusterIPBitmapKey
	nodePortBitmapKey  = clustercheck.NodePortBitmapKey
)
