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
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"time"
)

// components maps the process names (the kernel's 15-character comm, which pgrep -x
// matches) of the cluster components to the names the report gives them.
var components = map[string]string{
	"kube-apiserver":  "kube-apiserver",
	"etcd":            "etcd",
	"kube-controller": "kube-controller-manager",
	"kube-scheduler":  "kube-scheduler",
	"kube-proxy":      "kube-proxy",
	"kubelet":         "kubelet",
	"coredns":         "coredns",
	"kindnetd":        "kindnetd",
	"containerd":      "containerd",
}

// nodeScript prints, in a node, each component process's /proc stat line and its CPU
// accounting file: the pod's cgroup for a pod's container, whose count survives the
// container's restarts, the process's own (kubelet's, containerd's service) otherwise. A
// path /proc/<pid>/cgroup gives that the node's /sys/fs/cgroup does not hold (a cgroup v1
// host's docker prefix) loses leading parts until it matches; the root cgroup, which counts
// every process, is never read. cgroup v1's cpuacct.usage is in nanoseconds, v2's cpu.stat
// in microseconds.
const nodeScript = `for name in $NAMES; do
  for pid in $(pgrep -x "$name"); do
    stat=$(cat /proc/$pid/stat 2>/dev/null) || continue
    echo "proc $name $pid"
    echo "stat $stat"
    cg=$(awk -F: '$2 ~ /(^|,)cpuacct(,|$)/ || ($1 == "0" && $2 == "") {print $3; exit}' /proc/$pid/cgroup 2>/dev/null)
    case "$cg" in *kubepods*/*) cg=${cg%/*} ;; /) cg="" ;; esac
    while [ -n "$cg" ]; do
      found=""
      for f in /sys/fs/cgroup/cpu,cpuacct$cg/cpuacct.usage /sys/fs/cgroup/cpuacct$cg/cpuacct.usage /sys/fs/cgroup$cg/cpu.stat; do
        if [ -r "$f" ]; then found=$f; break; fi
      done
      if [ -n "$found" ]; then echo "cgroup $found $(tr '\n' ' ' <"$found")"; break; fi
      case "$cg" in /*/*) cg=/${cg#/*/} ;; *) cg="" ;; esac
    done
  done
done`

// Exec runs a shell script in a node and returns what it printed.
type Exec func(ctx context.Context, node, script string) (string, error)

// DockerExec runs the script in the node's container with docker exec.
func DockerExec(ctx context.Context, node, script string) (string, error) {
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, "docker", "exec", node, "sh", "-c", script)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("docker exec %s: %w: %s", node, err, strings.TrimSpace(stderr.String()))
	}
	return stdout.String(), nil
}

// ComponentCPU is the CPU time one component has used on one node so far.
type ComponentCPU struct {
	CPU time.Duration
	// PIDs are its processes; Cgroups the accounting files read instead of their /proc
	// stat; FromProc says the /proc stat of at least one was read, having no cgroup.
	PIDs     []int
	Cgroups  []string
	FromProc bool
}

// NodeCPU is a reading of every component's CPU time, keyed "node/component".
type NodeCPU map[string]ComponentCPU

// ReadNodeCPU reads the components' CPU time in each node.
func ReadNodeCPU(ctx context.Context, run Exec, nodes []string) (NodeCPU, error) {
	names := make([]string, 0, len(components))
	for name := range components {
		names = append(names, name)
	}
	slices.Sort(names)
	script := "NAMES='" + strings.Join(names, " ") + "'\n" + nodeScript
	reading := NodeCPU{}
	for _, node := range nodes {
		out, err := run(ctx, node, script)
		if err != nil {
			return nil, err
		}
		if err := parseNodeDump(reading, node, out); err != nil {
			return nil, fmt.Errorf("node %s: %w", node, err)
		}
	}
	return reading, nil
}

