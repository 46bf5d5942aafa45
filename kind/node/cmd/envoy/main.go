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

// Command envoy is netfork's stand-in for the Envoy image kind v0.33.0 runs as the load
// balancer of a cluster with several control planes (Envoy cannot be built offline). It takes
// the command line kind gives Envoy (-c /home/envoy/envoy.yaml), reads the file-based dynamic
// configuration kind writes (the LDS listener and the CDS cluster of apiservers), re-reads it
// when kind rewrites it, and proxies TCP round robin over the backends whose /healthz answers
// 200 over TLS, with the intervals and thresholds of kind's CDS template.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"os/signal"
	"syscall"
	"time"
)

func main() {
	config := flag.String("c", "/home/envoy/envoy.yaml", "bootstrap configuration (Envoy's -c)")
	flag.Parse()
	if err := run(*config); err != nil {
		fmt.Fprintf(os.Stderr, "envoy (netfork stand-in): %v\n", err)
		os.Exit(1)
	}
}

func run(bootstrapPath string) error {
	boot, err := readBootstrap(bootstrapPath)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	lb := newBalancer()
	var last string
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	log.Printf("netfork load balancer: watching %s and %s", boot.lds, boot.cds)
	for {
		cfg, err := readDynamic(boot)
		if err != nil {
			log.Printf("reading configuration: %v", err)
		} else if key := cfg.String(); key != last {
			if err := lb.apply(ctx, cfg); err != nil {
				log.Printf("applying configuration: %v", err)
			} else {
				last = key
				log.Printf("configuration: %s", key)
			}
		}
		select {
		case <-ctx.Done():
			lb.close()
			return nil
		case <-tick.C:
		}
	}
}
