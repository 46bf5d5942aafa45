package app

import (
	_ "unsafe" // for go:linkname

	"k8s.io/apimachinery/pkg/runtime/schema"
	controlplaneapiserver "k8s.io/kubernetes/pkg/controlplane/apiserver"
)

// apiVersionPriorities is upstream's table of APIService priorities, which
// upstream keeps unexported in its command package. netfork links to it rather
// than copying it: the aggregator writes these priorities into the APIService
// objects in etcd, so a netfork and an upstream apiserver sharing a cluster must
// agree on them exactly, and a rebase picks up upstream's changes by itself.
//
//go:linkname apiVersionPriorities k8s.io/kubernetes/cmd/kube-apiserver/app.apiVersionPriorities
var apiVersionPriorities map[schema.GroupVersion]controlplaneapiserver.APIServicePriority
