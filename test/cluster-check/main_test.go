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
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestBadInputIsOneLine(t *testing.T) {
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(kubeconfig, []byte("apiVersion: v1\nkind: Config\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("KUBECONFIG", "")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "--kubeconfig (or $KUBECONFIG) is required"},
		{[]string{"--kubeconfig", kubeconfig, "--ipaddresses", "maybe"}, `--ipaddresses "maybe": want auto, true or false`},
		{[]string{"--kubeconfig", kubeconfig, "--clusterip-bitmaps"}, "--clusterip-bitmaps needs --etcd-endpoints"},
		{[]string{"--kubeconfig", kubeconfig, "--apiserver-families", "triple"}, `--apiserver-families "triple"`},
		{[]string{"--kubeconfig", kubeconfig + ".missing"}, "--kubeconfig: stat"},
		{[]string{"--kubeconfig", kubeconfig, "extra"}, `unexpected argument "extra"`},
		{[]string{"--kubeconfig", kubeconfig, "--snapshot-in", kubeconfig + ".missing"}, "reading snapshot"},
	} {
		var stdout, stderr bytes.Buffer
		code := run(tc.args, &stdout, &stderr)
		if code != 1 || stdout.Len() != 0 || strings.Count(stderr.String(), "\n") != 1 || !strings.Contains(stderr.String(), tc.want) {
			t.Errorf("cluster-check %q: exit %d, stdout %q, stderr %q; want 1 and one line with %q", tc.args, code, stdout.String(), stderr.String(), tc.want)
		}
	}
}
