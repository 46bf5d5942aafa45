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
	"path/filepath"
)

// layout names what the command keeps in its data dir.
type layout struct {
	pkiDir, etcdDir, certDir, logDir, kubeconfig, hosts string
}

func newLayout(dataDir string) layout {
	return layout{
		pkiDir:     filepath.Join(dataDir, "pki"),
		etcdDir:    filepath.Join(dataDir, "etcd"),
		certDir:    filepath.Join(dataDir, "apiserver-certs"),
		logDir:     filepath.Join(dataDir, "logs"),
		kubeconfig: filepath.Join(dataDir, "kubeconfig"),
		hosts:      filepath.Join(dataDir, "hosts.json"),
	}
}

// apiserverLog is the combined output of the apiserver in netns.
func (l layout) apiserverLog(netns string) string {
	return filepath.Join(l.logDir, fmt.Sprintf("apiserver-%s.log", netns))
}

// etcdLog receives the embedded etcd's logs.
func (l layout) etcdLog() string {
	return filepath.Join(l.logDir, "etcd.log")
}
