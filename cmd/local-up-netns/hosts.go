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
	"encoding/json"
	"fmt"
	"net/netip"
	"os"
)

// hostsFile is hosts.json, what test/e2e's netns specs read about the cluster.
type hostsFile struct {
	// Port is every apiserver's secure port.
	Port int `json:"port"`
	// CAFile verifies every apiserver's serving certificate.
	CAFile string `json:"caFile"`
	// ServiceIPs are the kubernetes Service's ClusterIPs, primary family first.
	ServiceIPs []string     `json:"serviceIPs"`
	Hosts      []hostRecord `json:"hosts"`
}

// hostRecord is one host and its apiserver.
type hostRecord struct {
	Netns string `json:"netns"`
	IPv4  string `json:"ipv4"`
	IPv6  string `json:"ipv6"`
	PID   int    `json:"pid"`
	Log   string `json:"log"`
}

// writeHostsFile writes hosts.json at path.
func writeHostsFile(path string, port int, caFile string, serviceIPs []netip.Addr, servers []*apiserver) error {
	f := hostsFile{Port: port, CAFile: caFile}
	for _, ip := range serviceIPs {
		f.ServiceIPs = append(f.ServiceIPs, ip.String())
	}
	for _, a := range servers {
		f.Hosts = append(f.Hosts, hostRecord{
			Netns: a.host.Netns, IPv4: a.host.IPv4.String(), IPv6: a.host.IPv6.String(),
			PID: a.Pid(), Log: a.LogPath(),
		})
	}
	data, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding %s: %w", path, err)
	}
	if err := os.WriteFile(path, append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}
