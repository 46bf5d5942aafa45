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
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestClusterOptions(t *testing.T) {
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(kubeconfig, []byte("apiVersion: v1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	base := []string{"--cluster=" + kubeconfig, "--apiserver=netfork", "--topology=single"}
	o, err := parseForTest(t, base...)
	if err != nil {
		t.Fatal(err)
	}
	if !o.Cluster.On() || len(o.Ns) != 1 || o.Ns[0] != clusterN || o.Cluster.Round != 1 {
		t.Errorf("--cluster defaults: n=%v round=%d, want one count of %d and round 1", o.Ns, o.Cluster.Round, clusterN)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--n=1000,5000"}, "--n: --cluster measures one Service count"},
		{[]string{"--contenders=netfork"}, "--cluster does not read --contenders"},
		{[]string{"--apiserver=Netfork"}, `--apiserver: "Netfork" is not a lower-case name`},
		{[]string{"--round=0"}, "--round: 0"},
		{[]string{"--apiserver-endpoints=http://198.18.0.2:6443"}, "is not https://HOST:PORT"},
		{[]string{"--cluster=" + kubeconfig + ".missing"}, "--cluster: stat"},
		{[]string{"--cluster-report=x.json"}, "--cluster-report does not read --apiserver, --cluster"},
		{[]string{"--profile", "--profile-duration=55s"}, "--profile-duration: 55s is outside 1s-50s"},
		{[]string{"--profile-phase=settle"}, `--profile-phase: "settle" is neither create nor delete`},
	} {
		_, err := parseForTest(t, append(append([]string(nil), base...), tc.args...)...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: error %v, want one with %q", tc.args, err, tc.want)
		}
	}
	if o, err := parseForTest(t, append(append([]string(nil), base...), "--profile", "--profile-phase=delete", "--profile-duration=20s")...); err != nil || !o.Profile || o.ProfilePhase != PhaseDelete {
		t.Errorf("--cluster with --profile: %v", err)
	}
	if o, err := parseForTest(t, "--cluster-report=a.json,b.json"); err != nil || len(o.Cluster.Report) != 2 {
		t.Errorf("--cluster-report alone: %v", err)
	}
}
