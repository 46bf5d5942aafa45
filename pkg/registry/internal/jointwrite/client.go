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

package jointwrite

import (
	"errors"
	"fmt"
	"time"

	"go.etcd.io/etcd/client/pkg/v3/transport"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/client/v3/kubernetes"
	"go.uber.org/zap"
	"k8s.io/apiserver/pkg/registry/generic"
	"k8s.io/apiserver/pkg/server/egressselector"
)

// ErrEgress says the etcd servers are reached through the egress selector's
// etcd entry (--egress-selector-config-file), which the joint write's client
// does not dial through.
var ErrEgress = errors.New("etcd is reached through the egress selector's etcd entry")

// NewClient is an etcd client of the servers opts store to, with their TLS
// files, for the joint writes: the etcd storage keeps its clients to itself.
// An egress selector without an etcd entry leaves etcd dialed directly, as
// the etcd storage does; one with an etcd entry is ErrEgress.
func NewClient(opts generic.RESTOptions) (*kubernetes.Client, error) {
	if opts.StorageConfig == nil {
		return nil, fmt.Errorf("storage of %s has no etcd configuration", opts.ResourcePrefix)
	}
	t := opts.StorageConfig.Transport
	if t.EgressLookup != nil {
		dial, err := t.EgressLookup(egressselector.Etcd.AsNetworkContext())
		if err != nil {
			return nil, fmt.Errorf("etcd dialer of the egress selector for %s: %w", opts.ResourcePrefix, err)
		}
		if dial != nil {
			return nil, ErrEgress
		}
	}
	cfg := clientv3.Config{
		Endpoints:            t.ServerList,
		DialTimeout:          20 * time.Second,
		DialKeepAliveTime:    30 * time.Second,
		DialKeepAliveTimeout: 10 * time.Second,
		Logger:               zap.NewNop(),
	}
	if t.CertFile != "" || t.KeyFile != "" || t.TrustedCAFile != "" {
		tlsConfig, err := (transport.TLSInfo{CertFile: t.CertFile, KeyFile: t.KeyFile, TrustedCAFile: t.TrustedCAFile}).ClientConfig()
		if err != nil {
			return nil, fmt.Errorf("etcd client TLS for %s: %w", opts.ResourcePrefix, err)
		}
		cfg.TLS = tlsConfig
	}
	c, err := kubernetes.New(cfg)
	if err != nil {
		return nil, fmt.Errorf("etcd client for %s: %w", opts.ResourcePrefix, err)
	}
	return c, nil
}
