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

package main

import (
	"fmt"
	"time"

	"github.com/netfork/netfork/internal/proc"
)

// stopTimeout bounds an apiserver's graceful shutdown after SIGTERM.
const stopTimeout = 30 * time.Second

// apiserver is a kube-apiserver process running in a host's namespace.
type apiserver struct {
	host host
	*proc.Process
}

// startAPIServer runs binary in h's namespace through `ip netns exec`, which
// execs it, so the PID is the apiserver's own; proc gives it its own process
// group and SIGKILL if this command dies first.
func startAPIServer(ipPath, binary string, h host, args []string, logPath string) (*apiserver, error) {
	argv := append([]string{"netns", "exec", h.Netns, binary}, args...)
	p, err := proc.Start(proc.Spec{
		Name:      fmt.Sprintf("apiserver in %s", h.Netns),
		Path:      ipPath,
		Args:      argv,
		LogPath:   logPath,
		LogHeader: fmt.Sprintf("local-up-netns: %s %q", ipPath, argv),
	})
	if err != nil {
		return nil, err
	}
	return &apiserver{host: h, Process: p}, nil
}

// stopAPIServers stops every apiserver at once: SIGTERM, then SIGKILL after stopTimeout.
func stopAPIServers(servers []*apiserver) {
	procs := make([]*proc.Process, 0, len(servers))
	for _, a := range servers {
		procs = append(procs, a.Process)
	}
	proc.StopAll(procs, stopTimeout)
}
