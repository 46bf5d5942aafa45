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

package fidelity

import (
	"bufio"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// klogLine is klog's header: severity, month and day, time, thread, file:line.
var klogLine = regexp.MustCompile(`^([IWEF])(\d{4} \d{2}:\d{2}:\d{2}\.\d{6})\s+\d+\s+([^:\]\s]+):\d+\] (.*)$`)

// registrySources are the base names of the Go files of the Service registry and its
// allocators, netfork's (pkg/registry) and upstream's (pkg/registry/core/service and
// pkg/registry/networking at the pin): the log lines compared are theirs. klog names a
// line's file by its base name only, so a name that k8s.io/apiserver's generic registry or
// storage also uses (store.go, cacher.go, ...) is left out: a line of it may come from the
// storage of any resource, which this harness does not compare.
func registrySources() (map[string]bool, error) {
	kubernetes, err := moduleDir("k8s.io/kubernetes")
	if err != nil {
		return nil, err
	}
	apiserver, err := moduleDir("k8s.io/apiserver")
	if err != nil {
		return nil, err
	}
	names, err := goFileNames("../../pkg/registry", filepath.Join(kubernetes, "pkg/registry/core/service"),
		filepath.Join(kubernetes, "pkg/registry/networking"))
	if err != nil {
		return nil, err
	}
	generic, err := goFileNames(filepath.Join(apiserver, "pkg/registry"), filepath.Join(apiserver, "pkg/storage"))
	if err != nil {
		return nil, err
	}
	for name := range generic {
		delete(names, name)
	}
	return names, nil
}

// moduleDir is where the module graph keeps module.
func moduleDir(module string) (string, error) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", module).Output()
	if err != nil {
		return "", fmt.Errorf("finding %s: %w", module, err)
	}
	return strings.TrimSpace(string(out)), nil
}

// goFileNames are the base names of the Go files, tests excluded, under dirs.
func goFileNames(dirs ...string) (map[string]bool, error) {
	names := map[string]bool{}
	for _, dir := range dirs {
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.IsDir() && strings.HasSuffix(path, ".go") && !strings.HasSuffix(path, "_test.go") {
				names[d.Name()] = true
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return names, nil
}

// logRecords are the distinct lines the registry and allocators logged while the scenario
// ran, at every level the apiserver logged, by severity and message. Neither the step
// nor the count is kept: the allocators' controllers log on informer events, whose timing
// varies by run; nor where in the source a line comes from, since netfork's allocators are
// its own files.
func (r *run) logRecords(path string, sources map[string]bool) []record {
	f, err := os.Open(path)
	if err != nil {
		r.t.Fatalf("reading the apiserver's log: %v", err)
	}
	defer f.Close()
	year := time.Now().Year()
	var records []record
	seen := map[string]bool{}
	scanner := bufio.NewScanner(f)
	scanner.Buffer(make([]byte, 1<<20), 1<<24)
	for scanner.Scan() {
		m := klogLine.FindStringSubmatch(scanner.Text())
		if m == nil || !sources[m[3]] {
			continue
		}
		at, err := time.ParseInLocation("2006 0102 15:04:05.000000", strconv.Itoa(year)+" "+m[2], time.Local)
		if err != nil {
			continue
		}
		if line := m[1] + " " + m[4]; r.stepAt(at) != "" && !seen[line] {
			seen[line] = true
			records = append(records, record{key: []string{"logs", "scenario", line}, value: "logged", once: true})
		}
	}
	if err := scanner.Err(); err != nil {
		r.t.Fatalf("reading the apiserver's log: %v", err)
	}
	return records
}
