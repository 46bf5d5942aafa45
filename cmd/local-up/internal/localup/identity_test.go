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
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/netfork/netfork/internal/etcd"
)

// startEtcdIn creates etcd data under l.etcdDir and returns its cluster ID.
func startEtcdIn(t *testing.T, l layout, token string) string {
	t.Helper()
	s, err := etcd.Start(context.Background(), etcd.Config{DataDir: l.etcdDir, ClusterToken: token, LogFile: os.DevNull, UnsafeNoFsync: true})
	if err != nil {
		t.Fatal(err)
	}
	s.Stop()
	return s.ClusterID
}

func TestCheckDataDir(t *testing.T) {
	tests := []struct {
		name    string
		setup   func(t *testing.T, l layout)
		wantNew bool
		wantErr string
	}{
		{name: "missing dir", setup: func(*testing.T, layout) {}, wantNew: true},
		{
			name:    "empty dir",
			setup:   func(t *testing.T, l layout) { mustMkdir(t, l.dataDir) },
			wantNew: true,
		},
		{
			name:    "foreign files",
			setup:   func(t *testing.T, l layout) { mustWrite(t, filepath.Join(l.dataDir, "notes.txt"), "x") },
			wantErr: `belongs to another cluster or program (it has no local-up.json and holds "notes.txt"): use another --data-dir`,
		},
		{
			name:    "lost identity",
			setup:   func(t *testing.T, l layout) { mustWrite(t, filepath.Join(l.pkiDir, "ca.crt"), "x") },
			wantErr: "belongs to another cluster (it has no local-up.json): use --clean or another --data-dir",
		},
		{
			name:    "corrupt identity",
			setup:   func(t *testing.T, l layout) { mustWrite(t, l.identity, "{") },
			wantErr: "belongs to another cluster (unreadable local-up.json",
		},
		{
			name: "identity before etcd first started",
			setup: func(t *testing.T, l layout) {
				mustWriteIdentity(t, l, &identity{ClusterID: "a"})
			},
		},
		{
			name: "matching etcd",
			setup: func(t *testing.T, l layout) {
				id := startEtcdIn(t, l, "a")
				mustWriteIdentity(t, l, &identity{ClusterID: "a", Etcd: &etcdIdentity{ClusterID: id, ClientPort: 1, PeerPort: 2}})
			},
		},
		{
			name: "etcd of another cluster",
			setup: func(t *testing.T, l layout) {
				startEtcdIn(t, l, "b")
				mustWriteIdentity(t, l, &identity{ClusterID: "a", Etcd: &etcdIdentity{ClusterID: "1234", ClientPort: 1, PeerPort: 2}})
			},
			wantErr: "local-up.json records 1234): use --clean or another --data-dir",
		},
		{
			name: "etcd data gone",
			setup: func(t *testing.T, l layout) {
				mustWriteIdentity(t, l, &identity{ClusterID: "a", Etcd: &etcdIdentity{ClusterID: "1234", ClientPort: 1, PeerPort: 2}})
			},
			wantErr: "holds no etcd data): use --clean",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l := newLayout(filepath.Join(t.TempDir(), "data"))
			tc.setup(t, l)
			id, err := checkDataDir(l)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) || !strings.Contains(err.Error(), "data dir "+l.dataDir) {
					t.Fatalf("checkDataDir error = %v, want one naming %s and containing %q", err, l.dataDir, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("checkDataDir: %v", err)
			}
			if (id == nil) != tc.wantNew {
				t.Fatalf("checkDataDir identity = %+v, want new cluster %v", id, tc.wantNew)
			}
		})
	}
}

func TestCheckDataDirIsFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "file")
	mustWrite(t, path, "x")
	if _, err := checkDataDir(newLayout(path)); err == nil || !strings.Contains(err.Error(), "--data-dir "+path) {
		t.Fatalf("checkDataDir(file) error = %v", err)
	}
}

func TestCleanRemovesOnlyOwnEntries(t *testing.T) {
	l := newLayout(filepath.Join(t.TempDir(), "data"))
	mustWriteIdentity(t, l, &identity{ClusterID: "a"})
	mustWrite(t, filepath.Join(l.pkiDir, "ca.crt"), "x")
	mustWrite(t, filepath.Join(l.etcdDir, "member", "x"), "x")
	mustWrite(t, l.kubeconfig, "x")
	if err := checkCleanable(l); err != nil {
		t.Fatalf("checkCleanable: %v", err)
	}
	if err := clean(l); err != nil {
		t.Fatalf("clean: %v", err)
	}
	if names, _ := dirEntries(l.dataDir); len(names) != 0 {
		t.Fatalf("clean left %v", names)
	}

	mustWrite(t, filepath.Join(l.dataDir, "thesis.tex"), "x")
	err := checkCleanable(l)
	if err == nil || !strings.Contains(err.Error(), `"thesis.tex"`) {
		t.Fatalf("checkCleanable with a foreign file = %v", err)
	}
}

func TestIdentityRoundTrip(t *testing.T) {
	l := newLayout(t.TempDir())
	want := newIdentity()
	want.Etcd = &etcdIdentity{ClusterID: "abc", ClientPort: 1, PeerPort: 2}
	mustWriteIdentity(t, l, want)
	got, err := readIdentity(l.identity)
	if err != nil {
		t.Fatal(err)
	}
	if got.ClusterID != want.ClusterID || *got.Etcd != *want.Etcd {
		t.Fatalf("read %+v, wrote %+v", got, want)
	}
	if newIdentity().ClusterID == want.ClusterID {
		t.Fatalf("two new identities share a cluster ID")
	}
}

// mustMkdir creates dir.
func mustMkdir(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
}

// mustWrite writes path, creating its dir.
func mustWrite(t *testing.T, path, data string) {
	t.Helper()
	mustMkdir(t, filepath.Dir(path))
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// mustWriteIdentity writes local-up.json, creating the data dir.
func mustWriteIdentity(t *testing.T, l layout, id *identity) {
	t.Helper()
	mustMkdir(t, l.dataDir)
	if err := writeIdentity(l.identity, id); err != nil {
		t.Fatal(err)
	}
}
