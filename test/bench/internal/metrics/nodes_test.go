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

package metrics

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/netfork/netfork/test/bench/internal/result"
)

// stat is a /proc/<pid>/stat line with utime and stime ticks.
func stat(pid, utime, stime int) string {
	return fmt.Sprintf("%d (x) S 1 1 1 0 -1 4194560 9 0 0 0 %d %d 0 0 20 0 12 0 100 2000000 500", pid, utime, stime)
}

// v1Dump is a cgroup v1 node: the apiserver and etcd read from their pods' cpuacct.usage
// (ns), two CoreDNS processes of one pod sharing it, kubelet without a cgroup file found.
var v1Dump = strings.Join([]string{
	"proc kube-apiserver 100", "stat " + stat(100, 500, 100),
	"cgroup /sys/fs/cgroup/cpu,cpuacct/kubelet/kubepods/burstable/podA/cpuacct.usage 7500000000 ",
	"proc etcd 200", "stat " + stat(200, 10, 10),
	"cgroup /sys/fs/cgroup/cpu,cpuacct/kubelet/kubepods/burstable/podB/cpuacct.usage 2000000000 ",
	"proc coredns 300", "stat " + stat(300, 1, 1),
	"cgroup /sys/fs/cgroup/cpu,cpuacct/kubelet/kubepods/burstable/podC/cpuacct.usage 1000000000 ",
	"proc coredns 301", "stat " + stat(301, 1, 1),
	"cgroup /sys/fs/cgroup/cpu,cpuacct/kubelet/kubepods/burstable/podC/cpuacct.usage 1000000000 ",
	"proc kubelet 400", "stat " + stat(400, 250, 50),
}, "\n") + "\n"

// v2Dump is a cgroup v2 node: kube-proxy's pod's cpu.stat (µs).
var v2Dump = "proc kube-proxy 500\nstat " + stat(500, 1, 1) + "\n" +
	"cgroup /sys/fs/cgroup/kubelet.slice/kubelet-kubepods.slice/kubelet-kubepods-besteffort.slice/kubelet-kubepods-besteffort-podD.slice/cpu.stat usage_usec 1500000 user_usec 1000000 system_usec 500000 \n"

func TestReadNodeCPU(t *testing.T) {
	dumps := map[string]string{"cp": v1Dump, "worker": v2Dump}
	run := func(_ context.Context, node, script string) (string, error) {
		if !strings.Contains(script, "kube-controller") || !strings.Contains(script, "pgrep -x") {
			t.Errorf("the script does not look for the components by their comm: %q", script)
		}
		return dumps[node], nil
	}
	got, err := ReadNodeCPU(context.Background(), run, []string{"cp", "worker"})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]time.Duration{
		"cp/kube-apiserver": 7500 * time.Millisecond, // the cgroup's, not /proc's 6 s
		"cp/etcd":           2 * time.Second,
		"cp/coredns":        time.Second, // one pod's cgroup, counted once for its two processes
		"cp/kubelet":        3 * time.Second,
		"worker/kube-proxy": 1500 * time.Millisecond,
	}
	if len(got) != len(want) {
		t.Errorf("ReadNodeCPU = %v, want the components %v", got, want)
	}
	for key, cpu := range want {
		if got[key].CPU != cpu {
			t.Errorf("%s: %v, want %v", key, got[key].CPU, cpu)
		}
	}
	if c := got["cp/coredns"]; len(c.PIDs) != 2 || len(c.Cgroups) != 1 || c.FromProc {
		t.Errorf("cp/coredns = %+v, want two processes, one cgroup, nothing from /proc", c)
	}
	if !got["cp/kubelet"].FromProc {
		t.Errorf("cp/kubelet was not read from /proc: %+v", got["cp/kubelet"])
	}
}

func TestReadNodeCPUNamesWhatIsWrong(t *testing.T) {
	for _, tc := range []struct{ dump, want string }{
		{"stat " + stat(1, 1, 1), "before any proc line"},
		{"proc dockerd 1", "dockerd is no component"},
		{"proc etcd x", "pid"},
		{"proc etcd 1\ncgroup /sys/fs/cgroup/x/cpuacct.usage lots", "cpuacct.usage"},
		{"proc etcd 1\ncgroup /sys/fs/cgroup/x/cpu.stat user_usec 1", "has no usage_usec"},
		{"proc etcd 1\ncgroup /sys/fs/cgroup/x/memory.current 1", "neither"},
		{"proc etcd 1\nwhat 1", `unknown kind "what"`},
	} {
		run := func(context.Context, string, string) (string, error) { return tc.dump, nil }
		if _, err := ReadNodeCPU(context.Background(), run, []string{"n"}); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("dump %q: error %v, want one with %q", tc.dump, err, tc.want)
		}
	}
	failing := func(context.Context, string, string) (string, error) { return "", errors.New("no such container") }
	if _, err := ReadNodeCPU(context.Background(), failing, []string{"n"}); err == nil {
		t.Error("a failed exec read as a reading")
	}
}

func TestCPUSecondsSince(t *testing.T) {
	cg := []string{"/sys/fs/cgroup/cpuacct.usage"}
	before := NodeCPU{
		"cp/kube-apiserver": {CPU: 10 * time.Second, PIDs: []int{1}, Cgroups: cg},
		"cp/kubelet":        {CPU: 5 * time.Second, PIDs: []int{2}, FromProc: true},
		"cp/etcd":           {CPU: 5 * time.Second, PIDs: []int{3}, FromProc: true},
	}
	after := NodeCPU{
		// restarted in its pod: a new process, the same cgroup, which kept counting
		"cp/kube-apiserver": {CPU: 14 * time.Second, PIDs: []int{9}, Cgroups: cg},
		"cp/kubelet":        {CPU: 6 * time.Second, PIDs: []int{2}, FromProc: true},
		// restarted, read from /proc: the new process's count is all the interval's
		"cp/etcd": {CPU: 2 * time.Second, PIDs: []int{8}, FromProc: true},
		// new since before
		"cp/coredns": {CPU: time.Second, PIDs: []int{4}, FromProc: true},
	}
	got := CPUSecondsSince(before, after)
	want := map[string]float64{"cp/kube-apiserver": 4, "cp/kubelet": 1, "cp/etcd": 2, "cp/coredns": 1}
	for key, w := range want {
		if got[key] != w {
			t.Errorf("%s: %v s, want %v", key, got[key], w)
		}
	}
}

func TestEveryComponentIsInTheReport(t *testing.T) {
	for comm, name := range components {
		if !slices.Contains(result.Components, name) {
			t.Errorf("process %s is read as %s, which the report does not list (result.Components)", comm, name)
		}
	}
	if len(components) != len(result.Components) {
		t.Errorf("%d components are read, the report lists %d", len(components), len(result.Components))
	}
}
