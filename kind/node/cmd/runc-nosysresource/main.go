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

// Command runc-nosysresource is an OCI runtime for dockerd that runs runc after removing
// CAP_SYS_RESOURCE from the container's capabilities: on hosts whose own bounding set lacks it
// (docker inside a container), runc cannot start a --privileged container, and kind starts
// every node --privileged. It edits the bundle's config.json on "create"/"run" and the
// --process file on "exec", then replaces itself with the real runc (NETFORK_RUNC, else runc
// on PATH), passing every argument through unchanged.
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
)

// dropped is the capability this host cannot grant.
const dropped = "CAP_SYS_RESOURCE"

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintf(os.Stderr, "runc-nosysresource: %v\n", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	cmd, bundle, process := parse(args)
	switch cmd {
	case "create", "run":
		if bundle == "" {
			bundle = "."
		}
		if err := editJSON(filepath.Join(bundle, "config.json"), func(spec map[string]any) {
			if p, ok := spec["process"].(map[string]any); ok {
				dropFromProcess(p)
			}
		}); err != nil {
			return err
		}
	case "exec":
		if process != "" {
			if err := editJSON(process, dropFromProcess); err != nil {
				return err
			}
		}
	}
	runc := os.Getenv("NETFORK_RUNC")
	if runc == "" {
		var err error
		if runc, err = exec.LookPath("runc"); err != nil {
			return fmt.Errorf("no runc on PATH and NETFORK_RUNC unset: %w", err)
		}
	}
	return syscall.Exec(runc, append([]string{"runc"}, args...), os.Environ())
}

// parse finds the runc subcommand and its --bundle/-b and --process/-p values; global flags
// before the subcommand that take a value are skipped with it.
func parse(args []string) (cmd, bundle, process string) {
	withValue := map[string]bool{"--root": true, "--log": true, "--log-format": true, "--criu": true, "--rootless": true}
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case cmd == "" && withValue[a]:
			i++
		case cmd == "" && len(a) > 0 && a[0] != '-':
			cmd = a
		case cmd != "" && (a == "--bundle" || a == "-b") && i+1 < len(args):
			bundle = args[i+1]
			i++
		case cmd != "" && len(a) > 9 && a[:9] == "--bundle=":
			bundle = a[9:]
		case cmd != "" && (a == "--process" || a == "-p") && i+1 < len(args):
			process = args[i+1]
			i++
		case cmd != "" && len(a) > 10 && a[:10] == "--process=":
			process = a[10:]
		}
	}
	return cmd, bundle, process
}

// dropFromProcess removes the capability from every set of an OCI process.
func dropFromProcess(p map[string]any) {
	caps, ok := p["capabilities"].(map[string]any)
	if !ok {
		return
	}
	for set, v := range caps {
		list, ok := v.([]any)
		if !ok {
			continue
		}
		kept := list[:0]
		for _, c := range list {
			if c != dropped {
				kept = append(kept, c)
			}
		}
		caps[set] = kept
	}
}

// editJSON rewrites a JSON object file in place through edit, keeping its mode.
func editJSON(path string, edit func(map[string]any)) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var obj map[string]any
	if err := json.Unmarshal(data, &obj); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	edit(obj)
	out, err := json.Marshal(obj)
	if err != nil {
		return err
	}
	info, err := os.Stat(path)
	if err != nil {
		return err
	}
	return os.WriteFile(path, out, info.Mode().Perm())
}
