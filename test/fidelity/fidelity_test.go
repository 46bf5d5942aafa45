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
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/kubernetes"
)

// Environment of the scenario test; hack/test-fidelity.sh sets them.
const (
	// upstreamEnv names upstream's kube-apiserver of the pinned release; unset, the test skips.
	upstreamEnv = "NETFORK_FIDELITY_UPSTREAM"
	// netforkEnv names netfork's kube-apiserver (default _output/bin/kube-apiserver).
	netforkEnv = "NETFORK_FIDELITY_NETFORK"
	// localUpEnv names local-up (default _output/bin/local-up).
	localUpEnv = "NETFORK_FIDELITY_LOCAL_UP"
	// outEnv is where each run's data dir, logs and normalized observations stay
	// (default a temporary directory).
	outEnv = "NETFORK_FIDELITY_OUT"
	// modesEnv names the modes to run, comma-separated (default every one of modes).
	modesEnv = "NETFORK_FIDELITY_MODES"
)

// mode is one way both apiservers run the scenario: the flags both get after the
// harness's own, and whether the encryption key is rotated before the scenario (an
// apiserver restart, some seconds a run).
type mode struct {
	name      string
	flags     []string
	rotateKey bool
}

// modes are the scenario's modes: with the watch cache, as local-up runs, and without
// it, where every read, the in-process IPAddress index's list and watch and the check of
// an IPAddress delete prepared for its Service's transaction go to etcd. The key rotation,
// which no watch cache changes, is in the first.
var modes = []mode{
	{name: "watch-cache", rotateKey: true},
	{name: "no-watch-cache", flags: []string{"--watch-cache=false"}},
}

// selectModes are the modes names (comma-separated) lists, every mode for "".
func selectModes(names string) ([]mode, error) {
	if names == "" {
		return modes, nil
	}
	var out []mode
	for _, name := range strings.Split(names, ",") {
		i := slices.IndexFunc(modes, func(m mode) bool { return m.name == strings.TrimSpace(name) })
		if i < 0 {
			return nil, fmt.Errorf("$%s names mode %q; the modes are %v", modesEnv, name, modeNames())
		}
		out = append(out, modes[i])
	}
	return out, nil
}

func modeNames() []string {
	names := make([]string, len(modes))
	for i, m := range modes {
		names[i] = m.name
	}
	return names
}

// differencesFile lists the accepted differences with their reasons.
const differencesFile = "differences.yaml"

// scenarioTimeout bounds one run of the scenario, local-up's start included.
const scenarioTimeout = 5 * time.Minute

func TestFidelity(t *testing.T) {
	upstream := os.Getenv(upstreamEnv)
	if upstream == "" {
		t.Skipf("$%s is not set: make test-fidelity (hack/test-fidelity.sh) builds upstream's kube-apiserver and sets it", upstreamEnv)
	}
	netfork := envOr(netforkEnv, "../../_output/bin/kube-apiserver")
	localUp := envOr(localUpEnv, "../../_output/bin/local-up")
	out := envOr(outEnv, t.TempDir())
	list, err := readAccepted(differencesFile)
	if err != nil {
		t.Fatalf("%v", err)
	}
	selected, err := selectModes(os.Getenv(modesEnv))
	if err != nil {
		t.Fatalf("%v", err)
	}
	rec := startRecorder(t)
	sources, err := registrySources()
	if err != nil {
		t.Fatalf("finding the registry's source files: %v", err)
	}
	// One port for both: the kubernetes Service's targetPort is the apiserver's port.
	port, err := freePort()
	if err != nil {
		t.Fatalf("%v", err)
	}

	for _, m := range selected {
		t.Run(m.name, func(t *testing.T) {
			out := filepath.Join(out, m.name)
			nfKeys, nf := observe(t, "netfork", localUp, netfork, m, rec, sources, port, out)
			upKeys, up := observe(t, "upstream", localUp, upstream, m, rec, sources, port, out)
			diffs := group(compare(nfKeys, nf, upKeys, up))
			writeDiffs(t, filepath.Join(out, "differences.txt"), diffs)
			if unlisted, stale := check(diffs, inMode(list, m.name)); len(unlisted)+len(stale) > 0 {
				writeUnlisted(t, filepath.Join(out, "unlisted.yaml"), unlisted)
				t.Fatalf("mode %s: %s(observations in %s; the unlisted differences as YAML in unlisted.yaml)", m.name, report(unlisted, stale, "test/fidelity/"+differencesFile), out)
			}
			t.Logf("mode %s: %d normalized difference(s) between netfork and upstream, each listed in %s with its reason", m.name, len(diffs), differencesFile)
		})
	}
}

