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
	"fmt"
	"path/filepath"
	"time"
)

const (
	// defaultLogLevel is warn so that a healthy etcd writes next to nothing.
	defaultLogLevel = "warn"
	// defaultReadyTimeout bounds the wait for a single loopback member to elect itself.
	defaultReadyTimeout = 30 * time.Second
	// defaultClusterToken is the initial-cluster-token when the caller has no cluster identity.
	defaultClusterToken = "netfork-etcd"
	// memberName is fixed so that a restart on the same data dir is the same member.
	memberName = "netfork"
)

// Config describes one embedded etcd member listening on 127.0.0.1.
type Config struct {
	// DataDir holds etcd's member directory; it is created if missing and reused on restart.
	DataDir string
	// ClientPort is the loopback client port; 0 picks a free one.
	ClientPort int
	// PeerPort is the loopback peer port; 0 picks a free one.
	PeerPort int
	// ClusterToken seeds the etcd cluster ID, so clusters with different tokens never look alike.
	ClusterToken string
	// LogLevel is etcd's zap level (debug, info, warn, error); empty means warn.
	LogLevel string
	// LogFile receives etcd's logs so they never reach stdout; empty means <DataDir>/etcd.log,
	// os.DevNull discards them.
	LogFile string
	// ReadyTimeout bounds the wait for etcd to serve; 0 means 30s.
	ReadyTimeout time.Duration
	// UnsafeNoFsync skips fsync, which makes throwaway test clusters faster and crash-unsafe.
	UnsafeNoFsync bool
	// QuotaBackendBytes raises etcd's backend size limit, 0 keeping etcd's 2 GiB default,
	// for callers that write many revisions of large objects between compactions.
	QuotaBackendBytes int64
}

// complete fills defaults and rejects a config that cannot start.
func (c Config) complete() (Config, error) {
	if c.DataDir == "" {
		return c, fmt.Errorf("etcd: DataDir is required")
	}
	if c.ClientPort < 0 || c.ClientPort > 65535 {
		return c, fmt.Errorf("etcd: ClientPort %d is not a valid port", c.ClientPort)
	}
	if c.PeerPort < 0 || c.PeerPort > 65535 {
		return c, fmt.Errorf("etcd: PeerPort %d is not a valid port", c.PeerPort)
	}
	if c.QuotaBackendBytes < 0 {
		return c, fmt.Errorf("etcd: QuotaBackendBytes %d is negative", c.QuotaBackendBytes)
	}
	if c.ClientPort != 0 && c.ClientPort == c.PeerPort {
		return c, fmt.Errorf("etcd: ClientPort and PeerPort are both %d", c.ClientPort)
	}
	if c.ClusterToken == "" {
		c.ClusterToken = defaultClusterToken
	}
	if c.LogLevel == "" {
		c.LogLevel = defaultLogLevel
	}
	if c.LogFile == "" {
		c.LogFile = filepath.Join(c.DataDir, "etcd.log")
	}
	if c.ReadyTimeout == 0 {
		c.ReadyTimeout = defaultReadyTimeout
	}
	return c, nil
}
