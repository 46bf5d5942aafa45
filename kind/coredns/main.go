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

// Command coredns is CoreDNS with only the plugins kubeadm's Corefile uses (plus log, bind and
// hosts, which upstream's DNS e2e specs configure in the /coredns agnhost carries), so the image
// kubeadm deploys builds from the module proxy in minutes instead of compiling every cloud DNS
// backend CoreDNS ships.
package main

import (
	"github.com/coredns/coredns/core/dnsserver"
	"github.com/coredns/coredns/coremain"

	_ "github.com/coredns/coredns/plugin/bind"
	_ "github.com/coredns/coredns/plugin/cache"
	_ "github.com/coredns/coredns/plugin/errors"
	_ "github.com/coredns/coredns/plugin/forward"
	_ "github.com/coredns/coredns/plugin/health"
	_ "github.com/coredns/coredns/plugin/hosts"
	_ "github.com/coredns/coredns/plugin/kubernetes"
	_ "github.com/coredns/coredns/plugin/loadbalance"
	_ "github.com/coredns/coredns/plugin/log"
	_ "github.com/coredns/coredns/plugin/loop"
	_ "github.com/coredns/coredns/plugin/metrics"
	_ "github.com/coredns/coredns/plugin/ready"
	_ "github.com/coredns/coredns/plugin/reload"
)

// directives lists the compiled-in plugins in the order of CoreDNS's plugin.cfg, which is the
// order a query passes through them whatever the Corefile's order.
var directives = []string{
	"reload", "bind", "ready", "health", "prometheus", "errors", "log",
	"loadbalance", "cache", "hosts", "kubernetes", "loop", "forward",
}

func main() {
	dnsserver.Directives = directives
	coremain.Run()
}
