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
	"errors"
	"go/build"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"
)

// benchPath is this program's import path; its packages are below it.
const benchPath = "github.com/netfork/netfork/test/bench"

// layers are the benchmark's packages from the top down, by their path below test/bench.
// A package may import the packages of the layers below its own and no other of the
// benchmark's: none above it (an arrow that runs back up) and no sibling in its layer.
// main only wires the others: flags -> options (plan) -> run (runner) -> report.
var layers = [][]string{
	{"."},
	{"internal/runner"},
	{"internal/measure", "internal/report"},
	{"internal/plan", "internal/metrics", "internal/consistency"},
	{"internal/result", "internal/cluster", "internal/workload"},
	{"internal/stats", "internal/ranges", "chartfile"},
}

// TestPackagesImportOnlyDownward reads every package's imports, its tests' included, from
// its source and fails on each import of a package of the benchmark that is not below it,
// and on a package that is in no layer.
func TestPackagesImportOnlyDownward(t *testing.T) {
	layerOf := map[string]int{}
	for i, names := range layers {
		for _, name := range names {
			layerOf[path.Join(benchPath, name)] = i
		}
	}
	for _, dir := range packageDirs(t) {
		pkg, err := build.ImportDir(dir, 0)
		if err != nil {
			t.Fatalf("reading the package in %s: %v", dir, err)
		}
		from := path.Join(benchPath, filepath.ToSlash(dir))
		layer, ok := layerOf[from]
		if !ok {
			t.Errorf("layering: %s is in no layer; add it to layers in layers_test.go", short(from))
			continue
		}
		for _, imp := range append(append(pkg.Imports, pkg.TestImports...), pkg.XTestImports...) {
			to, ok := layerOf[imp]
			switch {
			case !strings.HasPrefix(imp, benchPath+"/"), imp == from:
			case !ok:
				t.Errorf("layering: %s imports %s, which is in no layer; add it to layers in layers_test.go", short(from), short(imp))
			case to < layer:
				t.Errorf("layering: %s imports %s, a layer above it; move what it needs down", short(from), short(imp))
			case to == layer:
				t.Errorf("layering: %s imports %s, a sibling in its layer; move what they share down", short(from), short(imp))
			}
		}
	}
}

// packageDirs are the directories below test/bench that hold Go files of this module,
// test/bench itself first; the modules of their own below it (chart, chartfile) are not.
func packageDirs(t *testing.T) []string {
	t.Helper()
	var dirs []string
	err := filepath.WalkDir(".", func(dir string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		if dir != "." {
			if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
				return filepath.SkipDir
			} else if !errors.Is(err, fs.ErrNotExist) {
				return err
			}
		}
		if matches, _ := filepath.Glob(filepath.Join(dir, "*.go")); len(matches) > 0 {
			dirs = append(dirs, dir)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return dirs
}

// short is an import path below the repository's module, as the layers name it.
func short(importPath string) string {
	return strings.TrimPrefix(importPath, "github.com/netfork/netfork/")
}
