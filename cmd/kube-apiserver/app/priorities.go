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
