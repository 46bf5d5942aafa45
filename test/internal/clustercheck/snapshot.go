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

package clustercheck

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"sort"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// Snapshot is what later checks compare against: the Services with their addresses
// and ports, and the kube-apiserver pods' restart counts, at one time.
type Snapshot struct {
	Time     time.Time        `json:"time"`
	Services []ServiceRecord  `json:"services"`
	Restarts map[string]int32 `json:"apiserverRestarts,omitempty"`
}

// ServiceRecord is one Service's identity and allocations.
type ServiceRecord struct {
	Namespace  string   `json:"namespace"`
	Name       string   `json:"name"`
	UID        string   `json:"uid"`
	ClusterIPs []string `json:"clusterIPs,omitempty"`
	NodePorts  []string `json:"nodePorts,omitempty"`
}

// key names a Service.
func (r ServiceRecord) key() string { return r.Namespace + "/" + r.Name }

// recordOf is a Service's record; addresses and ports sorted so records compare.
func recordOf(svc corev1.Service) ServiceRecord {
	r := ServiceRecord{Namespace: svc.Namespace, Name: svc.Name, UID: string(svc.UID),
		ClusterIPs: ServiceClusterIPs(svc), NodePorts: ServiceNodePorts(svc)}
	slices.Sort(r.NodePorts)
	return r
}

// newSnapshot records services (the kubernetes Service aside: its families may change
// legitimately) and the restart counts.
func newSnapshot(now time.Time, services []corev1.Service, restarts map[string]int32) *Snapshot {
	s := &Snapshot{Time: now, Restarts: restarts}
	for _, svc := range services {
		if svc.Namespace == "default" && svc.Name == "kubernetes" {
			continue
		}
		s.Services = append(s.Services, recordOf(svc))
	}
	sort.Slice(s.Services, func(i, j int) bool { return s.Services[i].key() < s.Services[j].key() })
	return s
}

// WriteSnapshot saves s as JSON.
func WriteSnapshot(path string, s *Snapshot) error {
	data, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(path, append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("writing snapshot %s: %w", path, err)
	}
	return nil
}

// ReadSnapshot loads a snapshot WriteSnapshot saved.
func ReadSnapshot(path string) (*Snapshot, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading snapshot: %w", err)
	}
	s := &Snapshot{}
	if err := json.Unmarshal(data, s); err != nil {
		return nil, fmt.Errorf("snapshot %s: %w", path, err)
	}
	return s, nil
}

// compareServices reports every Service of before that is gone, was recreated (another
// UID), or holds other ClusterIPs or NodePorts now; keep filters which ones must stay.
func compareServices(p *Problems, before *Snapshot, now *Snapshot, keep func(ServiceRecord) bool) (kept int) {
	current := map[string]ServiceRecord{}
	for _, r := range now.Services {
		current[r.key()] = r
	}
	for _, old := range before.Services {
		if !keep(old) {
			continue
		}
		cur, ok := current[old.key()]
		switch {
		case !ok:
			p.Addf("Service %s is gone (it held %v)", old.key(), old.ClusterIPs)
		case cur.UID != old.UID:
			p.Addf("Service %s was recreated (uid %s, was %s)", old.key(), cur.UID, old.UID)
		case !slices.Equal(cur.ClusterIPs, old.ClusterIPs):
			p.Addf("Service %s changed its ClusterIPs from %v to %v", old.key(), old.ClusterIPs, cur.ClusterIPs)
		case !slices.Equal(cur.NodePorts, old.NodePorts):
			p.Addf("Service %s changed its NodePorts from %v to %v", old.key(), old.NodePorts, cur.NodePorts)
		default:
			kept++
		}
	}
	return kept
}
