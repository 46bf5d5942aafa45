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

package etcd

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"go.etcd.io/etcd/api/v3/etcdserverpb"
	"go.etcd.io/etcd/client/pkg/v3/types"
	"go.etcd.io/etcd/server/v3/storage/wal"
	"go.etcd.io/etcd/server/v3/storage/wal/walpb"
	"go.uber.org/zap"
	"google.golang.org/protobuf/proto"
)

// ClusterID reads the cluster ID (hex, as Server.ClusterID) recorded in the write-ahead log
// under dataDir without starting etcd or writing anything, so a caller can tell whose data
// a directory holds before using it; it wraps fs.ErrNotExist when dataDir has no etcd data.
func ClusterID(dataDir string) (string, error) {
	walDir := filepath.Join(dataDir, "member", "wal")
	if !wal.Exist(walDir) {
		return "", fmt.Errorf("etcd: no write-ahead log in %s: %w", dataDir, fs.ErrNotExist)
	}
	lg := zap.NewNop()
	snaps, err := wal.ValidSnapshotEntries(lg, walDir)
	if err != nil {
		return "", fmt.Errorf("etcd: reading snapshots of %s: %w", walDir, err)
	}
	start := &walpb.Snapshot{}
	if len(snaps) > 0 {
		start = snaps[len(snaps)-1]
	}
	w, err := wal.OpenForRead(lg, walDir, start)
	if err != nil {
		return "", fmt.Errorf("etcd: opening %s: %w", walDir, err)
	}
	defer w.Close()
	metadata, _, _, err := w.ReadAll()
	if err != nil && !errors.Is(err, wal.ErrSnapshotNotFound) {
		return "", fmt.Errorf("etcd: reading %s: %w", walDir, err)
	}
	if metadata == nil {
		return "", fmt.Errorf("etcd: %s has no metadata record", walDir)
	}
	var md etcdserverpb.Metadata
	if err := proto.Unmarshal(metadata, &md); err != nil {
		return "", fmt.Errorf("etcd: decoding metadata of %s: %w", walDir, err)
	}
	return types.ID(md.GetClusterID()).String(), nil
}
