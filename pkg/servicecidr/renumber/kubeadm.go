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

package renumber

import (
	"fmt"
	"net/netip"
	"regexp"
	"strings"
)

// configUpdate is one edit of a kubeadm ConfigMap value.
type configUpdate struct {
	ConfigRecord
	summary string
}

var (
	serviceSubnetLine = regexp.MustCompile(`(?m)^(\s*serviceSubnet:\s*["']?)([^"'\s#]+)`)
	clusterDNSLine    = regexp.MustCompile(`(?m)^(\s*)clusterDNS:\s*$`)
	listItemLine      = regexp.MustCompile(`^(\s*-\s*["']?)([^"'\s#]+)(.*)$`)
)

// configUpdates are the edits of kubeadm's ConfigMaps the renumber makes:
// ClusterConfiguration networking.serviceSubnet and kubelet's clusterDNS, each
// a change of the one value, everything else kept byte for byte. An edit
// already made (the value is the target's) is not listed.
func configUpdates(c *cluster, st *State, pl *Plan) []configUpdate {
	var out []configUpdate
	if c.kubeadm != nil {
		old := c.kubeadm.Data[kubeadmConfigKey]
		if m := serviceSubnetLine.FindStringSubmatch(old); m != nil && sameRanges(m[2], st.From) {
			to := strings.Join(st.To, ",")
			out = append(out, configUpdate{
				ConfigRecord: ConfigRecord{Name: kubeadmConfigName, Key: kubeadmConfigKey, Old: old, New: serviceSubnetLine.ReplaceAllString(old, "${1}"+to)},
				summary:      fmt.Sprintf("networking.serviceSubnet %s -> %s", m[2], to),
			})
		}
	}
	if c.kubelet != nil && c.dnsService != "" {
		dns := map[string]string{}
		for _, ps := range pl.Services {
			if ps.Namespace+"/"+ps.Name == c.dnsService && (ps.Disposition == Move || ps.Disposition == Moved) {
				for i := range ps.OldClusterIPs {
					dns[canonical(ps.OldClusterIPs[i])] = ps.NewClusterIPs[i]
				}
			}
		}
		old := c.kubelet.Data[kubeletConfigKey]
		if updated, changes := replaceClusterDNS(old, dns); len(changes) > 0 {
			out = append(out, configUpdate{
				ConfigRecord: ConfigRecord{Name: kubeletConfigName, Key: kubeletConfigKey, Old: old, New: updated},
				summary:      "clusterDNS " + strings.Join(changes, ", "),
			})
		}
	}
	return out
}

// replaceClusterDNS replaces the addresses of the clusterDNS list that dns maps.
func replaceClusterDNS(text string, dns map[string]string) (string, []string) {
	loc := clusterDNSLine.FindStringIndex(text)
	if loc == nil || len(dns) == 0 {
		return text, nil
	}
	head, rest := text[:loc[1]], text[loc[1]:]
	lines := strings.SplitAfter(rest, "\n")
	var changes []string
	for i, line := range lines {
		if i == 0 && strings.TrimSpace(line) == "" {
			continue // the end of the clusterDNS: line
		}
		m := listItemLine.FindStringSubmatch(strings.TrimRight(line, "\n"))
		if m == nil {
			break
		}
		if n, ok := dns[canonical(m[2])]; ok {
			lines[i] = m[1] + n + m[3] + line[len(strings.TrimRight(line, "\n")):]
			changes = append(changes, m[2]+" -> "+n)
		}
	}
	return head + strings.Join(lines, ""), changes
}

func canonical(ip string) string {
	if a, err := netip.ParseAddr(ip); err == nil {
		return a.String()
	}
	return ip
}

func sameRanges(s string, want []string) bool {
	r, err := ParseRanges(s)
	return err == nil && r.String() == strings.Join(want, ",")
}
