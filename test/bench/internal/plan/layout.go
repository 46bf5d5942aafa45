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

package plan

import (
	"fmt"
	"os"
	"path/filepath"
)

// Layout is where a benchmark writes, all below --output-dir.
type Layout struct {
	Root, Data, Logs, Profiles, PKI string
}

// NewLayout creates the output directories.
func NewLayout(root string) (Layout, error) {
	l := Layout{
		Root:     root,
		Data:     filepath.Join(root, "data"),
		Logs:     filepath.Join(root, "logs"),
		Profiles: filepath.Join(root, "profiles"),
		PKI:      filepath.Join(root, "pki"),
	}
	for _, dir := range []string{l.Data, l.Logs, l.Profiles} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return l, fmt.Errorf("--output-dir: %w", err)
		}
	}
	return l, nil
}

// CSV is results.csv, one row per run.
func (l Layout) CSV() string { return filepath.Join(l.Root, "results.csv") }

// JSON is results.json, every measurement.
func (l Layout) JSON() string { return filepath.Join(l.Root, "results.json") }

// ChartData is chart.json, the medians the chart shows.
func (l Layout) ChartData() string { return filepath.Join(l.Root, "chart.json") }

// Chart is latency.png, the first chart test/bench/chart draws.
func (l Layout) Chart() string { return filepath.Join(l.Root, "latency.png") }