// parseNodeDump adds what nodeScript printed in node to reading: each component's
// processes and their CPU time, from their cgroup when one was found (a cgroup several
// of them share counted once), from /proc otherwise.
func parseNodeDump(reading NodeCPU, node, dump string) error {
	var p *dumpedProcess
	for line := range strings.Lines(dump) {
		line = strings.TrimSpace(line)
		kind, rest, _ := strings.Cut(line, " ")
		var err error
		switch {
		case kind == "proc":
			p.addTo(reading)
			p, err = parseProcLine(node, rest)
		case kind == "":
		case p == nil:
			err = fmt.Errorf("a %s line before any proc line", kind)
		case kind == "stat":
			p.proc, err = parseStatCPU(rest)
		case kind == "cgroup":
			p.cgroup, _, _ = strings.Cut(rest, " ")
			p.cgroupCPU, err = parseCgroupCPU(p.cgroup, strings.TrimPrefix(rest, p.cgroup))
		default:
			err = fmt.Errorf("unknown kind %q", kind)
		}
		if err != nil {
			return fmt.Errorf("line %q: %w", line, err)
		}
	}
	p.addTo(reading)
	return nil
}

// dumpedProcess is one process of nodeScript's output as it is read.
type dumpedProcess struct {
	key       string
	pid       int
	proc      time.Duration
	cgroup    string
	cgroupCPU time.Duration
}

// parseProcLine reads "NAME PID" of a proc line in node.
func parseProcLine(node, rest string) (*dumpedProcess, error) {
	fields := strings.Fields(rest)
	if len(fields) != 2 {
		return nil, fmt.Errorf("want proc NAME PID")
	}
	component, ok := components[fields[0]]
	if !ok {
		return nil, fmt.Errorf("%s is no component", fields[0])
	}
	pid, err := strconv.Atoi(fields[1])
	if err != nil {
		return nil, fmt.Errorf("pid: %w", err)
	}
	return &dumpedProcess{key: node + "/" + component, pid: pid}, nil
}

// addTo adds the process to its component's reading; nothing for nil.
func (p *dumpedProcess) addTo(reading NodeCPU) {
	if p == nil {
		return
	}
	c := reading[p.key]
	c.PIDs = append(c.PIDs, p.pid)
	switch {
	case p.cgroup == "":
		c.CPU += p.proc
		c.FromProc = true
	case !slices.Contains(c.Cgroups, p.cgroup):
		c.Cgroups = append(c.Cgroups, p.cgroup)
		c.CPU += p.cgroupCPU
	}
	reading[p.key] = c
}

// parseCgroupCPU reads a cgroup's CPU time: cgroup v1's cpuacct.usage (nanoseconds) or
// v2's cpu.stat usage_usec (microseconds).
func parseCgroupCPU(file, contents string) (time.Duration, error) {
	fields := strings.Fields(contents)
	switch {
	case strings.HasSuffix(file, "/cpuacct.usage"):
		if len(fields) != 1 {
			return 0, fmt.Errorf("%s holds %q, want one number", file, contents)
		}
		ns, err := strconv.ParseInt(fields[0], 10, 64)
		if err != nil {
			return 0, fmt.Errorf("%s: %w", file, err)
		}
		return time.Duration(ns), nil
	case strings.HasSuffix(file, "/cpu.stat"):
		for i := 0; i+1 < len(fields); i += 2 {
			if fields[i] == "usage_usec" {
				us, err := strconv.ParseInt(fields[i+1], 10, 64)
				if err != nil {
					return 0, fmt.Errorf("%s usage_usec: %w", file, err)
				}
				return time.Duration(us) * time.Microsecond, nil
			}
		}
		return 0, fmt.Errorf("%s has no usage_usec", file)
	}
	return 0, fmt.Errorf("%s is neither cpuacct.usage nor cpu.stat", file)
}

// CPUSecondsSince is the CPU seconds each component used between two readings. A component
// whose processes (read from /proc) or cgroups changed in between was restarted or
// replaced: its count started again, so all of its new count is the interval's.
func CPUSecondsSince(before, after NodeCPU) map[string]float64 {
	out := map[string]float64{}
	for key, a := range after {
		used := a.CPU
		if b, ok := before[key]; ok && sameSource(a, b) && a.CPU >= b.CPU {
			used -= b.CPU
		}
		out[key] = used.Seconds()
	}
	return out
}

// sameSource says whether two readings of a component count from the same start: the
// same cgroups and, where a process was read from /proc, the same processes.
func sameSource(a, b ComponentCPU) bool {
	if !slices.Equal(a.Cgroups, b.Cgroups) {
		return false
	}
	return !a.FromProc && !b.FromProc || slices.Equal(a.PIDs, b.PIDs)
}
