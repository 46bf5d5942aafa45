package rest

import (
	"crypto/tls"
	"fmt"

	serverstorage "k8s.io/apiserver/pkg/server/storage"
	"k8s.io/kubernetes/pkg/cluster/ports"
	"k8s.io/kubernetes/pkg/registry/core/componentstatus"
	kubeschedulerconfig "k8s.io/kubernetes/pkg/scheduler/apis/config"
)

// componentStatusServers lists what the deprecated componentstatuses resource
// probes: the controller-manager and scheduler on their default local ports, and
// every etcd the storage factory talks to.
func componentStatusServers(storageFactory serverstorage.StorageFactory) func() map[string]componentstatus.Server {
	return func() map[string]componentstatus.Server {
		insecure := &tls.Config{InsecureSkipVerify: true} //nolint:gosec // probes a local /healthz, as upstream does
		servers := map[string]componentstatus.Server{
			"controller-manager": &componentstatus.HttpServer{EnableHTTPS: true, TLSConfig: insecure, Addr: "127.0.0.1", Port: ports.KubeControllerManagerPort, Path: "/healthz"},
			"scheduler":          &componentstatus.HttpServer{EnableHTTPS: true, TLSConfig: insecure, Addr: "127.0.0.1", Port: kubeschedulerconfig.DefaultKubeSchedulerPort, Path: "/healthz"},
		}
		for i, cfg := range storageFactory.Configs() {
			servers[fmt.Sprintf("etcd-%d", i)] = &componentstatus.EtcdServer{Config: cfg}
		}
		return servers
	}
}
