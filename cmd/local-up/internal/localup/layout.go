package localup

import (
	"fmt"
	"path/filepath"
)

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
	}
}

// entries are the top-level names local-up creates in the data dir.
func (l layout) entries() []string {
	var names []string
	for _, p := range []string{l.identity, l.etcdDir, l.pkiDir, l.certDir, l.logDir, l.kubeconfig} {
		names = append(names, filepath.Base(p))
	}
	return names
}

// apiserverLog is apiserver i's combined stdout and stderr.
func (l layout) apiserverLog(i int) string {
	return filepath.Join(l.logDir, fmt.Sprintf("apiserver-%d.log", i))
}

// etcdLog receives the embedded etcd's logs.
func (l layout) etcdLog() string {
	return filepath.Join(l.logDir, "etcd.log")
}
