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

package localup

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestPlanChecksPortsOnEveryAddress(t *testing.T) {
	o := testOptions(t)
	o.APIServers = 3
	taken := net.JoinHostPort("127.0.0.2", portString(o.Port))
	occupy(t, taken)

	_, err := newPlan(context.Background(), o)
	want := "address " + taken + " (apiserver 1) is already in use: pick another --port"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("newPlan error = %v, want %q", err, want)
	}
	assertUntouched(t, o.DataDir)
}

func TestPlanChecksRecordedEtcdPorts(t *testing.T) {
	o := testOptions(t)
	l := newLayout(o.DataDir)
	etcdListener := occupy(t, "127.0.0.1:0")
	etcdPort := etcdListener.Addr().(*net.TCPAddr).Port
	mustWriteIdentity(t, l, &identity{ClusterID: "a", Etcd: &etcdIdentity{ClusterID: "1", ClientPort: etcdPort, PeerPort: freePort(t)}})
	p := &plan{opts: o, layout: l}
	p.identity, _ = readIdentity(l.identity)
	if err := p.pickEtcdPorts(); err != nil {
		t.Fatal(err)
	}
	if err := p.assembleMembers(); err != nil {
		t.Fatal(err)
	}
	err := p.checkPorts()
	if err == nil || !strings.Contains(err.Error(), etcdListener.Addr().String()) || !strings.Contains(err.Error(), "etcd") {
		t.Fatalf("checkPorts error = %v, want one naming etcd's %s", err, etcdListener.Addr())
	}
}

func TestPlanRejectsBadFlagsBeforeTouchingData(t *testing.T) {
	o := testOptions(t)
	o.APIServerArgs = []string{"--feature-gates=Bad=true"}
	_, err := newPlan(context.Background(), o)
	want := `kube-apiserver rejects its flags: Error: invalid argument "Bad=true" for "--feature-gates" flag: unrecognized feature gate: Bad`
	if err == nil || err.Error() != want {
		t.Fatalf("newPlan error = %v, want %q", err, want)
	}
	assertUntouched(t, o.DataDir)
}

func TestPlanRejectsSharedBindAddress(t *testing.T) {
	o := testOptions(t)
	o.APIServers = 2
	o.APIServerArgs = []string{"--bind-address=127.0.0.1"}
	_, err := newPlan(context.Background(), o)
	if err == nil || !strings.Contains(err.Error(), "apiservers 0 and 1 would both serve on 127.0.0.1:") {
		t.Fatalf("newPlan error = %v", err)
	}
}

func TestPlan(t *testing.T) {
	o := testOptions(t)
	o.APIServers = 2
	p, err := newPlan(context.Background(), o)
	if err != nil {
		t.Fatalf("newPlan: %v", err)
	}
	if p.members[0].version != "Kubernetes v1.37.1-fake" {
		t.Errorf("version = %q", p.members[0].version)
	}
	wantEndpoints := []string{"127.0.0.1:" + portString(o.Port), "127.0.0.2:" + portString(o.Port)}
	for i, want := range wantEndpoints {
		if p.members[i].endpoint != want {
			t.Errorf("endpoint %d = %s, want %s", i, p.members[i].endpoint, want)
		}
	}
	var sans []string
	for _, ip := range p.servingSANs.IPs {
		sans = append(sans, ip.String())
	}
	for _, want := range []string{"127.0.0.1", "127.0.0.2", "198.18.0.1", "198.18.0.2", "127.0.0.254", "10.96.0.1", "fd00:10:96::1", "::1"} {
		if !strings.Contains(" "+strings.Join(sans, " ")+" ", " "+want+" ") {
			t.Errorf("serving SANs %v lack %s", sans, want)
		}
	}
	if p.etcdClientPort == 0 || p.etcdClientPort == p.etcdPeerPort {
		t.Errorf("etcd ports %d/%d", p.etcdClientPort, p.etcdPeerPort)
	}
	assertUntouched(t, o.DataDir)
}

func TestResolveBinary(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "nope", "kube-apiserver")
	_, err := resolveBinary(missing)
	want := "kube-apiserver binary not found at " + missing + ": run 'make build' or pass --apiserver-binary"
	if err == nil || err.Error() != want {
		t.Fatalf("resolveBinary(missing) = %v, want %q", err, want)
	}

	notExec := filepath.Join(t.TempDir(), "kube-apiserver")
	mustWrite(t, notExec, "#!/bin/sh\n")
	if _, err := resolveBinary(notExec); err == nil {
		t.Fatalf("resolveBinary accepted a non-executable file")
	}

	fake := fakeAPIServer(t)
	if got, err := resolveBinary(fake); err != nil || got != fake {
		t.Fatalf("resolveBinary(%s) = %q, %v", fake, got, err)
	}

	t.Chdir(t.TempDir())
	_, err = resolveBinary("")
	want = "kube-apiserver binary not found at _output/bin/kube-apiserver: run 'make build' or pass --apiserver-binary"
	if err == nil || err.Error() != want {
		t.Fatalf("resolveBinary(default) = %v, want %q", err, want)
	}
}

// assertUntouched fails if a rejected run created the data dir.
func assertUntouched(t *testing.T, dataDir string) {
	t.Helper()
	if _, err := os.Stat(dataDir); !os.IsNotExist(err) {
		t.Fatalf("data dir %s was created by a run that failed its checks", dataDir)
	}
}
