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
	"fmt"
	"path/filepath"
)

// maxSocketPath is the longest path a unix socket may have on Linux (sun_path less its NUL).
const maxSocketPath = 107

// layout names everything local-up keeps in the data dir; entries lists them so --clean
// removes only what local-up created.
type layout struct {
	dataDir    string
	identity   string
	etcdDir    string
	pkiDir     string
	certDir    string
	logDir     string
	kubeconfig string
	// socket is the control socket the subcommands (status, stop, start, ...) talk to.
	socket string
}

// newLayout places every file under dataDir, which should be absolute so children do not
// depend on local-up's working directory.
func newLayout(dataDir string) layout {
	return layout{
		dataDir:    dataDir,
		identity:   filepath.Join(dataDir, "local-up.json"),
		etcdDir:    filepath.Join(dataDir, "etcd"),
		pkiDir:     filepath.Join(dataDir, "pki"),
		certDir:    filepath.Join(dataDir, "apiserver-certs"),
		logDir:     filepath.Join(dataDir, "logs"),
		kubeconfig: filepath.Join(dataDir, "kubeconfig"),
		socket:     filepath.Join(dataDir, "local-up.sock"),
	}
}

// entries are the top-level names local-up creates in the data dir.
func (l layout) entries() []string {
	var names []string
	for _, p := range []string{l.identity, l.etcdDir, l.pkiDir, l.certDir, l.logDir, l.kubeconfig, l.socket} {
		names = append(names, filepath.Base(p))
	}
	return names
}

// checkSocketPath refuses a data dir so deep that the control socket's path cannot be bound.
func (l layout) checkSocketPath() error {
	if len(l.socket) > maxSocketPath {
		return fmt.Errorf("--data-dir %s is too long: the control socket %s needs a path of at most %d bytes", l.dataDir, l.socket, maxSocketPath)
	}
	return nil
}

// apiserverLog is apiserver i's combined stdout and stderr.
func (l layout) apiserverLog(i int) string {
	return filepath.Join(l.logDir, fmt.Sprintf("apiserver-%d.log", i))
}

// etcdLog receives the embedded etcd's logs.
func (l layout) etcdLog() string {
	return filepath.Join(l.logDir, "etcd.log")
}
