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
