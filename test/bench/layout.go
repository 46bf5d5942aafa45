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
	"os"
	"path/filepath"
)

// layout is where a benchmark writes, all below --output-dir.
type layout struct {
	root, data, logs, profiles, pki string
}

// newLayout creates the output directories.
func newLayout(root string) (layout, error) {
	l := layout{
		root:     root,
		data:     filepath.Join(root, "data"),
		logs:     filepath.Join(root, "logs"),
		profiles: filepath.Join(root, "profiles"),
		pki:      filepath.Join(root, "pki"),
	}
	for _, dir := range []string{l.data, l.logs, l.profiles} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return l, fmt.Errorf("--output-dir: %w", err)
		}
	}
	return l, nil
}

func (l layout) csv() string       { return filepath.Join(l.root, "results.csv") }
func (l layout) json() string      { return filepath.Join(l.root, "results.json") }
func (l layout) chartData() string { return filepath.Join(l.root, "chart.json") }
func (l layout) chart() string     { return filepath.Join(l.root, "latency.png") }
