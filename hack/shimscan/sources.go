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
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
)

// upstreamTrees are the upstream test trees, under k8s.io/kubernetes, whose
// bodies netfork's integration and e2e tests could have copied; netfork
// imports none of their packages.
var upstreamTrees = []string{"test/integration", "test/e2e/network"}

// source is one Go file: the name reports show and its path on disk.
type source struct {
	name string
	path string
}

// netforkFiles are the repository's Go files, tracked or new, outside _output.
func netforkFiles() ([]source, error) {
	out, err := command("git", "ls-files", "-z", "--cached", "--others", "--exclude-standard", "--", "*.go")
	if err != nil {
		return nil, err
	}
	var files []source
	for _, f := range strings.Split(string(out), "\x00") {
		if f == "" || strings.HasPrefix(f, "_output/") {
			continue
		}
		if _, err := os.Stat(f); err != nil {
			continue // deleted in the worktree, not yet in the index
		}
		files = append(files, source{name: f, path: f})
	}
	return files, nil
}

// module is a module's path and its directory.
type module struct {
	path, dir string
}

// upstreamFiles are the Go files of the upstream packages netfork's modules
// import (transitively, tests included), of upstream's packages at the paths
// of netfork's, and of upstreamTrees.
func upstreamFiles(netfork []source) ([]source, error) {
	dirs := map[string]module{} // package directory -> its module
	var main map[string]string  // the main module's k8s.io modules: path -> directory
	for _, root := range moduleRoots(netfork) {
		modules, err := listDeps(root, dirs)
		if err != nil {
			return nil, err
		}
		if root == "." {
			main = modules
		}
	}
	kubernetes := main["k8s.io/kubernetes"]
	if kubernetes == "" {
		return nil, fmt.Errorf("go list ./... names no package of k8s.io/kubernetes: run from the repository root")
	}
	for _, f := range samePathDirs(netfork, main) {
		dirs[f.path] = module{path: f.name, dir: main[f.name]}
	}
	for _, tree := range upstreamTrees {
		err := filepath.WalkDir(filepath.Join(kubernetes, tree), func(p string, d os.DirEntry, err error) error {
			if err == nil && d.IsDir() && d.Name() != "testdata" {
				dirs[p] = module{path: "k8s.io/kubernetes", dir: kubernetes}
			}
			return err
		})
		if err != nil {
			return nil, fmt.Errorf("listing upstream's %s: %w", tree, err)
		}
	}
	return goFilesIn(dirs)
}

// moduleRoots are the directories of the go.mod files netfork's Go files
// belong to, the main module (".") first.
func moduleRoots(netfork []source) []string {
	roots := map[string]bool{".": true}
	for _, f := range netfork {
		for dir := filepath.Dir(f.name); dir != "."; dir = filepath.Dir(dir) {
			if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
				roots[dir] = true
				break
			}
		}
	}
	sorted := make([]string, 0, len(roots))
	for r := range roots {
		sorted = append(sorted, r)
	}
	sort.Slice(sorted, func(i, j int) bool { return sorted[i] == "." || (sorted[j] != "." && sorted[i] < sorted[j]) })
	return sorted
}

// listDeps adds to dirs the k8s.io package directories the packages of the
// module at root import, tests included, and returns that module's k8s.io
// modules by path.
func listDeps(root string, dirs map[string]module) (map[string]string, error) {
	out, err := command("go", "-C", root, "list", "-e", "-deps", "-test", "-f",
		`{{if .Module}}{{.Module.Path}}{{"\t"}}{{.Module.Dir}}{{"\t"}}{{.Dir}}{{end}}`, "./...")
	if err != nil {
		return nil, err
	}
	modules := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		f := strings.Split(sc.Text(), "\t")
		if len(f) != 3 || !strings.HasPrefix(f[0], "k8s.io/") || f[1] == "" {
			continue
		}
		modules[f[0]] = f[1]
		dirs[f[2]] = module{path: f[0], dir: f[1]}
	}
	return modules, sc.Err()
}

// samePathDirs are upstream's package directories at the paths where netfork
// keeps its packages: k8s.io/kubernetes/<path> for <path>, and
// k8s.io/<module>/<path> for staging-patches/<module>/<path>. Each comes back
// as a source named by its module.
func samePathDirs(netfork []source, modules map[string]string) []source {
	var dirs []source
	seen := map[string]bool{}
	for _, f := range netfork {
		rel := filepath.Dir(f.name)
		module := "k8s.io/kubernetes"
		if rest, ok := strings.CutPrefix(rel, "staging-patches/"); ok {
			m, inner, _ := strings.Cut(rest, "/")
			module, rel = "k8s.io/"+m, inner
		}
		root, ok := modules[module]
		if !ok || seen[module+"/"+rel] {
			continue
		}
		seen[module+"/"+rel] = true
		dir := filepath.Join(root, rel)
		if info, err := os.Stat(dir); err == nil && info.IsDir() {
			dirs = append(dirs, source{name: module, path: dir})
		}
	}
	return dirs
}

// goFilesIn lists the .go files of each directory, named <module>/<path in module>.
func goFilesIn(dirs map[string]module) ([]source, error) {
	var files []source
	for dir, mod := range dirs {
		matches, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			return nil, err
		}
		for _, m := range matches {
			rel, err := filepath.Rel(mod.dir, m)
			if err != nil {
				return nil, err
			}
			files = append(files, source{name: mod.path + "/" + filepath.ToSlash(rel), path: m})
		}
	}
	sort.Slice(files, func(i, j int) bool {
		if files[i].name != files[j].name {
			return files[i].name < files[j].name
		}
		return files[i].path < files[j].path
	})
	return files, nil
}

// command runs name with args and returns its output, or an error with its stderr.
func command(name string, args ...string) ([]byte, error) {
	var stderr bytes.Buffer
	cmd := exec.Command(name, args...)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w: %s", name, strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return out, nil
}
