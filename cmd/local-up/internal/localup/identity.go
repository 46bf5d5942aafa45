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

package localup

import (
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/netfork/netfork/internal/etcd"
)

// identity is local-up.json: what must stay the same for a restart to find its cluster.
type identity struct {
	// ClusterID names this local cluster; it is also etcd's initial-cluster-token, so two
	// local clusters never share an etcd cluster ID.
	ClusterID string `json:"clusterID"`
	// Etcd is recorded once etcd has started for the first time.
	Etcd *etcdIdentity `json:"etcd,omitempty"`
}

// etcdIdentity pins the etcd member local-up created and the ports apiservers reach it on.
type etcdIdentity struct {
	ClusterID  string `json:"clusterID"`
	ClientPort int    `json:"clientPort"`
	PeerPort   int    `json:"peerPort"`
}

// newIdentity returns the identity of a cluster about to be created.
func newIdentity() *identity {
	return &identity{ClusterID: rand.Text()}
}

// readIdentity loads local-up.json.
func readIdentity(path string) (*identity, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	id := &identity{}
	if err := json.Unmarshal(data, id); err != nil {
		return nil, err
	}
	if id.ClusterID == "" {
		return nil, errors.New("no clusterID")
	}
	return id, nil
}

// writeIdentity records id in local-up.json.
func writeIdentity(path string, id *identity) error {
	data, err := json.MarshalIndent(id, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(path, append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// checkDataDir returns the identity of the cluster in l.dataDir, nil for a dir that does not
// exist or is empty, or an error when the dir holds something that is not this cluster;
// it only reads.
func checkDataDir(l layout) (*identity, error) {
	names, err := dirEntries(l.dataDir)
	if err != nil || len(names) == 0 {
		return nil, err
	}
	id, err := readIdentity(l.identity)
	if errors.Is(err, fs.ErrNotExist) {
		if foreign := foreignEntry(l, names); foreign != "" {
			return nil, fmt.Errorf("data dir %s belongs to another cluster or program (it has no local-up.json and holds %q): use another --data-dir", l.dataDir, foreign)
		}
		return nil, anotherCluster(l, "it has no local-up.json")
	}
	if err != nil {
		return nil, anotherCluster(l, fmt.Sprintf("unreadable local-up.json: %v", err))
	}
	etcdID, err := etcd.ClusterID(l.etcdDir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if id.Etcd != nil {
			return nil, anotherCluster(l, fmt.Sprintf("local-up.json records etcd cluster %s but %s holds no etcd data", id.Etcd.ClusterID, l.etcdDir))
		}
	case err != nil:
		return nil, anotherCluster(l, fmt.Sprintf("unreadable etcd data: %v", err))
	case id.Etcd != nil && id.Etcd.ClusterID != etcdID:
		return nil, anotherCluster(l, fmt.Sprintf("its etcd data is cluster %s, local-up.json records %s", etcdID, id.Etcd.ClusterID))
	}
	return id, nil
}

// anotherCluster is the error for a data dir local-up may not reuse.
func anotherCluster(l layout, why string) error {
	return fmt.Errorf("data dir %s belongs to another cluster (%s): use --clean or another --data-dir", l.dataDir, why)
}

// checkCleanable refuses --clean on a dir holding anything local-up did not create, so a
// mistyped --data-dir cannot wipe unrelated files.
func checkCleanable(l layout) error {
	names, err := dirEntries(l.dataDir)
	if err != nil {
		return err
	}
	if foreign := foreignEntry(l, names); foreign != "" {
		return fmt.Errorf("--clean refuses to wipe data dir %s: it holds %q, which local-up did not create: use another --data-dir", l.dataDir, foreign)
	}
	return nil
}

// foreignEntry returns the first of names local-up would not have created, or "".
func foreignEntry(l layout, names []string) string {
	ours := l.entries()
	for _, name := range names {
		if !slices.Contains(ours, name) {
			return name
		}
	}
	return ""
}

// clean removes what local-up created in the data dir, leaving the dir itself.
func clean(l layout) error {
	for _, name := range l.entries() {
		if err := os.RemoveAll(filepath.Join(l.dataDir, name)); err != nil {
			return fmt.Errorf("--clean: %w", err)
		}
	}
	return nil
}

// dirEntries lists dir's entries; a missing dir has none, a file in its place is an error.
func dirEntries(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("--data-dir %s: %w", dir, err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names, nil
}