// observe runs the scenario in mode m on a fresh local-up with binary and returns what
// every observer saw, normalized; the normalized observations stay in out/NAME.txt.
func observe(t *testing.T, name, localUp, binary string, m mode, rec *recorder, sources map[string]bool, port int, out string) ([]string, map[string]leaves) {
	t.Helper()
	dir := filepath.Join(out, name)
	if err := os.RemoveAll(dir); err != nil {
		t.Fatalf("%v", err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatalf("%v", err)
	}
	auditLog := filepath.Join(dir, "audit.log")
	encryption := filepath.Join(dir, "encryption.yaml")
	if err := copyFile(encryptionConfig, encryption); err != nil {
		t.Fatalf("%v", err)
	}
	flags, err := apiserverFlags(auditLog, encryption)
	if err != nil {
		t.Fatalf("%v", err)
	}
	flags = append(flags, m.flags...)
	ctx, cancel := context.WithTimeout(context.Background(), scenarioTimeout)
	defer cancel()

	c, stop := startLocalUp(t, localUp, binary, filepath.Join(dir, "local-up"), port, flags)
	defer stop()
	r := &run{t: t, cluster: c, rec: rec, auditLog: auditLog}
	r.admin = kubernetes.NewForConfigOrDie(c.config)
	r.user = kubernetes.NewForConfigOrDie(userConfig(c.config, userName))
	r.users = map[string]kubernetes.Interface{}
	for _, u := range []string{servicesOnlyUser, noServicesUser} {
		r.users[u] = kubernetes.NewForConfigOrDie(userConfig(c.config, u))
	}
	r.rotateKey(ctx, localUp, encryption, m.rotateKey)
	r.setUp(ctx, rec)
	watchers := r.startWatches(ctx)
	before := r.scrape(ctx)
	r.runSteps(ctx)
	after := r.scrape(ctx)
	watched := r.finishWatches(ctx, watchers)
	apf := r.apfWindow(ctx)
	// Admission before the watches: it sees every address either apiserver writes or
	// tries to, so addresses are numbered alike in both runs even where only one of them
	// shows an IPAddress come and go; within a step it is in family order, whichever
	// family an apiserver asked about first (familyOrder).
	records := append([]record(nil), r.client...)
	records = append(records, r.admissionRecords(rec)...)
	records = append(records, watched...)
	records = append(records, r.auditRecords(auditLog)...)
	records = append(records, r.etcd...)
	records = append(records, metricRecords(before, after)...)
	records = append(records, apf...)
	records = append(records, r.logRecords(c.apiserverLog, sources)...)

	keys, values := normalize(records)
	writeObservations(t, filepath.Join(out, name+".txt"), keys, values)
	writeSteps(t, filepath.Join(out, name+"-steps.txt"), r.windows)
	return keys, values
}

// writeSteps keeps how long each step took, to see where a run's time goes.
func writeSteps(t *testing.T, path string, windows []window) {
	t.Helper()
	var b strings.Builder
	for _, w := range windows {
		fmt.Fprintf(&b, "%-45s %6dms\n", w.name, w.end.Sub(w.start).Milliseconds())
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Errorf("writing %s: %v", path, err)
	}
}

// apiserverFlags are the flags both apiservers get after local-up's defaults; encryption
// is the run's copy of the encryption configuration.
func apiserverFlags(auditLog, encryption string) ([]string, error) {
	policy, err := filepath.Abs(filepath.Join("testdata", "audit-policy.yaml"))
	if err != nil {
		return nil, err
	}
	encryption, err = filepath.Abs(encryption)
	if err != nil {
		return nil, err
	}
	return []string{
		"--audit-policy-file=" + policy,
		"--audit-log-path=" + auditLog,
		"--encryption-provider-config=" + encryption,
		"-v=4",
	}, nil
}

// copyFile copies the file from to to.
func copyFile(from, to string) error {
	data, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	return os.WriteFile(to, data, 0o600)
}

// freePort is a loopback port free now, for local-up's apiserver.
func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

func envOr(name, fallback string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return fallback
}

// writeObservations keeps a run's normalized observations, one leaf a line.
func writeObservations(t *testing.T, path string, keys []string, values map[string]leaves) {
	t.Helper()
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, "%s\n", k)
		for _, p := range sortedKeys(values[k]) {
			fmt.Fprintf(&b, "    %s: %s\n", p, values[k][p])
		}
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Errorf("writing %s: %v", path, err)
	}
}

// writeDiffs keeps every normalized difference, listed or not.
func writeDiffs(t *testing.T, path string, diffs []difference) {
	t.Helper()
	var b strings.Builder
	for _, d := range diffs {
		fmt.Fprintf(&b, "%s\n", d)
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Errorf("writing %s: %v", path, err)
	}
}

// writeUnlisted keeps the unlisted differences as an entry of differences.yaml to edit.
func writeUnlisted(t *testing.T, path string, unlisted []difference) {
	t.Helper()
	if err := os.WriteFile(path, []byte(unlistedYAML(unlisted)), 0o644); err != nil {
		t.Errorf("writing %s: %v", path, err)
	}
}
