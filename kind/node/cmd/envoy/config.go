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
	"net"
	"os"
	"sort"
	"strconv"
	"strings"

	"sigs.k8s.io/yaml"
)

// bootstrap holds the paths of the dynamic configuration named in Envoy's bootstrap file.
type bootstrap struct {
	cds, lds string
}

// dynamic is what the proxy serves: one listener address and the backends of its cluster.
type dynamic struct {
	listen   string
	backends []string
}

// String is a stable description, used to notice a change.
func (d dynamic) String() string {
	return fmt.Sprintf("listen %s -> %s", d.listen, strings.Join(d.backends, ","))
}

func readBootstrap(path string) (bootstrap, error) {
	var doc struct {
		DynamicResources struct {
			CDS struct {
				PathConfigSource struct{ Path string } `json:"path_config_source"`
			} `json:"cds_config"`
			LDS struct {
				PathConfigSource struct{ Path string } `json:"path_config_source"`
			} `json:"lds_config"`
		} `json:"dynamic_resources"`
	}
	if err := readYAML(path, &doc); err != nil {
		return bootstrap{}, err
	}
	b := bootstrap{
		cds: doc.DynamicResources.CDS.PathConfigSource.Path,
		lds: doc.DynamicResources.LDS.PathConfigSource.Path,
	}
	if b.cds == "" || b.lds == "" {
		return b, fmt.Errorf("%s: dynamic_resources needs cds_config and lds_config path_config_source paths", path)
	}
	return b, nil
}

// socketAddress is Envoy's core.v3.SocketAddress.
type socketAddress struct {
	Address   string `json:"address"`
	PortValue int    `json:"port_value"`
}

func (s socketAddress) hostPort() string {
	return net.JoinHostPort(s.Address, strconv.Itoa(s.PortValue))
}

func readDynamic(b bootstrap) (dynamic, error) {
	var lds struct {
		Resources []struct {
			Address struct {
				SocketAddress socketAddress `json:"socket_address"`
			} `json:"address"`
		} `json:"resources"`
	}
	var cds struct {
		Resources []struct {
			LoadAssignment struct {
				Endpoints []struct {
					LBEndpoints []struct {
						Endpoint struct {
							Address struct {
								SocketAddress socketAddress `json:"socket_address"`
							} `json:"address"`
						} `json:"endpoint"`
					} `json:"lb_endpoints"`
				} `json:"endpoints"`
			} `json:"load_assignment"`
		} `json:"resources"`
	}
	var d dynamic
	if err := readYAML(b.lds, &lds); err != nil {
		return d, err
	}
	if err := readYAML(b.cds, &cds); err != nil {
		return d, err
	}
	if len(lds.Resources) > 0 {
		d.listen = lds.Resources[0].Address.SocketAddress.hostPort()
	}
	for _, c := range cds.Resources {
		for _, e := range c.LoadAssignment.Endpoints {
			for _, lb := range e.LBEndpoints {
				d.backends = append(d.backends, lb.Endpoint.Address.SocketAddress.hostPort())
			}
		}
	}
	sort.Strings(d.backends)
	return d, nil
}

func readYAML(path string, into any) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := yaml.Unmarshal(data, into); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}
