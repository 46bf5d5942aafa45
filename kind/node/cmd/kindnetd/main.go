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

// Command kindnetd is netfork's stand-in for kind's kindnetd CNI daemon, which the module proxy
// does not serve at any version that builds. It reads the environment kind's manifest gives
// (HOST_IP, POD_SUBNET), finds its node by that address, writes the CNI configuration kind's
// kindnetd writes (ptp + host-local over the node's PodCIDRs, portmap) and routes every other
// node's PodCIDRs through that node. Unlike kind's it never masquerades: netfork's clusters
// must not reach beyond their own networks.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
)

// resync is how often every node is reconciled even without a change, which also puts back
// a route someone removed by hand.
const resync = 30 * time.Second

func main() {
	if err := run(); err != nil {
		fmt.Fprintf(os.Stderr, "kindnetd: %v\n", err)
		os.Exit(1)
	}
}

func run() error {
	hostIP := os.Getenv("HOST_IP")
	if hostIP == "" {
		return fmt.Errorf("HOST_IP is not set (kind's manifest sets it from status.hostIP)")
	}
	cfg, err := rest.InClusterConfig()
	if err != nil {
		return fmt.Errorf("in-cluster config: %w", err)
	}
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()

	r := &reconciler{hostIP: hostIP, cniPath: cniConfigPath}
	factory := informers.NewSharedInformerFactory(client, resync)
	nodes := factory.Core().V1().Nodes()
	queue := make(chan struct{}, 1)
	poke := func(any) {
		select {
		case queue <- struct{}{}:
		default:
		}
	}
	if _, err := nodes.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    poke,
		UpdateFunc: func(_, obj any) { poke(obj) },
		DeleteFunc: poke,
	}); err != nil {
		return err
	}
	factory.Start(ctx.Done())
	factory.WaitForCacheSync(ctx.Done())
	klog.Infof("kindnetd: watching nodes; this node is the one with address %s", hostIP)
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-queue:
		}
		list, err := nodes.Lister().List(everything())
		if err != nil {
			klog.Errorf("listing nodes: %v", err)
			continue
		}
		if err := r.reconcile(list); err != nil {
			klog.Errorf("reconcile: %v", err)
		}
	}
}
