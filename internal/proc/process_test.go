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

package proc

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// helperEnv makes the test binary act as a parent that starts a child and then
// waits to be killed, for TestChildDiesWithParent.
const helperEnv = "NETFORK_PROC_TEST_PARENT"

func TestMain(m *testing.M) {
	if os.Getenv(helperEnv) != "" {
		p, err := Start(Spec{Name: "child", Path: "/bin/sleep", Args: []string{"300"}, LogPath: os.Getenv(helperEnv)})
		if err != nil {
			os.Exit(2)
		}
		os.Stdout.WriteString(strconv.Itoa(p.Pid()) + "\n")
		<-p.Done()
		os.Exit(3)
	}
	os.Exit(m.Run())
}

func TestExitExplainsItself(t *testing.T) {
	log := filepath.Join(t.TempDir(), "apiserver-0.log")
	p, err := Start(Spec{Name: "apiserver-0", Path: "/bin/sh", Args: []string{"-c", "echo I1121 starting; echo 'Error: boom' >&2; exit 3"}, LogPath: log, LogHeader: "header line"})
	if err != nil {
		t.Fatal(err)
	}
	waitDone(t, p)
	want := "apiserver-0 stopped (exit status 3): Error: boom (log: " + log + ")"
	if got := p.ExitError().Error(); got != want {
		t.Fatalf("ExitError = %q, want %q", got, want)
	}
	if p.Stopping() {
		t.Errorf("Stopping() = true for a child nobody stopped")
	}
	data, _ := os.ReadFile(log)
	if !strings.HasPrefix(string(data), "header line\nI1121 starting\n") {
		t.Errorf("log = %q, want the header then the output", data)
	}
}

func TestStartFailsOnMissingBinary(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "nope")
	_, err := Start(Spec{Name: "x", Path: missing, LogPath: filepath.Join(t.TempDir(), "log")})
	if err == nil || !strings.Contains(err.Error(), "x: starting "+missing) {
		t.Fatalf("Start error = %v, want one naming the child and binary", err)
	}
}

func TestStopKillsWhatIgnoresSIGTERM(t *testing.T) {
	dir := t.TempDir()
	var procs []*Process
	// The second child ignores SIGTERM and runs a grandchild in its group; each
	// writes its marker once its trap is in place.
	scripts := []string{"touch $0.ready; exec sleep 100", "trap '' TERM; sleep 100 & touch $0.ready; wait"}
	for i, script := range scripts {
		marker := filepath.Join(dir, "child"+strconv.Itoa(i))
		p, err := Start(Spec{Name: "child", Path: "/bin/sh", Args: []string{"-c", script, marker}, LogPath: marker + ".log"})
		if err != nil {
			t.Fatal(err)
		}
		waitFile(t, marker+".ready")
		procs = append(procs, p)
	}
	start := time.Now()
	StopAll(procs, time.Second)
	if elapsed := time.Since(start); elapsed > 5*time.Second {
		t.Fatalf("StopAll took %s, want about the 1s timeout", elapsed)
	}
	for _, p := range procs {
		if !p.Exited() || !p.Stopping() {
			t.Errorf("child %d: exited=%t stopping=%t after StopAll", p.Pid(), p.Exited(), p.Stopping())
		}
		if !groupGone(p.Pid(), 5*time.Second) {
			t.Errorf("process group %d still exists after StopAll", p.Pid())
		}
		if err := p.Err(); err == nil || !strings.Contains(err.Error(), "signal") {
			t.Errorf("child ended with %v, want a signal", err)
		}
	}
	if killed := procs[1].Stop(time.Second); killed {
		t.Errorf("Stop of an exited child reports a SIGKILL")
	}
}

func TestStopIsGracefulWhenTheChildIs(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "child")
	p, err := Start(Spec{Name: "child", Path: "/bin/sh", Args: []string{"-c", "trap 'exit 0' TERM; touch $0.ready; while :; do sleep 0.1; done", marker}, LogPath: marker + ".log"})
	if err != nil {
		t.Fatal(err)
	}
	waitFile(t, marker+".ready")
	if killed := p.Stop(30 * time.Second); killed {
		t.Fatalf("Stop needed SIGKILL for a child that exits on SIGTERM")
	}
	if err := p.Err(); err != nil {
		t.Fatalf("child exited with %v, want status 0", err)
	}
}

func TestChildDiesWithParent(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	parent := exec.Command(exe, "-test.run=^$")
	parent.Env = append(os.Environ(), helperEnv+"="+filepath.Join(t.TempDir(), "child.log"))
	out, err := parent.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := parent.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		_ = parent.Process.Kill()
		t.Fatalf("reading the child's pid: %v", err)
	}
	child, _ := strconv.Atoi(strings.TrimSpace(line))
	if err := syscall.Kill(child, 0); err != nil {
		t.Fatalf("child %d not running before its parent died: %v", child, err)
	}
	_ = parent.Process.Kill()
	_ = parent.Wait()
	if !groupGone(child, 10*time.Second) {
		t.Fatalf("child %d outlived its SIGKILLed parent", child)
	}
}

// waitDone fails the test if p does not exit within 10s.
func waitDone(t *testing.T, p *Process) {
	t.Helper()
	select {
	case <-p.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("child did not exit")
	}
}

// waitFile waits until path exists, the positive signal a test child sends.
func waitFile(t *testing.T, path string) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if _, err := os.Stat(path); err == nil {
			return
		}
	}
	t.Fatalf("%s never appeared", path)
}

// groupGone waits until no process is left in process group pgid; a killed
// process lingers until its parent or init reaps it.
func groupGone(pgid int, timeout time.Duration) bool {
	for deadline := time.Now().Add(timeout); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if syscall.Kill(-pgid, 0) == syscall.ESRCH {
			return true
		}
	}
	return false
}

func TestExitBySignalNamesOnlyTheSignal(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "child")
	p, err := Start(Spec{Name: "apiserver-1", Path: "/bin/sh", Args: []string{"-c", "echo 'E1121 10:00:00.0 1 x.go:1] \"transient\" err=\"conflict\"' >&2; touch $0.ready; exec sleep 100", marker}, LogPath: marker + ".log"})
	if err != nil {
		t.Fatal(err)
	}
	waitFile(t, marker+".ready")
	if err := syscall.Kill(p.Pid(), syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	waitDone(t, p)
	want := "apiserver-1 stopped (signal: killed) (log: " + marker + ".log)"
	if got := p.ExitError().Error(); got != want {
		t.Fatalf("ExitError = %q, want %q", got, want)
	}
}
